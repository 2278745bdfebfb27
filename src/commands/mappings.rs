//! `invoicedrop mappings list | show NAME | detect FILE`.

use super::Status;
use super::out::{out, outln};
use crate::cli::*;
use crate::mapping::{bundled, detect};
use crate::pipeline;
use serde::Serialize;

#[derive(Serialize)]
struct Listed {
    name: String,
    description: String,
}

/// Run `invoicedrop mappings`.
pub fn mappings(args: MappingsArgs, cli: &Cli) -> anyhow::Result<Status> {
    match args.action {
        MappingsAction::List => {
            let all: Vec<Listed> = bundled::all()?
                .into_iter()
                .map(|m| Listed {
                    name: m.name,
                    description: m.description,
                })
                .collect();
            if cli.json {
                outln!("{}", serde_json::to_string_pretty(&all)?);
            } else {
                let w = all.iter().map(|m| m.name.len()).max().unwrap_or(0);
                for m in &all {
                    outln!("{:w$}  {}", m.name, m.description);
                }
            }
            Ok(Status::Success)
        }
        MappingsAction::Show { name } => {
            let text = match bundled::text(&name) {
                Some(t) => t.to_string(),
                None => {
                    let m = pipeline::load_mapping(&name)?;
                    match &m.origin {
                        crate::mapping::Origin::File(p) => std::fs::read_to_string(p)?,
                        crate::mapping::Origin::Bundled(_) => String::new(),
                    }
                }
            };
            out!("{text}");
            Ok(Status::Success)
        }
        MappingsAction::Detect { file } => {
            let mappings = bundled::all()?;
            let ranked = pipeline::detect(&file, &mappings)?;
            let chosen = pipeline::open::choose(&file, &mappings, &ranked);
            if cli.json {
                #[derive(Serialize)]
                struct Out<'a> {
                    file: String,
                    chosen: Option<String>,
                    error: Option<String>,
                    candidates: &'a [detect::Candidate],
                }
                let out = Out {
                    file: file.display().to_string(),
                    chosen: chosen.as_ref().ok().map(|c| c.mapping.clone()),
                    error: chosen.as_ref().err().map(|e| e.to_string()),
                    candidates: &ranked,
                };
                outln!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                for c in &ranked {
                    let role = match c.role {
                        detect::Role::Export => "",
                        detect::Role::JoinHeader => " (as its header file)",
                    };
                    outln!(
                        "{:>4.0}%  {}{role}: {} of {} required columns",
                        c.score * 100.0,
                        c.mapping,
                        c.matched.len(),
                        c.matched.len() + c.missing.len()
                    );
                    if !c.missing.is_empty() && c.score > 0.0 {
                        outln!("       missing: {}", c.missing.join(", "));
                    }
                }
                match &chosen {
                    Ok(c) => outln!("chosen: {}", c.mapping),
                    Err(e) => outln!("no choice: {e}"),
                }
            }
            Ok(if chosen.is_ok() { Status::Success } else { Status::Error })
        }
    }
}

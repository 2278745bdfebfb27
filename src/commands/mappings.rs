//! `invoicedrop mappings list | show NAME | detect FILE`.

use super::Status;
use super::json::{ErrorDoc, ErrorKind};
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
                // An array, as it always was: the one result that is not an object.
                super::json::emit(&all)?;
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
                    let m = pipeline::load_mapping_given_as(&name, "mappings show")?;
                    match &m.origin {
                        crate::mapping::Origin::File(p) => std::fs::read_to_string(p)?,
                        crate::mapping::Origin::Bundled(_) => String::new(),
                    }
                }
            };
            if cli.json {
                super::json::emit(&serde_json::json!({
                    "name": name,
                    "toml": text,
                    "exit_code": 0,
                    "error": null,
                }))?;
            } else {
                out!("{text}");
            }
            Ok(Status::Success)
        }
        MappingsAction::Detect { file } => {
            let mappings = bundled::all()?;
            let ranked = pipeline::detect(&file, &mappings)?;
            let chosen = pipeline::open::choose(&file, &mappings, &ranked);
            let status = if chosen.is_ok() { Status::Success } else { Status::Error };
            if let Err(e) = &chosen {
                eprintln!("error: {e}");
            }
            if cli.json {
                #[derive(Serialize)]
                struct Out<'a> {
                    file: String,
                    chosen: Option<String>,
                    candidates: &'a [detect::Candidate],
                    exit_code: u8,
                    error: Option<ErrorDoc>,
                }
                let out = Out {
                    file: file.display().to_string(),
                    chosen: chosen.as_ref().ok().map(|c| c.mapping.clone()),
                    candidates: &ranked,
                    exit_code: status.code(),
                    error: chosen
                        .as_ref()
                        .err()
                        .map(|e| ErrorDoc::new(ErrorKind::Mapping, e.to_string())),
                };
                super::json::emit(&out)?;
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
                // No choice: said on stderr above.
                if let Ok(c) = &chosen {
                    outln!("chosen: {}", c.mapping);
                }
            }
            Ok(status)
        }
    }
}

//! `invoicedrop generate --layout NAME --rows N [--seed S] --out FILE`: a realistic export in a
//! bundled layout (see [`crate::generate`]).

use super::Status;
use super::json::Fatal;
use super::out::outln;
use crate::cli::{Cli, GenerateArgs};
use crate::generate::{self, Layout, Options};
use chrono::NaiveDate;
use serde::Serialize;

#[derive(Serialize)]
struct Report {
    layout: &'static str,
    rows: u64,
    documents: u64,
    credit_notes: u64,
    debit_notes: u64,
    not_issued: u64,
    files: Vec<String>,
    seconds: f64,
    exit_code: u8,
    error: Option<super::json::ErrorDoc>,
}

/// Run `invoicedrop generate`.
pub fn generate(args: GenerateArgs, cli: &Cli) -> anyhow::Result<Status> {
    let Some(layout) = Layout::from_name(&args.layout) else {
        let names: Vec<&str> = Layout::ALL.iter().map(|l| l.name()).collect();
        return Err(Fatal::usage(format!(
            "--layout {:?}: expected one of {}",
            args.layout,
            names.join(", ")
        ))
        .into());
    };
    let today = match &args.today {
        Some(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .map_err(|_| Fatal::usage(format!("--today {s:?}: expected a date such as 2026-11-21")))?,
        None => chrono::Local::now().date_naive(),
    };
    let opts = Options {
        layout,
        rows: args.rows,
        seed: args.seed,
        out: args.out.clone(),
        today,
    };
    let started = std::time::Instant::now();
    let done = generate::generate(&opts)?;
    let report = Report {
        layout: layout.name(),
        rows: done.rows,
        documents: done.documents,
        credit_notes: done.credit_notes,
        debit_notes: done.debit_notes,
        not_issued: done.not_issued,
        files: done.files.iter().map(|p| p.display().to_string()).collect(),
        seconds: started.elapsed().as_secs_f64(),
        exit_code: 0,
        error: None,
    };
    if cli.json {
        super::json::emit(&report)?;
    } else if !cli.quiet {
        let debit = if report.debit_notes > 0 {
            format!(
                ", {}",
                crate::text::count_of(report.debit_notes, "debit note", "debit notes")
            )
        } else {
            String::new()
        };
        outln!(
            "{}: {}, {} ({}{debit}, {} drafts or voided) in {:.1} s",
            report.files[0],
            crate::text::count_of(report.rows, "row", "rows"),
            crate::text::count_of(report.documents, "document", "documents"),
            crate::text::count_of(report.credit_notes, "credit note", "credit notes"),
            report.not_issued,
            report.seconds
        );
        for f in &report.files[1..] {
            outln!("  also wrote {f}");
        }
    }
    Ok(Status::Success)
}

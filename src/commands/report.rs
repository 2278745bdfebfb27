//! `invoicedrop report RESULTS_DIR`: the summary of every result file in a folder and the
//! reconciliation of the accepted documents with their signed XML. Exit 0 when everything
//! reconciles, 1 when differences exist, 2 when the folder cannot be read or holds no results.

use super::Status;
use super::json::Fatal;
use super::out::out;
use crate::cli::{Cli, ReportArgs};
use crate::results::duplicates::Duplicates;
use crate::results::report::{self, Reconciled, Report, SettledConflict, VatSar};
use crate::results::summary::{Amounts, money};
use std::fmt::Write as _;

/// Run `invoicedrop report`.
pub fn report(args: ReportArgs, cli: &Cli) -> anyhow::Result<Status> {
    let dir = &args.results_dir;
    if !dir.is_dir() {
        let what = if dir.exists() {
            "a file, not a folder of result files"
        } else {
            "no such folder"
        };
        return Err(Fatal::usage(format!(
            "{}: {what}: give report the folder that check or run wrote (their --results, ./results by default)",
            dir.display()
        ))
        .into());
    }
    if report::result_sets(dir)?.is_empty() {
        return Err(Fatal::usage(format!(
            "{}: no result files (X.result.csv, X.documents.csv, X.summary.json) here: give report the folder \
             that check or run wrote (their --results, ./results by default)",
            dir.display()
        ))
        .into());
    }
    let report = report::build(dir)?;
    let status = if report.reconciled {
        Status::Success
    } else {
        Status::Failure
    };
    if cli.json {
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            #[serde(flatten)]
            report: &'a Report,
            exit_code: u8,
            error: Option<super::json::ErrorDoc>,
        }
        super::json::emit(&Doc {
            report: &report,
            exit_code: status.code(),
            error: None,
        })?;
    } else if !cli.quiet || !report.reconciled {
        out!("{}", render(&report, cli.quiet));
    }
    Ok(status)
}

fn amounts(a: &Amounts) -> String {
    format!("net {}  VAT {}  gross {}", money(a.net), money(a.vat), money(a.gross))
}

/// One currency's line, credit notes subtracted; a difference only as issued (a document
/// whose kind differs from its XML's) is shown as such.
fn reconciled_line(r: &Reconciled) -> String {
    let mut s = format!(
        "input {} {}  |  XML {} {}",
        crate::text::count_of(r.documents, "doc", "docs"),
        amounts(&r.netted_input),
        crate::text::count_of(r.xml_documents, "doc", "docs"),
        amounts(&r.netted_xml)
    );
    if r.is_ok() {
        s.push_str("  ok");
    } else if r.netted_difference.is_zero() && !r.difference.is_zero() {
        let _ = write!(s, "  DIFFERENCE (as issued) {}", amounts(&r.difference));
    } else {
        let _ = write!(s, "  DIFFERENCE {}", amounts(&r.netted_difference));
    }
    s
}

/// The VAT in SAR of every currency: `all currencies VAT in SAR input 2 docs 1,150.00  |  XML
/// 2 docs 1,150.00  ok`.
fn vat_sar_line(v: &VatSar) -> String {
    let without = |n: u64| {
        if n == 0 {
            String::new()
        } else {
            format!(" ({n} without VAT in SAR)")
        }
    };
    let mut s = format!(
        "all currencies VAT in SAR input {} {}{}  |  XML {} {}{}",
        crate::text::count_of(v.documents, "doc", "docs"),
        money(v.input),
        without(v.input_without),
        crate::text::count_of(v.xml_documents, "doc", "docs"),
        money(v.xml),
        without(v.xml_without)
    );
    if v.is_ok() {
        s.push_str("  ok");
    } else {
        let _ = write!(s, "  DIFFERENCE {}", money(v.difference));
    }
    s
}

/// What the folder's totals left out, by the sets involved.
fn duplicates_text(d: &Duplicates) -> String {
    let mut out = String::new();
    if d.documents == 0 {
        return out;
    }
    let _ = writeln!(
        out,
        "duplicates: {} document{} held by more than one record; all sets, per day and overall count each once \
         ({} record{} of {} row{} left out; each set's own figures count them):",
        d.documents,
        if d.documents == 1 { " is" } else { "s are" },
        d.records_left_out,
        if d.records_left_out == 1 { "" } else { "s" },
        d.rows_left_out,
        if d.rows_left_out == 1 { "" } else { "s" }
    );
    for g in &d.by_sets {
        let _ = writeln!(
            out,
            "  {} counted in {}, left out in {} (e.g. {})",
            g.documents,
            g.counted_in,
            g.left_out_in.join(", "),
            g.examples.join(", ")
        );
    }
    out
}

/// Conflicts of earlier sets that the set counting for their document no longer says, by the
/// sets involved.
fn settled_text(settled: &[SettledConflict]) -> String {
    let mut out = String::new();
    if settled.is_empty() {
        return out;
    }
    let mut groups: Vec<((&str, &str), Vec<&str>)> = Vec::new();
    for c in settled {
        let k = (c.set.as_str(), c.settled_in.as_str());
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, docs)) => docs.push(&c.document),
            None => groups.push((k, vec![&c.document])),
        }
    }
    let n = settled.len();
    let _ = writeln!(
        out,
        "conflicts settled: {n} document{} in conflict with {} export ({}) in an earlier result set {} accepted \
         without a conflict in the set written last that holds {} (the export gives the issued content again); \
         not differences:",
        if n == 1 { "" } else { "s" },
        if n == 1 { "its" } else { "their" },
        crate::submit::CONFLICT_CODE,
        if n == 1 { "is" } else { "are" },
        if n == 1 { "it" } else { "them" },
    );
    for ((set, settled_in), docs) in groups {
        let examples: Vec<&str> = docs.iter().take(10).copied().collect();
        let _ = writeln!(
            out,
            "  {} in {set}, settled in {settled_in} (e.g. {})",
            docs.len(),
            examples.join(", ")
        );
    }
    out
}

/// The report for a person.
pub fn render(r: &Report, quiet: bool) -> String {
    let mut out = String::new();
    if !quiet {
        let _ = writeln!(out, "results: {} ({} result sets)", r.results_dir, r.sets.len());
        for s in &r.sets {
            let _ = writeln!(out, "{}:", s.name);
            out.push_str(&s.summary.render("  ", r.sets.len() == 1));
        }
        if r.sets.len() > 1 {
            let _ = writeln!(out, "all sets (each document once):");
            out.push_str(&r.summary.render("  ", true));
        }
        out.push_str(&duplicates_text(&r.duplicates));
        out.push_str(&settled_text(&r.conflicts_settled));
        let _ = writeln!(
            out,
            "reconciliation (accepted documents against their signed XML, net of credit notes):"
        );
        if r.overall.is_empty() {
            let _ = writeln!(out, "  no accepted documents and no signed XML: nothing to reconcile");
        }
        // With more than one month, each month's lines follow its last day (a monthly VAT
        // return's figures); with one, they would repeat the overall lines.
        let months = r.by_month.len() > 1;
        let mut days = r.by_day.iter().peekable();
        while let Some((date, m)) = days.next() {
            for (currency, rec) in m {
                let _ = writeln!(out, "  {date:<10} {currency} {}", reconciled_line(rec));
            }
            // The VAT in SAR adds something to a day's lines only with another currency.
            if let Some(v) = r.vat_sar_by_day.get(date)
                && (m.keys().any(|c| c != "SAR") || !v.is_ok())
            {
                let _ = writeln!(out, "  {date:<10} {}", vat_sar_line(v));
            }
            let month = crate::results::report::month_of(date);
            let last_of_month = days
                .peek()
                .is_none_or(|(next, _)| crate::results::report::month_of(next) != month);
            if months && last_of_month {
                let label = format!("{month} month");
                for (currency, rec) in r.by_month.get(month).into_iter().flatten() {
                    let _ = writeln!(out, "  {label:<10} {currency} {}", reconciled_line(rec));
                }
                if let Some(v) = r.vat_sar_by_month.get(month) {
                    let _ = writeln!(out, "  {label:<10} {}", vat_sar_line(v));
                }
            }
        }
        for (currency, rec) in &r.overall {
            let _ = writeln!(out, "  {:<10} {currency} {}", "overall", reconciled_line(rec));
        }
        if !r.overall.is_empty() {
            let _ = writeln!(out, "  {:<10} {}", "overall", vat_sar_line(&r.vat_sar));
        }
    }
    if r.reconciled {
        let _ = writeln!(out, "everything reconciles");
    } else {
        let n = r.differences.len();
        let _ = writeln!(out, "{n} difference{}:", if n == 1 { "" } else { "s" });
        for d in &r.differences {
            let doc = if d.document.is_empty() {
                "-"
            } else {
                d.document.as_str()
            };
            let _ = writeln!(out, "  {} {} {} [{}]: {}", d.set, doc, d.issue_date, d.kind, d.message);
        }
    }
    out
}

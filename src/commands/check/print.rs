//! What `check` and `run` print: each file's error on stderr, then the `--json` document or the
//! summary for people.

use super::Report;
use crate::cli::Cli;
use crate::commands::out::{out, outln};
use crate::pipeline;
use crate::text::count_of;

/// Say on stderr what went wrong (with or without `--json`: each file's error, no export), then
/// print the report on stdout: the `--json` document, or the summary for people.
pub(in crate::commands) fn print(report: &Report, cli: &Cli) -> anyhow::Result<()> {
    print_errors(report);
    if cli.json {
        crate::commands::json::emit(report)
    } else {
        print_human(report, cli.quiet);
        Ok(())
    }
}

/// Each file's error, and no export at all, on stderr (with or without `--json`).
fn print_errors(r: &Report) {
    for f in &r.files {
        let Some(e) = &f.error else { continue };
        if e.starts_with(&f.file) {
            eprintln!("error: {e}");
        } else {
            eprintln!("error: {}: {e}", f.file);
        }
        // A file that changed while it was read has its results, said with them.
        if f.result_file.is_none() && (f.rows > 0 || f.documents.total() > 0) {
            eprintln!(
                "  before it: {}, {}: {}",
                count_of(f.rows, "row", "rows"),
                count_of(f.documents.total(), "document", "documents"),
                counts_text(&f.documents, r.sending)
            );
        }
    }
    // Once: a path whose own error was said above is no second error.
    if let Some(text) = &r.no_exports
        && !r.files.iter().any(|f| f.error.is_some())
    {
        eprintln!("error: {text}");
    }
}

fn print_human(r: &Report, quiet: bool) {
    for f in &r.files {
        // Its error is said on stderr; a file that changed while it was read has its results.
        if f.error.is_some() && f.result_file.is_none() {
            continue;
        }
        if quiet {
            continue;
        }
        outln!(
            "{}: mapping {}, {}, {}: {} -> {}",
            f.file,
            f.mapping,
            count_of(f.rows, "row", "rows"),
            count_of(f.documents.total(), "document", "documents"),
            counts_text(&f.documents, r.sending),
            f.result_file.as_deref().unwrap_or("-")
        );
        if let Some(x) = &f.result_xlsx {
            outln!("  spreadsheet result: {x}");
        }
        for n in &f.notes {
            outln!("  {}: {n}", crate::results::summary::note_label(n));
        }
        if let Some(s) = &f.summary {
            // The file's notes, just printed, are in its summary too (for `X.summary.json`).
            if s.notes.iter().any(|n| f.notes.contains(n)) {
                let mut s = s.clone();
                s.notes.retain(|n| !f.notes.contains(n));
                out!("{}", s.render("  ", true));
            } else {
                out!("{}", s.render("  ", true));
            }
        }
        for p in &f.problems {
            outln!("  {p}");
        }
    }
    if quiet {
        return;
    }
    for s in &r.skipped_files {
        outln!("skipped {s}");
    }
    outln!(
        "total: {}, {}, documents: {}",
        count_of(r.files.len() as u64, "file", "files"),
        count_of(r.rows, "row", "rows"),
        counts_text(&r.documents, r.sending)
    );
    let mut top: Vec<(&String, &u64)> = r.codes.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !top.is_empty() {
        let list: Vec<String> = top.iter().take(8).map(|(c, n)| format!("{c} ×{n}")).collect();
        outln!("top rule codes: {}", list.join(", "));
    }
}

/// `5 valid, 0 invalid, 2 skipped` for check; `5 accepted, 0 rejected, ...` for run (`sending`),
/// even when nothing was sent, and once documents were sent (`report` on a run's results).
fn counts_text(c: &pipeline::Counts, sending: bool) -> String {
    let mut parts = Vec::new();
    let sent = sending || c.accepted + c.rejected + c.failed > 0;
    if !sent || c.valid > 0 {
        parts.push(format!("{} valid", c.valid));
    }
    if sent {
        parts.push(accepted_text(c));
        parts.push(format!("{} rejected", c.rejected));
        parts.push(format!("{} failed", c.failed));
    }
    parts.push(format!("{} invalid", c.invalid));
    parts.push(format!("{} skipped", c.skipped));
    parts.join(", ")
}

/// `5 accepted`, `5 accepted (1 in conflict with its export: INV-LEDGER-CONFLICT)`, `5 accepted
/// (2 issued before, from the ledger: not sent again)`: the accepted documents, conflicts
/// included, those issued earlier with content the export no longer gives as a count of their
/// own (never among the rejected), those an earlier result set kept that the export no longer
/// holds, and those reported from the ledger (an earlier run, or an
/// earlier file of this run holding them too), so that a run's total can be set beside the
/// authority's count. Shared by `check`, `run` and `watch`'s log.
pub(in crate::commands) fn accepted_text(c: &pipeline::Counts) -> String {
    let mut said = Vec::new();
    if c.conflicts > 0 {
        said.push(format!(
            "{} in conflict with its export: {}",
            c.conflicts,
            crate::submit::CONFLICT_CODE
        ));
    }
    if c.kept > 0 {
        said.push(format!(
            "{} issued earlier and no longer in this export, kept as issued: {}",
            c.kept,
            crate::results::kept::NOT_IN_EXPORT_CODE
        ));
    }
    if c.issued_before > 0 {
        said.push(format!(
            "{} issued before, from the ledger: not sent again",
            c.issued_before
        ));
    }
    if said.is_empty() {
        return format!("{} accepted", c.accepted);
    }
    format!("{} accepted ({})", c.accepted, said.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_counts_what_it_sent_even_when_it_sent_nothing() {
        let c = pipeline::Counts {
            invalid: 2,
            ..Default::default()
        };
        assert_eq!(counts_text(&c, false), "0 valid, 2 invalid, 0 skipped");
        assert_eq!(
            counts_text(&c, true),
            "0 accepted, 0 rejected, 0 failed, 2 invalid, 0 skipped"
        );
        let c = pipeline::Counts {
            accepted: 3,
            invalid: 1,
            ..Default::default()
        };
        assert_eq!(
            counts_text(&c, false),
            "3 accepted, 0 rejected, 0 failed, 1 invalid, 0 skipped",
            "report on a run's results"
        );
    }

    #[test]
    fn the_accepted_say_which_were_in_conflict_and_which_issued_before() {
        let mut c = pipeline::Counts {
            accepted: 5,
            ..Default::default()
        };
        assert_eq!(accepted_text(&c), "5 accepted");
        c.issued_before = 2;
        assert_eq!(
            accepted_text(&c),
            "5 accepted (2 issued before, from the ledger: not sent again)"
        );
        c.conflicts = 1;
        assert_eq!(
            accepted_text(&c),
            "5 accepted (1 in conflict with its export: INV-LEDGER-CONFLICT; 2 issued before, from the ledger: \
             not sent again)"
        );
    }
}

//! Each batch's outcomes into the result files, in input order, and counted into the file's
//! summary.

use super::outcome::{Outcome, RowOutcome};
use super::{CheckOptions, FileSummary};
use crate::results::{ResultWriter, RowStatus};
use std::collections::BTreeMap;

/// Count one document under `kind/type`; the key is made inline (up to 24 bytes, which every
/// `kind/type` fits) and allocated only the first time it is counted.
pub(super) fn count_kind(by_kind: &mut BTreeMap<String, u64>, kind: &str, invoice_type: &str) {
    let mut key = compact_str::CompactString::const_new("");
    key.push_str(kind);
    key.push('/');
    key.push_str(invoice_type);
    *crate::results::summary::entry(by_kind, &key) += 1;
}

/// Write one batch's outcomes, in input order, and count them into the summary. After a write
/// fails, the rest of the batch is still counted (in `run` its documents were sent), not written.
pub(super) fn record(
    outcomes: Vec<Outcome>,
    file: &str,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
) -> std::io::Result<()> {
    let mut failed = None;
    for o in outcomes {
        if failed.is_none()
            && let Err(e) = write_outcome(&o, writer)
        {
            failed = Some(e);
        }
        tally(o, file, opts, summary);
    }
    failed.map_or(Ok(()), Err)
}

/// One outcome's rows, and its document's line, in the result files.
fn write_outcome(o: &Outcome, writer: &mut ResultWriter) -> std::io::Result<()> {
    for RowOutcome { row, result: rr, line } in &o.rows {
        writer.write_input_row(row.as_ref(), rr, *line)?;
    }
    if let Some(r) = &o.record {
        writer.document(r)?;
    }
    Ok(())
}

/// Count one outcome into the summary: rows, problems, rule codes, the document's status.
pub(super) fn tally(o: Outcome, file: &str, opts: &CheckOptions, summary: &mut FileSummary) {
    for RowOutcome { result: rr, line, .. } in &o.rows {
        summary.rows += 1;
        if rr.status == RowStatus::Invalid {
            summary.rows_invalid += 1;
        }
        // An accepted row with an error: issued earlier with other content (INV-LEDGER-CONFLICT).
        if summary.problems.len() < 20
            && (rr.status.is_problem() || (rr.status == RowStatus::Accepted && !rr.errors.is_empty()))
        {
            for e in rr.errors.iter().filter(|e| !e.starts_with("INV-DOCUMENT")) {
                if summary.problems.len() < 20 {
                    summary.problems.push(format!("{file} line {}: {e}", line.unwrap_or(0)));
                }
            }
        }
    }
    let conflict = o.codes.iter().any(|c| c == crate::submit::CONFLICT_CODE);
    for c in o.codes {
        *summary.codes.entry(c).or_default() += 1;
    }
    if let Some(b) = o.brief {
        summary.documents.add(b.status);
        if conflict && b.status == RowStatus::Accepted {
            summary.documents.conflicts += 1;
        }
        if b.issued_before {
            summary.documents.issued_before += 1;
        }
        if b.status != RowStatus::Skipped {
            count_kind(&mut summary.by_kind, &b.kind, &b.invoice_type);
        }
        if summary.document_list.len() < opts.max_briefs {
            summary.document_list.push(b);
        }
    }
}

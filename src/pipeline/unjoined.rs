//! The records of a joined header file that make no document of the lines file's rows, once the
//! lines file's rows are all read: no row referred to them (`INV-MAP-NO-LINES`), they have no key
//! (`INV-MAP-KEY-BLANK`), or another record has their key (`INV-MAP-KEY-DUPLICATE`). Each is an
//! invalid document with a row of its own at the end of the result file (the lines file's columns
//! blank but the one referring to the header file, which holds its key), in
//! `X.documents.csv`, the summary and `--json`, so that a document of the header file is never
//! lost without a word, and never issued.

use super::record::count_kind;
use super::*;
use crate::mapping::Unjoined;

/// Write and count the header file's records that make no document of the lines file's rows. `dispatch` (`run`):
/// asked whether their numbers were issued before, which the finding then says. Nothing without
/// a join, or when every record was referred to.
pub(super) fn record_unjoined(
    bound: &Bound,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
    dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> std::io::Result<()> {
    let unjoined = bound.unjoined();
    if unjoined.is_empty() {
        return Ok(());
    }
    let held = match dispatch {
        Some(d) => {
            let numbers: Vec<(String, Option<crate::model::DocumentKind>)> =
                unjoined.iter().map(|u| (u.name().to_string(), u.kind)).collect();
            d.holds(&numbers, opts.seller.vat_number.as_deref())
        }
        None => Vec::new(),
    };
    let time = opts.now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let width = bound.headers.width();
    let parent = bound.join_parent_column();
    for (i, u) in unjoined.iter().enumerate() {
        let mut issues = bound.unjoined_issues(u);
        if held.get(i).copied().unwrap_or(false)
            && let Some(issue) = issues.first_mut()
        {
            issue.message.push_str(&format!(
                " (the ledger holds {} from an earlier run: it was issued then, or maybe issued, and stays so)",
                u.name()
            ));
        }
        write_one(u, &issues, width, parent, &time, opts, writer, summary)?;
    }
    Ok(())
}

/// One record's row, document and counts.
#[allow(clippy::too_many_arguments)]
fn write_one(
    u: &Unjoined,
    issues: &[crate::mapping::Issue],
    width: usize,
    parent: Option<usize>,
    time: &str,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
) -> std::io::Result<()> {
    let found: Vec<ResultIssue> = issues.iter().map(ResultIssue::from).collect();
    let mut rr = ResultRow::new(RowStatus::Invalid, time);
    rr.document = u.name().into();
    for f in &found {
        let text = f.render();
        if summary.problems.len() < 20 {
            summary
                .problems
                .push(format!("{} line {}: {text}", u.source.file, u.source.line));
        }
        *summary.codes.entry(f.code.clone()).or_default() += 1;
        rr.push_rendered(f.clone(), text);
    }
    let mut cells = vec![""; width];
    if let Some(cell) = parent.and_then(|p| cells.get_mut(p)) {
        *cell = &u.key;
    }
    writer.write_row(&cells, &rr, None)?;
    // Known by its kind and number, as the documents of the lines file are: an issued document
    // of that number kept from the results this set replaces is the same document, still in the
    // export (`results::kept`), counted once, as issued. Its line is its record's, in the header
    // file (the lines file has none of it).
    let kind = u.kind.map(super::kind_name).unwrap_or_default();
    let mut record = DocumentRecord::new(u.name(), RowStatus::Invalid);
    record.kind = kind.to_string();
    record.first_line = Some(u.source.line);
    record.rows = 1;
    record.add_codes(&found);
    writer.document(&record)?;

    summary.rows += 1;
    summary.rows_invalid += 1;
    summary.documents.add(RowStatus::Invalid);
    count_kind(&mut summary.by_kind, kind, "");
    if summary.document_list.len() < opts.max_briefs {
        summary.document_list.push(DocBrief {
            number: u.name().to_string(),
            kind: kind.to_string(),
            invoice_type: String::new(),
            status: RowStatus::Invalid,
            payable: None,
            lines: 0,
            first_line: u.source.line,
            conflict: false,
            issued: None,
            issued_before: false,
        });
    }
    Ok(())
}

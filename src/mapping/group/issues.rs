//! The findings the grouper puts on rows: a row of no data, a document followed by a row that may
//! be one of its lines, a hidden row.

use super::*;

/// The finding on a row of no data: what it is (the export's rows are kept on their lines).
pub(super) fn no_data_issue(kind: ingest::NotData) -> Issue {
    let (code, message) = match kind {
        ingest::NotData::AboveHeader => ("INV-ROW-HEADER", "a row above the export's header: not a document"),
        ingest::NotData::Header => ("INV-ROW-HEADER", "a header row of the export: not a document"),
        ingest::NotData::Blank => (BLANK_CODE, "a blank line between the export's rows: no data"),
    };
    Issue::warning(code, None, None, message)
}

/// The finding on the first row of a document followed by a row without a number (no
/// `continuation`): that row may be one of its lines.
pub(super) fn orphan_issue(bound: &Bound, key: &str, line: u64) -> Issue {
    orphan(
        bound,
        key,
        format!(
            "the row after this document's last row (line {line}) has no document number and may be one of its \
             lines (a number cell merged over the document's rows, or a number written once per document): the \
             document is not issued without it. If that row is not a line (a total, a note, a footer), delete it \
             from the export; if it is, put the number on every row of the document (unmerge the cells), or, if \
             the export writes it once per document, set `continuation = true` in the mapping's [group]"
        ),
    )
}

/// The finding on the first row of a document right below a row without a document number (its
/// number cell blank, on `line`): that row may be its first line, the number left out.
pub(super) fn orphan_below_issue(bound: &Bound, key: &str, line: u64) -> Issue {
    orphan(
        bound,
        key,
        format!(
            "the row before this document's first row (line {line}) has no document number and may be one of its \
             lines (its first, the number left out): the document is not issued without it. If that row is a \
             line of this document, put its number there; if it is not a line (a total, a note, a footer), delete \
             it from the export"
        ),
    )
}

/// The finding on the first row of a document followed by a row whose number cell holds a
/// spreadsheet error (`error`, `#REF!`): that row may be one of its lines, whatever the mapping's
/// `continuation`.
pub(super) fn error_orphan_issue(bound: &Bound, key: &str, line: u64, error: &str) -> Issue {
    let message = if ingest::formula_without_value(error) {
        format!(
            "the row after this document's last row (line {line}) has {} but no computed value for its document \
             number ({}) and may be one of its lines: the document is not issued without it; {}",
            ingest::formula_named(error),
            ingest::FORMULA_WHY,
            ingest::FORMULA_FIX
        )
    } else {
        format!(
            "the row after this document's last row (line {line}) has the spreadsheet error {error} for its \
             document number (a formula that failed) and may be one of its lines: the document is not issued \
             without it. Correct that cell in the workbook or the ERP and export again"
        )
    };
    orphan(bound, key, message)
}

/// An `INV-MAP-ORPHAN` error on the document of `key`, located on its number column.
pub(super) fn orphan(bound: &Bound, key: &str, message: String) -> Issue {
    let column = bound.key_label().filter(|l| !l.is_empty()).map(str::to_string);
    Issue::error(ORPHAN_CODE, column, Some(key.to_string()), message)
}

/// The warning on a row hidden in the workbook ([`Row::hidden`]): read, and issued, as any
/// other row, which the person who hid it may not expect.
pub(super) fn hidden_issue() -> Issue {
    Issue::warning(
        HIDDEN_CODE,
        None,
        None,
        "the row is hidden in the workbook (filtered out, or hidden by hand) and was read like any other row: if it \
         must not be issued, delete it from the export",
    )
}

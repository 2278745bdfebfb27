//! A row without a document number between documents ([`Block::Stray`]): an error on it
//! saying whose line it may be, and the documents it may belong to held back (`INV-MAP-ORPHAN`):
//! the one above, and the one below when the row's document cells are not the one above's.

use super::issues::{error_orphan_issue, orphan_issue};
use super::{DocDraft, DraftRow, Grouper, Issue, RowNote, Unit};
use crate::ingest;

impl Grouper {
    /// The row `dr`, whose number cell is blank or holds a spreadsheet error (`error_cell`), as
    /// a unit of its own after the document above (both put in `out`).
    pub(super) fn push_stray(&mut self, mut dr: DraftRow, error_cell: Option<String>, out: &mut Vec<Unit>) {
        let name_above = self.open_name();
        let label = self.bound.key_label().filter(|l| !l.is_empty());
        let column = label.unwrap_or("the document number column");
        let what = if let Some(error) = &error_cell {
            let above = match &mut self.open {
                Some(doc) => {
                    if doc.skip.is_none() && !doc.split {
                        let line = dr.source().map_or(0, |s| s.line);
                        let issue = error_orphan_issue(&self.bound, &doc.key, line, error);
                        doc.rows[0].issues.push(issue);
                    }
                    format!(
                        "; the row above is of {name_above}, which is not issued without this row, if it is \
                         one of its lines"
                    )
                }
                None => String::new(),
            };
            if ingest::formula_without_value(error) {
                format!(
                    "no document number in this row ({column} holds {} but no computed value: {}{above}): {}",
                    ingest::formula_named(error),
                    ingest::FORMULA_WHY,
                    ingest::FORMULA_FIX
                )
            } else {
                format!(
                    "no document number in this row ({column} holds the spreadsheet error {error}, not a number: \
                     a formula that failed{above}): correct the cell in the workbook or the ERP and export again"
                )
            }
        } else if self.bound.mapping.continuation {
            format!(
                "a continuation row (its {column} is blank) with no document above it: write the number of \
                 its document in {column}, or move the row under that document's rows"
            )
        } else if let Some(doc) = &mut self.open {
            // The document above may be missing this line: it is not issued without it.
            if doc.skip.is_none() && !doc.split {
                let line = dr.source().map_or(0, |s| s.line);
                let issue = orphan_issue(&self.bound, &doc.key, line);
                doc.rows[0].issues.push(issue);
            }
            format!(
                "no document number in this row ({column} is blank; the row above is of {name_above}: if this \
                 row is one of its lines, put its number here, and if it is the first line of the document \
                 below it, that one's): write the number of the document it belongs to, or remove the row (a \
                 total, a note, a footer)"
            )
        } else {
            format!(
                "no document number in this row ({column} is blank): write the number of the document it \
                 belongs to, or remove the row"
            )
        };
        // A blank number cell (not a spreadsheet error, nor a continuation row) whose document
        // cells are not the document above's (its date, its buyer...): the row may be the
        // first line of the document below it.
        let above = self.open.as_ref().and_then(DocDraft::reference).map(|(_, r)| r);
        let blank = error_cell.is_none()
            && !self.bound.mapping.continuation
            && !dr
                .row
                .as_ref()
                .is_some_and(|r| above.is_some_and(|a| self.bound.same_document_cells(r, a)));
        dr.issues.push(Issue::error(
            "INV-MAP-NUMBER",
            label.map(str::to_string),
            error_cell,
            what,
        ));
        dr.note = Some(RowNote::Broken);
        if blank {
            self.stray_above = dr.source().map(|s| s.line);
        }
        out.extend(self.close());
        out.push(Unit::Stray(dr));
    }
}

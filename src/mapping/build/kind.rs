//! A document's kind from its `kind` field and its `debit_note` flag: ERPNext writes a debit note
//! as a Sales Invoice with the box "Is Rate Adjustment Entry (Debit Note)" (`Is Debit Note` on
//! older sites) ticked, beside the box "Is Return (Credit Note)" the `kind` field reads. A document
//! with both boxes ticked is neither: an error naming both cells.

use super::super::Issue;
use super::super::apply::Bound;
use super::super::fields::fid;
use crate::ingest::Row;
use crate::model::DocumentKind;

/// The code of a document whose cells say two kinds.
const KIND_CODE: &str = "INV-MAP-KIND";

/// The kind of a document whose `kind` field gave `kind` and whose `debit_note` flag is `flag`
/// (`None`: not mapped, or blank): a debit note when the flag is set, unless the kind field says
/// credit note, which is an error on the flag's cell (`first_idx`, `first`: the document's first
/// line row, where both are read) and leaves the kind as it was.
pub(super) fn with_debit_flag(
    issues: &mut Vec<(Option<usize>, Issue)>,
    bound: &Bound,
    kind: DocumentKind,
    flag: Option<bool>,
    at: (usize, &Row),
) -> DocumentKind {
    if flag != Some(true) {
        return kind;
    }
    match kind {
        DocumentKind::Invoice | DocumentKind::DebitNote => DocumentKind::DebitNote,
        DocumentKind::CreditNote => {
            let (first_idx, first) = at;
            let cell = |f| {
                let label = bound.source_label(f);
                let text = label.and_then(|l| bound.cell_text(first, l));
                (label.map(str::to_string), text)
            };
            let (flag_col, flag_text) = cell(fid!("debit_note"));
            let (kind_col, kind_text) = cell(fid!("kind"));
            let said = |col: &Option<String>, text: &Option<String>, what: &str| match (col, text) {
                (Some(c), Some(t)) => format!("{c} \"{t}\""),
                (Some(c), None) => format!("{c} (blank)"),
                (None, _) => what.to_string(),
            };
            let message = format!(
                "this document is marked both a credit note ({}) and a debit note ({}): a document is one or the \
                 other. A return is a credit note; a rate adjustment that raises the amount due is a debit note. \
                 Untick one of the two in the ERP (or correct one of the cells) and export again; the document \
                 is not issued until then",
                said(&kind_col, &kind_text, "the kind field"),
                said(&flag_col, &flag_text, "the debit_note field"),
            );
            issues.push((Some(first_idx), Issue::error(KIND_CODE, flag_col, flag_text, message)));
            kind
        }
    }
}

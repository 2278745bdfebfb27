//! A credit or debit note's billing reference (BT-25, D10): the corrected invoice's number and
//! date, or what is missing and what to do. (An invoice's `original_number` is not read: Xero's
//! `Reference` column holds a purchase order on invoices and the corrected invoice on credit
//! notes.)

use super::super::Issue;
use super::super::apply::Bound;
use super::super::fields::fid;
use crate::ingest::Row;
use crate::model::{Document, DocumentKind};
use chrono::NaiveDate;

/// The billing reference of a note (`None` for an invoice, or a note naming no invoice, which is
/// an error here). `at`: the document's first line row (its index, the row, its header row).
pub(super) fn billing_reference(
    issues: &mut Vec<(Option<usize>, Issue)>,
    bound: &Bound,
    kind: DocumentKind,
    original: Option<&str>,
    original_date: Option<NaiveDate>,
    at: (usize, &Row, Option<&Row>),
) -> Option<String> {
    let (first_idx, first, h0) = at;
    if kind.is_note() {
        match (original, original_date) {
            (Some(n), Some(d)) => Some(Document::billing_reference_for(n, d)),
            (Some(n), None) => {
                let f = fid!("original_date");
                let what = if bound.maps(f) {
                    let column = bound.source_label(f).unwrap_or("original_date");
                    format!(
                        "the issue date of the corrected invoice {n} is unknown: {column} is blank and the invoice is \
                         not in this file, so the billing reference gives its number only; fill in {column}, or \
                         export the invoice with it"
                    )
                } else {
                    format!(
                        "the issue date of the corrected invoice {n} is unknown: the invoice is not in this file and \
                         the mapping reads no original_date, so the billing reference gives its number only; map \
                         original_date to the column holding it, or export the invoice with it"
                    )
                };
                let column = bound.source_label(fid!("original_number")).map(str::to_string);
                issues.push((
                    Some(first_idx),
                    Issue::warning("INV-MAP-REFERENCE", column, Some(n.to_string()), what),
                ));
                Some(format!("Invoice Number: {n}"))
            }
            (None, _) => {
                let f = fid!("original_number");
                let what = kind.label();
                let message = match bound.lookup_miss(f, first, h0) {
                    Some(miss) if miss.table_found => format!(
                        "a {what} must name the invoice it corrects, and {}: add it there",
                        miss.reason()
                    ),
                    Some(miss) => format!(
                        "a {what} must name the invoice it corrects, which is looked up for {:?} in {}, but that \
                         file was not found ({}): put it there",
                        miss.key,
                        miss.file,
                        crate::mapping::LookupMiss::WHERE
                    ),
                    None if bound.maps(f) => format!("a {what} must name the invoice it corrects: fill in its number"),
                    None => format!("a {what} must name the invoice it corrects: map original_number"),
                };
                let column = bound.source_label(f).map(str::to_string);
                issues.push((
                    Some(first_idx),
                    Issue::error("INV-MAP-REFERENCE", column, None, message),
                ));
                None
            }
        }
    } else {
        None
    }
}

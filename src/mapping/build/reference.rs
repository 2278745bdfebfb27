//! A credit or debit note's billing reference (BT-25, D10): the corrected invoice's number and
//! date, or what is missing and what to do. (An invoice's `original_number` is not read: Xero's
//! `Reference` column holds a purchase order on invoices and the corrected invoice on credit
//! notes.)
//!
//! The date comes from the note's own `original_date`, else from the invoice earlier in the same
//! file (or, for `check` of several files, in a file checked before it: the grouper finds it),
//! else from [`OriginalDates`], which `run` and `watch` give: the invoice issued before, in an
//! earlier run or in a file of this run read before this one (the ledger).

use super::super::Issue;
use super::super::apply::Bound;
use super::super::fields::fid;
use crate::ingest::Row;
use crate::model::{Document, DocumentKind};
use chrono::NaiveDate;

/// Where the issue date of a note's corrected invoice may be found when neither the note's rows
/// nor its file give it: for `run` and `watch`, the invoices the ledger holds as accepted (the
/// pipeline provides it; the mapping knows nothing of the ledger). Asked once per note whose
/// invoice date is unknown, never for an invoice.
pub trait OriginalDates: Send + Sync {
    /// The issue date of the invoice `number` of the seller `seller_vat` (any seller of the
    /// ledger when `None`), when it is known to have been issued.
    fn invoice_date(&self, number: &str, seller_vat: Option<&str>) -> Option<NaiveDate>;
}

impl<F> OriginalDates for F
where
    F: Fn(&str, Option<&str>) -> Option<NaiveDate> + Send + Sync,
{
    fn invoice_date(&self, number: &str, seller_vat: Option<&str>) -> Option<NaiveDate> {
        self(number, seller_vat)
    }
}

/// Where a note's corrected invoice was looked for: the lookup beyond its file, when there is
/// one (`run`, `watch`), and the seller's VAT number to ask it with.
pub(super) type Originals<'o> = (Option<&'o dyn OriginalDates>, Option<&'o str>);

/// The billing reference of a note (`None` for an invoice, or a note naming no invoice, which is
/// an error here). `at`: the document's first line row (its index, the row, its header row).
/// `originals`: where its invoice's date is looked for when its rows and file do not give it.
pub(super) fn billing_reference(
    issues: &mut Vec<(Option<usize>, Issue)>,
    bound: &Bound,
    kind: DocumentKind,
    original: Option<&str>,
    original_date: Option<NaiveDate>,
    at: (usize, &Row, Option<&Row>),
    originals: Originals<'_>,
) -> Option<String> {
    let (first_idx, first, h0) = at;
    if kind.is_note() {
        let (lookup, seller_vat) = originals;
        let original_date =
            original_date.or_else(|| original.zip(lookup).and_then(|(n, l)| l.invoice_date(n, seller_vat)));
        match (original, original_date) {
            (Some(n), Some(d)) => Some(Document::billing_reference_for(n, d)),
            (Some(n), None) => {
                let f = fid!("original_date");
                // Where else the invoice was looked for, and how its date can be given.
                let (nowhere, issue_first) = if lookup.is_some() {
                    (
                        format!(
                            "the invoice is not in this file and no invoice {n} of this seller was issued before (in \
                             an earlier run, or from a file of this run read before this one)"
                        ),
                        "or issue the invoice before its notes (in an earlier run, or in a file read before \
                         theirs: files are read in the order given, a folder's in name order): its date is then \
                         taken from the ledger",
                    )
                } else {
                    (
                        "the invoice is not in this file (nor in a file checked before it)".to_string(),
                        "or issue the invoice before its notes: `run` finds its date in the ledger once it is \
                         issued (in an earlier run, or from a file of the same run read before this one)",
                    )
                };
                let what = if bound.maps(f) {
                    let column = bound.source_label(f).unwrap_or("original_date");
                    format!(
                        "the issue date of the corrected invoice {n} is unknown: {column} is blank and {nowhere}, so \
                         the billing reference gives its number only; fill in {column}, {issue_first}"
                    )
                } else {
                    format!(
                        "the issue date of the corrected invoice {n} is unknown: the mapping reads no original_date \
                         and {nowhere}, so the billing reference gives its number only; map original_date to the \
                         column holding it, {issue_first}"
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

//! A credit or debit note's billing reference (BT-25, D10): the corrected invoice's number and
//! date, or what is missing and what to do. (An invoice's `original_number` is not read: Xero's
//! `Reference` column holds a purchase order on invoices and the corrected invoice on credit
//! notes.)
//!
//! The date comes from the note's own `original_date`, else from the invoice earlier in the same
//! file (or, for `check` of several files, in a file checked before it: the grouper finds it),
//! else from [`OriginalDates`], which `run` and `watch` give: the invoice issued before, in an
//! earlier run or in a file of this run read before this one (the ledger). What the build makes
//! is a first word: `run` settles the reference when the note is sent (`pipeline/notes.rs`:
//! the issued invoice's date from the ledger, or the note held back when its invoice was not
//! issued), and `check` holds back a note whose invoice it found invalid or skipped.

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

    /// What that invoice charged (its total with VAT, in its currency), when it is known to have
    /// been issued: what a credit note correcting it is compared with. Unknown unless given.
    fn invoice_total(&self, _number: &str, _seller_vat: Option<&str>) -> Option<crate::model::IssuedTotal> {
        None
    }

    /// The credit notes issued against that invoice before the note `except` (the one being
    /// compared, never counted against itself: all of them, or when it was issued already, those
    /// issued before it), in `currency`: what they took back, added to the note's own before it
    /// is compared with the invoice. None unless given.
    fn credited(
        &self,
        _number: &str,
        _seller_vat: Option<&str>,
        _currency: &str,
        _except: &str,
    ) -> crate::model::CreditedBefore {
        crate::model::CreditedBefore::default()
    }
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

/// What a note's billing reference is made of, as the note's own rows give it: the corrected
/// invoice's number, the column it is in, and the invoice's date when the note's rows give one
/// (`original_date`). A date found elsewhere (the invoice's row in the export, the ledger) is
/// not the note's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteReference {
    /// The corrected invoice's number.
    pub invoice: String,
    /// The invoice's date as the note's own rows give it.
    pub own_date: Option<NaiveDate>,
    /// The column the number is read from, when one is (findings on the reference name it).
    pub column: Option<String>,
}

impl NoteReference {
    /// The billing reference the note's own rows give: the number, and their date if any.
    pub fn as_exported(&self) -> String {
        match self.own_date {
            Some(d) => Document::billing_reference_for(&self.invoice, d),
            None => Document::number_only_reference(&self.invoice),
        }
    }
}

/// The billing reference of a note (`None` for an invoice, or a note naming no invoice, which is
/// an error here), with what the note's own rows give of it. `dates`: the invoice's date as the
/// note's rows give it, and as the file gives it (the invoice's own row, earlier in the file).
/// `at`: the document's first line row (its index, the row, its header row). `originals`: where
/// its invoice's date is looked for when its rows and file do not give it.
pub(super) fn billing_reference(
    issues: &mut Vec<(Option<usize>, Issue)>,
    bound: &Bound,
    kind: DocumentKind,
    original: Option<&str>,
    dates: (Option<NaiveDate>, Option<NaiveDate>),
    at: (usize, &Row, Option<&Row>),
    originals: Originals<'_>,
) -> (Option<String>, Option<NoteReference>) {
    let (first_idx, first, h0) = at;
    if !kind.is_note() {
        return (None, None);
    }
    let (own_date, file_date) = dates;
    let note = original.map(|n| NoteReference {
        invoice: n.to_string(),
        own_date,
        column: bound.source_label(fid!("original_number")).map(str::to_string),
    });
    let (lookup, seller_vat) = originals;
    let original_date = own_date
        .or(file_date)
        .or_else(|| original.zip(lookup).and_then(|(n, l)| l.invoice_date(n, seller_vat)));
    let reference = match (original, original_date) {
        (Some(n), Some(d)) => Some(Document::billing_reference_for(n, d)),
        (Some(n), None) => {
            let f = fid!("original_date");
            // Where else the invoice was looked for, and how its date can be given.
            let (nowhere, issue_first) = if lookup.is_some() {
                (
                    format!(
                        "no invoice {n} of this seller was issued before the note was sent (in an earlier run, \
                             from a file of this run read before this one, or from this file: above the note, or \
                             below it among the documents sent together with it)"
                    ),
                    "or issue the invoice before its notes (in an earlier run, in a file read before theirs: \
                         files are read in the order given, a folder's in name order; or above them in the same \
                         file): its date is then taken from the ledger",
                )
            } else {
                (
                    "the invoice is not above the note in this file (nor in a file checked before it)".to_string(),
                    "or issue the invoice before its notes: `run` finds its date in the ledger once it is \
                         issued (in an earlier run, from a file of the same run read before this one, or from this \
                         file when it is above the note, or below it among the documents sent together with it)",
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
                Issue::warning(REFERENCE_CODE, column, Some(n.to_string()), what),
            ));
            Some(Document::number_only_reference(n))
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
            issues.push((Some(first_idx), Issue::error(REFERENCE_CODE, column, None, message)));
            None
        }
    };
    (reference, note)
}

/// The code of a note's billing reference without the invoice's number (an error) or date (a
/// warning).
pub const REFERENCE_CODE: &str = "INV-MAP-REFERENCE";

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

    /// The kind of the credit or debit note issued under `number` (of the seller `seller_vat`),
    /// when it is known to have been issued and no invoice of that number is: a note naming it
    /// names no invoice. Asked only of a note whose invoice is not known otherwise.
    fn note_kind(&self, _number: &str, _seller_vat: Option<&str>) -> Option<DocumentKind> {
        None
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
    this: (DocumentKind, &str),
    original: Option<&str>,
    found: (Option<NaiveDate>, Option<NaiveDate>, Option<&NamedNote>),
    at: (usize, &Row, Option<&Row>),
    originals: Originals<'_>,
) -> (Option<String>, Option<NoteReference>) {
    let (first_idx, first, h0) = at;
    let kind = this.0;
    if !kind.is_note() {
        return (None, None);
    }
    let (own_date, file_date, named) = found;
    let note = original.map(|n| NoteReference {
        invoice: n.to_string(),
        own_date,
        column: bound.source_label(fid!("original_number")).map(str::to_string),
    });
    let (lookup, seller_vat) = originals;
    // The ledger is asked for the invoice when neither the note's rows nor its file give its
    // date, or the input holds a note of that number, or the note names its own number (each
    // then names no invoice unless the ledger holds one).
    let ask = file_date.is_none() && (own_date.is_none() || named.is_some() || original == Some(this.1));
    let issued = original
        .zip(lookup)
        .filter(|_| ask)
        .and_then(|(n, l)| l.invoice_date(n, seller_vat));
    if let Some(n) = original {
        let invoice = if file_date.or(issued).is_some() {
            Invoice::Known
        } else if ask && lookup.is_some() {
            Invoice::Unknown
        } else {
            Invoice::NotAsked
        };
        if let Some(issue) = not_an_invoice(bound, this, n, (invoice, named), originals) {
            // Not issued: its reference as the export gives it, the error saying what to fix.
            issues.push((Some(first_idx), issue));
            return (Some(Document::number_only_reference(n)), note);
        }
    }
    let original_date = own_date.or(file_date).or(issued);
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

/// Whether the invoice a note names is known: above the note in its file (or in a file checked
/// before), or issued (the ledger); else whether the ledger was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Invoice {
    Known,
    /// Not in the input above the note, nor in the ledger (`run`: asked).
    Unknown,
    /// Not in the input above the note; no ledger (`check`), or the note's rows give the
    /// invoice's date (not asked).
    NotAsked,
}

/// A note that names no invoice but itself, or a document known as a credit or debit note (and
/// as no invoice): the error saying so, on its reference cell. `found`: whether an invoice of
/// that number is known, and the note of that number the grouper found in the input. The
/// ledger (`run`) is asked whether it holds that number as a note only when it holds no such
/// invoice, and the input no such note.
fn not_an_invoice(
    bound: &Bound,
    this: (DocumentKind, &str),
    n: &str,
    found: (Invoice, Option<&NamedNote>),
    originals: Originals<'_>,
) -> Option<Issue> {
    let (kind, number) = this;
    let (invoice, named) = found;
    let note = kind.label();
    let f = fid!("original_number");
    let label = bound.source_label(f);
    let column = label.unwrap_or("original_number");
    // Where the kind is read from a column, invoice 1 and credit note 1 are two documents (Tally
    // numbers each kind from 1): a note naming its own number names itself only when no invoice
    // of that number is known (`run` asks the ledger; `check` cannot know an earlier run's).
    let slip = bound.same_column(f, fid!("number"));
    let itself = slip || bound.kind_column().is_none() || invoice == Invoice::Unknown;
    if n == number && itself {
        let message = if slip {
            format!(
                "this {note} names itself ({n}) as the invoice it corrects: the mapping reads original_number \
                 from {column}, the column of the document's own number; in {}, set fields.original_number to \
                 the column holding the number of the invoice a note corrects",
                bound.mapping.origin
            )
        } else {
            format!(
                "this {note} names itself ({n}) as the invoice it corrects, but a note corrects an invoice: put \
                 in {column} the number of the invoice this {note} corrects"
            )
        };
        return Some(Issue::error(
            REFERENCE_CODE,
            label.map(str::to_string),
            Some(n.to_string()),
            message,
        ));
    }
    if n == number {
        return None;
    }
    let other = match (invoice, named) {
        (Invoice::Known, _) => return None,
        (_, Some(named)) => named.clone(),
        (Invoice::Unknown, None) => {
            let (lookup, seller_vat) = originals;
            NamedNote {
                kind: lookup?.note_kind(n, seller_vat)?,
                at: NoteAt::Ledger,
            }
        }
        (Invoice::NotAsked, None) => return None,
    };
    let what = other.kind.label();
    let at = match &other.at {
        NoteAt::Above(line) => format!("{n} (line {line} of this file) is a {what}"),
        NoteAt::Earlier(file, line) => format!("{n} (line {line} of {file}) is a {what}"),
        NoteAt::Ledger => format!("{n} is issued as a {what} (as the ledger holds it, with no invoice {n})"),
    };
    Some(Issue::error(
        REFERENCE_CODE,
        label.map(str::to_string),
        Some(n.to_string()),
        format!(
            "{at}, not an invoice, and a note corrects an invoice, never another note: put in {column} the number \
             of the invoice this {note} corrects (the one {n} corrects, if they correct the same invoice)"
        ),
    ))
}

/// A credit or debit note that a note names as the invoice it corrects, where no invoice of that
/// number is known: as the grouper finds it above the note in its file, or in a file checked
/// before it (`check` of several files), or as the ledger holds it (`run`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedNote {
    /// Its kind: a credit or debit note.
    pub kind: DocumentKind,
    /// Where it is.
    pub at: NoteAt,
}

/// Where a [`NamedNote`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteAt {
    /// Above the note in its file, at this line.
    Above(u64),
    /// In a file checked before the note's, at this line.
    Earlier(String, u64),
    /// Issued: the ledger holds it.
    Ledger,
}

/// The code of a note's billing reference without the invoice's number (an error) or date (a
/// warning), or naming no invoice (the note itself, another note: an error).
pub const REFERENCE_CODE: &str = "INV-MAP-REFERENCE";

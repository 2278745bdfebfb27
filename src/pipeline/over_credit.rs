//! A credit note that takes back more than the invoice it corrects charged: compared with the
//! issued invoice the ledger holds (`run`, `watch`), when the note is settled against it
//! (`notes.rs`). A warning, not an error: the note is still sent (a debit note may have raised
//! the invoice), but the clerk is told to check its amounts or the invoice it names before the
//! next one.
//!
//! What the note takes back is added to what the credit notes issued earlier against the same
//! invoice took back (in the same currency, of the same seller): those the ledger holds as
//! accepted (earlier runs, earlier batches of this run: a batch is answered before the next is
//! settled), found through its index of credit notes by billing reference, and those of the
//! same batch settled before it ([`Credits`]). A note is never counted against itself, and a
//! note sent again (a rerun: the ledger holds it as accepted) is compared with the notes
//! accepted before it only.

use super::notes::NoteLink;
use super::outcome::Outcome;
use crate::model::{CreditedBefore, CreditedNote, DocumentKind, IssuedTotal};
use crate::results::ResultIssue;
use rust_decimal::Decimal;
use std::collections::HashMap;

/// The code of a credit note whose total is more than its issued invoice's.
pub const OVER_CREDIT_CODE: &str = "INV-CREDIT-OVER-INVOICE";

/// The most earlier notes a warning names (then how many more).
const NAMED: usize = 3;

/// The credit notes of one settling (a batch's notes, or those that waited for their invoice)
/// compared so far, by the invoice they correct: sent before the later notes of that invoice in
/// the same batch, which the ledger does not hold yet.
#[derive(Debug, Default)]
pub(super) struct Credits {
    by_invoice: HashMap<String, Vec<CreditedNote>>,
}

impl Credits {
    /// Warn when `o`, a credit note settled against its issued invoice (`invoice`), takes back,
    /// with the credit notes issued before it against that invoice (`issued(currency, note)`:
    /// those the ledger holds before the note `note`, never itself; and, unless it was issued
    /// already, this batch's settled before it), more than the
    /// invoice's total with VAT in the same currency. Other notes, other currencies and
    /// documents without a total are left as they are.
    pub(super) fn compare(
        &mut self,
        o: &mut Outcome,
        link: &NoteLink,
        invoice: &IssuedTotal,
        issued: impl FnOnce(&str, &str) -> CreditedBefore,
    ) {
        if link.kind != DocumentKind::CreditNote {
            return;
        }
        let Some(doc) = o.document.as_ref() else { return };
        if doc.doc_currency_code.as_str() != invoice.currency {
            return;
        }
        let note = doc.legal_monitory_total.tax_inclusive_amount.abs();
        let this = doc.number.clone();
        let number = link.reference.invoice.as_str();
        let before = issued(&invoice.currency, &this);
        let mut earlier = before.notes;
        let batch = self.by_invoice.entry(number.to_string()).or_default();
        // A note issued already (a rerun) came before this batch's new notes.
        for n in batch.iter().filter(|_| !before.issued) {
            if n.number != this && !earlier.iter().any(|e| e.number == n.number) {
                earlier.push(n.clone());
            }
        }
        if !batch.iter().any(|n| n.number == this) {
            batch.push(CreditedNote {
                number: this,
                amount: note,
            });
        }
        let taken: Decimal = earlier.iter().map(|n| n.amount).sum();
        if note + taken <= invoice.amount {
            return;
        }
        let issue = ResultIssue {
            code: OVER_CREDIT_CODE.into(),
            severity: crate::validate::Severity::Warning,
            column: link.reference.column.clone(),
            value: Some(number.to_string()),
            message: message(number, invoice, note, &earlier, taken),
        };
        o.add_finding(link.row, issue);
    }
}

/// What the warning says: this note's amount, the earlier notes' (how many, which, how much),
/// the invoice's total, and what to check.
fn message(number: &str, invoice: &IssuedTotal, note: Decimal, earlier: &[CreditedNote], taken: Decimal) -> String {
    let currency = &invoice.currency;
    let charged = invoice.amount;
    if earlier.is_empty() {
        return format!(
            "this credit note takes back {note:.2} {currency} with VAT, more than invoice {number} charged \
             ({charged:.2} {currency} with VAT, as issued): a credit note takes back at most what its invoice \
             charged. Check this note's quantities and prices, and that it names the right invoice; it is sent as \
             it is"
        );
    }
    let mut names = earlier
        .iter()
        .take(NAMED)
        .map(|n| n.number.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if earlier.len() > NAMED {
        names.push_str(&format!(" and {} more", earlier.len() - NAMED));
    }
    let notes = match earlier.len() {
        1 => "the credit note".to_string(),
        k => format!("the {k} credit notes"),
    };
    format!(
        "this credit note takes back {note:.2} {currency} with VAT, and {notes} issued against invoice {number} \
         before it ({names}) took back {taken:.2} {currency}: together {:.2} {currency}, more than invoice \
         {number} charged ({charged:.2} {currency} with VAT, as issued): the credit notes of an invoice take back \
         at most what it charged. Check this note's quantities and prices against the earlier notes' (one of them \
         issued twice, under another number?), and that it names the right invoice; it is sent as it is",
        note + taken
    )
}

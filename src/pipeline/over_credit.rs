//! A credit note that takes back more than the invoice it corrects charged: compared with the
//! issued invoice the ledger holds (`run`, `watch`), when the note is settled against it
//! (`notes.rs`). A warning, not an error: the note is still sent (a debit note may have raised
//! the invoice), but the clerk is told to check its amounts or the invoice it names before the
//! next one.
//!
//! Each note is compared with its invoice alone: the credit notes issued earlier against the same
//! invoice are not added up (the ledger keeps no index of notes by the invoice they correct).

use super::notes::NoteLink;
use super::outcome::Outcome;
use crate::model::{DocumentKind, IssuedTotal};
use crate::results::ResultIssue;

/// The code of a credit note whose total is more than its issued invoice's.
pub const OVER_CREDIT_CODE: &str = "INV-CREDIT-OVER-INVOICE";

/// Warn when `o`, a credit note settled against its issued invoice (`invoice`), takes back more
/// than that invoice's total with VAT in the same currency. Other notes, other currencies and
/// documents without a total are left as they are.
pub(super) fn compare(o: &mut Outcome, link: &NoteLink, invoice: &IssuedTotal) {
    if link.kind != DocumentKind::CreditNote {
        return;
    }
    let Some(doc) = o.document.as_ref() else { return };
    if doc.doc_currency_code.as_str() != invoice.currency {
        return;
    }
    let note = doc.legal_monitory_total.tax_inclusive_amount.abs();
    if note <= invoice.amount {
        return;
    }
    let number = link.reference.invoice.as_str();
    let currency = &invoice.currency;
    let issue = ResultIssue {
        code: OVER_CREDIT_CODE.into(),
        severity: crate::validate::Severity::Warning,
        column: link.reference.column.clone(),
        value: Some(number.to_string()),
        message: format!(
            "this credit note takes back {note:.2} {currency} with VAT, more than invoice {number} charged \
             ({:.2} {currency} with VAT, as issued): a credit note takes back at most what its invoice charged. \
             Check this note's quantities and prices, and that it names the right invoice; it is sent as it is",
            invoice.amount
        ),
    };
    o.add_finding(link.row, issue);
}

//! The order of sending a batch (D18): simplified documents first, oldest first, and in passes:
//! copies of one document one pass apart, a note a pass after its invoice.

use crate::model::{Document, DocumentKind, InvoiceType};
use chrono::{NaiveDate, NaiveTime};
use std::collections::HashMap;

/// What sorts a document in the queue.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SortKey {
    pub(crate) invoice_type: InvoiceType,
    pub(crate) issued: (NaiveDate, NaiveTime),
}

/// The dispatch order (D18): simplified documents first, oldest issue date and time first (they
/// have a 24-hour reporting window); then standard documents in input order.
pub(crate) fn dispatch_order(keys: &[Option<SortKey>]) -> Vec<usize> {
    let mut simplified: Vec<usize> = Vec::new();
    let mut standard: Vec<usize> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        match k {
            Some(k) if k.invoice_type == InvoiceType::Simplified => simplified.push(i),
            Some(_) => standard.push(i),
            None => {}
        }
    }
    simplified.sort_by_key(|&i| (keys[i].map(|k| k.issued), i));
    simplified.extend(standard);
    simplified
}

/// What sorts a document into a pass of its batch ([`passes`]).
#[derive(Debug, Clone)]
pub(crate) struct PassKey {
    /// The idempotency key: copies of one document go in passes of their own.
    pub(crate) idempotency_key: String,
    pub(crate) kind: DocumentKind,
    pub(crate) number: String,
    /// For a note, the number of the invoice it corrects (from its billing reference).
    pub(crate) corrects: Option<String>,
}

/// The batch's passes, each sent after the one before has its answers, in `order`: the k-th
/// copy of a document goes in the k-th pass, so a key is never in flight twice and later copies
/// see the first one's result in the ledger; and a note whose invoice is in the batch goes in a
/// pass after that invoice's, so that the authority has the invoice before the note that
/// corrects it (sent side by side, the note could be issued first, with the lower counter).
pub(crate) fn passes(order: &[usize], keys: &[Option<PassKey>]) -> Vec<Vec<usize>> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut copy: Vec<usize> = vec![0; keys.len()];
    let mut invoices: HashMap<&str, usize> = HashMap::new();
    for &slot in order {
        let Some(k) = keys.get(slot).and_then(Option::as_ref) else {
            continue;
        };
        let n = seen.entry(k.idempotency_key.as_str()).or_insert(0);
        copy[slot] = *n;
        *n += 1;
        if k.kind == DocumentKind::Invoice {
            let last = invoices.entry(k.number.as_str()).or_insert(0);
            *last = (*last).max(copy[slot]);
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &slot in order {
        let Some(k) = keys.get(slot).and_then(Option::as_ref) else {
            continue;
        };
        let after = match (&k.corrects, k.kind) {
            (Some(number), DocumentKind::CreditNote | DocumentKind::DebitNote) => {
                invoices.get(number.as_str()).map_or(0, |p| p + 1)
            }
            _ => 0,
        };
        let pass = copy[slot] + after;
        if out.len() <= pass {
            out.resize_with(pass + 1, Vec::new);
        }
        out[pass].push(slot);
    }
    out
}

/// The invoice number a note's billing reference names: its `Invoice Number` field (D10, read as
/// the rules read it), or a bare reference itself.
pub(crate) fn referenced_number(reference: &str) -> &str {
    Document::billing_reference_field(reference, "invoice number").unwrap_or_else(|| reference.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(t: InvoiceType, d: u32, h: u32) -> Option<SortKey> {
        Some(SortKey {
            invoice_type: t,
            issued: (
                NaiveDate::from_ymd_opt(2026, 11, d).unwrap(),
                NaiveTime::from_hms_opt(h, 0, 0).unwrap(),
            ),
        })
    }

    #[test]
    fn simplified_oldest_first_then_standard_in_input_order() {
        use InvoiceType::*;
        let keys = [
            key(Standard, 1, 9),
            key(Simplified, 3, 9),
            key(Simplified, 2, 11),
            None,
            key(Standard, 1, 8),
            key(Simplified, 2, 10),
        ];
        assert_eq!(dispatch_order(&keys), vec![5, 2, 1, 0, 4]);
    }

    fn pass_key(key: &str, kind: DocumentKind, number: &str, corrects: Option<&str>) -> Option<PassKey> {
        Some(PassKey {
            idempotency_key: key.into(),
            kind,
            number: number.into(),
            corrects: corrects.map(Into::into),
        })
    }

    #[test]
    fn a_note_goes_in_a_pass_after_its_invoice_and_copies_in_passes_of_their_own() {
        use DocumentKind::*;
        let keys = [
            // 0: a credit note of invoice A (slot 2), before it in the order.
            pass_key("cn1", CreditNote, "CN1", Some("A")),
            // 1: a credit note of an invoice not in the batch.
            pass_key("cn2", CreditNote, "CN2", Some("Z")),
            pass_key("a", Invoice, "A", None),
            None,
            // 4: a debit note of A, twice.
            pass_key("dn1", DebitNote, "DN1", Some("A")),
            pass_key("dn1", DebitNote, "DN1", Some("A")),
            // 6: a second copy of invoice B (slot 7 is the first in the order).
            pass_key("b", Invoice, "B", None),
            pass_key("b", Invoice, "B", None),
            // 8: a credit note of B: after B's second copy.
            pass_key("cn3", CreditNote, "CN3", Some("B")),
        ];
        let order = [0, 1, 2, 3, 4, 5, 7, 6, 8];
        assert_eq!(passes(&order, &keys), vec![vec![1, 2, 7], vec![0, 4, 6], vec![5, 8]]);
        // Nothing waits: one pass in the order given.
        let plain = [
            pass_key("a", Invoice, "A", None),
            pass_key("cn", CreditNote, "CN", Some("Z")),
        ];
        assert_eq!(passes(&[1, 0], &plain), vec![vec![1, 0]]);
    }

    #[test]
    fn the_invoice_number_of_a_billing_reference() {
        assert_eq!(
            referenced_number("Invoice Number: INV-10; Invoice Issue Date: 2026-11-02"),
            "INV-10"
        );
        assert_eq!(referenced_number("Invoice Number: INV-10"), "INV-10");
        assert_eq!(referenced_number(" INV/2026/00041 "), "INV/2026/00041");
        assert_eq!(referenced_number("invoice  NUMBER : A-1 ;Invoice Issue Date: x"), "A-1");
        assert_eq!(referenced_number(""), "");
    }
}

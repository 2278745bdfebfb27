//! Tests of `schedule.rs`.
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

#[tokio::test]
async fn join_all_runs_side_by_side() {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let waits = async move {
        rx.await.unwrap();
    };
    let sends = async move {
        tx.send(()).unwrap();
    };
    // The first future can only finish because the second runs alongside it.
    let futures: Vec<Pin<Box<dyn Future<Output = ()> + Send>>> = vec![Box::pin(waits), Box::pin(sends)];
    join_all(futures).await;
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
    assert_eq!(referenced_number(""), "");
}

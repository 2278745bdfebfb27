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

#[test]
fn conflicts_say_what_to_do() {
    let m = conflict_message(
        DocumentKind::Invoice,
        "INV-9",
        Some("u-1"),
        "2026-11-01T10:00:00Z",
        None,
    );
    assert!(
        m.contains("INV-9") && m.contains("credit note") && m.contains("new number"),
        "{m}"
    );
    assert!(!m.contains("device"), "{m}");
    let m = conflict_message(
        DocumentKind::Invoice,
        "INV-9",
        None,
        "2026-11-01T10:00:00Z",
        Some("b2xk"),
    );
    assert!(m.contains("accepted it earlier through the earlier device b2xk"), "{m}");
}

#[test]
fn a_number_maybe_issued_by_another_device_says_how_to_settle_it() {
    let e = LedgerEntry {
        idempotency_key: String::new(),
        key: crate::submit::DocumentKey {
            onboard_id: "b2xk".into(),
            kind: DocumentKind::Invoice,
            number: "INV-9".into(),
        },
        content_hash: String::new(),
        body: Vec::new(),
        state: LedgerState::Unknown,
        attempts: 2,
        last_status: Some(503),
        response: None,
        uuid: None,
        created_at: "2026-11-01T09:00:00Z".into(),
        updated_at: "2026-11-01T10:00:01Z".into(),
        last_sent_at: Some("2026-11-01T10:00:00Z".into()),
    };
    let m = elsewhere_message(DocumentKind::Invoice, "INV-9", &e);
    assert!(
        m.contains("INV-9 was sent through the earlier device b2xk (2026-11-01T10:00:00Z)")
            && m.contains("INVOICEDROP_ONBOARD_ID=b2xk"),
        "{m}"
    );
}

//! Tests of `earlier.rs`.
use super::*;
use crate::submit::ledger::LedgerState;

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

//! Tests of the ledger across the devices of one seller (and other sellers').

use super::*;

#[tokio::test]
async fn a_number_another_device_of_the_seller_issued_is_not_sent_again() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    ledger.remember_device(&device("old", SELLER)).unwrap();
    leave(&ledger, "old", "ACC", b"acc", LedgerState::Accepted).await;
    leave(&ledger, "old", "REJ", b"rej", LedgerState::Rejected).await;
    leave(&ledger, "old", "UNK", b"unk", LedgerState::Unknown).await;
    leave(&ledger, "old", "FLY", b"fly", LedgerState::InFlight).await;
    leave(&ledger, "old", "PEN", b"pen", LedgerState::Pending).await;
    ledger.remember_device(&device("new", SELLER)).unwrap();

    let on_new = |n: &str, body: &[u8]| item_of(key_on("new", n), body, SELLER);
    let d = ledger
        .begin(vec![
            on_new("ACC", b"acc"),
            on_new("ACC", b"acc-changed"),
            on_new("REJ", b"rej"),
            on_new("UNK", b"unk"),
            on_new("FLY", b"fly"),
            on_new("PEN", b"pen"),
            on_new("NEW", b"new"),
        ])
        .await
        .unwrap();
    assert!(
        matches!(&d[0], Decision::Done(e) if e.key.onboard_id == "old" && e.uuid.as_deref() == Some("uuid-ACC")),
        "{:?}",
        d[0]
    );
    assert!(matches!(&d[1], Decision::Conflict(e) if e.body == b"acc"), "{:?}", d[1]);
    assert!(
        matches!(&d[2], Decision::Send { body, .. } if body == b"rej"),
        "refused: may go again"
    );
    assert!(matches!(&d[3], Decision::Elsewhere(e) if e.state == LedgerState::Unknown));
    assert!(matches!(&d[4], Decision::Elsewhere(e) if e.state == LedgerState::InFlight));
    assert!(matches!(&d[5], Decision::Send { .. }), "never sent by the old device");
    assert!(matches!(&d[6], Decision::Send { .. }));
    // Nothing was registered for the new device where the old one holds the number.
    for n in ["ACC", "UNK", "FLY"] {
        assert!(ledger.get(&key_on("new", n)).unwrap().is_none(), "{n}");
    }
    // A credit note with the number of an issued invoice is another document.
    let credit = DocumentKey {
        kind: DocumentKind::CreditNote,
        ..key_on("new", "ACC")
    };
    let d = ledger.begin(vec![item_of(credit, b"cn", SELLER)]).await.unwrap();
    assert!(matches!(&d[0], Decision::Send { .. }));
}

#[tokio::test]
async fn another_sellers_device_does_not_hold_the_number() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    ledger.remember_device(&device("theirs", "311111111100003")).unwrap();
    leave(&ledger, "theirs", "INV-1", b"theirs", LedgerState::Accepted).await;
    ledger.remember_device(&device("ours", SELLER)).unwrap();
    let d = ledger
        .begin(vec![item_of(key_on("ours", "INV-1"), b"ours", SELLER)])
        .await
        .unwrap();
    assert!(matches!(&d[0], Decision::Send { .. }), "{:?}", d[0]);
}

#[tokio::test]
async fn the_seller_of_the_body_sent_decides_whatever_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    // A device this folder never onboarded (named by INVOICEDROP_ONBOARD_ID): its VAT number is
    // not known here, but each body it sent says whose documents they are.
    let theirs = br#"{"number":"INV-1","supplier_info":{"vat_number":"311111111100003"}}"#;
    let ours = br#"{"number":"INV-2","supplier_info":{"vat_number":"300000000000003"}}"#;
    leave(&ledger, "override", "INV-1", theirs, LedgerState::Accepted).await;
    leave(&ledger, "override", "INV-2", ours, LedgerState::Accepted).await;
    ledger.remember_device(&device("mine", SELLER)).unwrap();
    let d = ledger
        .begin(vec![
            item_of(key_on("mine", "INV-1"), b"mine-1", SELLER),
            item_of(key_on("mine", "INV-2"), ours, SELLER),
        ])
        .await
        .unwrap();
    assert!(
        matches!(&d[0], Decision::Send { .. }),
        "another seller's number: {:?}",
        d[0]
    );
    assert!(matches!(&d[1], Decision::Done(_)), "ours, issued: {:?}", d[1]);
}

#[tokio::test]
async fn a_device_of_an_earlier_version_counts_as_the_same_sellers() {
    let dir = tempfile::tempdir().unwrap();
    {
        let ledger = Ledger::open(dir.path()).unwrap();
        // No VAT number known for "ancient" (its onboard_id was stored alone); "recent" is listed
        // only in `meta`, as versions before the devices table kept it.
        leave(&ledger, "ancient", "A-1", b"a", LedgerState::Accepted).await;
        leave(&ledger, "recent", "R-1", b"r", LedgerState::Accepted).await;
    }
    {
        let conn = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('device', \
             '{\"onboard_id\":\"recent\",\"vat_number\":\"311111111100003\",\"invoice_type\":\"both\"}')",
            [],
        )
        .unwrap();
    }
    let ledger = Ledger::open(dir.path()).unwrap();
    ledger.remember_device(&device("now", SELLER)).unwrap();
    let d = ledger
        .begin(vec![
            item_of(key_on("now", "A-1"), b"a", SELLER),
            item_of(key_on("now", "R-1"), b"r", SELLER),
        ])
        .await
        .unwrap();
    assert!(
        matches!(&d[0], Decision::Done(_)),
        "unknown VAT number: held, {:?}",
        d[0]
    );
    assert!(
        matches!(&d[1], Decision::Send { .. }),
        "the device kept in meta is another seller's: {:?}",
        d[1]
    );
}

#[tokio::test]
async fn peek_finds_what_is_issued_or_maybe_issued_and_registers_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    ledger.remember_device(&device("old", SELLER)).unwrap();
    leave(&ledger, "old", "OLD-ACC", b"acc", LedgerState::Accepted).await;
    leave(&ledger, "old", "OLD-UNK", b"unk", LedgerState::Unknown).await;
    ledger.remember_device(&device("new", SELLER)).unwrap();
    for (n, state) in [
        ("ACC", LedgerState::Accepted),
        ("UNK", LedgerState::Unknown),
        ("FLY", LedgerState::InFlight),
        ("REJ", LedgerState::Rejected),
        ("PEN", LedgerState::Pending),
    ] {
        leave(&ledger, "new", n, n.as_bytes(), state).await;
    }
    let before = ledger.stats().unwrap();
    let on_new = |n: &str| item_of(key_on("new", n), b"changed", SELLER);
    let found = ledger
        .peek(
            ["ACC", "UNK", "FLY", "REJ", "PEN", "NEVER", "OLD-ACC", "OLD-UNK"]
                .map(on_new)
                .into(),
        )
        .await
        .unwrap();
    let states: Vec<Option<(String, LedgerState)>> = found
        .iter()
        .map(|e| e.as_ref().map(|e| (e.key.onboard_id.clone(), e.state)))
        .collect();
    let of = |d: &str, s| Some((d.to_string(), s));
    assert_eq!(
        states,
        vec![
            of("new", LedgerState::Accepted),
            of("new", LedgerState::Unknown),
            of("new", LedgerState::InFlight),
            None,
            None,
            None,
            of("old", LedgerState::Accepted),
            of("old", LedgerState::Unknown),
        ]
    );
    // Read only: no row added, none changed.
    assert_eq!(ledger.stats().unwrap(), before);
    assert!(ledger.get(&key_on("new", "NEVER")).unwrap().is_none());
    assert_eq!(ledger.get(&key_on("new", "ACC")).unwrap().unwrap().body, b"ACC");
}

#[tokio::test]
async fn an_invoice_date_is_that_of_an_accepted_invoice_of_the_seller_through_any_device() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    let body = |number: &str, date: &str, vat: &str| {
        format!(r#"{{"number":"{number}","issue_date":"{date}","supplier_info":{{"vat_number":"{vat}"}}}}"#)
    };
    ledger.remember_device(&device("old", SELLER)).unwrap();
    ledger.remember_device(&device("ours", SELLER)).unwrap();
    let accepted = LedgerState::Accepted;
    leave(
        &ledger,
        "old",
        "INV-1",
        body("INV-1", "2026-07-14", SELLER).as_bytes(),
        accepted,
    )
    .await;
    leave(
        &ledger,
        "ours",
        "INV-2",
        body("INV-2", "2026-07-15", "311111111100003").as_bytes(),
        accepted,
    )
    .await;
    leave(
        &ledger,
        "ours",
        "INV-3",
        body("INV-3", "2026-07-16", SELLER).as_bytes(),
        LedgerState::Rejected,
    )
    .await;
    leave(
        &ledger,
        "ours",
        "INV-4",
        body("INV-4", "2026-07-17", SELLER).as_bytes(),
        LedgerState::Unknown,
    )
    .await;
    leave(&ledger, "ours", "INV-5", b"not json", accepted).await;
    // A credit note numbered as an invoice is not one.
    let note = DocumentKey {
        kind: DocumentKind::CreditNote,
        ..key_on("ours", "CN-1")
    };
    let idem = idempotency_key(&note);
    let cn = body("CN-1", "2026-07-18", SELLER);
    ledger.begin(vec![item_of(note, cn.as_bytes(), SELLER)]).await.unwrap();
    ledger.mark_sending(&idem, None).await.unwrap();
    ledger
        .record(&idem, accepted, None, None, None)
        .0
        .committed()
        .await
        .unwrap();

    let date = |number: &str, vat: Option<&str>| ledger.invoice_date(number, vat).unwrap();
    let july = |d| chrono::NaiveDate::from_ymd_opt(2026, 7, d);
    assert_eq!(date("INV-1", Some(SELLER)), july(14), "through an earlier device");
    assert_eq!(date("INV-1", None), july(14));
    assert_eq!(date("INV-2", Some(SELLER)), None, "another seller's");
    assert_eq!(date("INV-2", Some("311111111100003")), july(15));
    assert_eq!(date("INV-3", Some(SELLER)), None, "rejected");
    assert_eq!(date("INV-4", Some(SELLER)), None, "no final answer");
    assert_eq!(date("INV-5", Some(SELLER)), None, "a body without a date");
    assert_eq!(date("CN-1", Some(SELLER)), None, "a credit note");
    assert_eq!(date("INV-9", Some(SELLER)), None);
}

#[tokio::test]
async fn an_invoice_total_is_read_exactly_from_the_accepted_invoice_with_its_currency() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    ledger.remember_device(&device("ours", SELLER)).unwrap();
    let body = |total: &str, currency: &str| {
        format!(
            r#"{{"issue_date":"2026-07-14","doc_currency_code":"{currency}","supplier_info":{{"vat_number":"{SELLER}"}},"legal_monitory_total":{{"tax_inclusive_amount":{total}}}}}"#
        )
    };
    // Digits a floating-point number would lose, and an amount written as a string.
    let exact = "12345678901234.567891";
    leave(
        &ledger,
        "ours",
        "INV-1",
        body(exact, "SAR").as_bytes(),
        LedgerState::Accepted,
    )
    .await;
    leave(
        &ledger,
        "ours",
        "INV-2",
        body("\"115.50\"", "USD").as_bytes(),
        LedgerState::Accepted,
    )
    .await;
    leave(
        &ledger,
        "ours",
        "INV-3",
        body("99", "SAR").as_bytes(),
        LedgerState::Rejected,
    )
    .await;
    leave(&ledger, "ours", "INV-4", b"not json", LedgerState::Accepted).await;

    let total = |number: &str| ledger.invoice_total(number, Some(SELLER)).unwrap();
    let of = |amount: &str, currency: &str| {
        Some(crate::model::IssuedTotal {
            amount: amount.parse().unwrap(),
            currency: currency.to_string(),
        })
    };
    assert_eq!(total("INV-1"), of(exact, "SAR"));
    assert_eq!(total("INV-2"), of("115.50", "USD"));
    assert_eq!(total("INV-3"), None, "rejected");
    assert_eq!(total("INV-4"), None, "a body without a total");
    assert_eq!(total("INV-9"), None);
    assert_eq!(
        ledger.invoice_total("INV-1", Some("311111111100003")).unwrap(),
        None,
        "another seller's"
    );
}

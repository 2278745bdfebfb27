use super::*;

fn key(number: &str) -> DocumentKey {
    DocumentKey {
        onboard_id: "b25i/+=".into(),
        kind: DocumentKind::Invoice,
        number: number.into(),
    }
}

fn item(number: &str, body: &[u8]) -> BeginItem {
    item_of(key(number), body, SELLER)
}

const SELLER: &str = "300000000000003";

fn item_of(k: DocumentKey, body: &[u8], seller_vat: &str) -> BeginItem {
    BeginItem {
        idempotency_key: idempotency_key(&k),
        key: k,
        content_hash: content_hash(body),
        body: body.to_vec(),
        seller_vat: Some(seller_vat.into()),
    }
}

/// The key of `number` for the device `onboard_id`.
fn key_on(onboard_id: &str, number: &str) -> DocumentKey {
    DocumentKey {
        onboard_id: onboard_id.into(),
        ..key(number)
    }
}

fn device(onboard_id: &str, vat_number: &str) -> OnboardedDevice {
    OnboardedDevice {
        onboard_id: onboard_id.into(),
        vat_number: vat_number.into(),
        invoice_type: crate::model::DeviceType::Both,
    }
}

/// Register `number` for `onboard_id` and leave it in `state` (as after a request and answer).
async fn leave(ledger: &Ledger, onboard_id: &str, number: &str, body: &[u8], state: LedgerState) {
    let k = key_on(onboard_id, number);
    let idem = idempotency_key(&k);
    ledger.begin(vec![item_of(k, body, SELLER)]).await.unwrap();
    if state == LedgerState::Pending {
        return;
    }
    ledger.mark_sending(&idem, None).await.unwrap();
    if state != LedgerState::InFlight {
        let uuid = (state == LedgerState::Accepted).then(|| format!("uuid-{number}"));
        ledger
            .record(&idem, state, None, None, uuid)
            .0
            .committed()
            .await
            .unwrap();
    }
}

/// Read a row through a separate connection, as another process would after a crash.
fn row_from_disk(dir: &Path, number: &str) -> Option<(String, i64)> {
    let conn = rusqlite::Connection::open(dir.join("ledger.sqlite")).unwrap();
    conn.query_row(
        "SELECT state, attempts FROM documents WHERE number = ?1",
        [number],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .ok()
}

#[test]
fn keys_are_stable_and_distinct() {
    let a = idempotency_key(&key("INV-1"));
    assert_eq!(a, idempotency_key(&key("INV-1")));
    assert_eq!(a.len(), 64);
    assert_ne!(a, idempotency_key(&key("INV-2")));
    let mut credit = key("INV-1");
    credit.kind = DocumentKind::CreditNote;
    assert_ne!(a, idempotency_key(&credit));
    let mut other_device = key("INV-1");
    other_device.onboard_id = "other".into();
    assert_ne!(a, idempotency_key(&other_device));
}

#[test]
fn a_lock_let_go_of_a_moment_later_is_taken_not_said_busy() {
    // As when a child another thread was starting still shared the lock file for a moment
    // after its owner closed it.
    let dir = tempfile::tempdir().unwrap();
    let held = Ledger::open(dir.path()).unwrap();
    let (opening, started) = std::sync::mpsc::channel();
    let path = dir.path().to_path_buf();
    let opener = std::thread::spawn(move || {
        opening.send(()).unwrap();
        Ledger::open(&path).map(|_| ())
    });
    started.recv().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    drop(held);
    opener.join().unwrap().expect("taken once let go, within the grace");
}

#[test]
fn wal_and_full_sync_and_a_lock() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    let err = Ledger::open(dir.path()).unwrap_err();
    assert!(matches!(err, LedgerError::Busy { .. }));
    let text = err.to_string();
    assert!(text.contains(&dir.path().display().to_string()), "{text}");
    assert!(text.contains("another invoicedrop is already running"), "{text}");
    assert!(text.contains(&format!("process {}", std::process::id())), "{text}");
    let clone = ledger.clone();
    drop(ledger);
    assert!(Ledger::open(dir.path()).is_err(), "a clone still holds the folder");
    drop(clone);
    Ledger::open(dir.path()).expect("free again once every handle is gone");
}

#[tokio::test]
async fn in_flight_is_on_disk_before_the_request_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    let d = ledger.begin(vec![item("A", b"{\"a\":1}")]).await.unwrap();
    assert!(matches!(&d[0], Decision::Send { body, attempts: 0, replacement: None } if body == b"{\"a\":1}"));
    assert_eq!(row_from_disk(dir.path(), "A"), Some(("pending".into(), 0)));
    let idem = idempotency_key(&key("A"));
    assert_eq!(ledger.mark_sending(&idem, None).await.unwrap(), 1);
    assert_eq!(row_from_disk(dir.path(), "A"), Some(("in_flight".into(), 1)));
    ledger
        .record(
            &idem,
            LedgerState::Accepted,
            Some(200),
            Some(b"{\"status\":\"Success\"}".to_vec()),
            Some("u-1".into()),
        )
        .0
        .committed()
        .await
        .unwrap();
    assert_eq!(row_from_disk(dir.path(), "A"), Some(("accepted".into(), 1)));
    let e = ledger.get(&key("A")).unwrap().unwrap();
    assert_eq!(e.uuid.as_deref(), Some("u-1"));
    assert_eq!(e.last_status, Some(200));
    assert_eq!(e.body, b"{\"a\":1}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reruns_decide_from_the_stored_state() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    let items = vec![
        item("ACC", b"acc-v1"),
        item("REJ", b"rej-v1"),
        item("UNK", b"unk-v1"),
        item("FLY", b"fly-v1"),
    ];
    ledger.begin(items).await.unwrap();
    let set = |n: &str, state: LedgerState| {
        let idem = idempotency_key(&key(n));
        let ledger = ledger.clone();
        async move {
            ledger.mark_sending(&idem, None).await.unwrap();
            if state != LedgerState::InFlight {
                ledger
                    .record(&idem, state, None, None, None)
                    .0
                    .committed()
                    .await
                    .unwrap();
            }
        }
    };
    set("ACC", LedgerState::Accepted).await;
    set("REJ", LedgerState::Rejected).await;
    set("UNK", LedgerState::Unknown).await;
    set("FLY", LedgerState::InFlight).await;

    let same = ledger
        .begin(vec![
            item("ACC", b"acc-v1"),
            item("REJ", b"rej-v1"),
            item("UNK", b"unk-v1"),
            item("FLY", b"fly-v1"),
        ])
        .await
        .unwrap();
    assert!(matches!(&same[0], Decision::Done(e) if e.state == LedgerState::Accepted));
    assert!(matches!(
        &same[1],
        Decision::Send {
            replacement: None,
            attempts: 1,
            ..
        }
    ));
    assert!(matches!(&same[2], Decision::Send { replacement: None, .. }));
    assert!(matches!(&same[3], Decision::Send { replacement: None, .. }));

    let changed = ledger
        .begin(vec![
            item("ACC", b"acc-v2"),
            item("REJ", b"rej-v2"),
            item("UNK", b"unk-v2"),
        ])
        .await
        .unwrap();
    assert!(matches!(&changed[0], Decision::Conflict(e) if e.body == b"acc-v1"));
    assert!(matches!(&changed[1], Decision::Send { body, replacement: None, .. } if body == b"rej-v2"));
    match &changed[2] {
        Decision::Send {
            body,
            replacement: Some(r),
            ..
        } => {
            assert_eq!(body, b"unk-v1", "the stored body settles the unknown outcome first");
            assert_eq!(r.body, b"unk-v2");
        }
        other => panic!("{other:?}"),
    }
    let unresolved = ledger.unresolved("b25i/+=").unwrap();
    let numbers: Vec<&str> = unresolved.iter().map(|e| e.key.number.as_str()).collect();
    assert_eq!(numbers, ["UNK", "FLY"]);
    let stats = ledger.stats().unwrap();
    assert_eq!(
        stats,
        LedgerStats {
            pending: 0,
            in_flight: 1,
            accepted: 1,
            rejected: 1,
            unknown: 1
        }
    );
    // A replacement is stored when the next request leaves.
    let idem = idempotency_key(&key("UNK"));
    let r = Replacement {
        content_hash: content_hash(b"unk-v2"),
        body: b"unk-v2".to_vec(),
    };
    assert_eq!(ledger.mark_sending(&idem, Some(r)).await.unwrap(), 2);
    let e = ledger.get(&key("UNK")).unwrap().unwrap();
    assert_eq!(e.body, b"unk-v2");
    assert_eq!(e.content_hash, content_hash(b"unk-v2"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_writers_share_commits() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open(dir.path()).unwrap();
    let items: Vec<BeginItem> = (0..400).map(|i| item(&format!("N{i}"), b"x")).collect();
    ledger.begin(items).await.unwrap();
    let started = std::time::Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..400 {
        let ledger = ledger.clone();
        tasks.spawn(async move {
            let idem = idempotency_key(&key(&format!("N{i}")));
            ledger.mark_sending(&idem, None).await.unwrap();
            ledger
                .record(&idem, LedgerState::Accepted, Some(200), None, None)
                .0
                .committed()
                .await
                .unwrap();
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.unwrap();
    }
    let stats = ledger.stats().unwrap();
    assert_eq!(stats.accepted, 400);
    // 800 durable writes one by one would take seconds with fsync; grouped they take far less.
    eprintln!("800 ledger writes from 400 tasks: {:?}", started.elapsed());
}

#[test]
fn the_device_is_remembered_with_its_vat_number_and_invoice_type() {
    let dir = tempfile::tempdir().unwrap();
    let device = OnboardedDevice {
        onboard_id: "abc==".into(),
        vat_number: "300000000000003".into(),
        invoice_type: crate::model::DeviceType::Standard,
    };
    {
        let ledger = Ledger::open(dir.path()).unwrap();
        assert_eq!(ledger.remembered_device().unwrap(), None);
        ledger.remember_device(&device).unwrap();
    }
    let ledger = Ledger::open(dir.path()).unwrap();
    let remembered = ledger.remembered_device().unwrap().unwrap();
    assert_eq!(remembered, RememberedDevice::Known(device.clone()));
    assert_eq!(remembered.onboard_id(), "abc==");
    // A second onboarding replaces the first.
    let other = OnboardedDevice {
        onboard_id: "def==".into(),
        invoice_type: crate::model::DeviceType::Both,
        ..device
    };
    ledger.remember_device(&other).unwrap();
    assert_eq!(
        ledger.remembered_device().unwrap(),
        Some(RememberedDevice::Known(other))
    );
}

#[test]
fn an_onboard_id_stored_alone_is_not_paired_with_another_devices_type() {
    let dir = tempfile::tempdir().unwrap();
    {
        let ledger = Ledger::open(dir.path()).unwrap();
        ledger
            .remember_device(&OnboardedDevice {
                onboard_id: "first".into(),
                vat_number: "300000000000003".into(),
                invoice_type: crate::model::DeviceType::Standard,
            })
            .unwrap();
    }
    // What an earlier version writes when it onboards: the onboard_id alone.
    {
        let conn = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
        conn.execute("UPDATE meta SET value = 'second' WHERE key = 'onboard_id'", [])
            .unwrap();
    }
    let ledger = Ledger::open(dir.path()).unwrap();
    assert_eq!(
        ledger.remembered_device().unwrap(),
        Some(RememberedDevice::OnboardIdOnly("second".into()))
    );
}

#[test]
fn a_state_folder_of_an_earlier_version_gives_the_onboard_id_alone() {
    let dir = tempfile::tempdir().unwrap();
    drop(Ledger::open(dir.path()).unwrap());
    {
        let conn = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
        conn.execute("INSERT INTO meta (key, value) VALUES ('onboard_id', 'abc==')", [])
            .unwrap();
    }
    let ledger = Ledger::open(dir.path()).unwrap();
    assert_eq!(
        ledger.remembered_device().unwrap(),
        Some(RememberedDevice::OnboardIdOnly("abc==".into()))
    );
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let conn = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
        conn.execute_batch("PRAGMA user_version=99;").unwrap();
    }
    let err = Ledger::open(dir.path()).unwrap_err();
    assert!(matches!(err, LedgerError::Newer { found: 99, .. }), "{err}");
}

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

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
    assert!(
        matches!(&d[0], Decision::Send { body, attempts: 0, replacement: None, sent: false } if body == b"{\"a\":1}")
    );
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
            sent: false,
            ..
        }
    ));
    // Maybe at the API: said so, whatever the attempts.
    assert!(matches!(
        &same[2],
        Decision::Send {
            replacement: None,
            sent: true,
            ..
        }
    ));
    assert!(matches!(
        &same[3],
        Decision::Send {
            replacement: None,
            sent: true,
            ..
        }
    ));

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

#[tokio::test]
async fn the_recorded_device_is_read_without_the_lock_and_without_creating_anything() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none");
    assert_eq!(Ledger::recorded_device(&missing).unwrap(), None);
    assert!(!missing.exists(), "nothing is created");
    // A ledger with no device (a run that found none onboarded).
    let ledger = Ledger::open(dir.path()).unwrap();
    assert_eq!(Ledger::recorded_device(dir.path()).unwrap(), None);
    // Documents sent through INVOICEDROP_ONBOARD_ID alone: that device, read while the ledger
    // is open (and locked) by this process.
    leave(&ledger, "override==", "INV-1", b"a", LedgerState::Accepted).await;
    assert_eq!(
        Ledger::recorded_device(dir.path()).unwrap().as_deref(),
        Some("override==")
    );
    // An onboarded device comes first.
    ledger.remember_device(&device("onboarded==", SELLER)).unwrap();
    assert_eq!(
        Ledger::recorded_device(dir.path()).unwrap().as_deref(),
        Some("onboarded==")
    );
    drop(ledger);
    assert_eq!(
        Ledger::recorded_device(dir.path()).unwrap().as_deref(),
        Some("onboarded==")
    );
}

#[test]
fn the_recorded_device_of_an_earlier_version_is_its_onboard_id() {
    let dir = tempfile::tempdir().unwrap();
    // Only the meta table and its onboard_id, as the first versions wrote.
    let conn = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL); \
         INSERT INTO meta (key, value) VALUES ('onboard_id', 'old==');",
    )
    .unwrap();
    drop(conn);
    assert_eq!(Ledger::recorded_device(dir.path()).unwrap().as_deref(), Some("old=="));
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

/// What the devices of one seller hold: numbers, their state and their invoices' dates.
#[path = "tests_sellers.rs"]
mod sellers;

/// The credit notes accepted against an invoice.
#[path = "tests_credited.rs"]
mod credited;

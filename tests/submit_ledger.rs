//! The ledger's promises, end to end against a fake API (tests/submit_fake): written before a
//! request leaves, accepted documents never sent again, conflicts, resuming after a crash with
//! the original key and body, and one process per state folder.

mod submit_fake;

use invoicedrop::model::{Secret, example};
use invoicedrop::submit::{
    ApiSettings, Backoff, CONFLICT_CODE, DocumentKey, Ledger, LedgerError, LedgerState, Outcome, Outgoing, SubmitEvent,
    Submitter, idempotency_key,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use submit_fake::{Action, SECRET, USER, VAT, start};

const ID: &str = "ZGV2aWNl/MQ+=";

fn settings(base: &str) -> ApiSettings {
    let mut s = ApiSettings::new(base, VAT, USER, Secret::new(SECRET));
    s.rate_per_second = None;
    s.backoff = Backoff {
        min_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        give_up_after: Duration::from_secs(20),
    };
    s
}

fn invoice(number: &str, tag: u64) -> Outgoing {
    Outgoing {
        document: example::standard_invoice(number),
        tag,
    }
}

fn changed(number: &str, tag: u64) -> Outgoing {
    let mut o = invoice(number, tag);
    o.document.note = Some("changed after the first submission".into());
    o
}

fn key(number: &str) -> DocumentKey {
    DocumentKey {
        onboard_id: ID.into(),
        kind: invoicedrop::model::DocumentKind::Invoice,
        number: number.into(),
    }
}

async fn connect(base: &str, ledger: Ledger) -> Submitter {
    Submitter::connect(settings(base), ID.into(), ledger).await.unwrap()
}

#[tokio::test]
async fn in_flight_is_committed_before_the_request_leaves() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.sqlite");
    let seen: Arc<Mutex<Vec<(String, i64, u32)>>> = Arc::default();
    let log = seen.clone();
    server.fake.set_script(move |r| {
        // Another connection, as a process reading the file after a crash would.
        let conn = rusqlite::Connection::open(&db).unwrap();
        let (state, attempts): (String, i64) = conn
            .query_row(
                "SELECT state, attempts FROM documents WHERE idempotency_key = ?1",
                [r.idempotency_key.clone().unwrap()],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        log.lock().unwrap().push((state, attempts, r.nth_for_key));
        if r.nth_for_key == 1 {
            Action::Status(503, String::new())
        } else {
            Action::Normal
        }
    });
    let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
    let outcomes = sub
        .submit_all((0..10).map(|i| invoice(&format!("F-{i}"), i)).collect(), |_| {})
        .await
        .unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 20);
    for (state, attempts, nth) in seen.iter() {
        assert_eq!(state, "in_flight");
        assert_eq!(
            *attempts,
            i64::from(*nth),
            "attempts + 1 was durable before request {nth} left"
        );
    }
    let e = sub.ledger().get(&key("F-3")).unwrap().unwrap();
    assert_eq!(e.state, LedgerState::Accepted);
    assert_eq!(e.attempts, 2);
    assert_eq!(e.last_status, Some(200));
    assert!(e.uuid.is_some() && e.response.is_some());
    assert_eq!(e.idempotency_key, idempotency_key(&key("F-3")));
}

#[tokio::test]
async fn accepted_documents_are_reported_from_the_ledger_and_never_sent_again() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let batch: Vec<Outgoing> = (0..5).map(|i| invoice(&format!("A-{i}"), i)).collect();
    let first = {
        let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
        sub.submit_all(batch.clone(), |_| {}).await.unwrap()
    };
    let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
    let again = sub.submit_all(batch, |_| {}).await.unwrap();
    assert_eq!(server.fake.documents().len(), 5, "the rerun sent nothing");
    for (a, b) in first.iter().zip(&again) {
        let (
            Outcome::Accepted { raw: raw_a, .. },
            Outcome::Accepted {
                raw: raw_b,
                from_ledger,
                attempts,
                response,
                ..
            },
        ) = (a, b)
        else {
            panic!("{a:?} {b:?}")
        };
        assert!(*from_ledger);
        assert_eq!(*attempts, 1);
        assert_eq!(raw_a, raw_b, "the stored answer, byte for byte");
        assert!(response.id.is_some());
    }
}

#[tokio::test]
async fn the_same_number_with_other_content_is_a_conflict_and_is_not_sent() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
    sub.submit_all(vec![invoice("C-1", 1)], |_| {}).await.unwrap();
    let events: Arc<Mutex<Vec<SubmitEvent>>> = Arc::default();
    let seen = events.clone();
    let outcomes = sub
        .submit_all(vec![changed("C-1", 2)], move |e| seen.lock().unwrap().push(e))
        .await
        .unwrap();
    // Issued, with a conflict: counted as such by a progress line, never as a rejection.
    assert_eq!(*events.lock().unwrap(), [SubmitEvent::Conflict], "{events:?}");
    let Outcome::Conflict {
        tag,
        message,
        response,
        issued,
        ..
    } = &outcomes[0]
    else {
        panic!("{:?}", outcomes[0])
    };
    assert_eq!(*tag, 2);
    assert!(
        !message.contains(CONFLICT_CODE) && message.contains("credit note") && message.contains("is issued"),
        "the code is given once, by the result files: {message}"
    );
    assert!(
        response.id.is_some() && response.invoice.is_some(),
        "the issued acceptance, from the ledger"
    );
    let issued = issued.as_ref().expect("the issued document");
    assert_eq!((issued.number.as_str(), issued.note.as_deref()), ("C-1", None));
    assert_eq!(outcomes[0].errors()[0].code.as_deref(), Some(CONFLICT_CODE));
    assert_eq!(server.fake.documents().len(), 1);
}

#[tokio::test]
async fn the_same_document_twice_in_one_batch_is_sent_once() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
    let outcomes = sub
        .submit_all(vec![invoice("D-1", 1), invoice("D-1", 2), changed("D-1", 3)], |_| {})
        .await
        .unwrap();
    assert!(matches!(
        outcomes[0],
        Outcome::Accepted {
            from_ledger: false,
            tag: 1,
            ..
        }
    ));
    assert!(matches!(
        outcomes[1],
        Outcome::Accepted {
            from_ledger: true,
            tag: 2,
            ..
        }
    ));
    assert!(matches!(outcomes[2], Outcome::Conflict { tag: 3, .. }));
    assert_eq!(server.fake.documents().len(), 1);
}

/// Start a submission that the server accepts but never answers, and drop it there: the
/// process "crashes" with the request in flight.
async fn crash_in_flight(base: &str, dir: &std::path::Path, fake: &submit_fake::Fake, doc: Outgoing) {
    fake.set_script(|r| {
        if r.nth_for_key == 1 {
            Action::AcceptThenHang
        } else {
            Action::Normal
        }
    });
    let sub = connect(base, Ledger::open(dir).unwrap()).await;
    let before = fake.documents().len();
    tokio::select! {
        r = sub.submit_all(vec![doc], |_| {}) => panic!("the server never answers: {r:?}"),
        () = fake.wait_for_requests(before + 1) => {}
    }
}

#[tokio::test]
async fn a_document_in_flight_at_a_crash_is_resumed_with_its_key_and_body() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    crash_in_flight(&server.base_url, dir.path(), &server.fake, invoice("K-1", 1)).await;
    let ledger = Ledger::open(dir.path()).unwrap();
    let e = ledger.get(&key("K-1")).unwrap().unwrap();
    assert_eq!((e.state, e.attempts), (LedgerState::InFlight, 1));

    let sub = connect(&server.base_url, ledger).await;
    let resumed = sub.resume_unresolved(|_| {}).await.unwrap();
    assert_eq!(resumed.len(), 1);
    assert_eq!(resumed[0].0, key("K-1"));
    assert!(matches!(
        resumed[0].1,
        Outcome::Accepted {
            attempts: 2,
            from_ledger: false,
            ..
        }
    ));
    let requests = server.fake.documents();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].idempotency_key, requests[1].idempotency_key);
    assert_eq!(requests[0].body, requests[1].body);
    assert_eq!(server.fake.accepted_count(), 1);
    assert_eq!(server.fake.replays.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(sub.resume_unresolved(|_| {}).await.unwrap().is_empty());
}

#[tokio::test]
async fn changed_content_after_a_crash_settles_the_stored_body_first() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    crash_in_flight(&server.base_url, dir.path(), &server.fake, invoice("K-2", 1)).await;
    let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
    let outcomes = sub.submit_all(vec![changed("K-2", 9)], |_| {}).await.unwrap();
    // The interrupted request had been accepted: the replay says so, and the new content conflicts.
    let Outcome::Conflict {
        tag: 9,
        response,
        issued: Some(issued),
        attempts,
        ..
    } = &outcomes[0]
    else {
        panic!("{outcomes:?}")
    };
    assert!(response.id.is_some(), "the issued acceptance");
    assert_eq!(*attempts, 2);
    assert_eq!(
        (issued.number.as_str(), issued.note.as_deref()),
        ("K-2", None),
        "the issued document is the stored body, not the changed one"
    );
    let requests = server.fake.documents();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].body, requests[0].body,
        "the stored body went, not the new one"
    );
    assert_eq!(server.fake.accepted_count(), 1);
}

#[tokio::test]
async fn an_unknown_outcome_is_retried_next_run_with_the_same_key() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    server.fake.set_script(|_| Action::Status(504, String::new()));
    {
        let mut s = settings(&server.base_url);
        s.max_attempts = 2;
        let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
            .await
            .unwrap();
        let outcomes = sub.submit_all(vec![invoice("U-1", 1)], |_| {}).await.unwrap();
        let Outcome::Failed { reason, attempts, .. } = &outcomes[0] else {
            panic!("{outcomes:?}")
        };
        assert_eq!(*attempts, 2);
        assert_eq!(
            reason
                .matches("the next run repeats it with the same idempotency key")
                .count(),
            1,
            "{reason}"
        );
        let e = sub.ledger().get(&key("U-1")).unwrap().unwrap();
        assert_eq!((e.state, e.last_status), (LedgerState::Unknown, Some(504)));
    }
    server.fake.set_script(|_| Action::Normal);
    let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
    let outcomes = sub.submit_all(vec![invoice("U-1", 1)], |_| {}).await.unwrap();
    assert!(
        matches!(outcomes[0], Outcome::Accepted { attempts: 3, .. }),
        "{outcomes:?}"
    );
    let keys: Vec<_> = server
        .fake
        .documents()
        .iter()
        .map(|r| r.idempotency_key.clone())
        .collect();
    assert_eq!(keys.len(), 3);
    assert!(keys.iter().all(|k| *k == keys[0]), "no new key on a rerun");
}

#[tokio::test]
async fn a_number_maybe_issued_by_the_replaced_device_waits_for_it_to_be_settled() {
    const NEW: &str = "bmV3LWRldmljZQ==";
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    server.fake.set_script(|_| Action::Status(504, String::new()));
    {
        let mut s = settings(&server.base_url);
        s.max_attempts = 1;
        let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
            .await
            .unwrap();
        let outcomes = sub.submit_all(vec![invoice("M-1", 1)], |_| {}).await.unwrap();
        assert!(matches!(outcomes[0], Outcome::Failed { .. }), "{outcomes:?}");
    }
    server.fake.set_script(|_| Action::Normal);
    // The replacement device holds it back: maybe issued through the first one.
    {
        let sub = Submitter::connect(
            settings(&server.base_url),
            NEW.into(),
            Ledger::open(dir.path()).unwrap(),
        )
        .await
        .unwrap();
        let outcomes = sub.submit_all(vec![invoice("M-1", 1)], |_| {}).await.unwrap();
        let Outcome::Failed {
            reason, attempts: 0, ..
        } = &outcomes[0]
        else {
            panic!("{outcomes:?}")
        };
        assert!(
            reason.contains(&format!("earlier device {ID}"))
                && reason.contains("INVOICEDROP_ONBOARD_ID")
                && !reason.contains("the next run repeats it"),
            "{reason}"
        );
        let sent: Vec<_> = server.fake.documents().iter().map(|r| r.onboard_id.clone()).collect();
        assert_eq!(
            sent,
            [ID],
            "the first device's one attempt, nothing through the new one"
        );
    }
    // Settled through the first device, as the message says: then the new device reports it.
    {
        let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
        let settled = sub.resume_unresolved(|_| {}).await.unwrap();
        assert!(matches!(settled[0].1, Outcome::Accepted { .. }), "{settled:?}");
    }
    let sub = Submitter::connect(
        settings(&server.base_url),
        NEW.into(),
        Ledger::open(dir.path()).unwrap(),
    )
    .await
    .unwrap();
    let outcomes = sub.submit_all(vec![invoice("M-1", 1)], |_| {}).await.unwrap();
    assert!(
        matches!(outcomes[0], Outcome::Accepted { from_ledger: true, .. }),
        "{outcomes:?}"
    );
    assert_eq!(server.fake.accepted_count(), 1, "M-1 once");
    assert!(server.fake.documents().iter().all(|r| r.onboard_id == ID));
}

#[tokio::test]
async fn a_rejected_document_may_be_sent_again_once_fixed() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, Ledger::open(dir.path()).unwrap()).await;
    server.fake.set_script(|r| {
        if r.nth_for_key == 1 {
            Action::Status(
                422,
                r#"{"status":"Failure","errors":[{"code":"BR-KSA-25","message":"fix the address"}]}"#.into(),
            )
        } else {
            Action::Normal
        }
    });
    let first = sub.submit_all(vec![invoice("J-1", 1)], |_| {}).await.unwrap();
    assert!(matches!(first[0], Outcome::Rejected { http_status: 422, .. }));
    let fixed = sub.submit_all(vec![changed("J-1", 1)], |_| {}).await.unwrap();
    assert!(matches!(fixed[0], Outcome::Accepted { attempts: 2, .. }), "{fixed:?}");
    let requests = server.fake.documents();
    assert_eq!(requests[0].idempotency_key, requests[1].idempotency_key);
    assert_ne!(requests[0].body, requests[1].body);
    let e = sub.ledger().get(&key("J-1")).unwrap().unwrap();
    assert_eq!(e.body, requests[1].body, "the ledger holds what was accepted");
}

/// Run in a child process by `a_second_process_is_refused`; does nothing otherwise.
#[test]
fn child_opens_a_locked_folder() {
    let Ok(dir) = std::env::var("SUBMIT_LEDGER_CHILD_DIR") else {
        return;
    };
    match Ledger::open(std::path::Path::new(&dir)) {
        Err(e @ LedgerError::Busy { .. }) => println!("REFUSED: {e}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_second_process_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let _held = Ledger::open(dir.path()).unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_opens_a_locked_folder",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SUBMIT_LEDGER_CHILD_DIR", dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("REFUSED: another invoicedrop is already running"),
        "{stdout}"
    );
    assert!(stdout.contains(&dir.path().display().to_string()), "{stdout}");
    assert!(stdout.contains(&format!("process {}", std::process::id())), "{stdout}");
}

/// Run in a child process by `a_killed_process_loses_nothing_and_sends_nothing_twice`: submits
/// until it is killed.
#[tokio::test]
async fn child_submits_until_killed() {
    let (Ok(url), Ok(dir)) = (std::env::var("SUBMIT_CRASH_URL"), std::env::var("SUBMIT_CRASH_DIR")) else {
        return;
    };
    let mut s = settings(&url);
    s.concurrency = 8;
    let sub = Submitter::connect(s, ID.into(), Ledger::open(std::path::Path::new(&dir)).unwrap())
        .await
        .unwrap();
    let batch: Vec<Outgoing> = (0..300).map(|i| invoice(&format!("CR-{i}"), i)).collect();
    let _ = sub.submit_all(batch, |_| {}).await;
    panic!("the parent kills this process before the batch is done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_process_loses_nothing_and_sends_nothing_twice() {
    let server = start(ID).await;
    // Slow answers, so that the kill lands with requests in flight.
    server
        .fake
        .set_script(|_| Action::AcceptThenDelay(Duration::from_millis(20)));
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_submits_until_killed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SUBMIT_CRASH_URL", &server.base_url)
        .env("SUBMIT_CRASH_DIR", dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    server.fake.wait_for_requests(60).await;
    child.kill().unwrap();
    child.wait().unwrap();
    let seen_before = server.fake.documents().len();

    let ledger = Ledger::open(dir.path()).expect("the lock dies with the process");
    let stats = ledger.stats().unwrap();
    assert_eq!(stats.accepted + stats.in_flight + stats.pending + stats.unknown, 300);
    assert!(stats.in_flight >= 1, "killed with requests in flight: {stats:?}");

    server.fake.set_script(|_| Action::Normal);
    let sub = connect(&server.base_url, ledger).await;
    let resumed = sub.resume_unresolved(|_| {}).await.unwrap();
    assert_eq!(resumed.len() as u64, stats.in_flight);
    assert!(resumed.iter().all(|(_, o)| o.is_accepted()));
    let batch: Vec<Outgoing> = (0..300).map(|i| invoice(&format!("CR-{i}"), i)).collect();
    let outcomes = sub.submit_all(batch, |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted));
    let from_ledger = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Accepted { from_ledger: true, .. }))
        .count() as u64;
    // Accepted before the kill: from the ledger; repeated by this submitter's resume: sent by it,
    // so not "issued before" (QA9 #1).
    assert_eq!(from_ledger, stats.accepted);

    let requests = server.fake.documents();
    assert_eq!(server.fake.accepted_count(), 300, "every document issued exactly once");
    let mut bodies: std::collections::HashMap<String, Vec<u8>> = Default::default();
    for r in &requests {
        let key = r.idempotency_key.clone().unwrap();
        let body = bodies.entry(key).or_insert_with(|| r.body.clone());
        assert_eq!(*body, r.body, "a repeat carried other bytes");
    }
    assert_eq!(bodies.len(), 300, "one key per document, never a new one");
    let repeats = requests.len() - 300;
    assert_eq!(
        repeats as u32,
        server.fake.replays.load(std::sync::atomic::Ordering::SeqCst),
        "every second request of a document was a replay of the first"
    );
    eprintln!(
        "killed after {seen_before} requests: {} accepted, {} in flight, {} pending; {repeats} replays after restart",
        stats.accepted, stats.in_flight, stats.pending
    );
}

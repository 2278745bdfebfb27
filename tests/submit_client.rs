//! The submit client against a fake API (tests/submit_fake): auth and token, errors that stop a
//! run, retries with the same key and body, 429, the breaker (submit_client/down.rs: an API that
//! does not answer or goes away), the rate limit, and secrets in logs.

#[path = "submit_client/down.rs"]
mod down;
mod submit_fake;

use invoicedrop::model::{InvoiceType, OnboardingRequest, Secret, example};
use invoicedrop::submit::{
    ApiSettings, Backoff, DocumentKey, Ledger, LedgerState, Outcome, Outgoing, SubmitError, SubmitEvent, Submitter,
    idempotency_key, onboard,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use submit_fake::{Action, SECRET, USER, VAT, dead_url, start};

const ID: &str = "YWJj/ZGVm+Z2hp==";

fn settings(base: &str) -> ApiSettings {
    let mut s = ApiSettings::new(base, VAT, USER, Secret::new(SECRET));
    s.rate_per_second = None;
    s.timeout = Duration::from_secs(10);
    s.backoff = Backoff {
        min_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(80),
        give_up_after: Duration::from_secs(20),
    };
    s
}

fn docs(prefix: &str, n: usize) -> Vec<Outgoing> {
    (0..n)
        .map(|i| {
            let number = format!("{prefix}-{i}");
            let document = match i % 4 {
                0 => example::credit_note(&number, "INV-0"),
                1 => example::debit_note(&number, "INV-0"),
                2 => example::simplified_invoice(&number),
                _ => example::standard_invoice(&number),
            };
            Outgoing {
                document,
                tag: 1000 + i as u64,
            }
        })
        .collect()
}

fn key_of(o: &Outgoing) -> String {
    idempotency_key(&DocumentKey {
        onboard_id: ID.into(),
        kind: o.document.kind,
        number: o.document.number.clone(),
    })
}

async fn connect(base: &str, dir: &std::path::Path) -> Submitter {
    Submitter::connect(settings(base), ID.into(), Ledger::open(dir).unwrap())
        .await
        .unwrap()
}

fn events() -> (Arc<Mutex<Vec<SubmitEvent>>>, impl Fn(SubmitEvent) + Send + Sync) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    (seen, move |e| sink.lock().unwrap().push(e))
}

#[tokio::test]
async fn every_kind_is_accepted_once_with_the_onboard_id_as_one_segment() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, dir.path()).await;
    let batch = docs("A", 24);
    let keys: Vec<String> = batch.iter().map(key_of).collect();
    let outcomes = sub.submit_all(batch, |_| {}).await.unwrap();
    assert_eq!(outcomes.len(), 24);
    for (i, o) in outcomes.iter().enumerate() {
        assert_eq!(o.tag(), 1000 + i as u64, "outcomes come back in input order");
        let Outcome::Accepted {
            response,
            attempts,
            from_ledger,
            raw,
            ..
        } = o
        else {
            panic!("{o:?}")
        };
        assert_eq!((*attempts, *from_ledger), (1, false));
        assert!(response.id.is_some() && !raw.is_empty());
        assert_eq!(response.invoice_number.as_deref(), Some(format!("A-{i}").as_str()));
    }
    let seen = server.fake.documents();
    assert_eq!(seen.len(), 24);
    assert_eq!(server.fake.accepted_count(), 24);
    for r in &seen {
        assert_eq!(r.onboard_id, ID, "decoded back to the exact id");
        assert!(r.raw_path.contains("YWJj%2FZGVm%2BZ2hp%3D%3D"), "{}", r.raw_path);
        assert!(keys.contains(r.idempotency_key.as_ref().unwrap()));
    }
    let kinds: HashMap<&str, usize> = seen.iter().fold(HashMap::new(), |mut m, r| {
        *m.entry(r.kind.as_str()).or_default() += 1;
        m
    });
    assert_eq!(kinds["invoices"], 12);
    assert_eq!(kinds["credit-notes"], 6);
    assert_eq!(kinds["debit-notes"], 6);
}

#[tokio::test]
async fn simplified_documents_go_first_oldest_first() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.concurrency = 1;
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let mut batch = Vec::new();
    for (i, (number, simplified, day)) in [("S1", false, 1), ("B3", true, 3), ("B1", true, 1), ("S2", false, 2)]
        .into_iter()
        .enumerate()
    {
        let mut d = example::standard_invoice(number);
        if simplified {
            d = example::simplified_invoice(number);
        }
        d.issue_date = chrono::NaiveDate::from_ymd_opt(2026, 11, day).unwrap();
        batch.push(Outgoing {
            document: d,
            tag: i as u64,
        });
    }
    sub.submit_all(batch, |_| {}).await.unwrap();
    let order: Vec<String> = server
        .fake
        .documents()
        .iter()
        .map(|r| serde_json::from_slice::<serde_json::Value>(&r.body).unwrap()["invoice_number"].to_string())
        .collect();
    assert_eq!(order, [r#""B1""#, r#""B3""#, r#""S1""#, r#""S2""#]);
    assert_eq!(InvoiceType::Simplified.as_str(), "simplified");
}

#[tokio::test]
async fn the_token_is_refreshed_before_it_expires() {
    let server = start(ID).await;
    server.fake.token_ttl.store(2, std::sync::atomic::Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.rate_per_second = Some(10);
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let outcomes = sub.submit_all(docs("T", 35), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted));
    let auths = server.fake.auths.load(std::sync::atomic::Ordering::SeqCst);
    assert!(auths >= 2, "a 2 s token over a 3.5 s run is replaced ({auths} auths)");
    assert_eq!(server.fake.answered_401.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert_eq!(
        server.fake.documents().len(),
        35,
        "no request was wasted on an expired token"
    );
}

#[tokio::test]
async fn a_401_mid_run_means_one_new_token_and_one_repeat() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.concurrency = 1;
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let fake = server.fake.clone();
    server.fake.set_script(move |r| {
        if fake.documents().len() == 3 && r.nth_for_key == 1 {
            fake.revoke_tokens();
        }
        Action::Normal
    });
    let outcomes = sub.submit_all(docs("R", 6), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted), "{outcomes:?}");
    assert_eq!(server.fake.answered_401.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(server.fake.auths.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(server.fake.documents().len(), 7);
    let mut attempts: Vec<u32> = outcomes.iter().map(Outcome::attempts).collect();
    attempts.sort();
    assert_eq!(attempts, [1, 1, 1, 1, 1, 2], "the refused request was repeated once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_workers_hit_by_401_share_one_new_token() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.concurrency = 16;
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    // Revoke the token once, when the 16th request has arrived: every request in flight then
    // gets 401. (Once 16 or more: with requests arriving together, the count may pass 16
    // between two looks at it.)
    let fake = server.fake.clone();
    let revoked = std::sync::atomic::AtomicBool::new(false);
    server.fake.set_script(move |r| {
        if r.nth_for_key == 1
            && fake.documents().len() >= 16
            && !revoked.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            fake.revoke_tokens();
        }
        Action::Normal
    });
    let outcomes = sub.submit_all(docs("M", 64), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted), "{outcomes:?}");
    let auths = server.fake.auths.load(std::sync::atomic::Ordering::SeqCst);
    let refused = server.fake.answered_401.load(std::sync::atomic::Ordering::SeqCst);
    assert!(refused >= 1);
    assert_eq!(
        auths, 2,
        "{refused} requests refused with 401 led to a single new token"
    );
}

#[tokio::test]
async fn two_401s_in_a_row_stop_the_run() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, dir.path()).await;
    server.fake.set_script(|_| Action::Unauthorized);
    let err = sub.submit_all(docs("U", 20), |_| {}).await.unwrap_err();
    assert!(matches!(err, SubmitError::CredentialsRejected { .. }), "{err}");
    assert!(err.to_string().contains("credentials rejected"), "{err}");
    let sent = server.fake.documents().len();
    assert!(
        sent <= 2 * 8,
        "the run stopped instead of going through the batch ({sent} requests)"
    );
}

#[tokio::test]
async fn a_wrong_secret_is_reported_at_connect() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.secret = Secret::new("wrong");
    let err = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, SubmitError::CredentialsRejected { .. }), "{text}");
    assert!(
        text.contains("INVOICEDROP_SECRET") && text.contains("invalid VAT number"),
        "{text}"
    );
}

#[tokio::test]
async fn an_api_that_is_down_at_start_is_reported_with_its_url() {
    let url = dead_url().await;
    let dir = tempfile::tempdir().unwrap();
    let err = Submitter::connect(settings(&url), ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, SubmitError::Unreachable { .. }), "{text}");
    assert!(text.contains(&url) && text.contains("INVOICEDROP_API_URL"), "{text}");
}

#[tokio::test]
async fn an_unknown_device_stops_the_run_with_a_configuration_error() {
    let server = start("another-device").await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, dir.path()).await;
    let err = sub.submit_all(docs("D", 30), |_| {}).await.unwrap_err();
    assert!(err.is_configuration());
    let text = err.to_string();
    assert!(text.contains(ID) && text.contains("INVOICEDROP_ONBOARD_ID"), "{text}");
    assert!(server.fake.documents().len() <= 8, "stopped at the first answers");
}

#[tokio::test]
async fn rejections_say_what_to_fix() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, dir.path()).await;
    let mut batch = docs("OK", 1);
    batch.push(Outgoing {
        document: example::standard_invoice("BAD-1"),
        tag: 7,
    });
    batch.push(Outgoing {
        document: example::standard_invoice("HTML-1"),
        tag: 8,
    });
    server.fake.set_script(|r| {
        if String::from_utf8_lossy(&r.body).contains("HTML-1") {
            Action::Status(400, "<html><body>Bad Request from a proxy</body></html>".into())
        } else {
            Action::Normal
        }
    });
    let outcomes = sub.submit_all(batch, |_| {}).await.unwrap();
    assert!(outcomes[0].is_accepted());
    let Outcome::Rejected {
        http_status, response, ..
    } = &outcomes[1]
    else {
        panic!("{:?}", outcomes[1])
    };
    assert_eq!(*http_status, 422);
    assert_eq!(response.errors.0[0].code.as_deref(), Some("BR-KSA-40"));
    let errors = outcomes[2].errors();
    assert!(errors[0].message.contains("Bad Request from a proxy"), "{errors:?}");
}

#[tokio::test]
async fn unknown_outcomes_are_repeated_with_the_same_key_and_bytes() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, dir.path()).await;
    server.fake.set_script(|r| match r.nth_for_key {
        1 => Action::Status(500, "oops".into()),
        2 => Action::AcceptThenDrop,
        3 => Action::Status(503, String::new()),
        _ => Action::Normal,
    });
    let batch = docs("X", 6);
    let outcomes = sub.submit_all(batch.clone(), |_| {}).await.unwrap();
    for o in &outcomes {
        assert!(o.is_accepted(), "{o:?}");
        assert_eq!(o.attempts(), 4);
    }
    let seen = server.fake.documents();
    assert_eq!(seen.len(), 24);
    for doc in &batch {
        let key = key_of(doc);
        let mine: Vec<_> = seen
            .iter()
            .filter(|r| r.idempotency_key.as_ref() == Some(&key))
            .collect();
        assert_eq!(mine.len(), 4, "every request carried the document's one key");
        assert!(mine.iter().all(|r| r.body == mine[0].body), "byte-identical body");
        assert_eq!(mine[0].body, serde_json::to_vec(&doc.document).unwrap());
    }
    assert_eq!(server.fake.accepted_count(), 6);
    assert_eq!(server.fake.replays.load(std::sync::atomic::Ordering::SeqCst), 6);
}

#[tokio::test]
async fn a_timeout_is_an_unknown_outcome_and_is_repeated() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.timeout = Duration::from_millis(300);
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    server.fake.set_script(|r| {
        if r.nth_for_key == 1 {
            Action::AcceptThenDelay(Duration::from_secs(3))
        } else {
            Action::Normal
        }
    });
    let (seen, sink) = events();
    let outcomes = sub.submit_all(docs("TO", 2), sink).await.unwrap();
    assert!(
        outcomes.iter().all(|o| o.is_accepted() && o.attempts() == 2),
        "{outcomes:?}"
    );
    assert_eq!(server.fake.replays.load(std::sync::atomic::Ordering::SeqCst), 2);
    let retrying = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, SubmitEvent::Retrying { .. }))
        .count();
    assert_eq!(retrying, 2);
}

#[tokio::test]
async fn a_429_pauses_everyone_for_retry_after() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.concurrency = 1;
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    server.fake.set_script(|r| {
        if r.nth_for_key == 1 && String::from_utf8_lossy(&r.body).contains("\"L-0\"") {
            Action::TooMany("1")
        } else {
            Action::Normal
        }
    });
    let (seen, sink) = events();
    let outcomes = sub.submit_all(docs("L", 3), sink).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted));
    let requests = server.fake.documents();
    let first = requests
        .iter()
        .position(|r| r.nth_for_key == 1 && String::from_utf8_lossy(&r.body).contains("\"L-0\""))
        .unwrap();
    let refused_at = requests[first].at;
    for later in &requests {
        if later.at > refused_at {
            assert!(
                later.at.duration_since(refused_at) >= Duration::from_secs(1),
                "a request left {:?} after the 429",
                later.at.duration_since(refused_at)
            );
        }
    }
    let events = seen.lock().unwrap().clone();
    assert!(
        events.iter().any(|e| matches!(e, SubmitEvent::Paused { .. })),
        "{events:?}"
    );
    assert!(events.contains(&SubmitEvent::Resumed), "{events:?}");
}

#[tokio::test]
async fn the_rate_limit_is_kept_within_five_percent() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.rate_per_second = Some(20);
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let outcomes = sub.submit_all(docs("Q", 100), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted));
    let requests = server.fake.documents();
    let span = requests.last().unwrap().at.duration_since(requests[0].at);
    let rate = 99.0 / span.as_secs_f64();
    eprintln!("100 documents at a limit of 20/s: {rate:.2}/s");
    // Never above the limit by more than 5 %. Below it, a busy machine (a whole test suite on
    // two cores) can hold the sender back: 18.7/s was seen so, and 19.6/s alone; a limiter that
    // waited too long would still show far below.
    assert!((17.0..=21.0).contains(&rate), "{rate:.2} documents per second");
}

#[tokio::test]
async fn onboarding_returns_the_id_or_says_what_to_do() {
    let server = start("b25i/+==").await;
    let s = settings(&server.base_url);
    let request = |otp: &str, device: &str| OnboardingRequest {
        otp: Secret::new(otp),
        vat_number: VAT.into(),
        device_id: device.into(),
        invoice_type: invoicedrop::model::DeviceType::Both,
        org_name: "Org".into(),
        org_unit: "Riyadh".into(),
        business_category: "IT".into(),
        registered_address: "Street 1".into(),
        country_code: "SA".into(),
        email_id: "a@b.sa".into(),
    };
    let ok = onboard(&s, request("123456", "dev-1")).await.unwrap();
    assert_eq!(ok.onboard_id, "b25i/+==");
    let otp = onboard(&s, request("000000", "dev-1")).await.unwrap_err().to_string();
    assert!(otp.contains("OTP") && otp.contains("400"), "{otp}");
    let dup = onboard(&s, request("123456", "taken")).await.unwrap_err().to_string();
    assert!(
        dup.contains("already onboarded") && dup.contains("INVOICEDROP_ONBOARD_ID"),
        "{dup}"
    );
}

/// Throughput of the client side alone (the fake does no XML or signing). Run with
/// `cargo test --test submit_client throughput -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn throughput_against_the_fake() {
    let dir = tempfile::tempdir().unwrap();
    for concurrency in [8, 32, 64, 128] {
        let server = start(ID).await;
        let mut s = settings(&server.base_url);
        s.concurrency = concurrency;
        let ledger = Ledger::open(&dir.path().join(concurrency.to_string())).unwrap();
        let sub = Submitter::connect(s, ID.into(), ledger).await.unwrap();
        let batch = docs(&format!("TP{concurrency}"), 3000);
        let started = std::time::Instant::now();
        let outcomes = sub.submit_all(batch, |_| {}).await.unwrap();
        let elapsed = started.elapsed();
        assert!(outcomes.iter().all(Outcome::is_accepted));
        eprintln!(
            "concurrency {concurrency}: 3000 documents in {elapsed:.2?} = {:.0}/s",
            3000.0 / elapsed.as_secs_f64()
        );
    }
}

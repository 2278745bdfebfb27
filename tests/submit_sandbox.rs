//! The submit client against the real sandbox (`invoicedrop::sandbox::start`): thousands of
//! documents through injected failures, dropped connections and short-lived tokens.

use invoicedrop::compute::compute_document;
use invoicedrop::model::{DeviceType, Document, OnboardingRequest, Secret, example};
use invoicedrop::sandbox::{self, SandboxConfig};
use invoicedrop::submit::{ApiSettings, Backoff, Ledger, Outcome, Outgoing, Submitter, onboard};
use std::collections::HashSet;
use std::time::{Duration, Instant};

fn settings(base: &str) -> ApiSettings {
    let mut s = ApiSettings::new(
        base,
        sandbox::DEFAULT_VAT_NUMBER,
        sandbox::DEFAULT_USERNAME,
        Secret::new(sandbox::DEFAULT_SECRET),
    );
    s.rate_per_second = None;
    s.concurrency = 16;
    s.max_attempts = 12;
    s.backoff = Backoff {
        min_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(500),
        give_up_after: Duration::from_secs(60),
    };
    s
}

async fn device(s: &ApiSettings) -> String {
    let request = OnboardingRequest {
        otp: Secret::new(sandbox::DEFAULT_OTP),
        vat_number: sandbox::DEFAULT_VAT_NUMBER.into(),
        device_id: "submit-tests".into(),
        invoice_type: DeviceType::Both,
        org_name: "Maximum Speed Tech Supply LTD".into(),
        org_unit: "Riyadh".into(),
        business_category: "IT".into(),
        registered_address: "Prince Sultan 2322, Riyadh".into(),
        country_code: "SA".into(),
        email_id: "it@example.sa".into(),
    };
    onboard(s, request).await.expect("onboarding").onboard_id
}

fn computed(mut d: Document) -> Document {
    compute_document(&mut d).expect("example documents compute");
    d
}

/// Invoices (standard and simplified), credit and debit notes, each with its own number.
fn batch(n: usize) -> Vec<Outgoing> {
    (0..n)
        .map(|i| {
            let number = format!("SBX-{i:05}");
            let document = computed(match i % 5 {
                0 => example::simplified_invoice(&number),
                1 => example::credit_note(&number, "SBX-00003"),
                2 => example::debit_note(&number, "SBX-00003"),
                _ => example::standard_invoice(&number),
            });
            Outgoing {
                document,
                tag: i as u64,
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_documents_through_faults_are_each_issued_once() {
    let handle = sandbox::start(SandboxConfig {
        port: 0,
        token_ttl: 2,
        fail_rate: 0.1,
        drop_rate: 0.05,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let s = settings(&handle.base_url());
    let onboard_id = device(&s).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = Submitter::connect(s, onboard_id.clone(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let docs = batch(2000);
    let started = Instant::now();
    let outcomes = sub.submit_all(docs, |_| {}).await.unwrap();
    let elapsed = started.elapsed();
    let not_accepted: Vec<&Outcome> = outcomes.iter().filter(|o| !o.is_accepted()).collect();
    assert!(
        not_accepted.is_empty(),
        "{:?}",
        &not_accepted[..not_accepted.len().min(3)]
    );

    let stats = handle.stats();
    let dev = stats.device(&onboard_id).unwrap();
    assert_eq!(dev.accepted, 2000, "each document accepted exactly once");
    assert!(stats.injected_failures > 0 && stats.dropped > 0, "{stats:?}");
    assert!(
        dev.replays >= stats.dropped,
        "every dropped answer was fetched again as a replay: {stats:?}"
    );
    let issued = handle.documents(&onboard_id).unwrap();
    let numbers: HashSet<&str> = issued.iter().map(|d| d.number.as_str()).collect();
    assert_eq!(numbers.len(), 2000);
    let uuids: HashSet<String> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Accepted { response, .. } => response.id.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(
        uuids.len(),
        2000,
        "one UUID per document: no repeat created a second one"
    );
    let ledger = sub.ledger().stats().unwrap();
    assert_eq!(ledger.accepted, 2000);
    eprintln!(
        "2000 documents in {elapsed:.2?} ({:.0}/s) through {} injected failures, {} dropped answers, {} replays",
        2000.0 / elapsed.as_secs_f64(),
        stats.injected_failures,
        stats.dropped,
        dev.replays
    );

    // A rerun sends nothing.
    let again = sub.submit_all(batch(2000), |_| {}).await.unwrap();
    assert!(
        again
            .iter()
            .all(|o| matches!(o, Outcome::Accepted { from_ledger: true, .. }))
    );
    assert_eq!(handle.stats().device(&onboard_id).unwrap().accepted, 2000);
    handle.shutdown().await;
}

/// A document whose request is over the sandbox's 1 MiB (sent as is, without the checks that
/// say so first): rejected with a `BODY-TOO-LARGE` that says what it means and what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_rejected_saying_to_split_the_document() {
    let handle = sandbox::start(SandboxConfig {
        port: 0,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let s = settings(&handle.base_url());
    let onboard_id = device(&s).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = Submitter::connect(s, onboard_id.clone(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let mut big = example::standard_invoice("SBX-BIG");
    let line = big.invoice_lines[0].clone();
    big.invoice_lines = (1..=4000)
        .map(|i| {
            let mut l = line.clone();
            l.id = i.to_string();
            l
        })
        .collect();
    let big = computed(big);
    assert!(invoicedrop::validate::request_bytes(&big).unwrap() > invoicedrop::validate::MAX_REQUEST_BYTES);
    let outcomes = sub
        .submit_all(vec![Outgoing { document: big, tag: 0 }], |_| {})
        .await
        .unwrap();
    let Outcome::Rejected {
        http_status, response, ..
    } = &outcomes[0]
    else {
        panic!("{:?}", outcomes[0])
    };
    assert_eq!(*http_status, 413);
    let e = &response.errors.0[0];
    assert_eq!(e.code.as_deref(), Some("BODY-TOO-LARGE"));
    assert!(
        e.message.starts_with(
            "the API refused the request that sends this document as too large (HTTP 413: send at most 1048576 \
             bytes): the document has too many lines (or too long texts) for one request, so it is not issued. \
             Split it into several documents in the ERP"
        ),
        "{e:?}"
    );
    assert_eq!(handle.stats().device(&onboard_id).unwrap().accepted, 0);
    handle.shutdown().await;
}

/// Halted outcomes: (sent without a final answer, not sent); anything else fails.
fn halted(outcomes: &[Outcome]) -> (usize, usize) {
    let mut counts = (0, 0);
    for o in outcomes {
        match o {
            Outcome::Failed {
                halted: true, attempts, ..
            } if *attempts > 0 => counts.0 += 1,
            Outcome::Failed { halted: true, .. } => counts.1 += 1,
            other => panic!("not left by the halt: {other:?}"),
        }
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_halt_ends_the_probing_of_a_silent_api_at_once_and_leaves_the_rest_to_the_next_run() {
    // Every answer lost after the document is issued: unknown outcomes, then the breaker's
    // probes, spaced seconds apart, for minutes.
    let handle = sandbox::start(SandboxConfig {
        port: 0,
        drop_rate: 1.0,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let mut s = settings(&handle.base_url());
    s.concurrency = 4;
    s.backoff = Backoff {
        min_delay: Duration::from_millis(250),
        max_delay: Duration::from_secs(30),
        give_up_after: Duration::from_secs(300),
    };
    let onboard_id = device(&s).await;
    let dir = tempfile::tempdir().unwrap();
    let docs = || {
        (0..10)
            .map(|i| Outgoing {
                document: computed(example::simplified_invoice(&format!("HALT-{i:02}"))),
                tag: i,
            })
            .collect::<Vec<_>>()
    };
    let sub = Submitter::connect(s.clone(), onboard_id.clone(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let halt = sub.halt();
    let raised_at = std::sync::OnceLock::new();
    let sending = async {
        // Raised once the breaker probes (four answers lost side by side, their repeats, then
        // probes one at a time).
        let raise = async {
            while handle.stats().dropped < 9 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            halt.raise();
            raised_at.set(Instant::now()).unwrap();
        };
        let (outcomes, ()) = tokio::join!(sub.submit_all(docs(), |_| {}), raise);
        outcomes
    };
    let outcomes = tokio::time::timeout(Duration::from_secs(60), sending)
        .await
        .expect("the API probed, then the halt ended the run")
        .unwrap();
    let stopped_in = raised_at.get().unwrap().elapsed();
    // Its requests on the wire are answered at once (the connection closed): no wait at all.
    assert!(stopped_in < Duration::from_secs(10), "{stopped_in:?} after the halt");
    let issued = handle.stats().device(&onboard_id).unwrap().accepted as usize;
    assert_eq!(halted(&outcomes), (issued, 10 - issued), "{outcomes:?}");
    assert!(issued > 0 && issued < 10, "{issued}");
    let ledger = sub.ledger().clone();
    assert_eq!(ledger.unresolved(&onboard_id).unwrap().len(), issued, "still unknown");
    drop(sub);

    // A submitter halted before it starts sends nothing, not even what an earlier run left.
    let requests = |h: &sandbox::SandboxHandle| {
        let d = h.stats();
        let d = d.device(&onboard_id).unwrap();
        d.accepted + d.replays
    };
    let before = requests(&handle);
    let started = Instant::now();
    let sub = Submitter::connect(s.clone(), onboard_id.clone(), ledger.clone())
        .await
        .unwrap();
    sub.halt().raise();
    let resumed = sub.resume_unresolved(|_| {}).await.unwrap();
    let resumed: Vec<Outcome> = resumed.into_iter().map(|(_, o)| o).collect();
    assert_eq!(halted(&resumed), (issued, 0));
    assert_eq!(
        halted(&sub.submit_all(docs(), |_| {}).await.unwrap()),
        (issued, 10 - issued)
    );
    assert_eq!(requests(&handle), before, "nothing sent after the halt");
    assert!(started.elapsed() < Duration::from_secs(10), "no wait after the halt");
    drop(sub);

    // The API answers again: the next run settles each document once, with its key.
    let mut faults = handle.faults();
    faults.drop_rate = 0.0;
    handle.set_faults(faults).unwrap();
    let sub = Submitter::connect(s, onboard_id.clone(), ledger).await.unwrap();
    assert_eq!(sub.resume_unresolved(|_| {}).await.unwrap().len(), issued);
    let outcomes = sub.submit_all(docs(), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted), "{outcomes:?}");
    let stats = handle.stats();
    let dev = stats.device(&onboard_id).unwrap();
    assert_eq!((dev.accepted, dev.rekeyed_replays), (10, 0), "{stats:?}");
    handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sandbox_rate_limit_is_met_by_slowing_down() {
    let handle = sandbox::start(SandboxConfig {
        port: 0,
        rate: 40,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let mut s = settings(&handle.base_url());
    s.rate_per_second = Some(100);
    let onboard_id = device(&s).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = Submitter::connect(s, onboard_id.clone(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    let outcomes = sub.submit_all(batch(300), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted));
    let stats = handle.stats();
    assert_eq!(stats.device(&onboard_id).unwrap().accepted, 300);
    assert!(stats.rate_limited > 0, "the sandbox did push back: {stats:?}");
    eprintln!(
        "300 documents against a 40/s sandbox: {} answers 429",
        stats.rate_limited
    );
    handle.shutdown().await;
}

/// The end-to-end figure: `cargo test --release --test submit_sandbox throughput -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn throughput() {
    let handle = sandbox::start(SandboxConfig {
        port: 0,
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let base = settings(&handle.base_url());
    let onboard_id = device(&base).await;
    for concurrency in [8, 32, 64] {
        let mut s = base.clone();
        s.concurrency = concurrency;
        let dir = tempfile::tempdir().unwrap();
        let sub = Submitter::connect(s, onboard_id.clone(), Ledger::open(dir.path()).unwrap())
            .await
            .unwrap();
        let docs: Vec<Outgoing> = batch(5000)
            .into_iter()
            .map(|mut o| {
                o.document.number = format!("TP{concurrency}-{}", o.document.number);
                o
            })
            .collect();
        let started = Instant::now();
        let outcomes = sub.submit_all(docs, |_| {}).await.unwrap();
        let elapsed = started.elapsed();
        assert!(outcomes.iter().all(Outcome::is_accepted));
        eprintln!(
            "concurrency {concurrency}: 5000 documents in {elapsed:.2?} = {:.0}/s",
            5000.0 / elapsed.as_secs_f64()
        );
    }
    handle.shutdown().await;
}

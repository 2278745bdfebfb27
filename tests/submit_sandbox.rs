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

//! The sandbox authority alone: how many signed documents it answers per second.
//!
//! ```text
//! cargo run --release --example bench_sandbox -- [DOCS] [CLIENTS] [DEVICES] [--state DIR]
//! ```
//!
//! 1. `issue()` alone: the UBL XML, invoice hash, ECDSA signature and QR of a computed example
//!    document, on one thread, then on every core (rayon), no HTTP.
//! 2. The server: `sandbox::start` in-process on loopback (no rate limit, no faults), `CLIENTS`
//!    concurrent reqwest clients submitting `DOCS` computed example invoices (standard and
//!    simplified, each with its own number) to `DEVICES` onboarded devices (each device's hash
//!    chain is sequential, so one device is one queue). Every answer must be a 2xx carrying the
//!    signed XML. With `--state DIR` (a new or empty folder) the sandbox keeps its devices and
//!    journals there, as `invoicedrop run` does with its in-process sandbox: every accepted
//!    document is a synced journal line.
//!
//! Defaults: 20,000 documents, 32 clients, 4 devices. Prints `name ... docs/s` lines. Used by
//! `scripts/bench_sandbox.sh` (BENCHMARKS.md); a measurement, not a test.

use chrono::{FixedOffset, Timelike, Utc};
use invoicedrop::compute::compute_document;
use invoicedrop::model::{Document, example};
use invoicedrop::sandbox::identity::Identity;
use invoicedrop::sandbox::issue::{ChainPosition, GENESIS_PIH, issue};
use invoicedrop::sandbox::{self, SandboxConfig};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// A computed example document numbered `n`, issued an hour ago (inside the 24-hour window).
fn document(n: u64) -> Document {
    let number = format!("BENCH-{n:08}");
    let mut doc = if n.is_multiple_of(2) {
        example::standard_invoice(&number)
    } else {
        example::simplified_invoice(&number)
    };
    let riyadh = FixedOffset::east_opt(3 * 3600).expect("a valid offset");
    let t = (Utc::now() - chrono::Duration::hours(1)).with_timezone(&riyadh);
    doc.issue_date = t.date_naive();
    doc.actual_delivery_date = t.date_naive();
    doc.issue_time = t.time().with_nanosecond(0).unwrap_or(t.time());
    compute_document(&mut doc).expect("the example computes");
    doc
}

fn report(name: &str, docs: u64, took: Duration) {
    println!(
        "{name:<44} {docs:>7} docs {:>8.3} s {:>9.0} docs/s",
        took.as_secs_f64(),
        docs as f64 / took.as_secs_f64()
    );
}

fn issue_alone(docs: u64) -> Result<()> {
    let identity = Identity::load_or_create(None, sandbox::DEFAULT_VAT_NUMBER, "Bench Co")?;
    let prepared: Vec<Document> = (0..docs).map(document).collect();
    let time = Utc::now().naive_utc();
    // One thread, one chain: each document's PIH is the previous hash, as on one device.
    let start = Instant::now();
    let mut pih = GENESIS_PIH.to_string();
    for (i, doc) in prepared.iter().enumerate() {
        let chain = ChainPosition { icv: i as u64 + 1, pih };
        let issued = issue(doc, uuid::Uuid::new_v4(), &chain, &identity, time)?;
        pih = issued.invoice_hash;
    }
    report("issue() alone, 1 thread", docs, start.elapsed());
    // Every core: independent documents (as on several devices).
    let start = Instant::now();
    let failures = prepared
        .par_iter()
        .enumerate()
        .map(|(i, doc)| {
            let chain = ChainPosition {
                icv: i as u64 + 1,
                pih: GENESIS_PIH.to_string(),
            };
            issue(doc, uuid::Uuid::new_v4(), &chain, &identity, time).is_err()
        })
        .filter(|failed| *failed)
        .count();
    report(
        &format!("issue() alone, {} threads", rayon::current_num_threads()),
        docs,
        start.elapsed(),
    );
    if failures > 0 {
        return Err(format!("{failures} documents could not be issued").into());
    }
    Ok(())
}

async fn post(http: &reqwest::Client, url: &str, token: Option<&str>, body: &Value) -> Result<Value> {
    let mut req = http.post(url).json(body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await?;
    let status = r.status();
    let v: Value = r.json().await?;
    if !status.is_success() {
        return Err(format!("{url}: {status} {v}").into());
    }
    Ok(v)
}

async fn server(docs: u64, clients: u64, devices: u64, state: Option<PathBuf>) -> Result<()> {
    let journalled = state.is_some();
    let handle = sandbox::start(SandboxConfig {
        port: 0,
        state,
        ..SandboxConfig::default()
    })
    .await?;
    let base = handle.base_url();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(clients as usize)
        .build()?;
    let auth = json!({"vat_number": sandbox::DEFAULT_VAT_NUMBER, "username": sandbox::DEFAULT_USERNAME,
        "secret": sandbox::DEFAULT_SECRET});
    let token = post(&http, &format!("{base}/v1/e-invoicing/auth"), None, &auth).await?["token"]
        .as_str()
        .ok_or("no token")?
        .to_string();
    let mut urls = Vec::new();
    for d in 0..devices {
        let onboarding = json!({
            "otp": sandbox::DEFAULT_OTP, "vat_number": sandbox::DEFAULT_VAT_NUMBER,
            "device_id": format!("bench-device-{d}"), "invoice_type": "both",
            "org_name": "Bench Co", "org_unit": "Riyadh", "business_category": "IT",
            "registered_address": "2322 Prince Sultan, Riyadh", "country_code": "SA", "email_id": "it@example.sa"
        });
        let v = post(
            &http,
            &format!("{base}/v1/e-invoicing/onboardings"),
            Some(&token),
            &onboarding,
        )
        .await?;
        let id = v["onboard_id"].as_str().ok_or("no onboard_id")?.to_string();
        urls.push(format!("{base}/v1/e-invoicing/{id}/invoices"));
    }
    let urls = Arc::new(urls);
    let next = Arc::new(AtomicU64::new(0));
    let accepted = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (http, urls, next, accepted, token) = (
            http.clone(),
            urls.clone(),
            next.clone(),
            accepted.clone(),
            token.clone(),
        );
        tasks.push(tokio::spawn(async move {
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= docs {
                    return Ok::<(), Box<dyn std::error::Error + Send + Sync>>(());
                }
                let body = serde_json::to_value(document(n))?;
                let url = &urls[(n % urls.len() as u64) as usize];
                let v = post(&http, url, Some(&token), &body).await?;
                // A 2xx answer carrying the signed XML: issued.
                if !v["invoice"].is_string() {
                    return Err(format!("document {n}: {v}").into());
                }
                accepted.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        t.await??;
    }
    let took = start.elapsed();
    report(
        &format!(
            "sandbox over HTTP, {clients} clients, {devices} devices{}",
            if journalled { ", state" } else { "" }
        ),
        accepted.load(Ordering::Relaxed),
        took,
    );
    handle.shutdown().await;
    Ok(())
}

fn main() -> Result<()> {
    let mut state = None;
    let mut numbers = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--state" {
            state = Some(PathBuf::from(args.next().ok_or("--state needs a folder")?));
        } else {
            numbers.push(a.parse::<u64>()?);
        }
    }
    let arg = |i: usize, default: u64| numbers.get(i).copied().unwrap_or(default);
    let docs = arg(0, 20_000);
    let clients = arg(1, 32).max(1);
    let devices = arg(2, 4).max(1);
    issue_alone(docs.min(5_000))?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(server(docs, clients, devices, state))?;
    Ok(())
}

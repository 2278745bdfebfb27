//! Faults (D16, D19): 429 with Retry-After, injected 500/503, dropped connections, delays.

use super::common::*;
use invoicedrop::model::{DocumentKind, example};
use invoicedrop::sandbox::SandboxConfig;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

#[tokio::test]
async fn beyond_the_rate_the_answer_is_429_with_retry_after() {
    let s = start(SandboxConfig {
        rate: 1,
        ..SandboxConfig::default()
    })
    .await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    // One request per second passes; requests sent back to back soon meet a 429.
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for i in 0..100 {
        let doc = body(&ready(example::standard_invoice(&format!("R-{i}"))));
        let r = api.send(&token, &id, DocumentKind::Invoice, &doc, None).await;
        statuses.push(r.status());
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            let secs: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
            retry_after = Some(secs);
            let v: Value = r.json().await.unwrap();
            assert_eq!(v["status"], "Failure");
            break;
        }
    }
    assert_eq!(statuses[0], StatusCode::OK, "{statuses:?}");
    assert!(retry_after.is_some_and(|s| s >= 1), "{statuses:?}");
    assert_eq!(s.stats().rate_limited, 1);
    // Switched off at runtime.
    api.faults(json!({"rate": 0})).await;
    let doc = body(&ready(example::standard_invoice("R-x")));
    for _ in 0..5 {
        assert_eq!(
            api.send(&token, &id, DocumentKind::Invoice, &doc, None).await.status(),
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn injected_failures_answer_500_or_503_and_do_nothing() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    api.faults(json!({"fail_rate": 1.0})).await;
    let doc = ready(example::standard_invoice("F-1"));
    for _ in 0..6 {
        let (status, bytes) = api.submit(&token, &id, &doc, Some("k")).await;
        assert!(
            status == StatusCode::INTERNAL_SERVER_ERROR || status == StatusCode::SERVICE_UNAVAILABLE,
            "{status}"
        );
        assert_eq!(raw(&bytes)["status"], "Failure");
    }
    let stats = s.stats();
    assert_eq!((stats.injected_failures, stats.device(&id).unwrap().icv), (6, 0));
    // The repeat after the failures is issued once.
    api.faults(json!({"fail_rate": 0.0})).await;
    assert_eq!(api.submit(&token, &id, &doc, Some("k")).await.0, StatusCode::OK);
    assert_eq!(s.stats().device(&id).unwrap().accepted, 1);
    let bad = api.post("/sandbox/faults", None, &json!({"fail_rate": 2.0})).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_dropped_connection_leaves_the_document_accepted_and_the_repeat_gets_its_answer() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    api.faults(json!({"drop_rate": 1.0})).await;
    let doc = ready(example::standard_invoice("DROP-1"));
    let outcome = api
        .http
        .post(api.doc_url(&id, DocumentKind::Invoice))
        .bearer_auth(&token)
        .header("Idempotency-Key", "drop-key")
        .json(&body(&doc))
        .send()
        .await;
    let err = outcome.expect_err("no answer: the connection was dropped");
    assert!(!err.is_status() && !err.is_timeout(), "{err:?}");
    let stats = s.stats();
    assert_eq!((stats.dropped, stats.device(&id).unwrap().accepted), (1, 1));
    api.faults(json!({"drop_rate": 0.0})).await;
    let (status, bytes) = api.submit(&token, &id, &doc, Some("drop-key")).await;
    assert_eq!(status, StatusCode::OK);
    let r = parse(&bytes);
    assert_eq!(icv_pih(&xml_of(&r)).0, 1);
    assert_eq!(api.documents(&id).await[0].uuid, r.id.unwrap());
    let d = s.stats().device(&id).unwrap().clone();
    assert_eq!((d.accepted, d.replays), (1, 1));
}

#[tokio::test]
async fn the_delay_fault_slows_document_answers() {
    let s = start(SandboxConfig {
        delay_ms: 400,
        ..SandboxConfig::default()
    })
    .await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let started = Instant::now();
    let (status, _) = api
        .submit(&token, &id, &ready(example::standard_invoice("SLOW-1")), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(s.faults().delay_ms, 400);
}

//! Device state (D20): one unbroken chain under concurrency, a restart on a state folder, and a
//! replay whose journal line cannot be read back.

use super::common::*;
use invoicedrop::model::{DocumentKind, example};
use invoicedrop::sandbox::issue::GENESIS_PIH;
use invoicedrop::sandbox::{DocumentSummary, SandboxConfig};
use reqwest::StatusCode;
use std::collections::HashMap;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_documents_make_one_unbroken_chain() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..200 {
        let (http, url, token) = (api.http.clone(), api.doc_url(&id, DocumentKind::Invoice), token.clone());
        tasks.spawn(async move {
            let doc = ready(example::standard_invoice(&format!("C-{i:03}")));
            let r = http
                .post(url)
                .bearer_auth(token)
                .json(&body(&doc))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            parse(&r.bytes().await.unwrap())
        });
    }
    let mut chain: Vec<(u64, String, String)> = Vec::new();
    while let Some(r) = tasks.join_next().await {
        let r = r.unwrap();
        let (icv, pih) = icv_pih(&xml_of(&r));
        chain.push((icv, pih, r.id.unwrap()));
    }
    chain.sort();
    let hashes: HashMap<String, DocumentSummary> = api
        .documents(&id)
        .await
        .into_iter()
        .map(|d| (d.uuid.clone(), d))
        .collect();
    assert_eq!(hashes.len(), 200);
    let mut previous = GENESIS_PIH.to_string();
    for (n, (icv, pih, uuid)) in chain.iter().enumerate() {
        assert_eq!(*icv, n as u64 + 1, "ICVs run 1..=200 without gaps or repeats");
        assert_eq!(*pih, previous, "PIH of ICV {icv} is the hash of ICV {}", icv - 1);
        previous = hashes[uuid].invoice_hash.clone();
    }
    let d = s.stats().device(&id).unwrap().clone();
    assert_eq!((d.accepted, d.icv), (200, 200));
}

#[tokio::test]
async fn state_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = SandboxConfig {
        state: Some(dir.path().to_path_buf()),
        ..SandboxConfig::default()
    };
    let s = start(config.clone()).await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let kept = ready(example::standard_invoice("INV-1"));
    let (_, first) = api.submit(&token, &id, &kept, Some("k-1")).await;
    for n in 2..=3 {
        let (status, _) = api
            .submit(
                &token,
                &id,
                &ready(example::standard_invoice(&format!("INV-{n}"))),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let before = api.documents(&id).await;
    s.shutdown().await;

    let s = start(config).await;
    let api = Api::new(&s);
    let token = api.token().await;
    assert_eq!(s.stats().device(&id).unwrap().icv, 3);
    assert_eq!(api.documents(&id).await, before);
    let (status, again) = api.submit(&token, &id, &kept, Some("k-1")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again, first, "the replay after a restart is byte-identical");
    let (_, next) = api
        .submit(&token, &id, &ready(example::standard_invoice("INV-4")), None)
        .await;
    let (icv, pih) = icv_pih(&xml_of(&parse(&next)));
    assert_eq!((icv, pih), (4, before[2].invoice_hash.clone()));
    // The device is still onboarded.
    let r = api
        .post(
            "/v1/e-invoicing/onboardings",
            Some(&token),
            &Api::onboarding("till-1", "both"),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    s.shutdown().await;
}

#[tokio::test]
async fn a_replay_whose_journal_line_is_gone_is_a_500() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(SandboxConfig {
        state: Some(dir.path().to_path_buf()),
        ..SandboxConfig::default()
    })
    .await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let doc = ready(example::standard_invoice("INV-1"));
    let (status, first) = api.submit(&token, &id, &doc, None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, again) = api.submit(&token, &id, &doc, None).await;
    assert_eq!(
        (status, &again),
        (StatusCode::OK, &first),
        "the replay is read from the journal"
    );
    // The journal emptied under the running sandbox: the answer cannot be replayed, and it says so.
    let journal = dir.path().join("devices").join("1").join("journal.jsonl");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&journal)
        .unwrap()
        .set_len(0)
        .unwrap();
    let (status, bytes) = api.submit(&token, &id, &doc, None).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(codes(&raw(&bytes), "errors"), vec!["STATE-READ-FAILED"]);
    let d = s.stats().device(&id).unwrap().clone();
    assert_eq!((d.accepted, d.replays), (1, 1));
    s.shutdown().await;
}

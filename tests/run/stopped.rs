//! A run that stops for good in the middle of a batch (the API's secret changed under it: its
//! credentials are refused from then on): the documents the API accepted before the stop are
//! reported accepted, with their UUIDs, not `INV-RUN-STOPPED: not sent`; the others are
//! `failed` and the next run sends them.

use super::support::*;
use invoicedrop::model::Secret;
use invoicedrop::sandbox::{self, SandboxConfig};
use std::time::Duration;

/// A sandbox on `port` keeping its state in `state`, whose secret is `secret`: the same API
/// started again with its secret rotated.
fn restart(port: u16, state: &std::path::Path, secret: &str) -> (tokio::runtime::Runtime, sandbox::SandboxHandle) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut handle = None;
    // The port is free once the old server's runtime is gone; binding may need a few tries.
    wait_for(Duration::from_secs(20), "the sandbox restarts on its port", || {
        let config = SandboxConfig {
            bind: "127.0.0.1".into(),
            port,
            state: Some(state.to_path_buf()),
            secret: Secret::new(secret),
            ..SandboxConfig::default()
        };
        handle = rt.block_on(sandbox::start(config)).ok();
        handle.is_some()
    });
    (rt, handle.unwrap())
}

#[test]
fn documents_accepted_before_the_run_stopped_are_reported_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sbx = d.join("sbx");
    let server = Server::start(SandboxConfig {
        state: Some(sbx.clone()),
        ..SandboxConfig::default()
    });
    let env = server.env();
    let port: u16 = server.handle.base_url().rsplit(':').next().unwrap().parse().unwrap();
    onboard(d, &env);
    xero_export(&d.join("x.csv"), 60);
    // Ten documents a second: the run is still sending when the secret changes.
    let child = command(d, &env, &["--json", "run", "x.csv", "--rate", "10"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(Duration::from_secs(60), "5 documents accepted", || {
        server.accepted() >= 5
    });
    drop(server);
    let (_rt, _handle) = restart(port, &sbx, "a-rotated-secret-Kp4");
    let out = child.wait_with_output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "credentials refused: {said}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Five were accepted by the API: each is accepted here, or (its answer cut by the restart)
    // maybe issued, `INV-SUBMIT-UNKNOWN`, which the next run settles.
    let accepted = json["files"][0]["documents"]["accepted"].as_u64().unwrap();
    let unknown = json["codes"]["INV-SUBMIT-UNKNOWN"].as_u64().unwrap_or(0);
    assert!(accepted >= 1 && accepted + unknown >= 5, "{json}");
    let rows = results(&d.join("results/x.result.csv"));
    let ok: Vec<_> = rows.iter().filter(|r| r["result_status"] == "accepted").collect();
    assert_eq!(ok.len() as u64, accepted, "{said}");
    for r in &ok {
        assert!(!r["result_uuid"].is_empty() && r["result_attempts"] != "0", "{r:?}");
        assert!(!r["result_errors"].contains("INV-RUN-STOPPED"), "{r:?}");
    }
    assert!(
        rows.iter()
            .filter(|r| r["result_status"] != "accepted")
            .all(|r| r["result_status"] == "failed"),
        "{rows:?}"
    );
    assert!(ok.len() < rows.len(), "the run stopped before the end: {said}");
}

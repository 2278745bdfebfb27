//! Documents left without a final answer, told apart in one result file: sent and unanswered
//! (`INV-SUBMIT-UNKNOWN`: maybe issued; the next run repeats it with the same idempotency key)
//! and never sent (`INV-SUBMIT-NOT-SENT`: not issued; the next run sends it), through the real
//! binary and the sandbox losing every answer; the summary, `documents.csv`, `--json` and `report`
//! count both, and the next run issues each document once.

use super::support::*;
use invoicedrop::sandbox::{Faults, SandboxConfig};
use serde_json::Value;
use std::collections::BTreeSet;

/// The rows of `results/day.result.csv` whose errors start with `code`, by document number.
fn with_code(rows: &[std::collections::BTreeMap<String, String>], code: &str) -> BTreeSet<String> {
    rows.iter()
        .filter(|r| r["result_errors"].starts_with(&format!("{code}: ")))
        .map(|r| r["result_document"].clone())
        .collect()
}

#[test]
fn documents_never_sent_say_not_issued_apart_from_those_sent_without_an_answer_and_the_next_run_issues_each_once() {
    // Every document the sandbox issues has its answer lost.
    let server = Server::start(SandboxConfig {
        drop_rate: 1.0,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let n = 6;
    xero_export(&d.join("day.csv"), n);
    // One request at a time: the first document's answers are lost until the API is given up on
    // (a second of silence); the documents after it never leave.
    let quick = ["--concurrency", "1", "--give-up-after", "1", "--timeout", "2"];
    let o = run(d, &env, &[&["--json", "run", "day.csv"][..], &quick].concat());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(v["documents"]["failed"], n as u64, "{v}");

    let rows = results(&d.join("results/day.result.csv"));
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r["result_status"] == "failed"), "{rows:#?}");
    let device = onboard_id(&d.join(".invoicedrop"));
    let issued: BTreeSet<String> = server.issued(&device).into_iter().collect();
    let (unknown, not_sent) = (
        with_code(&rows, "INV-SUBMIT-UNKNOWN"),
        with_code(&rows, "INV-SUBMIT-NOT-SENT"),
    );
    // Maybe issued: here, issued by the authority with the answer lost. Not sent: not issued.
    assert!(!unknown.is_empty() && !not_sent.is_empty(), "{rows:#?}");
    assert_eq!(unknown, issued, "maybe issued = what reached the authority");
    assert_eq!(unknown.len() + not_sent.len(), n, "{rows:#?}");
    let row = rows.iter().find(|r| not_sent.contains(&r["result_document"])).unwrap();
    let says = &row["result_errors"];
    assert!(
        says.starts_with("INV-SUBMIT-NOT-SENT: not issued: nothing of it reached the API (the API at ")
            && says.contains("stopped answering")
            && says.contains("; the next run sends it; if the API stays down, check the network, INVOICEDROP_API_URL")
            && !says.contains("idempotency key"),
        "{says}"
    );
    assert_eq!(row["result_attempts"], "0");
    let row = rows.iter().find(|r| unknown.contains(&r["result_document"])).unwrap();
    assert!(
        row["result_errors"].contains("outcome unknown")
            && row["result_errors"].ends_with("the next run repeats it with the same idempotency key"),
        "{row:?}"
    );

    // documents.csv and the summary carry each code; `report` counts them and still reconciles.
    let docs = results(&d.join("results/day.documents.csv"));
    let coded = |code: &str| docs.iter().filter(|r| r["errors"] == code).count();
    assert_eq!(
        (coded("INV-SUBMIT-UNKNOWN"), coded("INV-SUBMIT-NOT-SENT")),
        (unknown.len(), not_sent.len()),
        "{docs:#?}"
    );
    let summary: Value = serde_json::from_slice(&std::fs::read(d.join("results/day.summary.json")).unwrap()).unwrap();
    for (code, count) in [
        ("INV-SUBMIT-UNKNOWN", unknown.len()),
        ("INV-SUBMIT-NOT-SENT", not_sent.len()),
    ] {
        assert_eq!(
            summary["rejections"][code]["documents"]["failed"], count as u64,
            "{summary}"
        );
    }
    let o = run(d, &env, &["--json", "report", "results"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(o.status.code(), Some(0), "{report}");
    assert_eq!(report["reconciled"], true, "{report}");
    assert_eq!(
        report["summary"]["rejections"]["INV-SUBMIT-NOT-SENT"]["documents"]["failed"],
        not_sent.len() as u64,
        "{report}"
    );

    // The API answers again: the next run repeats the maybe issued with their key and sends the
    // others, each issued once.
    server
        .handle
        .set_faults(Faults {
            drop_rate: 0.0,
            ..server.handle.faults()
        })
        .unwrap();
    let replays = device_count(&server.stats_json(), "replays");
    let o = run(d, &env, &["run", "day.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), n as u64, "each issued once: {stats}");
    assert_eq!(device_count(&stats, "rekeyed_replays"), 0, "{stats}");
    // Repeated: the ones that reached the authority; those not sent were new to it.
    assert_eq!(
        device_count(&stats, "replays") - replays,
        unknown.len() as u64,
        "{stats}"
    );
    let rows = results(&d.join("results/day.result.csv"));
    assert!(rows.iter().all(|r| r["result_status"] == "accepted"), "{rows:#?}");
}

//! Once the API stopped answering for `--give-up-after`, the rest of the run does not wait for it
//! again (QA13 #2): the documents of the later batches are `failed` at once, not sent, but for
//! a probe now and then; and the log says so in a line per batch, not one per document (QA13 #6).

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::time::{Duration, Instant};

/// Seconds of silence the run waits for.
const PATIENCE: u64 = 6;

#[test]
fn after_giving_up_the_later_batches_of_the_run_fail_at_once_without_waiting_again() {
    // Every document request is answered 503: the API does not answer.
    let server = Server::start(SandboxConfig {
        fail_rate: 1.0,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    // Four batches of (at most) 1,000 documents.
    let n = 3_500;
    xero_export(&d.join("day.csv"), n);
    let patience = PATIENCE.to_string();
    let started = Instant::now();
    let o = run(
        d,
        &env,
        &[
            "--json",
            "run",
            "day.csv",
            "--give-up-after",
            &patience,
            "--timeout",
            "2",
            "--concurrency",
            "2",
        ],
    );
    let took = started.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(v["documents"]["failed"], n as u64, "{v}");
    // Each batch waiting `--give-up-after` again would take four times that at least; the rest
    // is reading and writing, slow on a loaded machine.
    assert!(
        took < Duration::from_secs(4 * PATIENCE - 2),
        "given up once, the later batches wait again: {took:?}"
    );
    let rows = results(&d.join("results/day.result.csv"));
    assert_eq!(rows.len(), n);
    let later = &rows[1_000..];
    let not_sent = later
        .iter()
        .filter(|r| r["result_errors"].starts_with("INV-SUBMIT-NOT-SENT: ") && r["result_attempts"] == "0")
        .count();
    // A probe per batch at most, when one is due: the others were not sent.
    assert!(not_sent >= later.len() - 3, "{not_sent} of {}", later.len());

    // One warning per batch at most, none per document (the result file has each one's reason).
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("no final answer kind="), "{stderr}");
    let warnings = stderr.lines().filter(|l| l.contains(" WARN ")).count();
    assert!(warnings <= 6, "{warnings} warnings: {stderr}");
    assert!(
        stderr.contains("without a final answer") && stderr.contains("not sent"),
        "{stderr}"
    );
}

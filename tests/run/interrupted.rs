//! `run` interrupted by SIGTERM or SIGINT (cron's `timeout`, a shutdown, Ctrl-C): nothing more
//! is sent, every row still gets its status, `--json` still prints its one document (error
//! kind `interrupted`, exit 2), and the next run sends the rest, nothing twice.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::time::Duration;

/// `run` started, then sent `signal` (`-TERM`, `-INT`) once the sandbox has accepted `accepted`
/// documents in all: its output.
#[cfg(unix)]
fn interrupted(server: &Server, accepted: u64, mut run: std::process::Command, signal: &str) -> std::process::Output {
    let child = run
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(Duration::from_secs(60), "documents accepted", || {
        server.accepted() >= accepted
    });
    let killed = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_writes_its_results_and_json_and_the_next_run_sends_the_rest() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    xero_export(&d.join("x.csv"), 60);
    for signal in ["-TERM", "-INT"] {
        let before = server.accepted();
        let out = interrupted(
            &server,
            before + 3,
            command(d, &env, &["--json", "run", "x.csv", "--rate", "10"]),
            signal,
        );
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{said}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {said}"));
        assert_eq!(json["error"]["kind"], "interrupted", "{json}");
        assert_eq!(json["exit_code"], 2);
        let sig = if signal == "-TERM" { "SIGTERM" } else { "SIGINT" };
        assert!(
            said.contains(&format!("interrupted ({sig}): nothing more is sent")),
            "{said}"
        );
        let rows = results(&d.join("results/x.result.csv"));
        assert_eq!(rows.len(), 60, "every row has its status");
        let interrupted = rows
            .iter()
            .filter(|r| r["result_errors"].starts_with("INV-RUN-INTERRUPTED: not sent"))
            .count();
        assert!(interrupted > 0, "{rows:?}");
        assert!(
            rows.iter().all(|r| r["result_status"] == "accepted"
                || r["result_errors"].starts_with("INV-RUN-INTERRUPTED")
                || r["result_errors"].starts_with("INV-SUBMIT-UNKNOWN")),
            "{rows:?}"
        );
    }
    // The next run sends the rest; nothing is issued twice.
    let o = run(d, &env, &["run", "x.csv", "--rate", "unlimited"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 60);
    assert_eq!(device_count(&server.stats_json(), "rekeyed_replays"), 0);
}

#[cfg(unix)]
#[test]
fn the_documents_an_interrupted_run_did_not_reach_are_reported_as_the_ledger_holds_them() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    // b.csv issued whole in an earlier run.
    xero_export(&d.join("b.csv"), 10);
    let b = std::fs::read_to_string(d.join("b.csv"))
        .unwrap()
        .replace(",T-0", ",B-0");
    std::fs::write(d.join("b.csv"), b).unwrap();
    let o = run(d, &env, &["run", "b.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 10);
    // Tonight's a.csv, then b.csv again, into a new results folder: interrupted while a.csv is
    // being sent, before b.csv is reached.
    xero_export(&d.join("a.csv"), 40);
    let out = interrupted(
        &server,
        13,
        command(
            d,
            &env,
            &["--json", "run", "a.csv", "b.csv", "--rate", "2", "--results", "again"],
        ),
        "-INT",
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    // b.csv's documents are issued (by the earlier run): said so, with their UUIDs, not "not sent".
    let rows = results(&d.join("again/b.result.csv"));
    assert_eq!(rows.len(), 10);
    assert!(
        rows.iter()
            .all(|r| r["result_status"] == "accepted" && !r["result_uuid"].is_empty() && r["result_errors"].is_empty()),
        "{rows:?}"
    );
    let docs = std::fs::read_to_string(d.join("again/b.documents.csv")).unwrap();
    assert!(!docs.contains("INV-RUN-INTERRUPTED"), "{docs}");
    // a.csv's documents not reached are not sent, and say so.
    let rows = results(&d.join("again/a.result.csv"));
    assert!(
        rows.iter()
            .any(|r| r["result_errors"].starts_with("INV-RUN-INTERRUPTED: not sent")),
        "{rows:?}"
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {said}"));
    assert_eq!(json["error"]["kind"], "interrupted", "{json}");
}

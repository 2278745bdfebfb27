//! Documents whose answers were lost (the authority issued them, the watcher never heard) are
//! settled by the running watcher once the API answers again: repeated with their original
//! idempotency key, never another, and the results of their file written again from the ledger,
//! without a restart and without the file being dropped again (QA9 #5).

use super::support::*;
use super::*;

/// `in/results/X.documents.csv`, as (document, type, status, errors) per document.
fn documents(d: &Path, set: &str) -> Vec<(String, String, String, String)> {
    results(&d.join(format!("in/results/{set}.documents.csv")))
        .into_iter()
        .map(|r| {
            (
                r["document"].clone(),
                r["type"].clone(),
                r["status"].clone(),
                r["errors"].clone(),
            )
        })
        .collect()
}

/// The API given up on after a second of silence, not five minutes.
const QUICK: [&str; 4] = ["--give-up-after", "1", "--timeout", "2"];

/// Every answer lost after the sandbox issued the document; a watcher running on `in/`; two
/// standard (B2B, their buyers in customers.csv) and two simplified invoices dropped as `a.csv`
/// and done, all four issued by the authority and none answered.
fn lost_answers() -> (Server, Vec<(&'static str, String)>, tempfile::TempDir, Watch) {
    let (server, env, dir) = setup(SandboxConfig {
        drop_rate: 1.0,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let o = run(
        d,
        &env,
        &[
            "generate",
            "--layout",
            "xero",
            "--rows",
            "12",
            "--seed",
            "51",
            "--out",
            "gen/a.csv",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    std::fs::create_dir_all(d.join("in")).unwrap();
    std::fs::copy(d.join("gen/customers.csv"), d.join("in/customers.csv")).unwrap();
    let w = Watch::start(d, &env, &QUICK);
    std::fs::copy(d.join("gen/a.csv"), d.join("in/a.csv.part")).unwrap();
    std::fs::rename(d.join("in/a.csv.part"), d.join("in/a.csv")).unwrap();
    wait_for(LIMIT, "a.csv in done/", || d.join("in/done/a.csv").exists());
    assert_eq!(server.accepted(), 4, "the authority issued all four");
    wait_for(LIMIT, "the four in status.json `unanswered`", || {
        status_of(d)["unanswered"].as_array().is_some_and(|u| u.len() == 4)
    });
    (server, env, dir, w)
}

/// The API answers again: no answer is dropped any more.
pub(super) fn answer_again(server: &Server) {
    let faults = server.handle.faults();
    server
        .handle
        .set_faults(invoicedrop::sandbox::Faults {
            drop_rate: 0.0,
            ..faults
        })
        .unwrap();
}

/// Accepted once each, never under another key; `a.csv`'s result set says so, and `report`.
fn settled_once(server: &Server, env: &[(&str, String)], d: &Path) {
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), 4, "exactly once: {stats}");
    assert_eq!(device_count(&stats, "rekeyed_replays"), 0, "never another key: {stats}");
    assert!(device_count(&stats, "replays") >= 4, "repeated with their key: {stats}");
    let rows = results(&d.join("in/results/a.result.csv"));
    all_accepted(&d.join("in/results/a.result.csv"), rows.len());
    let after = documents(d, "a");
    assert!(after.iter().all(|r| r.2 == "accepted" && r.3.is_empty()), "{after:?}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("in/results/a.summary.json")).unwrap()).unwrap();
    assert_eq!(summary["by_status"]["accepted"]["documents"], 4, "{summary}");
    assert!(summary["by_status"]["failed"].is_null(), "{summary}");
    let o = run(d, env, &["--json", "report", "in/results"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        report["sets"].as_array().unwrap().len(),
        1,
        "one set, written again in place"
    );
    assert_eq!(report["summary"]["by_status"]["accepted"]["documents"], 4, "{report}");
    assert!(report["summary"]["by_status"]["failed"].is_null(), "{report}");
    assert_eq!(report["reconciled"], true, "{report}");
    // Nothing dropped again.
    assert_eq!(names(&d.join("in/done")), ["a.csv"]);
}

#[test]
fn answers_lost_until_the_api_recovers_are_settled_by_the_running_watcher_and_its_results_written_again() {
    let (server, env, dir, w) = lost_answers();
    let d = dir.path();
    // Each `failed`, saying what the watcher does (there is no next run in a watcher).
    let before = documents(d, "a");
    assert_eq!(before.len(), 4, "{before:?}");
    assert!(
        before.iter().any(|r| r.1 == "standard") && before.iter().any(|r| r.1 == "simplified"),
        "{before:?}"
    );
    let rows = results(&d.join("in/results/a.result.csv"));
    for r in &rows {
        assert_eq!(r["result_status"], "failed", "{r:?}");
        let errors = &r["result_errors"];
        assert!(
            errors.contains("INV-SUBMIT-UNKNOWN")
                && errors.contains("the watcher repeats it with the same idempotency key once the API answers again")
                && !errors.contains("next run"),
            "{errors}"
        );
    }
    // status.json lists every one of them, the standard ones too, with its state and file.
    let status = status_of(d);
    for u in status["unanswered"].as_array().unwrap() {
        assert_eq!(
            (u["state"].as_str(), u["file"].as_str()),
            (Some("unknown"), Some("a.csv")),
            "{u}"
        );
    }
    let standard: Vec<&str> = status["unanswered"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["invoice_type"] == "standard")
        .map(|u| u["number"].as_str().unwrap())
        .collect();
    assert_eq!(standard.len(), 2, "{status}");

    // While the API stays silent, a look is one request (the oldest document alone), and the
    // looks come further apart.
    let dropped = || count(&server.stats_json(), "dropped");
    let before = dropped();
    wait_for(LIMIT, "a look while the API is silent", || dropped() > before);
    assert_eq!(dropped(), before + 1, "one request per look");
    // The API answers again: without a restart and without the file dropped again.
    answer_again(&server);
    wait_for(LIMIT, "status.json `unanswered` empty", || {
        status_of(d)["unanswered"].as_array().is_some_and(Vec::is_empty)
    });
    wait_for(LIMIT, "the results written again", || {
        w.log().contains("a.csv: results written again from the ledger")
    });
    settled_once(&server, &env, d);
    assert!(w.log().contains("have one now"), "{}", w.log());
    assert_eq!(status_of(d)["state"], "watching");
}

#[test]
fn a_watcher_killed_before_the_api_recovered_writes_the_results_again_once_restarted() {
    let (server, env, dir, w) = lost_answers();
    let d = dir.path();
    // SIGKILL: status.json keeps what was followed.
    drop(w);
    answer_again(&server);
    let w = Watch::start(d, &env, &QUICK);
    wait_for(LIMIT, "the results written again", || {
        w.log().contains("a.csv: results written again from the ledger")
    });
    settled_once(&server, &env, d);
    wait_for(LIMIT, "status.json `unanswered` empty", || {
        status_of(d)["unanswered"].as_array().is_some_and(Vec::is_empty)
    });
}

#[test]
fn documents_never_sent_are_listed_as_not_sent_apart_from_the_unanswered_and_the_watcher_issues_each_once() {
    let (server, env, dir) = setup(SandboxConfig {
        drop_rate: 1.0,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let n = 5;
    // One request at a time: the first document's answers are lost until the API is given up on;
    // the documents after it never leave.
    let w = Watch::start(d, &env, &[&QUICK[..], &["--concurrency", "1"]].concat());
    std::fs::write(d.join("in/b.csv.part"), export(n, "B")).unwrap();
    std::fs::rename(d.join("in/b.csv.part"), d.join("in/b.csv")).unwrap();
    wait_for(LIMIT, "b.csv in done/", || d.join("in/done/b.csv").exists());
    let rows = results(&d.join("in/results/b.result.csv"));
    assert_eq!(rows.len(), n);
    let with = |code: &str| -> Vec<String> {
        let mut v: Vec<String> = rows
            .iter()
            .filter(|r| r["result_errors"].starts_with(&format!("{code}: ")))
            .map(|r| r["result_document"].clone())
            .collect();
        v.sort();
        v
    };
    let (unknown, not_sent) = (with("INV-SUBMIT-UNKNOWN"), with("INV-SUBMIT-NOT-SENT"));
    assert!(!unknown.is_empty() && !not_sent.is_empty(), "{rows:#?}");
    assert_eq!(unknown.len() + not_sent.len(), n, "{rows:#?}");
    assert_eq!(server.accepted(), unknown.len() as u64, "only those sent are issued");
    let says = rows
        .iter()
        .find(|r| r["result_errors"].starts_with("INV-SUBMIT-NOT-SENT: "))
        .map(|r| r["result_errors"].clone())
        .unwrap();
    assert!(
        says.starts_with("INV-SUBMIT-NOT-SENT: not issued: nothing of it reached the API")
            && says.contains(
                "the watcher sends it once the API answers again (status.json lists it under `not_sent` until then)"
            )
            && says.contains("if the API stays down")
            && !says.contains("next run"),
        "{says}"
    );
    // status.json (written once the file is in done/): the maybe issued under `unanswered`, the
    // others under `not_sent`, each with its ledger state and file.
    let listed = |status: &serde_json::Value, list: &str, state: &str| -> Vec<String> {
        let all = status[list].as_array().cloned().unwrap_or_default();
        let mut v: Vec<String> = all
            .iter()
            .filter(|u| u["state"] == state && u["file"] == "b.csv")
            .map(|u| u["number"].as_str().unwrap_or_default().to_string())
            .collect();
        v.sort();
        v
    };
    wait_for(LIMIT, "b.csv's documents in status.json", || {
        let status = status_of(d);
        listed(&status, "unanswered", "unknown") == unknown && listed(&status, "not_sent", "pending") == not_sent
    });
    let status = status_of(d);
    let length = |list: &str| status[list].as_array().map_or(0, Vec::len);
    assert_eq!(
        (length("unanswered"), length("not_sent")),
        (unknown.len(), not_sent.len()),
        "{status:#}"
    );
    assert!(w.log().contains("document(s) not sent (not issued"), "{}", w.log());

    // The API answers again: the watcher repeats the one sent (its key) and sends the others,
    // each issued once, and writes b.csv's results again.
    answer_again(&server);
    wait_for(LIMIT, "b.csv's results written again", || {
        w.log().contains("b.csv: results written again from the ledger")
    });
    wait_for(LIMIT, "status.json `unanswered` and `not_sent` empty", || {
        let s = status_of(d);
        s["unanswered"].as_array().is_some_and(Vec::is_empty) && s["not_sent"].as_array().is_some_and(Vec::is_empty)
    });
    all_accepted(&d.join("in/results/b.result.csv"), n);
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), n as u64, "exactly once: {stats}");
    assert_eq!(device_count(&stats, "rekeyed_replays"), 0, "{stats}");
}

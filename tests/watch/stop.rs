//! SIGTERM while the API does not answer (QA9 #4): the watcher stops waiting for it at once
//! (no more backoff or probing), exits 0 with its results written, and a restart once the API
//! answers again issues every document exactly once.

use super::support::*;
use super::*;
use std::time::Instant;

/// Far below the breaker's five minutes of probing, and below the README unit's TimeoutStopSec.
const STOP_LIMIT: Duration = Duration::from_secs(30);

#[test]
fn sigterm_while_the_api_does_not_answer_exits_at_once_and_a_restart_issues_each_document_once() {
    // Every document is issued, then its answer is lost: the outcomes are unknown, and after
    // five of them in a row the watcher probes the API one request at a time.
    let (server, env, dir) = setup(SandboxConfig {
        drop_rate: 1.0,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let n = 12;
    // Four requests side by side: four answers lost, then their repeats until the breaker
    // opens (five in a row), then its probes, one at a time: nine lost answers mean it probes.
    let mut w = Watch::start(d, &env, &["--timeout", "2", "--concurrency", "4"]);
    std::fs::write(d.join("in/down.csv"), export(n, "D")).unwrap();
    wait_for(LIMIT, "the API probed after answers were lost", || {
        server.handle.stats().dropped >= 9
    });
    w.signal("-TERM");
    let signalled = Instant::now();
    let mut code = None;
    let exited_in_time = wait_until(STOP_LIMIT, || match w.child.try_wait().unwrap() {
        Some(s) => {
            code = Some(s.code());
            true
        }
        None => false,
    });
    assert!(
        exited_in_time,
        "still running {} s after SIGTERM; status.json: {}; log: {}",
        signalled.elapsed().as_secs(),
        status_of(d),
        w.log()
    );
    assert_eq!(code.flatten(), Some(0), "{}", w.log());
    let status = status_of(d);
    assert_eq!(status["state"], "stopped", "{status:#}");
    assert_eq!(status["last_file"]["outcome"], "interrupted", "{status:#}");
    assert!(d.join("in/.processing/down.csv").exists(), "left for the next start");
    assert!(!d.join("in/done/down.csv").exists());
    assert!(w.log().contains("interrupted"), "{}", w.log());

    // Every row says why it is not settled: issued by the sandbox with the answer lost
    // (unknown, repeated by the next start with its key), or not sent at all.
    let issued = server.accepted() as usize;
    assert!(issued > 0 && issued < n, "{issued} of {n} sent: nothing to test");
    let rows = results(&d.join("in/results/down.result.csv"));
    assert_eq!(rows.len(), n, "a complete result file");
    assert!(rows.iter().all(|r| r["result_status"] == "failed"), "{rows:?}");
    let with = |code: &str| rows.iter().filter(|r| r["result_errors"].starts_with(code)).count();
    let (unknown, stopped) = (with("INV-SUBMIT-UNKNOWN:"), with("INV-WATCH-STOPPED:"));
    assert_eq!((unknown, stopped), (issued, n - issued), "{rows:#?}");
    let unknown_row = rows
        .iter()
        .find(|r| r["result_errors"].starts_with("INV-SUBMIT-UNKNOWN:"))
        .unwrap();
    assert!(
        unknown_row["result_errors"].contains("not repeated: asked to stop (the watch got SIGTERM or SIGINT)")
            && unknown_row["result_errors"].contains("the next start repeats it with the same idempotency key"),
        "{unknown_row:?}"
    );
    // The ledger still holds them sent without an answer.
    let device = onboard_id(&d.join(".invoicedrop"));
    let ledger = invoicedrop::submit::Ledger::open(&d.join(".invoicedrop")).unwrap();
    let unresolved = ledger.unresolved(&device).unwrap();
    assert_eq!(unresolved.len(), issued, "{unresolved:?}");
    drop(ledger);

    // The API answers again: a restart repeats the documents left without an answer, then
    // finishes the file.
    super::unknown::answer_again(&server);
    let _w = Watch::start(d, &env, &["--timeout", "2"]);
    wait_for(LIMIT, "down.csv in done/", || d.join("in/done/down.csv").exists());
    all_accepted(&d.join("in/results/down.result.csv"), n);
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), n as u64, "each issued once: {stats}");
    assert_eq!(device_count(&stats, "rekeyed_replays"), 0, "{stats}");
    assert!(device_count(&stats, "replays") >= issued as u64, "{stats}");
}

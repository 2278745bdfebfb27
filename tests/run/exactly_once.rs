//! Exactly once through everything (D16, D17, D19): 10,000 documents through injected failures,
//! dropped answers, the sandbox's rate limit and expiring tokens; and runs killed with SIGKILL,
//! then rerun. The sandbox must have accepted each document once, and never seen one again under
//! another idempotency key.

use super::support::*;
use invoicedrop::sandbox::{Faults, SandboxConfig};
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn ten_thousand_documents_through_faults_rate_limits_and_expiring_tokens_are_each_accepted_exactly_once() {
    let server = Server::start(SandboxConfig {
        fail_rate: 0.1,
        drop_rate: 0.05,
        token_ttl: 5,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let n = 10_000;
    xero_export(&dir.path().join("backlog.csv"), n);
    let spawned = Instant::now();
    // The client's own limit is far above what it reaches: the sandbox's limit is the one that
    // binds.
    let mut child = command(
        dir.path(),
        &env,
        &["run", "backlog.csv", "--rate", "2000", "--concurrency", "16"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // The pace the client reaches without a limit, measured once it is under way.
    wait_for(LIMIT, "a first part accepted", || {
        server.accepted() >= 300 || exited(&mut child)
    });
    let (start, before) = (Instant::now(), server.accepted());
    wait_for(LIMIT, "a pace measured", || {
        server.accepted() >= before + 1_000 || exited(&mut child)
    });
    assert!(!exited(&mut child), "the run ended early");
    let pace = (server.accepted() - before) as f64 / start.elapsed().as_secs_f64();
    // The sandbox's rate limit (429 + Retry-After), kept near the client's pace to the end so
    // that it binds again and again (the client halves its rate on a 429, then climbs back)
    // without holding the run far below its pace: each window without a 429 lowers it a tenth
    // (the pace measured was too high, or the machine got busier), each window with one raises
    // it a twentieth.
    let mut rate = ((pace * 0.8) as u32).max(1);
    let (mut rates, mut windows, mut windows_limited) = (Vec::new(), 0, 0);
    let mut tokens_invalidated = false;
    while !exited(&mut child) {
        if spawned.elapsed() > 3 * LIMIT {
            let _ = child.kill();
            panic!("the run takes too long (sandbox rates {rates:?})");
        }
        rates.push(rate);
        server
            .handle
            .set_faults(Faults {
                rate,
                ..server.handle.faults()
            })
            .unwrap();
        let seen = server.handle.stats().rate_limited;
        let ended = wait_until(Duration::from_secs(10), || exited(&mut child));
        if !ended {
            windows += 1;
        }
        if server.handle.stats().rate_limited > seen {
            windows_limited += 1;
            rate += (rate / 20).max(1);
        } else {
            rate = (rate * 9 / 10).max(1);
        }
        // Under the limit, every token becomes invalid: the client must re-authenticate once
        // and repeat.
        if windows_limited > 0 && !tokens_invalidated && !exited(&mut child) {
            server.handle.advance_clock(2 * 3600);
            tokens_invalidated = true;
        }
    }
    assert!(
        tokens_invalidated,
        "the run ended before the rate limit bound (sandbox rates {rates:?})"
    );
    let o = child.wait_with_output().unwrap();
    let took = spawned.elapsed();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rows = results(&dir.path().join("results/backlog.result.csv"));
    assert_eq!(rows.len(), n);
    let not_accepted: Vec<&BTreeMap<String, String>> =
        rows.iter().filter(|r| r["result_status"] != "accepted").collect();
    assert!(not_accepted.is_empty(), "not all accepted: {:?}", not_accepted.first());
    // What the sandbox's test API shows.
    let stats = server.stats_json();
    let limited = count(&stats, "rate_limited");
    let (dropped, failures) = (count(&stats, "dropped"), count(&stats, "injected_failures"));
    eprintln!(
        "pace {pace:.0}/s, sandbox rate {rates:?}, 429s in {windows_limited} of {windows} windows of \
         10 s, {limited} answers 429, {failures} failures, {dropped} dropped; the run took {:.0} s",
        took.as_secs_f64()
    );
    assert!(limited > 0, "the rate limit applied: {stats}");
    assert_eq!(
        device_count(&stats, "accepted"),
        n as u64,
        "the sandbox accepted each document exactly once"
    );
    assert_eq!(device_count(&stats, "icv"), n as u64);
    assert!(dropped > 0 && failures > 0, "faults happened: {stats}");
    assert!(
        device_count(&stats, "replays") >= dropped,
        "each dropped answer was repeated as a replay: {stats}"
    );
    assert_eq!(
        device_count(&stats, "rekeyed_replays"),
        0,
        "no document was re-sent with a new idempotency key: {stats}"
    );
    // The UUID in each row is the one the sandbox issued: no document got a second identity.
    let issued = issued_uuids(&server, &stats);
    assert_eq!(issued.len(), n);
    for r in &rows {
        assert_eq!(issued.get(&r["result_document"]), Some(&r["result_uuid"]));
    }
}

#[test]
fn killed_at_random_moments_then_rerun_gives_the_same_final_results() {
    let server = Server::start(SandboxConfig {
        fail_rate: 0.05,
        drop_rate: 0.05,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let n = 1_200u64;
    xero_export(&dir.path().join("batch.csv"), n as usize);
    // Kill points spread over the run; the seed makes them differ between test runs.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    // The same flags for every run (without `--rate`, a run against an API URL sends 5/s).
    let args = ["run", "batch.csv", "--concurrency", "8", "--rate", "400"];
    let mut kills = Vec::new();
    for k in 0..3u64 {
        // Each kill lands while this run is sending: after it got documents accepted, well
        // before the last one.
        let base = server.accepted();
        let point = (k * 350 + 50 + (seed.wrapping_mul(k + 7) % 300)).clamp(base + 20, n - 100);
        let log = dir.path().join(format!("run-{k}.log"));
        let mut child = command(dir.path(), &env, &args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        wait_for(LIMIT, "documents accepted before the kill", || {
            server.accepted() >= point || exited(&mut child)
        });
        let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            matches!(child.try_wait(), Ok(None)),
            "run {k} exited before its kill at {point} accepted (kills {kills:?}): {}",
            log_text()
        );
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "run {k} died of the SIGKILL: {status:?}");
        let accepted = server.accepted();
        assert!(accepted < n, "kill {k} came too late to test anything");
        kills.push((point, accepted));
    }
    let o = run(dir.path(), &env, &args);
    assert_eq!(o.status.code(), Some(0), "kills at {kills:?}: {}", text(&o));
    let rows = results(&dir.path().join("results/batch.result.csv"));
    assert_eq!(rows.len(), n as usize, "complete result file");
    let stats = server.stats_json();
    assert_eq!(
        device_count(&stats, "accepted"),
        n,
        "no duplicate acceptance (kills at {kills:?})"
    );
    assert_eq!(
        device_count(&stats, "rekeyed_replays"),
        0,
        "after a kill, documents are repeated with their original idempotency key: {stats}"
    );
    let issued = issued_uuids(&server, &stats);
    let numbers: BTreeSet<&String> = rows.iter().map(|r| &r["result_document"]).collect();
    assert_eq!(numbers.len(), n as usize);
    for r in &rows {
        assert_eq!(r["result_status"], "accepted");
        assert_eq!(
            issued.get(&r["result_document"]),
            Some(&r["result_uuid"]),
            "same final results"
        );
    }
    // And one more run changes nothing.
    let again = run(dir.path(), &env, &args);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(server.handle.stats().devices[0].accepted, n);
    let without_time = |rows: Vec<BTreeMap<String, String>>| -> Vec<BTreeMap<String, String>> {
        rows.into_iter()
            .map(|mut r| {
                r.remove("result_time");
                r
            })
            .collect()
    };
    let same = without_time(results(&dir.path().join("results/batch.result.csv"))) == without_time(rows);
    assert!(same, "a further run changed the result file (beyond result_time)");
}

/// Number → UUID of every document the sandbox accepted for the (one) device in `stats`.
fn issued_uuids(server: &Server, stats: &serde_json::Value) -> BTreeMap<String, String> {
    let onboard_id = stats["devices"][0]["onboard_id"].as_str().unwrap();
    server
        .handle
        .documents(onboard_id)
        .unwrap()
        .into_iter()
        .map(|d| (d.number, d.uuid))
        .collect()
}

/// A rerun repeats what an earlier run left without an answer before it reads the export; when
/// it then finds those documents accepted in the ledger, it sent them itself: they are counted
/// accepted in this run, not "issued before, from the ledger: not sent again" (QA9 #1).
#[test]
fn documents_a_rerun_repeats_are_not_counted_as_issued_before() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let state = d.join(".invoicedrop");
    onboard(d, &env);
    xero_export(&d.join("a.csv"), 3);
    let o = run(d, &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // As if the answers for two of them had been lost: sent, outcome unknown.
    lose_answer(&state, "T-00001");
    lose_answer(&state, "T-00003");
    // The same export dropped twice: its second copy was issued before, all three.
    std::fs::copy(d.join("a.csv"), d.join("b.csv")).unwrap();
    let (accepted, replays, _) = requests(&server);
    let o = run(d, &env, &["--json", "run", "a.csv", "b.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(requests(&server).0, accepted, "nothing accepted twice");
    assert_eq!(requests(&server).1, replays + 2, "the two were repeated");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let counts = |f: &serde_json::Value| {
        (
            f["documents"]["accepted"].as_u64(),
            f["documents"]["issued_before"].as_u64(),
        )
    };
    assert_eq!(
        (counts(&v["files"][0]), counts(&v["files"][1])),
        ((Some(3), Some(1)), (Some(3), Some(3))),
        "the two repeated in this run are not 'issued before' in a.csv; b.csv's copies are: {:#}",
        v["files"]
    );
    let said = text(&o);
    assert!(
        said.contains("2 document(s) left without a final answer by an earlier run were repeated"),
        "{said}"
    );
}

/// The same when the export changed a repeated document meanwhile (edited in the ERP after a
/// run was killed): issued by the repeat, with the earlier content (a conflict), it was sent by
/// this run: accepted, not issued before (QA14a #2).
#[test]
fn a_document_a_rerun_repeats_and_finds_changed_is_a_conflict_sent_by_this_run() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    xero_export(&d.join("a.csv"), 3);
    let o = run(d, &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    lose_answer(&d.join(".invoicedrop"), "T-00002");
    let edited = std::fs::read_to_string(d.join("a.csv"))
        .unwrap()
        .replace("Walk-in customer 2,", "Walk-in customer 2 (edited),");
    std::fs::write(d.join("a.csv"), edited).unwrap();
    let o = run(d, &env, &["--json", "run", "a.csv", "--list-all"]);
    assert_eq!(o.status.code(), Some(1), "a conflict: {}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let f = &v["files"][0];
    assert_eq!(
        (
            f["documents"]["accepted"].as_u64(),
            f["documents"]["issued_before"].as_u64()
        ),
        (Some(3), Some(2)),
        "{f:#}"
    );
    let t2 = f["document_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["number"] == "T-00002")
        .unwrap();
    assert_eq!(
        (&t2["conflict"], &t2["issued_before"]),
        (&serde_json::json!(true), &serde_json::json!(false)),
        "{t2}"
    );
}

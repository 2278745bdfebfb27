//! `invoicedrop watch INBOX` through the real binary against the real sandbox on loopback: files
//! written slowly, several at once, dropped twice, renamed in, broken; SIGKILL and SIGTERM in the
//! middle of a file and a restart; a second watcher refused; a standard-only device that sends no
//! simplified invoice. No fixed sleeps on the watcher's side: every wait is a condition with a
//! deadline.

#[path = "watch/failed.rs"]
mod failed;
#[path = "watch/gave_up.rs"]
mod gave_up;
#[path = "watch/inbox.rs"]
mod inbox;
#[path = "watch/set_names.rs"]
mod set_names;
#[path = "watch/status.rs"]
mod status;
#[path = "watch/stop.rs"]
mod stop;
#[allow(dead_code)]
#[path = "run/support.rs"]
mod support;
#[path = "watch/taking.rs"]
mod taking;
#[path = "watch/unknown.rs"]
mod unknown;

use invoicedrop::sandbox::SandboxConfig;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;
use support::*;

const LIMIT: Duration = Duration::from_secs(120);

/// A watcher running on `dir/in`, its stderr in `dir/watch-N.log`; killed when dropped.
struct Watch {
    child: Child,
    log: PathBuf,
}

impl Watch {
    /// Start with a quiet period of 1 s, or `quiet` seconds.
    fn start(dir: &Path, env: &[(&str, String)], extra: &[&str]) -> Watch {
        Watch::start_quiet(dir, env, "1", extra)
    }

    fn start_quiet(dir: &Path, env: &[(&str, String)], quiet: &str, extra: &[&str]) -> Watch {
        std::fs::create_dir_all(dir.join("in")).unwrap();
        // Lookup tables are read from the inbox: the exports' buyers are walk-in customers.
        walk_in_customers(&dir.join("in"));
        let n = std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("watch-"))
            .count();
        let log = dir.join(format!("watch-{n}.log"));
        // No pacing: the sandbox's delay sets the speed.
        let mut args = vec![
            "watch",
            "in",
            "--quiet-period",
            quiet,
            "--rescan",
            "1",
            "--rate",
            "unlimited",
        ];
        args.extend_from_slice(extra);
        let child = command(dir, env, &args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Watch { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn signal(&self, sig: &str) {
        let ok = std::process::Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// Wait for the process to end; its exit code.
    fn wait_exit(&mut self) -> Option<i32> {
        let mut code = None;
        wait_for(LIMIT, "the watcher to exit", || match self.child.try_wait().unwrap() {
            Some(s) => {
                code = Some(s.code());
                true
            }
            None => false,
        });
        code.flatten()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Xero export of `n` simplified invoices numbered `<prefix>-00001`...
fn export(n: usize, prefix: &str) -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("x.csv");
    xero_export(&p, n);
    std::fs::read_to_string(&p)
        .unwrap()
        .replace(",T-", &format!(",{prefix}-"))
        .into_bytes()
}

fn setup(config: SandboxConfig) -> (Server, Vec<(&'static str, String)>, tempfile::TempDir) {
    let server = Server::start(config);
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    (server, env, dir)
}

/// `in/results/status.json` (null while absent or being replaced).
fn status_of(d: &Path) -> serde_json::Value {
    std::fs::read(d.join("in/results/status.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn statuses(path: &Path) -> Vec<String> {
    results(path).into_iter().map(|r| r["result_status"].clone()).collect()
}

fn all_accepted(path: &Path, n: usize) {
    let s = statuses(path);
    assert_eq!(s.len(), n, "{}", path.display());
    assert!(s.iter().all(|s| s == "accepted"), "{}: {s:?}", path.display());
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn the_same_content_dropped_twice_is_recognised_and_not_sent_again() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start(d, &env, &[]);
    let bytes = export(12, "D");
    std::fs::write(d.join("in/day.csv"), &bytes).unwrap();
    wait_for(LIMIT, "day.csv in done/", || d.join("in/done/day.csv").exists());
    assert_eq!(server.accepted(), 12);
    std::fs::write(d.join("in/day.csv"), &bytes).unwrap();
    wait_for(LIMIT, "the second day.csv in done/", || {
        names(&d.join("in/done")).len() == 2
    });
    assert_eq!(server.accepted(), 12, "nothing sent again");
    let device = &server.handle.stats().devices[0];
    assert_eq!(device.replays, 0, "not even as a repeat: reported from the ledger");
    // The second drop gets its own result file: the first is not overwritten.
    let result_files: Vec<String> = names(&d.join("in/results"))
        .into_iter()
        .filter(|n| n.starts_with("day") && n.ends_with(".result.csv"))
        .collect();
    assert_eq!(result_files.len(), 2, "{result_files:?}");
    for f in &result_files {
        all_accepted(&d.join("in/results").join(f), 12);
    }
    let log = w.log();
    assert!(log.contains("the same content as day.csv"), "{log}");
    wait_for(LIMIT, "status.json saying it was a repeat", || {
        status_of(d)["last_file"]["repeat"] == true
    });
    // Both copies kept, the second with a timestamp suffix.
    let done = names(&d.join("in/done"));
    assert!(done[0] == "day.csv" || done[1] == "day.csv", "{done:?}");
}

#[test]
fn killed_while_sending_then_restarted_every_document_is_accepted_exactly_once() {
    let (server, env, dir) = setup(SandboxConfig {
        delay_ms: 20,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let n = 400;
    std::fs::create_dir_all(d.join("in")).unwrap();
    std::fs::write(d.join("in/big.csv"), export(n, "K")).unwrap();
    let mut w = Watch::start(d, &env, &["--concurrency", "4"]);
    wait_for(LIMIT, "documents accepted before the kill", || server.accepted() >= 60);
    w.child.kill().unwrap(); // SIGKILL
    w.wait_exit();
    assert!(server.accepted() < n as u64, "the kill came too late to test anything");
    assert!(d.join("in/.processing/big.csv").exists());
    let _w = Watch::start(d, &env, &["--concurrency", "4"]);
    wait_for(LIMIT, "big.csv in done/", || d.join("in/done/big.csv").exists());
    all_accepted(&d.join("in/results/big.result.csv"), n);
    let stats = server.handle.stats();
    assert_eq!(
        stats.devices[0].accepted, n as u64,
        "each document accepted exactly once"
    );
    let issued = server.handle.documents(&stats.devices[0].onboard_id).unwrap();
    assert_eq!(issued.len(), n);
}

#[test]
fn sigterm_in_the_middle_of_a_file_exits_0_with_results_and_a_restart_finishes_it() {
    let (server, env, dir) = setup(SandboxConfig {
        delay_ms: 20,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let n = 600;
    std::fs::create_dir_all(d.join("in")).unwrap();
    std::fs::write(d.join("in/big.csv"), export(n, "T")).unwrap();
    let mut w = Watch::start(d, &env, &["--concurrency", "4"]);
    wait_for(LIMIT, "documents accepted before SIGTERM", || server.accepted() >= 120);
    w.signal("-TERM");
    assert_eq!(w.wait_exit(), Some(0), "{}", w.log());
    let sent = server.accepted();
    assert!(sent < n as u64, "SIGTERM came too late to test anything");
    let s = statuses(&d.join("in/results/big.result.csv"));
    assert_eq!(s.len(), n, "a complete result file");
    let accepted = s.iter().filter(|s| *s == "accepted").count() as u64;
    assert_eq!(accepted, sent, "the result file says what was accepted");
    assert!(s.iter().all(|s| s == "accepted" || s == "failed"), "{s:?}");
    assert!(d.join("in/.processing/big.csv").exists(), "left for the next start");
    assert!(w.log().contains("interrupted"), "{}", w.log());
    let _w = Watch::start(d, &env, &["--concurrency", "4"]);
    wait_for(LIMIT, "big.csv in done/", || d.join("in/done/big.csv").exists());
    all_accepted(&d.join("in/results/big.result.csv"), n);
    assert_eq!(server.accepted(), n as u64);
}

#[test]
fn a_second_watcher_on_the_same_inbox_is_refused() {
    let (_server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let mut w = Watch::start(d, &env, &[]);
    wait_for(LIMIT, "the first watcher's status", || {
        d.join("in/results/status.json").exists()
    });
    let o = run(d, &env, &["watch", "in"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let msg = format!("another invoicedrop watch is running on in (pid {})", w.child.id());
    assert!(text(&o).contains(&msg), "{}", text(&o));
    // The first one, idle, stops at once on SIGINT with exit 0 and says so in status.json.
    w.signal("-INT");
    assert_eq!(w.wait_exit(), Some(0), "{}", w.log());
    assert_eq!(status_of(d)["state"], "stopped");
    // A results folder that cannot be made is refused at the start, not warned about at every scan.
    std::fs::create_dir_all(d.join("in2")).unwrap();
    std::fs::write(d.join("afile"), "x").unwrap();
    let o = run(d, &env, &["watch", "in2", "--results", "afile"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--results afile: afile is a file, not a folder: give --results a folder"),
        "{}",
        text(&o)
    );
    // An inbox that is a file is refused as such (not as a missing folder), with the way to
    // send that one file.
    let o = run(d, &env, &["watch", "afile"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(
            "afile is a file, not a folder: watch takes the folder the ERPs drop their exports into; to send \
             this one file, use `invoicedrop run afile` (with the --state, --mapping and --config the watcher \
             uses, so that it is sent through the same ledger)"
        ),
        "{}",
        text(&o)
    );
    let o = run(d, &env, &["watch", "nowhere"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("nowhere: no such folder (the inbox to watch)"),
        "{}",
        text(&o)
    );
}

#[test]
fn simplified_documents_not_accepted_near_the_end_of_their_window_are_alerts() {
    let (_server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    // A previous watcher left two simplified documents without an accepted answer.
    std::fs::create_dir_all(d.join("in/results")).unwrap();
    let old = (chrono::Utc::now() - chrono::Duration::hours(21)).to_rfc3339();
    let recent = (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339();
    let late = (chrono::Utc::now() - chrono::Duration::hours(30)).to_rfc3339();
    let previous = serde_json::json!({
        "unsettled": [
            {"number": "LATE-1", "kind": "invoice", "issued_at": late, "status": "failed", "file": "x.csv"},
            {"number": "OLD-1", "kind": "invoice", "issued_at": old, "status": "failed", "file": "x.csv"},
            {"number": "NEW-1", "kind": "invoice", "issued_at": recent, "status": "failed", "file": "x.csv"}
        ]
    });
    std::fs::write(d.join("in/results/status.json"), previous.to_string()).unwrap();
    let w = Watch::start(d, &env, &[]);
    let status = || status_of(d);
    wait_for(LIMIT, "the watcher's status", || status()["pid"] == w.child.id());
    let s = status();
    let alerts: Vec<&str> = s["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["number"].as_str().unwrap())
        .collect();
    assert_eq!(alerts, ["LATE-1", "OLD-1"], "{s}");
    assert_eq!(s["unsettled"].as_array().unwrap().len(), 3, "{s}");
    wait_for(LIMIT, "the alerts in the log", || {
        w.log().contains("OLD-1") && w.log().contains("LATE-1")
    });
    let log = w.log();
    assert!(
        log.contains("not accepted 20 hours after their issue time: their 24-hour reporting window closes soon"),
        "{log}"
    );
    assert!(
        log.contains("window has closed, so they are late")
            && !log.contains(
                "closes soon; fix and drop them again now (status.json `alerts` says why each is not accepted): LATE-1"
            ),
        "{log}"
    );
}

/// A simplified invoice that fails the checks is not sent, but its 24-hour window runs all the
/// same: it is listed as unsettled (status `invalid`) and becomes an alert once `--alert-hours`
/// (0 here) have passed since its issue time; the valid one beside it is accepted and not
/// listed. Results go where `--results` says.
#[test]
fn an_invalid_simplified_invoice_is_followed_and_alerted_on() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let text = String::from_utf8(export(2, "LATE")).unwrap();
    // The second invoice's quantity is not a number.
    let broken: String = text
        .lines()
        .map(|l| {
            if l.contains("LATE-00002") {
                l.replace("Book 2,1,", "Book 2,one,")
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect();
    assert_ne!(broken, text, "the quantity was replaced");
    let w = Watch::start(d, &env, &["--alert-hours", "0", "--results", "out"]);
    std::fs::write(d.join("in/late.csv"), broken).unwrap();
    let status = || -> serde_json::Value {
        std::fs::read(d.join("out/status.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    };
    wait_for(LIMIT, "status.json after late.csv", || {
        status()["last_file"]["name"] == "late.csv"
    });
    let s = status();
    let listed = |field: &str| -> Vec<(String, String)> {
        s[field]
            .as_array()
            .unwrap_or_else(|| panic!("{field}: {s}"))
            .iter()
            .map(|t| {
                (
                    t["number"].as_str().unwrap().to_string(),
                    t["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let want = vec![("LATE-00002".to_string(), "invalid".to_string())];
    assert_eq!(listed("unsettled"), want, "{s}");
    assert_eq!(listed("alerts"), want, "{s}");
    // It says why, as the log says it does.
    let why = s["alerts"][0]["why"].as_str().unwrap_or_else(|| panic!("{s}"));
    assert!(why.starts_with("INV-MAP-VALUE") && why.contains("\"one\""), "{why}");
    assert_eq!(server.accepted(), 1);
    let rows = statuses(&d.join("out/late.result.csv"));
    assert_eq!(rows, ["accepted", "invalid"]);
    assert!(!d.join("in/results").exists(), "--results is where results go");
    wait_for(LIMIT, "the alert in the log", || w.log().contains("LATE-00002"));
}

#[test]
fn lookup_tables_dropped_beside_the_exports_are_read_there_and_left_in_place() {
    let (_server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::create_dir_all(d.join("in")).unwrap();
    // The buyers' table first, as a user copies a folder: it is no export.
    std::fs::copy(samples.join("customers.csv"), d.join("in/customers.csv")).unwrap();
    std::fs::copy(samples.join("xero_sales_invoices.csv"), d.join("in/xero.csv")).unwrap();
    let w = Watch::start(d, &env, &[]);
    wait_for(LIMIT, "the export in done/", || {
        names(&d.join("in/done")) == ["xero.csv"]
    });
    assert!(
        d.join("in/customers.csv").is_file(),
        "the table stays in the inbox: {}",
        w.log()
    );
    assert!(names(&d.join("in/failed")).is_empty(), "{}", w.log());
    // Its buyers' VAT numbers were read: INV-0101 (Al Ofuq Trading Co.) is a standard invoice.
    let docs = results(&d.join("in/results/xero.documents.csv"));
    let inv = docs.iter().find(|r| r["document"] == "INV-0101").unwrap();
    assert_eq!((inv["type"].as_str(), inv["status"].as_str()), ("standard", "accepted"));
    assert!(!inv["warnings"].contains("INV-MAP-LOOKUP"), "{inv:?}");
}

#[test]
fn a_standard_only_device_sends_no_simplified_invoice_and_they_stay_unsettled() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard_standard_only(d, &env, "b2b");
    let _w = Watch::start(d, &env, &[]);
    std::fs::write(d.join("in/b2c.csv"), export(2, "B2C")).unwrap();
    wait_for(LIMIT, "status.json after b2c.csv", || {
        status_of(d)["last_file"]["name"] == "b2c.csv"
    });
    let rows = results(&d.join("in/results/b2c.result.csv"));
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        assert!(
            r["result_errors"].contains("this device (onboarded as standard-only) may not issue simplified invoices"),
            "{r:?}"
        );
    }
    // Not sent, so not rejected either; their reporting window runs all the same.
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), 0, "{stats}");
    assert_eq!(device_count(&stats, "rejections"), 0, "{stats}");
    let s = status_of(d);
    let unsettled: Vec<&str> = s["unsettled"]
        .as_array()
        .unwrap_or_else(|| panic!("{s}"))
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(unsettled, ["invalid", "invalid"], "{s}");
}

#[test]
fn an_issued_invoice_dropped_again_with_other_content_counts_as_accepted_with_a_conflict() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start(d, &env, &[]);
    let bytes = export(3, "K");
    std::fs::write(d.join("in/day.csv"), &bytes).unwrap();
    wait_for(LIMIT, "day.csv in done/", || d.join("in/done/day.csv").exists());
    // K-00002 again with another description: issued already, with other content.
    let changed = String::from_utf8(bytes).unwrap().replace("Book 2,", "Book 2 revised,");
    std::fs::write(d.join("in/again.csv"), changed).unwrap();
    wait_for(LIMIT, "status.json after again.csv", || {
        status_of(d)["last_file"]["name"] == "again.csv"
    });
    assert_eq!(server.accepted(), 3, "nothing sent again");
    let s = status_of(d);
    let docs = &s["last_file"]["documents"];
    assert_eq!(
        (
            docs["accepted"].as_u64(),
            docs["conflicts"].as_u64(),
            docs["rejected"].as_u64()
        ),
        (Some(3), Some(1), Some(0)),
        "{s:#}"
    );
    let log = w.log();
    assert!(
        log.contains(
            "again.csv: done (3 rows, 3 accepted (1 in conflict with its export: INV-LEDGER-CONFLICT; 3 issued \
             before, from the ledger: not sent again), 0 rejected, 0 failed"
        ),
        "{log}"
    );
}

#[test]
fn what_a_killed_process_left_in_the_results_folder_is_removed_and_a_live_one_s_kept() {
    let (_server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let results = d.join("in/results");
    std::fs::create_dir_all(&results).unwrap();
    // As a run killed with SIGKILL leaves them (its process has ended), and as a live one has
    // them (this test's process id).
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let left = [
        format!(".day.{dead}.0.staging"),
        format!(".day.result.csv.{dead}.1.tmp"),
    ];
    std::fs::create_dir(results.join(&left[0])).unwrap();
    std::fs::write(results.join(&left[0]).join("a.xml"), "<a/>").unwrap();
    std::fs::write(results.join(&left[1]), "a,b\n").unwrap();
    let live = format!(".other.{}.0.staging", std::process::id());
    std::fs::create_dir(results.join(&live)).unwrap();
    let mut w = Watch::start(d, &env, &[]);
    std::fs::write(d.join("in/day.csv"), export(2, "L")).unwrap();
    wait_for(LIMIT, "day.csv in done/", || d.join("in/done/day.csv").exists());
    // Stopped first: a running watcher has its own temporary files now and then (status.json's).
    w.signal("-INT");
    assert_eq!(w.wait_exit(), Some(0), "{}", w.log());
    let hidden: Vec<String> = names(&results).into_iter().filter(|n| n.starts_with('.')).collect();
    assert_eq!(hidden, [live], "{}", w.log());
    assert!(w.log().contains("left by a process that no longer runs"), "{}", w.log());
}

//! An API given up on (`--give-up-after`) while the watcher sends a file: the rest of that file
//! is `failed` at once, not probed again batch after batch (QA13 #2); the next file gets the
//! usual patience again. The log says so in a line, not one per document (QA13 #6).

use super::support::*;
use super::*;
use std::time::Instant;

/// Seconds of silence the watcher waits for, per file.
const PATIENCE: u64 = 6;

/// Drop `name` with `n` documents; how long until it is in done/.
fn drop_and_time(d: &Path, name: &str, n: usize) -> Duration {
    let part = d.join(format!("in/{name}.part"));
    std::fs::write(&part, export(n, &name.to_uppercase().replace(".CSV", ""))).unwrap();
    let started = Instant::now();
    std::fs::rename(&part, d.join("in").join(name)).unwrap();
    wait_for(LIMIT, "the file in done/", || d.join("in/done").join(name).exists());
    started.elapsed()
}

#[test]
fn given_up_lasts_for_the_rest_of_the_file_and_the_next_file_probes_again() {
    // Every document request is answered 503: the API does not answer.
    let (_server, env, dir) = setup(SandboxConfig {
        fail_rate: 1.0,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let patience = PATIENCE.to_string();
    let w = Watch::start(d, &env, &["--give-up-after", &patience, "--timeout", "2"]);
    // Five batches of 100 documents: waiting again for each would take five times the patience.
    let took = drop_and_time(d, "a.csv", 450);
    assert!(
        took < Duration::from_secs(5 * PATIENCE - 3),
        "given up once, the later batches of the file wait again: {took:?}\n{}",
        w.log()
    );
    let rows = results(&d.join("in/results/a.result.csv"));
    assert_eq!(rows.len(), 450);
    let not_sent = rows[100..]
        .iter()
        .filter(|r| r["result_errors"].starts_with("INV-SUBMIT-NOT-SENT: ") && r["result_attempts"] == "0")
        .count();
    assert!(
        not_sent >= 350 - 4,
        "a probe per batch at most: {not_sent} of 350 not sent"
    );
    // The next file probes with the usual patience again.
    let took = drop_and_time(d, "b.csv", 10);
    assert!(took >= Duration::from_secs(PATIENCE), "{took:?}\n{}", w.log());

    // No line per document at the default verbosity; a warning per outage.
    let log = w.log();
    assert!(!log.contains("no final answer"), "{log}");
    let given_up = log.matches("given up waiting").count();
    assert_eq!(given_up, 1, "one warning for the outage: {log}");
    assert!(log.lines().count() < 30, "{log}");
}

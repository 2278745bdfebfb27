//! `status.json` while a long file is processed: rewritten every `--rescan`, so a healthy
//! watcher's `updated_at` stays fresh, and files dropped meanwhile are in `queue`.

use super::support::*;
use super::*;

#[test]
fn status_json_stays_fresh_and_shows_the_queue_while_a_long_file_is_processed() {
    // One request at a time, 250 ms each: 40 documents take about 10 s.
    let (server, env, dir) = setup(SandboxConfig {
        delay_ms: 250,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let _w = Watch::start(d, &env, &["--concurrency", "1"]);
    std::fs::write(d.join("in/long.csv"), export(40, "L")).unwrap();
    let mut taken_at = String::new();
    wait_for(LIMIT, "status.json saying long.csv is processed", || {
        let s = status_of(d);
        taken_at = s["updated_at"].as_str().unwrap_or_default().to_string();
        s["processing"] == "long.csv"
    });
    std::fs::write(d.join("in/next.csv"), export(2, "N")).unwrap();
    // While long.csv is still processed (QA9 #3: updated_at stayed at the time it was taken,
    // and next.csv was not in the queue until long.csv was done).
    let mut seen = serde_json::Value::Null;
    wait_for(
        LIMIT,
        "a fresh status.json with next.csv queued, long.csv in progress",
        || {
            seen = status_of(d);
            seen["processing"] == "long.csv"
                && seen["updated_at"].as_str().is_some_and(|t| t != taken_at)
                && seen["queue"]
                    .as_array()
                    .is_some_and(|q| q.iter().any(|f| f["name"] == "next.csv"))
        },
    );
    assert_eq!(seen["state"], "watching", "{seen:#}");
    assert!(server.accepted() < 42, "long.csv was still being sent: {seen:#}");
    wait_for(LIMIT, "both files in done/", || {
        d.join("in/done/long.csv").exists() && d.join("in/done/next.csv").exists()
    });
    assert_eq!(server.accepted(), 42);
}

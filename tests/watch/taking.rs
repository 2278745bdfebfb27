//! When a dropped file is taken: only once it is complete and quiet, several at once, one
//! renamed in, and with change events off (the periodic scan alone).

use super::support::*;
use super::*;

#[test]
fn a_file_written_slowly_is_taken_only_once_complete() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start_quiet(d, &env, "2", &[]);
    let bytes = export(60, "S");
    let target = d.join("in/slow.csv");
    let chunks: Vec<&[u8]> = bytes.chunks(bytes.len() / 8 + 1).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            // The producer writes a chunk every 0.5 s (the watcher's quiet period is 2 s).
            std::thread::sleep(Duration::from_millis(500));
            assert!(target.exists(), "taken before it was complete (chunk {i})");
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&target)
            .unwrap();
        std::io::Write::write_all(&mut f, chunk).unwrap();
    }
    wait_for(LIMIT, "slow.csv in done/", || d.join("in/done/slow.csv").exists());
    all_accepted(&d.join("in/results/slow.result.csv"), 60);
    assert_eq!(server.accepted(), 60);
    assert_eq!(std::fs::read(d.join("in/done/slow.csv")).unwrap(), bytes);
    // status.json follows the move to done/.
    wait_for(LIMIT, "status.json naming slow.csv", || {
        status_of(d)["last_file"]["name"] == "slow.csv"
    });
    let status = status_of(d);
    assert_eq!(status["last_file"]["documents"]["accepted"], 60, "{status}");
    assert_eq!(status["alerts"].as_array().map(Vec::len), Some(0), "{status}");
    let log = w.log();
    assert!(
        log.contains("slow.csv: taken") && log.contains("slow.csv: done"),
        "{log}"
    );
}

#[test]
fn several_files_at_once_and_one_renamed_in_are_all_issued() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    std::fs::create_dir_all(d.join("in")).unwrap();
    // One present before the start, then several at once, then one renamed into the inbox.
    std::fs::write(d.join("in/early.csv"), export(5, "E")).unwrap();
    let _w = Watch::start(d, &env, &[]);
    for (name, prefix) in [("a.csv", "A"), ("b.csv", "B"), ("c.csv", "C")] {
        std::fs::write(d.join("in").join(name), export(10, prefix)).unwrap();
    }
    std::fs::write(d.join("outside.csv"), export(7, "R")).unwrap();
    std::fs::rename(d.join("outside.csv"), d.join("in/renamed.csv")).unwrap();
    wait_for(LIMIT, "five files in done/", || names(&d.join("in/done")).len() == 5);
    assert_eq!(
        names(&d.join("in/done")),
        ["a.csv", "b.csv", "c.csv", "early.csv", "renamed.csv"]
    );
    for (name, n) in [("a", 10), ("b", 10), ("c", 10), ("early", 5), ("renamed", 7)] {
        all_accepted(&d.join(format!("in/results/{name}.result.csv")), n);
    }
    assert_eq!(server.accepted(), 42);
}

#[test]
fn with_change_events_off_the_periodic_scan_alone_finds_every_file() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    // As on a network share where no event arrives: only the scan every --rescan seconds (1 s
    // here) can see these files, the second one dropped after the watcher has gone idle.
    let w = Watch::start(d, &env, &["--no-events"]);
    wait_for(LIMIT, "the watcher to start scanning", || {
        w.log().contains("change events off (--no-events): scanning")
    });
    std::fs::write(d.join("in/first.csv"), export(3, "F")).unwrap();
    wait_for(LIMIT, "first.csv in done/", || {
        names(&d.join("in/done")) == ["first.csv"]
    });
    std::fs::write(d.join("outside.csv"), export(4, "G")).unwrap();
    std::fs::rename(d.join("outside.csv"), d.join("in/second.csv")).unwrap();
    wait_for(LIMIT, "second.csv in done/", || names(&d.join("in/done")).len() == 2);
    all_accepted(&d.join("in/results/first.result.csv"), 3);
    all_accepted(&d.join("in/results/second.result.csv"), 4);
    assert_eq!(server.accepted(), 7);
    assert!(!w.log().contains("cannot get change events"), "{}", w.log());
}

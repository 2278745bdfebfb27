//! What arrives in the inbox other than a plain export: a symbolic link (moved to `failed/`, the
//! file it points to left untouched), and what a file moved to `failed/` is said to be.

use super::support::*;
use super::*;

#[test]
fn a_symbolic_link_goes_to_failed_and_the_file_it_points_to_stays_untouched() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start(d, &env, &[]);
    std::fs::create_dir_all(d.join("exports")).unwrap();
    let bytes = export(3, "L");
    std::fs::write(d.join("exports/nightly.csv"), &bytes).unwrap();
    std::os::unix::fs::symlink(d.join("exports/nightly.csv"), d.join("in/nightly.csv")).unwrap();
    // A link to nothing, and one to a folder (left alone, as sub-folders are).
    std::os::unix::fs::symlink(d.join("exports/gone.csv"), d.join("in/gone.csv")).unwrap();
    std::os::unix::fs::symlink(d.join("exports"), d.join("in/linked-folder")).unwrap();
    wait_for(LIMIT, "both links and their notes in failed/", || {
        let failed = names(&d.join("in/failed"));
        ["nightly.csv", "nightly.csv.error.txt", "gone.csv", "gone.csv.error.txt"]
            .iter()
            .all(|n| failed.iter().any(|f| f == n))
    });
    // The link itself was moved; the file it points to is where it was, as it was.
    assert!(d.join("in/failed/nightly.csv").is_symlink());
    assert_eq!(std::fs::read(d.join("exports/nightly.csv")).unwrap(), bytes);
    assert!(d.join("in/linked-folder").is_symlink());
    let note = std::fs::read_to_string(d.join("in/failed/nightly.csv.error.txt")).unwrap();
    assert!(
        note.contains("nightly.csv is a symbolic link to ") && note.contains("copy the export into the inbox"),
        "{note}"
    );
    let note = std::fs::read_to_string(d.join("in/failed/gone.csv.error.txt")).unwrap();
    assert!(note.contains("which does not exist"), "{note}");
    wait_for(LIMIT, "the links in the log and status.json", || {
        let last = &status_of(d)["last_file"];
        w.log().contains("nightly.csv: failed: nightly.csv is a symbolic link")
            && w.log().contains("gone.csv: failed")
            && last["outcome"] == "failed"
            && last["error"].as_str().is_some_and(|e| e.contains("is a symbolic link"))
    });
    assert_eq!(server.accepted(), 0);
}

#[test]
fn a_file_moved_to_failed_is_named_there_in_its_note_the_log_and_status_json() {
    let (_server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start(d, &env, &[]);
    std::fs::write(d.join("in/empty.csv"), "").unwrap();
    wait_for(LIMIT, "empty.csv's note in failed/", || {
        d.join("in/failed/empty.csv.error.txt").exists()
    });
    let note = std::fs::read_to_string(d.join("in/failed/empty.csv.error.txt")).unwrap();
    assert!(
        note.contains("in/failed/empty.csv is empty") && !note.contains(".processing"),
        "{note}"
    );
    wait_for(LIMIT, "the failure in the log and status.json", || {
        let error = status_of(d)["last_file"]["error"].as_str().map(str::to_string);
        w.log().contains("empty.csv: failed: in/failed/empty.csv is empty")
            && error.is_some_and(|e| e.contains("in/failed/empty.csv is empty"))
    });
    assert!(!w.log().contains(".processing/empty.csv"), "{}", w.log());
}

/// `invoicedrop ARGS` in `d` as a user who may not write in `d/res`: as root, through `setpriv`
/// as `nobody` (`res` stays root's; the rest is given to nobody); otherwise with `res` made
/// read-only. `None` when neither can be arranged (root without setpriv).
fn without_write_access_to_res(d: &Path, args: &[&str]) -> Option<std::process::Command> {
    use std::os::unix::fs::PermissionsExt as _;
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let mut c = if root {
        let setpriv = std::process::Command::new("setpriv").arg("--version").output();
        if !setpriv.is_ok_and(|o| o.status.success()) {
            return None;
        }
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["in", "st"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
            std::os::unix::fs::chown(d.join(sub), Some(65534), Some(65534)).unwrap();
        }
        std::fs::write(d.join("a.csv"), export(2, "R")).unwrap();
        std::fs::write(d.join("customers.csv"), WALK_IN_CUSTOMERS).unwrap();
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(bin());
        c
    } else {
        std::fs::create_dir_all(d.join("in")).unwrap();
        std::fs::write(d.join("a.csv"), export(2, "R")).unwrap();
        std::fs::write(d.join("customers.csv"), WALK_IN_CUSTOMERS).unwrap();
        std::fs::set_permissions(d.join("res"), std::fs::Permissions::from_mode(0o555)).unwrap();
        std::process::Command::new(bin())
    };
    c.current_dir(d).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("INVOICEDROP_") {
            c.env_remove(k);
        }
    }
    Some(c)
}

#[test]
fn a_results_folder_it_cannot_write_stops_the_watch_and_a_run_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("res")).unwrap();
    let watch = [
        "watch",
        "in",
        "--results",
        "res",
        "--state",
        "st",
        "--quiet-period",
        "1",
    ];
    let Some(mut c) = without_write_access_to_res(d, &watch) else {
        eprintln!("skipped: running as root without setpriv");
        return;
    };
    let mut child = c.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    // Exits at once (a watcher that started would run until stopped: it is stopped then).
    let exited = wait_until(LIMIT, || child.try_wait().unwrap().is_some());
    if !exited {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(exited, "the watcher started: {err}");
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--results res: cannot write in this folder (permission denied)"),
        "{err}"
    );
    assert!(!d.join("in/failed").exists() || names(&d.join("in/failed")).is_empty());
    // A run: refused before anything is sent, not after.
    let run = ["run", "a.csv", "--results", "res", "--state", "st"];
    let o = without_write_access_to_res(d, &run).unwrap().output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--results res: cannot write in this folder"),
        "{}",
        text(&o)
    );
    assert!(!text(&o).contains("built-in sandbox at"), "{}", text(&o));
    assert!(names(&d.join("res")).is_empty());
}

#[test]
fn a_file_name_with_a_line_break_gets_result_files_without_one_and_one_log_line() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start(d, &env, &[]);
    std::fs::write(d.join("in/.n.part"), export(2, "N")).unwrap();
    std::fs::rename(d.join("in/.n.part"), d.join("in/nightly\nexport.csv")).unwrap();
    wait_for(LIMIT, "the file in done/", || {
        d.join("in/done/nightly\nexport.csv").exists()
    });
    let results = names(&d.join("in/results"));
    assert!(results.iter().all(|n| !n.chars().any(char::is_control)), "{results:?}");
    all_accepted(&d.join("in/results/nightly-export.result.csv"), 2);
    assert!(
        results.iter().any(|n| n == "nightly-export.summary.json"),
        "{results:?}"
    );
    assert_eq!(server.accepted(), 2);
    wait_for(LIMIT, "the done line in the log", || {
        w.log().contains("nightly\\nexport.csv: done")
    });
    let log = w.log();
    assert!(log.contains("nightly\\nexport.csv: taken"), "{log}");
    assert!(!log.lines().any(|l| l.starts_with("export.csv")), "{log}");
}

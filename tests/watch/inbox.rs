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

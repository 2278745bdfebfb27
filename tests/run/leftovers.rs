//! What a killed run leaves aside in the results folder (its artefacts' staging folder, its
//! temporary result files) is removed by the next run; what a live process is writing there is
//! left alone.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// The hidden names in `dir`, sorted.
fn hidden(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    v.sort();
    v
}

#[test]
fn what_a_killed_run_left_aside_is_removed_by_the_next_run_and_a_live_process_s_is_kept() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    xero_export(&d.join("batch.csv"), 1_100);
    let results = d.join("results");
    // Paced, so that while the second batch (documents 1,001 to 1,100) is sent, the first
    // batch's artefacts wait in their staging folder.
    let args = ["run", "batch.csv", "--rate", "200"];
    let mut child = command(d, &env, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(Duration::from_secs(120), "the first batch's artefacts staged", || {
        exited(&mut child) || (results.is_dir() && hidden(&results).iter().any(|n| n.ends_with(".staging")))
    });
    assert!(matches!(child.try_wait(), Ok(None)), "the run ended before the kill");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let left = hidden(&results);
    let pid = format!(".{}.", child.id());
    assert!(
        left.iter().any(|n| n.ends_with(".staging") && n.contains(&pid))
            && left.iter().any(|n| n.ends_with(".tmp") && n.contains(&pid)),
        "the kill left its staging folder and temporary files: {left:?}"
    );
    // What a live process (a watch, another run) is writing into the same folder: its staging
    // folder and a temporary file, named after its process id (this test's, alive).
    let live_staging = format!(".other.{}.0.staging", std::process::id());
    let live_tmp = format!(".other.result.csv.{}.1.tmp", std::process::id());
    std::fs::create_dir(results.join(&live_staging)).unwrap();
    std::fs::write(results.join(&live_staging).join("x.xml"), "<x/>").unwrap();
    std::fs::write(results.join(&live_tmp), "a,b\n").unwrap();

    let o = run(d, &env, &args);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(
        hidden(&results),
        [live_staging.clone(), live_tmp.clone()],
        "the killed run's leftovers are gone, the live ones kept: {out}"
    );
    assert!(out.contains("left by a process that no longer runs"), "{out}");
    assert_eq!(
        std::fs::read_to_string(results.join(&live_staging).join("x.xml")).unwrap(),
        "<x/>"
    );
    let rows = results_of(&results.join("batch.result.csv"));
    assert_eq!(rows, 1_100);
}

fn results_of(path: &Path) -> usize {
    results(path)
        .iter()
        .filter(|r| r["result_status"] == "accepted")
        .count()
}

//! Files as they really come: broken lines, bytes in another encoding, a reader that goes away.

use super::{NOW, bin, result_rows, samples};
use std::process::Stdio;

/// `check --json | head -c 0`: the reader of stdout has gone before anything is written. The
/// command still does its work and exits with its own status, without a panic.
#[test]
fn a_closed_stdout_does_not_panic_the_command() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("sage50_invoices.csv"), dir.path().join("sage50.csv")).unwrap();
    for json in [true, false] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut cmd = bin();
        cmd.current_dir(dir.path());
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .args(["check", "sage50.csv", "--now", NOW])
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !stderr.contains("could not write"),
            "a closed pipe is not worth a warning: {stderr}"
        );
        assert_eq!(out.status.code(), Some(1), "sage50 has invalid documents: {stderr}");
        // The work was done.
        let rows = result_rows(&dir.path().join("results/sage50.result.csv"));
        assert!(rows.len() > 5);
    }
}

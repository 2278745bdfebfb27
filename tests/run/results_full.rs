//! A results folder that takes no more result files part-way through a run of several exports
//! (a full disk; here the file size limit of the process, `ulimit -f`, which fails a write the
//! same way for every file, deterministically and without root): the export whose result files
//! cannot be written fails, and no later export is read or sent, each saying so; the rerun once
//! there is room writes everything, sending only what was never sent.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::Path;

/// A Xero export of `valid` one-line invoices numbered `P-00001`..., then `invalid` more whose
/// quantity is `two` (each its own invalid document, with a long result row, never sent).
fn export(path: &Path, prefix: &str, valid: usize, invalid: usize) {
    xero_export(path, valid + invalid);
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut line = line.replace(",T-", &format!(",{prefix}-"));
        if i > valid {
            let book = line.find("| Book ").unwrap();
            let qty = book + line[book..].find(",1,").unwrap();
            line.replace_range(qty..qty + 3, ",two,");
        }
        out.push_str(&line);
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

/// `invoicedrop --json run in --results r` in `dir` against `server`, the files it writes
/// limited to `limit` bytes when given: exit code and the JSON document.
fn run_limited(dir: &Path, server: &Server, limit: Option<u64>) -> (i32, Value, String) {
    let mut c = command(dir, &server.env(), &["--json", "run", "in", "--results", "r"]);
    if let Some(bytes) = limit {
        // SAFETY: between fork and exec, only two system calls with valid arguments.
        unsafe {
            c.pre_exec(move || {
                // Ignored, SIGXFSZ stays ignored across exec: a write past the limit fails with
                // EFBIG ("File too large") instead of killing the process.
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let limit = libc::rlimit {
                    rlim_cur: bytes as libc::rlim_t,
                    rlim_max: libc::RLIM_INFINITY,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let o = c.output().expect("the binary runs");
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (o.status.code().unwrap_or(-1), v, text(&o))
}

#[test]
fn once_the_results_folder_takes_no_more_no_later_file_is_sent_and_the_rerun_sends_only_the_rest() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    std::fs::create_dir(d.join("in")).unwrap();
    export(&d.join("in/a.csv"), "A", 3, 0);
    // b's result file is the largest file of the run by far (its invalid rows are never sent,
    // so the ledger stays small).
    export(&d.join("in/b.csv"), "B", 3, 8000);
    export(&d.join("in/c.csv"), "C", 3, 0);
    let probe = run(d, &[], &["check", "in/b.csv", "--results", "probe"]);
    let size = std::fs::metadata(d.join("probe/b.result.csv"))
        .unwrap_or_else(|e| panic!("{e}: {}", text(&probe)))
        .len();
    assert!(size > 2_000_000, "b's result file: {size} bytes");

    let (code, v, out) = run_limited(d, &server, Some(size / 2));
    assert_eq!(code, 2, "{out}");
    let file = |name: &str| -> Value {
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == format!("in/{name}"))
            .unwrap_or_else(|| panic!("no {name} in {v}"))
            .clone()
    };
    let (a, b, c) = (file("a.csv"), file("b.csv"), file("c.csv"));
    assert!(a["error"].is_null() && a["documents"]["accepted"] == 3, "{a}");
    let b_error = b["error"].as_str().unwrap_or_default();
    assert!(
        b_error.contains("File too large")
            && b_error.contains("already sent are in the ledger")
            && b_error.ends_with(
                "No later file of this run is read or sent: its documents would be issued without result files"
            ),
        "{b_error}"
    );
    assert_eq!(b["documents"]["accepted"], 3, "b's documents sent are counted: {b}");
    let c_error = c["error"].as_str().unwrap_or_default();
    assert!(
        c_error.starts_with("not read, and nothing of it sent: the result files of in/b.csv could not be written (")
            && c_error.contains("File too large")
            && c_error.contains("make room in r (or raise the file size limit) and run again"),
        "{c_error}"
    );
    assert_eq!(
        (c["rows"].as_u64(), c["documents"]["accepted"].as_u64()),
        (Some(0), Some(0)),
        "{c}"
    );
    assert!(out.contains(&format!("error: in/c.csv: {c_error}")), "{out}");
    assert_eq!(v["documents"]["accepted"], 6, "what the API accepted: {v}");
    let onboard_id = onboard_id(&d.join(".invoicedrop"));
    let sent = server.issued(&onboard_id);
    assert_eq!(sent.len(), 6, "{sent:?}");
    assert!(!sent.iter().any(|n| n.starts_with("C-")), "{sent:?}");
    assert!(!d.join("r/b.result.csv").exists() && !d.join("r/c.result.csv").exists());

    // Room again: everything is written, and only c's documents are sent.
    let (code, v, out) = run_limited(d, &server, None);
    assert_eq!(code, 1, "b's invalid rows: {out}");
    assert_eq!(
        (
            v["documents"]["accepted"].as_u64(),
            v["documents"]["issued_before"].as_u64()
        ),
        (Some(9), Some(6)),
        "{v}"
    );
    let mut sent = server.issued(&onboard_id);
    assert_eq!(sent.len(), 9, "{sent:?}");
    sent.sort();
    sent.dedup();
    assert_eq!(sent.len(), 9, "nothing sent twice");
    for name in ["a", "b", "c"] {
        assert!(d.join(format!("r/{name}.summary.json")).is_file(), "{name}: {out}");
    }
}

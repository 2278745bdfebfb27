//! A file truncated while `run` reads it: the last document read is held back
//! (`INV-FILE-CHANGED` on its first row, status `invalid`, never sent), the file's error says
//! so, and the exit code is 2 (a whole-file error: the results do not cover the file as it is).

use super::support::*;
use invoicedrop::sandbox::{Faults, SandboxConfig};
use std::process::Stdio;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn a_file_truncated_while_run_reads_it_has_its_last_document_held_back_and_exits_2() {
    // Sending is slow until the file is cut. The reading runs at most 7 batches of 1,000
    // documents ahead of the batch being sent, so while the first batch is being sent it cannot
    // have reached the end of these 8,000.
    let server = Server::start(SandboxConfig {
        delay_ms: 1500,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let n = 8_000;
    let path = d.join("backlog.csv");
    xero_export(&path, n);
    let full = std::fs::read(&path).unwrap();
    let out = d.join("run.out");
    let mut child = command(d, &env, &["run", "backlog.csv", "--rate", "0"])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::from(std::fs::File::create(d.join("run.err")).unwrap()))
        .spawn()
        .unwrap();
    wait_for(LIMIT, "the first document accepted", || {
        server.accepted() >= 1 || exited(&mut child)
    });
    assert!(!exited(&mut child), "the run ended before the file was cut");
    // Cut in the middle of a line, as a writer truncating the file and writing it again would.
    let cut = full
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(n / 2)
        .map(|(i, _)| i - 5)
        .unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    server
        .handle
        .set_faults(Faults {
            delay_ms: 0,
            ..server.handle.faults()
        })
        .unwrap();
    wait_for(LIMIT, "the run to end", || exited(&mut child));
    let status = child.wait().unwrap();
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(d.join("run.err")).unwrap()
    );
    assert_eq!(status.code(), Some(2), "{text}");
    let rows = results(&d.join("results/backlog.result.csv"));
    let read = rows.len();
    assert!(read < n, "rows after the cut were read: {read}");
    let (last, before) = rows.split_last().unwrap();
    assert!(
        before.iter().all(|r| r["result_status"] == "accepted"),
        "every document before the last one is sent"
    );
    assert_eq!(last["result_status"], "invalid", "{last:?}");
    assert!(last["result_uuid"].is_empty(), "{last:?}");
    let errors = &last["result_errors"];
    assert!(
        errors.contains(&format!(
            "INV-FILE-CHANGED: the file changed while it was read ({} bytes when opened, ",
            thousands(full.len())
        )) && errors.contains("this last document may be incomplete and is not sent"),
        "{errors}"
    );
    // Nothing else was sent: the last document never left.
    assert_eq!(server.accepted(), (read - 1) as u64, "{text}");
    let number = &last["InvoiceNumber"];
    assert!(
        text.contains("the file changed while it was read")
            && text.contains(&format!("its last document, {number} (line {}),", read + 1))
            && text.contains("was not sent (INV-FILE-CHANGED)")
            && text.contains("Run it again once it is complete"),
        "{text}"
    );
}

/// `12,345`.
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

//! Files that go to `failed/` (broken, grown after being taken, a workbook that cannot be read
//! to its end, one of a two-file export) and results that cannot be written: what is said, and
//! what a second drop sends.

use super::support::*;
use super::*;

#[test]
fn results_that_cannot_be_written_keep_the_counts_and_a_second_drop_sends_nothing_again() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    // A folder where the summary of day.csv goes: its documents are sent, its results are not
    // written.
    let in_the_way = d.join("in/results/day.summary.json");
    std::fs::create_dir_all(&in_the_way).unwrap();
    let w = Watch::start(d, &env, &[]);
    std::fs::write(d.join("in/day.csv"), export(6, "W")).unwrap();
    wait_for(LIMIT, "day.csv and its note in failed/", || {
        d.join("in/failed/day.csv.error.txt").exists()
    });
    assert_eq!(server.accepted(), 6);
    let note = std::fs::read_to_string(d.join("in/failed/day.csv.error.txt")).unwrap();
    assert!(note.contains("before it: 6 rows, 6 accepted"), "{note}");
    assert!(
        note.contains("fix that and move day.csv from failed/ back into the inbox"),
        "{note}"
    );
    wait_for(LIMIT, "status.json with the failure's counts", || {
        let last = &status_of(d)["last_file"];
        last["outcome"] == "failed" && last["rows"] == 6 && last["documents"]["accepted"] == 6
    });
    assert!(w.log().contains("before it: 6 rows, 6 accepted"), "{}", w.log());
    // Fixed, and dropped again as the note says: results written, nothing sent again.
    std::fs::remove_dir(&in_the_way).unwrap();
    std::fs::rename(d.join("in/failed/day.csv"), d.join("in/day.csv")).unwrap();
    // (Under a name of its own: the first attempt's result file, complete, is kept.)
    wait_for(LIMIT, "status.json saying done", || {
        status_of(d)["last_file"]["outcome"] == "done"
    });
    assert_eq!(server.accepted(), 6, "nothing sent again");
    assert_eq!(server.handle.stats().devices[0].replays, 0);
    let result = d.join(status_of(d)["last_file"]["result_file"].as_str().unwrap());
    all_accepted(&result, 6);
    let summary = result.to_string_lossy().replace(".result.csv", ".summary.json");
    assert!(Path::new(&summary).is_file(), "{summary}");
    let done = names(&d.join("in/done"));
    assert!(done.len() == 1 && done[0].starts_with("day."), "{done:?}");
}

#[test]
fn a_broken_file_goes_to_failed_with_its_error_and_temporary_names_are_ignored() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    std::fs::create_dir_all(d.join("in/sub")).unwrap();
    for name in [
        "~$book.xlsx",
        "coming.csv.part",
        "x.tmp",
        ".hidden.csv",
        "sub/inner.csv",
    ] {
        std::fs::write(d.join("in").join(name), export(2, "H")).unwrap();
    }
    std::fs::write(d.join("in/broken.csv"), "this,is\nnot,an export\n").unwrap();
    std::fs::write(d.join("in/binary.xlsx"), [0u8, 1, 2, 3, 255]).unwrap();
    let w = Watch::start(d, &env, &[]);
    // The notes are written aside and renamed: once there, they are whole.
    wait_for(LIMIT, "both files and their notes in failed/", || {
        let failed = names(&d.join("in/failed"));
        [
            "broken.csv",
            "broken.csv.error.txt",
            "binary.xlsx",
            "binary.xlsx.error.txt",
        ]
        .iter()
        .all(|n| failed.iter().any(|f| f == n))
    });
    let error = std::fs::read_to_string(d.join("in/failed/broken.csv.error.txt")).unwrap();
    assert!(error.contains("no bundled mapping fits"), "{error}");
    let error = std::fs::read_to_string(d.join("in/failed/binary.xlsx.error.txt")).unwrap();
    assert!(error.contains("not a spreadsheet"), "{error}");
    wait_for(LIMIT, "the failure in the log", || {
        w.log().contains("broken.csv: failed")
    });
    // One more full scan after the failures: the ignored names are still where they were.
    let scans = |d: &Path| {
        std::fs::metadata(d.join("in/results/status.json"))
            .and_then(|m| m.modified())
            .ok()
    };
    let before = scans(d);
    wait_for(LIMIT, "another scan", || scans(d) != before);
    assert_eq!(
        names(&d.join("in")),
        [
            ".hidden.csv",
            ".processing",
            "coming.csv.part",
            // A lookup table, read from the inbox and left there.
            "customers.csv",
            "done",
            "failed",
            "results",
            "sub",
            "x.tmp",
            "~$book.xlsx"
        ]
    );
    assert_eq!(server.accepted(), 0);
}

#[test]
fn a_file_that_grows_after_it_was_taken_goes_to_failed_and_dropped_again_complete_sends_only_the_rest() {
    // A writer that stalls longer than the quiet period, then writes the rest. Sending is slow
    // until the rest is written: the reading runs at most 7 batches of 100 documents (and one
    // document) ahead of the batch being sent, so while the first batch is being sent it cannot
    // have reached the end of these 1,200 documents.
    let (server, env, dir) = setup(SandboxConfig {
        delay_ms: 1500,
        ..SandboxConfig::default()
    });
    let d = dir.path();
    let w = Watch::start(d, &env, &[]);
    let n = 1210;
    let full = export(n, "G");
    // Cut inside the line of G-01201.
    let cut = full
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(1200)
        .map(|(i, _)| i - 30)
        .unwrap();
    let mut writer = std::fs::File::create(d.join("in/grow.csv")).unwrap();
    std::io::Write::write_all(&mut writer, &full[..cut]).unwrap();
    wait_for(LIMIT, "grow.csv taken", || d.join("in/.processing/grow.csv").exists());
    wait_for(LIMIT, "the first document accepted", || server.accepted() >= 1);
    // The writer goes on, into the file it still holds open (now in .processing/).
    std::io::Write::write_all(&mut writer, &full[cut..]).unwrap();
    drop(writer);
    server
        .handle
        .set_faults(invoicedrop::sandbox::Faults {
            delay_ms: 0,
            ..server.handle.faults()
        })
        .unwrap();
    wait_for(LIMIT, "grow.csv in failed/", || {
        d.join("in/failed/grow.csv.error.txt").exists()
    });
    assert!(names(&d.join("in/done")).is_empty());
    assert_eq!(std::fs::read(d.join("in/failed/grow.csv")).unwrap(), full);
    let note = std::fs::read_to_string(d.join("in/failed/grow.csv.error.txt")).unwrap();
    for part in [
        "the file changed while it was read (",
        "bytes when opened, ",
        "it was still being written, rewritten or replaced while its documents were being sent; the ",
        "were not sent (INV-FILE-CHANGED); those before them were read before it changed, and went on",
        "Drop grow.csv into the inbox again once it is complete: what was accepted is reported from the ledger and only the rest is sent",
    ] {
        assert!(note.contains(part), "{part:?} not in {note}");
    }
    // The result file: the documents of the batches (of 100) read before the change was seen
    // accepted; those of the batch where it was, and after (the last two among them), invalid,
    // not sent, each saying why.
    let rows = results(&d.join("in/results/grow.result.csv"));
    let sent = rows.iter().take_while(|r| r["result_status"] == "accepted").count();
    assert_eq!(sent % 100, 0, "{note}");
    let held = &rows[sent..];
    assert!(held.len() >= 2, "{note}");
    for r in held {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        assert!(
            r["result_errors"].contains("INV-FILE-CHANGED: the file changed while it was read ("),
            "{r:?}"
        );
    }
    let count = held.len().to_string();
    let count = match count.len() {
        4 => format!("{},{}", &count[..1], &count[1..]),
        _ => count,
    };
    assert!(
        note.contains(&format!(
            "the {count} documents from {} (line {}) on, which may mix rows",
            held[0]["InvoiceNumber"],
            sent + 2
        )),
        "{note}"
    );
    assert_eq!(server.accepted(), sent as u64);
    wait_for(LIMIT, "status.json naming grow.csv", || {
        status_of(d)["last_file"]["name"] == "grow.csv"
    });
    let status = status_of(d);
    assert_eq!(status["last_file"]["outcome"], "failed", "{status}");
    assert!(
        status["last_file"]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("INV-FILE-CHANGED"),
        "{status}"
    );
    let log = w.log();
    assert!(
        log.contains("grow.csv: failed: the file changed while it was read"),
        "{log}"
    );

    // Dropped again, complete: the documents accepted are reported from the ledger, the rest is
    // sent, each once.
    std::fs::rename(d.join("in/failed/grow.csv"), d.join("in/grow.csv")).unwrap();
    wait_for(LIMIT, "grow.csv in done/", || names(&d.join("in/done")).len() == 1);
    assert_eq!(server.accepted(), n as u64);
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "replays"), 0, "{stats}");
    assert_eq!(device_count(&stats, "rekeyed_replays"), 0, "{stats}");
    // A time-stamped second result set, since grow.result.csv exists.
    let second: Vec<String> = names(&d.join("in/results"))
        .into_iter()
        .filter(|f| f.starts_with("grow.") && f.ends_with(".result.csv") && f != "grow.result.csv")
        .collect();
    assert_eq!(second.len(), 1, "{second:?}");
    all_accepted(&d.join("in/results").join(&second[0]), n);
}

#[test]
fn a_workbook_that_cannot_be_read_to_its_end_goes_to_failed_and_dropped_again_whole_sends_only_the_rest() {
    let (server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    // 30 invoices of three lines; the sheet stops inside row 61 (T-00020's second line is row
    // 60): T-00020 is read with one line and held back, the 19 before it are sent.
    xero_export_lines(&d.join("export.csv"), 30, 3);
    let whole = d.join("whole.xlsx");
    write_xlsx(&whole, &records(&d.join("export.csv")));
    let damaged = d.join("damaged.xlsx");
    std::fs::copy(&whole, &damaged).unwrap();
    cut_sheet_at_row(&damaged, 61);
    let w = Watch::start(d, &env, &[]);
    std::fs::rename(&damaged, d.join("in/book.xlsx")).unwrap();
    wait_for(LIMIT, "book.xlsx in failed/", || {
        d.join("in/failed/book.xlsx.error.txt").exists()
    });
    let note = std::fs::read_to_string(d.join("in/failed/book.xlsx.error.txt")).unwrap();
    for part in [
        "the file could not be read to its end: ",
        "book.xlsx could not be read as an xlsx workbook (sheet \"Sheet1\" after row 59: ",
        "Its last document, T-00020 (line 59), which may be incomplete, was not sent (INV-FILE-DAMAGED), and the rows after it were not read",
        "Drop book.xlsx into the inbox again once it reads to its end: what was accepted is reported from the ledger and only the rest is sent",
    ] {
        assert!(note.contains(part), "{part:?} not in {note}");
    }
    assert_eq!(server.accepted(), 19, "{note}");
    std::fs::rename(&whole, d.join("in/book.xlsx")).unwrap();
    wait_for(LIMIT, "book.xlsx in done/", || !names(&d.join("in/done")).is_empty());
    assert_eq!(server.accepted(), 30, "only the rest was sent");
    drop(w);
}

/// The two files of a two-file export (SAP Business One DTW) dropped into the inbox: each goes to
/// `failed/`, and each error says what is wrong and what to do instead (`run` them together),
/// not that a path or a permission is wrong.
#[test]
fn the_two_files_of_a_two_file_export_fail_saying_to_run_them_together() {
    let (_server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start(d, &env, &[]);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for name in ["SAP_B1_OINV_Document_Lines.txt", "SAP_B1_OINV_Documents.txt"] {
        std::fs::copy(samples.join(name), d.join(name)).unwrap();
        std::fs::rename(d.join(name), d.join("in").join(name)).unwrap();
    }
    let error = |name: &str| d.join("in/failed").join(format!("{name}.error.txt"));
    wait_for(LIMIT, "both files in failed/", || {
        error("SAP_B1_OINV_Document_Lines.txt").exists() && error("SAP_B1_OINV_Documents.txt").exists()
    });
    let lines = std::fs::read_to_string(error("SAP_B1_OINV_Document_Lines.txt")).unwrap();
    assert!(
        lines.contains(
            "this is the lines file of a sap-b1-dtw export, read with its header file SAP_B1_OINV_Documents.txt, \
             which is not beside it: put the two files side by side and give them together to `invoicedrop \
             check` or `invoicedrop run` (`invoicedrop watch` takes files one at a time and cannot pair the two \
             files of such an export)"
        ),
        "{lines}"
    );
    assert!(!lines.contains("check that the path is right"), "{lines}");
    let header = std::fs::read_to_string(error("SAP_B1_OINV_Documents.txt")).unwrap();
    assert!(
        header.contains("this is the header file of a sap-b1-dtw export; check or run its lines file"),
        "{header}"
    );
    assert!(
        header.contains("cannot pair the two files of such an export"),
        "{header}"
    );
    drop(w);
}

/// `-q` keeps only errors: a file moved to `failed/` is one, so a journal filtered to errors
/// shows it.
#[test]
fn with_q_a_file_that_failed_is_still_logged() {
    let (_server, env, dir) = setup(SandboxConfig::default());
    let d = dir.path();
    let w = Watch::start(d, &env, &["-q"]);
    std::fs::write(d.join("in/broken.csv"), "not an export\n").unwrap();
    wait_for(LIMIT, "broken.csv in failed/", || {
        d.join("in/failed/broken.csv.error.txt").exists()
    });
    wait_for(LIMIT, "the failure logged under -q", || {
        w.log().contains("ERROR") && w.log().contains("broken.csv: failed:")
    });
}

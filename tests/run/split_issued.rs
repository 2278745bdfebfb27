//! Documents issued in an earlier run whose rows are now apart in the export (other rows between
//! its parts), through the real binary and a sandbox on loopback: the parts are read together
//! and the document is reported as the ledger holds it, counted once on its first part's first
//! row, never sent. The same content is `accepted` (`INV-MAP-SPLIT` a warning), other content
//! or a `Voided` mark the usual `INV-LEDGER-CONFLICT`, a number sent without a final answer
//! `failed`; a number never issued stays `invalid` on every part, and `check` (no ledger) says
//! `invalid` for all of them.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

type Rows = Vec<BTreeMap<String, String>>;

/// The export's lines (header first) by number: `T-00001` → its lines, in order.
fn lines_by_number(path: &Path) -> (String, BTreeMap<String, Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let mut by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in lines {
        let number = l.split(',').nth(18).unwrap().to_string();
        by.entry(number).or_default().push(l.to_string());
    }
    (header, by)
}

/// A line with its cell `at` set to `value`.
fn with_cell(line: &str, at: usize, value: &str) -> String {
    let mut cells: Vec<&str> = line.split(',').collect();
    cells[at] = value;
    cells.join(",")
}

/// A line with its number (and nothing else) changed.
fn renumbered(line: &str, number: &str) -> String {
    with_cell(line, 18, number)
}

fn write_lines(path: &Path, header: &str, lines: &[String]) {
    let mut out = format!("{header}\n");
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

fn rows_of<'a>(rows: &'a Rows, number: &str) -> Vec<&'a BTreeMap<String, String>> {
    rows.iter().filter(|r| r["result_document"] == number).collect()
}

fn doc<'a>(docs: &'a Rows, number: &str) -> Vec<&'a BTreeMap<String, String>> {
    docs.iter().filter(|d| d["document"] == number).collect()
}

fn report_json(dir: &Path) -> Value {
    let o = run(dir, &[], &["--json", "report", "results"]);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)))
}

#[test]
fn an_issued_document_whose_rows_are_now_apart_is_reported_issued_once_and_not_sent() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let a = dir.path().join("a.csv");
    xero_export_lines(&a, 4, 2);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = results(&dir.path().join("results/a.result.csv"));
    let first_docs = results(&dir.path().join("results/a.documents.csv"));
    let before_report = report_json(dir.path());
    let before = requests(&server);

    // T-00001 apart, as issued; T-00003 apart, with another description on its second part;
    // T-00004 apart and now marked Voided; T-00005 apart and never issued, around all of them.
    let (header, by) = lines_by_number(&a);
    let t = |n: usize, k: usize| by[&format!("T-{n:05}")][k].clone();
    let voided = |line: String| with_cell(&line, 43, "Voided");
    let new = |k: usize| renumbered(&t(2, k), "T-00005");
    let lines = [
        new(0),                                  // 2
        t(1, 0),                                 // 3
        t(2, 0),                                 // 4
        t(2, 1),                                 // 5
        t(1, 1),                                 // 6
        t(3, 0),                                 // 7
        voided(t(4, 0)),                         // 8
        with_cell(&t(3, 1), 28, "Another book"), // 9
        voided(t(4, 1)),                         // 10
        new(1),                                  // 11
    ];
    write_lines(&a, &header, &lines);
    let o = run(dir.path(), &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "conflicts and an invalid: {}", text(&o));
    assert_eq!(requests(&server), before, "nothing was sent");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    // Each issued document once; the one never issued, invalid on each part as before.
    let counts = serde_json::json!({"valid": 0, "invalid": 2, "skipped": 0, "accepted": 4, "rejected": 0,
        "failed": 0, "conflicts": 2, "issued_before": 4, "kept": 0});
    assert_eq!(v["documents"], counts, "{v:#}");
    assert_eq!(v["files"][0]["documents"], counts);

    let now = results(&dir.path().join("results/a.result.csv"));
    assert_eq!(now.len(), 10);
    let uuid_of = |n: &str| rows_of(&first, n)[0]["result_uuid"].clone();
    for n in ["T-00001", "T-00003", "T-00004"] {
        for r in rows_of(&now, n) {
            assert_eq!(r["result_status"], "accepted", "{r:?}");
            assert_eq!(r["result_uuid"], uuid_of(n), "{r:?}");
            assert!(!r["result_qr"].is_empty(), "{r:?}");
            let xml = dir.path().join("results").join(&r["result_xml_file"]);
            assert!(!r["result_xml_file"].is_empty() && xml.is_file(), "{r:?}");
        }
    }
    // T-00001: as issued. Accepted, the rows apart a warning on each part's first row.
    let t1 = rows_of(&now, "T-00001");
    assert_eq!(t1[0]["result_errors"], "", "{:?}", t1[0]);
    assert!(
        t1[0]["result_warnings"].contains(
            "INV-MAP-SPLIT InvoiceNumber \"T-00001\": this document's rows are not together in the file (its 2 \
             parts start at lines 3 and 6); read together, they are what was issued under its number, so it is \
             reported issued (counted once, on line 3) and nothing was sent"
        ),
        "{:?}",
        t1[0]
    );
    assert_eq!(t1[1]["result_errors"], "", "{:?}", t1[1]);
    assert!(
        t1[1]["result_warnings"].contains("INV-MAP-SPLIT InvoiceNumber \"T-00001\"")
            && t1[1]["result_warnings"].contains("INV-DOCUMENT: a part of the document counted on line 3"),
        "{:?}",
        t1[1]
    );
    // T-00003: other content. The usual conflict, said once on its first row.
    let t3 = rows_of(&now, "T-00003");
    assert!(
        t3[0]["result_errors"].starts_with("INV-LEDGER-CONFLICT: invoice T-00003 is issued")
            && t3[0]["result_errors"].contains("Its totals are unchanged"),
        "{:?}",
        t3[0]
    );
    assert!(t3[0]["result_warnings"].contains("INV-MAP-SPLIT"), "{:?}", t3[0]);
    assert_eq!(
        t3[1]["result_errors"],
        "INV-DOCUMENT: issued earlier with other content: see INV-LEDGER-CONFLICT on line 7, the document's \
         first row"
    );
    // T-00004: marked Voided. Still issued (a skip rule cannot withdraw it).
    let t4 = rows_of(&now, "T-00004");
    assert!(
        t4[0]["result_errors"]
            .starts_with("INV-LEDGER-CONFLICT: the export now marks invoice T-00004 as not to be issued"),
        "{:?}",
        t4[0]
    );
    assert!(
        t4[1]["result_errors"].contains("see INV-LEDGER-CONFLICT on line 8"),
        "{:?}",
        t4[1]
    );
    // T-00005: never issued: invalid on each part, as before.
    let t5 = rows_of(&now, "T-00005");
    for r in &t5 {
        assert_eq!(
            (r["result_status"].as_str(), r["result_uuid"].as_str()),
            ("invalid", "")
        );
        assert!(
            r["result_errors"].starts_with(
                "INV-MAP-SPLIT InvoiceNumber \"T-00005\": this document's rows are not together in the file (its 2 \
                 parts start at lines 2 and 11): no part of it is issued"
            ),
            "{r:?}"
        );
    }
    assert_eq!(rows_of(&now, "T-00002")[0]["result_uuid"], uuid_of("T-00002"));

    // X.documents.csv: each issued document once, with what was issued.
    let docs = results(&dir.path().join("results/a.documents.csv"));
    assert_eq!(docs.len(), 6, "{docs:#?}");
    for (n, errors) in [
        ("T-00001", ""),
        ("T-00003", "INV-LEDGER-CONFLICT"),
        ("T-00004", "INV-LEDGER-CONFLICT"),
    ] {
        let d = doc(&docs, n);
        assert_eq!(d.len(), 1, "{n} once: {docs:#?}");
        let was = doc(&first_docs, n)[0];
        assert_eq!(
            (d[0]["status"].as_str(), d[0]["errors"].as_str()),
            ("accepted", errors),
            "{n}"
        );
        assert_eq!(d[0]["rows"], "2", "{n}");
        for col in ["kind", "net", "vat", "gross", "payable", "uuid"] {
            assert_eq!(d[0][col], was[col], "{n} {col}");
        }
    }
    assert!(doc(&docs, "T-00001")[0]["warnings"].contains("INV-MAP-SPLIT"));
    assert_eq!(doc(&docs, "T-00005").len(), 2);

    // X.summary.json counts the same.
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results/a.summary.json")).unwrap()).unwrap();
    assert_eq!(summary["by_status"]["accepted"]["documents"], 4, "{summary:#}");
    assert_eq!(summary["by_status"]["invalid"]["documents"], 2, "{summary:#}");
    assert_eq!(summary["conflicts"]["documents"], 2, "{summary:#}");
    // `report`: the same issued documents and amounts as after the first run.
    let v = report_json(dir.path());
    assert_eq!(v["overall"], before_report["overall"], "{v:#}");

    // `check` reads no ledger: every part of every document apart is invalid.
    let o = run(dir.path(), &[], &["check", "a.csv", "--results", "c"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let checked = results(&dir.path().join("c/a.result.csv"));
    for n in ["T-00001", "T-00003", "T-00005"] {
        let rows = rows_of(&checked, n);
        assert!(rows.iter().all(|r| r["result_status"] == "invalid"), "{rows:?}");
        assert!(rows[0]["result_errors"].contains("no part of it is issued"), "{rows:?}");
    }
}

#[test]
fn a_number_maybe_issued_whose_rows_are_now_apart_is_failed_once() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(".invoicedrop");
    let till = |id: &str| {
        onboard_as(dir.path(), &env, id);
    };
    till("till-1");
    let earlier = onboard_id(&state);
    let a = dir.path().join("a.csv");
    xero_export_lines(&a, 2, 2);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // As if the earlier device's answer for T-00001 had been lost: sent, outcome unknown (this
    // device cannot settle it at the start of a run).
    lose_answer(&state, "T-00001");
    till("till-2");
    let before = requests(&server);
    let (header, by) = lines_by_number(&a);
    let (t1, t2) = (&by["T-00001"], &by["T-00002"]);
    write_lines(
        &a,
        &header,
        &[t1[0].clone(), t2[0].clone(), t2[1].clone(), t1[1].clone()],
    );
    let o = run(dir.path(), &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(requests(&server), before, "nothing was sent");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        v["documents"],
        serde_json::json!({"valid": 0, "invalid": 0, "skipped": 0, "accepted": 1, "rejected": 0, "failed": 1,
            "conflicts": 0, "issued_before": 1, "kept": 0}),
        "{v:#}"
    );
    let now = results(&dir.path().join("results/a.result.csv"));
    let t1 = rows_of(&now, "T-00001");
    assert_eq!(t1.len(), 2);
    for r in &t1 {
        assert_eq!(
            (r["result_status"].as_str(), r["result_uuid"].as_str()),
            ("failed", ""),
            "{r:?}"
        );
        assert!(
            r["result_errors"].contains(&format!(
                "INV-SUBMIT-UNKNOWN: not sent: invoice T-00001 was sent through the earlier device {earlier}"
            )) && r["result_errors"].contains(&format!("INVOICEDROP_ONBOARD_ID={earlier}")),
            "{r:?}"
        );
    }
    assert!(
        t1[0]["result_errors"].contains("INV-MAP-SPLIT InvoiceNumber \"T-00001\"")
            && t1[0]["result_errors"].contains("sent earlier without a final answer"),
        "{:?}",
        t1[0]
    );
    assert!(
        t1[1]["result_errors"].contains("INV-DOCUMENT: a part of the document counted on line 2"),
        "{:?}",
        t1[1]
    );
    let docs = results(&dir.path().join("results/a.documents.csv"));
    let d = doc(&docs, "T-00001");
    // The earlier results hold its signed XML (the answer this ledger lost): kept as issued
    // beside this run's result for it, with no row (see run/gone.rs).
    assert_eq!(d.len(), 2, "{docs:#?}");
    assert_eq!((d[0]["status"].as_str(), d[0]["rows"].as_str()), ("failed", "2"));
    assert_eq!((d[1]["status"].as_str(), d[1]["rows"].as_str()), ("accepted", "0"));
    assert!(
        v["files"][0]["notes"].as_array().is_some_and(|n| n.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.starts_with("T-00001 issued earlier and still in this export")))),
        "{v:#}"
    );
}

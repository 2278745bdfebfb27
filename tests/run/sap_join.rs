//! SAP Business One's two files: a document of the header file whose lines the lines file
//! leaves out is not sent, is invalid in the results (`INV-MAP-NO-LINES`) and makes the run exit
//! 1; when an earlier run issued it, the finding says the ledger holds it.

use super::support::*;
use std::path::Path;

/// The lines file (one line for each of `with_lines`, by RecordKey) and the header file of
/// documents 600201 (RecordKey 1) and 600203 (RecordKey 3), dated yesterday.
fn export(dir: &Path, with_lines: &[&str]) {
    let date = (chrono::Utc::now() - chrono::Duration::days(1)).format("%Y%m%d");
    let mut lines = "ParentKey\tLineNum\tItemCode\tItemDescription\tQuantity\tPrice\tCurrency\tDiscountPercent\tTaxCode\tLineTotal\r\n\
                     DocNum\tLineNum\tItemCode\tDscription\tQuantity\tPrice\tCurrency\tDiscPrcnt\tTaxCode\tLineTotal\r\n"
        .to_string();
    for key in with_lines {
        lines.push_str(&format!("{key}\t0\tA-100\tToner\t2\t100.00\tSAR\t0\tS15\t200.00\r\n"));
    }
    let mut docs = "RecordKey\tDocNum\tDocDate\tDocDueDate\tCardCode\tCardName\tNumAtCard\tDocCurrency\r\n\
                    RecordKey\tDocNum\tDocDate\tDocDueDate\tCardCode\tCardName\tNumAtCard\tDocCur\r\n"
        .to_string();
    for (key, num) in [("1", "600201"), ("3", "600203")] {
        docs.push_str(&format!(
            "{key}\t{num}\t{date}\t{date}\tC-1\tWalk-in Customer\tPO-{key}\tSAR\r\n"
        ));
    }
    std::fs::write(dir.join("OINV_Document_Lines.txt"), lines).unwrap();
    std::fs::write(dir.join("OINV_Documents.txt"), docs).unwrap();
}

/// Run the export; its exit code and its result rows of document 600203.
fn run_export(dir: &Path) -> (Option<i32>, Vec<std::collections::BTreeMap<String, String>>, String) {
    let o = run(
        dir,
        &[],
        &["run", "OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
    );
    let rows = results(&dir.join("r/OINV_Document_Lines.result.csv"))
        .into_iter()
        .filter(|r| r["result_document"] == "600203")
        .collect();
    (o.status.code(), rows, text(&o))
}

#[test]
fn a_header_record_without_lines_is_not_sent_and_says_whether_an_earlier_run_issued_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    export(d, &["1"]);
    let (code, rows, out) = run_export(d);
    assert_eq!(code, Some(1), "{out}");
    let [row] = rows.as_slice() else {
        panic!("{rows:?}\n{out}")
    };
    assert_eq!(
        (row["result_status"].as_str(), row["ParentKey"].as_str()),
        ("invalid", "3")
    );
    assert!(row["result_uuid"].is_empty());
    let e = &row["result_errors"];
    assert!(
        e.starts_with("INV-MAP-NO-LINES OINV_Documents.txt RecordKey \"3\": document 600203 (line 4 of the header file) has no lines") && !e.contains("ledger"),
        "{e}"
    );
    assert!(out.contains("1 accepted") && out.contains("1 invalid"), "{out}");

    // Its lines exported: issued.
    export(d, &["1", "3"]);
    let (code, rows, out) = run_export(d);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        rows.len() == 1 && rows[0]["result_status"] == "accepted",
        "{rows:?}\n{out}"
    );

    // Left out again: invalid, and the ledger's word on it said.
    export(d, &["1"]);
    let (code, rows, out) = run_export(d);
    assert_eq!(code, Some(1), "{out}");
    let [row] = rows.as_slice() else {
        panic!("{rows:?}\n{out}")
    };
    assert_eq!(row["result_status"], "invalid");
    assert!(
        row["result_errors"].ends_with(
            "(the ledger holds 600203 from an earlier run: it was issued then, or maybe issued, and stays so)"
        ),
        "{row:?}"
    );
}

/// The lines file (one line for each key of `lines`) and the header file of `docs` (RecordKey,
/// DocNum), dated yesterday.
fn export_docs(dir: &Path, lines: &[&str], docs: &[(&str, &str)]) {
    export(dir, lines);
    let date = (chrono::Utc::now() - chrono::Duration::days(1)).format("%Y%m%d");
    let mut text = "RecordKey\tDocNum\tDocDate\tDocDueDate\tCardCode\tCardName\tNumAtCard\tDocCurrency\r\n\
                    RecordKey\tDocNum\tDocDate\tDocDueDate\tCardCode\tCardName\tNumAtCard\tDocCur\r\n"
        .to_string();
    for (key, num) in docs {
        text.push_str(&format!(
            "{key}\t{num}\t{date}\t{date}\tC-1\tWalk-in Customer\tPO-{num}\tSAR\r\n"
        ));
    }
    std::fs::write(dir.join("OINV_Documents.txt"), text).unwrap();
}

#[test]
fn header_records_with_a_shared_or_blank_record_key_are_never_sent() {
    let server = Server::start(invoicedrop::sandbox::SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    // RecordKey 2 on 600202 and 600203 (whose lines cannot be told apart), none on 600204.
    export_docs(
        d,
        &["1", "2", "2"],
        &[("1", "600201"), ("2", "600202"), ("2", "600203"), ("", "600204")],
    );
    let o = run(
        d,
        &env,
        &["run", "OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
    );
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(requests(&server), (1, 0, 0), "600201 alone is sent: {out}");
    assert_eq!(server.issued(&onboard_id(&d.join(".invoicedrop"))), ["600201"]);
    let rows = results(&d.join("r/OINV_Document_Lines.result.csv"));
    let said: Vec<(&str, &str, bool, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["result_document"].as_str(),
                r["result_status"].as_str(),
                r["result_uuid"].is_empty(),
                r["result_errors"].split(' ').next().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            // The lines file's second header row, on its line.
            ("", "skipped", true, ""),
            ("600201", "accepted", false, ""),
            ("600202", "invalid", true, "INV-MAP-KEY-DUPLICATE"),
            ("600202", "invalid", true, "INV-DOCUMENT:"),
            ("600203", "invalid", true, "INV-MAP-KEY-DUPLICATE"),
            ("600204", "invalid", true, "INV-MAP-KEY-BLANK"),
        ],
        "{out}"
    );
    assert!(out.contains("1 accepted") && out.contains("3 invalid"), "{out}");
}

/// The records of `X.documents.csv` of 600203: (kind, status, first_line, whether its warnings
/// say INV-NOT-IN-EXPORT).
fn records_of_600203(dir: &Path) -> Vec<(String, String, String, bool)> {
    results(&dir.join("r/OINV_Document_Lines.documents.csv"))
        .into_iter()
        .filter(|r| r["document"] == "600203")
        .map(|r| {
            (
                r["kind"].clone(),
                r["status"].clone(),
                r["first_line"].clone(),
                r["warnings"].contains("INV-NOT-IN-EXPORT"),
            )
        })
        .collect()
}

#[test]
fn an_issued_document_whose_lines_are_left_out_is_still_in_the_export_and_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    export(d, &["1", "3"]);
    let (code, _, out) = run_export(d);
    assert_eq!(code, Some(0), "{out}");
    // Re-exported with the lines file cut before 600203's lines; its header record still there.
    export(d, &["1"]);
    let (code, _, out) = run_export(d);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        !out.contains("INV-NOT-IN-EXPORT")
            && out.contains("600203 issued earlier and still in this export, not accepted in these results"),
        "{out}"
    );
    // Its invalid record is known by its kind and line (its record's, in the header file), beside
    // the issued one, which counts instead of it.
    assert_eq!(
        records_of_600203(d),
        [
            ("invoice".into(), "invalid".into(), "4".into(), false),
            ("invoice".into(), "accepted".into(), String::new(), false),
        ]
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r/OINV_Document_Lines.summary.json")).unwrap()).unwrap();
    assert_eq!(summary["documents"]["documents"], 2, "{summary:#}");
    assert_eq!(summary["by_status"]["accepted"]["documents"], 2, "{summary:#}");
    assert!(summary["by_status"]["invalid"].is_null(), "{summary:#}");
}

#[test]
fn a_docnum_on_two_records_is_sent_once_and_the_later_one_stays_invalid_when_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 600201 under RecordKeys 1 and 3, the same content.
    export_docs(d, &["1", "3"], &[("1", "600201"), ("3", "600201")]);
    for round in ["first", "again"] {
        let o = run(
            d,
            &[],
            &["run", "OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
        );
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{round}: {out}");
        let said: Vec<(String, String)> = results(&d.join("r/OINV_Document_Lines.result.csv"))
            .into_iter()
            .map(|r| {
                let code = r["result_errors"].split(' ').next().unwrap_or("").to_string();
                (r["result_status"].clone(), code)
            })
            .collect();
        assert_eq!(
            said,
            [
                // The lines file's second header row, on its line.
                ("skipped".to_string(), String::new()),
                ("accepted".to_string(), String::new()),
                ("invalid".to_string(), "INV-NUMBER-USED".to_string())
            ],
            "{round}: {out}"
        );
        assert!(
            out.contains("1 accepted") && out.contains("1 invalid"),
            "{round}: {out}"
        );
    }
}

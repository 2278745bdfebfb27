//! Reruns of issued documents whose export changed, through the real binary and a sandbox on
//! loopback: an issued invoice whose export now fails the checks is still issued (accepted with
//! `INV-LEDGER-CONFLICT`, from the ledger, nothing sent), one sent without a final answer is
//! `failed` with how to settle it, and a number never issued that fails them stays `invalid`;
//! the conflict is said once per document (CSV and xlsx), and `--json`'s `document_list` marks
//! it with what was issued.

use super::support::*;
use calamine::Reader;
use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

type Rows = Vec<BTreeMap<String, String>>;

/// Every row of `file` (a CSV export) whose `InvoiceNumber` is `number`, as (line, row).
fn rows_of<'a>(rows: &'a Rows, number: &str) -> Vec<&'a BTreeMap<String, String>> {
    rows.iter().filter(|r| r["result_document"] == number).collect()
}

/// The export's records, edited: `edit(number, nth line of that document, record)`.
fn edit_export(path: &Path, mut edit: impl FnMut(&str, usize, &mut Vec<String>)) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let number_at = headers.iter().position(|h| h == "InvoiceNumber").unwrap();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = vec![headers];
    for rec in r.records() {
        let mut rec: Vec<String> = rec.unwrap().iter().map(str::to_string).collect();
        let number = rec[number_at].clone();
        let nth = seen.entry(number.clone()).or_default();
        edit(&number, *nth, &mut rec);
        *nth += 1;
        out.push(rec);
    }
    out
}

fn write_csv(path: &Path, rows: &[Vec<String>]) {
    let mut w = csv::Writer::from_path(path).unwrap();
    for r in rows {
        w.write_record(r).unwrap();
    }
    w.flush().unwrap();
}

fn column(rows: &[Vec<String>], name: &str) -> usize {
    rows[0].iter().position(|h| h == name).unwrap()
}

#[test]
fn an_issued_invoice_whose_export_now_fails_the_checks_is_reported_issued_and_not_sent() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let a = dir.path().join("a.csv");
    xero_export_lines(&a, 3, 2);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = results(&dir.path().join("results/a.result.csv"));
    let first_docs = results(&dir.path().join("results/a.documents.csv"));
    let before = requests(&server);

    // T-00002: a negative quantity on its second line (issued: now fails the checks);
    // T-00003: another description on its first line (issued: a plain conflict); T-00004: new,
    // with a negative quantity (never issued: invalid as before).
    let mut rows = edit_export(&a, |number, nth, rec| {
        if number == "T-00002" && nth == 1 {
            rec[29] = "-1".into();
        }
        if number == "T-00003" && nth == 0 {
            rec[28] = "Another book".into();
        }
    });
    let extra: Vec<Vec<String>> = rows[rows.len() - 2..]
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r[18] = "T-00004".into();
            r
        })
        .collect();
    rows.extend(extra);
    let last = rows.len() - 1;
    rows[last][29] = "-1".into();
    assert_eq!(rows[0][29], "Quantity");
    write_csv(&a, &rows);
    let o = run(dir.path(), &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "conflicts and an invalid: {}", text(&o));
    assert_eq!(requests(&server), before, "nothing was sent");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));

    let now = results(&dir.path().join("results/a.result.csv"));
    let uuid_of = |rows: &Rows, n: &str| rows_of(rows, n)[0]["result_uuid"].clone();
    // The issued invoice whose export now fails the checks: accepted, with its issued UUID.
    let t2 = rows_of(&now, "T-00002");
    assert_eq!(t2.len(), 2);
    for r in &t2 {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
        assert_eq!(r["result_uuid"], uuid_of(&first, "T-00002"));
        assert!(!r["result_xml_file"].is_empty() && !r["result_qr"].is_empty(), "{r:?}");
    }
    let conflict = &t2[0]["result_errors"];
    assert_eq!(conflict.matches("INV-LEDGER-CONFLICT").count(), 1, "{conflict}");
    assert!(
        conflict.contains("T-00002 is issued")
            && conflict.contains(&uuid_of(&first, "T-00002"))
            && conflict.contains("credit note")
            && conflict.contains("fails the checks made before sending (BR-KSA-F-04 on line 5"),
        "{conflict}"
    );
    // The finding stays on its row, as a warning; the row refers to the conflict.
    assert!(
        t2[1]["result_warnings"].starts_with("BR-KSA-F-04 Quantity \"-1\""),
        "{:?}",
        t2[1]
    );
    assert_eq!(
        t2[1]["result_errors"],
        "INV-DOCUMENT: issued earlier with other content: see INV-LEDGER-CONFLICT on line 4, the document's \
         first row"
    );
    // The plain conflict: said once too.
    let t3 = rows_of(&now, "T-00003");
    assert!(t3[0]["result_errors"].starts_with("INV-LEDGER-CONFLICT: invoice T-00003 is issued"));
    // It says what changed, with both values.
    let said = &t3[0]["result_errors"];
    assert!(
        said.contains("What differs from the issued document: invoice_lines[0].item.name \"Another book\" (issued: \""),
        "{said}"
    );
    assert!(t3[1]["result_errors"].starts_with("INV-DOCUMENT: issued earlier with other content: see"));
    assert_eq!(t3[1]["result_status"], "accepted");
    // Never issued: invalid, as before.
    let t4 = rows_of(&now, "T-00004");
    assert!(
        t4.iter()
            .all(|r| r["result_status"] == "invalid" && r["result_uuid"].is_empty())
    );
    assert!(t4[1]["result_errors"].starts_with("BR-KSA-F-04"), "{:?}", t4[1]);
    assert!(t4[0]["result_errors"].starts_with("INV-DOCUMENT: the document has errors"));
    assert_eq!(rows_of(&now, "T-00001"), rows_of(&first, "T-00001"), "unchanged");

    // The document: issued figures, the conflict an error, the finding a warning.
    let docs = results(&dir.path().join("results/a.documents.csv"));
    let doc = |docs: &Rows, n: &str| docs.iter().find(|d| d["document"] == n).unwrap().clone();
    let (d2, was) = (doc(&docs, "T-00002"), doc(&first_docs, "T-00002"));
    assert_eq!(
        (d2["status"].as_str(), d2["errors"].as_str()),
        ("accepted", "INV-LEDGER-CONFLICT")
    );
    assert!(d2["warnings"].split(' ').any(|w| w == "BR-KSA-F-04"), "{d2:?}");
    for col in ["net", "vat", "gross", "payable", "uuid"] {
        assert_eq!(d2[col], was[col], "{col}");
    }

    // Counted as accepted with a conflict, like any conflict.
    assert_eq!(
        v["documents"],
        serde_json::json!({"valid": 0, "invalid": 1, "skipped": 0, "accepted": 3, "rejected": 0, "failed": 0,
            "conflicts": 2, "issued_before": 3, "kept": 0}),
        "{v:#}"
    );
    let list = v["files"][0]["document_list"].as_array().unwrap();
    let brief = |n: &str| list.iter().find(|d| d["number"] == n).unwrap().clone();
    let b2 = brief("T-00002");
    assert_eq!(b2["conflict"], true, "{b2:#}");
    assert_eq!(b2["issued"]["uuid"], uuid_of(&first, "T-00002").as_str());
    assert_eq!(b2["issued"]["payable"], was["payable"].as_str(), "{b2:#}");
    assert_ne!(
        b2["payable"], b2["issued"]["payable"],
        "the export's amount stays the export's"
    );
    assert_eq!(brief("T-00003")["conflict"], true);
    for n in ["T-00001", "T-00004"] {
        let b = brief(n);
        assert_eq!(b["conflict"], false, "{b:#}");
        assert!(b.get("issued").is_none(), "{b:#}");
    }
}

#[test]
fn a_conflict_is_said_once_in_the_spreadsheet_result_too() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let csv_path = dir.path().join("a.csv");
    xero_export_lines(&csv_path, 2, 3);
    let rows = edit_export(&csv_path, |_, _, _| {});
    let x = dir.path().join("a.xlsx");
    write_xlsx(&x, &rows);
    let args = ["run", "--mapping", "xero", "a.xlsx"];
    let o = run(dir.path(), &env, &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // As if accepted long ago: the ledger's time of the acceptance, which the conflict's rows
    // keep as their result_time (QA9 #2: they had the rerun's time).
    backdate_acceptance(&dir.path().join(".invoicedrop"), "T-00001");
    let description = column(&rows, "Description");
    let changed = edit_export(&csv_path, |number, nth, rec| {
        if number == "T-00001" && nth == 1 {
            rec[description] = "Another book".into();
        }
    });
    write_xlsx(&x, &changed);
    let o = run(dir.path(), &env, &["--json", "run", "--mapping", "xero", "a.xlsx"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // --json marks the conflict in document_list, with what was issued.
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let list = v["files"][0]["document_list"].as_array().unwrap();
    let t1 = list.iter().find(|d| d["number"] == "T-00001").unwrap();
    assert_eq!(t1["conflict"], true, "{t1:#}");
    assert_eq!(
        t1["issued"]["payable"], t1["payable"],
        "only the description changed: {t1:#}"
    );
    assert!(!t1["issued"]["uuid"].as_str().unwrap_or_default().is_empty(), "{t1:#}");
    let t2 = list.iter().find(|d| d["number"] == "T-00002").unwrap();
    assert_eq!(
        (t2["conflict"].as_bool(), t2.get("issued")),
        (Some(false), None),
        "{t2:#}"
    );

    let csv_rows = results(&dir.path().join("results/a.result.csv"));
    let mut book = calamine::open_workbook_auto(dir.path().join("results/a.result.xlsx")).unwrap();
    let sheet = book.worksheet_range("Results").unwrap();
    let cells: Vec<Vec<String>> = sheet
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect();
    let at = |name: &str| cells[0].iter().position(|h| h == name).unwrap();
    let xlsx_errors: Vec<(String, String)> = cells[1..]
        .iter()
        .map(|r| (r[at("result_document")].clone(), r[at("result_errors")].clone()))
        .collect();
    let csv_errors: Vec<(String, String)> = csv_rows
        .iter()
        .map(|r| (r["result_document"].clone(), r["result_errors"].clone()))
        .collect();
    assert_eq!(xlsx_errors, csv_errors, "the spreadsheet says what the CSV says");
    let t1: Vec<&String> = csv_errors
        .iter()
        .filter(|(n, _)| n == "T-00001")
        .map(|(_, e)| e)
        .collect();
    assert_eq!(t1.len(), 3);
    for r in csv_rows.iter().filter(|r| r["result_document"] == "T-00001") {
        assert_eq!(r["result_time"], "2026-01-02T03:04:05Z", "when it was accepted: {r:?}");
    }
    assert!(
        t1[0].starts_with("INV-LEDGER-CONFLICT: invoice T-00001 is issued"),
        "{}",
        t1[0]
    );
    for e in &t1[1..] {
        assert_eq!(
            e.as_str(),
            "INV-DOCUMENT: issued earlier with other content: see INV-LEDGER-CONFLICT on line 2, the document's first row"
        );
    }
    let said: usize = csv_errors
        .iter()
        .map(|(_, e)| e.matches("INV-LEDGER-CONFLICT:").count())
        .sum();
    assert_eq!(said, 1, "{csv_errors:#?}");
    // The "Errors" sheet lists the conflict once, and each other row's reference.
    let errors = book.worksheet_range("Errors").unwrap();
    let codes: Vec<String> = errors
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("|"))
        .collect();
    assert_eq!(
        codes.iter().filter(|r| r.contains("|INV-LEDGER-CONFLICT|")).count(),
        1,
        "{codes:#?}"
    );
    assert_eq!(
        codes.iter().filter(|r| r.contains("|INV-DOCUMENT|")).count(),
        2,
        "{codes:#?}"
    );
}

#[test]
fn a_number_maybe_issued_whose_export_now_fails_the_checks_is_failed_with_how_to_settle_it() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(".invoicedrop");
    onboard_as(dir.path(), &env, "till-1");
    let earlier = onboard_id(&state);
    let a = dir.path().join("a.csv");
    xero_export_lines(&a, 2, 2);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // As if the earlier device's answer for T-00001 had been lost: sent, outcome unknown.
    lose_answer(&state, "T-00001");
    onboard_as(dir.path(), &env, "till-2");
    let rows = edit_export(&a, |number, nth, rec| {
        if number == "T-00001" && nth == 1 {
            rec[29] = "-1".into();
        }
    });
    write_csv(&a, &rows);
    let before = requests(&server);
    let o = run(dir.path(), &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(requests(&server), before, "nothing was sent");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        (v["documents"]["failed"].as_u64(), v["documents"]["invalid"].as_u64()),
        (Some(1), Some(0))
    );
    let now = results(&dir.path().join("results/a.result.csv"));
    let t1 = rows_of(&now, "T-00001");
    for r in &t1 {
        assert_eq!(r["result_status"], "failed", "{r:?}");
        assert!(r["result_uuid"].is_empty());
        let e = &r["result_errors"];
        assert!(
            e.contains(&format!(
                "INV-SUBMIT-UNKNOWN: not sent: invoice T-00001 was sent through the earlier device {earlier}"
            )) && e.contains(&format!("INVOICEDROP_ONBOARD_ID={earlier}"))
                && e.contains("fails the checks made before sending (BR-KSA-F-04 on line 3)"),
            "{e}"
        );
    }
    // The finding itself stays an error on its row.
    assert!(
        t1[1]["result_errors"].starts_with("BR-KSA-F-04 Quantity \"-1\""),
        "{:?}",
        t1[1]
    );
    assert_eq!(rows_of(&now, "T-00002")[0]["result_status"], "accepted");
}

//! Result files: every result column for every status, the spreadsheet result against the CSV,
//! the documents ledger and summary written by `check`, and how result sets are written and
//! replaced (atomically, artefacts swapped as a whole).

#[path = "results_files/artefacts.rs"]
mod artefacts;
#[path = "results_files/common.rs"]
mod common;
#[path = "results_files/writer.rs"]
mod writer;

use calamine::{Data, Reader};
use common::*;
use serde_json::Value;
use std::path::Path;

/// The Xero sample with INV-0107 broken (a quantity that is not a number): valid, invalid and
/// skipped documents in one export.
fn mixed_rows() -> Vec<Vec<String>> {
    mixed_rows_only()
}

/// Put the mixed export and the sample's customer table (the mapping's lookup) in `dir`.
fn mixed_export(dir: &Path, name: &str) {
    std::fs::copy(samples().join("customers.csv"), dir.join("customers.csv")).unwrap();
    let path = dir.join(name);
    if name.ends_with(".xlsx") {
        write_xlsx(&path, &mixed_rows());
    } else {
        write_csv(&path, &mixed_rows());
    }
}

fn mixed_rows_only() -> Vec<Vec<String>> {
    let mut rows = xero_rows();
    let header = rows[0].clone();
    let q = header.iter().position(|h| h == "Quantity").unwrap();
    let n = header.iter().position(|h| h == "InvoiceNumber").unwrap();
    for r in rows.iter_mut().skip(1) {
        if r[n] == "INV-0107" && r[q] == "1" {
            r[q] = "one".into();
        }
    }
    rows
}

fn column<'a>(rows: &'a [Vec<String>], name: &str) -> impl Fn(usize) -> &'a str {
    let at = rows[0]
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    move |r| rows[r][at].as_str()
}

/// The first result row of a document.
fn row_of(rows: &[Vec<String>], number: &str) -> usize {
    let doc = column(rows, "result_document");
    (1..rows.len()).find(|&r| doc(r) == number).unwrap()
}

#[test]
fn every_result_column_for_valid_invalid_and_skipped_rows() {
    let dir = tempfile::tempdir().unwrap();
    mixed_export(dir.path(), "mixed.csv");
    let (code, report) = check(dir.path(), &["--mapping", "xero", "mixed.csv"]);
    assert_eq!(code, 1, "an invalid document: exit 1 {report:#}");
    let rows = read_csv(&dir.path().join("results/mixed.result.csv"));
    let input_header = &mixed_rows()[0];
    assert_eq!(&rows[0][..input_header.len()], &input_header[..]);
    let tail: Vec<&str> = rows[0][input_header.len()..].iter().map(String::as_str).collect();
    assert_eq!(tail, invoicedrop::results::RESULT_COLUMNS);

    let status = column(&rows, "result_status");
    let document = column(&rows, "result_document");
    let errors = column(&rows, "result_errors");
    let warnings = column(&rows, "result_warnings");
    let (valid, invalid, skipped) = (
        row_of(&rows, "INV-0101"),
        row_of(&rows, "INV-0107"),
        row_of(&rows, "INV-0103"),
    );
    assert_eq!(
        (status(valid), status(invalid), status(skipped)),
        ("valid", "invalid", "skipped")
    );
    assert_eq!(document(valid), "INV-0101");
    assert_eq!(errors(valid), "");
    assert!(
        errors(invalid).contains("INV-MAP-VALUE Quantity \"one\""),
        "{}",
        errors(invalid)
    );
    assert_eq!(errors(skipped), "");
    assert!(warnings(skipped).starts_with("INV-SKIP"), "{}", warnings(skipped));
    assert!(warnings(row_of(&rows, "INV-0102")).contains("BR-KSA-98"));
    // Nothing is issued by check: no UUID, QR or files; no attempts; the check's time.
    for r in 1..rows.len() {
        for empty in ["result_uuid", "result_qr", "result_xml_file", "result_qr_file"] {
            assert_eq!(column(&rows, empty)(r), "", "{empty} row {r}");
        }
        assert_eq!(column(&rows, "result_attempts")(r), "0");
        assert_eq!(column(&rows, "result_time")(r), "2026-11-21T09:00:00Z");
    }
    assert!(
        !dir.path().join("results/mixed.result.xlsx").exists(),
        "CSV input: CSV result only"
    );
    assert!(!dir.path().join("results/mixed").exists(), "no artefacts from check");
}

#[test]
fn check_writes_the_documents_ledger_and_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    mixed_export(dir.path(), "mixed.csv");
    let (_, report) = check(dir.path(), &["--mapping", "xero", "mixed.csv"]);
    let docs =
        invoicedrop::results::documents::read_documents(&dir.path().join("results/mixed.documents.csv")).unwrap();
    let numbers: Vec<&str> = docs.iter().map(|d| d.document.as_str()).collect();
    assert_eq!(
        numbers,
        [
            "INV-0101", "INV-0102", "INV-0103", "INV-0104", "INV-0105", "CN-0006", "INV-0107"
        ]
    );
    let inv = &docs[0];
    assert_eq!(
        (inv.kind.as_str(), inv.invoice_type.as_str(), inv.issue_date.as_str()),
        ("invoice", "standard", "2026-11-02")
    );
    assert_eq!(inv.net.unwrap().to_string(), "7325.00");
    assert_eq!(inv.vat.unwrap().to_string(), "1098.75");
    assert_eq!(inv.gross.unwrap().to_string(), "8423.75");
    assert_eq!((inv.first_line, inv.rows), (Some(2), 3));
    assert_eq!(docs[5].kind, "credit_note");
    assert_eq!(docs[6].errors, ["INV-MAP-VALUE"]);

    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("results/mixed.summary.json")).unwrap()).unwrap();
    assert_eq!(summary["rows"], 14);
    assert_eq!(summary["by_status"]["valid"]["documents"], 4);
    assert_eq!(summary["by_status"]["invalid"]["documents"], 1);
    assert_eq!(summary["by_status"]["skipped"]["documents"], 2);
    assert_eq!(
        summary["by_date"]["2026-11-02"]["valid"]["amounts"]["SAR"]["gross"],
        "8423.75"
    );
    assert_eq!(
        summary["by_kind"]["credit_note/standard"]["valid"]["amounts"]["SAR"]["net"],
        "91.00"
    );
    assert_eq!(summary["rejections"]["INV-MAP-VALUE"]["documents"]["invalid"], 1);
    assert_eq!(summary["rejections"]["INV-MAP-VALUE"]["examples"][0], "INV-0107");
    assert_eq!(summary["warnings"]["INV-SKIP"]["documents"]["skipped"], 2);
    // The --json report carries the same summary.
    assert_eq!(report["files"][0]["summary"], summary);
}

/// The "Results" sheet of a spreadsheet result, read back with calamine, asserted to hold the
/// CSV result's rows cell for cell (from cell A1); its rows.
fn results_sheet_equals_csv(xlsx: &Path, csv_rows: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut book = calamine::open_workbook_auto(xlsx).unwrap();
    let sheet = book.worksheet_range("Results").unwrap();
    assert_eq!(sheet.start(), Some((0, 0)));
    let xlsx_rows: Vec<Vec<String>> = sheet.rows().map(|r| r.iter().map(cell_text).collect()).collect();
    assert_eq!(xlsx_rows.len(), csv_rows.len());
    for (i, (x, c)) in xlsx_rows.iter().zip(csv_rows).enumerate() {
        let mut c = c.clone();
        c.resize(x.len(), String::new());
        assert_eq!(x, &c, "row {i}");
    }
    xlsx_rows
}

fn cell_text(d: &Data) -> String {
    match d {
        Data::Empty => String::new(),
        Data::String(s) => s.clone(),
        other => panic!("every result cell is text, got {other:?}"),
    }
}

#[test]
fn the_spreadsheet_result_matches_the_csv_cell_for_cell() {
    let dir = tempfile::tempdir().unwrap();
    mixed_export(dir.path(), "mixed.xlsx");
    let (code, report) = check(dir.path(), &["--mapping", "xero", "mixed.xlsx"]);
    assert_eq!(code, 1, "{report:#}");
    let results = dir.path().join("results");
    assert_eq!(
        report["files"][0]["result_xlsx"].as_str().map(Path::new),
        Some(Path::new("results/mixed.result.xlsx"))
    );
    let csv_rows = read_csv(&results.join("mixed.result.csv"));
    let mut book = calamine::open_workbook_auto(results.join("mixed.result.xlsx")).unwrap();
    assert_eq!(book.sheet_names(), ["Results", "Errors"]);
    let xlsx_rows = results_sheet_equals_csv(&results.join("mixed.result.xlsx"), &csv_rows);

    let errors = book.worksheet_range("Errors").unwrap();
    let errors: Vec<Vec<Data>> = errors.rows().map(<[Data]>::to_vec).collect();
    let header: Vec<String> = errors[0].iter().map(cell_text).collect();
    assert_eq!(
        header,
        ["row", "document", "column", "value", "code", "severity", "message"]
    );
    let bad = errors
        .iter()
        .find(|r| r[4] == Data::String("INV-MAP-VALUE".into()))
        .expect("the broken quantity is listed");
    assert_eq!(bad[0], Data::Float(14.0), "source row of INV-0107's first line");
    assert_eq!(bad[1], Data::String("INV-0107".into()));
    assert_eq!(bad[2], Data::String("Quantity".into()));
    assert_eq!(bad[3], Data::String("one".into()));
    assert_eq!(bad[5], Data::String("error".into()));
    let findings_in_csv: usize = csv_rows[1..]
        .iter()
        .map(|r| {
            let (e, w) = (&r[r.len() - 4], &r[r.len() - 3]);
            [e, w]
                .iter()
                .filter(|t| !t.is_empty())
                .map(|t| t.split(" | ").count())
                .sum::<usize>()
        })
        .sum();
    assert_eq!(
        errors.len() - 1,
        findings_in_csv,
        "one Errors row per finding of the CSV"
    );

    // Frozen header rows, coloured status cells (read from the package itself).
    let sheet1 = zip_entry(&results.join("mixed.result.xlsx"), "xl/worksheets/sheet1.xml");
    assert!(
        sheet1.contains(r#"state="frozen""#) && sheet1.contains(r#"ySplit="1""#),
        "{sheet1}"
    );
    let styles = zip_entry(&results.join("mixed.result.xlsx"), "xl/styles.xml");
    for rgb in ["FFC6EFCE", "FFFFC7CE", "FFD9D9D9"] {
        assert!(styles.contains(rgb), "fill {rgb}");
    }
    // Each row's status cell carries its status's fill: green, red or grey.
    let mut xlsx: calamine::Xlsx<_> = calamine::open_workbook(results.join("mixed.result.xlsx")).unwrap();
    let cell_styles = xlsx.worksheet_style("Results").unwrap();
    let status_col = xlsx_rows[0].iter().position(|h| h == "result_status").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (r, row) in xlsx_rows.iter().enumerate().skip(1) {
        let fill = cell_styles
            .get((r as u32, status_col as u32))
            .and_then(|s| s.fill.as_ref())
            .and_then(|f| f.get_color())
            .map(|c| (c.red, c.green, c.blue));
        let want = match row[status_col].as_str() {
            "valid" => (0xC6, 0xEF, 0xCE),
            "invalid" => (0xFF, 0xC7, 0xCE),
            "skipped" => (0xD9, 0xD9, 0xD9),
            other => panic!("row {r}: status {other}"),
        };
        assert_eq!(fill, Some(want), "row {r}: {}", row[status_col]);
        seen.insert(row[status_col].clone());
    }
    assert_eq!(seen.len(), 3, "valid, invalid and skipped rows: {seen:?}");
    let no_temporaries = std::fs::read_dir(&results)
        .unwrap()
        .all(|e| !e.unwrap().file_name().to_string_lossy().starts_with('.'));
    assert!(no_temporaries);
}

/// `run` on a workbook (the QuickBooks sample, against the built-in sandbox): the spreadsheet
/// result read back with calamine holds the CSV result's rows cell for cell, including the
/// accepted rows' UUID, QR payload and artefact paths, and each of those files exists.
#[test]
fn run_on_a_workbook_writes_a_spreadsheet_result_equal_to_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["quickbooks_invoices.xlsx", "customers.csv"] {
        std::fs::copy(samples().join(name), dir.path().join(name)).unwrap();
    }
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_invoicedrop"));
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("INVOICEDROP_")) {
        cmd.env_remove(key);
    }
    let out = cmd
        .current_dir(dir.path())
        .args(["run", "quickbooks_invoices.xlsx", "--results", "results"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let results = dir.path().join("results");
    let csv_rows = read_csv(&results.join("quickbooks_invoices.result.csv"));
    let xlsx_rows = results_sheet_equals_csv(&results.join("quickbooks_invoices.result.xlsx"), &csv_rows);
    let status = column(&xlsx_rows, "result_status");
    let uuid = column(&xlsx_rows, "result_uuid");
    let qr = column(&xlsx_rows, "result_qr");
    let xml_file = column(&xlsx_rows, "result_xml_file");
    let qr_file = column(&xlsx_rows, "result_qr_file");
    let accepted: Vec<usize> = (1..xlsx_rows.len()).filter(|&r| status(r) == "accepted").collect();
    assert!(
        accepted.len() >= 3,
        "the sample's documents are accepted: {xlsx_rows:?}"
    );
    for r in accepted {
        assert_eq!(uuid(r).len(), 36, "row {r}");
        assert!(!qr(r).is_empty(), "row {r}");
        assert!(results.join(xml_file(r)).is_file(), "row {r}: {}", xml_file(r));
        assert!(results.join(qr_file(r)).is_file(), "row {r}: {}", qr_file(r));
    }
}

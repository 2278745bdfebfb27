//! SAP Business One's two files (a lines file joined to its header file): every document of
//! either file is in the results, named by its DocNum.

use super::{check_json, result_rows, samples};
use std::path::Path;

const LINES_HEADER: &str = "ParentKey\tLineNum\tItemCode\tItemDescription\tQuantity\tPrice\tCurrency\tDiscountPercent\tTaxCode\tLineTotal\r\n\
                            DocNum\tLineNum\tItemCode\tDscription\tQuantity\tPrice\tCurrency\tDiscPrcnt\tTaxCode\tLineTotal\r\n";
const DOCS_HEADER: &str = "RecordKey\tDocNum\tDocDate\tDocDueDate\tCardCode\tCardName\tNumAtCard\tDocCurrency\r\n\
                           RecordKey\tDocNum\tDocDate\tDocDueDate\tCardCode\tCardName\tNumAtCard\tDocCur\r\n";

/// A lines file with `lines` (ParentKey, ItemCode) and a header file with `docs` (RecordKey,
/// DocNum, DocDate), in `dir`, named as SAP's export names them.
fn export(dir: &Path, lines: &[(&str, &str)], docs: &[(&str, &str, &str)]) {
    let mut l = LINES_HEADER.to_string();
    for (i, (key, item)) in lines.iter().enumerate() {
        l.push_str(&format!(
            "{key}\t{i}\t{item}\tToner\t2\t100.00\tSAR\t0\tS15\t200.00\r\n"
        ));
    }
    let mut d = DOCS_HEADER.to_string();
    for (key, num, date) in docs {
        d.push_str(&format!(
            "{key}\t{num}\t{date}\t{date}\tC-1\tWalk-in Customer\tPO-{key}\tSAR\r\n"
        ));
    }
    std::fs::write(dir.join("OINV_Document_Lines.txt"), l).unwrap();
    std::fs::write(dir.join("OINV_Documents.txt"), d).unwrap();
}

fn cell<'a>(rows: &'a [Vec<String>], row: &'a [String], column: &str) -> &'a str {
    let at = rows[0].iter().position(|h| h == column).unwrap();
    &row[at]
}

#[test]
fn a_document_whose_header_fields_fail_is_named_by_its_docnum() {
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        &[("1", "A-100"), ("4", "A-100")],
        &[("1", "600201", "20261107"), ("4", "600204", "20261131")],
    );
    let (code, r, err) = check_json(
        dir.path(),
        &["OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
    );
    assert_eq!(code, 1, "{r:#}\n{err}");
    let rows = result_rows(&dir.path().join("r/OINV_Document_Lines.result.csv"));
    let last = &rows[3];
    assert_eq!(cell(&rows, last, "ParentKey"), "4");
    assert_eq!(cell(&rows, last, "result_status"), "invalid");
    assert_eq!(cell(&rows, last, "result_document"), "600204", "{last:?}");
    assert!(cell(&rows, last, "result_errors").starts_with("INV-MAP-VALUE OINV_Documents.txt DocDate \"20261131\""));
    let docs = std::fs::read_to_string(dir.path().join("r/OINV_Document_Lines.documents.csv")).unwrap();
    assert!(docs.lines().any(|l| l.starts_with("600204,")), "{docs}");
    assert!(!docs.lines().any(|l| l.starts_with("4,")), "{docs}");
    let f = &r["files"][0];
    let numbers: Vec<&str> = f["document_list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["number"].as_str().unwrap())
        .collect();
    assert_eq!(numbers, ["600201", "600204"]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/OINV_Document_Lines.summary.json")).unwrap())
            .unwrap();
    assert!(
        summary.to_string().contains("600204") && !summary.to_string().contains("\"4\""),
        "{summary:#}"
    );
}

#[test]
fn a_header_record_without_lines_is_an_invalid_document_counted_everywhere() {
    // Document 600203 (RecordKey 3, line 4 of the header file, under its two header rows) has
    // no row in the lines file: a lines file cut short, or exported with a narrower filter.
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        &[("1", "A-100"), ("1", "A-200")],
        &[("1", "600201", "20261107"), ("3", "600203", "20261109")],
    );
    let (code, r, err) = check_json(
        dir.path(),
        &["OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
    );
    assert_eq!(code, 1, "an invalid document: {r:#}\n{err}");
    let finding = "INV-MAP-NO-LINES OINV_Documents.txt RecordKey \"3\": document 600203 (line 4 of the header file) \
                   has no lines: no row of the lines file has ParentKey \"3\", so it is not issued; export its lines \
                   too (a lines file cut short, or exported with a narrower filter than the header file, leaves \
                   documents out: export the two files again together, with the same selection), or take it out of \
                   the header file if it is not to be issued, and check it again";
    // A row of its own, after the lines file's rows: its key in ParentKey, the rest blank.
    let rows = result_rows(&dir.path().join("r/OINV_Document_Lines.result.csv"));
    assert_eq!(rows.len(), 5, "{rows:?}");
    let row = &rows[4];
    assert_eq!(cell(&rows, row, "ParentKey"), "3");
    assert!(
        ["LineNum", "ItemCode", "Quantity", "TaxCode"]
            .iter()
            .all(|c| cell(&rows, row, c).is_empty())
    );
    assert_eq!(cell(&rows, row, "result_status"), "invalid");
    assert_eq!(cell(&rows, row, "result_document"), "600203");
    assert_eq!(cell(&rows, row, "result_errors"), finding);
    assert!(rows[2..4].iter().all(|r| cell(&rows, r, "result_status") == "valid"));
    // X.documents.csv, the summary file and --json count it.
    let docs = std::fs::read_to_string(dir.path().join("r/OINV_Document_Lines.documents.csv")).unwrap();
    assert!(
        docs.lines()
            .any(|l| l.starts_with("600203,") && l.contains(",invalid,") && l.ends_with(",1,INV-MAP-NO-LINES,")),
        "{docs}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/OINV_Document_Lines.summary.json")).unwrap())
            .unwrap();
    // The lines file's second header row is a row too (skipped), on its line.
    assert_eq!(summary["rows"], 4, "{summary:#}");
    assert_eq!(summary["rows_by_status"]["skipped"], 1, "{summary:#}");
    assert_eq!(summary["rows_by_status"]["invalid"], 1, "{summary:#}");
    assert_eq!(summary["by_status"]["invalid"]["documents"], 1, "{summary:#}");
    assert!(summary.to_string().contains("INV-MAP-NO-LINES"), "{summary:#}");
    assert_eq!(r["documents"]["invalid"], 1, "{r:#}");
    assert_eq!(r["documents"]["valid"], 1, "{r:#}");
    let f = &r["files"][0];
    assert_eq!(f["codes"]["INV-MAP-NO-LINES"], 1, "{f:#}");
    assert_eq!(f["rows"], 4);
    assert!(
        f["document_list"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["number"] == "600203" && d["status"] == "invalid"),
        "{f:#}"
    );
    assert!(
        f["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str() == Some(&format!("OINV_Documents.txt line 4: {finding}"))),
        "{f:#}"
    );
    // Every record referred to: no such row.
    export(
        dir.path(),
        &[("1", "A-100"), ("3", "A-200")],
        &[("1", "600201", "20261107"), ("3", "600203", "20261109")],
    );
    let (code, r, err) = check_json(
        dir.path(),
        &["OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
    );
    assert_eq!(
        (code, &r["documents"]["valid"]),
        (0, &serde_json::json!(2)),
        "{r:#}\n{err}"
    );
    // The header, the second header row (skipped), the two lines.
    assert_eq!(
        result_rows(&dir.path().join("r/OINV_Document_Lines.result.csv")).len(),
        4
    );
}

#[test]
fn header_records_with_a_shared_or_blank_record_key_are_invalid_documents_counted_everywhere() {
    // RecordKey 2 on lines 4 and 5 of the header file (600202, 600203), none on line 6 (600204):
    // the lines of key 2 cannot be told apart between 600202 and 600203.
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        &[("1", "A-100"), ("2", "A-100"), ("2", "A-200")],
        &[
            ("1", "600201", "20261107"),
            ("2", "600202", "20261108"),
            ("2", "600203", "20261109"),
            ("", "600204", "20261110"),
        ],
    );
    let (code, r, err) = check_json(
        dir.path(),
        &["OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
    );
    assert_eq!(code, 1, "{r:#}\n{err}");
    let shared = "RecordKey \"2\" is on 2 records of the header file, document 600202 (line 4) and document 600203 \
                  (line 5): the lines with ParentKey \"2\" cannot be told apart between them, so none of these \
                  documents is issued; give each document its own RecordKey in the DTW header file (and its lines \
                  that number in ParentKey in the lines file), or take out the record exported twice if they are \
                  one document, and check it again";
    let rows = result_rows(&dir.path().join("r/OINV_Document_Lines.result.csv"));
    assert_eq!(rows.len(), 7, "{rows:?}");
    let said: Vec<(&str, &str, &str)> = rows[2..]
        .iter()
        .map(|r| {
            (
                cell(&rows, r, "ParentKey"),
                cell(&rows, r, "result_status"),
                cell(&rows, r, "result_document"),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("1", "valid", "600201"),
            ("2", "invalid", "600202"),
            ("2", "invalid", "600202"),
            ("2", "invalid", "600203"),
            ("", "invalid", "600204"),
        ]
    );
    assert_eq!(
        cell(&rows, &rows[3], "result_errors"),
        format!("INV-MAP-KEY-DUPLICATE ParentKey \"2\": {shared}")
    );
    assert_eq!(
        cell(&rows, &rows[5], "result_errors"),
        format!("INV-MAP-KEY-DUPLICATE OINV_Documents.txt RecordKey \"2\": {shared}")
    );
    assert!(
        cell(&rows, &rows[6], "result_errors").starts_with(
            "INV-MAP-KEY-BLANK OINV_Documents.txt RecordKey \"\": document 600204 (line 6 of the header file) has \
             no RecordKey, so no row of the lines file can refer to it and it is not issued: give it its RecordKey \
             in the DTW header file"
        ),
        "{:?}",
        rows[6]
    );
    let docs = std::fs::read_to_string(dir.path().join("r/OINV_Document_Lines.documents.csv")).unwrap();
    for (number, code) in [
        ("600202", "INV-MAP-KEY-DUPLICATE"),
        ("600203", "INV-MAP-KEY-DUPLICATE"),
        ("600204", "INV-MAP-KEY-BLANK"),
    ] {
        assert!(
            docs.lines()
                .any(|l| l.starts_with(&format!("{number},")) && l.contains(",invalid,") && l.contains(code)),
            "{number}: {docs}"
        );
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/OINV_Document_Lines.summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["by_status"]["invalid"]["documents"], 3, "{summary:#}");
    assert_eq!(summary["by_status"]["valid"]["documents"], 1, "{summary:#}");
    assert_eq!(
        (&r["documents"]["invalid"], &r["documents"]["valid"]),
        (&3.into(), &1.into()),
        "{r:#}"
    );
    let f = &r["files"][0];
    assert_eq!(f["codes"]["INV-MAP-KEY-DUPLICATE"], 2, "{f:#}");
    assert_eq!(f["codes"]["INV-MAP-KEY-BLANK"], 1, "{f:#}");
    assert!(
        f["notes"].as_array().unwrap().iter().any(|n| n
            == "header file OINV_Documents.txt joined (4 documents, one for each record; not issued: 2 sharing \
                a RecordKey (INV-MAP-KEY-DUPLICATE), 1 without a RecordKey (INV-MAP-KEY-BLANK))"),
        "{f:#}"
    );
}

#[test]
fn header_records_sharing_a_key_no_line_has_each_say_both() {
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        &[("1", "A-100")],
        &[
            ("1", "600201", "20261107"),
            ("7", "600207", "20261108"),
            ("7", "600208", "20261109"),
        ],
    );
    let (code, r, err) = check_json(
        dir.path(),
        &["OINV_Document_Lines.txt", "OINV_Documents.txt", "--results", "r"],
    );
    assert_eq!(code, 1, "{r:#}\n{err}");
    let rows = result_rows(&dir.path().join("r/OINV_Document_Lines.result.csv"));
    let own: Vec<(&str, &str)> = rows[3..]
        .iter()
        .map(|r| (cell(&rows, r, "result_document"), cell(&rows, r, "result_errors")))
        .collect();
    assert_eq!(own.len(), 2, "{rows:?}");
    for (n, (number, errors)) in own.iter().enumerate() {
        assert_eq!(*number, ["600207", "600208"][n]);
        let codes: Vec<&str> = errors.split(" | ").map(|e| e.split(' ').next().unwrap()).collect();
        assert_eq!(codes, ["INV-MAP-KEY-DUPLICATE", "INV-MAP-NO-LINES"], "{errors}");
    }
    assert_eq!(r["documents"]["invalid"], 2, "{r:#}");
}

/// The sample's lines file as Excel saves it again: `name` (`.csv`: comma-separated UTF-8 with
/// a byte-order mark; `.xlsx`: a workbook of text cells), beside the sample's header file, still
/// `.txt`.
fn resaved_lines(dir: &Path, name: &str) {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(
        samples.join("SAP_B1_OINV_Documents.txt"),
        dir.join("SAP_B1_OINV_Documents.txt"),
    )
    .unwrap();
    let text = std::fs::read_to_string(samples.join("SAP_B1_OINV_Document_Lines.txt")).unwrap();
    let records: Vec<Vec<String>> = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(b'\t')
        .flexible(true)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    if name.ends_with(".xlsx") {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        for (r, rec) in records.iter().enumerate() {
            for (c, v) in rec.iter().enumerate() {
                sheet.write_string(r as u32, c as u16, v).unwrap();
            }
        }
        book.save(dir.join(name)).unwrap();
    } else {
        let mut w = csv::WriterBuilder::new()
            .flexible(true)
            .from_writer(b"\xef\xbb\xbf".to_vec());
        for rec in &records {
            w.write_record(rec).unwrap();
        }
        std::fs::write(dir.join(name), w.into_inner().unwrap()).unwrap();
    }
}

/// A lines file re-saved from Excel as .csv or .xlsx, its header file left as .txt: the two are
/// paired (each read as what it is), with a note; given alone, the header file names its lines
/// file.
#[test]
fn a_lines_file_saved_again_under_another_extension_reads_its_header_file() {
    for name in ["SAP_B1_OINV_Document_Lines.csv", "SAP_B1_OINV_Document_Lines.xlsx"] {
        let dir = tempfile::tempdir().unwrap();
        resaved_lines(dir.path(), name);
        let (code, r, err) = check_json(dir.path(), &[name, "SAP_B1_OINV_Documents.txt", "--results", "r"]);
        assert!(code <= 1, "{name}: {r:#}\n{err}");
        let files = r["files"].as_array().unwrap();
        assert_eq!(
            files.len(),
            1,
            "{name}: the header file is read with its lines file: {r:#}"
        );
        let f = &files[0];
        assert!(f["error"].is_null(), "{name}: {f:#}");
        assert_eq!(f["documents"]["valid"], 2, "{name}: {f:#}");
        let notes = f["notes"].to_string();
        assert!(
            notes.contains(
                "SAP_B1_OINV_Documents.txt is: read as its header file (each file's format is found from its own \
                 name and content)"
            ),
            "{name}: {notes}"
        );
        let rows = result_rows(&dir.path().join("r/SAP_B1_OINV_Document_Lines.result.csv"));
        assert!(rows.len() > 2, "{name}");
        // The header file given alone names its lines file.
        let (code, r, _) = check_json(dir.path(), &["SAP_B1_OINV_Documents.txt", "--results", "r2"]);
        assert_eq!(code, 2, "{r:#}");
        let error = r["files"][0]["error"].as_str().unwrap_or_default().to_string();
        assert!(
            error.contains(&format!(
                "check or run its lines file {name}, beside it, which reads this one"
            )),
            "{name}: {r:#}"
        );
    }
}

/// Two header files under other extensions than the lines file's: which one goes with it cannot
/// be told, and the error names them and says what to do.
#[test]
fn two_header_files_under_other_extensions_are_named() {
    let dir = tempfile::tempdir().unwrap();
    resaved_lines(dir.path(), "SAP_B1_OINV_Document_Lines.csv");
    std::fs::copy(
        dir.path().join("SAP_B1_OINV_Documents.txt"),
        dir.path().join("SAP_B1_OINV_Documents.tsv"),
    )
    .unwrap();
    let (code, r, _) = check_json(dir.path(), &["SAP_B1_OINV_Document_Lines.csv", "--results", "r"]);
    assert_eq!(code, 2, "{r:#}");
    let error = r["files"][0]["error"].as_str().unwrap_or_default().to_string();
    assert!(
        error.contains(
            "read with its header file, looked for as SAP_B1_OINV_Documents.csv: it is not there, but \
             SAP_B1_OINV_Documents.tsv and SAP_B1_OINV_Documents.txt are, each with another extension"
        ),
        "{r:#}"
    );
    assert!(error.contains("save the two files in one format"), "{error}");
}

/// Move the export `export` wrote in `dir` to `prefix` + its names (another month's export).
fn rename_export(dir: &Path, prefix: &str) {
    for name in ["OINV_Document_Lines.txt", "OINV_Documents.txt"] {
        std::fs::rename(dir.join(name), dir.join(format!("{prefix}{name}"))).unwrap();
    }
}

/// The `INV-NUMBER-USED` findings of a `check --json` answer's files: (file, finding).
fn numbers_used(r: &serde_json::Value) -> Vec<(String, String)> {
    let text = r.to_string();
    let mut out = Vec::new();
    for f in r["files"].as_array().unwrap() {
        for p in f["problems"].as_array().into_iter().flatten() {
            let p = p.as_str().unwrap_or_default();
            if p.contains("INV-NUMBER-USED") {
                out.push((f["file"].as_str().unwrap_or_default().to_string(), p.to_string()));
            }
        }
    }
    assert_eq!(out.is_empty(), !text.contains("INV-NUMBER-USED"), "{r:#}");
    out
}

#[test]
fn monthly_exports_checked_together_are_told_apart_by_docnum_not_by_their_record_keys() {
    // DTW numbers the records of every export from 1: October's 600101 and 600102 and
    // November's 600201 and 600202 are all RecordKeys 1 and 2.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lines = [("1", "A-100"), ("2", "A-100")];
    export(d, &lines, &[("1", "600101", "20261007"), ("2", "600102", "20261008")]);
    rename_export(d, "A_Oct_");
    export(d, &lines, &[("1", "600201", "20261107"), ("2", "600202", "20261108")]);
    rename_export(d, "B_Nov_");
    let (code, r, err) = check_json(
        d,
        &[
            "A_Oct_OINV_Document_Lines.txt",
            "B_Nov_OINV_Document_Lines.txt",
            "--results",
            "r",
        ],
    );
    assert_eq!(code, 0, "{r:#}\n{err}");
    assert_eq!(numbers_used(&r), [], "{r:#}");
    assert_eq!(r["documents"]["valid"], 4, "{r:#}");

    // November exported again, its records keyed 3 and 4: the same DocNums, an error on the
    // later file's documents, named by DocNum on its column.
    export(
        d,
        &[("3", "A-100"), ("4", "A-100")],
        &[("3", "600201", "20261107"), ("4", "600202", "20261108")],
    );
    rename_export(d, "C_Nov_again_");
    let (code, r, err) = check_json(
        d,
        &[
            "B_Nov_OINV_Document_Lines.txt",
            "C_Nov_again_OINV_Document_Lines.txt",
            "--results",
            "r2",
        ],
    );
    assert_eq!(code, 1, "{r:#}\n{err}");
    let used = numbers_used(&r);
    assert_eq!(used.len(), 2, "{used:?}");
    let (file, finding) = &used[0];
    assert!(file.ends_with("C_Nov_again_OINV_Document_Lines.txt"), "{file}");
    assert!(
        finding.contains(
            "line 3: INV-NUMBER-USED C_Nov_again_OINV_Documents.txt DocNum \"600201\": this number is already used \
             by the document at line 3 of "
        ) && finding.contains("B_Nov_OINV_Document_Lines.txt, checked before this file"),
        "{finding}"
    );
    assert_eq!(r["documents"]["invalid"], 2, "{r:#}");
}

#[test]
fn a_docnum_on_two_records_of_one_export_is_an_error_on_the_later_one() {
    // 600201 under RecordKeys 1 and 3 (the document exported twice, or two series that clash).
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        &[("1", "A-100"), ("2", "A-100"), ("3", "A-100")],
        &[
            ("1", "600201", "20261107"),
            ("2", "600202", "20261108"),
            ("3", "600201", "20261107"),
        ],
    );
    let (code, r, err) = check_json(dir.path(), &["OINV_Document_Lines.txt", "--results", "r"]);
    assert_eq!(code, 1, "{r:#}\n{err}");
    let rows = result_rows(&dir.path().join("r/OINV_Document_Lines.result.csv"));
    let status: Vec<(&str, &str)> = rows[2..]
        .iter()
        .map(|row| (cell(&rows, row, "result_document"), cell(&rows, row, "result_status")))
        .collect();
    assert_eq!(
        status,
        [("600201", "valid"), ("600202", "valid"), ("600201", "invalid")]
    );
    assert_eq!(
        cell(&rows, &rows[4], "result_errors"),
        "INV-NUMBER-USED OINV_Documents.txt DocNum \"600201\": this number is already used by the document at \
         line 3 of this file, under another ParentKey (this one's is \"3\"): a number is issued once; if this is \
         the same document exported twice, remove one of the two (its header record and its lines), else give \
         this one a number of its own"
    );
}

/// The lines file's second header row (the field descriptions) is a row of the result file,
/// `skipped`, with no document, on line 2: line N of every message is line N of the result file
/// (QA 14b #2: the bad row was on line 5 while the messages said line 6).
#[test]
fn the_second_header_row_keeps_every_line_of_the_result_file_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["customers.csv", "SAP_B1_OINV_Documents.txt"] {
        std::fs::copy(samples().join(name), dir.path().join(name)).unwrap();
    }
    let lines = std::fs::read_to_string(samples().join("SAP_B1_OINV_Document_Lines.txt")).unwrap();
    let from = "2\t1\tF-010\tLate payment finance charge\t1\t";
    assert!(lines.contains(from));
    let lines = lines.replacen(from, "2\t1\tF-010\tLate payment finance charge\t-1\t", 1);
    std::fs::write(dir.path().join("SAP_B1_OINV_Document_Lines.txt"), &lines).unwrap();
    let (code, r, err) = check_json(dir.path(), &["SAP_B1_OINV_Document_Lines.txt", "--results", "r"]);
    assert_eq!(code, 1, "{r:#}\n{err}");
    let rows = result_rows(&dir.path().join("r/SAP_B1_OINV_Document_Lines.result.csv"));
    let second = &rows[1];
    assert_eq!(cell(&rows, second, "ParentKey"), "DocNum");
    assert_eq!(cell(&rows, second, "Quantity"), "Quantity");
    assert_eq!(cell(&rows, second, "result_status"), "skipped");
    assert_eq!(cell(&rows, second, "result_document"), "");
    assert_eq!(
        cell(&rows, second, "result_warnings"),
        "INV-ROW-HEADER: a header row of the export: not a document"
    );
    // Line 6 of the export, its negative quantity, is line 6 of the result file.
    let bad = &rows[5];
    assert_eq!(cell(&rows, bad, "Quantity"), "-1");
    assert!(
        cell(&rows, bad, "result_errors").starts_with("BR-KSA-F-04 Quantity \"-1\""),
        "{bad:?}"
    );
    for n in [5, 7] {
        assert_eq!(
            cell(&rows, &rows[n - 1], "result_errors"),
            "INV-DOCUMENT: the document has errors on another row (line 6)",
            "line {n}"
        );
    }
    // Every line of the export is on its line of the result file.
    let export: Vec<&str> = lines.lines().collect();
    assert_eq!(rows.len(), export.len());
    for (n, line) in export.iter().enumerate().skip(1) {
        assert_eq!(rows[n][..10].join("\t"), *line, "line {}", n + 1);
    }
}

//! Rows that are no document's: rows of only empty cells, and the header line repeated inside
//! the data (concatenated exports).

use super::{check_json, result_rows, samples};

/// The Xero sample's lines (its BOM taken off): the header, 15 rows of data, then two rows of
/// only commas.
fn xero_lines() -> Vec<String> {
    let src = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    src.trim_start_matches('\u{feff}').lines().map(str::to_string).collect()
}

/// A blank line between data rows (empty, or of only commas) is a `skipped` row of the result
/// file, `INV-ROW-BLANK`, with no document, so that line N of a message is line N of the result
/// file; blank lines at the end (the sample's two rows of commas, and an empty line) are no rows:
/// a note counts them and says where the first is, so that the export's lines reconcile with the
/// result file's rows.
#[test]
fn blank_lines_between_rows_keep_their_lines_and_those_at_the_end_are_counted_in_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    let blank = ",".repeat(lines[0].matches(',').count());
    let trailing = lines.iter().rev().take_while(|l| **l == blank).count();
    assert_eq!(trailing, 2, "the sample ends with two rows of commas");
    // Line 11 a row of commas, line 12 empty, inside INV-0105's rows (lines 9-14), whose line 14
    // has a negative quantity.
    assert!((8..12).all(|i| lines[i].contains("INV-0105")), "{lines:?}");
    lines.insert(10, String::new());
    lines.insert(10, blank.clone());
    let quantity = lines[0].split(',').position(|h| h == "Quantity").unwrap();
    let mut cells: Vec<String> = lines[13].split(',').map(str::to_string).collect();
    cells[quantity] = format!("-{}", cells[quantity]);
    lines[13] = cells.join(",");
    // An empty line at the very end too (the file ends with `\n\n`).
    std::fs::write(dir.path().join("x.csv"), lines.join("\n") + "\n\n").unwrap();
    let (_, json, stderr) = check_json(dir.path(), &["--mapping", "xero", "x.csv"]);
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    assert_eq!(rows.len(), lines.len() - trailing, "{stderr}");
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, document) = (at("result_status"), at("result_document"));
    let (errors, warnings) = (at("result_errors"), at("result_warnings"));
    for n in [11, 12] {
        let row = &rows[n - 1];
        assert_eq!(row[status], "skipped", "line {n}: {row:?}");
        assert_eq!(row[document], "", "line {n}: {row:?}");
        assert_eq!(
            row[warnings], "INV-ROW-BLANK: a blank line between the export's rows: no data",
            "line {n}"
        );
        assert!(row[..status].iter().all(String::is_empty), "line {n}: {row:?}");
    }
    // Every other line is the input's, on the same line of the result file.
    for (n, line) in lines.iter().enumerate().skip(1).take(rows.len() - 1) {
        if n + 1 != 11 && n + 1 != 12 {
            assert_eq!(rows[n][..status].join(","), *line, "line {}", n + 1);
        }
    }
    // The message on INV-0105's other rows names line 14: the row with the error.
    assert!(rows[13][errors].starts_with("BR-KSA-F-04 Quantity"), "{:?}", rows[13]);
    for n in [9, 10, 13] {
        assert_eq!(
            rows[n - 1][errors],
            "INV-DOCUMENT: the document has errors on another row (line 14)",
            "line {n}"
        );
    }
    // documents.csv counts INV-0105's rows only, without the blank lines' warning.
    let docs = result_rows(&dir.path().join("results/x.documents.csv"));
    let dat = |name: &str| docs[0].iter().position(|h| h == name).unwrap();
    let inv = docs.iter().find(|d| d[dat("document")] == "INV-0105").unwrap();
    assert_eq!(inv[dat("rows")], "4", "{inv:?}");
    assert!(!inv[dat("warnings")].contains("INV-ROW-BLANK"), "{inv:?}");
    let note = "3 row(s) hold only empty cells (the first at line 18): no data, so not in the result file";
    assert_eq!(rows.len(), 17, "the last data row is on line 17");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results/x.summary.json")).unwrap()).unwrap();
    for notes in [&json["files"][0]["notes"], &summary["notes"]] {
        let notes = notes.as_array().unwrap();
        assert!(notes.iter().any(|n| n.as_str() == Some(note)), "{note} in {notes:?}");
    }
    // The summary counts every row of the result file by status, the blank lines as skipped.
    let by_status: u64 = summary["rows_by_status"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(by_status, rows.len() as u64 - 1);
}

/// A header line repeated among a document's rows is skipped, and is no row of that document
/// (its `result_document` is empty), in an issued document as in one the mapping skips.
#[test]
fn a_repeated_header_line_is_no_row_of_the_document_around_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    let header = lines[0].clone();
    // INV-0103 (Voided, skipped) gets a second row, the header line between its two.
    assert!(lines[6].contains("INV-0103") && lines[6].contains("Voided"));
    let voided = lines[6].clone();
    lines.insert(7, voided);
    lines.insert(7, header.clone());
    // INV-0101 (issued): the header line between its first and second rows.
    lines.insert(2, header);
    std::fs::write(dir.path().join("x.csv"), lines.join("\n")).unwrap();
    let (_, _, stderr) = check_json(dir.path(), &["--mapping", "xero", "x.csv"]);
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, document, warnings) = (at("result_status"), at("result_document"), at("result_warnings"));
    // Result rows: 1 INV-0101, 2 the header, 3-4 INV-0101, ..., 7 INV-0103, 8 the header, 9 INV-0103.
    for (row, number) in [(1, "INV-0101"), (3, "INV-0101"), (7, "INV-0103"), (9, "INV-0103")] {
        assert_eq!(rows[row][document], number, "{:?} {stderr}", rows[row]);
    }
    for row in [2, 8] {
        assert_eq!(rows[row][status], "skipped", "{:?}", rows[row]);
        assert_eq!(rows[row][document], "", "{:?}", rows[row]);
        assert!(
            rows[row][warnings].starts_with("INV-ROW-HEADER") && !rows[row][warnings].contains("INV-SKIP"),
            "{:?}",
            rows[row]
        );
    }
    assert_eq!(rows[1][status], "valid");
    assert!(rows[9][warnings].contains("INV-SKIP"), "{:?}", rows[9]);
    // documents.csv counts a document's rows only: the header line is none of INV-0101's (QA
    // 14a #3), and its warning is not the document's.
    let docs = result_rows(&dir.path().join("results/x.documents.csv"));
    let dat = |name: &str| docs[0].iter().position(|h| h == name).unwrap();
    for number in ["INV-0101", "INV-0103"] {
        let doc = docs.iter().find(|d| d[dat("document")] == number).unwrap();
        let in_result = rows.iter().filter(|r| r[document] == number).count();
        assert_eq!(doc[dat("rows")], in_result.to_string(), "{doc:?}");
        assert!(!doc[dat("warnings")].contains("INV-ROW-HEADER"), "{doc:?}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results/x.summary.json")).unwrap()).unwrap();
    let header = &summary["warnings"]["INV-ROW-HEADER"];
    assert_eq!(header["stray_rows"], 2, "{header}");
    assert!(header["documents"].as_object().unwrap().is_empty(), "{header}");
}

/// A line saved with another separator than the file's (one Xero line written with `;`) is one
/// error on that line, which says so; split at that separator, its number keeps it in its
/// document (not a row without a number, nor a document split in two), which is not issued.
#[test]
fn a_line_saved_with_another_separator_is_said_on_that_line_in_its_document() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    // Lines 9-12 are INV-0105's; its second line, and the file's last data line, with `;`.
    assert!(lines[9].contains(",INV-0105,"));
    lines[9] = lines[9].replace(',', ";");
    let last = lines.iter().rposition(|l| !l.trim_matches(',').is_empty()).unwrap();
    lines.truncate(last + 1);
    let number = |l: &str| l.split(',').nth(18).unwrap().to_string();
    let last_number = number(&lines[last]);
    lines[last] = lines[last].replace(',', ";");
    std::fs::write(dir.path().join("x.csv"), lines.join("\r\n")).unwrap();
    let (_, _, stderr) = check_json(dir.path(), &["--mapping", "xero", "x.csv"]);
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, document, errors) = (at("result_status"), at("result_document"), at("result_errors"));
    let row = |line: usize| &rows[line - 1];
    let expected = "INV-ROW-SEPARATOR \"Gulf Medical Supplies LLC;accounts@example.sa;Prince Mohamme…\": line 10 \
                    is separated by \";\", not by \",\" like the rest of the file: read with \",\" it has 1 cell(s) \
                    where the header has 44 columns, so it is not checked and its document is not issued (split \
                    at \";\" it gives 44 cells, which place it in its document); save that line again with \",\" \
                    between its cells (or export the file again) and check it again";
    assert_eq!(row(10)[errors], expected, "{stderr}");
    assert_eq!(row(10)[document], "INV-0105");
    for line in [9, 11, 12] {
        assert_eq!(row(line)[status], "invalid", "{:?}", row(line));
        assert_eq!(row(line)[document], "INV-0105");
        assert_eq!(
            row(line)[errors],
            "INV-DOCUMENT: the document has errors on another row (line 10)",
            "no INV-MAP-SPLIT: {:?}",
            row(line)
        );
    }
    // The last line so is not a line cut short: its document is its number's.
    let end = rows.len();
    assert_eq!(row(end)[document], last_number);
    assert!(
        row(end)[errors].starts_with("INV-ROW-SEPARATOR \"") && !row(end)[errors].contains(" | "),
        "{:?}",
        row(end)
    );
    let warnings = at("result_warnings");
    let all: String = rows
        .iter()
        .flat_map(|r| [r[errors].as_str(), r[warnings].as_str()])
        .collect();
    for code in [
        "INV-MAP-NUMBER",
        "INV-MAP-SPLIT",
        "INV-MAP-ORPHAN",
        "INV-FILE-CUT",
        "INV-ROW-SHORT",
    ] {
        assert!(!all.contains(code), "{code}: {all}");
    }
}

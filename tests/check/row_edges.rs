//! Rows that are no document's: rows of only empty cells, and the header line repeated inside
//! the data (concatenated exports).

use super::{check_json, result_rows, samples};

/// The Xero sample's lines (its BOM taken off): the header, 15 rows of data, then two rows of
/// only commas.
fn xero_lines() -> Vec<String> {
    let src = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    src.trim_start_matches('\u{feff}').lines().map(str::to_string).collect()
}

/// Rows of only empty cells are not rows of the result file; a note counts them and says where
/// the first is, so that the export's lines can be reconciled with the result file's rows.
#[test]
fn rows_of_only_empty_cells_are_counted_in_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    let blank = ",".repeat(lines[0].matches(',').count());
    assert!(
        lines.iter().filter(|l| **l == blank).count() >= 2,
        "the sample ends with blank rows"
    );
    lines.insert(5, blank.clone());
    let data = lines.iter().skip(1).filter(|l| **l != blank).count();
    let blanks = lines.len() - 1 - data;
    std::fs::write(dir.path().join("x.csv"), lines.join("\n")).unwrap();
    let (_, json, stderr) = check_json(dir.path(), &["--mapping", "xero", "x.csv"]);
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    assert_eq!(rows.len() - 1, data, "{stderr}");
    let note =
        format!("{blanks} row(s) hold only empty cells (the first at line 6): no data, so not in the result file");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results/x.summary.json")).unwrap()).unwrap();
    for notes in [&json["files"][0]["notes"], &summary["notes"]] {
        let notes = notes.as_array().unwrap();
        assert!(
            notes.iter().any(|n| n.as_str() == Some(note.as_str())),
            "{note} in {notes:?}"
        );
    }
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
}

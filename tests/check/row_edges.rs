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

//! Workbooks whose sheet says more than its cells' values: a formula saved without its computed
//! value (a workbook written by a program and never calculated), a row hidden in the workbook.
//! The workbooks are written by rust_xlsxwriter, then their sheet's XML is edited as those
//! programs write it.

use super::{NOW, result_rows, samples};
use rust_xlsxwriter::{Formula, Workbook, Worksheet};
use std::path::Path;

/// The Tally sample's header, and a column the mapping does not read.
const HEADER: [&str; 10] = [
    "Date",
    "Voucher Number",
    "Voucher Type",
    "Party Name",
    "Item Name",
    "Quantity",
    "Rate",
    "Amount",
    "Narration",
    "Cost Centre",
];

/// A row of voucher `number`: 25 helmets at 38, 950, to a walk-in customer on the day of `NOW`.
fn voucher(number: &str) -> [&str; 10] {
    [
        "21-11-2026",
        number,
        "Sales",
        "Walk-in Customer",
        "Safety helmets",
        "25",
        "38",
        "950",
        "Site delivery",
        "CC-1",
    ]
}

/// The header, then a row of each voucher `numbers` names (a blank number: a row without one);
/// blank cells are not written.
fn vouchers(sheet: &mut Worksheet, numbers: &[&str]) {
    for (c, h) in HEADER.iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
    for (r, number) in numbers.iter().enumerate() {
        for (c, v) in voucher(number).iter().enumerate() {
            if !v.is_empty() {
                sheet.write_string(r as u32 + 1, c as u16, *v).unwrap();
            }
        }
    }
}

/// Rewrites the first sheet of the workbook at `path`, replacing each `(from, to)` once (each
/// `from` must be there).
pub(super) fn edit_sheet(path: &Path, edits: &[(&str, &str)]) {
    edit_part(path, "xl/worksheets/sheet1.xml", edits);
}

/// Rewrites the part named `part` of the workbook at `path`, as [`edit_sheet`].
fn edit_part(path: &Path, part: &str, edits: &[(&str, &str)]) {
    use std::io::{Read, Write};
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().to_string();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        if name == part {
            let mut xml = String::from_utf8(bytes).unwrap();
            for (from, to) in edits {
                assert!(xml.contains(from), "{from} in {xml}");
                xml = xml.replacen(from, to, 1);
            }
            bytes = xml.into_bytes();
        }
        out.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(&bytes).unwrap();
    }
    std::fs::write(path, out.finish().unwrap().into_inner()).unwrap();
}

/// `check` of `name` in `dir` with the Tally mapping, results in `dir/r`: the exit code and the
/// result file's rows.
fn check(dir: &Path, name: &str) -> (Option<i32>, Vec<Vec<String>>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .current_dir(dir)
        .args(["check", name, "--mapping", "tally", "--now", NOW, "--results", "r"])
        .output()
        .unwrap();
    let stem = name.trim_end_matches(".xlsx");
    let rows = result_rows(&dir.join(format!("r/{stem}.result.csv")));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), rows, said)
}

/// A formula saved without its computed value is no value: in a column the mapping reads it is an
/// error that says so (not a blank cell, "no unit price"); as a document number, the row has
/// none; in a column the mapping does not read it changes nothing; a row of nothing else is
/// blank; a formula saved with its value is that value.
#[test]
fn a_formula_without_its_computed_value_is_an_error_that_says_how_to_get_the_value() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    vouchers(sheet, &["TS/101", "", "TS/102", "TS/103"]);
    // G2: TS/101's rate; B3: the row's voucher number; H4: TS/102's amount, with its value; J5:
    // TS/103's cost centre, which the mapping does not read; H6: a row of only a formula.
    sheet.write_formula(1, 6, "=H2/F2").unwrap();
    sheet.write_formula(2, 1, "=100&4").unwrap();
    sheet
        .write_formula(3, 7, Formula::new("=F4*G4").set_result("950"))
        .unwrap();
    sheet.write_formula(4, 9, "=\"CC-\"&B5").unwrap();
    sheet.write_formula(5, 7, "=F6*G6").unwrap();
    book.save(dir.path().join("f.xlsx")).unwrap();
    // rust_xlsxwriter saves 0 as a formula's value; a program that does not calculate formulas
    // saves none (`<f>` alone, or with an empty `<v>` as openpyxl writes it).
    edit_sheet(
        &dir.path().join("f.xlsx"),
        &[
            ("<f>H2/F2</f><v>0</v>", "<f>H2/F2</f>"),
            ("<f>100&amp;4</f><v>0</v>", "<f>100&amp;4</f>"),
            ("<f>\"CC-\"&amp;B5</f><v>0</v>", "<f>\"CC-\"&amp;B5</f><v></v>"),
            ("<f>F6*G6</f><v>0</v>", "<f>F6*G6</f><v/>"),
        ],
    );
    let (code, rows, said) = check(dir.path(), "f.xlsx");
    assert_eq!(code, Some(1), "{said}");
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, errors, document) = (at("result_status"), at("result_errors"), at("result_document"));
    assert_eq!(rows.len(), 5, "the row of only a formula is blank: {rows:?}");
    let formula_fix = "(the workbook was written by a program and never calculated): open the workbook in \
                       Excel or LibreOffice and save it, or export values instead of formulas";
    // The rate: what the cell holds, not "no unit price".
    assert_eq!(rows[1][status], "invalid", "{:?}", rows[1]);
    assert!(
        rows[1][errors].contains(&format!(
            "INV-MAP-VALUE Rate \"=H2/F2\": the cell holds the formula =H2/F2 but no computed value {formula_fix}"
        )),
        "{:?}",
        rows[1]
    );
    assert!(!rows[1][errors].contains("INV-MAP-MISSING"), "{:?}", rows[1]);
    assert_eq!(rows[1][at("Rate")], "=H2/F2", "the result file shows the formula");
    // The voucher number: the row has none, and may be a line of TS/101.
    assert_eq!(rows[2][status], "invalid", "{:?}", rows[2]);
    assert_eq!(
        rows[2][errors],
        "INV-MAP-NUMBER Voucher Number \"=100&4\": no document number in this row (Voucher Number holds the \
         formula =100&4 but no computed value: the workbook was written by a program and never \
         calculated; the row above is of TS/101, which is not issued without this row, if it is one of its \
         lines): open the workbook in Excel or LibreOffice and save it, or export values instead of formulas",
        "{:?}",
        rows[2]
    );
    assert!(
        rows[1][errors].contains(
            "INV-MAP-ORPHAN Voucher Number \"TS/101\": the row after this document's last row (line 3) has the \
             formula =100&4 but no computed value for its document number"
        ),
        "{:?}",
        rows[1]
    );
    // A formula saved with its value, and one in a column the mapping does not read.
    assert_eq!(
        (
            rows[3][status].as_str(),
            rows[3][document].as_str(),
            rows[3][at("Amount")].as_str()
        ),
        ("valid", "TS/102", "950"),
        "{:?}",
        rows[3]
    );
    assert_eq!(
        (rows[4][status].as_str(), rows[4][errors].as_str()),
        ("valid", ""),
        "{:?}",
        rows[4]
    );
    // What `check` prints names the file, the row, the column and the formula.
    assert!(
        said.contains(
            "f.xlsx line 2: INV-MAP-VALUE Rate \"=H2/F2\": the cell holds the formula =H2/F2 but no computed value"
        ),
        "{said}"
    );
    // What the reader counts as it reads the sheet reaches the file's notes, printed and in its
    // summary: the formulas without a value, and the row of nothing else, not in the result file.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/f.summary.json")).unwrap()).unwrap();
    let notes: Vec<&str> = summary["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    for note in [
        "sheet \"Sheet1\": 3 cell(s) hold a formula but no computed value (first at row 2, column G: =H2/F2)",
        "1 row(s) hold only empty cells (the first at row 6): no data, so not in the result file",
    ] {
        assert!(said.contains(note), "{note} in {said}");
        assert!(notes.iter().any(|n| n.contains(note)), "{note} in {notes:?}");
    }
}

/// A row hidden in the workbook (filtered out, or hidden by hand) is read and issued as any
/// other, with a warning that says so.
#[test]
fn a_hidden_row_is_read_like_any_other_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    vouchers(sheet, &["TS/101", "TS/102", "TS/103", "TS/104"]);
    // Row 3 hidden as Excel writes it, row 5 as LibreOffice does.
    sheet.set_row_hidden(2).unwrap();
    book.save(dir.path().join("h.xlsx")).unwrap();
    edit_sheet(
        &dir.path().join("h.xlsx"),
        &[("<row r=\"5\"", "<row r=\"5\" hidden=\"true\"")],
    );
    let (code, rows, said) = check(dir.path(), "h.xlsx");
    assert_eq!(code, Some(0), "{said}");
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, warnings, document) = (at("result_status"), at("result_warnings"), at("result_document"));
    let warned: Vec<(&str, &str, &str)> = rows[1..]
        .iter()
        .map(|r| (r[document].as_str(), r[status].as_str(), r[warnings].as_str()))
        .collect();
    let hidden = "INV-ROW-HIDDEN: the row is hidden in the workbook (filtered out, or hidden by hand) and was \
                  read like any other row: if it must not be issued, delete it from the export";
    assert_eq!(
        warned,
        [
            ("TS/101", "valid", ""),
            ("TS/102", "valid", hidden),
            ("TS/103", "valid", ""),
            ("TS/104", "valid", hidden),
        ]
    );
}

/// XlsxWriter (Python) and rust_xlsxwriter save 0 as every formula's value unless the program
/// gives one, and ask the spreadsheet application to calculate the workbook when it opens it
/// (`fullCalcOnLoad`). Such a 0 is no value: the same error as a formula saved without one, not
/// an amount of 0. A value the program gave stands; once a spreadsheet application has saved
/// the workbook (the flag gone), a formula's 0 is its result.
#[test]
fn a_formula_saved_as_zero_by_a_program_that_does_not_calculate_is_no_value() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    vouchers(sheet, &["TS/101", "TS/102"]);
    sheet.write_formula(1, 7, "=F2*G2").unwrap();
    sheet
        .write_formula(2, 7, Formula::new("=F3*G3").set_result("950"))
        .unwrap();
    book.save(dir.path().join("z.xlsx")).unwrap();
    let (code, rows, said) = check(dir.path(), "z.xlsx");
    assert_eq!(code, Some(1), "{said}");
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, errors) = (at("result_status"), at("result_errors"));
    assert_eq!(rows[1][status], "invalid", "{:?}", rows[1]);
    assert!(
        rows[1][errors].starts_with(
            "INV-MAP-VALUE Amount \"=F2*G2\": the cell holds the formula =F2*G2 but no computed value (the workbook \
             was written by a program and never calculated): open the workbook in Excel or LibreOffice and save it"
        ),
        "{:?}",
        rows[1]
    );
    assert_eq!(rows[1][at("Amount")], "=F2*G2", "the result file shows the formula");
    assert_eq!(
        (rows[2][status].as_str(), rows[2][at("Amount")].as_str()),
        ("valid", "950")
    );

    // Saved by a spreadsheet application: the flag is gone, and 0 is the formula's result.
    edit_part(
        &dir.path().join("z.xlsx"),
        "xl/workbook.xml",
        &[(" fullCalcOnLoad=\"1\"", "")],
    );
    let (_, rows, said) = check(dir.path(), "z.xlsx");
    assert_eq!(rows[1][at("Amount")], "0", "{said}");
    assert!(!rows[1][errors].contains("INV-MAP-VALUE"), "{:?}", rows[1]);
}

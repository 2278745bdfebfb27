//! Workbooks whose structure is not what the mapping expects: an empty first sheet, title rows
//! above the header, no header at all. The error names the workbook, the sheet, the row the
//! header was looked for, and the mapping setting that fixes it.

use super::{check_json, samples};
use rust_xlsxwriter::{Workbook, Worksheet};
use std::path::Path;

/// The Tally sample's header and first row.
const HEADER: [&str; 9] = [
    "Date",
    "Voucher Number",
    "Voucher Type",
    "Party Name",
    "Item Name",
    "Quantity",
    "Rate",
    "Amount",
    "Narration",
];
const ROW: [&str; 9] = [
    "04-11-2026",
    "TS/101",
    "Sales",
    "Walk-in Customer",
    "Safety helmets",
    "25",
    "38",
    "950",
    "Site delivery",
];

/// Tally's header and a row, from 0-based row `at` of `sheet`.
fn put(sheet: &mut Worksheet, at: u32) {
    for (r, cells) in [HEADER, ROW].iter().enumerate() {
        for (c, v) in cells.iter().enumerate() {
            sheet.write_string(at + r as u32, c as u16, *v).unwrap();
        }
    }
}

fn save(book: &mut Workbook, dir: &Path, name: &str) {
    book.save(dir.join(name)).unwrap();
}

/// The whole-file error of `name` checked in `dir` (with `args`), and the exit code.
fn error_of(dir: &Path, name: &str, args: &[&str]) -> (i32, String) {
    let mut all = vec![name];
    all.extend_from_slice(args);
    let (code, report, stderr) = check_json(dir, &all);
    let file = &report["files"][0];
    (
        code,
        file["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{report:#}\n{stderr}"))
            .to_string(),
    )
}

#[test]
fn an_empty_first_sheet_names_the_sheet_with_the_rows_and_the_setting_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mut book = Workbook::new();
    book.add_worksheet().set_name("Cover").unwrap();
    book.add_worksheet().set_name("Notes").unwrap();
    put(book.add_worksheet().set_name("Register").unwrap(), 0);
    save(&mut book, dir.path(), "book.xlsx");
    for args in [&[][..], &["--mapping", "tally"][..]] {
        let (code, error) = error_of(dir.path(), "book.xlsx", args);
        assert_eq!(code, 2);
        assert_eq!(
            error,
            "book.xlsx: sheet \"Cover\", the first sheet (read when the mapping names none), has no cells; \
             the workbook's sheet \"Register\" has rows: set sheet = \"Register\" in the [input] of the mapping \
             (a copy of a bundled one: see mappings/README.md), or move that sheet first",
            "{args:?}"
        );
    }
}

#[test]
fn title_rows_above_the_header_name_the_row_searched_and_the_row_that_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet().set_name("Sales").unwrap();
    sheet.write_string(0, 0, "ACME Trading - Sales Register").unwrap();
    sheet.write_string(1, 0, "1-Nov-2026 to 20-Nov-2026").unwrap();
    put(sheet, 3);
    save(&mut book, dir.path(), "titled.xlsx");
    let (code, error) = error_of(dir.path(), "titled.xlsx", &["--mapping", "tally"]);
    assert_eq!(code, 2);
    assert_eq!(
        error,
        "titled.xlsx: no column \"Voucher Number\" (needed by fields.\"number\" of mapping mappings/tally.toml \
         (bundled)); the header was read from row 1 of sheet \"Sales\" (\"ACME Trading - Sales Register\"), and \
         row 4 holds this mapping's columns: set header_row = 4 in the mapping's [input] (a copy of a bundled \
         one: see mappings/README.md)"
    );
    // Without --mapping: the detection says the same of the mapping that fits row 4.
    let (code, error) = error_of(dir.path(), "titled.xlsx", &[]);
    assert_eq!(code, 2);
    assert!(
        error.starts_with(
            "titled.xlsx: no bundled mapping fits these headers; write a mapping (see mappings/README.md) and \
             pass --mapping FILE; the header was read from row 1 of sheet \"Sales\" (\"ACME Trading - Sales \
             Register\"), and row 4 holds the columns of mapping tally: copy it, set header_row = 4 in its \
             [input], and pass it with --mapping FILE"
        ),
        "{error}"
    );
}

#[test]
fn a_sheet_without_the_header_names_the_sheet_the_rows_searched_and_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet().set_name("Sales").unwrap();
    sheet.write_string(0, 0, "ACME Trading - Sales Register").unwrap();
    sheet.write_string(2, 0, "nothing to report").unwrap();
    save(&mut book, dir.path(), "bare.xlsx");
    let (code, error) = error_of(dir.path(), "bare.xlsx", &["--mapping", "tally"]);
    assert_eq!(code, 2);
    assert_eq!(
        error,
        "bare.xlsx: no column \"Voucher Number\" (needed by fields.\"number\" of mapping mappings/tally.toml \
         (bundled)); the header was read from row 1 of sheet \"Sales\" (\"ACME Trading - Sales Register\"), and \
         no row after it up to row 3 holds this mapping's columns: if the header is on another row, set \
         header_row = N in the mapping's [input] (a copy of a bundled one: see mappings/README.md); if this is \
         not the sheet of the export, set sheet = \"...\" there"
    );
}

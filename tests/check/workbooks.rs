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

/// `name` in `dir` with each (cell, number written there, error) of `errors` turned into that
/// spreadsheet error cell (`<c t="e">`), as Excel writes a formula that failed.
fn with_error_cells(dir: &Path, name: &str, errors: &[(&str, &str, &str)]) {
    let edits: Vec<(String, String)> = errors
        .iter()
        .map(|(cell, number, error)| {
            (
                format!("r=\"{cell}\"><v>{number}</v>"),
                format!("r=\"{cell}\" t=\"e\"><v>{error}</v>"),
            )
        })
        .collect();
    let edits: Vec<(&str, &str)> = edits.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    super::sheet_xml::edit_sheet(&dir.join(name), &edits);
}

#[test]
fn an_error_cell_in_a_mapped_column_is_no_value_and_one_elsewhere_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let mut header: Vec<&str> = HEADER.to_vec();
    header.push("Cost Centre");
    for (c, h) in header.iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
    // Four documents; a number is written where an error cell goes (B3: TS/102's number,
    // F4: TS/103's quantity, J5: an unmapped column of TS/104).
    for (r, number) in ["TS/101", "TS/102", "TS/103", "TS/104"].iter().enumerate() {
        let r = r as u32 + 1;
        for (c, v) in ROW.iter().enumerate() {
            sheet.write_string(r, c as u16, *v).unwrap();
        }
        sheet.write_string(r, 1, *number).unwrap();
    }
    sheet.write_number(2, 1, 424242).unwrap();
    sheet.write_number(3, 5, 77777).unwrap();
    sheet.write_number(4, 9, 31313).unwrap();
    save(&mut book, dir.path(), "t.xlsx");
    with_error_cells(
        dir.path(),
        "t.xlsx",
        &[
            ("B3", "424242", "#REF!"),
            ("F4", "77777", "#VALUE!"),
            ("J5", "31313", "#N/A"),
        ],
    );
    super::walk_in_customers(dir.path());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .current_dir(dir.path())
        .args(["check", "t.xlsx", "--now", super::NOW, "--results", "r"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = super::result_rows(&dir.path().join("r/t.result.csv"));
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, errors) = (at("result_status"), at("result_errors"));
    let said = |r: usize| (rows[r][status].as_str(), rows[r][errors].as_str());
    // An error cell is no document number: the row is not issued under the name "#REF!", and,
    // as it may be a line of the document above it, that one is not issued without it.
    assert_eq!(said(1).0, "invalid", "{:?}", rows[1]);
    assert!(
        said(1).1.starts_with(
            "INV-MAP-ORPHAN Voucher Number \"TS/101\": the row after this document's last row (line 3) has the \
             spreadsheet error #REF! for its document number (a formula that failed) and may be one of its lines: \
             the document is not issued without it"
        ),
        "{:?}",
        rows[1]
    );
    assert_eq!(said(2).0, "invalid", "{:?}", rows[2]);
    assert_eq!(
        said(2).1,
        "INV-MAP-NUMBER Voucher Number \"#REF!\": no document number in this row (Voucher Number holds the \
         spreadsheet error #REF!, not a number: a formula that failed; the row above is of TS/101, which is not \
         issued without this row, if it is one of its lines): correct the cell in the workbook or the ERP and \
         export again",
        "{:?}",
        rows[2]
    );
    assert_eq!(said(3).0, "invalid", "{:?}", rows[3]);
    assert!(
        said(3).1.contains("INV-MAP-VALUE Quantity \"#VALUE!\""),
        "{:?}",
        rows[3]
    );
    // In a column the mapping does not read: nothing to say of the document.
    assert_eq!(said(4).0, "valid", "{:?}", rows[4]);
    // The result file shows the error cells as the workbook does.
    assert_eq!(rows[2][at("Voucher Number")], "#REF!");
    assert_eq!(rows[4][at("Cost Centre")], "#N/A");
}

/// The figures of each document of a `X.documents.csv`: number, status, net, vat, gross.
fn figures(path: &Path) -> Vec<Vec<String>> {
    let mut read = csv::ReaderBuilder::new().has_headers(false).from_path(path).unwrap();
    let rows: Vec<Vec<String>> = read
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let keep = [at("document"), at("status"), at("net"), at("vat"), at("gross")];
    rows[1..]
        .iter()
        .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
        .collect()
}

/// Excel stores a percentage as its fraction (0.1) and shows it as `10%` through the cell's
/// number format. A discount typed as 10 % into a workbook is 10 %, not 0.1 %: the workbook
/// with its discounts so gives the documents the CSV export with `10` gives.
#[test]
fn a_discount_cell_shown_as_a_percentage_is_read_as_the_percentage_shown() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("xero_sales_invoices.csv"), dir.path().join("x.csv")).unwrap();
    let text = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let records: Vec<Vec<String>> = csv
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let discount = records[0].iter().position(|h| h == "Discount").unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let whole = rust_xlsxwriter::Format::new().set_num_format("0%");
    let tenths = rust_xlsxwriter::Format::new().set_num_format("0.0%");
    let mut shown = 0;
    for (r, record) in records.iter().enumerate() {
        for (c, cell) in record.iter().enumerate() {
            let (r, c16) = (r as u32, c as u16);
            if r > 0 && c == discount && !cell.trim().is_empty() {
                let percent: f64 = cell.trim().parse().unwrap();
                let format = if percent.fract() == 0.0 { &whole } else { &tenths };
                sheet.write_number_with_format(r, c16, percent / 100.0, format).unwrap();
                shown += 1;
            } else if !cell.is_empty() {
                sheet.write_string(r, c16, cell).unwrap();
            }
        }
    }
    assert_eq!(shown, 4, "the sample's discounts: 5, 12.5, 2 and 10 %");
    save(&mut book, dir.path(), "x.xlsx");
    super::walk_in_customers(dir.path());
    let check = |name: &str, results: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
            .current_dir(dir.path())
            .args(["check", name, "--now", super::NOW, "--results", results])
            .output()
            .unwrap();
        assert!(
            out.status.code().unwrap() < 2,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    check("x.csv", "r");
    let from_csv = figures(&dir.path().join("r/x.documents.csv"));
    assert!(
        from_csv.iter().any(|d| d[0] == "INV-0107" && d[1] == "valid"),
        "{from_csv:?}"
    );
    // Each into a results folder of its own: the workbook's set would replace the CSV's, another
    // export's, which is refused.
    check("x.xlsx", "rb");
    let from_book = figures(&dir.path().join("rb/x.documents.csv"));
    assert_eq!(from_book, from_csv);
    let rows = super::result_rows(&dir.path().join("rb/x.result.csv"));
    assert_eq!(
        rows[1][discount], "5%",
        "the result file shows the cell as the workbook does"
    );
    assert_eq!(rows[3][discount], "12.5%");
}

/// A Tally register of `vouchers` (number, voucher type, item, rate; one of each, 04-11-2026)
/// saved as `name` in `dir`, with credit note 1 correcting invoice 1 in `credit_notes.csv`.
fn tally_register(dir: &Path, name: &str, vouchers: &[(&str, &str, &str, &str)]) {
    std::fs::copy(samples().join("customers.csv"), dir.join("customers.csv")).unwrap();
    std::fs::write(
        dir.join("credit_notes.csv"),
        "number,original_number,original_date,reason\n1,1,2026-11-04,Returned goods\n",
    )
    .unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    for (c, v) in HEADER.iter().enumerate() {
        sheet.write_string(0, c as u16, *v).unwrap();
    }
    for (r, &(number, kind, item, rate)) in vouchers.iter().enumerate() {
        let cells = [
            "04-11-2026",
            number,
            kind,
            "Walk-in Customer",
            item,
            "1",
            rate,
            rate,
            "",
        ];
        for (c, v) in cells.iter().enumerate() {
            sheet.write_string(r as u32 + 1, c as u16, *v).unwrap();
        }
    }
    save(&mut book, dir, name);
}

#[test]
fn a_tally_register_numbering_each_voucher_type_from_1_has_a_document_per_type_and_number() {
    let dir = tempfile::tempdir().unwrap();
    let (s1, s1b) = (("1", "Sales", "Helmets", "40"), ("1", "Sales", "Gloves", "10"));
    let (s2, c1) = (("2", "Sales", "Boots", "120"), ("1", "Credit Note", "Helmets", "40"));
    // (workbook, its vouchers, each document as (number, kind, status, first line, lines)).
    type Doc = (&'static str, &'static str, &'static str, u64, u64);
    let cases: [(&str, Vec<_>, Vec<Doc>); 3] = [
        (
            "apart.xlsx",
            vec![s1, s1b, s2, c1],
            vec![
                ("1", "invoice", "valid", 2, 2),
                ("2", "invoice", "valid", 4, 1),
                ("1", "credit_note", "valid", 5, 1),
            ],
        ),
        (
            "adjacent.xlsx",
            vec![s1, s1b, c1, s2],
            vec![
                ("1", "invoice", "valid", 2, 2),
                ("1", "credit_note", "valid", 4, 1),
                ("2", "invoice", "valid", 5, 1),
            ],
        ),
        // Sales 1 in two places is still one document in parts: neither part is issued, nor
        // is Credit Note 1, which corrects it (`credit_notes.csv`).
        (
            "split.xlsx",
            vec![s1, c1, s1b, s2],
            vec![
                ("1", "invoice", "invalid", 2, 1),
                ("1", "credit_note", "invalid", 3, 1),
                ("1", "invoice", "invalid", 4, 1),
                ("2", "invoice", "valid", 5, 1),
            ],
        ),
    ];
    for (name, vouchers, expected) in cases {
        tally_register(dir.path(), name, &vouchers);
        let (code, report, stderr) = check_json(dir.path(), &[name, "--mapping", "tally"]);
        let file = &report["files"][0];
        let docs: Vec<(String, String, String, u64, u64)> = file["document_list"]
            .as_array()
            .unwrap_or_else(|| panic!("{report:#}\n{stderr}"))
            .iter()
            .map(|d| {
                let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
                (
                    s("number"),
                    s("kind"),
                    s("status"),
                    d["first_line"].as_u64().unwrap(),
                    d["lines"].as_u64().unwrap(),
                )
            })
            .collect();
        let expected: Vec<_> = expected
            .iter()
            .map(|&(n, k, s, f, l)| (n.to_string(), k.to_string(), s.to_string(), f, l))
            .collect();
        assert_eq!(docs, expected, "{name}: {report:#}");
        let codes = file["codes"].as_object().unwrap();
        assert!(!codes.contains_key("INV-MAP-CONFLICT"), "{name}: {codes:?}");
        if name == "split.xlsx" {
            assert_eq!(code, 1, "{name}");
            assert_eq!(codes["INV-MAP-SPLIT"], 2, "{name}: {codes:?}");
            let rows = super::result_rows(&dir.path().join("results/split.result.csv"));
            let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
            assert_eq!(
                rows[1][errors],
                "INV-MAP-SPLIT Voucher Number \"1\": the rows of invoice 1 are not together in the file (its 2 parts \
                 start at lines 2 and 4): no part of it is issued; put all its rows together, with its number on each, \
                 and run again; where a part only repeats another's rows (an export written twice into one \
                 file), take the repetition out instead"
            );
        } else {
            assert_eq!(code, 0, "{name}: {report:#}");
            assert!(!codes.contains_key("INV-MAP-SPLIT"), "{name}: {codes:?}");
        }
    }
}

/// A workbook whose header is below title rows (`header_row = 4`, QA 14b #2): the rows above the
/// header and a blank row between data rows are rows of the Results sheet (`skipped`, no
/// document), so that row N of the Errors sheet and of every message is row N of the Results
/// sheet (and line N of the result CSV).
#[test]
fn title_rows_and_blank_rows_keep_every_row_of_the_results_sheet_on_its_row() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mapping = std::fs::read_to_string(samples().join("../mappings/tally.toml")).unwrap();
    let mapping = mapping.replacen("name = \"tally\"", "name = \"tally-titled\"", 1) + "\n[input]\nheader_row = 4\n";
    std::fs::write(dir.path().join("titled.toml"), mapping).unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet().set_name("Sales").unwrap();
    // Rows 1 and 2 titles, row 3 not in the sheet, row 4 the header, rows 5-6 TS/101 (row 6 with
    // a negative quantity), row 7 not in the sheet, row 8 TS/102.
    sheet.write_string(0, 0, "ACME Trading - Sales Register").unwrap();
    sheet.write_string(1, 0, "1-Nov-2026 to 30-Nov-2026").unwrap();
    put(sheet, 3);
    let mut second = ROW;
    second[4] = "Safety gloves";
    second[5] = "-25";
    let mut third = ROW;
    third[1] = "TS/102";
    for (at, cells) in [(5, second), (7, third)] {
        for (c, v) in cells.iter().enumerate() {
            sheet.write_string(at, c as u16, *v).unwrap();
        }
    }
    save(&mut book, dir.path(), "titled.xlsx");
    let (code, report, stderr) = check_json(dir.path(), &["titled.xlsx", "--mapping", "titled.toml"]);
    assert_eq!(code, 1, "{report:#}\n{stderr}");
    let xlsx = dir.path().join("results/titled.result.xlsx");
    let mut results: calamine::Xlsx<_> = calamine::open_workbook(&xlsx).unwrap();
    use calamine::Reader;
    let text = |d: &calamine::Data| d.to_string();
    let rows: Vec<Vec<String>> = results
        .worksheet_range("Results")
        .unwrap()
        .rows()
        .map(|r| r.iter().map(text).collect())
        .collect();
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (status, document, warnings) = (at("result_status"), at("result_document"), at("result_warnings"));
    assert_eq!(rows.len(), 8, "{rows:?}");
    for (n, first, warning) in [
        (
            2,
            "ACME Trading - Sales Register",
            "INV-ROW-HEADER: a row above the export's header: not a document",
        ),
        (
            3,
            "1-Nov-2026 to 30-Nov-2026",
            "INV-ROW-HEADER: a row above the export's header: not a document",
        ),
        (4, "", "INV-ROW-HEADER: a row above the export's header: not a document"),
        (7, "", "INV-ROW-BLANK: a blank line between the export's rows: no data"),
    ] {
        let row = &rows[n - 1];
        assert_eq!(
            (row[0].as_str(), row[status].as_str(), row[document].as_str()),
            (first, "skipped", ""),
            "row {n}"
        );
        assert_eq!(row[warnings], warning, "row {n}");
    }
    for (n, number, quantity) in [(5, "TS/101", "25"), (6, "TS/101", "-25"), (8, "TS/102", "25")] {
        let row = &rows[n - 1];
        assert_eq!(
            (row[1].as_str(), row[5].as_str(), row[document].as_str()),
            (number, quantity, number),
            "row {n}"
        );
    }
    // The Errors sheet's row of the negative quantity is the Results sheet's row 6.
    let errors: Vec<Vec<String>> = results
        .worksheet_range("Errors")
        .unwrap()
        .rows()
        .map(|r| r.iter().map(text).collect())
        .collect();
    let negative = errors
        .iter()
        .find(|r| r[4] == "BR-KSA-F-04")
        .expect("the negative quantity is listed");
    assert_eq!(
        (negative[0].as_str(), negative[3].as_str()),
        ("6", "-25"),
        "{negative:?}"
    );
    assert!(
        rows[4][at("result_errors")].ends_with("errors on another row (line 6)"),
        "{:?}",
        rows[4]
    );
    // The result CSV has the same rows on the same lines.
    let csv = super::result_rows(&dir.path().join("results/titled.result.csv"));
    assert_eq!(csv.len(), rows.len());
    assert_eq!(csv[5][5], "-25");
}

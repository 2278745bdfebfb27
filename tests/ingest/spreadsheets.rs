//! Spreadsheets: xlsx written here by rust_xlsxwriter, xls and ods fixtures from
//! `tests/fixtures/make_fixtures.py`.

use super::*;
use chrono::{NaiveDate, NaiveDateTime};
use rust_xlsxwriter::{ExcelDateTime, Format, Formula, Workbook};

fn date(y: i32, m: u32, d: u32) -> Cell {
    Cell::Date(NaiveDate::from_ymd_opt(y, m, d).unwrap_or_else(|| panic!("date")))
}

/// The Arabic customer name in the python-made fixtures.
const FIXTURE_ARABIC: &str = "شركة الأمل";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A workbook like an ERP's: two blank rows, the header on row 3, a blank row among the data.
pub(crate) fn sample_xlsx() -> Vec<u8> {
    let result = (|| -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
        let mut book = Workbook::new();
        let date_fmt = Format::new().set_num_format("yyyy-mm-dd");
        let datetime_fmt = Format::new().set_num_format("yyyy-mm-dd hh:mm");
        let sheet = book.add_worksheet();
        sheet.set_name("Invoices")?;
        let headers = [
            "InvoiceNumber",
            "InvoiceDate",
            "DueSerial",
            "Customer",
            "Amount",
            "Qty",
            "Paid",
            "Check",
            "Issued",
        ];
        for (c, h) in headers.iter().enumerate() {
            sheet.write_string(2, c as u16, *h)?;
        }
        sheet.write_string(3, 0, "INV-1")?;
        sheet.write_date_with_format(3, 1, &ExcelDateTime::from_ymd(2025, 3, 4)?, &date_fmt)?;
        sheet.write_number(3, 2, 45720.0)?;
        sheet.write_string(3, 3, ARABIC)?;
        sheet.write_number(3, 4, 0.1 + 0.2)?;
        sheet.write_number(3, 5, 3.0)?;
        sheet.write_boolean(3, 6, true)?;
        sheet.write_formula(3, 7, Formula::new("=NA()").set_result("#N/A"))?;
        let issued = ExcelDateTime::from_ymd(2025, 3, 4)?.and_hms(13, 45, 0)?;
        sheet.write_datetime_with_format(3, 8, &issued, &datetime_fmt)?;
        sheet.write_string(5, 0, "INV-2")?;
        sheet.write_date_with_format(5, 1, &ExcelDateTime::from_ymd(2024, 12, 31)?, &date_fmt)?;
        sheet.write_number(5, 2, 45657.0)?;
        sheet.write_string(5, 3, "  Acme Ltd ")?;
        sheet.write_number(5, 4, 1234.56)?;
        sheet.write_number(5, 5, 2.5)?;
        sheet.write_boolean(5, 6, false)?;
        let other = book.add_worksheet();
        other.set_name("Other")?;
        other.write_string(0, 0, "Title")?;
        other.write_string(1, 0, "A")?;
        book.save_to_buffer()
    })();
    result.unwrap_or_else(|e| panic!("rust_xlsxwriter: {e}"))
}

#[test]
fn xlsx_typed_cells_read_back_exactly() {
    let (_d, p) = write("book.xlsx", &sample_xlsx());
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.format(), FileFormat::Xlsx);
    assert_eq!(r.headers()[0], "InvoiceNumber");
    assert_eq!(r.headers().len(), 9);
    let all = rows(&mut r);
    assert_eq!(all.len(), 2);
    let first = &all[0];
    assert_eq!(first.source.line, 4);
    assert_eq!(first.source.sheet.as_deref(), Some("Invoices"));
    assert_eq!(first.source.to_string(), format!("{} [Invoices] row 4", p.display()));
    let issued =
        NaiveDateTime::parse_from_str("2025-03-04 13:45:00", "%Y-%m-%d %H:%M:%S").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        first.to_cells(),
        vec![
            text("INV-1"),
            date(2025, 3, 4),
            dec("45720"),
            text(ARABIC),
            dec("0.3"),
            dec("3"),
            Cell::Bool(true),
            Cell::Error("#N/A".into()),
            Cell::DateTime(issued),
        ]
    );
    if let Cell::Number(n) = &first.to_cells()[2] {
        assert_eq!(n.scale(), 0, "an integer-valued float is an integer decimal");
    }
    let second = &all[1];
    assert_eq!(second.source.line, 6);
    assert_eq!(
        second.to_cells(),
        vec![
            text("INV-2"),
            date(2024, 12, 31),
            dec("45657"),
            text("  Acme Ltd "),
            dec("1234.56"),
            dec("2.5"),
            Cell::Bool(false),
            Cell::Empty,
            Cell::Empty,
        ]
    );
    let notes = r.notes().join("\n");
    assert!(notes.contains("row 4, column H: #N/A"), "{notes}");
    assert!(notes.contains("\"Invoices\""), "{notes}");
}

/// Asked for every row, a sheet's rows above the header and its blank rows between data rows
/// (rows not in the sheet at all, or of only blank cells) are rows of no data, each on its row;
/// the blank rows after the last data row are only counted in the note.
#[test]
fn every_row_gives_the_sheets_rows_of_no_data_on_their_rows() {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.write_string(0, 0, "Sales register").unwrap();
    sheet.write_string(2, 0, "No").unwrap();
    sheet.write_string(2, 1, "Total").unwrap();
    sheet.write_string(3, 0, "A").unwrap();
    sheet.write_string(4, 1, "").unwrap();
    sheet.write_string(5, 0, "B").unwrap();
    sheet.write_blank(7, 0, &Format::new().set_bold()).unwrap();
    let (_d, p) = write("every.xlsx", &book.save_to_buffer().unwrap());
    let opts = ReadOptions {
        header_row: Some(3),
        every_row: true,
        ..Default::default()
    };
    let mut r = open(&p, &opts);
    let got: Vec<(u64, Option<NotData>, Vec<String>)> = rows(&mut r)
        .into_iter()
        .map(|r| {
            (
                r.source.line,
                r.not_data(),
                r.to_cells().iter().map(Cell::to_text).collect(),
            )
        })
        .collect();
    let (above, blank) = (Some(NotData::AboveHeader), Some(NotData::Blank));
    assert_eq!(
        got,
        vec![
            (1, above, strings(&["Sales register"])),
            (2, above, vec![]),
            (4, None, strings(&["A", ""])),
            (5, blank, vec![]),
            (6, None, strings(&["B", ""])),
        ]
    );
    let note = "2 row(s) hold only empty cells (the first at row 7): no data, so not in the result file";
    assert!(r.notes().contains(&note.into()), "{:?}", r.notes());
}

#[test]
fn explicit_header_row_and_sheet_by_name() {
    let (_d, p) = write("book.xlsx", &sample_xlsx());
    let opts = ReadOptions {
        sheet: Some("other".into()),
        header_row: Some(2),
        ..Default::default()
    };
    let mut r = open(&p, &opts);
    assert_eq!(r.headers(), strings(&["A"]));
    assert!(r.next().is_none());
    let opts = ReadOptions {
        sheet: Some("Sales".into()),
        ..Default::default()
    };
    let e = open_err(&p, &opts);
    let msg = e.to_string();
    assert!(matches!(e, IngestError::SheetNotFound { .. }));
    assert!(
        msg.contains("book.xlsx") && msg.contains("\"Invoices\", \"Other\""),
        "{msg}"
    );
}

#[test]
fn no_float_noise_ever_appears() {
    let (_d, p) = write("book.xlsx", &sample_xlsx());
    for path in [p, fixture("invoices.ods"), fixture("invoices.xls")] {
        let all = rows(&mut open(&path, &ReadOptions::default()));
        assert!(!all.is_empty());
        for row in all {
            for cell in &row.to_cells() {
                let shown = format!("{} {cell:?}", cell.to_text());
                assert!(!shown.contains("0000000000"), "{}: {shown}", path.display());
            }
        }
    }
}

fn check_fixture(name: &str, format: FileFormat) {
    let path = fixture(name);
    let mut r = open(&path, &ReadOptions::default());
    assert_eq!(r.format(), format);
    assert_eq!(
        r.headers(),
        strings(&["InvoiceNumber", "InvoiceDate", "Customer", "Amount", "Qty", "Paid"])
    );
    let all = rows(&mut r);
    let lines: Vec<u64> = all.iter().map(|r| r.source.line).collect();
    assert_eq!(lines, vec![3, 4, 6], "{name}");
    assert_eq!(
        all[0].to_cells(),
        vec![
            text("INV-1"),
            date(2025, 3, 4),
            text(FIXTURE_ARABIC),
            dec("0.3"),
            dec("3"),
            Cell::Bool(true)
        ],
        "{name}"
    );
    assert_eq!(
        all[1].to_cells(),
        vec![
            text("INV-2"),
            date(2024, 12, 31),
            text("Acme Ltd"),
            dec("1234.56"),
            dec("1"),
            Cell::Bool(false)
        ],
        "{name}"
    );
    assert_eq!(
        all[2].to_cells(),
        vec![
            text("INV-3"),
            dec("45720"),
            text("Zed"),
            dec("19.99"),
            dec("2.5"),
            Cell::Empty
        ],
        "{name}"
    );
    let opts = ReadOptions {
        sheet: Some("Missing".into()),
        ..Default::default()
    };
    let msg = open_err(&path, &opts).to_string();
    assert!(msg.contains("\"Invoices\", \"Notes\""), "{msg}");
}

#[test]
fn ods_fixture() {
    check_fixture("invoices.ods", FileFormat::Ods);
}

#[test]
fn xls_fixture() {
    check_fixture("invoices.xls", FileFormat::Xls);
}

#[test]
fn truncated_xlsx_is_a_whole_file_error() {
    let bytes = sample_xlsx();
    let (_d, p) = write("cut.xlsx", &bytes[..bytes.len() / 2]);
    let e = open_err(&p, &ReadOptions::default());
    assert!(matches!(e, IngestError::Workbook { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("cut.xlsx") && msg.contains("truncated"), "{msg}");
}

#[test]
fn workbook_signature_decides_over_the_name() {
    let (_d, p) = write("export", &sample_xlsx());
    assert_eq!(open(&p, &ReadOptions::default()).format(), FileFormat::Xlsx);
    let (_d, p) = write("export.xls", &sample_xlsx());
    let r = open(&p, &ReadOptions::default());
    assert_eq!(r.format(), FileFormat::Xlsx);
    assert!(r.notes().iter().any(|n| n.contains("zip workbook")));
}

#[test]
fn empty_sheet_is_an_error() {
    let (_d, p) = write("book.xlsx", &sample_xlsx());
    let opts = ReadOptions {
        sheet: Some("Other".into()),
        header_row: Some(9),
        ..Default::default()
    };
    let e = open_err(&p, &opts);
    assert!(matches!(e, IngestError::Header { .. }), "{e}");
    assert!(
        e.to_string().contains(
            "sheet \"Other\" has no non-blank row at or after row 9, where the header was looked for (its last \
             row is 2); set header_row in the mapping's [input] to the row of the header (1 to 2)"
        ),
        "{e}"
    );
    // An empty first sheet before one with rows: that one is named, with the setting.
    let mut book = Workbook::new();
    book.add_worksheet().set_name("Cover").unwrap_or_else(|e| panic!("{e}"));
    let data = book.add_worksheet().set_name("Data").unwrap_or_else(|e| panic!("{e}"));
    data.write_string(4, 1, "No").unwrap_or_else(|e| panic!("{e}"));
    let bytes = book.save_to_buffer().unwrap_or_else(|e| panic!("{e}"));
    let (_d, p) = write("covered.xlsx", &bytes);
    let e = open_err(&p, &ReadOptions::default()).to_string();
    assert!(
        e.ends_with(
            "covered.xlsx: sheet \"Cover\", the first sheet (read when the mapping names none), has no cells; the \
             workbook's sheet \"Data\" has rows: set sheet = \"Data\" in the [input] of the mapping (a copy of a \
             bundled one: see mappings/README.md), or move that sheet first"
        ),
        "{e}"
    );
    let r = open(
        &p,
        &ReadOptions {
            sheet: Some("Data".into()),
            ..Default::default()
        },
    );
    assert_eq!(r.header_place(), "row 5 of sheet \"Data\"");
    let mut book = Workbook::new();
    book.add_worksheet();
    let bytes = book.save_to_buffer().unwrap_or_else(|e| panic!("{e}"));
    let (_d, p) = write("blank.xlsx", &bytes);
    assert!(matches!(
        open_err(&p, &ReadOptions::default()),
        IngestError::Empty { .. }
    ));
}

#[test]
fn peek_headers_streams_xlsx_and_agrees_with_open() {
    let (_d, p) = write("book.xlsx", &sample_xlsx());
    let cases = [
        ReadOptions::default(),
        ReadOptions {
            header_rows: 2,
            ..Default::default()
        },
        ReadOptions {
            sheet: Some("Other".into()),
            header_row: Some(2),
            ..Default::default()
        },
    ];
    for opts in cases {
        let peeked = peek_headers(&p, &opts).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(peeked, open(&p, &opts).header_rows(), "{opts:?}");
    }
    // Errors come from the full open, with its message.
    let opts = ReadOptions {
        sheet: Some("Nope".into()),
        ..Default::default()
    };
    assert!(matches!(
        peek_headers(&p, &opts),
        Err(IngestError::SheetNotFound { .. })
    ));
}

#[test]
fn columns_are_indexed_from_column_a() {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let written = (|| -> Result<(), rust_xlsxwriter::XlsxError> {
        sheet.write_string(1, 2, "No")?;
        sheet.write_string(1, 3, "Total")?;
        sheet.write_string(2, 2, "A")?;
        sheet.write_number(2, 3, 5.0)?;
        Ok(())
    })();
    written.unwrap_or_else(|e| panic!("{e}"));
    let bytes = book.save_to_buffer().unwrap_or_else(|e| panic!("{e}"));
    let (_d, p) = write("offset.xlsx", &bytes);
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["Column 1", "Column 2", "No", "Total"]));
    assert_eq!(r.header_rows()[0], strings(&["", "", "No", "Total"]));
    assert_eq!(
        peek_headers(&p, &ReadOptions::default()).ok(),
        Some(r.header_rows().to_vec())
    );
    let all = rows(&mut r);
    assert_eq!(all[0].to_cells(), vec![Cell::Empty, Cell::Empty, text("A"), dec("5")]);
    assert_eq!(all[0].source.line, 3);
}

#[test]
fn default_sheet_is_the_first_visible_worksheet() {
    let mut book = Workbook::new();
    let written = (|| -> Result<(), rust_xlsxwriter::XlsxError> {
        let hidden = book.add_worksheet();
        hidden.set_name("Lookup")?.write_string(0, 0, "Code")?;
        hidden.set_hidden(true);
        let data = book.add_worksheet();
        data.set_name("Data")?.write_string(0, 0, "InvoiceNumber")?;
        data.write_string(1, 0, "INV-9")?;
        data.set_active(true);
        Ok(())
    })();
    written.unwrap_or_else(|e| panic!("{e}"));
    let bytes = book.save_to_buffer().unwrap_or_else(|e| panic!("{e}"));
    let (_d, p) = write("hidden.xlsx", &bytes);
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["InvoiceNumber"]));
    assert_eq!(rows(&mut r)[0].source.sheet.as_deref(), Some("Data"));
}

/// A workbook of `rows` data rows under a header (`No`, `Name`, `Amount`), with a blank row
/// after every 100th; row `i` (1-based) holds `i`, `name i` and `i.25`.
fn long_xlsx(rows: u32) -> Vec<u8> {
    let result = (|| -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
        let mut book = Workbook::new();
        let sheet = book.add_worksheet();
        for (c, h) in ["No", "Name", "Amount"].iter().enumerate() {
            sheet.write_string(0, c as u16, *h)?;
        }
        let mut at = 1u32;
        for i in 1..=rows {
            sheet.write_number(at, 0, f64::from(i))?;
            sheet.write_string(at, 1, format!("name {i}"))?;
            sheet.write_number(at, 2, f64::from(i) + 0.25)?;
            at += if i % 100 == 0 { 2 } else { 1 };
        }
        book.save_to_buffer()
    })();
    result.unwrap_or_else(|e| panic!("rust_xlsxwriter: {e}"))
}

/// The sheet rows of a long xlsx arrive complete and in order, with their sheet row numbers,
/// across the reader thread's chunks.
#[test]
fn a_long_xlsx_is_streamed_in_order() {
    let (_d, p) = write("long.xlsx", &long_xlsx(2_500));
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["No", "Name", "Amount"]));
    let got = texts(&mut r);
    assert_eq!(got.len(), 2_500);
    for (k, (line, cells)) in got.iter().enumerate() {
        let i = k as u64 + 1;
        // Header on row 1, a blank row after every 100th data row.
        assert_eq!(*line, i + 1 + (i - 1) / 100, "row {i}");
        assert_eq!(
            cells,
            &strings(&[&i.to_string(), &format!("name {i}"), &format!("{i}.25")])
        );
    }
}

/// Rewrites the workbook with its first sheet's XML made `edit` of it.
fn with_sheet_edited(bytes: &[u8], edit: impl Fn(Vec<u8>) -> Vec<u8>) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap_or_else(|e| panic!("zip: {e}"));
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap_or_else(|e| panic!("entry: {e}"));
        let name = entry.name().unwrap_or_else(|e| panic!("entry name: {e}")).into_owned();
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .unwrap_or_else(|e| panic!("read {name}: {e}"));
        if name == "xl/worksheets/sheet1.xml" {
            data = edit(data);
        }
        out.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap_or_else(|e| panic!("start {name}: {e}"));
        out.write_all(&data).unwrap_or_else(|e| panic!("write {name}: {e}"));
    }
    out.finish().unwrap_or_else(|e| panic!("finish: {e}")).into_inner()
}

/// Rewrites the workbook with its first sheet's XML cut after `keep` bytes.
fn with_sheet_cut(bytes: &[u8], keep: usize) -> Vec<u8> {
    with_sheet_edited(bytes, |mut data| {
        data.truncate(keep);
        data
    })
}

/// A sheet damaged half-way: the rows before the damage come out, then one whole-file error
/// that names the file and the last row read, and nothing after it. No panic.
#[test]
fn an_xlsx_sheet_damaged_half_way_gives_its_rows_then_an_error() {
    let whole = long_xlsx(2_000);
    let sheet_len = {
        use std::io::Read;
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&whole)).unwrap_or_else(|e| panic!("zip: {e}"));
        let mut entry = archive
            .by_name("xl/worksheets/sheet1.xml")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap_or_else(|e| panic!("{e}"));
        data.len()
    };
    let (_d, p) = write("damaged.xlsx", &with_sheet_cut(&whole, sheet_len / 2));
    let mut r = open(&p, &ReadOptions::default());
    let mut good = 0u64;
    let mut errors = Vec::new();
    for item in &mut r {
        match item {
            Ok(row) => {
                assert!(errors.is_empty(), "a row after the error: line {}", row.source.line);
                good += 1;
            }
            Err(e) => errors.push(e),
        }
    }
    assert!((500..1_500).contains(&good), "{good} rows before the damage");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(!errors[0].is_row_error());
    let msg = errors[0].to_string();
    assert!(msg.contains("damaged.xlsx") && msg.contains("after row"), "{msg}");
}

/// Deep in a long sheet (past the first chunks of both the reading and the search): a formula
/// saved without its value is an error cell of its text, with a note; one saved with its value
/// is that value; a row of nothing but such formulas is blank; a hidden row says so and is read
/// as any other.
#[test]
fn formulas_without_a_value_and_hidden_rows_are_read_as_the_sheet_says() {
    let result = (|| -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
        let mut book = Workbook::new();
        let sheet = book.add_worksheet();
        for (c, h) in ["No", "Name", "Amount"].iter().enumerate() {
            sheet.write_string(0, c as u16, *h)?;
        }
        for r in 1..=5_000u32 {
            sheet.write_number(r, 0, f64::from(r))?;
            sheet.write_string(r, 1, format!("name {r}"))?;
            sheet.write_number(r, 2, f64::from(r) + 0.25)?;
        }
        sheet.write_formula(3_000, 2, "=A3001*2")?;
        sheet.write_formula(3_001, 2, Formula::new("=A3002*2").set_result("6004"))?;
        sheet.write_formula(5_001, 2, "=A5002*2")?;
        sheet.set_row_hidden(4_000)?;
        sheet.set_row_hidden(4_001)?;
        book.save_to_buffer()
    })();
    let bytes = result.unwrap_or_else(|e| panic!("rust_xlsxwriter: {e}"));
    // rust_xlsxwriter saves 0 as a formula's value; a program that does not calculate, none.
    let bytes = with_sheet_edited(&bytes, |data| {
        String::from_utf8_lossy(&data)
            .replace("<f>A3001*2</f><v>0</v>", "<f>A3001*2</f>")
            .replace("<f>A5002*2</f><v>0</v>", "<f>A5002*2</f><v></v>")
            .into_bytes()
    });
    let (_d, p) = write("formulas.xlsx", &bytes);
    let mut r = open(&p, &ReadOptions::default());
    let all = rows(&mut r);
    assert_eq!(all.len(), 5_000, "the row of only a formula is blank");
    let at = |line: u64| &all[(line - 2) as usize];
    assert_eq!(at(3_001).get(2), CellRef::Error("=A3001*2"));
    assert_eq!(at(3_002).to_cells()[2], dec("6004"));
    assert_eq!(at(3_003).to_cells()[2], dec("3002.25"));
    let hidden: Vec<u64> = all.iter().filter(|r| r.hidden()).map(|r| r.source.line).collect();
    assert_eq!(hidden, [4_001, 4_002]);
    assert_eq!(at(4_001).to_cells()[1], text("name 4000"));
    let notes = r.notes().join("\n");
    assert!(
        notes.contains(
            "sheet \"Sheet1\": 1 cell(s) hold a formula but no computed value (first at row 3001, column C: \
             =A3001*2): the workbook was written by a program and never calculated"
        ),
        "{notes}"
    );
}

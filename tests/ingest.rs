//! Integration tests of `invoicedrop::ingest`: every encoding, delimiter and layout quirk the
//! ERPs produce, spreadsheets written by rust_xlsxwriter, fixtures made by
//! `tests/fixtures/make_fixtures.py`, and files that must fail cleanly.

use invoicedrop::ingest::{Cell, CellRef, FileFormat, IngestError, NotData, ReadOptions, Row, RowReader, peek_headers};
use rust_decimal::Decimal;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use tempfile::TempDir;

#[path = "ingest/joined.rs"]
mod joined;
#[path = "ingest/props.rs"]
mod props;
#[path = "ingest/spreadsheets.rs"]
mod spreadsheets;

/// Writes `bytes` as `name` in a fresh temp dir.
fn write(name: &str, bytes: &[u8]) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    (dir, path)
}

fn open(path: &Path, opts: &ReadOptions) -> RowReader {
    RowReader::open(path, opts).unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

fn open_err(path: &Path, opts: &ReadOptions) -> IngestError {
    match RowReader::open(path, opts) {
        Ok(r) => panic!("expected an error for {}, got {r:?}", path.display()),
        Err(e) => e,
    }
}

/// All rows, panicking on row errors.
fn rows(reader: &mut RowReader) -> Vec<Row> {
    reader.map(|r| r.unwrap_or_else(|e| panic!("row error: {e}"))).collect()
}

/// Rows as (line, texts).
fn texts(reader: &mut RowReader) -> Vec<(u64, Vec<String>)> {
    rows(reader)
        .into_iter()
        .map(|r| (r.source.line, r.to_cells().iter().map(Cell::to_text).collect()))
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn dec(s: &str) -> Cell {
    Cell::Number(Decimal::from_str(s).unwrap_or_else(|e| panic!("{s}: {e}")))
}

fn text(s: &str) -> Cell {
    Cell::Text(s.into())
}

const ARABIC: &str = "شركة الأمل للتجارة";

fn csv_of(reader: &RowReader) -> (u8, &'static str) {
    match reader.format() {
        FileFormat::Csv { delimiter, encoding } => (delimiter, encoding),
        other => panic!("expected CSV, got {other}"),
    }
}

// ---------------------------------------------------------------- encodings

#[test]
fn utf8_without_bom() {
    let (_d, p) = write("a.csv", format!("Name,Total\n{ARABIC},1.50\n").as_bytes());
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(csv_of(&r), (b',', "UTF-8"));
    assert_eq!(r.headers(), strings(&["Name", "Total"]));
    assert_eq!(texts(&mut r), vec![(2, strings(&[ARABIC, "1.50"]))]);
}

#[test]
fn utf8_with_bom_is_stripped_from_the_first_header() {
    let (_d, p) = write(
        "a.csv",
        format!("\u{feff}InvoiceNumber,Total\r\nINV-1,{ARABIC}\r\n").as_bytes(),
    );
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["InvoiceNumber", "Total"]));
    assert!(r.notes().iter().any(|n| n.contains("byte-order mark")));
    assert_eq!(texts(&mut r), vec![(2, strings(&["INV-1", ARABIC]))]);
}

fn utf16(s: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
    for unit in s.encode_utf16() {
        out.extend(if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    out
}

#[test]
fn utf16_le_and_be_with_bom() {
    let content = format!("Customer\tAmount\n{ARABIC}\t10\n\"two\nlines\"\t20\nlast\t30\n");
    for (be, name) in [(false, "UTF-16LE"), (true, "UTF-16BE")] {
        let (_d, p) = write("u.csv", &utf16(&content, be));
        let mut r = open(&p, &ReadOptions::default());
        assert_eq!(csv_of(&r), (b'\t', name));
        assert_eq!(r.headers(), strings(&["Customer", "Amount"]));
        assert_eq!(
            texts(&mut r),
            vec![
                (2, strings(&[ARABIC, "10"])),
                (3, strings(&["two\nlines", "20"])),
                (5, strings(&["last", "30"])),
            ]
        );
    }
}

fn cp1256(s: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1256.encode(s);
    assert!(!unmappable);
    bytes.into_owned()
}

#[test]
fn windows_1256_is_the_fallback_for_non_utf8() {
    let content = format!("رقم الفاتورة;العميل;المبلغ\nINV-1;{ARABIC};1,50\nINV-2;مؤسسة النور;100,00\n");
    let (_d, p) = write("legacy.csv", &cp1256(&content));
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(csv_of(&r), (b';', "windows-1256"));
    assert!(
        r.notes()
            .iter()
            .any(|n| n.contains("windows-1256") && n.contains("assumed"))
    );
    assert_eq!(r.headers(), strings(&["رقم الفاتورة", "العميل", "المبلغ"]));
    assert_eq!(
        texts(&mut r),
        vec![
            (2, strings(&["INV-1", ARABIC, "1,50"])),
            (3, strings(&["INV-2", "مؤسسة النور", "100,00"])),
        ]
    );
}

#[test]
fn forced_encoding_wins() {
    let (_d, p) = write("legacy.csv", &cp1256(&format!("a;b\n1;{ARABIC}\n")));
    let opts = ReadOptions {
        encoding: Some("cp1256".into()),
        ..Default::default()
    };
    let mut r = open(&p, &opts);
    assert_eq!(csv_of(&r).1, "windows-1256");
    assert_eq!(texts(&mut r)[0].1, strings(&["1", ARABIC]));
    let opts = ReadOptions {
        encoding: Some("ebcdic-martian".into()),
        ..Default::default()
    };
    let msg = open_err(&p, &opts).to_string();
    assert!(msg.contains("legacy.csv") && msg.contains("ebcdic-martian") && msg.contains("windows-1256"));
}

#[test]
fn ascii_start_then_windows_1256_switches_with_a_note() {
    let mut content = String::from("Customer,Amount\n");
    for i in 0..20_000 {
        content.push_str(&format!("Customer number {i},{i}.00\n"));
    }
    let mut bytes = content.into_bytes();
    assert!(bytes.len() > 256 * 1024, "the ASCII part must exceed the sample");
    bytes.extend(cp1256(&format!("{ARABIC},5.00\n")));
    let (_d, p) = write("late.csv", &bytes);
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(csv_of(&r).1, "UTF-8");
    let all = texts(&mut r);
    assert_eq!(all.len(), 20_001);
    assert_eq!(all[20_000], (20_002, strings(&[ARABIC, "5.00"])));
    assert_eq!(csv_of(&r).1, "windows-1256");
    assert!(
        r.notes()
            .iter()
            .any(|n| n.contains("line 20002") && n.contains("windows-1256"))
    );
}

#[test]
fn invalid_utf8_in_a_utf8_file_keeps_the_row_with_its_problem_and_reading_goes_on() {
    // Valid UTF-8 with Arabic throughout the sample, then one bad record further down.
    let mut content = String::from("Customer,Amount\n");
    for i in 0..10_000 {
        content.push_str(&format!("{ARABIC} {i},{i}\n"));
    }
    let mut bytes = content.into_bytes();
    assert!(bytes.len() > 256 * 1024, "the good part must exceed the sample");
    bytes.extend(b"bad \xFF\xFE name,2\nok,3\n");
    let (_d, p) = write("mixed.csv", &bytes);
    let r = open(&p, &ReadOptions::default());
    let results: Vec<_> = r.collect();
    assert_eq!(results.len(), 10_002);
    assert!(results.iter().all(Result::is_ok));
    let rows: Vec<_> = results.into_iter().map(Result::unwrap).collect();
    assert!(rows[..10_000].iter().all(|r| r.problem().is_none()));
    assert_eq!(rows[10_001].source.line, 10_003);
    assert!(rows[10_001].problem().is_none());
    // The bad record: its cells, the bytes at fault as U+FFFD, and what is wrong with which cell.
    let bad = &rows[10_000];
    assert_eq!(bad.source.line, 10_002);
    assert_eq!(bad.get(0).as_text(), "bad \u{FFFD}\u{FFFD} name");
    assert_eq!(bad.get(1).as_text(), "2");
    let problem = bad.problem().expect("a problem");
    assert_eq!((problem.code, problem.column), ("INV-ROW-READ", Some(0)));
    assert_eq!(problem.value.as_deref(), Some("bad \u{FFFD}\u{FFFD} name"));
    assert!(problem.message.contains("not valid UTF-8"), "{}", problem.message);
}

#[test]
fn undecodable_utf16_is_replaced_and_counted() {
    let mut bytes = utf16("a,b\n1,", false);
    bytes.extend([0x00, 0xD8]); // a lone high surrogate
    bytes.extend(utf16("x\n2,y\n", false).split_off(2));
    let (_d, p) = write("s.csv", &bytes);
    let mut r = open(&p, &ReadOptions::default());
    let all = texts(&mut r);
    assert_eq!(all[0].1[1], "\u{FFFD}x");
    assert!(
        r.notes().iter().any(|n| n.contains("U+FFFD") && n.contains("line 2")),
        "{:?}",
        r.notes()
    );
}

// ---------------------------------------------------------------- delimiters and layout

#[test]
fn each_delimiter_is_sniffed() {
    for d in [',', ';', '\t', '|'] {
        let content = format!("Invoice{d}Customer{d}Total\nINV-1{d}\"Acme{d} Ltd\"{d}10\nINV-2{d}Bolt{d}20\n");
        let (_d, p) = write("d.csv", content.as_bytes());
        let mut r = open(&p, &ReadOptions::default());
        assert_eq!(csv_of(&r).0, d as u8, "delimiter {d:?}");
        assert_eq!(r.headers(), strings(&["Invoice", "Customer", "Total"]));
        assert_eq!(texts(&mut r)[0].1, strings(&["INV-1", &format!("Acme{d} Ltd"), "10"]));
    }
}

#[test]
fn explicit_delimiter_wins() {
    let (_d, p) = write("d.csv", b"a;b,c\n1;2,3\n");
    let opts = ReadOptions {
        delimiter: Some(b','),
        ..Default::default()
    };
    let mut r = open(&p, &opts);
    assert_eq!(r.headers(), strings(&["a;b", "c"]));
    assert_eq!(texts(&mut r)[0].1, strings(&["1;2", "3"]));
}

#[test]
fn embedded_newlines_and_the_next_records_start_line() {
    let content = "Invoice,Description,Total\r\nINV-1,\"line one\r\nline two\r\nline three\",10\r\nINV-2,plain,20\r\n\r\nINV-3,\"x\"\"y\",30";
    let (_d, p) = write("n.csv", content.as_bytes());
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(
        texts(&mut r),
        vec![
            (2, strings(&["INV-1", "line one\r\nline two\r\nline three", "10"])),
            (5, strings(&["INV-2", "plain", "20"])),
            (7, strings(&["INV-3", "x\"y", "30"])),
        ]
    );
}

#[test]
fn trailing_delimiters_ragged_rows_and_spaces() {
    let content = "a;b;c;\n1;2;3;\n4;5;\n6;7;8;9;\n  10 ;; 12 ;\n";
    let (_d, p) = write("t.csv", content.as_bytes());
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["a", "b", "c"]));
    let all = rows(&mut r);
    assert_eq!(all[0].to_cells(), vec![text("1"), text("2"), text("3")]);
    assert_eq!(all[1].to_cells(), vec![text("4"), text("5"), Cell::Empty]);
    assert_eq!(all[2].to_cells(), vec![text("6"), text("7"), text("8"), text("9")]);
    assert_eq!(all[3].to_cells(), vec![text("  10 "), Cell::Empty, text(" 12 ")]);
}

#[test]
fn blank_lines_and_blank_records_are_skipped() {
    let content = "\n\nH1,H2\n\n1,2\n   \n,\n \t, \n3,4\n\n";
    let (_d, p) = write("b.csv", content.as_bytes());
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["H1", "H2"]));
    assert_eq!(
        texts(&mut r),
        vec![(5, strings(&["1", "2"])), (9, strings(&["3", "4"]))]
    );
    // Empty lines are counted with the records of only blank fields (lines 4, 6-8 and 10).
    assert!(
        r.notes().contains(
            &"5 row(s) hold only empty cells (the first at line 4): no data, so not in the result file".into()
        ),
        "{:?}",
        r.notes()
    );
}

/// Rows as (line, what they are when they hold no data, texts).
fn every(reader: &mut RowReader) -> Vec<(u64, Option<NotData>, Vec<String>)> {
    rows(reader)
        .into_iter()
        .map(|r| {
            (
                r.source.line,
                r.not_data(),
                r.to_cells().iter().map(Cell::to_text).collect(),
            )
        })
        .collect()
}

/// Asked for every row, a reader gives the rows above the header, the header rows after the
/// first and the blank lines between data rows (empty, or of only empty fields) as rows of no
/// data, each on its line, so that the result file keeps every line of the export on its line;
/// the blank lines at the end are only counted in the note.
#[test]
fn every_row_gives_the_rows_of_no_data_on_their_lines() {
    let content = "Sales, March\n\nNo,Total\nNumber,Sum\nA,1\n\n,\nB,2\n,\n\n";
    let (_d, p) = write("e.csv", content.as_bytes());
    let opts = ReadOptions {
        header_row: Some(3),
        header_rows: 2,
        every_row: true,
        ..Default::default()
    };
    let mut r = open(&p, &opts);
    assert_eq!(r.headers(), strings(&["No", "Total"]));
    let (above, header, blank) = (Some(NotData::AboveHeader), Some(NotData::Header), Some(NotData::Blank));
    assert_eq!(
        every(&mut r),
        vec![
            (1, above, strings(&["Sales", " March"])),
            (2, above, vec![]),
            (4, header, strings(&["Number", "Sum"])),
            (5, None, strings(&["A", "1"])),
            (6, blank, vec![]),
            (7, blank, vec![]),
            (8, None, strings(&["B", "2"])),
        ]
    );
    let note = "2 row(s) hold only empty cells (the first at line 9): no data, so not in the result file";
    assert!(r.notes().contains(&note.into()), "{:?}", r.notes());
    // Not asked: the data rows only, every blank line after the header counted.
    let mut r = open(
        &p,
        &ReadOptions {
            every_row: false,
            ..opts
        },
    );
    assert_eq!(
        every(&mut r),
        vec![(5, None, strings(&["A", "1"])), (8, None, strings(&["B", "2"]))]
    );
    let note = "4 row(s) hold only empty cells (the first at line 6): no data, so not in the result file";
    assert!(r.notes().contains(&note.into()), "{:?}", r.notes());
    // A file whose last line, of only commas, has no line end: counted all the same.
    let (_d, p) = write("f.csv", b"No,Total\nA,1\n\n,");
    let mut r = open(
        &p,
        &ReadOptions {
            every_row: true,
            ..Default::default()
        },
    );
    assert_eq!(every(&mut r), vec![(2, None, strings(&["A", "1"]))]);
    let note = "2 row(s) hold only empty cells (the first at line 3): no data, so not in the result file";
    assert!(r.notes().contains(&note.into()), "{:?}", r.notes());
}

#[test]
fn duplicate_and_blank_header_names() {
    let (_d, p) = write("h.csv", b" Amount ,Amount,,Tax,Amount\n1,2,3,4,5\n");
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(
        r.headers(),
        strings(&["Amount", "Amount (2)", "Column 3", "Tax", "Amount (3)"])
    );
    assert_eq!(r.header_rows()[0], strings(&["Amount", "Amount", "", "Tax", "Amount"]));
    assert!(r.notes().iter().any(|n| n.contains("Amount (2)")));
    assert!(r.notes().iter().any(|n| n.contains("Column N")));
    assert_eq!(rows(&mut r)[0].len(), 5);
}

#[test]
fn header_not_on_the_first_line() {
    // Auto: the first non-blank line.
    let (_d, p) = write("h.csv", b"\r\n\r\nNo,Total\r\nA,1\r\n");
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["No", "Total"]));
    assert_eq!(texts(&mut r), vec![(4, strings(&["A", "1"]))]);
    // Explicit: a title line above the header.
    let (_d, p) = write(
        "h.csv",
        b"Sales export March 2025\nGenerated by ERP\nNo;Total\nA;1\nB;2\n",
    );
    let opts = ReadOptions {
        header_row: Some(3),
        ..Default::default()
    };
    let mut r = open(&p, &opts);
    assert_eq!(csv_of(&r).0, b';');
    assert_eq!(r.headers(), strings(&["No", "Total"]));
    assert_eq!(
        texts(&mut r),
        vec![(4, strings(&["A", "1"])), (5, strings(&["B", "2"]))]
    );
    // Beyond the end.
    let opts = ReadOptions {
        header_row: Some(40),
        ..Default::default()
    };
    let msg = open_err(&p, &opts).to_string();
    assert!(msg.contains("h.csv") && msg.contains("line 40"), "{msg}");
    assert!(
        msg.ends_with("set header_row in the mapping's [input] to the line of the header (1 to 5)"),
        "{msg}"
    );
    // Where the header was read.
    let r = open(&p, &ReadOptions::default());
    assert_eq!((r.header_line(), r.header_place()), (1, "line 1".to_string()));
    let r = open(
        &p,
        &ReadOptions {
            header_row: Some(3),
            ..Default::default()
        },
    );
    assert_eq!(r.header_place(), "line 3");
}

#[test]
fn sap_dtw_two_header_rows() {
    let content = "ParentKey\tLineNum\tItemCode\tQuantity\tPrice\r\nDocNum\tLineNum\tItemCode\tQuantity\tPrice\r\n1\t0\tA1\t2\t10.5\r\n1\t1\tB2\t1\t3\r\n";
    let (_d, p) = write("lines.txt", content.as_bytes());
    let opts = ReadOptions {
        header_rows: 2,
        ..Default::default()
    };
    let mut r = open(&p, &opts);
    assert_eq!(
        r.headers(),
        strings(&["ParentKey", "LineNum", "ItemCode", "Quantity", "Price"])
    );
    assert_eq!(r.header_rows().len(), 2);
    assert_eq!(r.header_rows()[1][0], "DocNum");
    assert_eq!(
        texts(&mut r),
        vec![
            (3, strings(&["1", "0", "A1", "2", "10.5"])),
            (4, strings(&["1", "1", "B2", "1", "3"]))
        ]
    );
    assert_eq!(peek_headers(&p, &opts).ok().map(|h| h.len()), Some(2));
}

#[test]
fn one_column_file() {
    let (_d, p) = write("one.csv", b"InvoiceNumber\nA\nB\n");
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers(), strings(&["InvoiceNumber"]));
    assert_eq!(texts(&mut r).len(), 2);
}

// ---------------------------------------------------------------- whole-file errors

#[test]
fn empty_file_only_header_and_only_blank_lines() {
    let (_d, p) = write("empty.csv", b"");
    let e = open_err(&p, &ReadOptions::default());
    assert!(matches!(e, IngestError::Empty { .. }));
    assert!(e.to_string().contains("empty.csv"));
    let (_d, p) = write("blank.csv", b"\n\r\n  \n");
    assert!(matches!(
        open_err(&p, &ReadOptions::default()),
        IngestError::Empty { .. }
    ));
    let (_d, p) = write("header.csv", b"a,b,c\n");
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(r.headers().len(), 3);
    assert!(r.next().is_none());
}

#[test]
fn binary_files_with_a_text_name() {
    let (_d, p) = write("bin.csv", b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0a,b\n");
    let e = open_err(&p, &ReadOptions::default());
    assert!(matches!(e, IngestError::Binary { .. }), "{e}");
    let (_d, p) = write("book.csv", b"PK\x03\x04\x14\0\x06\0rest of a zip");
    let msg = open_err(&p, &ReadOptions::default()).to_string();
    assert!(msg.contains("book.csv") && msg.contains(".xlsx"), "{msg}");
    let (_d, p) = write("old.csv", &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0]);
    assert!(open_err(&p, &ReadOptions::default()).to_string().contains(".xls"));
}

#[test]
fn missing_file_names_the_file() {
    let e = open_err(Path::new("/nonexistent/dir/x.csv"), &ReadOptions::default());
    assert!(matches!(e, IngestError::Open { .. }));
    assert!(e.to_string().contains("/nonexistent/dir/x.csv"));
}

#[test]
fn text_with_a_spreadsheet_name() {
    let (_d, p) = write("fake.xlsx", b"a,b\n1,2\n");
    let e = open_err(&p, &ReadOptions::default());
    assert!(matches!(e, IngestError::NotASpreadsheet { .. }), "{e}");
    // ERPs that write tab-separated text with an .xls name.
    let (_d, p) = write("report.xls", b"No\tTotal\nA\t1\n");
    let mut r = open(&p, &ReadOptions::default());
    assert_eq!(csv_of(&r).0, b'\t');
    assert!(r.notes().iter().any(|n| n.contains("holds text")));
    assert_eq!(texts(&mut r), vec![(2, strings(&["A", "1"]))]);
    let (_d, p) = write("page.xls", b"<html><table></table></html>");
    assert!(matches!(
        open_err(&p, &ReadOptions::default()),
        IngestError::NotASpreadsheet { .. }
    ));
}

#[test]
fn unclosed_quote_does_not_grow_without_bound() {
    let mut content = String::from("a,b\n1,\"never closed\n");
    content.push_str(&"x,y\n".repeat(10));
    let (_d, p) = write("q.csv", content.as_bytes());
    let mut r = open(&p, &ReadOptions::default());
    let all = texts(&mut r);
    assert_eq!(all.len(), 1);
    assert!(all[0].1[1].starts_with("never closed\nx,y"));
}

// ---------------------------------------------------------------- reuse API and peek

#[test]
fn read_row_reuses_and_matches_the_iterator() {
    let content = "a,b,c\n1,,3\nxx,yy\n,,\n4,5,6,7\n";
    let (_d, p) = write("r.csv", content.as_bytes());
    let expected = rows(&mut open(&p, &ReadOptions::default()));
    let mut r = open(&p, &ReadOptions::default());
    let mut row = r.new_row();
    let mut got = Vec::new();
    while r.read_row(&mut row).unwrap_or_else(|e| panic!("{e}")) {
        got.push(row.clone());
    }
    assert_eq!(got, expected);
    assert_eq!(got.len(), 3);
}

#[test]
fn peek_headers_reads_only_the_headers() {
    let (_d, p) = write("p.csv", b"x;y\n1;2\n");
    let h = peek_headers(&p, &ReadOptions::default()).unwrap_or_default();
    assert_eq!(h, vec![strings(&["x", "y"])]);
}

// ---------------------------------------------------------------- a last line cut short

#[test]
fn a_last_line_without_line_end_and_with_fewer_cells_than_the_header_is_said_to_be_cut() {
    use invoicedrop::ingest::CutLine;
    let cut = |line, cells, unclosed| {
        Some(CutLine {
            line,
            cells,
            width: 3,
            unclosed,
        })
    };
    let cases: Vec<(&str, Vec<u8>, Option<CutLine>)> = vec![
        ("x.csv", b"a,b,c\n1,2,3\n4,5".to_vec(), cut(3, 2, false)),
        ("x.csv", b"a,b,c\r\n1,2,3\r\n\r\n4".to_vec(), cut(4, 1, false)),
        ("x.tsv", b"a\tb\tc\n1\t2\t3\n4\t5".to_vec(), cut(3, 2, false)),
        ("x.csv", b"a;b;c\n1;2;3\n4;\"5".to_vec(), cut(3, 2, true)),
        ("x.csv", b"a,b,c\n1,2,3\n4,5,\"six".to_vec(), cut(3, 3, true)),
        ("x.csv", utf16("a,b,c\n1,2,3\n4,5", false), cut(3, 2, false)),
        // Every cell, without a line end (many ERPs leave it out): not cut.
        ("x.csv", b"a,b,c\n1,2,3\n4,5,6".to_vec(), None),
        ("x.csv", b"a,b,c\n1,2,3\n4,5,\"6\"".to_vec(), None),
        ("x.csv", b"a,b,c\n1,2,3\n4,5,6,7".to_vec(), None),
        // Short, with its line end: a short row (INV-ROW-SHORT), the file is whole.
        ("x.csv", b"a,b,c\n1,2,3\n4,5\n".to_vec(), None),
        ("x.csv", b"a,b,c\n4,5\n1,2,3".to_vec(), None),
        // An export that leaves out trailing empty cells (a short row before the last one) and
        // its final line end: its short last line is like its others, not cut.
        ("x.csv", b"a,b,c\n1,2,3\n4,5\n6,7".to_vec(), None),
        ("x.csv", b"a,b,c\n1\n2,3,4\n5".to_vec(), None),
        // A quote never closed that took in the line ends after it: a quoting mistake.
        ("x.csv", b"a,b,c\n1,\"2\n3,4,5\n".to_vec(), None),
        ("x.csv", b"a,b,c\n1,2,3\n4,\"5\n6".to_vec(), None),
        // A last row of several lines (a quoted value with a line break, or a quote closed
        // lines later): its cells say nothing of its last line's.
        ("x.csv", b"a,b,c\n1,2,3\n4,\"5\n6\"".to_vec(), None),
        // Only blanks on the last line, or only the header.
        ("x.csv", b"a,b,c\n1,2,3\n  ".to_vec(), None),
        ("x.csv", b"a,b,c".to_vec(), None),
    ];
    for (name, bytes, want) in cases {
        let (_dir, path) = write(name, &bytes);
        let mut reader = open(&path, &ReadOptions::default());
        let last_line = reader.last_line();
        let all: Vec<_> = reader.by_ref().collect();
        assert!(all.iter().all(Result::is_ok), "{bytes:?}");
        assert_eq!(last_line.cut(), want.as_ref(), "{:?}", String::from_utf8_lossy(&bytes));
    }
}

//! A mapping that allows both orders of day and month (QuickBooks Online: MM/DD/YYYY for a US
//! company, DD/MM/YYYY for any other) reads each file in the one order its dates show, settled
//! before any document is built; a file that does not show it issues no date that reads both
//! ways.

use super::{check_json, file, result_rows};
use std::path::Path;

const HEADER: &str = "InvoiceNo,Customer,InvoiceDate,DueDate,Terms,Location,Memo,Item(Product/Service),\
                      ItemDescription,ItemQuantity,ItemRate,ItemAmount,Taxable,TaxRate\n";

/// A QuickBooks Online export (the QA report's layout), one invoice per (number, date).
fn export(dir: &Path, name: &str, invoices: &[(&str, &str)]) {
    let mut text = String::from(HEADER);
    for (number, date) in invoices {
        text.push_str(&format!(
            "{number},Al Ofuq Trading Co.,{date},,Net 30,Riyadh,,Desk,Desk,1,100,100,Y,VAT 15%\n"
        ));
    }
    std::fs::write(dir.join(name), text).unwrap();
}

/// (document, issue_date, status) of each row of `X.documents.csv`.
fn documents(dir: &Path, stem: &str) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(dir.join("results").join(format!("{stem}.documents.csv"))).unwrap();
    let rows: Vec<Vec<String>> = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (d, i, s) = (at("document"), at("issue_date"), at("status"));
    rows[1..]
        .iter()
        .map(|r| (r[d].clone(), r[i].clone(), r[s].clone()))
        .collect()
}

fn doc(number: &str, date: &str, status: &str) -> (String, String, String) {
    (number.into(), date.into(), status.into())
}

fn notes(f: &serde_json::Value) -> Vec<String> {
    f["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_dd_mm_quickbooks_file_is_read_day_first_from_its_first_date_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // The QA repro: 05/11/2026 is 5 November, which 13/11/2026 on the next line shows.
    export(
        dir.path(),
        "qb_ddmm.csv",
        &[("3001", "05/11/2026"), ("3002", "13/11/2026")],
    );
    let (code, r, err) = check_json(dir.path(), &["qb_ddmm.csv"]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    assert_eq!(
        documents(dir.path(), "qb_ddmm"),
        [doc("3001", "2026-11-05", "valid"), doc("3002", "2026-11-13", "valid")]
    );
    let f = file(&r, "qb_ddmm.csv");
    assert_eq!(f["mapping"], "quickbooks-online");
    assert!(
        notes(f).iter().any(|n| n
            == "dates read as DD/MM/YYYY (%d/%m/%Y): the mapping allows MM/DD/YYYY (%m/%d/%Y) and DD/MM/YYYY \
                (%d/%m/%Y), and InvoiceDate \"13/11/2026\" on line 3 is a date only that way"),
        "{f:#}"
    );
}

#[test]
fn a_us_quickbooks_file_is_still_read_month_first() {
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        "qb_us.csv",
        &[("3001", "11/05/2026"), ("3002", "11/13/2026"), ("3003", "11/06/2026")],
    );
    let (code, r, err) = check_json(dir.path(), &["qb_us.csv"]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    assert_eq!(
        documents(dir.path(), "qb_us"),
        [
            doc("3001", "2026-11-05", "valid"),
            doc("3002", "2026-11-13", "valid"),
            doc("3003", "2026-11-06", "valid")
        ]
    );
    assert!(
        notes(file(&r, "qb_us.csv"))
            .iter()
            .any(|n| n.starts_with("dates read as MM/DD/YYYY (%m/%d/%Y)"))
    );
}

/// How a file was read stays with its results: `X.summary.json` keeps every note, and `report`
/// shows the ones that need a look (dates read month first), naming the file, without the usual
/// encoding and delimiter lines.
#[test]
fn the_date_order_note_is_kept_in_the_summary_and_shown_by_report() {
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        "qb_us.csv",
        &[("3001", "11/05/2026"), ("3002", "11/13/2026")],
    );
    let (code, r, err) = check_json(dir.path(), &["qb_us.csv"]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    let printed = notes(file(&r, "qb_us.csv"));
    let text = std::fs::read_to_string(dir.path().join("results/qb_us.summary.json")).unwrap();
    let kept: serde_json::Value = serde_json::from_str(&text).unwrap();
    let kept: Vec<String> = kept["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().into())
        .collect();
    assert!(printed.iter().any(|n| n.starts_with("encoding: ")), "{printed:?}");
    for n in &printed {
        assert!(kept.contains(n), "{n:?} not in {kept:?}");
    }
    let out = super::run(dir.path(), &["report", "results"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("note: dates read as MM/DD/YYYY (%m/%d/%Y)"), "{report}");
    assert!(!report.contains("encoding: "), "{report}");
    // Over several result sets, each note names its file.
    export(dir.path(), "qb_dd.csv", &[("3003", "13/11/2026")]);
    let (code, r, err) = check_json(dir.path(), &["qb_dd.csv"]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    let out = super::run(dir.path(), &["report", "results"]);
    let report = String::from_utf8_lossy(&out.stdout);
    let all = report.split("all sets").nth(1).unwrap_or_else(|| panic!("{report}"));
    assert!(all.contains("note: qb_us.csv: dates read as MM/DD/YYYY"), "{report}");
    assert!(all.contains("note: qb_dd.csv: dates read as DD/MM/YYYY"), "{report}");
    // The check's own output says each note once.
    let out = super::run(dir.path(), &["check", "--now", super::NOW, "qb_us.csv"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(said.matches("dates read as MM/DD/YYYY").count(), 1, "{said}");
}

#[test]
fn a_file_whose_dates_all_read_both_ways_issues_none_of_them() {
    let dir = tempfile::tempdir().unwrap();
    // Every day is 12 or less; 05/05/2026 is the same day both ways.
    export(
        dir.path(),
        "qb_amb.csv",
        &[("3001", "05/11/2026"), ("3002", "05/05/2026"), ("3003", "01/02/2026")],
    );
    let (code, r, err) = check_json(dir.path(), &["qb_amb.csv"]);
    assert_eq!(code, 1, "{r:#}\n{err}");
    assert_eq!(
        documents(dir.path(), "qb_amb"),
        [
            doc("3001", "", "invalid"),
            doc("3002", "2026-05-05", "valid"),
            doc("3003", "", "invalid")
        ]
    );
    let rows = result_rows(&dir.path().join("results/qb_amb.result.csv"));
    let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
    assert_eq!(
        rows[1][errors],
        "INV-MAP-DATE-AMBIGUOUS InvoiceDate \"05/11/2026\": 05/11/2026 reads as 11 May 2026 or 5 November 2026; the \
         mapping allows MM/DD/YYYY (%m/%d/%Y) and DD/MM/YYYY (%d/%m/%Y) and no date in this file tells which: set \
         date_format in the mapping (or a copy of it) to the one the ERP writes"
    );
    assert!(rows[3][errors].starts_with(
        "INV-MAP-DATE-AMBIGUOUS InvoiceDate \"01/02/2026\": 01/02/2026 reads as 2 January 2026 or 1 February 2026;"
    ));
    let f = file(&r, "qb_amb.csv");
    assert_eq!(f["codes"]["INV-MAP-DATE-AMBIGUOUS"], 2, "{f:#}");
    assert!(notes(f).iter().any(|n| n.starts_with(
        "no date in this file tells whether its dates are MM/DD/YYYY (%m/%d/%Y) or DD/MM/YYYY (%d/%m/%Y): each date \
         that reads both ways (05/11/2026) is an error (INV-MAP-DATE-AMBIGUOUS)"
    )));
}

#[test]
fn a_file_mixing_both_orders_reads_the_first_and_says_so_of_the_others() {
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        "qb_mixed.csv",
        &[("3001", "13/11/2026"), ("3002", "05/11/2026"), ("3003", "11/14/2026")],
    );
    let (code, r, err) = check_json(dir.path(), &["qb_mixed.csv"]);
    assert_eq!(code, 1, "{r:#}\n{err}");
    assert_eq!(
        documents(dir.path(), "qb_mixed"),
        [
            doc("3001", "2026-11-13", "valid"),
            doc("3002", "2026-11-05", "valid"),
            doc("3003", "", "invalid")
        ]
    );
    let rows = result_rows(&dir.path().join("results/qb_mixed.result.csv"));
    let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
    let e = &rows[3][errors];
    assert!(
        e.starts_with("INV-MAP-VALUE InvoiceDate \"11/14/2026\": no such date: written as DD/MM/YYYY")
            && e.contains("it is a date only as MM/DD/YYYY (14 November 2026), but this file's dates read as DD/MM/YYYY (InvoiceDate \"13/11/2026\" on line 2): the file mixes both orders; if it is 14 November 2026, write it 14/11/2026, as the other dates are written"),
        "{e}"
    );
}

/// `generate --layout xero --rows 120` as `gen.csv` in `dir` (with its `customers.csv`), dated in
/// the 20 days to 2026-11-20 (31 October to 19 November, DD/MM/YYYY).
fn generated_xero(dir: &Path) {
    let o = super::run(
        dir,
        &[
            "generate",
            "--layout",
            "xero",
            "--rows",
            "120",
            "--out",
            "gen.csv",
            "--today",
            "2026-11-20",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `gen.csv` written again as `name`, the InvoiceDate and DueDate of the rows for which
/// `us(row's InvoiceNumber, InvoiceDate)` holds written month first (MM/DD/YYYY), as Excel in a
/// US locale saves them. How many rows have a date that reads both ways so written.
fn resaved(dir: &Path, name: &str, us: impl Fn(&str, &str) -> bool) -> usize {
    let text = std::fs::read_to_string(dir.join("gen.csv")).unwrap();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let rows: Vec<Vec<String>> = rdr
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (number, dates) = (at("InvoiceNumber"), [at("InvoiceDate"), at("DueDate")]);
    let mut both_ways = 0;
    let mut w = csv::Writer::from_path(dir.join(name)).unwrap();
    w.write_record(&rows[0]).unwrap();
    for r in &rows[1..] {
        let mut r = r.clone();
        if us(&r[number], &r[dates[0]]) {
            for c in dates {
                if let [d, m, y] = r[c].split('/').collect::<Vec<_>>()[..] {
                    if d.parse::<u32>().unwrap() <= 12 && d != m {
                        both_ways += 1;
                    }
                    r[c] = format!("{m}/{d}/{y}");
                }
            }
        }
        w.write_record(&r).unwrap();
    }
    w.flush().unwrap();
    both_ways
}

#[test]
fn a_xero_export_saved_month_first_is_read_month_first_and_issues_the_days_it_means() {
    let dir = tempfile::tempdir().unwrap();
    generated_xero(dir.path());
    // The QA report's export: every date MM/DD/YYYY against the mapping's DD/MM/YYYY; only the
    // first documents' 10/31/2026 cannot be read day first.
    let both_ways = resaved(dir.path(), "us.csv", |_, _| true);
    assert!(both_ways > 50, "{both_ways}");
    let (code, _, err) = check_json(dir.path(), &["gen.csv"]);
    let (us_code, r, us_err) = check_json(dir.path(), &["us.csv"]);
    assert_eq!((us_code, code), (0, 0), "{r:#}\n{err}\n{us_err}");
    // Every document as the export meant it: the same dates, statuses and numbers as the
    // export written day first.
    let want = documents(dir.path(), "gen");
    // Among them days that read both ways (2 to 10 November).
    assert!(
        want.iter()
            .any(|(_, date, _)| ("2026-11-02".."2026-11-10").contains(&date.as_str())),
        "{want:?}"
    );
    assert_eq!(documents(dir.path(), "us"), want);
    let f = file(&r, "us.csv");
    assert_eq!(f["mapping"], "xero");
    assert!(
        notes(f).iter().any(|n| n
            == "this file's dates are month first, not as its mapping writes them: they are read as MM/DD/YYYY \
                (%m/%d/%Y), not DD/MM/YYYY (%d/%m/%Y), since InvoiceDate \"10/31/2026\" on line 2 is a date only \
                that way and no date of the file is one only as DD/MM/YYYY (an export saved again by a program set \
                to another country, such as Excel in a US locale, is written so); if the ERP writes its exports \
                so, read them with a copy of the mapping with date_format = [\"%m/%d/%Y\", \"excel\"]"),
        "{f:#}"
    );
}

#[test]
fn a_xero_export_with_a_date_written_month_first_among_day_first_ones_says_the_file_mixes_both() {
    let dir = tempfile::tempdir().unwrap();
    generated_xero(dir.path());
    // The first documents (31 October) hand-edited month first; the rest stay day first, the
    // first date that reads only so (13/11/2026) further down.
    resaved(dir.path(), "mixed.csv", |_, date| date == "31/10/2026");
    let (code, _, err) = check_json(dir.path(), &["gen.csv"]);
    assert_eq!(code, 0, "{err}");
    let (code, r, err) = check_json(dir.path(), &["mixed.csv"]);
    assert_eq!(code, 1, "{r:#}\n{err}");
    let (want, got) = (documents(dir.path(), "gen"), documents(dir.path(), "mixed"));
    assert_eq!(want.len(), got.len());
    for (w, g) in want.iter().zip(&got) {
        if w.1 == "2026-10-31" {
            assert_eq!(g.2, "invalid", "{g:?}");
        } else {
            assert_eq!(w, g);
        }
    }
    let rows = result_rows(&dir.path().join("results/mixed.result.csv"));
    let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
    let e = &rows[1][errors];
    assert!(
        e.starts_with("INV-MAP-VALUE InvoiceDate \"10/31/2026\": no such date: written as DD/MM/YYYY")
            && e.contains(
                "it is a date only as MM/DD/YYYY (31 October 2026), but this file's dates read as DD/MM/YYYY \
                 (InvoiceDate \"13/11/2026\" on line "
            )
            && e.contains("the file mixes both orders; if it is 31 October 2026, write it 31/10/2026"),
        "{e}"
    );
    let f = file(&r, "mixed.csv");
    assert!(
        notes(f).iter().any(|n| n.starts_with(
            "this file mixes both orders of day and month: its dates are read as DD/MM/YYYY (%d/%m/%Y), the \
             mapping's, since InvoiceDate \"13/11/2026\" on line "
        ) && n
            .contains("but InvoiceDate \"10/31/2026\" on line 2 is a date only as MM/DD/YYYY")),
        "{f:#}"
    );
}

#[test]
fn a_workbook_of_date_cells_is_not_looked_through_and_a_text_date_only_the_other_way_says_how_to_read_it() {
    use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};
    let dir = tempfile::tempdir().unwrap();
    // A Tally register (DD-MM-YYYY): the first voucher's date a date cell, the second's text
    // written month first.
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    let header = [
        "Date",
        "Voucher Number",
        "Voucher Type",
        "Party Name",
        "Item Name",
        "Quantity",
        "Rate",
        "Amount",
    ];
    for (c, h) in header.iter().enumerate() {
        sheet.write_string(0, c as u16, *h).unwrap();
    }
    let date = Format::new().set_num_format("dd-mm-yyyy");
    sheet
        .write_datetime_with_format(1, 0, ExcelDateTime::from_ymd(2026, 11, 4).unwrap(), &date)
        .unwrap();
    sheet.write_string(2, 0, "11-13-2026").unwrap();
    for (r, number) in [(1, "TS/101"), (2, "TS/102")] {
        for (c, v) in [number, "Sales", "Walk-in Customer", "Safety helmets", "25", "38", "950"]
            .iter()
            .enumerate()
        {
            sheet.write_string(r, c as u16 + 1, *v).unwrap();
        }
    }
    book.save(dir.path().join("register.xlsx")).unwrap();
    let (code, r, err) = check_json(dir.path(), &["register.xlsx", "--mapping", "tally"]);
    assert_eq!(code, 1, "{r:#}\n{err}");
    assert_eq!(
        documents(dir.path(), "register"),
        [doc("TS/101", "2026-11-04", "valid"), doc("TS/102", "", "invalid")]
    );
    let rows = result_rows(&dir.path().join("results/register.result.csv"));
    let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
    assert_eq!(
        rows[2][errors],
        "INV-MAP-DATE-ORDER Date \"11-13-2026\": 11-13-2026 is not a date as DD-MM-YYYY, the mapping's order, but \
         only as MM-DD-YYYY (13 November 2026): if this file's dates are MM-DD-YYYY (month first), read it with a \
         copy of the mapping with date_format = [\"%m-%d-%Y\", \"%d-%b-%Y\", \"%m/%d/%Y\", \"excel\"]; if it is 13 \
         November 2026, write it 13-11-2026"
    );
    assert!(!notes(file(&r, "register.xlsx")).iter().any(|n| n.contains("order")));
}

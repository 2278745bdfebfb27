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

//! A QuickBooks Online export of a non-US company (DD/MM/YYYY), run against a sandbox on
//! loopback: its dates are read day first, settled by the file's first date that only reads that
//! way, and a date that reads both ways (`05/11/...`) is issued as the day it is, never with day
//! and month swapped.

use super::support::*;
use chrono::{Datelike, Duration, FixedOffset, NaiveDate, Utc};
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// The latest day up to `today` that `fits`.
fn latest(today: NaiveDate, fits: impl Fn(NaiveDate) -> bool) -> NaiveDate {
    (0..62).map(|n| today - Duration::days(n)).find(|d| fits(*d)).unwrap()
}

#[test]
fn a_dd_mm_quickbooks_file_is_issued_with_its_days_and_months_where_they_are() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let today = Utc::now()
        .with_timezone(&FixedOffset::east_opt(3 * 3600).unwrap())
        .date_naive();
    // A day that reads both ways (day 12 or less, not the month's number), first in the file;
    // then one that reads only day first.
    let both = latest(today, |d| d.day() <= 12 && d.day() != d.month());
    let one = latest(today, |d| d.day() >= 13);
    let mut export = String::from(
        "InvoiceNo,Customer,InvoiceDate,DueDate,Terms,Location,Memo,Item(Product/Service),ItemDescription,\
         ItemQuantity,ItemRate,ItemAmount,Taxable,TaxRate\n",
    );
    for (number, date) in [("3001", both), ("3002", one)] {
        export.push_str(&format!(
            "{number},Gulf Medical Supplies LLC,{},,Net 30,Riyadh,,Desk,Desk,1,100,100,Y,VAT 15%\n",
            date.format("%d/%m/%Y")
        ));
    }
    std::fs::write(dir.path().join("qb_ddmm.csv"), export).unwrap();

    let o = run(dir.path(), &env, &["run", "qb_ddmm.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("mapping quickbooks-online") && out.contains("dates read as DD/MM/YYYY (%d/%m/%Y)"),
        "{out}"
    );
    assert_eq!(server.accepted(), 2);
    let results_dir = dir.path().join("results");
    let docs = results(&results_dir.join("qb_ddmm.documents.csv"));
    let rows = results(&results_dir.join("qb_ddmm.result.csv"));
    for (number, date) in [("3001", both), ("3002", one)] {
        let iso = date.format("%Y-%m-%d").to_string();
        let d = docs.iter().find(|d| d["document"] == number).unwrap();
        assert_eq!(
            (d["status"].as_str(), d["issue_date"].as_str()),
            ("accepted", iso.as_str()),
            "{d:?}"
        );
        // The issued XML carries that date.
        let r = rows.iter().find(|r| r["result_document"] == number).unwrap();
        let xml = std::fs::read_to_string(results_dir.join(&r["result_xml_file"])).unwrap();
        assert!(
            xml.contains(&format!("<cbc:IssueDate>{iso}</cbc:IssueDate>")),
            "{number}: {xml}"
        );
    }
}

#[test]
fn a_xero_export_saved_month_first_is_issued_with_the_days_it_means() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let today = Utc::now()
        .with_timezone(&FixedOffset::east_opt(3 * 3600).unwrap())
        .date_naive();
    // Two days that read both ways (day 12 or less, not the month's number) around one that
    // reads only month first, every date written MM/DD/YYYY against xero's DD/MM/YYYY (an export
    // saved again by Excel in a US locale).
    let both = latest(today, |d| d.day() <= 12 && d.day() != d.month());
    let both2 = latest(both - Duration::days(1), |d| d.day() <= 12 && d.day() != d.month());
    let one = latest(today, |d| d.day() >= 13);
    let invoices = [("US-1", both), ("US-2", one), ("US-3", both2)];
    let mut export = String::from(
        "ContactName,InvoiceNumber,Reference,InvoiceDate,DueDate,InventoryItemCode,Description,Quantity,\
         UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,Currency,Type,Sent,Status\n",
    );
    for (number, date) in invoices {
        let us = date.format("%m/%d/%Y");
        export.push_str(&format!(
            "Walk-in customer,{number},,{us},{us},ITEM-1,Book,1,100.00,,100.00,200,15% Output VAT,,SAR,\
             Sales Invoice,Sent,Awaiting Payment\n"
        ));
    }
    std::fs::write(dir.path().join("us.csv"), export).unwrap();

    let o = run(dir.path(), &env, &["run", "us.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("mapping xero")
            && out.contains("this file's dates are month first, not as its mapping writes them")
            && out.contains("date_format = [\"%m/%d/%Y\", \"excel\"]"),
        "{out}"
    );
    assert_eq!(server.accepted(), 3);
    let results_dir = dir.path().join("results");
    let docs = results(&results_dir.join("us.documents.csv"));
    let rows = results(&results_dir.join("us.result.csv"));
    for (number, date) in invoices {
        let iso = date.format("%Y-%m-%d").to_string();
        let d = docs.iter().find(|d| d["document"] == number).unwrap();
        assert_eq!(
            (d["status"].as_str(), d["issue_date"].as_str()),
            ("accepted", iso.as_str()),
            "{d:?}"
        );
        let r = rows.iter().find(|r| r["result_document"] == number).unwrap();
        let xml = std::fs::read_to_string(results_dir.join(&r["result_xml_file"])).unwrap();
        assert!(
            xml.contains(&format!("<cbc:IssueDate>{iso}</cbc:IssueDate>")),
            "{number}: {xml}"
        );
    }
}

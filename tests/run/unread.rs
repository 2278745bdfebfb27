//! Reruns of issued documents whose export now has a value that cannot be read, through the
//! real binary and the built-in sandbox: a Tally invoice whose rate, date or voucher type cannot
//! be read, and a Sage 50 credit note whose amounts are `#VALUE!` (so that its rows no longer
//! say it is a credit note). Each is still issued: `accepted` with `INV-LEDGER-CONFLICT` saying
//! the export cannot be read, the issued figures, exit code 1, counted once; never `invalid`,
//! never "no longer in this export" (`INV-NOT-IN-EXPORT`), never silently accepted without
//! amounts.

use super::support::*;
use chrono::{FixedOffset, Utc};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

type Rows = Vec<BTreeMap<String, String>>;

fn samples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// `invoicedrop run FILE --state st --results r` in `dir` (the built-in sandbox).
fn run_file(dir: &Path, file: &str) -> std::process::Output {
    run(dir, &[], &["run", file, "--state", "st", "--results", "r"])
}

/// The records of `r/{stem}.documents.csv` numbered `number`.
fn records_of(dir: &Path, stem: &str, number: &str) -> Rows {
    results(&dir.join(format!("r/{stem}.documents.csv")))
        .into_iter()
        .filter(|d| d["document"] == number)
        .collect()
}

fn summary(dir: &Path, stem: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(format!("r/{stem}.summary.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// After the rerun: `number` is the one record of the export's results, accepted with the issued
/// figures (those of `first`) and `INV-LEDGER-CONFLICT` saying the export cannot be read, the
/// finding a warning; its rows accepted; `out` says the conflict and not that it is gone.
fn issued_once_with_a_conflict(dir: &Path, stem: &str, number: &str, first: &BTreeMap<String, String>, out: &str) {
    let now = records_of(dir, stem, number);
    assert_eq!(now.len(), 1, "counted once: {now:?}\n{out}");
    let d = &now[0];
    assert_eq!(d["status"], "accepted", "{d:?}");
    assert_eq!(d["errors"], "INV-LEDGER-CONFLICT", "{d:?}");
    assert!(d["warnings"].split(' ').any(|w| w == "INV-MAP-VALUE"), "{d:?}");
    assert!(!d["warnings"].contains("INV-NOT-IN-EXPORT"), "{d:?}");
    for col in ["kind", "type", "issue_date", "net", "vat", "gross", "payable", "uuid"] {
        assert_eq!(d[col], first[col], "{col}: the issued figures");
    }
    assert!(!out.contains("no longer in this export"), "{out}");
    assert!(
        out.contains(&format!("{number} is issued")) && out.contains("cannot be read"),
        "{out}"
    );
    let rows: Rows = results(&dir.join(format!("r/{stem}.result.csv")))
        .into_iter()
        .filter(|r| r["result_document"] == number)
        .collect();
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
        assert_eq!(r["result_uuid"], first["uuid"], "{r:?}");
    }
    assert!(
        rows[0]["result_errors"].starts_with("INV-LEDGER-CONFLICT: "),
        "{:?}",
        rows[0]
    );
}

/// Tally's header (the bundled mapping's columns).
const TALLY_HEADER: [&str; 9] = [
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

/// A Tally register of invoices TS/1 and TS/2 (1 × 100 each) issued today (Riyadh), TS/1's
/// cells changed by `edit` (column, value).
fn tally_register(path: &Path, edit: Option<(&str, &str)>) {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let date = Utc::now().with_timezone(&riyadh).format("%d-%m-%Y").to_string();
    let mut rows = vec![TALLY_HEADER.map(str::to_string).to_vec()];
    for (number, item) in [("TS/1", "Printer"), ("TS/2", "Toner")] {
        let cells = [&date, number, "Sales", "Walk-in Customer", item, "1", "100", "100", ""];
        let mut row = cells.map(str::to_string).to_vec();
        if let Some((column, value)) = edit.filter(|_| number == "TS/1") {
            let at = TALLY_HEADER.iter().position(|h| *h == column).unwrap();
            row[at] = value.to_string();
        }
        rows.push(row);
    }
    write_xlsx(path, &rows);
}

#[test]
fn an_issued_tally_invoice_whose_rate_date_or_type_cannot_be_read_is_still_issued_with_a_conflict() {
    for (column, value) in [
        ("Rate", "abc"),
        ("Date", "31/11/2026"),
        ("Voucher Type", "Sales Return"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        std::fs::copy(samples().join("customers.csv"), dir.join("customers.csv")).unwrap();
        std::fs::write(
            dir.join("credit_notes.csv"),
            "number,original_number,original_date,reason\n",
        )
        .unwrap();
        let book = dir.join("tally.xlsx");
        tally_register(&book, None);
        let o = run_file(dir, "tally.xlsx");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let first = records_of(dir, "tally", "TS/1").remove(0);
        let issued_vat = summary(dir, "tally")["documents"]["netted"]["vat_sar"].clone();
        assert_eq!(issued_vat, "30.00");

        tally_register(&book, Some((column, value)));
        let o = run_file(dir, "tally.xlsx");
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{column} {value}: {out}");
        assert!(
            out.contains("2 accepted (1 in conflict with its export: INV-LEDGER-CONFLICT"),
            "{column} {value}: {out}"
        );
        issued_once_with_a_conflict(dir, "tally", "TS/1", &first, &out);
        // The run's totals are the issued ones: each document once, with its amounts.
        let s = summary(dir, "tally");
        assert_eq!(s["documents"]["documents"], 2, "{column} {value}: {s:#}");
        assert_eq!(s["documents"]["without_amounts"], 0, "{column} {value}: {s:#}");
        assert_eq!(
            s["documents"]["netted"]["vat_sar"], issued_vat,
            "{column} {value}: {s:#}"
        );
    }
}

#[test]
fn an_issued_sage_credit_note_whose_amounts_cannot_be_read_is_still_issued_once_as_a_credit_note() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    for side in ["customers.csv", "credit_notes.csv"] {
        std::fs::copy(samples().join(side), dir.join(side)).unwrap();
    }
    let export = std::fs::read_to_string(samples().join("sage50_invoices.csv")).unwrap();
    std::fs::write(dir.join("sage.csv"), &export).unwrap();
    let o = run_file(dir, "sage.csv");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = records_of(dir, "sage", "SCN-2001").remove(0);
    assert_eq!(first["kind"], "credit_note");
    let issued_docs = summary(dir, "sage")["documents"].clone();

    // Excel left a broken formula: the credit note's price and net are `#VALUE!`, so nothing in
    // its rows is negative any more (it would be built as an invoice).
    let line = export.lines().find(|l| l.starts_with("SCN-2001,")).unwrap();
    let broken = line.replace("\"1,150.00\",-1150.00", "#VALUE!,#VALUE!");
    assert_ne!(broken, line, "the sample's credit note line: {line}");
    std::fs::write(dir.join("sage.csv"), export.replace(line, &broken)).unwrap();
    let o = run_file(dir, "sage.csv");
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("0 invalid"), "{out}");
    issued_once_with_a_conflict(dir, "sage", "SCN-2001", &first, &out);
    assert!(
        out.contains("INV-LEDGER-CONFLICT: credit note SCN-2001 is issued"),
        "{out}"
    );
    let s = summary(dir, "sage");
    assert_eq!(
        s["documents"], issued_docs,
        "the issued totals, each document once: {s:#}"
    );
}

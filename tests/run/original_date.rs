//! A credit note whose corrected invoice is in another file, through the real binary and a
//! sandbox on loopback: its billing reference carries the invoice's issue date (D10) when the
//! invoice was issued before it, from a file of the same run read before the note's or in an
//! earlier run with the same state folder (the ledger), and the issued XML passes the
//! authority's validator. `check` of both files finds the date in the file checked first; of
//! the note's file alone, it says how to give it.

use super::support::*;
use chrono::{Duration, FixedOffset, NaiveDate, Utc};
use invoicedrop::sandbox::SandboxConfig;
use std::path::{Path, PathBuf};

/// Today in Riyadh.
fn today() -> NaiveDate {
    Utc::now()
        .with_timezone(&FixedOffset::east_opt(3 * 3600).unwrap())
        .date_naive()
}

/// The invoice's issue date: three days before the note's (a standard invoice, no 24-hour rule).
fn invoice_date() -> NaiveDate {
    today() - Duration::days(3)
}

/// `dir/name`: a Xero export of one standard document of one line (100.00 with 15 % VAT) to a
/// buyer of `customers.csv` (copied beside it): (number, reference, date, type).
fn xero(dir: &Path, name: &str, number: &str, reference: &str, date: NaiveDate, kind: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.join("customers.csv")).unwrap();
    let date = date.format("%d/%m/%Y");
    let row = format!(
        "Gulf Medical Supplies LLC,,Prince Mohammed bin Fahd Road,,,,Dammam,,32272,Saudi Arabia,,,,,,,,,{number},\
         {reference},{date},{date},,115.00,15.00,115.00,0.00,PEN-1,Pen,1,100.00,,100.00,200,15% Output VAT,15.00,,,,,\
         SAR,{kind},Sent,Paid\n"
    );
    std::fs::write(dir.join(name), format!("{XERO_HEADER}{row}")).unwrap();
}

fn invoice(dir: &Path) {
    xero(dir, "a_invoices.csv", "INV-1", "PO-77", invoice_date(), "Sales Invoice");
}

fn credit_note(dir: &Path) {
    xero(dir, "b_credit_notes.csv", "CN-1", "INV-1", today(), "Sales Credit Note");
}

/// The credit note's issued XML and its result row's warnings: its billing reference has the
/// invoice's number and date, nothing warns of it, and the authority's validator accepts it.
fn issued_with_the_invoices_date(results_dir: &Path) {
    let rows = results(&results_dir.join("b_credit_notes.result.csv"));
    assert_eq!(rows[0]["result_status"], "accepted", "{rows:?}");
    let w = &rows[0]["result_warnings"];
    assert!(
        !w.contains("INV-MAP-REFERENCE") && !w.contains("INV-BILLING-REFERENCE-FORM"),
        "{w}"
    );
    let xml_path: PathBuf = results_dir.join(&rows[0]["result_xml_file"]);
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    let reference = xml
        .split("<cac:BillingReference>")
        .nth(1)
        .and_then(|r| r.split("</cac:BillingReference>").next())
        .unwrap_or_else(|| panic!("no BillingReference in {xml}"));
    let wanted = format!(
        "Invoice Number: INV-1; Invoice Issue Date: {}",
        invoice_date().format("%Y-%m-%d")
    );
    assert!(reference.contains(&format!(">{wanted}</cbc:ID>")), "{reference}");
    authority_accepts(&[xml_path], true);
}

#[test]
fn a_credit_note_takes_the_date_of_its_invoice_from_a_file_of_the_same_run_read_before() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let both = dir.path().join("both");
    invoice(&both);
    credit_note(&both);
    let o = run(dir.path(), &env, &["run", "both", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 2);
    issued_with_the_invoices_date(&dir.path().join("r"));
}

#[test]
fn a_credit_note_takes_the_date_of_its_invoice_issued_in_an_earlier_run_from_the_ledger() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    invoice(&dir.path().join("one"));
    credit_note(&dir.path().join("two"));
    let o = run(dir.path(), &env, &["run", "one/a_invoices.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = run(dir.path(), &env, &["run", "two/b_credit_notes.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 2);
    issued_with_the_invoices_date(&dir.path().join("r"));
}

#[test]
fn check_finds_the_date_in_a_file_checked_before_and_otherwise_says_how_to_give_it() {
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("both");
    invoice(&both);
    credit_note(&both);
    let o = run(dir.path(), &[], &["check", "both", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rows = results(&dir.path().join("r/b_credit_notes.result.csv"));
    assert_eq!(rows[0]["result_status"], "valid", "{rows:?}");
    assert!(!rows[0]["result_warnings"].contains("INV-MAP-REFERENCE"), "{rows:?}");

    let o = run(
        dir.path(),
        &[],
        &["check", "both/b_credit_notes.csv", "--results", "r2"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rows = results(&dir.path().join("r2/b_credit_notes.result.csv"));
    let w = &rows[0]["result_warnings"];
    assert!(
        w.starts_with(
            "INV-MAP-REFERENCE Reference \"INV-1\": the issue date of the corrected invoice INV-1 is unknown"
        ) && w.contains("not above the note in this file (nor in a file checked before it)")
            && w.contains("`run` finds its date in the ledger once it is issued (in an earlier run")
            && !w.contains("export the invoice with it")
            && !w.contains("INV-BILLING-REFERENCE-FORM"),
        "{w}"
    );
}

#[test]
fn a_note_whose_invoices_date_is_unknown_is_told_so_once_on_its_reference_cell_not_in_the_apis_words() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    // A credit note of two lines whose invoice (INV-404) was never issued nor exported.
    xero(dir.path(), "n.csv", "CN-2", "INV-404", today(), "Sales Credit Note");
    let one = std::fs::read_to_string(dir.path().join("n.csv")).unwrap();
    // The export's document totals, of both lines, on each.
    let both = one.replace(",115.00,15.00,115.00,0.00,", ",230.00,30.00,230.00,0.00,");
    let line = both.lines().nth(1).unwrap().replace("PEN-1,Pen", "PEN-2,Pencil");
    std::fs::write(dir.path().join("n.csv"), format!("{both}{line}\n")).unwrap();
    let o = run(dir.path(), &env, &["--json", "run", "n.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Nor counted.
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["codes"], serde_json::json!({"INV-MAP-REFERENCE": 1}), "{report}");
    let rows = results(&dir.path().join("r/n.result.csv"));
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["result_status"] == "accepted"), "{rows:?}");
    assert!(
        rows[0]["result_warnings"].starts_with("INV-MAP-REFERENCE Reference \"INV-404\": the issue date"),
        "{rows:?}"
    );
    // The authority's warning of the reference's form says the same, on its field: not repeated.
    assert!(
        rows.iter()
            .all(|r| !r["result_warnings"].contains("INV-BILLING-REFERENCE-FORM")),
        "{rows:?}"
    );
    let docs = std::fs::read_to_string(dir.path().join("r/n.documents.csv")).unwrap();
    assert!(!docs.contains("INV-BILLING-REFERENCE-FORM"), "{docs}");
}

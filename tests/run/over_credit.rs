//! A credit note that takes back more than its issued invoice charged is sent with a warning
//! (`INV-CREDIT-OVER-INVOICE`) naming both totals; one within the invoice's total is not, nor a
//! debit note. Through the real binary and a sandbox on loopback.

use super::support::*;
use chrono::{Duration, FixedOffset, NaiveDate, Utc};
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// Today in Riyadh, less `days`.
fn day(days: i64) -> NaiveDate {
    Utc::now()
        .with_timezone(&FixedOffset::east_opt(3 * 3600).unwrap())
        .date_naive()
        - Duration::days(days)
}

/// A standard document of one line, `quantity` pens at 100.00 (15 % VAT), to a buyer of
/// `customers.csv`: an invoice, or (with `reference`) a note of `kind` correcting it.
fn row(number: &str, kind: &str, reference: &str, quantity: u32, days_ago: i64) -> String {
    let date = day(days_ago).format("%d/%m/%Y");
    let net = format!("{}.00", 100 * quantity);
    format!(
        "Gulf Medical Supplies LLC,,Prince Mohammed bin Fahd Road,,,,Dammam,,32272,Saudi Arabia,,,,,,,,,{number},\
         {reference},{date},{date},,,,,,PEN-1,Pen,{quantity},100.00,,{net},200,15% Output VAT,,,,,,SAR,{kind},Sent,Paid\n"
    )
}

fn invoice(number: &str, quantity: u32) -> String {
    row(number, "Sales Invoice", "", quantity, 3)
}

fn credit(number: &str, invoice: &str, quantity: u32) -> String {
    row(number, "Sales Credit Note", invoice, quantity, 0)
}

/// `dir/name`, an export of `rows`, with `customers.csv` beside it.
fn export(dir: &Path, name: &str, rows: &[String]) {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.join("customers.csv")).unwrap();
    std::fs::write(dir.join(name), format!("{XERO_HEADER}{}", rows.concat())).unwrap();
}

#[test]
fn a_credit_note_taking_back_more_than_its_issued_invoice_charged_is_sent_with_a_warning() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    // INV-O1 (one pen, 115.00 with VAT) issued in an earlier run.
    export(dir.path(), "prev.csv", &[invoice("INV-O1", 1)]);
    let o = run(dir.path(), &env, &["run", "prev.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Tonight: two pens credited against it (230.00), one pen (115.00); and INV-O2 (one pen) with
    // a note of three pens in the same file, sent after the invoice is answered.
    export(
        dir.path(),
        "notes.csv",
        &[
            credit("CN-O1", "INV-O1", 2),
            credit("CN-O2", "INV-O1", 1),
            invoice("INV-O2", 1),
            credit("CN-O3", "INV-O2", 3),
        ],
    );
    let o = run(dir.path(), &env, &["run", "notes.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "a warning does not stop a note: {out}");
    assert_eq!(server.accepted(), 5, "{out}");
    let rows = results(&dir.path().join("r/notes.result.csv"));
    let of = |n: &str| rows.iter().find(|r| r["InvoiceNumber"] == n).unwrap();
    for (cn, invoice, takes) in [("CN-O1", "INV-O1", "230.00"), ("CN-O3", "INV-O2", "345.00")] {
        let r = of(cn);
        assert_eq!(r["result_status"], "accepted", "{r:?}");
        assert!(
            r["result_warnings"].contains(&format!(
                "INV-CREDIT-OVER-INVOICE Reference \"{invoice}\": this credit note takes back {takes} SAR with VAT, \
                 more than invoice {invoice} charged (115.00 SAR with VAT, as issued)"
            )),
            "{r:?}"
        );
    }
    let within = of("CN-O2");
    assert_eq!(within["result_status"], "accepted", "{within:?}");
    assert!(
        !within["result_warnings"].contains("INV-CREDIT-OVER-INVOICE"),
        "{within:?}"
    );
    let summary = std::fs::read_to_string(dir.path().join("r/notes.summary.json")).unwrap();
    assert!(summary.contains("INV-CREDIT-OVER-INVOICE"), "{summary}");
}

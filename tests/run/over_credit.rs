//! A credit note that takes back more than its issued invoice charged is sent with a warning
//! (`INV-CREDIT-OVER-INVOICE`) naming both totals; one within the invoice's total is not, nor a
//! debit note. What the credit notes issued earlier against the same invoice took back is added
//! (a note sent again is not counted against itself). Through the real binary and a sandbox on
//! loopback.

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
    // INV-O1 (one pen, 115.00 with VAT) and INV-O4 (two pens) issued in an earlier run.
    export(dir.path(), "prev.csv", &[invoice("INV-O1", 1), invoice("INV-O4", 2)]);
    let o = run(dir.path(), &env, &["run", "prev.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Tonight: two pens credited against INV-O1 (230.00), one pen against INV-O4 (115.00); and
    // INV-O2 (one pen) with a note of three pens in the same file, sent after the invoice is
    // answered; then two more pens against INV-O4, one note each.
    export(
        dir.path(),
        "notes.csv",
        &[
            credit("CN-O1", "INV-O1", 2),
            credit("CN-O2", "INV-O4", 1),
            invoice("INV-O2", 1),
            credit("CN-O3", "INV-O2", 3),
            // Two more pens against INV-O4 in the same file: the second is one too many.
            credit("CN-O5", "INV-O4", 1),
            credit("CN-O6", "INV-O4", 1),
        ],
    );
    let o = run(dir.path(), &env, &["run", "notes.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "a warning does not stop a note: {out}");
    assert_eq!(server.accepted(), 8, "{out}");
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
    for within in ["CN-O2", "CN-O5"].map(of) {
        assert_eq!(within["result_status"], "accepted", "{within:?}");
        assert_eq!(over_credit(within), "", "{within:?}");
    }
    let third = of("CN-O6");
    assert_eq!(third["result_status"], "accepted", "{third:?}");
    assert!(
        over_credit(third).starts_with(
            "INV-CREDIT-OVER-INVOICE Reference \"INV-O4\": this credit note takes back 115.00 SAR with VAT, and the 2 \
             credit notes issued against invoice INV-O4 before it (CN-O2, CN-O5) took back 230.00 SAR: together \
             345.00 SAR, more than invoice INV-O4 charged (230.00 SAR with VAT, as issued): the credit notes of an \
             invoice take back at most what it charged. Check this note's quantities and prices against the earlier \
             notes'"
        ),
        "{third:?}"
    );
    let summary = std::fs::read_to_string(dir.path().join("r/notes.summary.json")).unwrap();
    assert!(summary.contains("INV-CREDIT-OVER-INVOICE"), "{summary}");
}

/// `INV-CREDIT-OVER-INVOICE` and what follows, of a result row's warnings (empty when none).
fn over_credit(row: &std::collections::BTreeMap<String, String>) -> &str {
    row["result_warnings"]
        .find("INV-CREDIT-OVER-INVOICE")
        .map_or("", |at| &row["result_warnings"][at..])
}

#[test]
fn partial_credit_notes_of_one_invoice_are_added_up_over_runs_but_never_against_themselves() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    // INV-P1: five pens, 575.00 with VAT.
    export(dir.path(), "inv.csv", &[invoice("INV-P1", 5)]);
    let o = run(dir.path(), &env, &["run", "inv.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Monday: three pens back (345.00, 60 %): within the invoice.
    export(dir.path(), "mon.csv", &[credit("CN-P1", "INV-P1", 3)]);
    let o = run(dir.path(), &env, &["run", "mon.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let mon = results(&dir.path().join("r/mon.result.csv"));
    assert_eq!(mon[0]["result_status"], "accepted", "{mon:?}");
    assert_eq!(over_credit(&mon[0]), "", "{mon:?}");
    // Tuesday: three pens again (another 60 %): with Monday's, 690.00 of 575.00.
    export(dir.path(), "tue.csv", &[credit("CN-P2", "INV-P1", 3)]);
    let o = run(dir.path(), &env, &["run", "tue.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "a warning does not stop a note: {out}");
    let tue = results(&dir.path().join("r/tue.result.csv"));
    assert_eq!(tue[0]["result_status"], "accepted", "{tue:?}");
    assert!(
        over_credit(&tue[0]).starts_with(
            "INV-CREDIT-OVER-INVOICE Reference \"INV-P1\": this credit note takes back 345.00 SAR with VAT, and the \
             credit note issued against invoice INV-P1 before it (CN-P1) took back 345.00 SAR: together 690.00 SAR, \
             more than invoice INV-P1 charged (575.00 SAR with VAT, as issued)"
        ),
        "{tue:?}"
    );
    assert_eq!(server.accepted(), 3, "{out}");
    // Monday's export again: CN-P1 is issued already; neither itself nor Tuesday's note (issued
    // after it) is counted against it.
    let o = run(dir.path(), &env, &["run", "mon.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let again = results(&dir.path().join("r/mon.result.csv"));
    assert_eq!(again[0]["result_status"], "accepted", "{again:?}");
    assert_eq!(over_credit(&again[0]), "", "{again:?}");
    assert_eq!(server.accepted(), 3, "nothing sent again");
}

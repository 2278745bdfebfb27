//! A credit note and the invoice it corrects, in one export or across runs, through the real
//! binary and a sandbox on loopback: a note is not issued against an invoice that was not (its
//! invoice invalid, or voided in the ERP), and `check` says so as `run` does; a note references
//! the date its invoice was issued with (the ledger's), whatever the export now says; and an
//! unchanged export dropped again is reported issued before, even for a note issued earlier
//! without its invoice's date.

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

/// A standard document of one line (100.00) to a buyer of `customers.csv`: an invoice, or
/// (with `reference`) a credit note of that invoice. `tax`: its Xero tax type; `status`: its
/// Xero status.
fn row(number: &str, reference: &str, date: NaiveDate, tax: &str, status: &str) -> String {
    let kind = if reference.is_empty() {
        "Sales Invoice"
    } else {
        "Sales Credit Note"
    };
    let date = date.format("%d/%m/%Y");
    format!(
        "Gulf Medical Supplies LLC,,Prince Mohammed bin Fahd Road,,,,Dammam,,32272,Saudi Arabia,,,,,,,,,{number},\
         {reference},{date},{date},,,,,,PEN-1,Pen,1,100.00,,100.00,200,{tax},,,,,,SAR,{kind},Sent,{status}\n"
    )
}

fn invoice(number: &str, date: NaiveDate) -> String {
    row(number, "", date, "15% Output VAT", "Paid")
}

fn note(number: &str, invoice: &str) -> String {
    row(number, invoice, day(0), "15% Output VAT", "Paid")
}

/// `dir/name`, an export of `rows`, with `customers.csv` beside it.
fn export(dir: &Path, name: &str, rows: &[String]) {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.join("customers.csv")).unwrap();
    std::fs::write(dir.join(name), format!("{XERO_HEADER}{}", rows.concat())).unwrap();
}

/// The billing reference of a signed XML.
fn billing_reference(results_dir: &Path, xml_file: &str) -> String {
    let xml = std::fs::read_to_string(results_dir.join(xml_file)).unwrap();
    let r = xml
        .split("<cac:InvoiceDocumentReference>")
        .nth(1)
        .unwrap_or_else(|| panic!("no reference in {xml}"));
    let r = &r[r.find("<cbc:ID>").unwrap() + "<cbc:ID>".len()..];
    r[..r.find('<').unwrap()].to_string()
}

fn referencing(number: &str, date: NaiveDate) -> String {
    format!(
        "Invoice Number: {number}; Invoice Issue Date: {}",
        date.format("%Y-%m-%d")
    )
}

#[test]
fn a_note_is_issued_only_against_an_issued_invoice_and_with_the_date_it_was_issued_with() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    // INV-C is issued four days ago.
    export(dir.path(), "prev.csv", &[invoice("INV-C", day(4))]);
    let o = run(dir.path(), &env, &["run", "prev.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The month's export: INV-A fails the checks (12 %), INV-B is voided, INV-C now says three
    // days ago; each followed by its credit note.
    let month = [
        row("INV-A", "", day(3), "12% VAT", "Paid"),
        note("CN-A", "INV-A"),
        row("INV-B", "", day(3), "15% Output VAT", "Voided"),
        note("CN-B", "INV-B"),
        invoice("INV-C", day(3)),
        note("CN-C", "INV-C"),
    ];
    export(dir.path(), "month.csv", &month);
    let o = run(dir.path(), &env, &["run", "month.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(server.accepted(), 2, "INV-C earlier, and CN-C now: {out}");
    let r = dir.path().join("r");
    let rows = results(&r.join("month.result.csv"));
    let of = |n: &str| rows.iter().find(|r| r["InvoiceNumber"] == n).unwrap();
    for (cn, says) in [
        (
            "CN-A",
            "invoice INV-A (line 2 of this file), which is not issued (it is invalid: BR-KSA-84 on line 2)",
        ),
        (
            "CN-B",
            "invoice INV-B (line 4 of this file), which is not issued (it is skipped: Status \"Voided\")",
        ),
    ] {
        let e = &of(cn)["result_errors"];
        assert_eq!(of(cn)["result_status"], "invalid", "{cn}: {e}");
        assert!(
            e.starts_with("INV-REFERENCE-NOT-ISSUED Reference \"INV-") && e.contains(says),
            "{cn}: {e}"
        );
        assert!(of(cn)["result_xml_file"].is_empty());
    }
    let c = of("CN-C");
    assert_eq!(c["result_status"], "accepted", "{c:?}");
    assert_eq!(
        billing_reference(&r, &c["result_xml_file"]),
        referencing("INV-C", day(4))
    );
    assert!(
        c["result_warnings"].contains(&format!(
            "INV-REFERENCE-DATE Reference \"INV-C\": invoice INV-C was issued dated {} (as the ledger holds it), \
             but the export gives it {} (on the invoice's row)",
            day(4).format("%Y-%m-%d"),
            day(3).format("%Y-%m-%d")
        )),
        "{c:?}"
    );

    // `check` calls neither CN-A nor CN-B valid.
    let o = run(dir.path(), &[], &["check", "month.csv", "--results", "c"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let rows = results(&dir.path().join("c/month.result.csv"));
    let of = |n: &str| rows.iter().find(|r| r["InvoiceNumber"] == n).unwrap();
    for cn in ["CN-A", "CN-B"] {
        assert_eq!(of(cn)["result_status"], "invalid", "{:?}", of(cn));
        assert!(
            of(cn)["result_errors"].starts_with("INV-REFERENCE-NOT-ISSUED"),
            "{:?}",
            of(cn)
        );
    }
    assert_eq!(of("CN-C")["result_status"], "valid");
}

#[test]
fn a_note_above_its_invoice_is_issued_after_it_with_its_date_and_an_unchanged_export_again_is_issued_before() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    export(
        dir.path(),
        "d.csv",
        &[note("CN-15", "INV-16"), invoice("INV-16", day(3))],
    );
    for pass in ["first", "again"] {
        let o = run(dir.path(), &env, &["run", "d.csv", "--results", "r"]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(0), "{pass}: {out}");
        let rows = results(&dir.path().join("r/d.result.csv"));
        let cn = rows.iter().find(|r| r["InvoiceNumber"] == "CN-15").unwrap();
        assert_eq!(
            (cn["result_status"].as_str(), cn["result_errors"].as_str()),
            ("accepted", ""),
            "{pass}: {cn:?}"
        );
        assert!(!cn["result_warnings"].contains("INV-MAP-REFERENCE"), "{pass}: {cn:?}");
        let r = dir.path().join("r");
        assert_eq!(
            billing_reference(&r, &cn["result_xml_file"]),
            referencing("INV-16", day(3))
        );
    }
    assert_eq!(server.accepted(), 2);
}

#[test]
fn a_notes_file_issued_before_its_invoices_file_dropped_again_unchanged_is_issued_before() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    export(dir.path(), "notes.csv", &[note("CN-80", "INV-80")]);
    export(dir.path(), "invoices.csv", &[invoice("INV-80", day(3))]);
    for file in ["notes.csv", "invoices.csv", "notes.csv"] {
        let o = run(dir.path(), &env, &["run", file, "--results", "r"]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", text(&o));
    }
    assert_eq!(server.accepted(), 2);
    let rows = results(&dir.path().join("r/notes.result.csv"));
    assert_eq!(rows[0]["result_status"], "accepted", "{rows:?}");
    assert_eq!(rows[0]["result_errors"], "", "{rows:?}");
    // What was issued: the number only, as the first run sent it.
    let r = dir.path().join("r");
    assert_eq!(
        billing_reference(&r, &rows[0]["result_xml_file"]),
        "Invoice Number: INV-80"
    );
    let o = run(dir.path(), &[], &["report", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

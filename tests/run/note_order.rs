//! A credit note and the invoice it corrects in one batch: the note is sent once the invoice
//! has its answer, so the authority issues the invoice first (its counter, ICV, is the lower),
//! whatever their order in the export.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// The counter value (ICV) of a signed XML.
fn icv(xml: &str) -> u64 {
    let rest = &xml[xml.find("<cbc:ID>ICV</cbc:ID>").expect("an ICV")..];
    let rest = &rest[rest.find("<cbc:UUID>").expect("its value") + "<cbc:UUID>".len()..];
    rest[..rest.find('<').unwrap()].trim().parse().expect("ICV digits")
}

#[test]
fn a_credit_note_is_issued_after_its_invoice_in_the_same_batch() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    // The Xero sample's credit note CN-0006 of INV-0101, written before the invoice's rows.
    let sample = std::fs::read_to_string(samples.join("xero_sales_invoices.csv")).unwrap();
    let lines: Vec<&str> = sample.lines().collect();
    let note = lines.iter().find(|l| l.contains(",CN-0006,INV-0101,")).unwrap();
    let invoice: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains(",INV-0101,") && !l.contains(",CN-0006,"))
        .collect();
    assert_eq!(invoice.len(), 3);
    let export = format!("{}\n{note}\n{}\n", lines[0], invoice.join("\n"));
    std::fs::write(dir.path().join("x.csv"), export).unwrap();

    let o = run(dir.path(), &env, &["run", "x.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(server.accepted(), 2, "{out}");
    let results_dir = dir.path().join("results");
    let docs = results(&results_dir.join("x.documents.csv"));
    let counter = |number: &str| {
        let d = docs.iter().find(|d| d["document"] == number).unwrap();
        assert_eq!(d["status"], "accepted", "{d:?}");
        icv(&std::fs::read_to_string(results_dir.join(&d["xml_file"])).unwrap())
    };
    let (invoice, note) = (counter("INV-0101"), counter("CN-0006"));
    assert!(invoice < note, "the invoice has ICV {invoice}, its credit note {note}");
}

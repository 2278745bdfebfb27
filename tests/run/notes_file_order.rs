//! An export of credit notes alone (Zoho's `Credit_Note.csv`) that sorts before the invoices'
//! (`Invoice.csv`) in a folder: it is read after them, so that the authority issues each invoice
//! before the notes that correct it and a note's billing reference carries its invoice's date
//! from the invoice file when the note export leaves it blank; the output says so.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// The counter value (ICV) of a signed XML.
fn icv(xml: &str) -> u64 {
    let rest = &xml[xml.find("<cbc:ID>ICV</cbc:ID>").expect("an ICV")..];
    let rest = &rest[rest.find("<cbc:UUID>").expect("its value") + "<cbc:UUID>".len()..];
    rest[..rest.find('<').unwrap()].trim().parse().expect("ICV digits")
}

/// `dir/zoho/`: the Zoho samples as Zoho names them, the credit notes' `Reference Invoice Date`
/// blanked.
fn zoho_folder(dir: &Path) -> std::path::PathBuf {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let folder = dir.join("zoho");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(samples.join("zoho_invoices.csv"), folder.join("Invoice.csv")).unwrap();
    let notes = std::fs::read_to_string(samples.join("zoho_credit_notes.csv")).unwrap();
    let blanked = notes
        .replace(",INV-000201,2026-11-04,", ",INV-000201,,")
        .replace(",INV-000202,2026-11-12,", ",INV-000202,,");
    assert_ne!(blanked, notes);
    std::fs::write(folder.join("Credit_Note.csv"), blanked).unwrap();
    walk_in_customers(&folder);
    folder
}

#[test]
fn a_credit_note_export_sorting_first_is_read_after_the_invoices() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    zoho_folder(dir.path());

    let o = run(dir.path(), &env, &["run", "zoho", "--results", "r"]);
    let out = text(&o);
    let results_dir = dir.path().join("r");
    let docs = results(&results_dir.join("Credit_Note.documents.csv"));
    let invoices = results(&results_dir.join("Invoice.documents.csv"));
    let counter = |docs: &[std::collections::BTreeMap<String, String>], number: &str| {
        let d = docs.iter().find(|d| d["document"] == number).unwrap();
        assert_eq!(d["status"], "accepted", "{d:?}\n{out}");
        let xml = std::fs::read_to_string(results_dir.join(&d["xml_file"])).unwrap();
        (icv(&xml), xml)
    };
    let (invoice, _) = counter(&invoices, "INV-000201");
    let (note, xml) = counter(&docs, "CN-00011");
    assert!(invoice < note, "the invoice has ICV {invoice}, its credit note {note}");
    assert!(
        xml.contains(">Invoice Number: INV-000201; Invoice Issue Date: 2026-11-04</cbc:ID>"),
        "{xml}"
    );
    let (invoice, _) = counter(&invoices, "INV-000202");
    let (note, _) = counter(&docs, "CN-00012");
    assert!(invoice < note, "the invoice has ICV {invoice}, its credit note {note}");
    assert!(
        out.contains("read after Invoice.csv: every document of this export is a credit or debit note"),
        "{out}"
    );
}

#[test]
fn check_reads_a_credit_note_export_after_the_invoices_and_says_so_in_json() {
    let dir = tempfile::tempdir().unwrap();
    zoho_folder(dir.path());
    let o = run(dir.path(), &[], &["check", "zoho", "--results", "r", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json is JSON");
    let files = doc["files"].as_array().unwrap();
    let names: Vec<&str> = files.iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert!(
        names[0].ends_with("Invoice.csv") && names[1].ends_with("Credit_Note.csv"),
        "{names:?}"
    );
    let notes = files[1]["notes"].to_string();
    assert!(notes.contains("read after Invoice.csv"), "{notes}");
    assert!(!files[0]["notes"].to_string().contains("read after"));
    // The date came from the invoice file checked first: nothing warns of it.
    let rows = results(&dir.path().join("r/Credit_Note.result.csv"));
    assert!(
        rows.iter().all(|r| !r["result_warnings"].contains("INV-MAP-REFERENCE")),
        "{rows:?}"
    );
}

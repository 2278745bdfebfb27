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

/// A Xero export of credit notes alone, sorting before the invoices': read after them by its
/// rows (the Xero mapping reads invoices and notes alike), its note taking its invoice's date.
#[test]
fn a_xero_export_of_credit_notes_alone_is_read_after_the_invoices_by_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let folder = dir.path().join("xero");
    std::fs::create_dir_all(&folder).unwrap();
    let text = std::fs::read_to_string(samples.join("xero_sales_invoices.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let (notes, invoices): (Vec<&str>, Vec<&str>) = lines.partition(|l| l.contains("Sales Credit Note"));
    // CN-0006 names its invoice (INV-0101) in Reference, with no date: the date is the invoice's.
    assert!(notes.iter().all(|l| l.contains(",CN-0006,INV-0101,")), "{notes:?}");
    std::fs::write(folder.join("a_notes.csv"), format!("{header}\n{}\n", notes.join("\n"))).unwrap();
    std::fs::write(
        folder.join("b_invoices.csv"),
        format!("{header}\n{}\n", invoices.join("\n")),
    )
    .unwrap();
    walk_in_customers(&folder);
    let o = run(dir.path(), &[], &["check", "xero", "--results", "r", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", super::support::text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json is JSON");
    let files = doc["files"].as_array().unwrap();
    let names: Vec<&str> = files.iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert!(
        names[0].ends_with("b_invoices.csv") && names[1].ends_with("a_notes.csv"),
        "{names:?}"
    );
    assert!(
        files[1]["notes"].to_string().contains("read after b_invoices.csv"),
        "{}",
        files[1]["notes"]
    );
    let rows = results(&dir.path().join("r/a_notes.result.csv"));
    assert!(
        rows.iter().all(|r| !r["result_warnings"].contains("INV-MAP-REFERENCE")),
        "the invoice's date is known: {rows:?}"
    );
}

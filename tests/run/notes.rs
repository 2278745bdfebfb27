//! Notes from the bundled mappings that had none, issued through the real binary and a sandbox on
//! loopback: an ERPNext debit note (the box "Is Rate Adjustment Entry (Debit Note)") and a
//! QuickBooks credit memo written negative in the invoice layout. Each is issued as its kind
//! (type code 383, 381) with its billing reference and reason, and every issued XML passes the
//! authority's validator (`shared/tools/zatca-validate`).

use super::support::*;
use chrono::{Datelike, Duration, FixedOffset, NaiveDate, Utc};
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

fn today() -> NaiveDate {
    Utc::now()
        .with_timezone(&FixedOffset::east_opt(3 * 3600).unwrap())
        .date_naive()
}

/// Run `file` (in `dir`, with customers.csv beside it) against a fresh sandbox: every document
/// accepted; the journal's "kind number" entries, sorted; each document's issued XML by number.
fn issue(dir: &Path, file: &str) -> (Vec<String>, Vec<(String, String)>) {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    onboard(dir, &env);
    let o = run(dir, &env, &["run", file, "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let journal = server.kinds_and_numbers(dir);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let mut xml: Vec<(String, String)> = Vec::new();
    for r in results(&dir.join(format!("r/{stem}.result.csv"))) {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
        if xml.iter().any(|(n, _)| *n == r["result_document"]) {
            continue;
        }
        let path = dir.join("r").join(&r["result_xml_file"]);
        xml.push((r["result_document"].clone(), path.display().to_string()));
    }
    (journal, xml)
}

/// Every file passes the authority's schema and rules.
fn validate(files: &[(String, String)]) {
    let paths: Vec<&String> = files.iter().map(|(_, p)| p).collect();
    authority_accepts(&paths, false);
}

/// The issued XML of `number`.
fn xml_of(files: &[(String, String)], number: &str) -> String {
    let (_, path) = files
        .iter()
        .find(|(n, _)| n == number)
        .unwrap_or_else(|| panic!("{number}"));
    std::fs::read_to_string(path).unwrap()
}

fn customers(dir: &Path) {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.join("customers.csv")).unwrap();
}

#[test]
fn an_erpnext_debit_note_is_issued_as_a_debit_note_naming_its_invoice() {
    let dir = tempfile::tempdir().unwrap();
    customers(dir.path());
    let day = today();
    let d = day.format("%d-%m-%Y");
    std::fs::write(
        dir.path().join("erpnext.csv"),
        format!(
            "\"ID\",\"Customer\",\"Posting Date\",\"Currency\",\"Is Return (Credit Note)\",\
             \"Is Rate Adjustment Entry (Debit Note)\",\"Return Against\",\"Item Name (Sales Invoice Item)\",\
             \"Quantity (Sales Invoice Item)\",\"Rate (Sales Invoice Item)\",\"Amount (Sales Invoice Item)\",\
             \"Item Tax Template (Sales Invoice Item)\"\n\
             \"ACC-SINV-2026-00101\",\"Al Ofuq Trading Co.\",\"{d}\",\"SAR\",\"0\",\"0\",\"\",\"Laptop 14in\",\"2\",\"2500\",\"5000\",\"KSA VAT 15% - ACME\"\n\
             \"ACC-SINV-2026-00105\",\"Al Ofuq Trading Co.\",\"{d}\",\"SAR\",\"0\",\"1\",\"ACC-SINV-2026-00101\",\"Price adjustment\",\"1\",\"100\",\"100\",\"KSA VAT 15% - ACME\"\n"
        ),
    )
    .unwrap();
    let (journal, files) = issue(dir.path(), "erpnext.csv");
    assert_eq!(
        journal,
        ["debit_note ACC-SINV-2026-00105", "invoice ACC-SINV-2026-00101"]
    );
    let xml = xml_of(&files, "ACC-SINV-2026-00105");
    let reference = format!(
        "<cbc:ID>Invoice Number: ACC-SINV-2026-00101; Invoice Issue Date: {}</cbc:ID>",
        day.format("%Y-%m-%d")
    );
    assert!(
        xml.contains(">383</cbc:InvoiceTypeCode>")
            && xml.contains(&reference)
            && xml.contains("<cbc:InstructionNote>Rate adjustment (ERPNext debit note)"),
        "{xml}"
    );
    validate(&files);
}

#[test]
fn a_quickbooks_credit_memo_written_negative_is_issued_as_a_credit_note() {
    let dir = tempfile::tempdir().unwrap();
    customers(dir.path());
    // The invoice on a day that reads only day first (settling the file's order), the credit memo
    // today.
    let day = today();
    let invoiced = (0..62)
        .map(|n| day - Duration::days(n))
        .find(|d| d.day() >= 13)
        .unwrap();
    std::fs::write(
        dir.path().join("credit_notes.csv"),
        format!(
            "number,original_number,original_date,reason\nCM-3001,3001,{},Damaged desk returned\n",
            invoiced.format("%Y-%m-%d")
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("qb.csv"),
        format!(
            "InvoiceNo,Customer,InvoiceDate,DueDate,Terms,Location,Memo,Item(Product/Service),ItemDescription,\
             ItemQuantity,ItemRate,ItemAmount,Taxable,TaxRate\n\
             3001,Al Ofuq Trading Co.,{},,Net 30,Riyadh,,Desk,Desk,2,100,200,Y,VAT 15%\n\
             CM-3001,Al Ofuq Trading Co.,{},,Net 30,Riyadh,Damaged desk,Desk,Desk,-1,100,-100,Y,VAT 15%\n",
            invoiced.format("%d/%m/%Y"),
            day.format("%d/%m/%Y")
        ),
    )
    .unwrap();
    let (journal, files) = issue(dir.path(), "qb.csv");
    assert_eq!(journal, ["credit_note CM-3001", "invoice 3001"]);
    let xml = xml_of(&files, "CM-3001");
    let reference = format!(
        "<cbc:ID>Invoice Number: 3001; Invoice Issue Date: {}</cbc:ID>",
        invoiced.format("%Y-%m-%d")
    );
    assert!(
        xml.contains(">381</cbc:InvoiceTypeCode>")
            && xml.contains(&reference)
            && xml.contains("<cbc:InstructionNote>Damaged desk returned</cbc:InstructionNote>")
            && xml.contains("<cbc:PayableAmount currencyID=\"SAR\">115.00</cbc:PayableAmount>"),
        "{xml}"
    );
    validate(&files);
}

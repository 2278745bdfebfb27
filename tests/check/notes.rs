//! Notes from the bundled mappings that had none: ERPNext's debit notes (the box "Is Rate
//! Adjustment Entry (Debit Note)", "Is Debit Note" on older sites) and QuickBooks credit memos
//! exported in the invoice layout (written negative, the invoice and reason from credit_notes.csv).

use super::{check_json, file, result_rows};
use std::path::Path;

/// `X.documents.csv`: (document, kind, status, errors, warnings) per document.
fn documents(path: &Path) -> Vec<[String; 5]> {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let h = rdr.headers().unwrap().clone();
    let at = |name: &str| h.iter().position(|c| c == name).unwrap();
    let cols = ["document", "kind", "status", "errors", "warnings"].map(at);
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            cols.map(|i| r[i].to_string())
        })
        .collect()
}

/// The result file's (errors, warnings) of the row on `line`.
fn findings(path: &Path, line: usize) -> (String, String) {
    let rows = result_rows(path);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let row = &rows[line - 1];
    (row[col("result_errors")].clone(), row[col("result_warnings")].clone())
}

const ERPNEXT_HEADER: &str = "\"ID\",\"Customer\",\"Posting Date\",\"Currency\",\"Is Return (Credit Note)\",\"DEBIT\",\"Return Against\",\"Item Name (Sales Invoice Item)\",\"Quantity (Sales Invoice Item)\",\"Rate (Sales Invoice Item)\",\"Amount (Sales Invoice Item)\",\"Item Tax Template (Sales Invoice Item)\"\n";

/// An ERPNext export whose debit-note box is headed `debit`: an invoice, a debit note correcting
/// it, a debit note correcting an invoice of another file, one marked a return too, and a return.
fn erpnext(dir: &Path, debit: &str) {
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/customers.csv"),
        dir.join("customers.csv"),
    )
    .unwrap();
    let rows = "\
\"ACC-SINV-2026-00101\",\"Al Ofuq Trading Co.\",\"10-11-2026\",\"SAR\",\"0\",\"0\",\"\",\"Laptop 14in\",\"2\",\"2,500.00\",\"5,000.00\",\"KSA VAT 15% - ACME\"
\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Laptop bag\",\"2\",\"0\",\"0\",\"KSA VAT 15% - ACME\"
\"ACC-SINV-2026-00105\",\"Al Ofuq Trading Co.\",\"15-11-2026\",\"SAR\",\"0\",\"1\",\"ACC-SINV-2026-00101\",\"Price adjustment\",\"1\",\"100\",\"100\",\"KSA VAT 15% - ACME\"
\"ACC-SINV-2026-00106\",\"Al Ofuq Trading Co.\",\"16-11-2026\",\"SAR\",\"0\",\"1\",\"ACC-SINV-2026-00011\",\"Price adjustment\",\"1\",\"50\",\"50\",\"KSA VAT 15% - ACME\"
\"ACC-SINV-2026-00107\",\"Al Ofuq Trading Co.\",\"17-11-2026\",\"SAR\",\"1\",\"1\",\"ACC-SINV-2026-00101\",\"Price adjustment\",\"1\",\"100\",\"100\",\"KSA VAT 15% - ACME\"
\"ACC-SINV-2026-00108\",\"Al Ofuq Trading Co.\",\"18-11-2026\",\"SAR\",\"1\",\"0\",\"ACC-SINV-2026-00101\",\"Laptop 14in\",\"-1\",\"2,500.00\",\"-2,500.00\",\"KSA VAT 15% - ACME\"
";
    std::fs::write(dir.join("erpnext.csv"), ERPNEXT_HEADER.replace("DEBIT", debit) + rows).unwrap();
}

/// A row with the debit-note box ticked is a debit note naming `Return Against`, with that
/// invoice's date when the file holds it (no finding) and a warning when it does not; ticked
/// beside the return box, an error naming both cells. Either label of the box is read.
#[test]
fn erpnext_debit_notes_are_debit_notes_naming_the_invoice_they_correct() {
    for debit in ["Is Rate Adjustment Entry (Debit Note)", "Is Debit Note"] {
        let dir = tempfile::tempdir().unwrap();
        erpnext(dir.path(), debit);
        let (code, r, err) = check_json(dir.path(), &["erpnext.csv"]);
        assert_eq!(code, 1, "{r:#}\n{err}");
        let f = file(&r, "erpnext.csv");
        assert_eq!(f["mapping"], "erpnext", "{debit}");
        let docs = documents(&dir.path().join("results/erpnext.documents.csv"));
        let row = |n: &str, kind: &str, status: &str, e: &str, w: &str| [n, kind, status, e, w].map(str::to_string);
        assert_eq!(
            docs,
            [
                row("ACC-SINV-2026-00101", "invoice", "valid", "", ""),
                row("ACC-SINV-2026-00105", "debit_note", "valid", "", ""),
                row("ACC-SINV-2026-00106", "debit_note", "valid", "", "INV-MAP-REFERENCE"),
                row("ACC-SINV-2026-00107", "credit_note", "invalid", "INV-MAP-KIND", ""),
                row("ACC-SINV-2026-00108", "credit_note", "valid", "", ""),
            ],
            "{debit}"
        );
        let results = dir.path().join("results/erpnext.result.csv");
        let (_, w) = findings(&results, 5);
        assert!(
            w.starts_with(
                "INV-MAP-REFERENCE Return Against \"ACC-SINV-2026-00011\": the issue date of the corrected invoice \
                 ACC-SINV-2026-00011 is unknown"
            ),
            "{w}"
        );
        let (e, _) = findings(&results, 6);
        assert_eq!(
            e,
            format!(
                "INV-MAP-KIND {debit} \"1\": this document is marked both a credit note (Is Return (Credit Note) \"1\") \
                 and a debit note ({debit} \"1\"): a document is one or the other. A return is a credit note; a rate \
                 adjustment that raises the amount due is a debit note. Untick one of the two in the ERP (or correct \
                 one of the cells) and export again; the document is not issued until then"
            )
        );
    }
}

const QB_HEADER: &str = "NUMBER,Customer,InvoiceDate,DueDate,Terms,Location,Memo,Item(Product/Service),ItemDescription,ItemQuantity,ItemRate,ItemAmount,Taxable,TaxRate\n";

/// A QuickBooks export whose number column is headed `number`: an invoice, a credit memo written
/// negative in its quantity, one negative in its amount only, and an invoice with a negative
/// discount line. `credit_notes.csv` names the invoice the first credit memo corrects.
fn quickbooks(dir: &Path, number: &str) {
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/customers.csv"),
        dir.join("customers.csv"),
    )
    .unwrap();
    std::fs::write(
        dir.join("credit_notes.csv"),
        "number,original_number,original_date,reason\nCM-3001,3001,2026-11-05,Damaged desk returned\n",
    )
    .unwrap();
    let rows = "\
3001,Al Ofuq Trading Co.,05/11/2026,05/12/2026,Net 30,Riyadh,,Desk,Desk,2,100,200,Y,VAT 15%
CM-3001,Al Ofuq Trading Co.,13/11/2026,13/12/2026,Net 30,Riyadh,Damaged desk,Desk,Desk,-1,100,-100,Y,VAT 15%
CM-3002,Al Ofuq Trading Co.,14/11/2026,14/12/2026,Net 30,Riyadh,,Desk,Desk,1,100,-100,Y,VAT 15%
3003,Al Ofuq Trading Co.,14/11/2026,14/12/2026,Net 30,Riyadh,,Desk,Desk,1,100,100,Y,VAT 15%
3003,Al Ofuq Trading Co.,14/11/2026,14/12/2026,Net 30,Riyadh,,Discount,Discount,1,-10,-10,Y,VAT 15%
";
    std::fs::write(dir.join("qb.csv"), QB_HEADER.replace("NUMBER", number) + rows).unwrap();
}

/// A credit memo in QuickBooks' invoice layout is a credit note with positive amounts, its
/// invoice and reason from credit_notes.csv; one missing there says to add it; a negative line
/// in an invoice stays `INV-MAP-SIGN`. Old and new header spellings alike.
#[test]
fn quickbooks_credit_memos_written_negative_are_credit_notes() {
    for number in ["InvoiceNo", "Invoice number"] {
        let dir = tempfile::tempdir().unwrap();
        quickbooks(dir.path(), number);
        let (code, r, err) = check_json(dir.path(), &["qb.csv"]);
        assert_eq!(code, 1, "{r:#}\n{err}");
        let f = file(&r, "qb.csv");
        assert_eq!(f["mapping"], "quickbooks-online", "{number}");
        let docs = documents(&dir.path().join("results/qb.documents.csv"));
        let row = |n: &str, kind: &str, status: &str, e: &str| [n, kind, status, e, ""].map(str::to_string);
        assert_eq!(
            docs,
            [
                row("3001", "invoice", "valid", ""),
                row("CM-3001", "credit_note", "valid", ""),
                row("CM-3002", "credit_note", "invalid", "INV-MAP-REFERENCE"),
                row("3003", "invoice", "invalid", "INV-MAP-SIGN"),
            ],
            "{number}"
        );
        let cm = f["document_list"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["number"] == "CM-3001")
            .unwrap();
        assert_eq!(cm["payable"], "115.00", "{cm}");
        let results = dir.path().join("results/qb.result.csv");
        let (e, _) = findings(&results, 4);
        assert!(
            e.starts_with(
                "INV-MAP-REFERENCE credit_notes.csv original_number: a credit note must name the invoice it \
                 corrects, and \"CM-3002\" is not in credit_notes.csv: add it there"
            ) && !e.contains("BR-KSA-17"),
            "{e}"
        );
        let (e, _) = findings(&results, 6);
        assert!(e.starts_with("INV-MAP-SIGN ItemAmount \"-10\""), "{e}");
        assert!(!e.contains("BR-KSA-F-04"), "{e}");
    }
}

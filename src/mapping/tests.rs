//! Engine tests over rows built in memory: loading checks, binding, grouping, building.

use super::*;
use crate::ingest::{Cell, Row, SourceRef};
use crate::model::{DocumentKind, InvoiceType};
use rust_decimal_macros::dec;
use std::sync::Arc;

/// Rows from CSV text (test helper; real files go through `crate::ingest`).
pub(crate) fn rows_from_csv(text: &str, header_rows: usize) -> (Vec<Vec<String>>, Vec<Row>) {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut headers = Vec::new();
    let mut rows = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.unwrap();
        let cells: Vec<String> = rec.iter().map(str::to_string).collect();
        if i < header_rows {
            headers.push(cells);
            continue;
        }
        if cells.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        rows.push(Row::new(
            SourceRef {
                file: Arc::from("test.csv"),
                sheet: None,
                line: i as u64 + 1,
            },
            cells
                .into_iter()
                .map(|c| {
                    if c.is_empty() {
                        Cell::Empty
                    } else {
                        Cell::Text(c.into())
                    }
                })
                .collect(),
        ));
    }
    (headers, rows)
}

pub(crate) fn bound(toml_text: &str, headers: &[Vec<String>]) -> Arc<Bound> {
    let m = Mapping::from_toml(toml_text, Origin::File("test.toml".into())).unwrap();
    Arc::new(Bound::new(Arc::new(m), headers, "test.csv", &[], None).unwrap())
}

pub(crate) fn group_all(b: &Arc<Bound>, rows: Vec<Row>) -> Vec<Unit> {
    let mut g = Grouper::new(b.clone());
    let mut out = Vec::new();
    for r in rows {
        out.extend(g.push(r));
    }
    out.extend(g.finish());
    out
}

fn docs(units: &[Unit]) -> Vec<&DocDraft> {
    units
        .iter()
        .filter_map(|u| match u {
            Unit::Document(d) => Some(d),
            _ => None,
        })
        .collect()
}

/// The bundled Xero mapping's customers table with no customer: walk-in buyers only.
pub(crate) const XERO_CUSTOMERS: &str = "name,vat_number,id_scheme,id,building_number,plot,district\n";

pub(crate) const SIMPLE: &str = r#"
[defaults]
date_format = "%d/%m/%Y"
[fields]
number = "No"
issue_date = "Date"
buyer.name = "Customer"
buyer.vat_number = { column = "VAT", optional = true }
line.item_name = "Item"
line.quantity = "Qty"
line.unit_price = "Price"
line.tax = { column = "Tax", default = "15%" }
[taxes]
"Zero" = { category = "Z", reason_code = "VATEX-SA-32", reason = "Export" }
"#;

/// The issues a build located on the document's row `row`, rendered.
fn issues_on(built: &Built, row: usize) -> Vec<String> {
    built
        .issues
        .iter()
        .filter(|(at, _)| *at == Some(row))
        .map(|(_, i)| i.render())
        .collect()
}

fn seller() -> std::sync::Arc<crate::model::Party> {
    std::sync::Arc::new(crate::model::example::seller())
}

#[test]
fn rows_sharing_a_number_form_one_document_with_its_lines() {
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
         A1,05/11/2026,Al Ofuq,310122393500003,Pen,2,10.00,\n\
         A1,05/11/2026,Al Ofuq,310122393500003,Crate,1,100,Zero\n\
         A2,06/11/2026,Walk-in,,Book,1,\"1,150.00\",15%\n",
        1,
    );
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    assert_eq!(ds.len(), 2);
    let a1 = build(ds[0], &b, &seller());
    assert!(a1.issues.is_empty(), "{:?}", a1.issues);
    let mut doc = a1.document.unwrap();
    assert_eq!(doc.invoice_type, InvoiceType::Standard);
    assert_eq!(doc.invoice_lines.len(), 2);
    assert_eq!(doc.invoice_lines[1].item.classified_tax_category.id, "Z");
    crate::compute::compute_document(&mut doc).unwrap();
    assert_eq!(doc.legal_monitory_total.payable_amount, dec!(123.00));
    let a2 = build(ds[1], &b, &seller()).document.unwrap();
    assert_eq!(a2.invoice_type, InvoiceType::Simplified);
    assert_eq!(a2.invoice_lines[0].price.price_per_unit, dec!(1150.00));
}

#[test]
fn provenance_maps_paths_back_to_rows_and_columns() {
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,05/11/2026,X,,Pen,2,10,\nA1,05/11/2026,X,,Cup,1,5,\n",
        1,
    );
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    assert_eq!(
        built.provenance.locate("invoice_lines[1].price.price_per_unit"),
        Some((1, Some("Price")))
    );
    assert_eq!(
        built.provenance.locate("customer_info.registration_name"),
        Some((0, Some("Customer")))
    );
    assert_eq!(
        built.provenance.locate("invoice_lines[1].tax_total.tax_amount"),
        Some((1, None))
    );
    assert_eq!(built.provenance.locate("issue_date"), Some((0, Some("Date"))));
    // The cell's text, as a finding about it quotes it; none for a blank cell.
    let first = docs(&units)[0].rows[0].row.clone().unwrap();
    let (_, _, price) = built
        .provenance
        .locate_len("invoice_lines[0].price.price_per_unit")
        .unwrap();
    assert_eq!(b.cell_text(&first, price.unwrap()), Some("10".to_string()));
    assert_eq!(b.cell_text(&first, "VAT"), None);
    assert_eq!(b.cell_text(&first, "no such column"), None);
    // No column gives the delivery date: it is the issue date's, on its cell.
    assert_eq!(built.provenance.locate("actual_delivery_date"), Some((0, Some("Date"))));
    // A blank cell is where what the rules say of the missing value belongs.
    assert_eq!(
        built.provenance.locate("customer_info.vat_number"),
        Some((0, Some("VAT")))
    );
}

#[test]
fn a_bad_value_is_an_issue_naming_the_column_and_value() {
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,31/02/2026,X,,Pen,two,10,Weird\n",
        1,
    );
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    let text: Vec<String> = built.issues.iter().map(|(_, i)| i.render()).collect();
    assert!(
        text.iter().any(|t| t.starts_with("INV-MAP-VALUE Date \"31/02/2026\"")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|t| t.starts_with("INV-MAP-VALUE Qty \"two\"")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("INV-MAP-TAX Tax \"Weird\"") && t.contains("the mapping knows Zero")),
        "{text:?}"
    );
    assert!(built.document.is_none());
}

/// Lines with their net amount, a tax column without a default, and the export's total.
const WITH_TOTALS: &str = r#"
[defaults]
date_format = "%d/%m/%Y"
[fields]
number = "No"
issue_date = "Date"
buyer.name = "Customer"
line.item_name = "Item"
line.quantity = "Qty"
line.unit_price = "Price"
line.amount = "Net"
line.tax = "Tax"
erp.total = "Total"
"#;

#[test]
fn an_unknown_tax_code_is_one_issue_and_a_blank_one_another() {
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,Item,Qty,Price,Net,Tax,Total\n\
         A1,05/11/2026,X,Pen,1,10,,Weird,\n\
         A1,05/11/2026,X,Cup,1,5,,,\n",
        1,
    );
    let b = bound(WITH_TOTALS, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    let on = |row: usize| issues_on(&built, row);
    // The unknown code says what the mapping knows; nothing claims the cell is blank.
    let first = on(0);
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].starts_with("INV-MAP-TAX Tax \"Weird\""), "{first:?}");
    // The blank cell is the missing category.
    let second = on(1);
    assert_eq!(second.len(), 1, "{second:?}");
    assert!(
        second[0].starts_with("INV-MAP-MISSING Tax: ") && second[0].contains("blank"),
        "{second:?}"
    );
    // Neither line is built.
    assert_eq!(built.document.map_or(0, |d| d.invoice_lines.len()), 0);
}

#[test]
fn a_blank_tax_says_what_to_write_and_a_description_alone_is_a_section_line() {
    let m = WITH_TOTALS.replace(
        "line.quantity = \"Qty\"",
        "line.quantity = { column = \"Qty\", default = 1 }",
    ) + "[taxes]\n\"VAT 15%\" = { category = \"S\", percent = 15 }\n\"Zero\" = { category = \"Z\", reason_code = \"VATEX-SA-32\", reason = \"Export\" }\n";
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,Item,Qty,Price,Net,Tax,Total\n\
         A1,05/11/2026,X,Pen,1,10,,VAT 15%,\n\
         A1,,,Hardware,,,,,\n\
         A1,,,Cup,1,5,,,\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    let on = |row: usize| issues_on(&built, row);
    assert!(on(0).is_empty(), "{:?}", on(0));
    assert_eq!(
        on(1),
        [
            "INV-MAP-MISSING Item \"Hardware\": this row has a description and nothing else (no quantity, price or tax): \
          it looks like a section or note line, which is not an invoice line; remove it from the export, or give it a \
          quantity, price and tax"
        ]
    );
    assert_eq!(
        on(2),
        [
            "INV-MAP-MISSING Tax: no VAT category for this line (the tax column is blank): write its tax code, one the \
          mapping knows: VAT 15%, Zero (a line without VAT takes the code that says why: zero-rated, exempt or out of \
          scope)"
        ]
    );
}

#[test]
fn a_line_row_that_makes_no_line_leaves_the_documents_amounts_unread() {
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,05/11/2026,X,,Pen,1,1,\nA1,05/11/2026,X,,Cup,1,1,NOPE\n",
        1,
    );
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    assert_eq!(built.document.as_ref().map(|d| d.invoice_lines.len()), Some(1));
    assert!(built.amounts_unread);
}

#[test]
fn a_line_value_that_cannot_be_read_leaves_the_exports_totals_uncompared() {
    let text = "No,Date,Customer,Item,Qty,Price,Net,Tax,Total\n\
                A1,05/11/2026,X,Pen,QTY,10,20,15%,23.00\n\
                A2,05/11/2026,X,Pen,2,10,20,15%,23.00\n";
    let (h, rows) = rows_from_csv(text, 1);
    let b = bound(WITH_TOTALS, &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    let unread = build(ds[0], &b, &seller());
    let codes: Vec<&str> = unread.issues.iter().map(|(_, i)| i.code.as_str()).collect();
    assert_eq!(codes, ["INV-MAP-VALUE"]);
    assert!(unread.erp.is_empty(), "{:?}", unread.erp);
    // Nor are its amounts its own.
    assert!(unread.amounts_unread);
    let read = build(ds[1], &b, &seller());
    assert!(read.issues.is_empty(), "{:?}", read.issues);
    assert!(!read.amounts_unread);
    assert_eq!(read.erp.line_net, [Some(dec!(20))]);
    assert_eq!(read.erp.tax_inclusive, Some(dec!(23.00)));
}

#[test]
fn a_line_without_its_tax_code_leaves_the_exports_totals_uncompared() {
    // A2's second line has no tax code: it makes no line, so the document computes to 23.00
    // where the export says 34.50; that is said once, on the blank cell.
    let text = "No,Date,Customer,Item,Qty,Price,Net,Tax,Total\n\
                A2,05/11/2026,X,Pen,2,10,20,15%,34.50\n\
                A2,05/11/2026,X,Cup,1,10,10,,34.50\n";
    let (h, rows) = rows_from_csv(text, 1);
    let b = bound(WITH_TOTALS, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    let codes: Vec<(Option<usize>, &str)> = built.issues.iter().map(|(r, i)| (*r, i.code.as_str())).collect();
    assert_eq!(codes, [(Some(1), "INV-MAP-MISSING")]);
    assert_eq!(built.erp.tax_inclusive, None);
    assert!(built.amounts_unread);
}

#[test]
fn a_line_value_that_cannot_be_read_leaves_the_other_lines_own_figures_compared() {
    // Line 1's quantity is unread; line 2, whose values are all read, keeps its own net to be
    // compared (its mistake is said in the same run), the document's total does not.
    let text = "No,Date,Customer,Item,Qty,Price,Net,Tax,Total\n\
                A1,05/11/2026,X,Pen,QTY,10,20,15%,46.00\n\
                A1,05/11/2026,X,Cup,2,10,30,15%,46.00\n";
    let (h, rows) = rows_from_csv(text, 1);
    let b = bound(WITH_TOTALS, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    assert_eq!(built.erp.line_net, [None, Some(dec!(30))]);
    assert_eq!(built.erp.tax_inclusive, None);
    assert!(built.amounts_unread);
}

#[test]
fn negative_documents_become_credit_notes_with_positive_amounts() {
    let m = SIMPLE.replace(
        "[taxes]",
        "original_number = { column = \"Ref\", optional = true }\n[rules]\ncredit_note_when_negative = true\n[taxes]",
    );
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax,Ref\nA1,05/11/2026,X,,Pen,2,10,,\nC1,06/11/2026,X,,Pen,-1,10,,A1\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    let built = build(ds[1], &b, &seller());
    let doc = built.document.unwrap();
    assert_eq!(doc.kind, DocumentKind::CreditNote);
    assert_eq!(doc.invoice_lines[0].quantity, dec!(1));
    assert_eq!(
        doc.billing_reference.as_deref(),
        Some("Invoice Number: A1; Invoice Issue Date: 2026-11-05")
    );
}

/// A debit-note box (ERPNext's `Is Rate Adjustment Entry (Debit Note)`) makes a debit note of an
/// invoice, naming the invoice it corrects with that invoice's date from the file; ticked beside
/// the return box it is an error naming both cells, and the document is no debit note.
#[test]
fn a_debit_note_flag_makes_a_debit_note_and_beside_a_return_an_error() {
    let m = SIMPLE.replace(
        "[taxes]",
        "kind = { column = \"Return\", map = { \"0\" = \"invoice\", \"1\" = \"credit_note\" }, default = \"invoice\" }\n\
         debit_note = { column = [\"Is Rate Adjustment Entry (Debit Note)\", \"Is Debit Note\"], optional = true }\n\
         original_number = { column = \"Against\", optional = true }\n\
         note_reason = { value = \"Rate adjustment\" }\n[taxes]",
    );
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax,Return,Is Debit Note,Against\n\
         A1,05/11/2026,X,,Pen,2,10,,0,0,\n\
         D1,06/11/2026,X,,Pen,1,3,,0,1,A1\n\
         B1,07/11/2026,X,,Pen,1,3,,1,1,A1\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    let invoice = build(ds[0], &b, &seller());
    assert_eq!(invoice.document.unwrap().kind, DocumentKind::Invoice);
    let debit = build(ds[1], &b, &seller());
    assert!(debit.issues.is_empty(), "{:?}", debit.issues);
    let doc = debit.document.unwrap();
    assert_eq!(doc.kind, DocumentKind::DebitNote);
    assert_eq!(
        doc.billing_reference.as_deref(),
        Some("Invoice Number: A1; Invoice Issue Date: 2026-11-05")
    );
    assert_eq!(doc.payment_means_instruction_note.as_deref(), Some("Rate adjustment"));
    let both = build(ds[2], &b, &seller());
    assert_eq!(
        issues_on(&both, 0),
        [
            "INV-MAP-KIND Is Debit Note \"1\": this document is marked both a credit note (Return \"1\") and a debit \
          note (Is Debit Note \"1\"): a document is one or the other. A return is a credit note; a rate adjustment \
          that raises the amount due is a debit note. Untick one of the two in the ERP (or correct one of the cells) \
          and export again; the document is not issued until then"
        ]
    );
    assert_eq!(both.document.unwrap().kind, DocumentKind::CreditNote);
}

#[test]
fn tax_inclusive_prices_give_net_prices() {
    let m = SIMPLE.replace("[taxes]", "prices_include_tax = { value = true }\n[taxes]");
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,05/11/2026,X,,Pen,7,9.99,\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let mut doc = build(docs(&units)[0], &b, &seller()).document.unwrap();
    crate::compute::compute_document(&mut doc).unwrap();
    assert_eq!(doc.invoice_lines[0].amount, dec!(60.81));
    assert_eq!(doc.legal_monitory_total.payable_amount, dec!(69.93));
}

#[test]
fn skip_rules_and_repeated_headers() {
    let m = format!("{SIMPLE}\n[[skip]]\ncolumn = \"Status\"\nequals = [\"Voided\"]\n");
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax,Status\nA1,05/11/2026,X,,Pen,1,1,,VOIDED\nNo,Date,Customer,VAT,Item,Qty,Price,Tax,Status\nA2,05/11/2026,X,,Pen,1,1,,Paid\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    assert!(ds[0].skip.as_ref().unwrap().0.contains("VOIDED"));
    assert_eq!(ds[0].rows[1].note, Some(RowNote::HeaderRepeat));
    assert!(ds[1].skip.is_none());
}

#[test]
fn huge_numbers_are_errors_not_panics() {
    let big = "79228162514264337593543950335";
    for extra in ["", "prices_include_tax = { value = true }\n"] {
        let m = SIMPLE.replace("[taxes]", &format!("{extra}line.discount_percent = \"Disc\"\n[taxes]"));
        let csv = format!(
            "No,Date,Customer,VAT,Item,Qty,Price,Tax,Disc\nA1,05/11/2026,X,,Pen,{big},{big},,50\nA2,05/11/2026,X,,Pen,-{big},{big},,{big}\n"
        );
        let (h, rows) = rows_from_csv(&csv, 1);
        let b = bound(&m, &h);
        for u in group_all(&b, rows) {
            if let Unit::Document(d) = u {
                let built = build(&d, &b, &seller());
                if let Some(mut doc) = built.document {
                    let _ = crate::compute::compute_document(&mut doc);
                    let _ = crate::validate::validate(&doc, &crate::validate::Context::new(chrono::Utc::now()));
                }
            }
        }
    }
}

#[test]
fn keys_are_trimmed_whether_one_column_or_a_template() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("customers.csv"),
        "name,vat_number\nKnown Co,310122393500003\nKnown Co Jeddah,300000000000003\n",
    )
    .unwrap();
    // One column as the key (read in place), and a template of two (made per row).
    let m = SIMPLE.replace(
        "buyer.vat_number = { column = \"VAT\", optional = true }",
        "buyer.vat_number = { lookup = \"customers\", key = \"Customer\", get = \"vat_number\" }\n\
         buyer.id = { lookup = \"customers\", key = \"{Customer} {City}\", get = \"vat_number\" }",
    ) + "\n[lookups.customers]\nfile = \"customers.csv\"\nkey_column = \"name\"\n";
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,City,Item,Qty,Price,Tax\n\
         A1,05/11/2026,  known co ,Jeddah ,Pen,1,1,\n\
         \" A1 \",05/11/2026,known co,Jeddah,Ink,1,2,\n\
         A2,05/11/2026,Known Co,,Pen,1,1,\n\
         A3,05/11/2026,  Stranger ,,Pen,1,1,\n",
        1,
    );
    let mapping = Mapping::from_toml(&m, Origin::File("t.toml".into())).unwrap();
    let b = Arc::new(Bound::new(Arc::new(mapping), &h, "t.csv", &[dir.path().to_path_buf()], None).unwrap());
    assert_eq!(b.key(&rows[1], None), "A1");
    assert!(matches!(b.key(&rows[0], None), std::borrow::Cow::Borrowed("A1")));
    let miss = b.lookup_miss(super::fields::fid!("buyer.vat_number"), &rows[3], None);
    assert_eq!(
        miss.as_ref().map(|m| (m.key.as_str(), m.file.as_str(), m.table_found)),
        Some(("Stranger", "customers.csv", true))
    );
    let units = group_all(&b, rows);
    let ds = docs(&units);
    assert_eq!(ds.len(), 3, "the number with spaces is the same document");
    assert_eq!(ds[0].rows.len(), 2);
    let a1 = build(ds[0], &b, &seller()).document.unwrap();
    assert_eq!(a1.customer_info.vat_number.as_deref(), Some("310122393500003"));
    let id = a1.customer_info.party_identification.as_ref().map(|p| p.id.as_str());
    assert_eq!(
        id,
        Some("300000000000003"),
        "the template key, trimmed: \"Known Co Jeddah\""
    );
    let a2 = build(ds[1], &b, &seller());
    let a2_doc = a2.document.unwrap();
    assert_eq!(a2_doc.customer_info.vat_number.as_deref(), Some("310122393500003"));
    // "Known Co " (blank city) trims to "Known Co": the template is trimmed as a whole.
    let id = a2_doc
        .customer_info
        .party_identification
        .as_ref()
        .map(|p| p.id.as_str());
    assert_eq!(id, Some("310122393500003"));
}

#[path = "tests_groups.rs"]
mod groups;

#[path = "tests_orphans.rs"]
mod orphans;

#[path = "tests_loading.rs"]
mod loading;

#[path = "tests_fields.rs"]
mod field_reading;

#[path = "tests_discount.rs"]
mod discount;
#[path = "tests_lookup.rs"]
mod lookup;

/// A lookup key written as a list of columns reads the first one present, as a field's `column`
/// list does: QuickBooks writes `InvoiceNo` on older screens and `Invoice number` on newer ones.
#[test]
fn a_lookup_key_may_list_alternative_columns() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("customers.csv"),
        "name,vat_number\nA1,310122393500003\n",
    )
    .unwrap();
    let m = SIMPLE.replace(
        "buyer.vat_number = { column = \"VAT\", optional = true }",
        "buyer.vat_number = { lookup = \"customers\", key = [\"InvoiceNo\", \"Invoice number\"], get = \"vat_number\" }",
    )
    .replace("number = \"No\"", "number = { column = [\"InvoiceNo\", \"Invoice number\"] }")
        + "\n[lookups.customers]\nfile = \"customers.csv\"\nkey_column = \"name\"\n";
    for header in ["InvoiceNo", "Invoice number"] {
        let (h, rows) = rows_from_csv(
            &format!("{header},Date,Customer,Item,Qty,Price,Tax\nA1,05/11/2026,X,Pen,1,1,\n"),
            1,
        );
        let mapping = Mapping::from_toml(&m, Origin::File("t.toml".into())).unwrap();
        let b = Arc::new(Bound::new(Arc::new(mapping), &h, "t.csv", &[dir.path().to_path_buf()], None).unwrap());
        let built = build(docs(&group_all(&b, rows))[0], &b, &seller());
        assert!(built.issues.is_empty(), "{header}: {:?}", built.issues);
        let doc = built.document.unwrap();
        assert_eq!(
            doc.customer_info.vat_number.as_deref(),
            Some("310122393500003"),
            "{header}"
        );
    }
}

#[path = "tests_originals.rs"]
mod originals;

#[path = "tests_note_refs.rs"]
mod note_refs;

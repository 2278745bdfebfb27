//! Tests of evaluating one unit: locating findings, what repeats a reading error, the errors
//! named for a document, the rows of an invalid one.

use super::{DraftRow, Issue, failing, fallback_label, other_rows_message, repeats};

#[test]
fn a_path_no_column_gives_names_the_mapping_field_that_would() {
    assert_eq!(
        fallback_label(
            "tax_total.tax_amount_in_tax_currency",
            crate::mapping::field_of("tax_total.tax_amount_in_tax_currency").map(|(_, f)| f)
        ),
        "[tax_total.tax_amount_in_tax_currency] (no column gives exchange_rate)"
    );
    assert_eq!(
        fallback_label(
            "invoice_lines[3].item.name",
            crate::mapping::field_of("invoice_lines[3].item.name").map(|(_, f)| f)
        ),
        "[invoice_lines[3].item.name] (no column gives line.item_name)"
    );
    assert_eq!(
        fallback_label(
            "billing_reference",
            crate::mapping::field_of("billing_reference").map(|(_, f)| f)
        ),
        "[billing_reference] (no column gives original_number)"
    );
    // Computed figures and the seller's profile have no mapping field.
    assert_eq!(
        fallback_label(
            "legal_monitory_total.payable_amount",
            crate::mapping::field_of("legal_monitory_total.payable_amount").map(|(_, f)| f)
        ),
        "[legal_monitory_total.payable_amount]"
    );
    assert_eq!(
        fallback_label(
            "supplier_info.vat_number",
            crate::mapping::field_of("supplier_info.vat_number").map(|(_, f)| f)
        ),
        "(seller profile)"
    );
}

#[test]
fn a_rule_finding_on_a_cell_already_said_to_be_wrong_repeats_it() {
    let read = vec![
        (
            Some(0),
            Issue::error("INV-MAP-VALUE", Some("Rate".into()), Some("abc".into()), "not a number"),
        ),
        (Some(1), Issue::error("INV-MAP-MISSING", None, None, "no unit price")),
    ];
    let rule = |column: &str, message: &str| Issue::error("BR-X", Some(column.into()), None, message);
    // The cell that could not be read: the rule only sees the value missing.
    assert!(repeats(&read, 2, Some(0), &rule("Rate", "give the rate")));
    // Another row, another column, or a read error that names no column: not a repeat.
    assert!(!repeats(&read, 2, Some(1), &rule("Rate", "give the rate")));
    assert!(!repeats(&read, 2, Some(0), &rule("Currency", "give the rate")));
    assert!(!repeats(&read, 2, Some(1), &rule("Price", "no unit price")));
    // A rule finding after the reading: repeated only with the same value and message.
    let mut all = read.clone();
    all.push((Some(0), rule("Currency", "not ISO 4217")));
    assert!(repeats(&all, 2, Some(0), &rule("Currency", "not ISO 4217")));
    assert!(!repeats(&all, 2, Some(0), &rule("Currency", "not a code")));
    // A row whose cells may be shifted: every rule finding on it, on any column.
    let shifted = vec![(
        Some(3),
        Issue::error("INV-ROW-CELLS", None, Some("345.00".into()), "14 cells"),
    )];
    assert!(repeats(&shifted, 1, Some(3), &rule("Amount", "differs")));
    assert!(!repeats(&shifted, 1, Some(2), &rule("Amount", "differs")));
}

#[test]
fn an_invalid_documents_errors_are_named_once_each_with_their_lines() {
    let rows: Vec<DraftRow> = Vec::new();
    let e = |code: &str| Issue::error(code, None, None, "x");
    let mut issues = vec![
        (None, e("BR-1")),
        (None, e("BR-1")),
        (None, Issue::warning("BR-W", None, None, "w".to_string())),
    ];
    assert_eq!(failing(&issues, &rows), vec!["BR-1"]);
    issues.extend((2..9).map(|k| (None, e(&format!("BR-{k}")))));
    assert_eq!(
        failing(&issues, &rows),
        vec!["BR-1", "BR-2", "BR-3", "BR-4", "BR-5", "3 more"]
    );
}

#[test]
fn a_document_perhaps_incomplete_or_in_parts_is_not_compared_with_what_was_issued() {
    let e = |code: &str| Issue::error(code, None, None, "x");
    for code in [
        crate::mapping::SPLIT_CODE,
        crate::pipeline::FILE_CHANGED_CODE,
        crate::pipeline::FILE_CUT_CODE,
    ] {
        assert!(super::in_part(&e(code)), "{code}");
    }
    assert!(!super::in_part(&e("BR-KSA-F-04")));
}

#[test]
fn a_row_whose_cells_may_be_shifted_keeps_its_documents_file_finding() {
    let quote = Issue::error("INV-ROW-QUOTE", Some("Description".into()), None, "never closed");
    let mut issues = vec![
        (Some(0), quote.clone()),
        (Some(0), Issue::error("INV-MAP-MISSING", None, None, "no unit price")),
        (
            Some(0),
            Issue::error(crate::pipeline::FILE_CUT_CODE, None, None, "cut short"),
        ),
        (
            Some(0),
            Issue::error(crate::pipeline::FILE_CHANGED_CODE, None, None, "changed"),
        ),
    ];
    super::drop_read_repeats(&mut issues, 0);
    let codes: Vec<&str> = issues.iter().map(|(_, i)| i.code.as_str()).collect();
    assert_eq!(codes, ["INV-ROW-QUOTE", "INV-FILE-CUT", "INV-FILE-CHANGED"]);
}

#[test]
fn the_other_rows_are_named_once_each_in_order() {
    assert_eq!(
        other_rows_message([54, 54, 54].into_iter()),
        "the document has errors on another row (line 54)"
    );
    assert_eq!(
        other_rows_message([60, 54, 60, 12].into_iter()),
        "the document has errors on other rows (lines 12, 54, 60)"
    );
    assert_eq!(
        other_rows_message(std::iter::empty()),
        "the document has errors (see its other rows)"
    );
}

/// Documents of a Zoho export at tax-inclusive prices, each three lines sold at 10.00 with 15 %
/// VAT (net 8.70 and VAT 1.30 each; 30.02 with VAT on the category), the export's Total of
/// each given; evaluated as `run` evaluates them, numbered Z-0, Z-1...
fn zoho_inclusive(totals: &[&str]) -> Vec<super::Outcome> {
    use crate::pipeline::local::Reading;
    let dir = tempfile::tempdir().unwrap();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let mut csv = String::from(
        "Invoice Number,Invoice Date,Invoice Status,Customer Name,Is Inclusive Tax,Currency Code,Item Tax,Quantity,\
         Item Price,Item Name,Item Tax Amount,Item Total,Total,Billing Address,Billing City,Billing Country,Billing Code\n",
    );
    for (i, total) in totals.iter().enumerate() {
        for item in ["Gloves", "Masks", "Soap"] {
            csv.push_str(&format!(
                "Z-{i},2026-11-04,Sent,Gulf Medical Supplies LLC,true,SAR,VAT 15,1,10.00,{item},1.30,10.00,{total},\
                 Prince Mohammed bin Fahd Road,Dammam,Saudi Arabia,32272\n"
            ));
        }
    }
    let path = dir.path().join("zoho.csv");
    std::fs::write(&path, csv).unwrap();
    let mapping = crate::mapping::bundled::get("zoho-books").unwrap().unwrap();
    let config = crate::config::Config::default();
    let prepared = super::prepare(&path, std::sync::Arc::new(mapping), &config).unwrap();
    let bound = prepared.bound.clone();
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let opts = super::CheckOptions::new(now, config.seller().0);
    let mut reading = Reading::new(prepared.input, prepared.bound, 10, true, None);
    let side = super::SideWatch::new(&bound, true);
    let mut out = Vec::new();
    while let Some((_, batch)) = reading.batch(10) {
        out.extend(
            batch
                .into_iter()
                .map(|u| super::evaluate(u, &bound, &opts, "t", true, &side)),
        );
    }
    out
}

#[test]
fn a_total_of_inclusive_line_totals_is_issued_as_the_amount_due() {
    use rust_decimal_macros::dec;
    let out = zoho_inclusive(&["30.00", "30.05", "30.01"]);
    assert_eq!(out.len(), 3);
    // Per-line rounding only: valid, the computed VAT, the export's total due.
    let o = &out[0];
    let doc = o.document.as_deref().expect("kept for sending");
    let t = &doc.legal_monitory_total;
    assert_eq!(
        (
            doc.tax_total.tax_amount,
            t.tax_inclusive_amount,
            t.payable_rounding_amount,
            t.payable_amount
        ),
        (dec!(3.92), dec!(30.02), Some(dec!(-0.02)), dec!(30.00))
    );
    let r = o.record.as_ref().unwrap();
    assert_eq!((r.gross, r.payable), (Some(dec!(30.02)), Some(dec!(30.00))));
    assert_eq!(o.brief.as_ref().and_then(|b| b.payable), Some(dec!(30.00)));
    assert_eq!(r.warnings, ["INV-ERP-TOTAL-ROUNDING"], "{:?}", r.errors);
    let first = &o.rows[0].result;
    assert_eq!(first.status, crate::results::RowStatus::Valid);
    assert!(first.errors.is_empty(), "{:?}", first.errors);
    assert!(
        first.warnings[0].starts_with("INV-ERP-TOTAL-ROUNDING Total \"30.00\": ")
            && first.warnings[0]
                .contains("the payable amount is 30.00 as the export says, with a rounding amount of -0.02 (BT-114)"),
        "{:?}",
        first.warnings
    );
    // Not rounding: invalid, as before, and nothing rounded.
    let o = &out[1];
    assert!(o.document.is_none());
    let r = o.record.as_ref().unwrap();
    assert_eq!(
        (r.errors.as_slice(), r.payable),
        (["INV-ERP-TOTAL".to_string()].as_slice(), Some(dec!(30.02)))
    );
    // Within the tolerance: issued as computed, nothing said (as documents issued before were).
    let o = &out[2];
    let t = &o.document.as_deref().expect("valid").legal_monitory_total;
    assert_eq!((t.payable_rounding_amount, t.payable_amount), (None, dec!(30.02)));
    assert!(o.record.as_ref().unwrap().warnings.is_empty());
}

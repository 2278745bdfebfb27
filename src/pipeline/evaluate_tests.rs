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
    super::drop_read_repeats(&mut issues);
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

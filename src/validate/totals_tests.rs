use super::super::testkit::{rule_test, *};
use crate::model::{Document, TaxSubtotal, example};
use rust_decimal_macros::dec;

/// Breakdown `i`: 0 = S 15%, 1 = S 5%, 2 = Z of the standard invoice.
fn sub(d: &mut Document, i: usize) -> &mut TaxSubtotal {
    match (&mut d.tax_total.tax_subtotal, &mut d.tax_total.tax_subtotals) {
        (Some(one), _) if i == 0 => one,
        (_, Some(many)) => &mut many[i],
        _ => panic!("no breakdown {i}"),
    }
}

/// The standard invoice with its third line exempt (`E`) or out of scope (`O`), computed.
fn with_third(cat: crate::model::TaxCategory) -> Document {
    let mut d = standard();
    d.invoice_lines[2].item.classified_tax_category = cat;
    recompute(&mut d);
    d
}

rule_test!(br_co_18_breakdown_present, "BR-CO-18", Error, standard(),
    pass: |_| {}, fail: |d| { d.tax_total.tax_subtotal = None; d.tax_total.tax_subtotals = None }, path: "tax_total");
rule_test!(br_dec_19_taxable_decimals, "BR-DEC-19", Warning, standard(),
    pass: |d| sub(d, 0).taxable_amount = dec!(99.890), fail: |d| sub(d, 0).taxable_amount = dec!(99.891));
rule_test!(br_dec_20_breakdown_vat_decimals, "BR-DEC-20", Warning, standard(),
    pass: |_| {}, fail: |d| sub(d, 0).tax_amount = dec!(14.9835), path: "tax_total.tax_subtotals[0].tax_amount");
rule_test!(br_ksa_f_04_negative_taxable, "BR-KSA-F-04", Error, standard(),
    pass: |_| {}, fail: |d| sub(d, 2).taxable_amount = dec!(-120), path: "tax_total.tax_subtotals[2].taxable_amount");
rule_test!(br_co_17_breakdown_vat, "BR-CO-17", Warning, standard(),
    pass: |d| sub(d, 0).tax_amount = dec!(15.01), fail: |d| sub(d, 0).tax_amount = dec!(15.02),
    path: "tax_total.tax_subtotals[0].tax_amount");
rule_test!(br_co_17_lower_bound, "BR-CO-17", Warning, standard(),
    pass: |d| sub(d, 1).tax_amount = dec!(5.72), fail: |d| sub(d, 1).tax_amount = dec!(5.71));
rule_test!(br_s_09_standard_rated_vat, "BR-S-09", Warning, credit(),
    pass: |d| sub(d, 0).tax_amount += dec!(0.01), fail: |d| sub(d, 0).tax_amount += dec!(0.02),
    path: "tax_total.tax_subtotal.tax_amount");
rule_test!(br_z_09_zero_rated_vat, "BR-Z-09", Error, standard(),
    pass: |d| sub(d, 2).tax_amount = dec!(0.00), fail: |d| sub(d, 2).tax_amount = dec!(0.01));
rule_test!(br_e_09_exempt_vat, "BR-E-09", Error, with_third(example::exempt_financial()),
    pass: |_| {}, fail: |d| sub(d, 2).tax_amount = dec!(1));
rule_test!(br_o_09_out_of_scope_vat, "BR-O-09", Error, with_third(example::out_of_scope()),
    pass: |_| {}, fail: |d| sub(d, 2).tax_amount = dec!(0.01));
rule_test!(br_s_08_standard_rated_taxable, "BR-S-08", Warning, standard(),
    pass: |d| { sub(d, 0).taxable_amount -= dec!(1); sub(d, 1).taxable_amount += dec!(1) },
    fail: |d| sub(d, 1).taxable_amount += dec!(0.01), path: "tax_total.tax_subtotals[0].taxable_amount");
rule_test!(br_z_08_zero_rated_taxable, "BR-Z-08", Warning, standard(),
    pass: |_| {}, fail: |d| sub(d, 2).taxable_amount = dec!(119.99), path: "tax_total.tax_subtotals[2].taxable_amount");
rule_test!(br_z_08_without_zero_rated_lines, "BR-Z-08", Warning, standard(),
    pass: |_| {}, fail: |d| d.invoice_lines[2].item.classified_tax_category = example::exempt_financial());
rule_test!(br_e_08_exempt_taxable, "BR-E-08", Warning, with_third(example::exempt_financial()),
    pass: |_| {}, fail: |d| sub(d, 2).taxable_amount = dec!(100));
rule_test!(br_o_08_out_of_scope_taxable, "BR-O-08", Warning, with_third(example::out_of_scope()),
    pass: |_| {}, fail: |d| d.invoice_lines[2].amount = dec!(119));
rule_test!(br_co_14_vat_total, "BR-CO-14", Error, standard(),
    pass: |_| {}, fail: |d| d.tax_total.tax_amount += dec!(0.01), path: "tax_total.tax_amount");
rule_test!(br_dec_13_vat_total_decimals, "BR-DEC-13", Warning, standard(),
    pass: |_| {}, fail: |d| d.tax_total.tax_amount = dec!(20.731));
rule_test!(br_dec_15_vat_in_sar_decimals, "BR-DEC-15", Warning, standard(),
    pass: |d| d.tax_total.tax_amount_in_tax_currency = Some(dec!(77.74)),
    fail: |d| d.tax_total.tax_amount_in_tax_currency = Some(dec!(77.7375)));
rule_test!(br_co_10_line_total, "BR-CO-10", Warning, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.total_amount += dec!(0.01), path: "legal_monitory_total.total_amount");
rule_test!(br_co_11_allowance_total, "BR-CO-11", Error, standard(),
    pass: |d| d.legal_monitory_total.allowance_total_amount = None,
    fail: |d| d.legal_monitory_total.allowance_total_amount = Some(dec!(11)));
rule_test!(br_co_12_charge_total, "BR-CO-12", Error, standard(),
    pass: |d| d.legal_monitory_total.charge_total_amount = Some(dec!(0)),
    fail: |d| d.legal_monitory_total.charge_total_amount = Some(dec!(1)));
rule_test!(br_co_13_tax_exclusive, "BR-CO-13", Warning, standard(),
    pass: |d| d.legal_monitory_total.allowance_total_amount = None,
    fail: |d| d.legal_monitory_total.tax_exclusive_amount += dec!(0.01));
rule_test!(br_co_13_without_discounts, "BR-CO-13", Warning, credit(),
    pass: |d| d.legal_monitory_total.allowance_total_amount = None,
    fail: |d| d.legal_monitory_total.tax_exclusive_amount -= dec!(0.01));
rule_test!(br_co_15_tax_inclusive, "BR-CO-15", Error, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.tax_inclusive_amount -= dec!(0.01),
    path: "legal_monitory_total.tax_inclusive_amount");
rule_test!(br_co_16_payable, "BR-CO-16", Warning, standard(),
    pass: |d| { d.legal_monitory_total.prepaid_amount = Some(dec!(100)); d.legal_monitory_total.payable_rounding_amount = Some(dec!(-0.02)); recompute(d) },
    fail: |d| d.legal_monitory_total.payable_amount += dec!(0.01), path: "legal_monitory_total.payable_amount");
rule_test!(br_dec_09_line_total_decimals, "BR-DEC-09", Warning, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.total_amount = dec!(344.891));
rule_test!(br_dec_10_allowance_total_decimals, "BR-DEC-10", Warning, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.allowance_total_amount = Some(dec!(10.001)));
rule_test!(br_dec_11_charge_total_decimals, "BR-DEC-11", Warning, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.charge_total_amount = Some(dec!(0.001)));
rule_test!(br_dec_12_tax_exclusive_decimals, "BR-DEC-12", Warning, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.tax_exclusive_amount = dec!(334.891));
rule_test!(br_dec_14_tax_inclusive_decimals, "BR-DEC-14", Warning, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.tax_inclusive_amount = dec!(355.621));
rule_test!(br_dec_16_prepaid_decimals, "BR-DEC-16", Warning, standard(),
    pass: |d| d.legal_monitory_total.prepaid_amount = Some(dec!(0)),
    fail: |d| d.legal_monitory_total.prepaid_amount = Some(dec!(0.001)));
rule_test!(br_dec_17_rounding_decimals, "BR-DEC-17", Warning, standard(),
    pass: |d| d.legal_monitory_total.payable_rounding_amount = Some(dec!(0)),
    fail: |d| d.legal_monitory_total.payable_rounding_amount = Some(dec!(-0.001)));
rule_test!(br_dec_18_payable_decimals, "BR-DEC-18", Warning, standard(),
    pass: |_| {}, fail: |d| d.legal_monitory_total.payable_amount = dec!(355.625));
rule_test!(br_ksa_f_04_negative_prepaid, "BR-KSA-F-04", Error, standard(),
    pass: |d| { d.legal_monitory_total.payable_rounding_amount = Some(dec!(-0.02)); recompute(d) },
    fail: |d| { d.legal_monitory_total.prepaid_amount = Some(dec!(-1)); recompute(d) },
    path: "legal_monitory_total.prepaid_amount");

#[test]
fn out_of_scope_taxable_amounts_may_be_negative() {
    // BR-KSA-F-04 leaves out the taxable amount of O breakdowns.
    let mut d = with_third(example::out_of_scope());
    d.allowance_charge.0[0].tax_category = example::out_of_scope();
    d.allowance_charge.0[0].amount = dec!(130);
    recompute(&mut d);
    let f = check(&d);
    assert!(
        !f.iter()
            .any(|f| f.code == "BR-KSA-F-04" && f.path.contains("tax_subtotals")),
        "{f:?}"
    );
}

#[test]
fn overflowing_totals_are_reported() {
    let mut d = standard();
    d.allowance_charge.0[0].amount = rust_decimal::Decimal::MAX;
    d.legal_monitory_total.total_amount = rust_decimal::Decimal::MAX;
    d.invoice_lines[0].amount = rust_decimal::Decimal::MAX;
    let f = check(&d);
    assert_has(&f, "INV-AMOUNT-TOO-LARGE", super::super::Severity::Error);
}

use super::super::testkit::{rule_test, *};
use crate::model::{AllowanceCharge, Document, TaxCategory, TaxSubtotal, example};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

/// The breakdown `i` of a computed document.
fn sub(d: &mut Document, i: usize) -> &mut TaxSubtotal {
    match (&mut d.tax_total.tax_subtotal, &mut d.tax_total.tax_subtotals) {
        (Some(one), _) if i == 0 => one,
        (_, Some(many)) => &mut many[i],
        _ => panic!("no breakdown {i}"),
    }
}

fn line_cat(d: &mut Document, i: usize) -> &mut TaxCategory {
    &mut d.invoice_lines[i].item.classified_tax_category
}

/// Turn the standard invoice's discount into a charge or discount of category `cat`, computed.
fn doc_level(charge: bool, cat: TaxCategory) -> Document {
    let mut d = standard();
    d.allowance_charge.0 = vec![AllowanceCharge {
        charge_indicator: charge,
        reason: "adjustment".into(),
        reason_code: Some(if charge { "FC" } else { "95" }.into()),
        amount: dec!(1),
        base_amount: None,
        multiplier_factor: None,
        currency: "SAR".into(),
        tax_category: cat,
    }];
    recompute(&mut d);
    d
}

fn ac_rate(d: &mut Document, p: Decimal) {
    d.allowance_charge.0[0].tax_category.percent = p;
}

rule_test!(br_ksa_18_category_code, "BR-KSA-18", Error, standard(),
    pass: |d| line_cat(d, 0).id = " S ".into(), fail: |d| line_cat(d, 0).id = "s".into(),
    path: "invoice_lines[0].item.classified_tax_category.id");
rule_test!(br_ksa_18_on_breakdown, "BR-KSA-18", Error, standard(),
    pass: |_| {}, fail: |d| sub(d, 1).tax_category.id = "AE".into(), path: "tax_total.tax_subtotals[1].tax_category.id");
rule_test!(br_cl_18_uncl5305, "BR-CL-18", Error, standard(),
    pass: |d| line_cat(d, 0).id = "K".into(), fail: |d| line_cat(d, 0).id = "X".into());
rule_test!(br_co_04_line_category, "BR-CO-04", Error, standard(),
    pass: |_| {}, fail: |d| line_cat(d, 2).id = Default::default());
rule_test!(br_32_discount_category, "BR-32", Error, standard(),
    pass: |_| {}, fail: |d| d.allowance_charge.0[0].tax_category.id = " ".into(), path: "allowance_charge.tax_category.id");
rule_test!(br_37_charge_category, "BR-37", Warning, doc_level(true, TaxCategory::new("S", dec!(15))),
    pass: |_| {}, fail: |d| d.allowance_charge.0[0].tax_category.id = Default::default());
rule_test!(br_47_breakdown_category, "BR-47", Error, standard(),
    pass: |_| {}, fail: |d| sub(d, 0).tax_category.id = Default::default());
rule_test!(inv_tax_type, "INV-TAX-TYPE", Error, standard(),
    pass: |d| line_cat(d, 0).tax_type = "vat".into(), fail: |d| line_cat(d, 0).tax_type = "GST".into());
rule_test!(br_ksa_dec_02_rate_range, "BR-KSA-DEC-02", Error, standard(),
    pass: |d| line_cat(d, 0).percent = dec!(15.00), fail: |d| line_cat(d, 0).percent = dec!(15.001));
rule_test!(br_ksa_dec_02_rate_above_100, "BR-KSA-DEC-02", Error, standard(),
    pass: |_| {}, fail: |d| sub(d, 0).tax_category.percent = dec!(101));
rule_test!(br_ksa_84_standard_rate, "BR-KSA-84", Error, standard(),
    pass: |d| line_cat(d, 0).percent = dec!(5), fail: |d| line_cat(d, 0).percent = dec!(10),
    path: "invoice_lines[0].item.classified_tax_category.percent");
rule_test!(br_ksa_84_on_discount, "BR-KSA-84", Error, standard(),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(16)));
rule_test!(br_s_05_line_rate, "BR-S-05", Warning, standard(),
    pass: |_| {}, fail: |d| line_cat(d, 0).percent = dec!(0));
rule_test!(br_s_06_discount_rate, "BR-S-06", Error, standard(),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(0)));
rule_test!(br_s_07_charge_rate, "BR-S-07", Warning, doc_level(true, TaxCategory::new("S", dec!(5))),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(0)));
rule_test!(br_z_05_line_rate, "BR-Z-05", Error, standard(),
    pass: |_| {}, fail: |d| line_cat(d, 2).percent = dec!(5));
rule_test!(br_z_06_discount_rate, "BR-Z-06", Error, doc_level(false, example::zero_rated_export()),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(15)));
rule_test!(br_z_07_charge_rate, "BR-Z-07", Error, doc_level(true, example::zero_rated_export()),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(15)));
rule_test!(br_e_05_line_rate, "BR-E-05", Error, standard(),
    pass: |d| *line_cat(d, 2) = example::exempt_financial(),
    fail: |d| *line_cat(d, 2) = TaxCategory { percent: dec!(15), ..example::exempt_financial() });
rule_test!(br_e_06_discount_rate, "BR-E-06", Error, doc_level(false, example::exempt_financial()),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(5)));
rule_test!(br_e_07_charge_rate, "BR-E-07", Error, doc_level(true, example::exempt_financial()),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(5)));
rule_test!(br_ksa_11_out_of_scope_line_rate, "BR-KSA-11", Error, standard(),
    pass: |d| *line_cat(d, 2) = example::out_of_scope(),
    fail: |d| *line_cat(d, 2) = TaxCategory { percent: dec!(15), ..example::out_of_scope() });
rule_test!(br_ksa_12_out_of_scope_discount_rate, "BR-KSA-12", Warning, doc_level(false, example::out_of_scope()),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(15)));
rule_test!(br_ksa_13_out_of_scope_charge_rate, "BR-KSA-13", Warning, doc_level(true, example::out_of_scope()),
    pass: |_| {}, fail: |d| ac_rate(d, dec!(15)));
rule_test!(br_s_01_s_breakdown, "BR-S-01", Warning, standard(),
    pass: |_| {}, fail: |d| d.tax_total.tax_subtotals.as_mut().map_or((), |s| { s.remove(1); s.remove(0); }));
rule_test!(br_z_01_z_breakdown, "BR-Z-01", Warning, standard(),
    pass: |_| {}, fail: |d| d.tax_total.tax_subtotals.as_mut().map_or((), |s| { s.pop(); }));
rule_test!(br_e_01_e_breakdown, "BR-E-01", Warning, standard(),
    pass: |d| { *line_cat(d, 2) = example::exempt_financial(); recompute(d) },
    fail: |d| *line_cat(d, 2) = example::exempt_financial());
rule_test!(br_o_01_o_breakdown, "BR-O-01", Warning, standard(),
    pass: |d| { *line_cat(d, 2) = example::out_of_scope(); recompute(d) },
    fail: |d| *line_cat(d, 2) = example::out_of_scope());
rule_test!(br_ksa_69_zero_rated_reason_code, "BR-KSA-69", Warning, standard(),
    pass: |d| sub(d, 2).tax_category.exemption_reason_code = Some("VATEX-SA-35".into()),
    fail: |d| sub(d, 2).tax_category.exemption_reason_code = None,
    path: "tax_total.tax_subtotals[2].tax_category.exemption_reason_code");
rule_test!(br_ksa_23_exempt_reason_code, "BR-KSA-23", Warning, doc_level(false, example::exempt_financial()),
    pass: |_| {}, fail: |d| sub(d, 3).tax_category.exemption_reason_code = Some(" ".into()));
rule_test!(br_ksa_24_out_of_scope_reason_code, "BR-KSA-24", Warning, doc_level(true, example::out_of_scope()),
    pass: |_| {}, fail: |d| sub(d, 3).tax_category.exemption_reason_code = None);
rule_test!(br_ksa_cl_04_reason_code_list, "BR-KSA-CL-04", Warning, standard(),
    pass: |d| sub(d, 2).tax_category.exemption_reason_code = Some("VATEX-SA-32(bis)".into()),
    fail: |d| sub(d, 2).tax_category.exemption_reason_code = Some("VATEX-SA-29".into()));
rule_test!(br_ksa_83_reason_text, "BR-KSA-83", Warning, standard(),
    pass: |d| sub(d, 2).tax_category.exemption_reason = Some("تصدير".into()),
    fail: |d| sub(d, 2).tax_category.exemption_reason = Some("  ".into()));
rule_test!(br_s_10_no_reason_on_s, "BR-S-10", Warning, standard(),
    pass: |d| sub(d, 0).tax_category.exemption_reason = Some(String::new()),
    fail: |d| sub(d, 0).tax_category.exemption_reason = Some("Export".into()),
    path: "tax_total.tax_subtotals[0].tax_category.exemption_reason");

/// The standard invoice with a fourth line: the third (zero-rated export) again, with `cat`.
fn another_zero_rated(cat: TaxCategory) -> impl FnOnce(&mut Document) {
    move |d| {
        let mut line = d.invoice_lines[2].clone();
        line.id = "4".into();
        line.item.classified_tax_category = cat;
        d.invoice_lines.push(line);
    }
}

fn medicines() -> TaxCategory {
    TaxCategory {
        exemption_reason_code: Some("VATEX-SA-35".into()),
        exemption_reason: Some("Medicines and medical equipment".into()),
        ..TaxCategory::new("Z", Decimal::ZERO)
    }
}

rule_test!(inv_exemption_mixed_two_codes_in_one_breakdown, "INV-EXEMPTION-MIXED", Error, standard(),
    pass: another_zero_rated(example::zero_rated_export()),
    fail: another_zero_rated(medicines()),
    path: "invoice_lines[3].item.classified_tax_category.exemption_reason_code");
rule_test!(inv_exemption_text_two_texts_under_one_code, "INV-EXEMPTION-TEXT", Warning, standard(),
    pass: another_zero_rated(TaxCategory { exemption_reason: Some("  ".into()), ..example::zero_rated_export() }),
    fail: another_zero_rated(TaxCategory { exemption_reason: Some("Export of services".into()), ..example::zero_rated_export() }),
    path: "invoice_lines[3].item.classified_tax_category.exemption_reason");

#[test]
fn exemption_reasons_are_compared_within_a_breakdown_only() {
    // Another category (E) or another rate is another breakdown: its reason is its own.
    let mut d = standard();
    another_zero_rated(example::exempt_financial())(&mut d);
    let found = check(&d);
    assert_lacks(&found, "INV-EXEMPTION-MIXED");
    assert_lacks(&found, "INV-EXEMPTION-TEXT");
    // A line without a code takes the breakdown's: nothing to say; a document discount of the
    // same breakdown with another code is said on the discount.
    let mut d = doc_level(false, medicines());
    another_zero_rated(TaxCategory::new("Z", Decimal::ZERO))(&mut d);
    let f = assert_has(&check(&d), "INV-EXEMPTION-MIXED", super::super::Severity::Error);
    assert_eq!(f.path, "allowance_charge.tax_category.exemption_reason_code");
    assert!(
        f.message.contains("VATEX-SA-32") && f.message.contains("the document's line no. 3"),
        "{}",
        f.message
    );
    // The first code is the one compared with: one finding per line that differs.
    let mut d = standard();
    another_zero_rated(medicines())(&mut d);
    another_zero_rated(medicines())(&mut d);
    let mixed = check(&d)
        .into_iter()
        .filter(|f| f.code == "INV-EXEMPTION-MIXED")
        .count();
    assert_eq!(mixed, 2);
}

#[test]
fn br_ksa_84_follows_the_rule_file() {
    // The authority's test is floor(rate) = 15 or rate = 5: 15.5 passes it (BR-S-09 then warns).
    let mut d = standard();
    line_cat(&mut d, 0).percent = dec!(15.5);
    assert_lacks(&check(&d), "BR-KSA-84");
    line_cat(&mut d, 0).percent = dec!(5.5);
    assert_has(&check(&d), "BR-KSA-84", super::super::Severity::Error);
}

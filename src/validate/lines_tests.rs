use super::super::testkit::{rule_test, *};
use crate::model::{Document, LineAllowanceCharge, PriceAllowanceCharge};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

fn charge(d: &mut Document, charge: bool, amount: Decimal, code: Option<&str>, reason: &str) {
    d.invoice_lines[0].allowance_charges.push(LineAllowanceCharge {
        charge_indicator: charge,
        reason: reason.into(),
        reason_code: code.map(str::to_string),
        amount,
    });
}

fn price_discount(d: &mut Document, charge: bool, gross: Decimal, discount: Decimal) {
    d.invoice_lines[0].price.allowance_charge = Some(PriceAllowanceCharge {
        charge_indicator: charge,
        reason: "discount".into(),
        amount: discount,
        base_amount: gross,
        currency: "SAR".into(),
    });
}

rule_test!(br_21_line_id, "BR-21", Warning, standard(),
    pass: |d| d.invoice_lines[1].id = "x".into(), fail: |d| d.invoice_lines[1].id = " ".into(), path: "invoice_lines[1].id");
rule_test!(inv_duplicate_line_id, "INV-DUPLICATE-LINE-ID", Warning, standard(),
    pass: |d| d.invoice_lines[2].id = "30".into(), fail: |d| d.invoice_lines[2].id = "1".into(),
    path: "invoice_lines[2].id");
rule_test!(inv_zero_quantity, "INV-ZERO-QUANTITY", Error, standard(),
    pass: |d| { d.invoice_lines[0].quantity = dec!(0.000001); recompute(d) },
    fail: |d| { d.invoice_lines[0].quantity = dec!(0.000000); recompute(d) }, path: "invoice_lines[0].quantity");
rule_test!(inv_empty_item_name, "INV-EMPTY-ITEM-NAME", Error, standard(),
    pass: |d| d.invoice_lines[0].item.name = "Pen".into(), fail: |d| d.invoice_lines[0].item.name = "  ".into(),
    path: "invoice_lines[0].item.name");
rule_test!(br_ksa_f_c_01_digits_only_name, "BR-KSA-F-C-01", Warning, standard(),
    pass: |d| d.invoice_lines[0].item.name = "Item 4711".into(), fail: |d| d.invoice_lines[0].item.name = "٤٧١١".into());
rule_test!(br_ksa_f_04_negative_quantity, "BR-KSA-F-04", Error, standard(),
    pass: |d| { d.invoice_lines[1].quantity = dec!(0.5); recompute(d) },
    fail: |d| { d.invoice_lines[1].quantity = dec!(-1); recompute(d) }, path: "invoice_lines[1].quantity");
rule_test!(br_ksa_f_04_negative_price, "BR-KSA-F-04", Error, standard(),
    pass: |d| { d.invoice_lines[1].price.price_per_unit = dec!(0); recompute(d) },
    fail: |d| d.invoice_lines[1].price.price_per_unit = dec!(-0.01), path: "invoice_lines[1].price.price_per_unit");
/// A line discount (an allowance on the line) larger than the line: every figure it comes from is
/// positive, its net amount is not; said once, not again for its VAT.
#[test]
fn a_line_discount_larger_than_the_line_is_a_negative_line_net() {
    let discount = |amount| crate::model::LineAllowanceCharge {
        charge_indicator: false,
        reason: "Discount".into(),
        reason_code: None,
        amount,
    };
    let mut d = standard();
    apply(&mut d, |d| {
        let l = &mut d.invoice_lines[1];
        l.allowance_charges = vec![discount(l.quantity * l.price.price_per_unit - dec!(0.01))];
        recompute(d)
    });
    assert_lacks(&check(&d), "BR-KSA-F-04");
    let mut d = standard();
    apply(&mut d, |d| {
        let l = &mut d.invoice_lines[1];
        l.allowance_charges = vec![discount(l.quantity * l.price.price_per_unit + dec!(1.54))];
        recompute(d)
    });
    let found: Vec<_> = check(&d).into_iter().filter(|f| f.code == "BR-KSA-F-04").collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "invoice_lines[1].amount");
    assert!(
        found[0].message.contains("line net amount") && found[0].message.contains("-1.54"),
        "{}",
        found[0].message
    );
}

#[test]
fn a_negative_gross_price_or_quantity_is_one_finding_not_one_per_figure_it_makes() {
    // A gross price of -3450 with 5 % off: the discount, the net price and the VAT follow.
    let mut d = standard();
    apply(&mut d, |d| {
        price_discount(d, false, dec!(-3450), dec!(-172.5));
        d.invoice_lines[0].price.price_per_unit = dec!(-3277.5);
        recompute(d);
    });
    let f = check(&d);
    let negatives: Vec<&str> = of(&f, "BR-KSA-F-04").iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        negatives,
        ["invoice_lines[0].price.allowance_charge.base_amount"],
        "{f:?}"
    );
    // A negative quantity: its VAT is not said again.
    let mut d = standard();
    apply(&mut d, |d| {
        d.invoice_lines[1].quantity = dec!(-2);
        recompute(d);
    });
    let f = check(&d);
    let negatives: Vec<&str> = of(&f, "BR-KSA-F-04").iter().map(|f| f.path.as_str()).collect();
    assert_eq!(negatives, ["invoice_lines[1].quantity"], "{f:?}");
    // A negative discount on a positive price is its own mistake.
    let mut d = standard();
    apply(&mut d, |d| price_discount(d, false, dec!(10), dec!(-1)));
    assert_has(&check(&d), "BR-KSA-F-04", crate::validate::Severity::Error);
}

rule_test!(br_ksa_en16931_06_price_charge, "BR-KSA-EN16931-06", Error, standard(),
    pass: |d| price_discount(d, false, dec!(3.5), dec!(0.17)),
    fail: |d| price_discount(d, true, dec!(3.5), dec!(0.17)));
rule_test!(br_ksa_en16931_07_net_price, "BR-KSA-EN16931-07", Error, standard(),
    pass: |d| price_discount(d, false, dec!(3.50), dec!(0.17)),
    fail: |d| price_discount(d, false, dec!(3.50), dec!(0.16)), path: "invoice_lines[0].price.price_per_unit");
rule_test!(br_ksa_en16931_12_base_quantity, "BR-KSA-EN16931-12", Error, standard(),
    pass: |d| { d.invoice_lines[0].price.base_quantity = Some(dec!(0.5)); recompute(d) },
    fail: |d| d.invoice_lines[0].price.base_quantity = Some(dec!(0)), path: "invoice_lines[0].price.base_quantity");
rule_test!(br_ksa_en16931_11_line_net, "BR-KSA-EN16931-11", Warning, standard(),
    pass: |d| d.invoice_lines[0].amount += dec!(0.01),
    fail: |d| d.invoice_lines[0].amount += dec!(0.02), path: "invoice_lines[0].amount");
rule_test!(br_ksa_en16931_11_with_line_charges, "BR-KSA-EN16931-11", Warning, standard(),
    pass: |d| { charge(d, true, dec!(5), Some("FC"), "freight"); charge(d, false, dec!(1.5), None, "x"); recompute(d) },
    fail: |d| { charge(d, true, dec!(5), Some("FC"), "freight"); });
rule_test!(br_ksa_51_amount_with_vat, "BR-KSA-51", Warning, standard(),
    pass: |d| d.invoice_lines[1].tax_total.rounding_amount = dec!(120.750),
    fail: |d| d.invoice_lines[1].tax_total.rounding_amount -= dec!(0.01), path: "invoice_lines[1].tax_total.rounding_amount");
rule_test!(br_ksa_dec_03_line_vat_decimals, "BR-KSA-DEC-03", Warning, standard(),
    pass: |d| d.invoice_lines[0].tax_total.tax_amount = dec!(16.480),
    fail: |d| d.invoice_lines[0].tax_total.tax_amount = dec!(16.4835));
rule_test!(br_ksa_dec_04_line_gross_decimals, "BR-KSA-DEC-04", Warning, standard(),
    pass: |_| {}, fail: |d| d.invoice_lines[0].tax_total.rounding_amount = dec!(126.371));
rule_test!(br_dec_23_line_net_decimals, "BR-DEC-23", Warning, standard(),
    pass: |_| {}, fail: |d| d.invoice_lines[0].amount = dec!(109.891));
rule_test!(br_dec_24_line_discount_decimals, "BR-DEC-24", Warning, standard(),
    pass: |d| charge(d, false, dec!(1.10), None, "x"), fail: |d| charge(d, false, dec!(1.105), None, "x"));
rule_test!(br_dec_27_line_charge_decimals, "BR-DEC-27", Warning, standard(),
    pass: |d| charge(d, true, dec!(1.10), Some("FC"), "x"), fail: |d| charge(d, true, dec!(1.105), Some("FC"), "x"));
rule_test!(br_ksa_20_line_charge_code, "BR-KSA-20", Warning, standard(),
    pass: |d| charge(d, true, dec!(1), Some("ABK"), "x"), fail: |d| charge(d, true, dec!(1), Some(" "), "x"),
    path: "invoice_lines[0].allowance_charges[0].reason_code");
rule_test!(br_ksa_22_line_charge_reason, "BR-KSA-22", Warning, standard(),
    pass: |d| charge(d, false, dec!(1), None, ""), fail: |d| charge(d, true, dec!(1), Some("FC"), ""));
rule_test!(br_ksa_cl_06_line_charge_code_list, "BR-KSA-CL-06", Warning, standard(),
    pass: |d| charge(d, false, dec!(1), Some("95"), "x"), fail: |d| charge(d, true, dec!(1), Some("95"), "x"));

#[test]
fn the_line_net_formula_truncates_to_three_decimals() {
    // 3 × 1.0005 = 3.0015 → truncated 3.001 → 3.00; compute rounds half away: 3.00.
    let mut d = standard();
    d.invoice_lines[1].quantity = dec!(3);
    d.invoice_lines[1].price.price_per_unit = dec!(1.0005);
    recompute(&mut d);
    assert_eq!(d.invoice_lines[1].amount, dec!(3.00));
    assert!(check(&d).is_empty(), "{:?}", check(&d));
    // A base quantity divides the price: 10 × 7.5 / 3 = 25.
    d.invoice_lines[1].quantity = dec!(10);
    d.invoice_lines[1].price.price_per_unit = dec!(7.5);
    d.invoice_lines[1].price.base_quantity = Some(dec!(3));
    recompute(&mut d);
    assert_eq!(d.invoice_lines[1].amount, dec!(25.00));
    assert!(check(&d).is_empty(), "{:?}", check(&d));
}

#[test]
fn huge_amounts_are_a_finding_not_a_panic() {
    let mut d = standard();
    d.invoice_lines[0].quantity = Decimal::MAX;
    d.invoice_lines[0].price.price_per_unit = Decimal::MAX;
    d.invoice_lines[0].amount = Decimal::MAX;
    d.invoice_lines[0].tax_total.tax_amount = Decimal::MAX;
    d.legal_monitory_total.total_amount = Decimal::MAX;
    let f = check(&d);
    assert_has(&f, "INV-AMOUNT-TOO-LARGE", super::super::Severity::Error);
}

#[test]
fn line_ids_are_checked_alike_in_short_and_long_documents() {
    use super::SeenIds;
    let mut few = SeenIds::Few(Vec::new());
    let mut many = SeenIds::Many(std::collections::HashSet::new());
    for id in ["1", "2", "1", "3", "2", "x", "01", "x"] {
        assert_eq!(few.insert(id), many.insert(id), "{id}");
    }
    assert!(matches!(SeenIds::new(SeenIds::FEW), SeenIds::Few(_)));
    assert!(matches!(SeenIds::new(SeenIds::FEW + 1), SeenIds::Many(_)));
    // A long document's repeated id is found as a short one's is.
    let mut d = standard();
    let line = d.invoice_lines[0].clone();
    while d.invoice_lines.len() <= SeenIds::FEW + 3 {
        let mut l = line.clone();
        l.id = (d.invoice_lines.len() + 1).to_string();
        d.invoice_lines.push(l);
    }
    recompute(&mut d);
    assert_lacks(&check(&d), "INV-DUPLICATE-LINE-ID");
    let last = d.invoice_lines.len() - 1;
    d.invoice_lines[last].id = "2".into();
    let f = assert_has(&check(&d), "INV-DUPLICATE-LINE-ID", crate::validate::Severity::Warning);
    assert_eq!(f.path, format!("invoice_lines[{last}].id"));
}

mod net {
    use super::super::{formula_net, net_in_thousandths};
    use crate::model::{Line, LineAllowanceCharge};
    use proptest::prelude::*;
    use rust_decimal::Decimal;
    use rust_decimal_macros::dec;

    fn line_with(acs: &[(bool, Decimal)]) -> Line {
        let mut line = super::standard().invoice_lines[0].clone();
        line.allowance_charges = acs
            .iter()
            .map(|&(charge, amount)| LineAllowanceCharge {
                charge_indicator: charge,
                reason: "r".into(),
                reason_code: None,
                amount,
            })
            .collect();
        line
    }

    #[test]
    fn halfway_thousandths_round_as_the_formula_does() {
        for (gross, acs, want) in [
            (dec!(2.665), vec![], dec!(2.67)),
            (dec!(-2.665), vec![], dec!(-2.66)),
            (dec!(2.6649), vec![], dec!(2.66)),
            (dec!(-2.6641), vec![], dec!(-2.66)),
            (dec!(-2.6651), vec![], dec!(-2.67)),
            (dec!(10.0049999), vec![(true, dec!(0.001))], dec!(10.01)),
            (dec!(1), vec![(false, dec!(3.005))], dec!(-2.00)),
        ] {
            let line = line_with(&acs);
            assert_eq!(net_in_thousandths(&line, gross), Some(want), "{gross} {acs:?}");
            assert_eq!(formula_net(&line, gross), Some(want), "{gross} {acs:?}");
        }
    }

    #[test]
    fn amounts_beyond_exact_whole_thousandths_take_the_formula() {
        assert_eq!(net_in_thousandths(&line_with(&[]), dec!(1_000_000_000_000)), None);
        assert_eq!(net_in_thousandths(&line_with(&[(true, dec!(0.0001))]), dec!(1)), None);
        assert_eq!(
            net_in_thousandths(&line_with(&[(true, dec!(1_000_000_000_000))]), dec!(1)),
            None
        );
    }

    /// Up to 15 digits, of which up to `max_scale` decimals: every size of amount, most of them
    /// within the whole-thousandths range.
    fn decimal(max_scale: u32) -> impl Strategy<Value = Decimal> {
        (any::<i64>(), 1u32..=15, 0..=max_scale)
            .prop_map(|(m, digits, scale)| Decimal::new(m % 10i64.pow(digits), scale))
    }

    proptest! {
        /// Whole thousandths give what the formula gives, whenever they give anything.
        #[test]
        fn whole_thousandths_are_the_formula(
            gross in decimal(12),
            acs in proptest::collection::vec((any::<bool>(), decimal(4)), 0..4),
        ) {
            let line = line_with(&acs);
            match net_in_thousandths(&line, gross) {
                Some(net) => prop_assert_eq!(Some(net), formula_net(&line, gross)),
                // Only amounts past the range, or charges with more than 3 decimals, go without.
                None => prop_assert!(
                    gross.abs() >= dec!(999_999_999_999)
                        || acs.iter().any(|(_, a)| a.scale() > 3 || a.abs() >= dec!(1_000_000_000_000))
                ),
            }
        }
    }
}

#[test]
fn a_line_at_a_wrong_rate_or_of_no_quantity_is_one_finding_not_one_per_total_it_makes() {
    // A standard rate of 12 % on a line: the breakdown made from it is not said again.
    let mut d = standard();
    apply(&mut d, |d| {
        for l in &mut d.invoice_lines {
            l.item.classified_tax_category.percent = dec!(12);
        }
        recompute(d);
    });
    let f = check(&d);
    let paths: Vec<&str> = of(&f, "BR-KSA-84").iter().map(|f| f.path.as_str()).collect();
    assert!(
        !paths.is_empty() && paths.iter().all(|p| p.starts_with("invoice_lines[")),
        "{f:?}"
    );
    // A quantity of 0: nothing about the VAT breakdown or totals it leaves out.
    let mut d = standard();
    apply(&mut d, |d| {
        d.invoice_lines[1].quantity = dec!(0);
        recompute(d);
    });
    let f = check(&d);
    assert_has(&f, "INV-ZERO-QUANTITY", crate::validate::Severity::Error);
    let totals: Vec<&crate::validate::Finding> = f
        .iter()
        .filter(|f| f.path.starts_with("tax_total") || f.path.starts_with("legal_monitory_total"))
        .collect();
    assert!(totals.is_empty(), "{totals:?}");
}

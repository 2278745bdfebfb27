//! Document-level discounts and charges: amounts, decimals, percentages and reasons. Their VAT
//! categories are checked in `categories`, their sums in `totals`.

use super::Finding;
use super::lines::{charge_reasons, negative, too_large, two_decimals};
use super::rules::*;
use super::support::{allowance_path, format2, money, num, over_two_decimals};
use crate::model::Document;
use rust_decimal::Decimal;

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    for (i, ac) in doc.allowance_charge.0.iter().enumerate() {
        let p = |f: &str| allowance_path(doc, i, f);
        let what = if ac.charge_indicator { "charge" } else { "discount" };
        negative(out, || p("amount"), ac.amount, &format!("document {what}"));
        if let Some(base) = ac.base_amount {
            negative(out, || p("base_amount"), base, &format!("base amount of the {what}"));
        }
        let (amount_rule, base_rule) = if ac.charge_indicator {
            (BR_DEC_05, BR_DEC_06)
        } else {
            (BR_DEC_01, BR_DEC_02)
        };
        two_decimals(out, amount_rule, || p("amount"), ac.amount, &format!("document {what}"));
        if let Some(base) = ac.base_amount {
            two_decimals(
                out,
                base_rule,
                || p("base_amount"),
                base,
                &format!("base amount of the {what}"),
            );
        }
        if ac.charge_indicator {
            let rules = (BR_KSA_19, BR_KSA_21);
            charge_reasons(out, rules, &p, ac.reason_code.as_deref(), &ac.reason, "charge");
        } else if let Some(m) = ac.multiplier_factor
            && (m < Decimal::ZERO || m > Decimal::ONE_HUNDRED || over_two_decimals(m))
        {
            out.push(BR_KSA_DEC_01.at(
                p("multiplier_factor"),
                num(m),
                "The discount percentage must be a number from 0 to 100 with at most 2 decimals (no % sign).",
            ));
        }
        match (ac.base_amount, ac.multiplier_factor) {
            (None, Some(m)) => out.push(BR_KSA_EN16931_04.at(
                p("base_amount"),
                None,
                format!(
                    "The {what} has a percentage ({m}) but no base amount; give the amount the percentage applies to."
                ),
            )),
            (Some(b), None) => out.push(BR_KSA_EN16931_05.at(
                p("multiplier_factor"),
                None,
                format!(
                    "The {what} has a base amount ({b}) but no percentage; give the percentage or leave out the base."
                ),
            )),
            (Some(base), Some(m)) => match percentage_of(base, m) {
                Some(want) if format2(ac.amount) != format2(want) => out.push(BR_KSA_EN16931_03.at(
                    p("amount"),
                    num(ac.amount),
                    format!(
                        "The {what} is {} but {m}% of {} is {}; correct the amount or the percentage.",
                        money(ac.amount),
                        money(base),
                        money(want)
                    ),
                )),
                Some(_) => {}
                None => out.push(too_large(p("amount"))),
            },
            (None, None) => {}
        }
    }
}

/// `floor(base × percent ÷ 100 × 100 + 0.5) ÷ 100`, as BR-KSA-EN16931-03 computes it.
fn percentage_of(base: Decimal, percent: Decimal) -> Option<Decimal> {
    base.checked_mul(percent)?
        .checked_add(Decimal::new(5, 1))?
        .floor()
        .checked_div(Decimal::ONE_HUNDRED)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{rule_test, *};
    use crate::model::Document;
    use rust_decimal_macros::dec;

    fn make_charge(d: &mut Document) {
        let ac = &mut d.allowance_charge.0[0];
        ac.charge_indicator = true;
        ac.reason_code = Some("FC".into());
        ac.reason = "Freight".into();
    }

    rule_test!(br_ksa_f_04_negative_discount, "BR-KSA-F-04", Error, standard(),
        pass: |d| { d.allowance_charge.0[0].amount = dec!(0); recompute(d) },
        fail: |d| { d.allowance_charge.0[0].amount = dec!(-10); recompute(d) }, path: "allowance_charge.amount");
    rule_test!(br_dec_01_discount_decimals, "BR-DEC-01", Warning, standard(),
        pass: |d| d.allowance_charge.0[0].amount = dec!(10.000), fail: |d| d.allowance_charge.0[0].amount = dec!(10.001));
    rule_test!(br_dec_02_discount_base_decimals, "BR-DEC-02", Warning, standard(),
        pass: |d| d.allowance_charge.0[0].base_amount = Some(dec!(100.10)),
        fail: |d| d.allowance_charge.0[0].base_amount = Some(dec!(100.101)));
    rule_test!(br_dec_05_charge_decimals, "BR-DEC-05", Warning, standard(),
        pass: make_charge, fail: |d| { make_charge(d); d.allowance_charge.0[0].amount = dec!(0.125) });
    rule_test!(br_dec_06_charge_base_decimals, "BR-DEC-06", Warning, standard(),
        pass: make_charge, fail: |d| { make_charge(d); d.allowance_charge.0[0].base_amount = Some(dec!(0.125)) });
    rule_test!(br_ksa_19_charge_reason_code, "BR-KSA-19", Warning, standard(),
        pass: make_charge, fail: |d| { make_charge(d); d.allowance_charge.0[0].reason_code = None },
        path: "allowance_charge.reason_code");
    rule_test!(br_ksa_21_charge_reason, "BR-KSA-21", Warning, standard(),
        pass: |d| d.allowance_charge.0[0].reason = String::new(),
        fail: |d| { make_charge(d); d.allowance_charge.0[0].reason = " ".into() });
    rule_test!(br_ksa_cl_06_charge_code_list, "BR-KSA-CL-06", Warning, standard(),
        pass: make_charge, fail: |d| { make_charge(d); d.allowance_charge.0[0].reason_code = Some("FREIGHT".into()) });
    rule_test!(br_ksa_dec_01_percentage, "BR-KSA-DEC-01", Error, standard(),
        pass: |d| { let ac = &mut d.allowance_charge.0[0]; ac.multiplier_factor = Some(dec!(100.00)); ac.base_amount = Some(dec!(10)) },
        fail: |d| { let ac = &mut d.allowance_charge.0[0]; ac.multiplier_factor = Some(dec!(10.125)); ac.base_amount = Some(dec!(10)) });
    rule_test!(br_ksa_en16931_03_percentage_amount, "BR-KSA-EN16931-03", Warning, standard(),
        pass: |d| { let ac = &mut d.allowance_charge.0[0]; ac.multiplier_factor = Some(dec!(12.5)); ac.base_amount = Some(dec!(80)) },
        fail: |d| { let ac = &mut d.allowance_charge.0[0]; ac.multiplier_factor = Some(dec!(12.5)); ac.base_amount = Some(dec!(81)) });
    rule_test!(br_ksa_en16931_04_percentage_without_base, "BR-KSA-EN16931-04", Warning, standard(),
        pass: |_| {}, fail: |d| d.allowance_charge.0[0].multiplier_factor = Some(dec!(10)));
    rule_test!(br_ksa_en16931_05_base_without_percentage, "BR-KSA-EN16931-05", Warning, standard(),
        pass: |_| {}, fail: |d| d.allowance_charge.0[0].base_amount = Some(dec!(100)));

    #[test]
    fn percentages_round_half_up() {
        // 10.05 × 5% = 0.5025 → 0.50; 10.10 × 5% = 0.505 → 0.51.
        let mut d = standard();
        let ac = &mut d.allowance_charge.0[0];
        ac.multiplier_factor = Some(dec!(5));
        ac.base_amount = Some(dec!(10.10));
        ac.amount = dec!(0.51);
        recompute(&mut d);
        assert!(check(&d).is_empty(), "{:?}", check(&d));
    }
}

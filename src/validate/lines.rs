//! Lines: ids, quantities, item names, prices and price discounts, line discounts and charges,
//! and each line's own arithmetic (net amount, VAT, amount with VAT).

use super::codes;
use super::rules::*;
use super::support::{
    JsonPath, blank, format2, is_digit, line_path, money, num, over_two_decimals, sum, val, xpath_round,
};
use super::{Finding, RuleInfo};
use crate::model::{Document, Line};
use crate::text::Trimmed;
use rust_decimal::Decimal;
use std::collections::HashSet;

/// Below zero (a negative zero is not).
fn below_zero(d: Decimal) -> bool {
    d.is_sign_negative() && !d.is_zero()
}

/// A finding when an amount is negative (BR-KSA-F-04).
/// `path` is only spelled out when there is a finding.
pub(super) fn negative(out: &mut Vec<Finding>, path: impl FnOnce() -> String, amount: Decimal, what: &str) {
    if below_zero(amount) {
        out.push(BR_KSA_F_04.at(
            path(),
            num(amount),
            format!(
                "The {what} is negative ({amount}); amounts and quantities must not be negative. For a return or \
                 a price reduction issue a credit note with positive amounts."
            ),
        ));
    }
}

/// A finding when an amount has more than 2 decimals.
/// `path` is only spelled out when there is a finding.
pub(super) fn two_decimals(
    out: &mut Vec<Finding>,
    rule: RuleInfo,
    path: impl FnOnce() -> String,
    amount: Decimal,
    what: &str,
) {
    if over_two_decimals(amount) {
        out.push(rule.at(
            path(),
            num(amount),
            format!("The {what} {amount} has more than 2 decimals; round it to 2 decimals (halves up)."),
        ));
    }
}

/// A finding for arithmetic that does not fit exact decimals.
pub(super) fn too_large(path: String) -> Finding {
    INV_AMOUNT_TOO_LARGE.at(
        path,
        None,
        "The amounts here are too large to compute exactly; check the quantities and prices in the export.",
    )
}

/// Line ids seen so far: a short list for the usual few lines (no hashing), a set past that.
enum SeenIds<'a> {
    Few(Vec<&'a str>),
    Many(HashSet<&'a str>),
}

impl<'a> SeenIds<'a> {
    /// Lines a document may have before the list becomes a set.
    const FEW: usize = 16;

    fn new(lines: usize) -> Self {
        if lines <= Self::FEW {
            SeenIds::Few(Vec::with_capacity(lines))
        } else {
            SeenIds::Many(HashSet::with_capacity(lines))
        }
    }

    /// False when `id` was seen before.
    fn insert(&mut self, id: &'a str) -> bool {
        match self {
            SeenIds::Few(list) if list.contains(&id) => false,
            SeenIds::Few(list) => {
                list.push(id);
                true
            }
            SeenIds::Many(set) => set.insert(id),
        }
    }
}

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    let mut ids = SeenIds::new(doc.invoice_lines.len());
    for (i, line) in doc.invoice_lines.iter().enumerate() {
        let p = |f: &str| line_path(i, f);
        if blank(&line.id) {
            out.push(BR_21.at(
                p("id"),
                val(&line.id),
                "The line has no id; number the lines 1, 2, 3, ...",
            ));
        } else if !ids.insert(line.id.trimmed()) {
            out.push(INV_DUPLICATE_LINE_ID.at(
                p("id"),
                val(&line.id),
                format!(
                    "Line id {:?} is used by an earlier line; give every line its own id.",
                    line.id
                ),
            ));
        }
        if line.quantity.is_zero() {
            out.push(INV_ZERO_QUANTITY.at(
                p("quantity"),
                num(line.quantity),
                "The quantity is 0; remove the line or enter the quantity supplied.",
            ));
        }
        item_name(out, line, i);
        price(out, line, i);
        // One negative figure is said once: a net price below a negative gross price, or a VAT
        // amount under a negative quantity or price, only follows from it.
        let gross_negative = line
            .price
            .allowance_charge
            .as_ref()
            .is_some_and(|pac| below_zero(pac.base_amount));
        negative(out, || p("quantity"), line.quantity, "quantity");
        if !gross_negative {
            negative(
                out,
                || p("price.price_per_unit"),
                line.price.price_per_unit,
                "unit price",
            );
        }
        let follows = gross_negative || below_zero(line.quantity) || below_zero(line.price.price_per_unit);
        // A line discount larger than the line: its net amount is negative (the authority's
        // BR-KSA-F-04 holds for InvoiceLine/LineExtensionAmount too), though every figure it
        // comes from is not.
        if !follows {
            negative(
                out,
                || p("amount"),
                line.amount,
                "line net amount (its price times its quantity, less its discount)",
            );
        }
        if !(follows || below_zero(line.amount)) {
            negative(
                out,
                || p("tax_total.tax_amount"),
                line.tax_total.tax_amount,
                "line VAT amount",
            );
        }
        two_decimals(out, BR_DEC_23, || p("amount"), line.amount, "line net amount");
        two_decimals(
            out,
            BR_KSA_DEC_03,
            || p("tax_total.tax_amount"),
            line.tax_total.tax_amount,
            "line VAT amount",
        );
        let with_vat = line.tax_total.rounding_amount;
        two_decimals(
            out,
            BR_KSA_DEC_04,
            || p("tax_total.rounding_amount"),
            with_vat,
            "line amount with VAT",
        );
        line_charges(out, line, i);
        line_net(out, line, i);
        match line.tax_total.tax_amount.checked_add(line.amount) {
            Some(s) if format2(with_vat) != format2(xpath_round(s, 2)) => out.push(BR_KSA_51.at(
                p("tax_total.rounding_amount"),
                num(with_vat),
                format!(
                    "The line amount with VAT is {} but net {} + VAT {} = {}; recompute the line.",
                    money(with_vat),
                    money(line.amount),
                    money(line.tax_total.tax_amount),
                    money(xpath_round(s, 2))
                ),
            )),
            Some(_) => {}
            None => out.push(too_large(p("tax_total.rounding_amount"))),
        }
    }
}

fn item_name(out: &mut Vec<Finding>, line: &Line, i: usize) {
    let name = &line.item.name;
    let path = JsonPath::line(i, "item.name");
    if blank(name) {
        out.push(INV_EMPTY_ITEM_NAME.at(
            path,
            val(name),
            "The line has no item name; describe what was supplied (for example \"Pencil HB\").",
        ));
    } else if name.chars().all(is_digit) {
        out.push(BR_KSA_F_C_01.at(
            path,
            val(name),
            "The item name is only digits; describe the item in words (a code alone is not a clear description).",
        ));
    }
}

fn price(out: &mut Vec<Finding>, line: &Line, i: usize) {
    let p = |f: &str| line_path(i, f);
    if let Some(base) = line.price.base_quantity
        && base <= Decimal::ZERO
    {
        out.push(BR_KSA_EN16931_12.at(
            p("price.base_quantity"),
            num(base),
            "The base quantity the price is for must be above zero; use 1 unless the price is per several units.",
        ));
    }
    let Some(pac) = &line.price.allowance_charge else {
        return;
    };
    if pac.charge_indicator {
        out.push(BR_KSA_EN16931_06.at(
            p("price.allowance_charge.charge_indicator"),
            val("true"),
            "A charge on the unit price is not allowed; include it in the price or add it as a line charge.",
        ));
    }
    // A discount below a negative gross price follows from it (a percentage of it).
    if !below_zero(pac.base_amount) {
        negative(out, || p("price.allowance_charge.amount"), pac.amount, "price discount");
    }
    negative(
        out,
        || p("price.allowance_charge.base_amount"),
        pac.base_amount,
        "gross price",
    );
    match pac.base_amount.checked_sub(pac.amount) {
        Some(net) if net != line.price.price_per_unit => out.push(BR_KSA_EN16931_07.at(
            p("price.price_per_unit"),
            num(line.price.price_per_unit),
            format!(
                "The unit price {} is not the gross price {} minus the price discount {} (= {net}); give the net \
                 price after the discount.",
                line.price.price_per_unit, pac.base_amount, pac.amount
            ),
        )),
        Some(_) => {}
        None => out.push(too_large(p("price.price_per_unit"))),
    }
}

/// The reason code (UNTDID 7161) and reason text of a charge: `rules` are the rules for a missing
/// code and a missing text (BR-KSA-19/21 on the document, BR-KSA-20/22 on lines).
pub(super) fn charge_reasons(
    out: &mut Vec<Finding>,
    rules: (RuleInfo, RuleInfo),
    path: &dyn Fn(&str) -> String,
    code: Option<&str>,
    reason: &str,
    what: &str,
) {
    let code = code.unwrap_or("").trimmed();
    if code.is_empty() {
        out.push(rules.0.at(
            path("reason_code"),
            None,
            format!("The {what} has no reason code; give a UNTDID 7161 code (for example FC for freight)."),
        ));
    } else if !codes::is_charge_reason(code) {
        out.push(BR_KSA_CL_06.at(
            path("reason_code"),
            val(code),
            format!("The charge reason code {code:?} is not a UNTDID 7161 code; use one such as FC (freight)."),
        ));
    }
    if blank(reason) {
        out.push(rules.1.at(
            path("reason"),
            val(reason),
            format!("The {what} has no reason; say what it is for."),
        ));
    }
}

fn line_charges(out: &mut Vec<Finding>, line: &Line, i: usize) {
    for (j, ac) in line.allowance_charges.iter().enumerate() {
        let p = |f: &str| line_path(i, &format!("allowance_charges[{j}].{f}"));
        if ac.charge_indicator {
            negative(out, || p("amount"), ac.amount, "line charge");
            two_decimals(out, BR_DEC_27, || p("amount"), ac.amount, "line charge");
            let codes = (BR_KSA_20, BR_KSA_22);
            charge_reasons(out, codes, &p, ac.reason_code.as_deref(), &ac.reason, "line charge");
        } else {
            negative(out, || p("amount"), ac.amount, "line discount");
            two_decimals(out, BR_DEC_24, || p("amount"), ac.amount, "line discount");
        }
    }
}

/// BR-KSA-EN16931-11: the authority's formula, truncating quantity × price to 3 decimals,
/// adding charges, subtracting discounts, rounding half up, and accepting ±0.01.
fn expected_net(line: &Line) -> Option<Decimal> {
    let per_unit = match line.price.base_quantity {
        Some(base) => line.price.price_per_unit.checked_div(base)?,
        None => line.price.price_per_unit,
    };
    let gross = line.quantity.checked_mul(per_unit)?;
    net_in_thousandths(line, gross).or_else(|| formula_net(line, gross))
}

/// Below this many thousandths (10¹² in money), the formula's decimals are all exact, and
/// [`net_in_thousandths`] computes the same value in whole numbers.
const EXACT_THOUSANDTHS: i128 = 1_000_000_000_000_000;

/// A decimal with at most 3 decimals as a whole number of thousandths, when below
/// [`EXACT_THOUSANDTHS`].
fn thousandths(d: Decimal) -> Option<i128> {
    let t = d.mantissa().checked_mul(10i128.pow(3u32.checked_sub(d.scale())?))?;
    (t.abs() < EXACT_THOUSANDTHS).then_some(t)
}

/// [`formula_net`] in whole thousandths, when the amounts allow it (charges and discounts with
/// at most 3 decimals, everything below [`EXACT_THOUSANDTHS`]; `None` otherwise). The formula's
/// "× 1000, floor, ÷ 10, + 10⁻¹¹, ÷ 100" is the floor `n` in thousandths plus 10⁻¹³; with
/// the line's charges and discounts added, it is never halfway between two cents, so it
/// rounds to the nearer: up when the last digit of `n` is 5 or more (from below for a
/// negative `n`, which the 10⁻¹³ moves towards zero).
fn net_in_thousandths(line: &Line, gross: Decimal) -> Option<Decimal> {
    let floor = match gross.scale() {
        s @ 0..=3 => gross.mantissa().checked_mul(10i128.pow(3 - s))?,
        s => gross.mantissa().div_euclid(10i128.pow(s - 3)),
    };
    if floor.abs() >= EXACT_THOUSANDTHS {
        return None;
    }
    let mut n = floor;
    for ac in &line.allowance_charges {
        let t = thousandths(ac.amount)?;
        n += if ac.charge_indicator { t } else { -t };
    }
    let last = n.rem_euclid(10);
    let cents = (n - last) / 10 + i128::from(last >= 5);
    Some(Decimal::from_i128_with_scale(cents, 2))
}

/// The authority's formula in decimals, for any amounts (`None` on overflow).
fn formula_net(line: &Line, gross: Decimal) -> Option<Decimal> {
    let truncated = gross
        .checked_mul(Decimal::ONE_THOUSAND)?
        .floor()
        .checked_div(Decimal::TEN)?
        .checked_add(Decimal::new(1, 11))?
        .checked_div(Decimal::ONE_HUNDRED)?;
    let charges = sum(line
        .allowance_charges
        .iter()
        .filter(|a| a.charge_indicator)
        .map(|a| a.amount))?;
    let discounts = sum(line
        .allowance_charges
        .iter()
        .filter(|a| !a.charge_indicator)
        .map(|a| a.amount))?;
    Some(xpath_round(truncated.checked_add(charges)?.checked_sub(discounts)?, 2))
}

fn line_net(out: &mut Vec<Finding>, line: &Line, i: usize) {
    if line.price.base_quantity.is_some_and(|b| b <= Decimal::ZERO) {
        return;
    }
    let cent = Decimal::new(1, 2);
    let Some(want) = expected_net(line) else {
        out.push(too_large(line_path(i, "amount")));
        return;
    };
    let ok = [Some(want), want.checked_add(cent), want.checked_sub(cent)].contains(&Some(line.amount));
    if !ok {
        let extra = if line.allowance_charges.is_empty() {
            String::new()
        } else {
            " with its line discounts and charges".to_string()
        };
        out.push(BR_KSA_EN16931_11.at(
            line_path(i, "amount"),
            num(line.amount),
            format!(
                "The line net amount {} does not match quantity {} × unit price {}{extra} = {}; recompute the line, \
                 and check that the unit price is without VAT.",
                money(line.amount),
                line.quantity.normalize(),
                line.price.price_per_unit.normalize(),
                money(want)
            ),
        ));
    }
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;

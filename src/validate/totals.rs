//! The document's totals and VAT breakdown, checked against each other with the authority's
//! formulas and tolerances (zatca.md §3.1, §3.2): BR-CO-10..18, BR-S/Z/E/O-08/09, decimals and
//! signs of every total.
//!
//! A `None` sum of discounts or charges (BT-107, BT-108; extensions of the API body) means "not
//! stated": the authority's XML writer derives it, so BR-CO-11/12 only check stated sums.

use super::Finding;
use super::lines::{negative, too_large, two_decimals};
use super::rules::*;
use super::support::{JsonPath, money, num, pct, subtotals, sum, xpath_round};
use crate::compute::{self, ComputeError};
use crate::model::{Document, TaxSubtotal};
use crate::text::Trimmed;
use rust_decimal::{Decimal, RoundingStrategy};

/// `computed` is [`compute::totals`] of `doc` (computed once for all the rules).
pub(super) fn check(doc: &Document, computed: &Result<compute::Totals, ComputeError>, out: &mut Vec<Finding>) {
    if let Err(ComputeError::Overflow { path }) = computed {
        out.push(too_large(path.clone()));
    }
    let subs = subtotals(doc);
    if subs.is_empty() {
        out.push(BR_CO_18.at(
            "tax_total",
            None,
            "The document has no VAT breakdown; compute the totals before sending.",
        ));
    }
    for (path, s) in &subs {
        breakdown(doc, out, path, s);
    }
    category_sums(doc, out, &subs);
    tax_total(doc, out, &subs);
    monetary_total(doc, out, &subs);
}

/// `round(half-even(taxable × rate ÷ 100) ± lines × 0.01)`: the bounds of BR-CO-17 and BR-S-09.
fn vat_bounds(s: &TaxSubtotal, lines: usize) -> Option<(Decimal, Decimal, Decimal)> {
    let should = s
        .taxable_amount
        .checked_mul(s.tax_category.percent)?
        .checked_div(Decimal::ONE_HUNDRED)?
        .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
    let tolerance = Decimal::new(i64::try_from(lines).ok()?, 2);
    let lower = xpath_round(should.checked_sub(tolerance)?, 2);
    let upper = xpath_round(should.checked_add(tolerance)?, 2);
    Some((should, lower, upper))
}

fn breakdown(doc: &Document, out: &mut Vec<Finding>, path: &JsonPath, s: &TaxSubtotal) {
    let at = |f: &str| format!("{path}.{f}");
    let cat = s.tax_category.id.trimmed();
    two_decimals(
        out,
        BR_DEC_19,
        || at("taxable_amount"),
        s.taxable_amount,
        "taxable amount",
    );
    two_decimals(
        out,
        BR_DEC_20,
        || at("tax_amount"),
        s.tax_amount,
        "VAT amount of the breakdown",
    );
    if cat != "O" {
        negative(out, || at("taxable_amount"), s.taxable_amount, "taxable amount");
    }
    negative(out, || at("tax_amount"), s.tax_amount, "VAT amount of the breakdown");
    match vat_bounds(s, doc.invoice_lines.len()) {
        Some((should, lower, upper)) if !(lower..=upper).contains(&s.tax_amount) => {
            let msg = format!(
                "The VAT of the {cat} {}% breakdown is {} but {} × {}% = {}; compute VAT on the category total \
                 and round it once, to 2 decimals.",
                pct(s.tax_category.percent),
                money(s.tax_amount),
                money(s.taxable_amount),
                pct(s.tax_category.percent),
                money(should)
            );
            out.push(BR_CO_17.at(at("tax_amount"), num(s.tax_amount), msg.clone()));
            if cat == "S" {
                out.push(BR_S_09.at(at("tax_amount"), num(s.tax_amount), msg));
            }
        }
        Some(_) => {}
        None => out.push(too_large(at("tax_amount"))),
    }
    let zero_rule = match cat {
        "Z" => Some(BR_Z_09),
        "E" => Some(BR_E_09),
        "O" => Some(BR_O_09),
        _ => None,
    };
    if let Some(rule) = zero_rule
        && !s.tax_amount.is_zero()
    {
        out.push(rule.at(
            at("tax_amount"),
            num(s.tax_amount),
            format!(
                "A {cat} breakdown carries no VAT; its VAT amount must be 0, not {}.",
                money(s.tax_amount)
            ),
        ));
    }
}

/// Σ line nets + Σ charges − Σ discounts of one category, and whether anything has that category.
fn category_basis(doc: &Document, cat: &str) -> Option<(Decimal, bool)> {
    let lines = doc
        .invoice_lines
        .iter()
        .filter(|l| l.item.classified_tax_category.id.trimmed() == cat);
    let acs = doc
        .allowance_charge
        .0
        .iter()
        .filter(|a| a.tax_category.id.trimmed() == cat);
    let used = lines.clone().next().is_some() || acs.clone().next().is_some();
    let mut total = sum(lines.map(|l| l.amount))?;
    for a in acs {
        total = if a.charge_indicator {
            total.checked_add(a.amount)?
        } else {
            total.checked_sub(a.amount)?
        };
    }
    Some((total, used))
}

fn category_sums(doc: &Document, out: &mut Vec<Finding>, subs: &[(JsonPath, &TaxSubtotal)]) {
    for (cat, rule) in [("S", BR_S_08), ("Z", BR_Z_08), ("E", BR_E_08), ("O", BR_O_08)] {
        let mine: Vec<&(JsonPath, &TaxSubtotal)> = subs
            .iter()
            .filter(|(_, s)| s.tax_category.id.trimmed() == cat)
            .collect();
        let Some((first_path, _)) = mine.first() else {
            continue;
        };
        let Some((basis, used)) = category_basis(doc, cat) else {
            out.push(too_large(format!("{first_path}.taxable_amount")));
            continue;
        };
        // BR-S-08 compares the sum of all S breakdowns; Z, E and O compare each breakdown.
        let stated: Vec<(&JsonPath, Decimal)> = if cat == "S" {
            match sum(mine.iter().map(|(_, s)| s.taxable_amount)) {
                Some(total) => vec![(first_path, total)],
                None => {
                    out.push(too_large(format!("{first_path}.taxable_amount")));
                    continue;
                }
            }
        } else {
            mine.iter().map(|(p, s)| (p, s.taxable_amount)).collect()
        };
        for (path, taxable) in stated {
            if !used || taxable != basis {
                let msg = if used {
                    format!(
                        "The taxable amount of category {cat} is {} but its lines, discounts and charges add up to {}; \
                         recompute the VAT breakdown.",
                        money(taxable),
                        money(basis)
                    )
                } else {
                    format!(
                        "There is a {cat} breakdown but no line, discount or charge of category {cat}; recompute the VAT breakdown."
                    )
                };
                out.push(rule.at(format!("{path}.taxable_amount"), num(taxable), msg));
            }
        }
    }
}

fn tax_total(doc: &Document, out: &mut Vec<Finding>, subs: &[(JsonPath, &TaxSubtotal)]) {
    let tt = &doc.tax_total;
    two_decimals(
        out,
        BR_DEC_13,
        || "tax_total.tax_amount".into(),
        tt.tax_amount,
        "VAT total",
    );
    negative(out, || "tax_total.tax_amount".into(), tt.tax_amount, "VAT total");
    if let Some(sar) = tt.tax_amount_in_tax_currency {
        let path = "tax_total.tax_amount_in_tax_currency".to_string();
        two_decimals(out, BR_DEC_15, || path.clone(), sar, "VAT total in SAR");
        negative(out, || path, sar, "VAT total in SAR");
    }
    if subs.is_empty() {
        return;
    }
    match sum(subs.iter().map(|(_, s)| s.tax_amount)) {
        Some(vat) if tt.tax_amount != xpath_round(vat, 2) => out.push(BR_CO_14.at(
            "tax_total.tax_amount",
            num(tt.tax_amount),
            format!(
                "The VAT total is {} but the VAT breakdown adds up to {}; recompute the totals.",
                money(tt.tax_amount),
                money(xpath_round(vat, 2))
            ),
        )),
        Some(_) => {}
        None => out.push(too_large("tax_total.tax_amount".into())),
    }
}

/// A finding of `rule` at `field` when `stated` differs from `want` (`None`: overflow).
fn compare(
    out: &mut Vec<Finding>,
    rule: super::RuleInfo,
    field: &'static str,
    stated: Decimal,
    want: Option<Decimal>,
    how: &str,
) {
    let path = JsonPath::of("legal_monitory_total", field);
    match want {
        Some(w) if stated != w => out.push(rule.at(
            path,
            num(stated),
            format!(
                "This total is {} but {how} = {}; recompute the totals.",
                money(stated),
                money(w)
            ),
        )),
        Some(_) => {}
        None => out.push(too_large(path.into())),
    }
}

/// `round2(lines + charges − discounts)`.
fn net_of(lines: Option<Decimal>, charges: Option<Decimal>, discounts: Option<Decimal>) -> Option<Decimal> {
    Some(xpath_round(lines?.checked_add(charges?)?.checked_sub(discounts?)?, 2))
}

fn monetary_total(doc: &Document, out: &mut Vec<Finding>, subs: &[(JsonPath, &TaxSubtotal)]) {
    let t = &doc.legal_monitory_total;
    let p = |f: &str| format!("legal_monitory_total.{f}");
    let all = [
        (
            BR_DEC_09,
            "total_amount",
            Some(t.total_amount),
            "sum of line net amounts",
            true,
        ),
        (
            BR_DEC_10,
            "allowance_total_amount",
            t.allowance_total_amount,
            "sum of discounts",
            true,
        ),
        (
            BR_DEC_11,
            "charge_total_amount",
            t.charge_total_amount,
            "sum of charges",
            true,
        ),
        (
            BR_DEC_12,
            "tax_exclusive_amount",
            Some(t.tax_exclusive_amount),
            "total without VAT",
            true,
        ),
        (
            BR_DEC_14,
            "tax_inclusive_amount",
            Some(t.tax_inclusive_amount),
            "total with VAT",
            true,
        ),
        (BR_DEC_16, "prepaid_amount", t.prepaid_amount, "prepaid amount", true),
        (
            BR_DEC_17,
            "payable_rounding_amount",
            t.payable_rounding_amount,
            "rounding amount",
            false,
        ),
        (BR_DEC_18, "payable_amount", Some(t.payable_amount), "amount due", false),
    ];
    for (rule, field, value, what, signed) in all {
        if let Some(v) = value {
            two_decimals(out, rule, || p(field), v, what);
            if signed {
                negative(out, || p(field), v, what);
            }
        }
    }
    let acs = &doc.allowance_charge.0;
    let lines = sum(doc.invoice_lines.iter().map(|l| l.amount));
    let discounts = sum(acs.iter().filter(|a| !a.charge_indicator).map(|a| a.amount)).map(|v| xpath_round(v, 2));
    let charges = sum(acs.iter().filter(|a| a.charge_indicator).map(|a| a.amount)).map(|v| xpath_round(v, 2));
    compare(
        out,
        BR_CO_10,
        "total_amount",
        t.total_amount,
        lines.map(|v| xpath_round(v, 2)),
        "the lines' net amounts add up to",
    );
    if let Some(a) = t.allowance_total_amount {
        compare(
            out,
            BR_CO_11,
            "allowance_total_amount",
            a,
            discounts,
            "the document discounts add up to",
        );
    }
    if let Some(c) = t.charge_total_amount {
        compare(
            out,
            BR_CO_12,
            "charge_total_amount",
            c,
            charges,
            "the document charges add up to",
        );
    }
    let exclusive = if acs.is_empty() && t.allowance_total_amount.is_none() && t.charge_total_amount.is_none() {
        Some(t.total_amount)
    } else {
        let allow = t.allowance_total_amount.or(discounts);
        let charge = t.charge_total_amount.or(charges);
        net_of(lines, charge, allow)
    };
    let how = "line net amounts − discounts + charges";
    compare(
        out,
        BR_CO_13,
        "tax_exclusive_amount",
        t.tax_exclusive_amount,
        exclusive,
        how,
    );
    if !subs.is_empty() {
        let vat = sum(subs.iter().map(|(_, s)| s.tax_amount));
        let want = vat
            .and_then(|v| t.tax_exclusive_amount.checked_add(v))
            .map(|v| xpath_round(v, 2));
        let how = "total without VAT + the breakdown's VAT";
        compare(out, BR_CO_15, "tax_inclusive_amount", t.tax_inclusive_amount, want, how);
    }
    let prepaid = t.prepaid_amount.unwrap_or_default();
    let rounding = t.payable_rounding_amount.unwrap_or_default();
    let due = t.tax_inclusive_amount.checked_sub(prepaid).map(|v| xpath_round(v, 2));
    let paid = t.payable_amount.checked_sub(rounding).map(|v| xpath_round(v, 2));
    match (due, paid) {
        (Some(due), Some(paid)) if due != paid => {
            let want = due.checked_add(rounding).unwrap_or(due);
            out.push(BR_CO_16.at(
                p("payable_amount"),
                num(t.payable_amount),
                format!(
                    "The amount due is {} but total with VAT − prepaid + rounding = {}; recompute the totals.",
                    money(t.payable_amount),
                    money(want)
                ),
            ));
        }
        (Some(_), Some(_)) => {}
        _ => out.push(too_large(p("payable_amount"))),
    }
}

#[cfg(test)]
#[path = "totals_tests.rs"]
mod tests;

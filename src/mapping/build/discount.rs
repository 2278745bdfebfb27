//! A discount on the whole document (`discount_amount`, `discount_percent`) into document-level
//! allowances (zatca.md §1.8): one per VAT category of the lines (BR-32: each allowance has one
//! category), the discount split across the categories in proportion to their lines' totals
//! ([`split_in_proportion`]), reason `Discount`, code 95. A percent applies to the lines' net
//! total; an amount is written as the prices are, so with VAT when they include it (each
//! category's part is then taken back to its net). A discount given after VAT
//! (`discount_before_tax` false) cannot be issued as such: VAT is due on the amount after the
//! discount (BR-S-08: the taxable amount is the lines' less the allowances), so the document is
//! invalid, with an error on that cell saying what to do.

use super::super::Issue;
use super::super::apply::Bound;
use super::super::fields::{FieldId, fid};
use crate::compute::{line_amounts, round2, split_in_proportion};
use crate::ingest::Row;
use crate::model::{AllowanceCharge, Code, Line, TaxCategory};
use rust_decimal::Decimal;

/// The code of a discount on the whole document that cannot be issued.
pub const DISCOUNT_CODE: &str = "INV-MAP-DISCOUNT";

/// The reason of the allowances a discount on the whole document makes.
const DISCOUNT_REASON: &str = "Discount";

/// The UNTDID 5189 code of a discount.
const DISCOUNT_REASON_CODE: &str = "95";

/// A document's discount fields, as read from its reference row.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct DocDiscount {
    pub(super) percent: Option<Decimal>,
    pub(super) amount: Option<Decimal>,
    pub(super) before_tax: Option<bool>,
}

/// What a document's discount makes.
#[derive(Debug)]
pub(super) enum Made {
    /// No discount (none mapped, blank or zero): no allowance.
    None,
    /// The allowances to issue.
    Allowances(Vec<AllowanceCharge>),
    /// The discount cannot be issued: an error says why, and the amounts computed without it are
    /// not the document's.
    Refused,
}

/// One VAT breakdown of the lines: its category, the lines' net total and their total with VAT.
struct Category {
    category: TaxCategory,
    net: Decimal,
    with_vat: Decimal,
}

/// The lines' totals per VAT breakdown, in order of first appearance. `None` when a line's
/// amounts cannot be computed (computing the document says so).
fn categories(lines: &[Line]) -> Option<Vec<Category>> {
    let mut out: Vec<Category> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let a = line_amounts(line, i).ok()?;
        let cat = &line.item.classified_tax_category;
        match out.iter_mut().find(|c| c.category.same_breakdown(cat)) {
            Some(c) => {
                c.net = c.net.checked_add(a.net)?;
                c.with_vat = c.with_vat.checked_add(a.with_vat)?;
            }
            None => out.push(Category {
                category: cat.clone(),
                net: a.net,
                with_vat: a.with_vat,
            }),
        }
    }
    Some(out)
}

/// An amount as people read it: at least 2 decimals.
fn money(d: Decimal) -> String {
    let n = d.normalize();
    if n.scale() < 2 {
        format!("{n:.2}")
    } else {
        n.to_string()
    }
}

/// Where a field's issue is said: its column, and its cell's text in the reference row.
fn cell(bound: &Bound, f: FieldId, row: &Row) -> (Option<String>, Option<String>) {
    let label = bound.source_label(f);
    (label.map(str::to_string), label.and_then(|l| bound.cell_text(row, l)))
}

/// The allowances of a document's discount. `inclusive`: its prices include VAT; `turned`: its
/// negative amounts were made positive (a credit note written negative); `at`: the reference
/// row the document fields are read from, where an issue is said.
pub(super) fn allowances(
    issues: &mut Vec<(Option<usize>, Issue)>,
    bound: &Bound,
    d: DocDiscount,
    lines: &[Line],
    (inclusive, turned): (bool, bool),
    currency: &Code,
    at: (usize, &Row),
) -> Made {
    let (idx, row) = at;
    let sign = |v: Decimal| if turned { v.abs() } else { v };
    let amount = d.amount.map(sign).filter(|a| !a.is_zero());
    let percent = d.percent.map(sign).filter(|p| !p.is_zero());
    if amount.is_none() && percent.is_none() {
        return Made::None;
    }
    let mut refuse = |f: FieldId, message: String| {
        let (column, value) = cell(bound, f, row);
        issues.push((Some(idx), Issue::error(DISCOUNT_CODE, column, value, message)));
        Made::Refused
    };
    let (field, shown) = match (amount, percent) {
        (Some(a), _) => (fid!("discount_amount"), money(a)),
        (None, Some(p)) => (fid!("discount_percent"), format!("{}%", p.normalize())),
        (None, None) => return Made::None,
    };
    if let Some(a) = amount.filter(|a| *a < Decimal::ZERO) {
        return refuse(
            fid!("discount_amount"),
            format!(
                "a discount on the whole document of {} is negative: write the discount as a positive amount \
                 (a charge cannot be read from this column), and export again",
                money(a)
            ),
        );
    }
    if let Some(a) = amount.filter(|a| round2(*a) != *a) {
        return refuse(
            fid!("discount_amount"),
            format!(
                "a discount on the whole document of {} has more than 2 decimals: an amount is issued in whole \
                 cents; correct it in the ERP and export again",
                a.normalize()
            ),
        );
    }
    if amount.is_none()
        && let Some(p) = percent.filter(|p| *p < Decimal::ZERO || *p > Decimal::ONE_HUNDRED)
    {
        return refuse(
            fid!("discount_percent"),
            format!(
                "a discount on the whole document of {}% is not a percentage from 0 to 100: correct it in the ERP and \
                 export again",
                p.normalize()
            ),
        );
    }
    if d.before_tax == Some(false) {
        return refuse(
            fid!("discount_before_tax"),
            format!(
                "this document's discount on the whole document ({shown}) is given after tax, on the total with VAT; \
                 an e-invoice cannot carry such a discount: VAT is due on the amount after the discount, so the VAT \
                 and total issued would not be the ERP's. Give the discount before tax in the ERP (Zoho Books: \
                 discount before tax, in the invoice's or the organisation's settings), or as discounts on the \
                 lines, and export again; the document is not issued until then"
            ),
        );
    }
    let Some(cats) = categories(lines) else {
        return Made::None;
    };
    let hundred = Decimal::ONE_HUNDRED;
    // The discount in the terms it is written in, and the bases it is split by.
    let (total, bases): (Option<Decimal>, Vec<Decimal>) = match amount {
        Some(a) if inclusive => (Some(a), cats.iter().map(|c| c.with_vat).collect()),
        Some(a) => (Some(a), cats.iter().map(|c| c.net).collect()),
        None => {
            let net: Option<Decimal> = cats.iter().try_fold(Decimal::ZERO, |s, c| s.checked_add(c.net));
            let total = net
                .zip(percent)
                .and_then(|(n, p)| n.checked_mul(p)?.checked_div(hundred))
                .map(round2);
            (total, cats.iter().map(|c| c.net).collect())
        }
    };
    let lines_total = bases.iter().try_fold(Decimal::ZERO, |s, b| s.checked_add(*b));
    let (Some(total), Some(lines_total)) = (total, lines_total) else {
        return refuse(
            field,
            format!("the discount on the whole document ({shown}) is too large to compute exactly"),
        );
    };
    if total > lines_total || bases.iter().any(|b| *b < Decimal::ZERO) {
        let with = if inclusive { "with VAT" } else { "without VAT" };
        return refuse(
            field,
            format!(
                "the discount on the whole document ({}) is more than its lines' total {with} ({}): a document \
                 cannot be discounted below zero; check the discount and the lines in the ERP",
                money(total),
                money(lines_total)
            ),
        );
    }
    let Some(parts) = split_in_proportion(total, &bases) else {
        return refuse(
            field,
            format!("the discount on the whole document ({shown}) is too large to compute exactly"),
        );
    };
    let mut out = Vec::with_capacity(cats.len());
    for (c, part) in cats.into_iter().zip(parts) {
        // With VAT when the prices include it: the category's part without its VAT.
        let amount = if inclusive && amount.is_some() {
            let divisor = hundred
                .checked_add(c.category.percent)
                .and_then(|d| d.checked_div(hundred));
            match divisor.and_then(|d| part.checked_div(d)) {
                Some(v) => round2(v),
                None => {
                    return refuse(
                        field,
                        format!("the discount on the whole document ({shown}) is too large to compute exactly"),
                    );
                }
            }
        } else {
            part
        };
        if amount.is_zero() {
            continue;
        }
        // The percentage and its base, where the part is that percentage of the category's net
        // (BR-KSA-EN16931-03; at most 2 decimals, BR-KSA-DEC-01).
        let of = percent.filter(|p| {
            p.normalize().scale() <= 2
                && c.net
                    .checked_mul(*p)
                    .and_then(|v| v.checked_div(hundred))
                    .is_some_and(|v| round2(v) == amount)
        });
        out.push(AllowanceCharge {
            charge_indicator: false,
            reason: DISCOUNT_REASON.into(),
            reason_code: Some(DISCOUNT_REASON_CODE.into()),
            amount,
            base_amount: of.map(|_| c.net),
            multiplier_factor: of.map(|p| p.normalize()),
            currency: currency.clone(),
            tax_category: c.category,
        });
    }
    Made::Allowances(out)
}

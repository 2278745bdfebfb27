//! The export's own figures against the computed ones (`INV-ERP-*`): a difference of more than
//! 0.01 is an error, with both numbers and the likely cause in the message; except a document
//! total that differs by per-line rounding only ([`crate::compute::total_rounding`],
//! [`crate::compute::vat_rounding`]: the lines' own figures added up, at most 0.01 per line with
//! VAT), which is a warning saying what is issued (`INV-ERP-TOTAL-ROUNDING`,
//! `INV-ERP-TAX-TOTAL-ROUNDING`).

use super::rules::*;
use super::support::{diff, line_path, money, num, pct, sum};
use super::{Context, ErpFigures, Finding, RuleInfo};
use crate::compute::{ComputeError, LineAmounts, Totals, rounding_bound, total_rounding, vat_of, vat_rounding};
use crate::model::Document;
use rust_decimal::Decimal;

/// The difference between the export's figure and the computed one that passes unsaid: 0.01.
pub const ERP_TOLERANCE: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

fn cent() -> Decimal {
    ERP_TOLERANCE
}

/// True when `a` and `b` are within 0.01.
fn near(a: Decimal, b: Decimal) -> bool {
    diff(a, b).is_some_and(|d| d <= cent())
}

/// `v` grossed up by a rate: round2(v × (1 + rate ÷ 100)).
fn with_rate(v: Decimal, percent: Decimal) -> Option<Decimal> {
    v.checked_add(vat_of(v, percent)?)
}

fn push(
    out: &mut Vec<Finding>,
    rule: RuleInfo,
    path: String,
    erp: Decimal,
    computed: Decimal,
    what: &str,
    cause: &str,
) {
    if near(erp, computed) {
        return;
    }
    out.push(rule.at(
        path,
        num(erp),
        format!(
            "The export gives the {what} as {} but it computes to {}. {cause}",
            money(erp),
            money(computed)
        ),
    ));
}

/// `computed` is [`compute::totals`] of `doc` (computed once for all the rules).
pub(super) fn check(doc: &Document, ctx: &Context, computed: &Result<Totals, ComputeError>, out: &mut Vec<Finding>) {
    let Some(erp) = &ctx.erp else {
        return;
    };
    let Ok(t) = computed else {
        return;
    };
    let before = out.len();
    let vat_follows = lines(doc, erp, t, out);
    let mut said = LinesSaid::of(&out[before..]);
    // A line VAT not said because it follows from that line's own net, which is said, explains
    // the document's VAT as a line VAT said would.
    said.vat |= vat_follows;
    document(doc, erp, t, said, out);
}

/// Which of the export's line figures were found to differ (a finding on the line each).
#[derive(Clone, Copy, Default)]
struct LinesSaid {
    net: bool,
    vat: bool,
    gross: bool,
}

impl LinesSaid {
    fn of(findings: &[Finding]) -> LinesSaid {
        let has = |code: &str| findings.iter().any(|f| f.code == code);
        LinesSaid {
            net: has(INV_ERP_LINE_NET.code),
            vat: has(INV_ERP_LINE_VAT.code),
            gross: has(INV_ERP_LINE_GROSS.code),
        }
    }
}

/// True when the export's document figure `v` is its own line figures added up (every line
/// gives one): a difference from the computed figure is then the lines' own, which are said on
/// their lines, and the document figure would only say it again (one mistake, one finding).
fn adds_up(v: Decimal, lines: &[Option<Decimal>]) -> bool {
    !lines.is_empty()
        && lines.iter().all(Option::is_some)
        && sum(lines.iter().flatten().copied()).is_some_and(|s| near(v, s))
}

/// The net unit price rounded to 2 decimals when the quantity times it gives `export_net` (an
/// ERP that rounds the price after its discount, SAP Business One: 100 × 9.24 for 9.24075).
fn rounded_price_net(line: &crate::model::Line, export_net: Decimal) -> Option<Decimal> {
    let price = line.price.price_per_unit;
    let rounded = price.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let net = line.quantity.checked_mul(rounded)?;
    (rounded != price && net == export_net).then_some(rounded)
}

/// The export's line figures compared with the computed ones, a finding for each that differs.
/// True when a line's VAT that differs was not said because it is the line's rate on the
/// export's own net, which is said to differ (one mistake, one finding).
fn lines(doc: &Document, erp: &ErpFigures, t: &Totals, out: &mut Vec<Finding>) -> bool {
    let mut vat_follows = false;
    let shares = crate::compute::discount_shares(doc, t);
    for (i, (line, a)) in doc.invoice_lines.iter().zip(&t.lines).enumerate() {
        let rate = line.item.classified_tax_category.percent;
        let LineAmounts { net, vat, with_vat } = *a;
        // The line's VAT on its net less its share of the document's discount, as an ERP that
        // spreads that discount over the lines prints it: as good as the line's own VAT.
        let discounted = shares
            .as_ref()
            .and_then(|s| s.get(i))
            .and_then(|share| vat_of(net.checked_sub(*share)?, rate));
        let agrees_discounted = |v: &Option<Decimal>, with_net: bool| {
            let want = if with_net {
                discounted.and_then(|d| net.checked_add(d))
            } else {
                discounted
            };
            v.zip(want).is_some_and(|(v, w)| near(v, w))
        };
        // Each cause is spelled out only for a figure that differs (most agree).
        let said_before = out.len();
        if let Some(Some(v)) = erp.line_net.get(i).filter(|v| !v.is_some_and(|v| near(v, net))) {
            let cause = if with_rate(net, rate).is_some_and(|g| near(*v, g)) && !rate.is_zero() {
                format!(
                    "The export's net equals the amount with VAT: its unit prices seem to include {}% VAT; map the \
                     price column as tax-inclusive.",
                    pct(rate)
                )
            } else if let Some(rounded) = rounded_price_net(line, *v) {
                format!(
                    "The export rounds the net unit price to 2 decimals before multiplying: quantity {} × {} = {}, \
                     where the unit price (after its discount) is {}. The document is computed from the unrounded \
                     price, as the authority's rules compute it; to issue the export's figure, give a net unit \
                     price of at most 2 decimals (the price after the discount, with no line discount), in the ERP \
                     or by mapping such a column.",
                    line.quantity.normalize(),
                    money(rounded),
                    money(*v),
                    line.price.price_per_unit.normalize()
                )
            } else {
                let discounted = line.price.allowance_charge.is_some() || !line.allowance_charges.is_empty();
                format!(
                    "Quantity {} × unit price {} does not give the export's net: check the quantity and price \
                     columns, {}or prices that include VAT.",
                    line.quantity.normalize(),
                    line.price.price_per_unit.normalize(),
                    if discounted {
                        "the line discount, "
                    } else {
                        "a line discount missing from the mapping, "
                    }
                )
            };
            push(
                out,
                INV_ERP_LINE_NET,
                line_path(i, "amount"),
                *v,
                net,
                "line net amount",
                &cause,
            );
        }
        // The export's VAT is the line's rate on the export's own net, said to differ just above:
        // the net's mistake, not said again of the VAT.
        let net_said = out.len() > said_before;
        let export_net = erp.line_net.get(i).copied().flatten();
        let follows_net = |v: &Option<Decimal>| {
            net_said
                && v.zip(export_net.and_then(|n| vat_of(n, rate)))
                    .is_some_and(|(v, w)| near(v, w))
        };
        let vat_differs = |v: &&Option<Decimal>| !v.is_some_and(|v| near(v, vat)) && !agrees_discounted(v, false);
        if let Some(v) = erp.line_vat.get(i).filter(vat_differs)
            && follows_net(v)
        {
            vat_follows = true;
        } else if let Some(Some(v)) = erp.line_vat.get(i).filter(vat_differs) {
            let other = [Decimal::from(15), Decimal::from(5), Decimal::ZERO]
                .into_iter()
                .find(|r| *r != rate && vat_of(net, *r).is_some_and(|x| near(*v, x)));
            let cause = match other {
                Some(r) => format!(
                    "The export's VAT is {}% of the net, the line's category says {}%: check the line's VAT category and rate.",
                    pct(r),
                    pct(rate)
                ),
                None => format!(
                    "The line VAT is {}% of the net {} rounded to 2 decimals: check the VAT rate, and whether the \
                     export's prices include VAT.",
                    pct(rate),
                    money(net)
                ),
            };
            push(
                out,
                INV_ERP_LINE_VAT,
                line_path(i, "tax_total.tax_amount"),
                *v,
                vat,
                "line VAT",
                &cause,
            );
        }
        // The export's amount with VAT is its own net plus its own VAT, one of which is said to
        // differ on this line: the same mistake, not said again.
        let export_sum = erp
            .line_net
            .get(i)
            .copied()
            .flatten()
            .zip(erp.line_vat.get(i).copied().flatten())
            .and_then(|(n, v)| n.checked_add(v));
        let repeats = |g: Decimal| out.len() > said_before && export_sum.is_some_and(|s| near(g, s));
        if let Some(Some(v)) = erp
            .line_gross
            .get(i)
            .filter(|v| !agrees_discounted(v, true) && !v.is_some_and(repeats))
        {
            let cause = "The amount with VAT is the net plus the VAT: check the price and VAT columns, and whether \
                         the export rounds prices that include VAT.";
            let path = line_path(i, "tax_total.rounding_amount");
            push(
                out,
                INV_ERP_LINE_GROSS,
                path,
                *v,
                with_vat,
                "line amount with VAT",
                cause,
            );
        }
    }
    vat_follows
}

fn document(doc: &Document, erp: &ErpFigures, t: &Totals, said: LinesSaid, out: &mut Vec<Finding>) {
    // Without a discount or charge on the whole document, the document's figures are its lines'
    // added up; one the lines' findings already explain is not said again.
    let whole = t.allowance_total.is_zero() && t.charge_total.is_zero();
    let explained = |v: Decimal, said: bool, lines: &[Option<Decimal>]| whole && said && adds_up(v, lines);
    let gross_of_lines: Vec<Option<Decimal>> = if said.net || said.vat || said.gross {
        (0..doc.invoice_lines.len())
            .map(|i| match erp.line_gross.get(i).copied().flatten() {
                Some(g) => Some(g),
                None => erp
                    .line_net
                    .get(i)
                    .copied()
                    .flatten()?
                    .checked_add(erp.line_vat.get(i).copied().flatten()?),
            })
            .collect()
    } else {
        Vec::new()
    };
    if let Some(v) = erp
        .tax_exclusive
        .filter(|v| !near(*v, t.tax_exclusive) && !explained(*v, said.net, &erp.line_net))
    {
        let cause = if near(v, t.tax_inclusive) {
            "The export's total without VAT equals the computed total with VAT: its prices seem to include VAT; map \
             them as tax-inclusive."
                .to_string()
        } else if near(v, t.line_total) && !(t.allowance_total.is_zero() && t.charge_total.is_zero()) {
            "The export's total leaves out the document discounts or charges: check the discount columns of the mapping."
                .to_string()
        } else {
            check_discounts("Check the line amounts", erp, t, v < t.tax_exclusive)
        };
        let path = "legal_monitory_total.tax_exclusive_amount".to_string();
        push(
            out,
            INV_ERP_TAX_EXCLUSIVE,
            path,
            v,
            t.tax_exclusive,
            "total without VAT",
            &cause,
        );
    }
    // Beyond what rounding explains: the lines do not add up; or, with a discount on the whole
    // document, the export's figure leaves it out.
    let over = |s: Decimal| {
        if t.allowance_total.is_zero() {
            format!(
                "The export adds up its lines' own figures ({}), but that differs from the computed one by more \
                 than rounding each line on its own explains (at most 0.01 per line with VAT, {} here): check the \
                 lines' amounts and VAT rates the mapping reads.",
                money(s),
                money(rounding_bound(doc))
            )
        } else {
            format!(
                "The export adds up its lines' own figures ({}) as if the document had no discount on the whole \
                 document, but it has one ({} without VAT), which the computed figure takes off: check that the \
                 ERP's figure includes that discount, and the lines' amounts and VAT rates the mapping reads.",
                money(s),
                money(t.allowance_total)
            )
        }
    };
    if let Some(v) = erp
        .tax_total
        .filter(|v| !near(*v, t.tax_total) && !explained(*v, said.vat, &erp.line_vat))
    {
        let path = "tax_total.tax_amount".to_string();
        if let Some(d) = vat_rounding(doc, t, v) {
            out.push(INV_ERP_TAX_TOTAL_ROUNDING.at(
                path,
                num(v),
                format!(
                    "The export gives the VAT total as {}, its lines' VAT rounded one by one and added up; the \
                     authority computes VAT once on each category's total and rounds it once, which gives {}. The \
                     difference ({}) is that rounding only (at most 0.01 per line with VAT, {} here): the document \
                     is issued with VAT {}. Nothing to correct in the export.",
                    money(v),
                    money(t.tax_total),
                    money(d),
                    money(rounding_bound(doc)),
                    money(t.tax_total)
                ),
            ));
        } else {
            let cause = match sum(t.lines.iter().map(|l| l.vat)) {
                Some(s) if near(v, s) => over(s),
                _ => check_discounts(
                    "Check the VAT rates and categories of the lines",
                    erp,
                    t,
                    v < t.tax_total,
                ),
            };
            push(out, INV_ERP_TAX_TOTAL, path, v, t.tax_total, "VAT total", &cause);
        }
    }
    let Some(v) = erp.tax_inclusive else {
        return;
    };
    let path = "legal_monitory_total.tax_inclusive_amount".to_string();
    // Within the tolerance the document is issued as computed, and nothing is said (as for
    // every figure), rounding or not.
    if near(v, t.tax_inclusive) || explained(v, said.net || said.vat || said.gross, &gross_of_lines) {
        return;
    }
    if let Some(d) = total_rounding(doc, t, v) {
        let issued = if t.payable == v && t.payable_rounding == d {
            format!(
                "the document is issued with the computed VAT, and the payable amount is {} as the export says, \
                 with a rounding amount of {} (BT-114)",
                money(v),
                money(d)
            )
        } else {
            format!(
                "the document is issued with the computed figures: total with VAT {}, payable amount {}",
                money(t.tax_inclusive),
                money(t.payable)
            )
        };
        out.push(INV_ERP_TOTAL_ROUNDING.at(
            path,
            num(v),
            format!(
                "The export gives the total with VAT as {}, its lines' amounts with VAT added up; the authority \
                 computes VAT once on each category's total and rounds it once, which gives {} (VAT {}). The \
                 difference ({}) is that rounding only (at most 0.01 per line with VAT, {} here): {issued}. Nothing \
                 to correct in the export.",
                money(v),
                money(t.tax_inclusive),
                money(t.tax_total),
                money(d),
                money(rounding_bound(doc))
            ),
        ));
        return;
    }
    let per_line = sum(t.lines.iter().map(|l| l.with_vat));
    let cause = if near(v, t.tax_exclusive) {
        "The export's total with VAT equals the computed total without VAT: its prices seem to include VAT; map \
         them as tax-inclusive."
            .to_string()
    } else if let Some(s) = per_line.filter(|s| near(v, *s)) {
        over(s)
    } else {
        check_discounts("Check the line amounts and VAT rates", erp, t, v < t.tax_inclusive)
    };
    push(out, INV_ERP_TOTAL, path, v, t.tax_inclusive, "total with VAT", &cause);
}

/// What to check when the export's document figure differs from the computed one for no cause
/// the figures show: `check`, the lines' figures to check, then what the document's discount on
/// the whole document is, if it has one, or how one would be read. `lower`: the export's figure
/// is below the computed one, as a discount the mapping does not read would make it.
fn check_discounts(check: &str, erp: &ErpFigures, t: &Totals, lower: bool) -> String {
    if !t.allowance_total.is_zero() || !t.charge_total.is_zero() {
        let mut parts = Vec::new();
        if !t.allowance_total.is_zero() {
            parts.push(format!("discount {}", money(t.allowance_total)));
        }
        if !t.charge_total.is_zero() {
            parts.push(format!("charge {}", money(t.charge_total)));
        }
        return format!(
            "{check}, and the discount or charge on the whole document the mapping reads ({} without VAT).",
            parts.join(", ")
        );
    }
    if erp.document_discount {
        return format!(
            "{check}. This document has no discount on the whole document (the mapping reads one, and its cell is \
             blank or 0 here): if the ERP gave it one, export it with that discount."
        );
    }
    if lower {
        return format!(
            "{check}. This document has no discount on the whole document, and the mapping reads none: a discount \
             on the whole document (on the invoice's subtotal) would make the export's figure lower; if the ERP \
             gives one, map its column as discount_amount (or discount_percent) in a copy of the mapping (see \
             mappings/README.md)."
        );
    }
    format!("{check} (this document has no discount or charge on the whole document).")
}

#[cfg(test)]
#[path = "erp_tests.rs"]
mod tests;

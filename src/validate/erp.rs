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
    lines(doc, erp, t, out);
    document(doc, erp, t, out);
}

fn lines(doc: &Document, erp: &ErpFigures, t: &Totals, out: &mut Vec<Finding>) {
    for (i, (line, a)) in doc.invoice_lines.iter().zip(&t.lines).enumerate() {
        let rate = line.item.classified_tax_category.percent;
        let LineAmounts { net, vat, with_vat } = *a;
        // Each cause is spelled out only for a figure that differs (most agree).
        if let Some(Some(v)) = erp.line_net.get(i).filter(|v| !v.is_some_and(|v| near(v, net))) {
            let cause = if with_rate(net, rate).is_some_and(|g| near(*v, g)) && !rate.is_zero() {
                format!(
                    "The export's net equals the amount with VAT: its unit prices seem to include {}% VAT; map the \
                     price column as tax-inclusive.",
                    pct(rate)
                )
            } else {
                format!(
                    "Quantity {} × unit price {} does not give the export's net: check the quantity and price \
                     columns, a line discount missing from the mapping, or prices that include VAT.",
                    line.quantity.normalize(),
                    line.price.price_per_unit.normalize()
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
        if let Some(Some(v)) = erp.line_vat.get(i).filter(|v| !v.is_some_and(|v| near(v, vat))) {
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
        if let Some(Some(v)) = erp.line_gross.get(i) {
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
}

fn document(doc: &Document, erp: &ErpFigures, t: &Totals, out: &mut Vec<Finding>) {
    if let Some(v) = erp.tax_exclusive.filter(|v| !near(*v, t.tax_exclusive)) {
        let cause = if near(v, t.tax_inclusive) {
            "The export's total without VAT equals the computed total with VAT: its prices seem to include VAT; map \
             them as tax-inclusive."
                .to_string()
        } else if near(v, t.line_total) && !(t.allowance_total.is_zero() && t.charge_total.is_zero()) {
            "The export's total leaves out the document discounts or charges: check the discount columns of the mapping."
                .to_string()
        } else {
            "Check the line amounts and the document discounts and charges the mapping reads.".to_string()
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
    // Beyond what rounding explains: the lines do not add up (or there are document discounts).
    let over = |s: Decimal| {
        format!(
            "The export adds up its lines' own figures ({}), but that differs from the computed one by more than \
             rounding each line on its own explains (at most 0.01 per line with VAT, {} here, and no document \
             discount or charge): check the lines' amounts and VAT rates, and the document discounts and charges, the \
             mapping reads.",
            money(s),
            money(rounding_bound(doc))
        )
    };
    if let Some(v) = erp.tax_total.filter(|v| !near(*v, t.tax_total)) {
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
                _ => "Check the VAT rates and categories of the lines and of the document discounts.".to_string(),
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
    if near(v, t.tax_inclusive) {
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
        "Check the line amounts, VAT rates and document discounts the mapping reads.".to_string()
    };
    push(out, INV_ERP_TOTAL, path, v, t.tax_inclusive, "total with VAT", &cause);
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{Context, ErpFigures, Severity, validate};
    use rust_decimal_macros::dec;

    fn with(erp: ErpFigures) -> Context {
        Context {
            erp: Some(erp),
            ..ctx()
        }
    }

    /// What the standard invoice's export says when it agrees with compute.
    fn agreeing() -> ErpFigures {
        ErpFigures {
            line_net: vec![Some(dec!(109.89)), Some(dec!(115.00)), None],
            line_vat: vec![Some(dec!(16.48)), Some(dec!(5.75)), Some(dec!(0))],
            line_gross: vec![Some(dec!(126.37)), None, Some(dec!(120))],
            tax_exclusive: Some(dec!(334.89)),
            tax_total: Some(dec!(20.73)),
            tax_inclusive: Some(dec!(355.62)),
        }
    }

    fn run(change: impl FnOnce(&mut ErpFigures)) -> Vec<super::Finding> {
        let mut e = agreeing();
        change(&mut e);
        validate(&standard(), &with(e))
    }

    #[test]
    fn agreeing_figures_and_a_cent_of_difference_pass() {
        assert!(run(|_| {}).is_empty(), "{:?}", run(|_| {}));
        let f = run(|e| {
            e.line_net[0] = Some(dec!(109.90));
            e.tax_total = Some(dec!(20.72));
            e.line_vat.truncate(1);
        });
        assert!(f.is_empty(), "{f:?}");
        assert!(validate(&standard(), &ctx()).is_empty());
    }

    #[test]
    fn inv_erp_line_net() {
        let f = run(|e| e.line_net[0] = Some(dec!(126.37)));
        let x = assert_has(&f, "INV-ERP-LINE-NET", Severity::Error);
        assert_eq!(
            (x.path.as_str(), x.value.as_deref()),
            ("invoice_lines[0].amount", Some("126.37"))
        );
        assert!(
            x.message.contains("126.37") && x.message.contains("109.89"),
            "{}",
            x.message
        );
        assert!(x.message.contains("include 15% VAT"), "{}", x.message);
        let f = run(|e| e.line_net[1] = Some(dec!(115.02)));
        assert!(
            assert_has(&f, "INV-ERP-LINE-NET", Severity::Error)
                .message
                .contains("quantity")
        );
    }

    #[test]
    fn inv_erp_line_vat() {
        let f = run(|e| e.line_vat[1] = Some(dec!(17.25)));
        let x = assert_has(&f, "INV-ERP-LINE-VAT", Severity::Error);
        assert_eq!(x.path, "invoice_lines[1].tax_total.tax_amount");
        assert!(
            x.message.contains("15%") && x.message.contains("says 5%"),
            "{}",
            x.message
        );
    }

    #[test]
    fn inv_erp_line_gross() {
        let f = run(|e| e.line_gross[2] = Some(dec!(138)));
        let x = assert_has(&f, "INV-ERP-LINE-GROSS", Severity::Error);
        assert_eq!(x.path, "invoice_lines[2].tax_total.rounding_amount");
    }

    #[test]
    fn inv_erp_tax_exclusive() {
        let f = run(|e| e.tax_exclusive = Some(dec!(344.89)));
        let x = assert_has(&f, "INV-ERP-TAX-EXCLUSIVE", Severity::Error);
        assert!(x.message.contains("discounts"), "{}", x.message);
    }

    /// `n` lines of 1 × 0.05 at 15%: VAT 0.01 per line, but round2(n × 0.0075) on the category.
    fn small_lines(n: usize) -> crate::model::Document {
        let mut d = standard();
        d.allowance_charge.0.clear();
        d.invoice_lines = (1..=n)
            .map(|i| {
                crate::model::example::line(
                    i,
                    "Item",
                    dec!(1),
                    dec!(0.05),
                    crate::model::TaxCategory::new("S", dec!(15)),
                )
            })
            .collect();
        recompute(&mut d);
        d
    }

    #[test]
    fn a_vat_total_rounded_per_line_is_a_warning() {
        let d = small_lines(10);
        assert_eq!(d.tax_total.tax_amount, dec!(0.08));
        let e = ErpFigures {
            tax_total: Some(dec!(0.10)),
            ..Default::default()
        };
        let f = validate(&d, &with(e));
        assert!(of(&f, "INV-ERP-TAX-TOTAL").is_empty(), "{f:?}");
        let x = assert_has(&f, "INV-ERP-TAX-TOTAL-ROUNDING", Severity::Warning);
        assert_eq!(
            (x.path.as_str(), x.value.as_deref()),
            ("tax_total.tax_amount", Some("0.10"))
        );
        assert!(
            x.message.contains("0.10, its lines' VAT rounded one by one")
                && x.message.contains("which gives 0.08")
                && x.message.contains("(0.02)")
                && x.message.contains("0.10 here")
                && x.message.contains("issued with VAT 0.08"),
            "{}",
            x.message
        );
        // Not the lines' VAT added up: an error, as before.
        let e = ErpFigures {
            tax_total: Some(dec!(0.50)),
            ..Default::default()
        };
        let x = assert_has(
            &validate(&small_lines(3), &with(e)),
            "INV-ERP-TAX-TOTAL",
            Severity::Error,
        );
        assert!(x.message.contains("Check the VAT rates"), "{}", x.message);
        let e = ErpFigures {
            tax_total: Some(dec!(0.09)),
            ..Default::default()
        };
        assert!(validate(&d, &with(e)).is_empty(), "0.01 apart is tolerated");
    }

    #[test]
    fn the_lines_vat_added_up_with_a_document_discount_is_no_rounding() {
        let mut d = small_lines(10);
        d.allowance_charge.0.push(crate::model::AllowanceCharge {
            charge_indicator: false,
            reason: "Discount".into(),
            reason_code: Some("95".into()),
            amount: dec!(0.10),
            base_amount: None,
            multiplier_factor: None,
            currency: "SAR".into(),
            tax_category: crate::model::TaxCategory::new("S", dec!(15)),
        });
        recompute(&mut d);
        assert_eq!(d.tax_total.tax_amount, dec!(0.06));
        let e = ErpFigures {
            tax_total: Some(dec!(0.10)),
            tax_inclusive: Some(dec!(0.50)),
            ..Default::default()
        };
        let f = validate(&d, &with(e));
        let x = assert_has(&f, "INV-ERP-TAX-TOTAL", Severity::Error);
        assert!(
            x.message.contains("adds up its lines' own figures (0.10)")
                && x.message.contains("no document discount or charge")
                && !x.message.contains("one to send"),
            "{}",
            x.message
        );
        assert!(of(&f, "INV-ERP-TAX-TOTAL-ROUNDING").is_empty(), "{f:?}");
        assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
    }

    /// Three lines sold at 10.00 with 15 % VAT each, as the mapping builds tax-inclusive lines:
    /// net 8.70 and VAT 1.30 per line; 26.10 net, VAT 3.92 and 30.02 with VAT on the category.
    fn three_tens() -> crate::model::Document {
        let mut d = standard();
        d.allowance_charge.0.clear();
        d.invoice_lines = (1..=3)
            .map(|i| {
                let price = crate::compute::net_from_inclusive_total(dec!(1), dec!(10.00), dec!(15))
                    .map(|p| p.unit_price)
                    .unwrap_or_default();
                let cat = crate::model::TaxCategory::new("S", dec!(15));
                let mut l = crate::model::example::line(i, "Item", dec!(1), price, cat);
                l.inclusive_amount = Some(dec!(10.00));
                l
            })
            .collect();
        recompute(&mut d);
        d
    }

    fn total(v: rust_decimal::Decimal) -> Context {
        with(ErpFigures {
            tax_inclusive: Some(v),
            line_gross: vec![Some(dec!(10.00)); 3],
            line_vat: vec![Some(dec!(1.30)); 3],
            tax_total: Some(dec!(3.90)),
            ..Default::default()
        })
    }

    #[test]
    fn a_total_of_line_totals_with_vat_is_the_amount_due_with_a_rounding_amount() {
        let mut d = three_tens();
        assert_eq!(d.legal_monitory_total.tax_inclusive_amount, dec!(30.02));
        // As the pipeline issues it: the amount due rounded to the export's total.
        let mut t = crate::compute::totals(&d).unwrap();
        let r = crate::compute::round_payable_to(&mut d, &mut t, dec!(30.00), super::ERP_TOLERANCE);
        assert_eq!(r, Ok(Some(dec!(-0.02))));
        let f = validate(&d, &total(dec!(30.00)));
        assert!(f.iter().all(|f| !f.is_error()), "{f:#?}");
        assert!(
            of(&f, "INV-ERP-TOTAL").is_empty() && of(&f, "BR-CO-16").is_empty(),
            "{f:?}"
        );
        let x = assert_has(&f, "INV-ERP-TOTAL-ROUNDING", Severity::Warning);
        assert_eq!(
            (x.path.as_str(), x.value.as_deref()),
            ("legal_monitory_total.tax_inclusive_amount", Some("30.00"))
        );
        assert!(
            x.message
                .starts_with("The export gives the total with VAT as 30.00, its lines' amounts with VAT added up")
                && x.message.contains("which gives 30.02 (VAT 3.92)")
                && x.message.contains("at most 0.01 per line with VAT, 0.03 here")
                && x.message.contains(
                    "the payable amount is 30.00 as the export says, with a rounding amount of -0.02 (BT-114)"
                ),
            "{}",
            x.message
        );
        let x = assert_has(&f, "INV-ERP-TAX-TOTAL-ROUNDING", Severity::Warning);
        assert!(x.message.contains("issued with VAT 3.92"), "{}", x.message);
        // Not rounded (a caller that validates only): the message says what is issued then.
        let x = assert_has(
            &validate(&three_tens(), &total(dec!(30.00))),
            "INV-ERP-TOTAL-ROUNDING",
            Severity::Warning,
        );
        assert!(
            x.message
                .contains("issued with the computed figures: total with VAT 30.02, payable amount 30.02"),
            "{}",
            x.message
        );
    }

    #[test]
    fn a_total_rounding_does_not_explain_stays_an_error() {
        let d = three_tens();
        // 0.03 over: not the lines' totals added up.
        let x = assert_has(&validate(&d, &total(dec!(30.05))), "INV-ERP-TOTAL", Severity::Error);
        assert!(
            x.message.contains("30.05") && x.message.contains("Check the line amounts"),
            "{}",
            x.message
        );
        assert!(!x.message.contains("one to send"), "{}", x.message);
        // Within a cent of the lines' totals added up, but not them.
        let x = assert_has(&validate(&d, &total(dec!(29.99))), "INV-ERP-TOTAL", Severity::Error);
        assert!(
            x.message.contains("adds up its lines' own figures (30.00)") && x.message.contains("0.03 here"),
            "{}",
            x.message
        );
        // Within the tolerance of the computed total: nothing said, as before.
        let f = validate(&d, &total(dec!(30.01)));
        assert!(of(&f, "INV-ERP-TOTAL").is_empty() && of(&f, "INV-ERP-TOTAL-ROUNDING").is_empty());
    }

    #[test]
    fn inv_erp_total() {
        let f = run(|e| e.tax_inclusive = Some(dec!(334.89)));
        let x = assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
        assert_eq!(x.path, "legal_monitory_total.tax_inclusive_amount");
        assert!(x.message.contains("include VAT"), "{}", x.message);
    }
}

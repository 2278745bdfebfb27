//! The export's own figures against the computed ones (`INV-ERP-*`): a difference of more than
//! 0.01 is an error, with both numbers and the likely cause in the message.

use super::rules::*;
use super::support::{diff, line_path, money, num, pct, sum};
use super::{Context, ErpFigures, Finding, RuleInfo};
use crate::compute::{self, LineAmounts, Totals, vat_of};
use crate::model::Document;
use rust_decimal::Decimal;

fn cent() -> Decimal {
    Decimal::new(1, 2)
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

pub(super) fn check(doc: &Document, ctx: &Context, out: &mut Vec<Finding>) {
    let Some(erp) = &ctx.erp else {
        return;
    };
    let Ok(t) = compute::totals(doc) else {
        return;
    };
    lines(doc, erp, &t, out);
    document(erp, &t, out);
}

fn lines(doc: &Document, erp: &ErpFigures, t: &Totals, out: &mut Vec<Finding>) {
    for (i, (line, a)) in doc.invoice_lines.iter().zip(&t.lines).enumerate() {
        let rate = line.item.classified_tax_category.percent;
        let LineAmounts { net, vat, with_vat } = *a;
        if let Some(Some(v)) = erp.line_net.get(i) {
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
        if let Some(Some(v)) = erp.line_vat.get(i) {
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

fn document(erp: &ErpFigures, t: &Totals, out: &mut Vec<Finding>) {
    if let Some(v) = erp.tax_exclusive {
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
    if let Some(v) = erp.tax_total {
        let per_line = sum(t.lines.iter().map(|l| l.vat));
        let cause = match per_line {
            Some(s) if near(v, s) => format!(
                "The export adds up VAT rounded per line ({}); the authority computes VAT once per category total \
                 and rounds it once ({}). The computed figure is the one to send.",
                money(s),
                money(t.tax_total)
            ),
            _ => "Check the VAT rates and categories of the lines and of the document discounts.".to_string(),
        };
        push(
            out,
            INV_ERP_TAX_TOTAL,
            "tax_total.tax_amount".into(),
            v,
            t.tax_total,
            "VAT total",
            &cause,
        );
    }
    if let Some(v) = erp.tax_inclusive {
        let per_line = sum(t.lines.iter().map(|l| l.with_vat));
        let cause = if near(v, t.tax_exclusive) {
            "The export's total with VAT equals the computed total without VAT: its prices seem to include VAT; map \
             them as tax-inclusive."
                .to_string()
        } else if per_line.is_some_and(|s| near(v, s)) && t.allowance_total.is_zero() && t.charge_total.is_zero() {
            "The export adds up line totals rounded per line; the authority rounds VAT per category. The computed \
             figure is the one to send."
                .to_string()
        } else {
            "Check the line amounts, VAT rates and document discounts the mapping reads.".to_string()
        };
        let path = "legal_monitory_total.tax_inclusive_amount".to_string();
        push(out, INV_ERP_TOTAL, path, v, t.tax_inclusive, "total with VAT", &cause);
    }
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
    fn inv_erp_tax_total_names_per_line_rounding() {
        let d = small_lines(10);
        assert_eq!(d.tax_total.tax_amount, dec!(0.08));
        let e = ErpFigures {
            tax_total: Some(dec!(0.10)),
            ..Default::default()
        };
        let x = assert_has(&validate(&d, &with(e)), "INV-ERP-TAX-TOTAL", Severity::Error);
        assert_eq!(x.path, "tax_total.tax_amount");
        assert!(x.message.contains("rounded per line"), "{}", x.message);
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
    fn inv_erp_total() {
        let f = run(|e| e.tax_inclusive = Some(dec!(334.89)));
        let x = assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
        assert_eq!(x.path, "legal_monitory_total.tax_inclusive_amount");
        assert!(x.message.contains("include VAT"), "{}", x.message);
    }
}

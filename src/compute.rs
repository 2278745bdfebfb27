//! Totals, computed the way the authority computes them (zatca.md §3.1).
//!
//! - Line net (BT-131) = round2(quantity × net unit price ÷ base quantity) + line charges − line
//!   allowances.
//! - Line VAT (KSA-11) = round2(line net × rate ÷ 100); line amount with VAT (KSA-12, the API's
//!   `rounding_amount`) = line net + line VAT. For tax-inclusive prices the ERP's own line total
//!   (`Line::inclusive_amount`) is kept as KSA-12 and the line VAT is the difference, when it is
//!   within one cent of the rate (no rule ties line VAT to the rate; the authority's own sample
//!   `standard-invoice-with-payable-rounding-adjustment.xml` does this).
//! - One VAT breakdown per (category, rate): taxable amount (BT-116) = Σ line nets + document charges −
//!   document allowances of that category; VAT (BT-117) = round2(BT-116 × rate ÷ 100), on the
//!   category total, not as the sum of rounded line VATs. Lines with quantity zero (prepayment
//!   adjustment lines) do not open a breakdown of their own.
//! - BT-106 = Σ line nets; BT-109 = BT-106 − allowances + charges; BT-110 = Σ BT-117;
//!   BT-112 = BT-109 + BT-110; BT-115 = BT-112 − prepaid + payable rounding.
//! - A foreign document currency gets BT-111 = round2(BT-110 × exchange rate) in SAR.
//!
//! - The export's total with VAT, when it is the lines' own amounts with VAT added up and differs
//!   from BT-112 by per-line rounding only, becomes the amount due through a payable rounding
//!   amount (BT-114): [`round_payable_to`] (`compute/payable.rs`).
//!
//! Rounding is half away from zero to 2 decimals ([`round2`]), which is the authority's half-up
//! for the positive amounts invoices carry. All arithmetic is checked: an overflow is an error
//! naming the field, never a panic.

use crate::model::{Document, Line, TaxCategory, TaxSubtotal};
use rayon::prelude::*;
use rust_decimal::{Decimal, RoundingStrategy};

mod payable;
mod split;
pub use payable::{
    ROUNDING_PER_LINE, discount_shares, discounted_line_vat, round_payable_to, rounding_bound, total_rounding,
    vat_rounding,
};
pub use split::split_in_proportion;

/// Why totals could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComputeError {
    /// A number too large for exact decimal arithmetic.
    #[error("{path}: the amount is too large to compute exactly; check the value in the source")]
    Overflow {
        /// The field whose computation overflowed.
        path: String,
    },
    /// A base quantity of zero or less.
    #[error("{path}: the base quantity must be greater than zero")]
    BadBaseQuantity {
        /// The field.
        path: String,
    },
}

/// Round to 2 decimals, half away from zero (zatca.md §3.1; D12).
pub fn round2(value: Decimal) -> Decimal {
    value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// Round to `dp` decimals, half away from zero.
pub fn round_to(value: Decimal, dp: u32) -> Decimal {
    value.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
}

fn overflow(path: impl Into<String>) -> ComputeError {
    ComputeError::Overflow { path: path.into() }
}

fn hundred() -> Decimal {
    Decimal::ONE_HUNDRED
}

/// VAT on a taxable amount at a rate in percent, rounded to 2 decimals.
pub fn vat_of(taxable: Decimal, percent: Decimal) -> Option<Decimal> {
    Some(round2(taxable.checked_mul(percent)?.checked_div(hundred())?))
}

/// The amounts of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineAmounts {
    /// BT-131.
    pub net: Decimal,
    /// KSA-11.
    pub vat: Decimal,
    /// KSA-12.
    pub with_vat: Decimal,
}

/// Compute one line's amounts from its quantity, price, discounts and category.
pub fn line_amounts(line: &Line, index: usize) -> Result<LineAmounts, ComputeError> {
    let path = |f: &str| format!("invoice_lines[{index}].{f}");
    let base = line.price.base_quantity.unwrap_or(Decimal::ONE);
    if base <= Decimal::ZERO {
        return Err(ComputeError::BadBaseQuantity {
            path: path("price.base_quantity"),
        });
    }
    let gross = line
        .quantity
        .checked_mul(line.price.price_per_unit)
        .and_then(|v| v.checked_div(base))
        .ok_or_else(|| overflow(path("amount")))?;
    let mut net = round2(gross);
    for (i, ac) in line.allowance_charges.iter().enumerate() {
        let amount = round2(ac.amount);
        net = if ac.charge_indicator {
            net.checked_add(amount)
        } else {
            net.checked_sub(amount)
        }
        .ok_or_else(|| overflow(path(&format!("allowance_charges[{i}].amount"))))?;
    }
    let vat =
        vat_of(net, line.item.classified_tax_category.percent).ok_or_else(|| overflow(path("tax_total.tax_amount")))?;
    let with_vat = net
        .checked_add(vat)
        .ok_or_else(|| overflow(path("tax_total.rounding_amount")))?;
    if let Some(incl) = line.inclusive_amount.map(round2) {
        let cent = Decimal::new(1, 2);
        if incl.checked_sub(with_vat).is_some_and(|d| d.abs() <= cent) {
            let vat = incl
                .checked_sub(net)
                .ok_or_else(|| overflow(path("tax_total.tax_amount")))?;
            return Ok(LineAmounts {
                net,
                vat,
                with_vat: incl,
            });
        }
    }
    Ok(LineAmounts { net, vat, with_vat })
}

/// The document totals, before they are written into the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Totals {
    /// Per line, in line order.
    pub lines: Vec<LineAmounts>,
    /// The VAT breakdown, one per (category, rate), in order of first appearance.
    pub subtotals: Vec<TaxSubtotal>,
    /// BT-106.
    pub line_total: Decimal,
    /// BT-107.
    pub allowance_total: Decimal,
    /// BT-108.
    pub charge_total: Decimal,
    /// BT-109.
    pub tax_exclusive: Decimal,
    /// BT-110.
    pub tax_total: Decimal,
    /// BT-111, when the document currency is not SAR and a rate is known.
    pub tax_total_in_sar: Option<Decimal>,
    /// BT-112.
    pub tax_inclusive: Decimal,
    /// BT-113.
    pub prepaid: Decimal,
    /// BT-114.
    pub payable_rounding: Decimal,
    /// BT-115.
    pub payable: Decimal,
}

struct Breakdown {
    category: TaxCategory,
    taxable: Decimal,
}

/// Compute every total of a document from its lines and document discounts and charges,
/// without changing it.
pub fn totals(doc: &Document) -> Result<Totals, ComputeError> {
    let mut lines = Vec::with_capacity(doc.invoice_lines.len());
    let mut groups: Vec<Breakdown> = Vec::new();
    let mut line_total = Decimal::ZERO;
    // `at`: the amount's object (`invoice_lines`, `allowance_charge`) and index, spelled out as a
    // path only on overflow.
    let add_to = |groups: &mut Vec<Breakdown>, cat: &TaxCategory, amount: Decimal, at: (&str, usize)| {
        match groups.iter_mut().find(|g| g.category.same_breakdown(cat)) {
            Some(g) => {
                g.taxable = g
                    .taxable
                    .checked_add(amount)
                    .ok_or_else(|| overflow(format!("{}[{}].amount", at.0, at.1)))?;
                if g.category.exemption_reason_code.is_none() {
                    g.category.exemption_reason_code = cat.exemption_reason_code.clone();
                }
                if g.category.exemption_reason.is_none() {
                    g.category.exemption_reason = cat.exemption_reason.clone();
                }
            }
            None => groups.push(Breakdown {
                category: cat.clone(),
                taxable: amount,
            }),
        }
        Ok::<(), ComputeError>(())
    };
    for (i, line) in doc.invoice_lines.iter().enumerate() {
        let a = line_amounts(line, i)?;
        line_total = line_total
            .checked_add(a.net)
            .ok_or_else(|| overflow("legal_monitory_total.total_amount"))?;
        if !(line.quantity.is_zero() && a.net.is_zero()) {
            add_to(
                &mut groups,
                &line.item.classified_tax_category,
                a.net,
                ("invoice_lines", i),
            )?;
        }
        lines.push(a);
    }
    let mut allowance_total = Decimal::ZERO;
    let mut charge_total = Decimal::ZERO;
    for (i, ac) in doc.allowance_charge.0.iter().enumerate() {
        let path = || format!("allowance_charge[{i}].amount");
        let amount = round2(ac.amount);
        if ac.charge_indicator {
            charge_total = charge_total.checked_add(amount).ok_or_else(|| overflow(path()))?;
            add_to(&mut groups, &ac.tax_category, amount, ("allowance_charge", i))?;
        } else {
            allowance_total = allowance_total.checked_add(amount).ok_or_else(|| overflow(path()))?;
            add_to(&mut groups, &ac.tax_category, -amount, ("allowance_charge", i))?;
        }
    }
    let mut subtotals = Vec::with_capacity(groups.len());
    let mut tax_total = Decimal::ZERO;
    for g in groups {
        let tax = vat_of(g.taxable, g.category.percent).ok_or_else(|| overflow("tax_total.tax_amount"))?;
        tax_total = tax_total
            .checked_add(tax)
            .ok_or_else(|| overflow("tax_total.tax_amount"))?;
        subtotals.push(TaxSubtotal {
            taxable_amount: round2(g.taxable),
            tax_amount: tax,
            tax_category: g.category,
        });
    }
    let tax_exclusive = line_total
        .checked_sub(allowance_total)
        .and_then(|v| v.checked_add(charge_total))
        .ok_or_else(|| overflow("legal_monitory_total.tax_exclusive_amount"))?;
    let tax_inclusive = tax_exclusive
        .checked_add(tax_total)
        .ok_or_else(|| overflow("legal_monitory_total.tax_inclusive_amount"))?;
    let prepaid = round2(doc.legal_monitory_total.prepaid_amount.unwrap_or_default());
    let payable_rounding = round2(doc.legal_monitory_total.payable_rounding_amount.unwrap_or_default());
    let payable = tax_inclusive
        .checked_sub(prepaid)
        .and_then(|v| v.checked_add(payable_rounding))
        .ok_or_else(|| overflow("legal_monitory_total.payable_amount"))?;
    let tax_total_in_sar = if doc.doc_currency_code.eq_ignore_ascii_case(&doc.tax_currency_code) {
        None
    } else {
        match doc.tax_exchange_rate {
            Some(rate) => Some(round2(
                tax_total
                    .checked_mul(rate)
                    .ok_or_else(|| overflow("tax_total.tax_amount_in_tax_currency"))?,
            )),
            None => doc.tax_total.tax_amount_in_tax_currency,
        }
    };
    Ok(Totals {
        lines,
        subtotals,
        line_total,
        allowance_total,
        charge_total,
        tax_exclusive,
        tax_total,
        tax_total_in_sar,
        tax_inclusive,
        prepaid,
        payable_rounding,
        payable,
    })
}

/// Compute the totals and write them into the document: line amounts, line VAT and
/// `rounding_amount`, the VAT breakdown (D11 form), `tax_total`, `legal_monitory_total`, and the
/// currency of every amount (the document currency).
pub fn compute_document(doc: &mut Document) -> Result<(), ComputeError> {
    compute_document_totals(doc).map(|_| ())
}

/// [`compute_document`], returning the totals it wrote: the same as [`totals`] of the computed
/// document (which reads only what computing does not change), so a caller that validates next
/// need not compute them again.
pub fn compute_document_totals(doc: &mut Document) -> Result<Totals, ComputeError> {
    let t = totals(doc)?;
    let currency = doc.doc_currency_code.clone();
    for (line, a) in doc.invoice_lines.iter_mut().zip(&t.lines) {
        line.amount = a.net;
        line.tax_total.tax_amount = a.vat;
        line.tax_total.rounding_amount = a.with_vat;
        line.tax_total.currency.clone_from(&currency);
        line.price.currency.clone_from(&currency);
        if let Some(pac) = &mut line.price.allowance_charge {
            pac.currency.clone_from(&currency);
        }
    }
    for ac in &mut doc.allowance_charge.0 {
        ac.currency.clone_from(&currency);
    }
    doc.tax_total.currency = currency;
    doc.tax_total.tax_amount = t.tax_total;
    doc.tax_total.tax_amount_in_tax_currency = t.tax_total_in_sar;
    doc.tax_total.set_subtotals(t.subtotals.clone());
    let lmt = &mut doc.legal_monitory_total;
    lmt.total_amount = t.line_total;
    lmt.tax_exclusive_amount = t.tax_exclusive;
    lmt.tax_inclusive_amount = t.tax_inclusive;
    lmt.payable_amount = t.payable;
    lmt.allowance_total_amount = Some(t.allowance_total);
    lmt.charge_total_amount = (t.charge_total != Decimal::ZERO).then_some(t.charge_total);
    Ok(t)
}

/// Compute many documents in parallel; each document's work stays on one thread.
pub fn compute_all(docs: &mut [Document]) -> Vec<Result<(), ComputeError>> {
    docs.par_iter_mut().map(compute_document).collect()
}

/// A net unit price derived from a tax-inclusive one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetPrice {
    /// The net unit price (up to 6 decimals).
    pub unit_price: Decimal,
    /// The net line amount: round2(quantity × unit price).
    pub line_net: Decimal,
}

/// Derive the net unit price from a tax-inclusive unit price so that round2(quantity × net price)
/// gives the net line amount the ERP's inclusive line total implies:
/// `line_net = round2(round2(quantity × inclusive price) ÷ (1 + rate ÷ 100))`.
/// The fewest decimals (2 to 6) that reproduce the line net are used.
pub fn net_from_inclusive(quantity: Decimal, inclusive_unit_price: Decimal, percent: Decimal) -> Option<NetPrice> {
    let line_incl = round2(quantity.checked_mul(inclusive_unit_price)?);
    net_from_inclusive_total(quantity, line_incl, percent)
}

/// As [`net_from_inclusive`], from the inclusive line total the ERP printed.
pub fn net_from_inclusive_total(
    quantity: Decimal,
    inclusive_line_total: Decimal,
    percent: Decimal,
) -> Option<NetPrice> {
    let divisor = Decimal::ONE.checked_add(percent.checked_div(hundred())?)?;
    let line_net = round2(inclusive_line_total.checked_div(divisor)?);
    net_price_for_line(quantity, line_net)
}

/// The net unit price (2 to 6 decimals) whose round2(quantity × price) equals `line_net`.
pub fn net_price_for_line(quantity: Decimal, line_net: Decimal) -> Option<NetPrice> {
    if quantity.is_zero() {
        return None;
    }
    let exact = line_net.checked_div(quantity)?;
    for dp in 2..=6 {
        let p = round_to(exact, dp);
        if round2(quantity.checked_mul(p)?) == line_net {
            return Some(NetPrice {
                unit_price: p.normalize(),
                line_net,
            });
        }
    }
    // Large quantities: step around the 6-decimal value for one that lands on the line net.
    let step = Decimal::new(1, 6);
    let p6 = round_to(exact, 6);
    for k in 1..=20i64 {
        for p in [p6 + step * Decimal::from(k), p6 - step * Decimal::from(k)] {
            if round2(quantity.checked_mul(p)?) == line_net {
                return Some(NetPrice {
                    unit_price: p.normalize(),
                    line_net,
                });
            }
        }
    }
    Some(NetPrice {
        unit_price: p6,
        line_net: round2(quantity.checked_mul(p6)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::example;
    use rust_decimal_macros::dec;

    #[test]
    fn the_totals_returned_are_those_of_the_computed_document() {
        let mut foreign = example::standard_invoice("F-1");
        foreign.doc_currency_code = "USD".into();
        foreign.tax_exchange_rate = Some(dec!(3.75));
        let mut no_rate = example::simplified_invoice("F-2");
        no_rate.doc_currency_code = "USD".into();
        no_rate.tax_total.tax_amount_in_tax_currency = Some(dec!(12.34));
        let mut prepaid = example::debit_note("D-1", "F-1");
        prepaid.legal_monitory_total.prepaid_amount = Some(dec!(10));
        prepaid.legal_monitory_total.payable_rounding_amount = Some(dec!(0.01));
        for mut doc in [
            example::standard_invoice("S-1"),
            example::credit_note("C-1", "S-1"),
            foreign,
            no_rate,
            prepaid,
        ] {
            let returned = compute_document_totals(&mut doc).unwrap();
            assert_eq!(Ok(returned), totals(&doc), "{}", doc.number);
        }
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(round2(dec!(2.665)), dec!(2.67));
        assert_eq!(round2(dec!(2.675)), dec!(2.68));
        assert_eq!(round2(dec!(-2.665)), dec!(-2.67));
        assert_eq!(round2(dec!(2.664999)), dec!(2.66));
    }

    #[test]
    fn mixed_categories_and_a_document_discount() {
        let mut doc = example::standard_invoice("INV-1");
        compute_document(&mut doc).unwrap();
        // 33 × 3.33 = 109.89 at 15%; 2 × 57.5 = 115.00 at 5%; 120.00 at 0%; discount 10 on S 15.
        let l = &doc.invoice_lines;
        assert_eq!(
            (l[0].amount, l[0].tax_total.tax_amount, l[0].tax_total.rounding_amount),
            (dec!(109.89), dec!(16.48), dec!(126.37))
        );
        assert_eq!((l[1].amount, l[1].tax_total.tax_amount), (dec!(115.00), dec!(5.75)));
        assert_eq!((l[2].amount, l[2].tax_total.tax_amount), (dec!(120), dec!(0)));
        let subs = doc.tax_total.subtotals();
        assert_eq!(subs.len(), 3);
        assert!(
            doc.tax_total.tax_subtotal.is_none(),
            "several categories use tax_subtotals (D11)"
        );
        assert_eq!((subs[0].taxable_amount, subs[0].tax_amount), (dec!(99.89), dec!(14.98)));
        assert_eq!((subs[1].taxable_amount, subs[1].tax_amount), (dec!(115.00), dec!(5.75)));
        assert_eq!(
            subs[2].tax_category.exemption_reason_code.as_deref(),
            Some("VATEX-SA-32")
        );
        let t = &doc.legal_monitory_total;
        assert_eq!(t.total_amount, dec!(344.89));
        assert_eq!(t.allowance_total_amount, Some(dec!(10.00)));
        assert_eq!(t.tax_exclusive_amount, dec!(334.89));
        assert_eq!(doc.tax_total.tax_amount, dec!(20.73));
        assert_eq!(t.tax_inclusive_amount, dec!(355.62));
        assert_eq!(t.payable_amount, dec!(355.62));
    }

    #[test]
    fn document_vat_is_on_the_category_total_not_the_sum_of_line_vats() {
        // The SDK's payable-rounding sample: line VAT 130.43, document VAT 130.44 on 869.57.
        let mut doc = example::standard_invoice("R");
        doc.allowance_charge.0.clear();
        doc.invoice_lines = vec![
            example::line(1, "a", dec!(1), dec!(434.785), TaxCategory::new("S", dec!(15))),
            example::line(2, "b", dec!(1), dec!(434.785), TaxCategory::new("S", dec!(15))),
        ];
        compute_document(&mut doc).unwrap();
        let sum_line_vat: Decimal = doc.invoice_lines.iter().map(|l| l.tax_total.tax_amount).sum();
        assert_eq!(doc.tax_total.tax_amount, vat_of(dec!(869.58), dec!(15)).unwrap());
        assert_eq!(sum_line_vat, dec!(130.44));
    }

    #[test]
    fn inclusive_line_total_is_kept_when_within_a_cent() {
        let mut doc = example::standard_invoice("I");
        doc.allowance_charge.0.clear();
        doc.invoice_lines.truncate(1);
        let net = net_from_inclusive_total(dec!(1), dec!(1000.00), dec!(15)).unwrap();
        doc.invoice_lines[0].quantity = dec!(1);
        doc.invoice_lines[0].price.price_per_unit = net.unit_price;
        doc.invoice_lines[0].inclusive_amount = Some(dec!(1000.00));
        compute_document(&mut doc).unwrap();
        let l = &doc.invoice_lines[0];
        assert_eq!(
            (l.amount, l.tax_total.tax_amount, l.tax_total.rounding_amount),
            (dec!(869.57), dec!(130.43), dec!(1000.00))
        );
        assert_eq!(
            doc.tax_total.tax_amount,
            dec!(130.44),
            "document VAT stays on the category total"
        );
        // An inclusive figure that does not fit the rate is ignored, never forced.
        doc.invoice_lines[0].inclusive_amount = Some(dec!(1100.00));
        compute_document(&mut doc).unwrap();
        assert_eq!(doc.invoice_lines[0].tax_total.tax_amount, dec!(130.44));
    }

    #[test]
    fn zero_quantity_lines_open_no_breakdown() {
        let mut doc = example::standard_invoice("Z");
        doc.invoice_lines.truncate(1);
        doc.invoice_lines.push(example::line(
            2,
            "prepayment",
            dec!(0),
            dec!(0),
            TaxCategory::new("S", dec!(5)),
        ));
        compute_document(&mut doc).unwrap();
        assert_eq!(doc.tax_total.subtotals().len(), 1);
    }

    #[test]
    fn one_category_uses_tax_subtotal() {
        let mut doc = example::credit_note("CN-1", "INV-1");
        compute_document(&mut doc).unwrap();
        assert!(doc.tax_total.tax_subtotal.is_some());
        assert!(doc.tax_total.tax_subtotals.is_none());
    }

    #[test]
    fn foreign_currency_gets_a_sar_tax_total() {
        let mut doc = example::standard_invoice("USD-1");
        doc.doc_currency_code = "USD".into();
        doc.tax_exchange_rate = Some(dec!(3.75));
        compute_document(&mut doc).unwrap();
        assert_eq!(
            doc.tax_total.tax_amount_in_tax_currency,
            Some(round2(dec!(20.73) * dec!(3.75)))
        );
        assert_eq!(doc.invoice_lines[0].tax_total.currency, "USD");
    }

    #[test]
    fn prepaid_and_payable_rounding() {
        let mut doc = example::standard_invoice("P");
        doc.legal_monitory_total.prepaid_amount = Some(dec!(100));
        doc.legal_monitory_total.payable_rounding_amount = Some(dec!(-0.02));
        compute_document(&mut doc).unwrap();
        assert_eq!(doc.legal_monitory_total.payable_amount, dec!(255.60));
    }

    #[test]
    fn overflow_is_an_error_not_a_panic() {
        let mut doc = example::standard_invoice("O");
        doc.invoice_lines[0].quantity = Decimal::MAX;
        doc.invoice_lines[0].price.price_per_unit = Decimal::MAX;
        let err = compute_document(&mut doc).unwrap_err();
        assert!(err.to_string().contains("invoice_lines[0]"), "{err}");
    }

    #[test]
    fn inclusive_prices_give_back_the_erp_line_total() {
        // 3 × 11.50 incl. 15% = 34.50 incl. → 30.00 net.
        let p = net_from_inclusive(dec!(3), dec!(11.50), dec!(15)).unwrap();
        assert_eq!(p.line_net, dec!(30.00));
        assert_eq!(round2(dec!(3) * p.unit_price), dec!(30.00));
        // 7 × 9.99 incl. 15% = 69.93 → 60.81 net; 60.81 / 7 needs more than 2 decimals.
        let p = net_from_inclusive(dec!(7), dec!(9.99), dec!(15)).unwrap();
        assert_eq!(p.line_net, dec!(60.81));
        assert_eq!(round2(dec!(7) * p.unit_price), dec!(60.81));
        assert!(p.unit_price.scale() > 2);
    }

    #[test]
    fn compute_all_runs_in_parallel_with_the_same_results() {
        let mut docs: Vec<Document> = (0..64).map(|i| example::standard_invoice(&format!("N{i}"))).collect();
        let results = compute_all(&mut docs);
        assert!(results.iter().all(Result::is_ok));
        assert!(
            docs.iter()
                .all(|d| d.legal_monitory_total.payable_amount == dec!(355.62))
        );
    }
}

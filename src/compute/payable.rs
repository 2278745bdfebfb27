//! The export's own totals when per-line rounding alone explains how they differ from the
//! computed ones (zatca.md §1.10, §3.1, §3.2).
//!
//! An ERP that prints each line's VAT and amount with VAT rounded on its own (tax-inclusive
//! prices above all: the line total the buyer saw is kept, KSA-12, and its VAT is what is left)
//! adds those up into its totals, while the authority computes VAT once per category total
//! (BT-117 = round2(BT-116 × rate ÷ 100)). The two can be a few cents apart, and the buyer was
//! charged the export's total. The standard lets the amount due (BT-115) differ from the total
//! with VAT (BT-112) by a rounding amount, BT-114 (`PayableRoundingAmount`, which may be negative:
//! BR-CO-16, BT-115 = BT-112 − BT-113 + BT-114). The authority's sample
//! `standard-invoice-with-payable-rounding-adjustment.xml` does exactly this: one line of 1000.00
//! with VAT, VAT 130.44 on the category, BT-112 1000.01, BT-114 −0.01, BT-115 1000.00.
//!
//! A difference is taken for per-line rounding only when all of these hold:
//! - the export's figure is exactly the sum of the lines' own figures as computed (Σ KSA-12 for
//!   the total with VAT, Σ KSA-11 for the VAT total);
//! - the document has no document-level charge and no prepaid amount (their VAT belongs to no
//!   line). A discount on the whole document is taken as an ERP that gives it before tax takes
//!   it (Zoho Books): spread over the lines of its VAT category in proportion to their nets
//!   ([`discount_shares`]), each line's VAT computed on its net less its share; the lines' own
//!   figures are then those, and the total without VAT is the computed one;
//! - it is at most [`ROUNDING_PER_LINE`] per line that carries VAT ([`rounding_bound`]). A line's
//!   VAT rounded on its own is less than 0.006 from its exact share (0.005 × (1 + rate) for an
//!   inclusive line at a rate up to 20 %), and the category's own rounding adds at most 0.005:
//!   one cent per line holds every real case and is the authority's own tolerance between the
//!   lines and the breakdown (BR-CO-17 / BR-S-09, `count(InvoiceLine) × 0.01`).

use super::{Totals, overflow, round2, vat_of};
use crate::model::{Document, TaxCategory};
use rust_decimal::Decimal;

/// The most per-line rounding can make a total differ by, per line that carries VAT: 0.01.
pub const ROUNDING_PER_LINE: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

/// The most per-line rounding can explain in `doc`: [`ROUNDING_PER_LINE`] × the lines whose
/// rate is not zero (a line without VAT rounds nothing).
pub fn rounding_bound(doc: &Document) -> Decimal {
    let taxed = doc
        .invoice_lines
        .iter()
        .filter(|l| !l.item.classified_tax_category.percent.is_zero())
        .count();
    // A document has far fewer lines than a Decimal can count.
    ROUNDING_PER_LINE * Decimal::from(taxed)
}

/// Per line, its share of the discounts on the whole document of its VAT category, in
/// proportion to its net among that category's lines (not rounded); `None` when the document
/// has no such discount, or one of a category no line has (it belongs to no line).
pub fn discount_shares(doc: &Document, t: &Totals) -> Option<Vec<Decimal>> {
    if t.allowance_total.is_zero() {
        return None;
    }
    // Per VAT breakdown of the lines: its category, its lines' net total, its discounts.
    let mut cats: Vec<(&TaxCategory, Decimal, Decimal)> = Vec::new();
    for (line, a) in doc.invoice_lines.iter().zip(&t.lines) {
        let cat = &line.item.classified_tax_category;
        match cats.iter_mut().find(|(c, _, _)| c.same_breakdown(cat)) {
            Some((_, nets, _)) => *nets = nets.checked_add(a.net)?,
            None => cats.push((cat, a.net, Decimal::ZERO)),
        }
    }
    for ac in doc.allowance_charge.0.iter().filter(|ac| !ac.charge_indicator) {
        let (_, nets, off) = cats.iter_mut().find(|(c, _, _)| c.same_breakdown(&ac.tax_category))?;
        if nets.is_zero() {
            return None;
        }
        *off = off.checked_add(round2(ac.amount))?;
    }
    doc.invoice_lines
        .iter()
        .zip(&t.lines)
        .map(|(line, a)| {
            let cat = &line.item.classified_tax_category;
            let (_, nets, off) = cats.iter().find(|(c, _, _)| c.same_breakdown(cat))?;
            if off.is_zero() {
                return Some(Decimal::ZERO);
            }
            off.checked_mul(a.net)?.checked_div(*nets)
        })
        .collect()
}

/// Per line, its VAT on its net less its share of the document's discount ([`discount_shares`]):
/// the line VAT an ERP that spreads the discount over the lines prints. `None` without such a
/// discount.
pub fn discounted_line_vat(doc: &Document, t: &Totals) -> Option<Vec<Decimal>> {
    let shares = discount_shares(doc, t)?;
    doc.invoice_lines
        .iter()
        .zip(&t.lines)
        .zip(shares)
        .map(|((line, a), share)| vat_of(a.net.checked_sub(share)?, line.item.classified_tax_category.percent))
        .collect()
}

/// `stated − computed` when the difference is per-line rounding (see the module): `per_line`
/// the lines' own figures, added up. None when it is not, or when there is no difference.
fn explained(
    doc: &Document,
    t: &Totals,
    stated: Decimal,
    mut per_line: impl Iterator<Item = Decimal>,
    computed: Decimal,
) -> Option<Decimal> {
    if !(t.charge_total.is_zero() && t.prepaid.is_zero()) {
        return None;
    }
    let sum = per_line.try_fold(Decimal::ZERO, |a, v| a.checked_add(v))?;
    if sum != stated {
        return None;
    }
    // From the sum, not from `stated`: the same value, with the lines' two decimals.
    let d = sum.checked_sub(computed)?;
    (!d.is_zero() && d.abs() <= rounding_bound(doc)).then_some(d)
}

/// The export's total with VAT (`stated`) minus BT-112, when per-line rounding explains it:
/// the payable rounding amount (BT-114) that makes the amount due what the export says.
pub fn total_rounding(doc: &Document, t: &Totals, stated: Decimal) -> Option<Decimal> {
    if t.allowance_total.is_zero() {
        return explained(doc, t, stated, t.lines.iter().map(|l| l.with_vat), t.tax_inclusive);
    }
    // The lines' nets less the discount, and the VAT of each line on what is left of it.
    let vats = discounted_line_vat(doc, t)?;
    explained(
        doc,
        t,
        stated,
        std::iter::once(t.tax_exclusive).chain(vats),
        t.tax_inclusive,
    )
}

/// The export's VAT total (`stated`) minus BT-110, when per-line rounding explains it.
pub fn vat_rounding(doc: &Document, t: &Totals, stated: Decimal) -> Option<Decimal> {
    if t.allowance_total.is_zero() {
        return explained(doc, t, stated, t.lines.iter().map(|l| l.vat), t.tax_total);
    }
    explained(doc, t, stated, discounted_line_vat(doc, t)?.into_iter(), t.tax_total)
}

/// Make the amount due of a computed document (`t` its totals) the export's total with VAT
/// (`stated`), through a payable rounding amount (BT-114), when per-line rounding explains the
/// difference ([`total_rounding`]) and it is more than `tolerated` (the difference the export
/// comparison lets pass as it is). Sets BT-114 and BT-115 in the document and in `t` alike, so
/// that `t` stays [`super::totals`] of the document; returns the rounding amount. Nothing is
/// changed for a document that has a rounding amount of its own.
pub fn round_payable_to(
    doc: &mut Document,
    t: &mut Totals,
    stated: Decimal,
    tolerated: Decimal,
) -> Result<Option<Decimal>, super::ComputeError> {
    if doc
        .legal_monitory_total
        .payable_rounding_amount
        .is_some_and(|r| !r.is_zero())
    {
        return Ok(None);
    }
    let Some(r) = total_rounding(doc, t, stated).filter(|r| r.abs() > tolerated) else {
        return Ok(None);
    };
    let payable = t
        .tax_inclusive
        .checked_sub(t.prepaid)
        .and_then(|v| v.checked_add(r))
        .ok_or_else(|| overflow("legal_monitory_total.payable_amount"))?;
    doc.legal_monitory_total.payable_rounding_amount = Some(r);
    doc.legal_monitory_total.payable_amount = payable;
    t.payable_rounding = r;
    t.payable = payable;
    Ok(Some(r))
}

#[cfg(test)]
#[path = "payable_tests.rs"]
mod tests;

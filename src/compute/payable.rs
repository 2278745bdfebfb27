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
//! - the document has no document-level discount or charge and no prepaid amount (their VAT
//!   belongs to no line);
//! - it is at most [`ROUNDING_PER_LINE`] per line that carries VAT ([`rounding_bound`]). A line's
//!   VAT rounded on its own is less than 0.006 from its exact share (0.005 × (1 + rate) for an
//!   inclusive line at a rate up to 20 %), and the category's own rounding adds at most 0.005:
//!   one cent per line holds every real case and is the authority's own tolerance between the
//!   lines and the breakdown (BR-CO-17 / BR-S-09, `count(InvoiceLine) × 0.01`).

use super::{Totals, overflow};
use crate::model::Document;
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

/// `stated − computed` when the difference is per-line rounding (see the module): `per_line`
/// the lines' own figures, added up. None when it is not, or when there is no difference.
fn explained(
    doc: &Document,
    t: &Totals,
    stated: Decimal,
    mut per_line: impl Iterator<Item = Decimal>,
    computed: Decimal,
) -> Option<Decimal> {
    if !(t.allowance_total.is_zero() && t.charge_total.is_zero() && t.prepaid.is_zero()) {
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
    explained(doc, t, stated, t.lines.iter().map(|l| l.with_vat), t.tax_inclusive)
}

/// The export's VAT total (`stated`) minus BT-110, when per-line rounding explains it.
pub fn vat_rounding(doc: &Document, t: &Totals, stated: Decimal) -> Option<Decimal> {
    explained(doc, t, stated, t.lines.iter().map(|l| l.vat), t.tax_total)
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

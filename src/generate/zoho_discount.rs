//! Zoho Books' discount on the whole invoice (`Discount Type` `entity_level`, given before tax),
//! for some generated invoices: every fourth invoice at prices without VAT whose lines have no
//! discount of their own (Zoho takes a discount on the items or on the whole invoice, not both)
//! gets 5 % off the lines' net total. The export's figures are those invoicedrop computes for
//! it: the discount split across the VAT categories as [`split_in_proportion`] splits it, VAT on
//! each category's net less its part, and each line's `Item Tax Amount` on the line less its
//! share of its category's part, as Zoho prints it. Other layouts are untouched.

use super::model::{GenDoc, Kind, Tax};
use crate::compute::{round2, split_in_proportion, vat_of};
use rust_decimal::Decimal;

/// The discount of an invoice and the figures it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntityDiscount {
    /// `Entity Discount Percent`.
    pub(crate) percent: Decimal,
    /// `Entity Discount Amount`.
    pub(crate) amount: Decimal,
    /// Per line, its `Item Tax Amount`.
    pub(crate) line_vat: Vec<Decimal>,
    /// `Total`: the lines' net less the discount, plus the VAT.
    pub(crate) total: Decimal,
}

/// The VAT category invoicedrop reads from a line's Zoho tax: zero-rated and out-of-scope lines
/// are both Zoho's "Zero Rate".
fn category(t: Tax) -> Tax {
    if t == Tax::O { Tax::Z } else { t }
}

/// The discount on the whole invoice `doc` gets, if any.
pub(crate) fn entity_discount(doc: &GenDoc) -> Option<EntityDiscount> {
    if doc.kind != Kind::Invoice
        || doc.inclusive
        || !doc.seq.is_multiple_of(4)
        || doc
            .lines
            .iter()
            .any(|l| !l.discount_amount.is_zero() || !l.discount_percent.is_zero())
    {
        return None;
    }
    let percent = Decimal::from(5);
    let amount = round2(doc.net_total.checked_mul(percent)? / Decimal::ONE_HUNDRED);
    if amount.is_zero() {
        return None;
    }
    // The categories in order of first appearance, with their lines' net totals.
    let mut cats: Vec<(Tax, Decimal)> = Vec::new();
    for l in &doc.lines {
        let c = category(l.tax);
        match cats.iter_mut().find(|(t, _)| *t == c) {
            Some((_, net)) => *net += l.net,
            None => cats.push((c, l.net)),
        }
    }
    let nets: Vec<Decimal> = cats.iter().map(|(_, n)| *n).collect();
    let parts = split_in_proportion(amount, &nets)?;
    let mut vat = Decimal::ZERO;
    for ((t, net), part) in cats.iter().zip(&parts) {
        vat += vat_of(*net - *part, t.percent())?;
    }
    let line_vat = doc
        .lines
        .iter()
        .map(|l| {
            let c = category(l.tax);
            let at = cats.iter().position(|(t, _)| *t == c)?;
            let (net, part) = (cats[at].1, parts[at]);
            let share = if net.is_zero() {
                Decimal::ZERO
            } else {
                part * l.net / net
            };
            vat_of(l.net - share, l.tax.percent())
        })
        .collect::<Option<Vec<_>>>()?;
    Some(EntityDiscount {
        percent,
        amount,
        line_vat,
        total: doc.net_total - amount + vat,
    })
}

#[cfg(test)]
mod tests {
    use super::super::layouts::Layout;
    use super::super::model::DocStream;
    use super::*;
    use chrono::NaiveDate;

    /// Some Zoho invoices get a discount on the whole invoice, and its figures are those
    /// invoicedrop computes: the parts add up to the discount, the Total is the net less the
    /// discount plus each category's VAT on what is left, and a line's VAT is on the line less its
    /// share.
    #[test]
    fn every_fourth_plain_invoice_gets_five_percent_off_with_the_figures_computed() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        let l = Layout::ZohoBooks;
        let docs: Vec<GenDoc> = DocStream::new(7, 3_000, today, l.features(), l.numbering()).collect();
        let mut given = 0;
        for d in &docs {
            let Some(e) = entity_discount(d) else {
                assert!(
                    d.inclusive
                        || !d.seq.is_multiple_of(4)
                        || d.lines.iter().any(|l| !l.discount_amount.is_zero())
                        || d.kind != Kind::Invoice,
                    "{d:?}"
                );
                continue;
            };
            given += 1;
            assert_eq!(e.amount, round2(d.net_total * e.percent / Decimal::ONE_HUNDRED));
            assert_eq!(e.line_vat.len(), d.lines.len());
            // Never more VAT than without the discount, and the total lower by at least the
            // discount.
            assert!(e.line_vat.iter().zip(&d.lines).all(|(v, l)| *v <= l.vat));
            assert!(e.total <= d.total - e.amount, "{e:?} {d:?}");
            // One category: its VAT on the net less the discount.
            if d.lines.iter().all(|l| l.tax == Tax::S15) {
                assert_eq!(
                    e.total,
                    d.net_total - e.amount + vat_of(d.net_total - e.amount, Decimal::from(15)).unwrap()
                );
            }
        }
        assert!(given > 20, "{given} invoices with a discount on the whole invoice");
    }
}

//! An amount split across VAT categories in proportion to their bases (a discount on the whole
//! document across the categories of its lines, zatca.md §1.8: each document-level allowance
//! has one category, BR-32).
//!
//! Each part is its exact share rounded half up to 2 decimals ([`round2`]); what rounding leaves
//! over (at most half a cent per part) goes to the part of the largest base, so the parts add up
//! to the amount exactly. With four parts or more the leftover can be more than a cent: it then
//! goes a cent at a time to the largest bases whose parts stay within a cent of their exact
//! shares (and at zero or above), so every part is always within 0.01 of its exact share.

use super::round2;
use rust_decimal::Decimal;

/// `total` (2 decimals, zero or more) split in proportion to `bases` (each zero or more, at least
/// one above zero): one part per base, each with 2 decimals, zero or more and within 0.01 of
/// `total × base ÷ Σ bases`, adding up to `total` exactly. `None` when it cannot be: a negative
/// or sub-cent total, a negative base, bases that add up to zero, or amounts too large.
pub fn split_in_proportion(total: Decimal, bases: &[Decimal]) -> Option<Vec<Decimal>> {
    if total < Decimal::ZERO || round2(total) != total || bases.iter().any(|b| *b < Decimal::ZERO) {
        return None;
    }
    let sum = bases.iter().try_fold(Decimal::ZERO, |a, b| a.checked_add(*b))?;
    if sum.is_zero() {
        return None;
    }
    let exact: Vec<Decimal> = bases
        .iter()
        .map(|b| total.checked_mul(*b)?.checked_div(sum))
        .collect::<Option<_>>()?;
    let mut parts: Vec<Decimal> = exact.iter().copied().map(round2).collect();
    let mut left = parts.iter().try_fold(total, |a, p| a.checked_sub(*p))?;
    // Largest base first; of equal bases, the first.
    let mut order: Vec<usize> = (0..bases.len()).collect();
    order.sort_by(|&a, &b| bases[b].cmp(&bases[a]));
    let cent = Decimal::new(1, 2);
    // One pass per cent left over; at most half a cent per part, so a few passes.
    while !left.is_zero() {
        let step = if left > Decimal::ZERO { cent } else { -cent };
        // Some part is below (above) its exact share while cents are left over (taken back),
        // so one always fits.
        let i = order.iter().copied().find(|&i| {
            let p = parts[i] + step;
            p >= Decimal::ZERO && (p - exact[i]).abs() <= cent
        })?;
        parts[i] += step;
        left -= step;
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    #[test]
    fn one_base_takes_it_all_and_the_leftover_goes_to_the_largest() {
        assert_eq!(split_in_proportion(dec!(10.00), &[dec!(840)]), Some(vec![dec!(10.00)]));
        // 234 on 840 and 1500: 84.00 and 150.00 exactly.
        assert_eq!(
            split_in_proportion(dec!(234.00), &[dec!(840), dec!(1500)]),
            Some(vec![dec!(84.00), dec!(150.00)])
        );
        // 10.00 in three equal parts: 3.33 each, the cent left over on the first largest.
        assert_eq!(
            split_in_proportion(dec!(10.00), &[dec!(5), dec!(5), dec!(5)]),
            Some(vec![dec!(3.34), dec!(3.33), dec!(3.33)])
        );
        // 0.05 on 1 and 2: 0.0167 → 0.02 and 0.0333 → 0.03: nothing left over.
        assert_eq!(
            split_in_proportion(dec!(0.05), &[dec!(1), dec!(2)]),
            Some(vec![dec!(0.02), dec!(0.03)])
        );
        // Five parts each rounded up: the cents taken back from the largest ones.
        let parts = split_in_proportion(dec!(0.03), &[dec!(1); 5]).unwrap();
        assert_eq!(parts.iter().sum::<Decimal>(), dec!(0.03));
        assert!(
            parts.iter().all(|p| *p >= Decimal::ZERO && *p <= dec!(0.01)),
            "{parts:?}"
        );
        // A zero base takes nothing.
        assert_eq!(
            split_in_proportion(dec!(1.00), &[dec!(0), dec!(3)]),
            Some(vec![dec!(0), dec!(1.00)])
        );
    }

    #[test]
    fn what_cannot_be_split_is_none() {
        assert_eq!(split_in_proportion(dec!(1.00), &[]), None);
        assert_eq!(split_in_proportion(dec!(1.00), &[dec!(0)]), None);
        assert_eq!(split_in_proportion(dec!(-1.00), &[dec!(1)]), None);
        assert_eq!(split_in_proportion(dec!(1.005), &[dec!(1)]), None);
        assert_eq!(split_in_proportion(dec!(1.00), &[dec!(2), dec!(-1)]), None);
    }

    proptest! {
        /// The parts add up to the total exactly, each is zero or more, and each is within a cent
        /// of its exact share of the total.
        #[test]
        fn parts_add_up_and_are_proportional(
            cents in 0i64..100_000_000,
            bases in prop::collection::vec(0i64..10_000_000, 1..7),
            base_scale in 0u32..4,
        ) {
            let bases: Vec<Decimal> = bases.into_iter().map(|b| Decimal::new(b, base_scale)).collect();
            let total = Decimal::new(cents, 2);
            let sum: Decimal = bases.iter().sum();
            let parts = split_in_proportion(total, &bases);
            if sum.is_zero() {
                prop_assert_eq!(parts, None);
                return Ok(());
            }
            let parts = parts.expect("a split");
            prop_assert_eq!(parts.len(), bases.len());
            prop_assert_eq!(parts.iter().sum::<Decimal>(), total);
            for (p, b) in parts.iter().zip(&bases) {
                prop_assert!(*p >= Decimal::ZERO, "{:?}", parts);
                prop_assert_eq!(round2(*p), *p);
                let exact = total * *b / sum;
                prop_assert!((*p - exact).abs() <= dec!(0.01), "{} for {} of {}", p, exact, total);
            }
        }
    }
}

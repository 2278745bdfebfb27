use super::*;
use crate::compute::{compute_document_totals, net_from_inclusive_total, round2, totals};
use crate::model::{AllowanceCharge, TaxCategory, example};
use proptest::prelude::*;
use rust_decimal_macros::dec;

/// A standard invoice of lines sold at tax-inclusive prices, built as the mapping builds them:
/// `(quantity, line total with VAT, rate)`, the net unit price derived from the line total and
/// that total kept as the line's amount with VAT. Computed; its totals returned with it.
fn inclusive(lines: &[(Decimal, Decimal, Decimal)]) -> (Document, Totals) {
    let mut doc = example::standard_invoice("INC-1");
    doc.allowance_charge.0.clear();
    doc.invoice_lines = lines
        .iter()
        .enumerate()
        .map(|(i, &(q, incl, rate))| {
            let price = net_from_inclusive_total(q, incl, rate).expect("a net price").unit_price;
            let category = if rate.is_zero() {
                TaxCategory {
                    exemption_reason_code: Some("VATEX-SA-35".into()),
                    exemption_reason: Some("Medicines and medical equipment".into()),
                    ..TaxCategory::new("Z", Decimal::ZERO)
                }
            } else {
                TaxCategory::new("S", rate)
            };
            let mut l = example::line(i + 1, "Item", q, price, category);
            l.inclusive_amount = Some(incl);
            l
        })
        .collect();
    let t = compute_document_totals(&mut doc).expect("computes");
    (doc, t)
}

fn ten_tens(n: usize) -> (Document, Totals) {
    inclusive(&vec![(dec!(1), dec!(10.00), dec!(15)); n])
}

#[test]
fn three_lines_of_ten_with_vat_are_due_thirty() {
    let (mut doc, mut t) = ten_tens(3);
    // Each line: net 8.70, VAT 1.30 (the line total kept); the category: 26.10 × 15 % = 3.915.
    assert_eq!(
        (t.tax_exclusive, t.tax_total, t.tax_inclusive),
        (dec!(26.10), dec!(3.92), dec!(30.02))
    );
    assert_eq!(total_rounding(&doc, &t, dec!(30.00)), Some(dec!(-0.02)));
    assert_eq!(vat_rounding(&doc, &t, dec!(3.90)), Some(dec!(-0.02)));
    assert_eq!(
        round_payable_to(&mut doc, &mut t, dec!(30.00), dec!(0.01)),
        Ok(Some(dec!(-0.02)))
    );
    let lmt = &doc.legal_monitory_total;
    assert_eq!(
        (
            lmt.tax_inclusive_amount,
            lmt.payable_rounding_amount,
            lmt.payable_amount
        ),
        (dec!(30.02), Some(dec!(-0.02)), dec!(30.00))
    );
    // Two decimals, as the wire and the XML carry them.
    assert_eq!(lmt.payable_amount.scale(), 2);
    assert_eq!(lmt.payable_rounding_amount.map(|r| r.scale()), Some(2));
    assert_eq!(totals(&doc), Ok(t.clone()), "the totals stay those of the document");
    // Computing again keeps the rounding amount (the sandbox and the ledger see the same sums).
    assert_eq!(compute_document_totals(&mut doc), Ok(t));
    assert_eq!(doc.legal_monitory_total.payable_amount, dec!(30.00));
}

#[test]
fn a_difference_rounding_does_not_explain_is_left_alone() {
    let (doc, t) = ten_tens(3);
    // Not the sum of the lines' totals: a line or a figure of the export is wrong.
    assert_eq!(total_rounding(&doc, &t, dec!(30.01)), None);
    assert_eq!(total_rounding(&doc, &t, dec!(29.00)), None);
    assert_eq!(vat_rounding(&doc, &t, dec!(3.91)), None);
    // No difference: nothing to round.
    let (doc, t) = inclusive(&[(dec!(2), dec!(23.00), dec!(15)), (dec!(1), dec!(11.50), dec!(15))]);
    assert_eq!(
        (t.tax_inclusive, total_rounding(&doc, &t, dec!(34.50))),
        (dec!(34.50), None)
    );
    // A document discount or a prepaid amount: their VAT is no line's.
    let (mut doc, _) = ten_tens(3);
    doc.allowance_charge.0.push(AllowanceCharge {
        charge_indicator: false,
        reason: "Discount".into(),
        reason_code: Some("95".into()),
        amount: dec!(0.01),
        base_amount: None,
        multiplier_factor: None,
        currency: "SAR".into(),
        tax_category: TaxCategory::new("S", dec!(15)),
    });
    let t = compute_document_totals(&mut doc).unwrap();
    assert_eq!(total_rounding(&doc, &t, dec!(30.00)), None);
    let (mut doc, _) = ten_tens(3);
    doc.legal_monitory_total.prepaid_amount = Some(dec!(5));
    let t = compute_document_totals(&mut doc).unwrap();
    assert_eq!(total_rounding(&doc, &t, dec!(30.00)), None);
}

#[test]
fn the_bound_is_a_cent_per_line_with_vat() {
    let (doc, t) = inclusive(&[
        (dec!(1), dec!(10.00), dec!(15)),
        (dec!(1), dec!(10.00), dec!(15)),
        (dec!(1), dec!(10.00), dec!(15)),
        (dec!(1), dec!(99.00), dec!(0)),
    ]);
    assert_eq!(rounding_bound(&doc), dec!(0.03), "the zero-rated line rounds nothing");
    assert_eq!(total_rounding(&doc, &t, dec!(129.00)), Some(dec!(-0.02)));
    // Over the bound: lines whose amounts with VAT add up to the export's total but are further
    // from the computed total than rounding can take them (not lines as compute makes them).
    let (doc, mut t) = ten_tens(3);
    for l in &mut t.lines {
        l.with_vat = dec!(9.98);
    }
    assert_eq!(total_rounding(&doc, &t, dec!(29.94)), None);
    t.lines[0].with_vat = dec!(10.00);
    t.lines[1].with_vat = dec!(10.01);
    t.lines[2].with_vat = dec!(9.99);
    assert_eq!(total_rounding(&doc, &t, dec!(30.00)), Some(dec!(-0.02)));
}

#[test]
fn a_difference_the_export_comparison_tolerates_or_a_rounding_of_its_own_stays() {
    // Two lines: 17.40 net, VAT 2.61 on the category; the lines' VAT 1.30 each.
    let (mut doc, mut t) = ten_tens(2);
    assert_eq!(t.tax_inclusive, dec!(20.01));
    assert_eq!(total_rounding(&doc, &t, dec!(20.00)), Some(dec!(-0.01)));
    // Within the comparison's tolerance: issued as before (documents issued earlier unchanged).
    assert_eq!(round_payable_to(&mut doc, &mut t, dec!(20.00), dec!(0.01)), Ok(None));
    assert_eq!(doc.legal_monitory_total.payable_rounding_amount, None);
    assert_eq!(doc.legal_monitory_total.payable_amount, dec!(20.01));
    let (mut doc, _) = ten_tens(3);
    doc.legal_monitory_total.payable_rounding_amount = Some(dec!(0.03));
    let mut t = compute_document_totals(&mut doc).unwrap();
    assert_eq!(round_payable_to(&mut doc, &mut t, dec!(30.00), dec!(0.01)), Ok(None));
    assert_eq!(doc.legal_monitory_total.payable_amount, dec!(30.05));
}

/// An ERP that gives a discount on the whole document before tax (Zoho Books) spreads it over the
/// lines and rounds each line's VAT on what is left: per-line rounding as ever.
#[test]
fn a_discount_spread_over_the_lines_rounds_per_line() {
    // Five lines of 10.03 at 15 %, 5.00 off: 1.00 off each, VAT on 9.03 is 1.35 per line (6.75);
    // on the category 45.15 × 15 % = 6.7725 → 6.77, so 51.92 against the ERP's 51.90.
    let mut doc = example::standard_invoice("DSC-1");
    doc.invoice_lines = (1..=5)
        .map(|i| example::line(i, "Item", dec!(1), dec!(10.03), TaxCategory::new("S", dec!(15))))
        .collect();
    doc.allowance_charge.0[0].amount = dec!(5.00);
    let mut t = compute_document_totals(&mut doc).unwrap();
    assert_eq!(
        (t.tax_exclusive, t.tax_total, t.tax_inclusive),
        (dec!(45.15), dec!(6.77), dec!(51.92))
    );
    assert_eq!(discount_shares(&doc, &t), Some(vec![dec!(1); 5]));
    assert_eq!(discounted_line_vat(&doc, &t), Some(vec![dec!(1.35); 5]));
    assert_eq!(vat_rounding(&doc, &t, dec!(6.75)), Some(dec!(-0.02)));
    assert_eq!(total_rounding(&doc, &t, dec!(51.90)), Some(dec!(-0.02)));
    // The lines' VAT without the discount (7.50) is not that.
    assert_eq!(vat_rounding(&doc, &t, dec!(7.50)), None);
    assert_eq!(
        round_payable_to(&mut doc, &mut t, dec!(51.90), dec!(0.01)),
        Ok(Some(dec!(-0.02)))
    );
    assert_eq!(doc.legal_monitory_total.payable_amount, dec!(51.90));
    // A discount of a category no line has belongs to no line: no rounding.
    doc.allowance_charge.0[0].tax_category = TaxCategory::new("S", dec!(5));
    let t = compute_document_totals(&mut doc).unwrap();
    assert_eq!(discount_shares(&doc, &t), None);
    assert_eq!(total_rounding(&doc, &t, dec!(51.90)), None);
}

#[test]
fn amounts_too_large_are_no_rounding_and_no_panic() {
    let (doc, mut t) = ten_tens(3);
    t.lines[0].with_vat = Decimal::MAX;
    t.lines[1].with_vat = Decimal::MAX;
    assert_eq!(total_rounding(&doc, &t, Decimal::MAX), None);
    let (doc, t) = ten_tens(3);
    assert_eq!(total_rounding(&doc, &t, Decimal::MIN), None);
}

/// A line sold at an inclusive price: quantity, unit price with VAT (cents), rate.
fn line() -> impl Strategy<Value = (Decimal, Decimal, Decimal)> {
    (
        prop_oneof![
            (1i64..20).prop_map(Decimal::from),
            (1i64..5000, 1u32..4).prop_map(|(m, s)| Decimal::new(m, s)),
        ],
        1i64..500_000,
        prop_oneof![Just(dec!(15)), Just(dec!(5)), Just(Decimal::ZERO)],
    )
        .prop_map(|(q, cents, rate)| (q, round2(q * Decimal::new(cents, 2)), rate))
        .prop_filter("a line of at least a cent", |(_, incl, _)| *incl > Decimal::ZERO)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// For any lines at tax-inclusive prices, the export's total (the lines' totals added up)
    /// is always within the bound of the computed one, and once rounded to, the amount due is
    /// that total, the rounding amount is BT-115 − BT-112 (BR-CO-16), and every arithmetic rule
    /// of the authority holds on the document sent.
    #[test]
    fn the_amount_due_of_inclusive_lines_is_the_exports_total(lines in prop::collection::vec(line(), 1..15)) {
        let (mut doc, mut t) = inclusive(&lines);
        let stated: Decimal = lines.iter().map(|l| l.1).sum();
        let before = t.tax_inclusive;
        let r = round_payable_to(&mut doc, &mut t, stated, Decimal::ZERO).unwrap();
        prop_assert_eq!(r.is_none(), stated == before, "rounding explains every difference: {} vs {}", stated, before);
        let lmt = &doc.legal_monitory_total;
        prop_assert_eq!(lmt.payable_amount, stated);
        prop_assert_eq!(lmt.tax_inclusive_amount, before);
        let rounding = lmt.payable_rounding_amount.unwrap_or_default();
        prop_assert!(rounding.abs() <= rounding_bound(&doc));
        prop_assert_eq!(lmt.payable_amount, lmt.tax_inclusive_amount + rounding);
        prop_assert_eq!(lmt.tax_inclusive_amount, lmt.tax_exclusive_amount + doc.tax_total.tax_amount);
        prop_assert!(lmt.payable_amount == round2(lmt.payable_amount) && rounding == round2(rounding));
        prop_assert_eq!(totals(&doc), Ok(t));
        let ctx = crate::validate::Context::new(
            chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 11, 1, 8, 0, 0).unwrap(),
        );
        let bad: Vec<_> = crate::validate::validate(&doc, &ctx)
            .into_iter()
            .filter(|f| f.is_error() || f.code.starts_with("BR-CO-") || f.code.starts_with("BR-S-") || f.code == "BR-KSA-51")
            .collect();
        prop_assert!(bad.is_empty(), "{:#?}", bad);
    }
}

//! Property: whatever valid-shaped document compute fills in, validate finds no arithmetic fault.
//! Computed totals satisfy every arithmetic rule exactly, so the client never sends a document the
//! authority would reject for its sums.

use super::testkit::{check, standard};
use crate::compute::{compute_document, round2};
use crate::model::{AllowanceCharge, Document, LineAllowanceCharge, TaxCategory, example};
use proptest::prelude::*;
use rust_decimal::Decimal;

/// Codes of the arithmetic rules.
fn arithmetic(code: &str) -> bool {
    code.starts_with("BR-CO-")
        || code.starts_with("BR-DEC-")
        || matches!(
            code,
            "BR-S-08"
                | "BR-S-09"
                | "BR-Z-08"
                | "BR-Z-09"
                | "BR-E-08"
                | "BR-E-09"
                | "BR-O-08"
                | "BR-O-09"
                | "BR-KSA-51"
                | "BR-KSA-EN16931-03"
                | "BR-KSA-EN16931-07"
                | "BR-KSA-EN16931-11"
                | "BR-KSA-DEC-03"
                | "BR-KSA-DEC-04"
                | "INV-AMOUNT-TOO-LARGE"
        )
}

fn category(k: u8) -> TaxCategory {
    match k % 5 {
        0 => TaxCategory::new("S", Decimal::from(15)),
        1 => TaxCategory::new("S", Decimal::from(5)),
        2 => TaxCategory {
            exemption_reason_code: Some("VATEX-SA-35".into()),
            exemption_reason: Some("Medicines".into()),
            ..TaxCategory::new("Z", Decimal::ZERO)
        },
        3 => example::exempt_financial(),
        _ => example::out_of_scope(),
    }
}

/// A decimal `mantissa × 10^-scale`.
fn decimal(max: i64, max_scale: u32) -> impl Strategy<Value = Decimal> {
    (0..=max, 0..=max_scale).prop_map(|(m, s)| Decimal::new(m, s))
}

#[derive(Debug, Clone)]
struct LineSpec {
    quantity: Decimal,
    price: Decimal,
    base: Option<Decimal>,
    category: u8,
    /// (charge?, amount with 2 decimals)
    adjustments: Vec<(bool, Decimal)>,
    /// Gross price and discount per unit, when the price is given after a price discount.
    price_discount: Option<Decimal>,
}

fn line_spec() -> impl Strategy<Value = LineSpec> {
    (
        decimal(1_000_000, 6).prop_filter("non-zero", |q| !q.is_zero()),
        decimal(100_000_000, 6),
        prop::option::of(prop::sample::select(vec![1i64, 2, 3, 12])),
        0u8..5,
        prop::collection::vec((any::<bool>(), decimal(5_000, 2)), 0..3),
        prop::option::of(decimal(1_000, 2)),
    )
        .prop_map(
            |(quantity, price, base, category, adjustments, price_discount)| LineSpec {
                quantity,
                price,
                base: base.map(Decimal::from),
                category,
                adjustments,
                price_discount,
            },
        )
}

#[derive(Debug, Clone)]
struct DocSpec {
    lines: Vec<LineSpec>,
    /// (charge?, line whose category it takes, percent of that category's total)
    document_level: Vec<(bool, usize, u8)>,
    prepaid_percent: Option<u8>,
    rounding_cents: i64,
    simplified: bool,
}

fn doc_spec() -> impl Strategy<Value = DocSpec> {
    (
        prop::collection::vec(line_spec(), 1..7),
        prop::collection::vec((any::<bool>(), 0usize..7, 0u8..=60), 0..3),
        prop::option::of(0u8..=100),
        -2i64..=2,
        any::<bool>(),
    )
        .prop_map(
            |(lines, document_level, prepaid_percent, rounding_cents, simplified)| DocSpec {
                lines,
                document_level,
                prepaid_percent,
                rounding_cents,
                simplified,
            },
        )
}

fn build(spec: &DocSpec) -> Option<Document> {
    let mut doc = if spec.simplified {
        super::testkit::simplified()
    } else {
        standard()
    };
    doc.allowance_charge.0.clear();
    doc.invoice_lines = spec
        .lines
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut line = example::line(i + 1, "Item", s.quantity, s.price, category(s.category));
            line.price.base_quantity = s.base;
            if let Some(d) = s.price_discount {
                line.price.allowance_charge = Some(crate::model::PriceAllowanceCharge {
                    charge_indicator: false,
                    reason: "discount".into(),
                    amount: d,
                    base_amount: s.price + d,
                    currency: "SAR".into(),
                });
            }
            let base = s.base.unwrap_or(Decimal::ONE);
            let gross = round2(s.quantity * s.price / base);
            let mut net = gross;
            for (charge, amount) in &s.adjustments {
                if *charge {
                    net += amount;
                } else if *amount <= net {
                    net -= amount;
                } else {
                    continue;
                }
                line.allowance_charges.push(LineAllowanceCharge {
                    charge_indicator: *charge,
                    reason: if *charge { "freight" } else { "discount" }.into(),
                    reason_code: Some(if *charge { "FC" } else { "95" }.into()),
                    amount: *amount,
                });
            }
            line
        })
        .collect();
    compute_document(&mut doc).ok()?;
    for (charge, which, percent) in &spec.document_level {
        let line = &doc.invoice_lines[which % doc.invoice_lines.len()];
        let cat = line.item.classified_tax_category.clone();
        let key = cat.breakdown_key();
        let base: Decimal = doc
            .tax_total
            .subtotals()
            .iter()
            .filter(|s| s.tax_category.breakdown_key() == key)
            .map(|s| s.taxable_amount)
            .sum();
        let amount = round2(base * Decimal::from(*percent) / Decimal::ONE_HUNDRED);
        doc.allowance_charge.0.push(AllowanceCharge {
            charge_indicator: *charge,
            reason: if *charge { "handling" } else { "discount" }.into(),
            reason_code: Some(if *charge { "AAA" } else { "95" }.into()),
            amount,
            base_amount: None,
            multiplier_factor: None,
            currency: "SAR".into(),
            tax_category: cat,
        });
        compute_document(&mut doc).ok()?;
    }
    if let Some(p) = spec.prepaid_percent {
        let incl = doc.legal_monitory_total.tax_inclusive_amount;
        doc.legal_monitory_total.prepaid_amount = Some(round2(incl * Decimal::from(p) / Decimal::ONE_HUNDRED));
    }
    doc.legal_monitory_total.payable_rounding_amount = Some(Decimal::new(spec.rounding_cents, 2));
    compute_document(&mut doc).ok()?;
    Some(doc)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn computed_documents_pass_every_arithmetic_rule(spec in doc_spec()) {
        let doc = build(&spec).expect("the generated amounts compute");
        let bad: Vec<_> = check(&doc).into_iter().filter(|f| arithmetic(&f.code)).collect();
        prop_assert!(bad.is_empty(), "{bad:#?}\n{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
}

#[test]
fn the_property_sees_half_cent_cases() {
    // 869.57 at 15% = 130.4355: line VATs and category VAT differ; both are accepted.
    let spec = DocSpec {
        lines: vec![
            LineSpec {
                quantity: Decimal::ONE,
                price: Decimal::new(434_785, 3),
                base: None,
                category: 0,
                adjustments: vec![],
                price_discount: None,
            };
            2
        ],
        document_level: vec![(false, 0, 10)],
        prepaid_percent: Some(50),
        rounding_cents: -1,
        simplified: false,
    };
    let doc = build(&spec).expect("computes");
    let bad: Vec<_> = check(&doc).into_iter().filter(|f| arithmetic(&f.code)).collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Any decimal, from the extremes to 28 decimals.
fn wild() -> impl Strategy<Value = Decimal> {
    prop_oneof![
        Just(Decimal::MAX),
        Just(Decimal::MIN),
        Just(Decimal::ZERO),
        Just(Decimal::new(1, 28)),
        (any::<i64>(), 0u32..=28).prop_map(|(m, s)| Decimal::new(m, s)),
        (any::<u32>(), any::<u32>(), any::<u32>(), any::<bool>(), 0u32..=28)
            .prop_map(|(lo, mid, hi, neg, s)| Decimal::from_parts(lo, mid, hi, neg, s)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn validate_never_panics_on_any_amounts(v in prop::collection::vec(wild(), 24), pick in 0u8..4) {
        let mut d = match pick {
            0 => standard(),
            1 => super::testkit::simplified(),
            2 => super::testkit::credit(),
            _ => super::testkit::debit(),
        };
        let l = &mut d.invoice_lines[0];
        l.quantity = v[0];
        l.price.price_per_unit = v[1];
        l.price.base_quantity = Some(v[2]);
        l.amount = v[3];
        l.tax_total.tax_amount = v[4];
        l.tax_total.rounding_amount = v[5];
        l.item.classified_tax_category.percent = v[6];
        l.allowance_charges.push(LineAllowanceCharge {
            charge_indicator: v[7].is_sign_negative(),
            reason: String::new(),
            reason_code: None,
            amount: v[8],
        });
        l.price.allowance_charge = Some(crate::model::PriceAllowanceCharge {
            charge_indicator: false,
            reason: String::new(),
            amount: v[9],
            base_amount: v[10],
            currency: "SAR".into(),
        });
        d.allowance_charge.0.push(AllowanceCharge {
            charge_indicator: v[11].is_sign_negative(),
            reason: String::new(),
            reason_code: None,
            amount: v[11],
            base_amount: Some(v[12]),
            multiplier_factor: Some(v[13]),
            currency: "SAR".into(),
            tax_category: TaxCategory::new("S", v[14]),
        });
        let t = &mut d.legal_monitory_total;
        t.total_amount = v[15];
        t.tax_exclusive_amount = v[16];
        t.tax_inclusive_amount = v[17];
        t.payable_amount = v[18];
        t.prepaid_amount = Some(v[19]);
        t.payable_rounding_amount = Some(v[20]);
        d.tax_total.tax_amount = v[21];
        d.tax_total.tax_amount_in_tax_currency = Some(v[22]);
        d.tax_exchange_rate = Some(v[23]);
        if let Some(s) = d.tax_total.tax_subtotals.as_mut().and_then(|s| s.first_mut()) {
            s.taxable_amount = v[16];
            s.tax_amount = v[21];
        }
        let erp = super::ErpFigures {
            line_net: vec![Some(v[3])],
            line_vat: vec![Some(v[4])],
            line_gross: vec![Some(v[5])],
            tax_exclusive: Some(v[16]),
            tax_total: Some(v[21]),
            tax_inclusive: Some(v[17]),
            ..Default::default()
        };
        let ctx = super::Context { erp: Some(erp), ..super::testkit::ctx() };
        let _ = super::validate(&d, &ctx);
    }
}

proptest! {
    /// Grouping compares categories without making their keys, and agrees with the keys.
    #[test]
    fn same_breakdown_agrees_with_breakdown_key(
        a in "[ sSzZeEoO]{0,3}",
        b in "[ sSzZeEoO]{0,3}",
        p in 0i64..2000,
        q in 0i64..2000,
        scale_p in 0u32..4,
        scale_q in 0u32..4,
    ) {
        let x = TaxCategory::new(&a, Decimal::new(p, scale_p));
        let y = TaxCategory::new(&b, Decimal::new(q, scale_q));
        prop_assert_eq!(x.same_breakdown(&y), x.breakdown_key() == y.breakdown_key());
        prop_assert!(x.same_breakdown(&x));
    }
}

//! Property tests: for random documents the computed totals satisfy every arithmetic rule of
//! zatca.md §3 exactly, and serialising and parsing a document changes no value.

use chrono::{NaiveDate, NaiveTime};
use invoicedrop::compute::{compute_document, round2};
use invoicedrop::model::{
    AllowanceCharge, AllowanceCharges, Document, DocumentKind, InvoiceType, LineAllowanceCharge, PriceAllowanceCharge,
    TaxCategory, example,
};
use proptest::prelude::*;
use rust_decimal::Decimal;

fn decimal(max_mantissa: i64, max_scale: u32) -> impl Strategy<Value = Decimal> {
    (0..=max_mantissa, 0..=max_scale).prop_map(|(m, s)| Decimal::new(m, s))
}

fn category() -> impl Strategy<Value = TaxCategory> {
    prop_oneof![
        Just(TaxCategory::new("S", Decimal::from(15))),
        Just(TaxCategory::new("S", Decimal::new(1500, 2))),
        Just(TaxCategory::new("S", Decimal::from(5))),
        Just(example::zero_rated_export()),
        Just(example::exempt_financial()),
        Just(example::out_of_scope()),
    ]
}

prop_compose! {
    fn line()(
        qty in decimal(10_000_000, 6).prop_filter("quantity > 0", |q| !q.is_zero()),
        price in decimal(100_000_000, 6),
        base in prop_oneof![Just(None), decimal(1000, 2).prop_filter("> 0", |b| !b.is_zero()).prop_map(Some)],
        cat in category(),
        charges in prop::collection::vec((any::<bool>(), decimal(10_000, 2)), 0..3),
        discount in prop::option::of(decimal(1000, 2)),
        name in "[a-zA-Z ]{3,20}|[ء-ي ]{3,20}",
    ) -> invoicedrop::model::Line {
        let mut l = example::line(1, &name, qty, price, cat);
        l.price.base_quantity = base;
        l.price.allowance_charge = discount.map(|d| PriceAllowanceCharge {
            charge_indicator: false,
            reason: "discount".into(),
            amount: d,
            base_amount: price + d,
            currency: "SAR".into(),
        });
        l.allowance_charges = charges
            .into_iter()
            .map(|(charge, amount)| LineAllowanceCharge { charge_indicator: charge, reason: "r".into(), reason_code: None, amount })
            .collect();
        l
    }
}

prop_compose! {
    fn document()(
        lines in prop::collection::vec(line(), 1..8),
        doc_acs in prop::collection::vec((any::<bool>(), decimal(50_000, 2), category()), 0..3),
        kind in prop_oneof![Just(DocumentKind::Invoice), Just(DocumentKind::CreditNote), Just(DocumentKind::DebitNote)],
        simplified in any::<bool>(),
        currency in prop_oneof![Just("SAR"), Just("USD")],
        prepaid in prop::option::of(decimal(10_000, 2)),
        number in "[A-Z]{2,4}-[0-9]{1,8}",
    ) -> Document {
        let mut doc = example::standard_invoice(&number);
        doc.kind = kind;
        if kind.is_note() {
            doc.billing_reference = Some(Document::billing_reference_for("INV-1", NaiveDate::from_ymd_opt(2026, 1, 2).unwrap()));
            doc.payment_means_instruction_note = Some("Returned items".into());
        }
        if simplified {
            doc.invoice_type = InvoiceType::Simplified;
        }
        doc.doc_currency_code = currency.into();
        doc.tax_exchange_rate = (currency == "USD").then(|| Decimal::new(375, 2));
        doc.issue_time = NaiveTime::from_hms_opt(23, 59, 59).unwrap();
        doc.legal_monitory_total.prepaid_amount = prepaid;
        doc.invoice_lines = lines.into_iter().enumerate().map(|(i, mut l)| { l.id = (i + 1).to_string(); l }).collect();
        doc.allowance_charge = AllowanceCharges(
            doc_acs
                .into_iter()
                .map(|(charge, amount, cat)| AllowanceCharge {
                    charge_indicator: charge,
                    reason: if charge { "Freight".into() } else { "Discount".into() },
                    reason_code: Some(if charge { "FC".into() } else { "95".into() }),
                    amount,
                    base_amount: None,
                    multiplier_factor: None,
                    currency: currency.into(),
                    tax_category: cat,
                })
                .collect(),
        );
        doc
    }
}

fn two_dp(d: Decimal) -> bool {
    d == round2(d)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn computed_totals_satisfy_every_arithmetic_rule(mut doc in document()) {
        compute_document(&mut doc).unwrap();
        let hundred = Decimal::ONE_HUNDRED;
        let mut line_sum = Decimal::ZERO;
        for l in &doc.invoice_lines {
            let base = l.price.base_quantity.unwrap_or(Decimal::ONE);
            let mut net = round2(l.quantity * l.price.price_per_unit / base);
            for ac in &l.allowance_charges {
                net += if ac.charge_indicator { ac.amount } else { -ac.amount };
            }
            // BR-KSA-EN16931-11 (line net), KSA-11 at the rate, BR-KSA-51 (KSA-12 = net + VAT).
            prop_assert_eq!(l.amount, net);
            prop_assert_eq!(l.tax_total.tax_amount, round2(l.amount * l.item.classified_tax_category.percent / hundred));
            prop_assert_eq!(l.tax_total.rounding_amount, l.amount + l.tax_total.tax_amount);
            prop_assert!(two_dp(l.amount) && two_dp(l.tax_total.tax_amount) && two_dp(l.tax_total.rounding_amount));
            // BR-KSA-EN16931-07: net price = gross − discount.
            if let Some(p) = &l.price.allowance_charge {
                prop_assert_eq!(l.price.price_per_unit, p.base_amount - p.amount);
            }
            line_sum += l.amount;
        }
        let t = &doc.legal_monitory_total;
        let allowances: Decimal = doc.allowance_charge.0.iter().filter(|a| !a.charge_indicator).map(|a| a.amount).sum();
        let charges: Decimal = doc.allowance_charge.0.iter().filter(|a| a.charge_indicator).map(|a| a.amount).sum();
        prop_assert_eq!(t.total_amount, line_sum); // BR-CO-10
        prop_assert_eq!(t.allowance_total_amount.unwrap_or_default(), allowances); // BR-CO-11
        prop_assert_eq!(t.charge_total_amount.unwrap_or_default(), charges); // BR-CO-12
        prop_assert_eq!(t.tax_exclusive_amount, line_sum - allowances + charges); // BR-CO-13
        let subs = doc.tax_total.subtotals();
        let mut taxable_sum = Decimal::ZERO;
        let mut tax_sum = Decimal::ZERO;
        for s in &subs {
            let key = s.tax_category.breakdown_key();
            let lines: Decimal = doc.invoice_lines.iter().filter(|l| l.item.classified_tax_category.breakdown_key() == key).map(|l| l.amount).sum();
            let acs: Decimal = doc.allowance_charge.0.iter().filter(|a| a.tax_category.breakdown_key() == key)
                .map(|a| if a.charge_indicator { a.amount } else { -a.amount }).sum();
            prop_assert_eq!(s.taxable_amount, lines + acs); // BR-S-08 / BR-Z-08 / BR-E-08 / BR-O-08
            prop_assert_eq!(s.tax_amount, round2(s.taxable_amount * s.tax_category.percent / hundred)); // BR-S-09, BR-CO-17 with zero tolerance
            if s.tax_category.id != "S" {
                prop_assert_eq!(s.tax_amount, Decimal::ZERO); // BR-Z-09 / BR-E-09 / BR-O-09
                prop_assert!(s.tax_category.exemption_reason_code.is_some()); // BR-KSA-23/24/69
            }
            taxable_sum += s.taxable_amount;
            tax_sum += s.tax_amount;
        }
        // One breakdown per distinct (category, rate) of the lines (BR-CO-18, BR-S-01 ...).
        let mut keys: Vec<_> = doc.invoice_lines.iter().map(|l| l.item.classified_tax_category.breakdown_key()).collect();
        keys.extend(doc.allowance_charge.0.iter().map(|a| a.tax_category.breakdown_key()));
        keys.sort();
        keys.dedup();
        prop_assert_eq!(subs.len(), keys.len());
        prop_assert_eq!(taxable_sum, t.tax_exclusive_amount);
        prop_assert_eq!(doc.tax_total.tax_amount, tax_sum); // BR-CO-14
        prop_assert_eq!(t.tax_inclusive_amount, t.tax_exclusive_amount + doc.tax_total.tax_amount); // BR-CO-15
        prop_assert_eq!(t.payable_amount, t.tax_inclusive_amount - t.prepaid_amount.unwrap_or_default()); // BR-CO-16
        if doc.doc_currency_code != "SAR" {
            prop_assert_eq!(doc.tax_total.tax_amount_in_tax_currency, Some(round2(doc.tax_total.tax_amount * Decimal::new(375, 2))));
        }
        for a in [t.total_amount, t.tax_exclusive_amount, t.tax_inclusive_amount, t.payable_amount, doc.tax_total.tax_amount] {
            prop_assert!(two_dp(a), "{} has more than 2 decimals", a); // BR-DEC-*
        }
        // D11: one category as `tax_subtotal`, several as `tax_subtotals`.
        prop_assert_eq!(doc.tax_total.tax_subtotal.is_some(), subs.len() == 1);
    }

    #[test]
    fn serialising_and_parsing_changes_no_value(mut doc in document(), computed in any::<bool>()) {
        if computed {
            compute_document(&mut doc).unwrap();
        }
        let json = serde_json::to_string(&doc).unwrap();
        let back: Document = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &doc);
        // Exact digits on the wire: every amount is a JSON number, never a string.
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        prop_assert!(v["legal_monitory_total"]["payable_amount"].is_number());
        prop_assert!(v["invoice_lines"][0]["quantity"].is_number());
        prop_assert!(v.get(doc.kind.number_key()).is_some());
    }
}

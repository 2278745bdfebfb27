//! Example documents for tests, documentation and the sandbox demo: a Saudi seller, Arabic and
//! English names, mixed VAT categories. Amounts other than quantities and prices are zero: run
//! `compute::compute_document` to fill them.

use super::*;
use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;

/// The sandbox's default VAT number (D6).
pub const SELLER_VAT: &str = "399999999900003";

/// A seller with a complete Saudi address.
pub fn seller() -> Party {
    Party {
        vat_number: Some(SELLER_VAT.into()),
        tax_type: "VAT".into(),
        registration_name: "شركة التوريد السريع | Maximum Speed Tech Supply LTD".into(),
        address: Address {
            street_name: "Prince Sultan | الامير سلطان".into(),
            building_number: "2322".into(),
            plot_identification: "1234".into(),
            city_subdivision_name: "Al-Murabba | المربع".into(),
            city_name: "Riyadh | الرياض".into(),
            postal_zone: "23333".into(),
            country: "SA".into(),
            country_subentity: String::new(),
        },
        party_identification: Some(PartyIdentification {
            scheme: "CRN".into(),
            id: "1010010000".into(),
        }),
    }
}

/// A VAT-registered Saudi buyer.
pub fn buyer() -> Party {
    Party {
        vat_number: Some("399999999800003".into()),
        tax_type: "VAT".into(),
        registration_name: "شركة نماذج فاتورة المحدودة | Fatoora Samples LTD".into(),
        address: Address {
            street_name: "صلاح الدين | Salah Al-Din".into(),
            building_number: "1111".into(),
            plot_identification: "1234".into(),
            city_subdivision_name: "المروج | Al-Murooj".into(),
            city_name: "الرياض | Riyadh".into(),
            postal_zone: "12222".into(),
            country: "SA".into(),
            country_subentity: String::new(),
        },
        party_identification: None,
    }
}

/// A line with quantity, net unit price and category; amounts left at zero.
pub fn line(id: usize, name: &str, quantity: Decimal, price: Decimal, category: TaxCategory) -> Line {
    Line {
        id: id.to_string(),
        unit_code: "PCE".into(),
        quantity,
        amount: Decimal::ZERO,
        tax_total: LineTaxTotal {
            currency: "SAR".into(),
            ..Default::default()
        },
        item: Item {
            name: name.into(),
            classified_tax_category: category,
        },
        price: Price {
            currency: "SAR".into(),
            price_per_unit: price,
            base_unit_code: "PCE".into(),
            base_quantity: None,
            allowance_charge: None,
        },
        allowance_charges: Vec::new(),
        inclusive_amount: None,
    }
}

/// A zero-rated category for exports of goods.
pub fn zero_rated_export() -> TaxCategory {
    TaxCategory {
        exemption_reason_code: Some("VATEX-SA-32".into()),
        exemption_reason: Some("Export of goods | صادرات السلع من المملكة".into()),
        ..TaxCategory::new("Z", Decimal::ZERO)
    }
}

/// An exempt category for financial services.
pub fn exempt_financial() -> TaxCategory {
    TaxCategory {
        exemption_reason_code: Some("VATEX-SA-29".into()),
        exemption_reason: Some("Financial services mentioned in Article 29 of the VAT Regulations".into()),
        ..TaxCategory::new("E", Decimal::ZERO)
    }
}

/// An out-of-scope category.
pub fn out_of_scope() -> TaxCategory {
    TaxCategory {
        exemption_reason_code: Some("VATEX-SA-OOS".into()),
        exemption_reason: Some("Not subject to VAT | خارج نطاق الضريبة".into()),
        ..TaxCategory::new("O", Decimal::ZERO)
    }
}

/// A standard (B2B) invoice with S 15, S 5 and Z lines and a document discount.
pub fn standard_invoice(number: &str) -> Document {
    Document {
        kind: DocumentKind::Invoice,
        number: number.into(),
        invoice_type: InvoiceType::Standard,
        issue_date: NaiveDate::from_ymd_opt(2026, 11, 1).expect("valid date"),
        actual_delivery_date: NaiveDate::from_ymd_opt(2026, 11, 1).expect("valid date"),
        issue_time: NaiveTime::from_hms_opt(10, 30, 0).expect("valid time"),
        note: None,
        doc_currency_code: "SAR".into(),
        tax_currency_code: "SAR".into(),
        customer_info: buyer(),
        supplier_info: std::sync::Arc::new(seller()),
        payment_means: Some("10".into()),
        payment_means_instruction_note: None,
        allowance_charge: AllowanceCharges(vec![AllowanceCharge {
            charge_indicator: false,
            reason: "discount".into(),
            reason_code: Some("95".into()),
            amount: dec!(10.00),
            base_amount: None,
            multiplier_factor: None,
            currency: "SAR".into(),
            tax_category: TaxCategory::new("S", dec!(15)),
        }]),
        tax_total: TaxTotal {
            currency: "SAR".into(),
            tax_amount: Decimal::ZERO,
            tax_subtotal: None,
            tax_subtotals: None,
            tax_amount_in_tax_currency: None,
        },
        legal_monitory_total: LegalMonetaryTotal::default(),
        invoice_lines: vec![
            line(
                1,
                "قلم رصاص | Pencil",
                dec!(33),
                dec!(3.33),
                TaxCategory::new("S", dec!(15)),
            ),
            line(2, "كتاب | Book", dec!(2), dec!(57.5), TaxCategory::new("S", dec!(5))),
            line(3, "شحنة تصدير | Export crate", dec!(1), dec!(120), zero_rated_export()),
        ],
        billing_reference: None,
        tax_exchange_rate: None,
        exported_reference: None,
    }
}

/// A simplified (B2C) invoice: a buyer with a name only.
pub fn simplified_invoice(number: &str) -> Document {
    let mut doc = standard_invoice(number);
    doc.invoice_type = InvoiceType::Simplified;
    doc.customer_info = Party {
        registration_name: "عميل نقدي | Walk-in customer".into(),
        ..Party::default()
    };
    doc.customer_info.tax_type = "VAT".into();
    doc
}

/// A credit note against `invoice_number` issued on 2026-11-01.
pub fn credit_note(number: &str, invoice_number: &str) -> Document {
    let mut doc = standard_invoice(number);
    doc.kind = DocumentKind::CreditNote;
    doc.billing_reference = Some(Document::billing_reference_for(
        invoice_number,
        NaiveDate::from_ymd_opt(2026, 11, 1).expect("valid date"),
    ));
    doc.payment_means_instruction_note = Some("Returned items | إرجاع بضاعة".into());
    doc.invoice_lines.truncate(1);
    doc.invoice_lines[0].quantity = dec!(3);
    doc.allowance_charge = AllowanceCharges::default();
    doc
}

/// A debit note against `invoice_number`.
pub fn debit_note(number: &str, invoice_number: &str) -> Document {
    let mut doc = credit_note(number, invoice_number);
    doc.kind = DocumentKind::DebitNote;
    doc.payment_means_instruction_note = Some("Price correction | تصحيح السعر".into());
    doc
}

//! The reconciliation's totals: per issue date and overall, per currency ([`Reconciled`]), and
//! the VAT in SAR of every currency together ([`VatSar`]). Credit notes count as issued in the
//! `input`, `xml` and `difference` amounts (positive), and subtracted in the `netted_*` ones and
//! in [`VatSar`]: invoices + debit notes - credit notes, the figures of the VAT return and of the
//! ERP's ledger.

use super::super::summary::{Amounts, is_credit_note, saturating_add, two_places};
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::BTreeMap;

/// Input and XML totals of one day (or overall), in one currency.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Reconciled {
    /// Accepted documents in the result files.
    pub documents: u64,
    /// Their amounts, as computed from the input rows, each as issued (a credit note's positive).
    pub input: Amounts,
    /// Signed XML files read.
    pub xml_documents: u64,
    /// Their amounts, as the XML says, each as issued.
    pub xml: Amounts,
    /// `input - xml`.
    pub difference: Amounts,
    /// `input`, credit notes subtracted.
    pub netted_input: Amounts,
    /// `xml`, credit notes (type code 381) subtracted.
    pub netted_xml: Amounts,
    /// `netted_input - netted_xml`.
    pub netted_difference: Amounts,
}

impl Reconciled {
    /// Count one accepted document of the result files, of `kind`.
    pub(super) fn add_input(&mut self, a: Amounts, kind: &str) {
        self.documents += 1;
        self.input.add(&a);
        self.netted_input.add(&a.signed(kind));
    }

    /// Count one signed XML, of `kind`.
    pub(super) fn add_xml(&mut self, a: Amounts, kind: &str) {
        self.xml_documents += 1;
        self.xml.add(&a);
        self.netted_xml.add(&a.signed(kind));
    }

    fn add(&mut self, other: &Reconciled) {
        self.documents += other.documents;
        self.xml_documents += other.xml_documents;
        self.input.add(&other.input);
        self.xml.add(&other.xml);
        self.netted_input.add(&other.netted_input);
        self.netted_xml.add(&other.netted_xml);
    }

    fn settle(&mut self) {
        self.difference = self.input.minus(&self.xml);
        self.netted_difference = self.netted_input.minus(&self.netted_xml);
    }

    /// As many documents as XML files, and no difference, as issued or netted.
    pub fn is_ok(&self) -> bool {
        self.documents == self.xml_documents && self.difference.is_zero() && self.netted_difference.is_zero()
    }
}

/// The VAT in SAR (BT-111) of one day (or overall), every currency together, credit notes
/// subtracted: the figure of the VAT return.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VatSar {
    /// Accepted documents in the result files.
    pub documents: u64,
    /// Their VAT in SAR (`vat_sar` of `X.documents.csv`), credit notes subtracted.
    #[serde(serialize_with = "two_places")]
    pub input: Decimal,
    /// Of `documents`, those without a VAT in SAR, which `input` leaves out.
    pub input_without: u64,
    /// Signed XML files read.
    pub xml_documents: u64,
    /// Their VAT in SAR (the `TaxTotal` without subtotals), credit notes subtracted.
    #[serde(serialize_with = "two_places")]
    pub xml: Decimal,
    /// Of `xml_documents`, those without a VAT in SAR, which `xml` leaves out.
    pub xml_without: u64,
    /// `input - xml`.
    #[serde(serialize_with = "two_places")]
    pub difference: Decimal,
}

fn signed(v: Decimal, kind: &str) -> Decimal {
    if is_credit_note(kind) { -v } else { v }
}

impl VatSar {
    /// Count one accepted document of the result files, of `kind`.
    pub(super) fn add_input(&mut self, vat_sar: Option<Decimal>, kind: &str) {
        self.documents += 1;
        match vat_sar {
            Some(v) => self.input = saturating_add(self.input, signed(v, kind)),
            None => self.input_without += 1,
        }
    }

    /// Count one signed XML, of `kind`.
    pub(super) fn add_xml(&mut self, vat_sar: Option<Decimal>, kind: &str) {
        self.xml_documents += 1;
        match vat_sar {
            Some(v) => self.xml = saturating_add(self.xml, signed(v, kind)),
            None => self.xml_without += 1,
        }
    }

    fn add(&mut self, other: &VatSar) {
        self.documents += other.documents;
        self.input = saturating_add(self.input, other.input);
        self.input_without += other.input_without;
        self.xml_documents += other.xml_documents;
        self.xml = saturating_add(self.xml, other.xml);
        self.xml_without += other.xml_without;
    }

    fn settle(&mut self) {
        self.difference = self.input.checked_sub(self.xml).unwrap_or(Decimal::MAX);
    }

    /// As many documents as XML files, each with its VAT in SAR, and no difference.
    pub fn is_ok(&self) -> bool {
        self.documents == self.xml_documents
            && self.input_without == 0
            && self.xml_without == 0
            && self.difference.is_zero()
    }
}

/// The kind of a signed document by its type code (BT-3): 381 a credit note.
pub(super) fn xml_kind(type_code: Option<&str>) -> &'static str {
    match type_code.map(str::trim) {
        Some("381") => "credit_note",
        Some("383") => "debit_note",
        _ => "invoice",
    }
}

/// The month of an issue date (`2026-11` of `2026-11-16`); a key that is no date, itself.
pub fn month_of(date: &str) -> &str {
    let b = date.as_bytes();
    if b.len() >= 7 && b[4] == b'-' && b[..4].iter().chain(&b[5..7]).all(u8::is_ascii_digit) {
        &date[..7]
    } else {
        date
    }
}

/// What the per-day figures add up to.
#[derive(Debug, Default)]
pub(super) struct Settled {
    /// Per currency.
    pub(super) overall: BTreeMap<String, Reconciled>,
    /// The VAT in SAR of every currency together.
    pub(super) vat_sar: VatSar,
    /// Per month (`YYYY-MM`), then currency.
    pub(super) by_month: BTreeMap<String, BTreeMap<String, Reconciled>>,
    /// Per month, the VAT in SAR of every currency together.
    pub(super) vat_sar_by_month: BTreeMap<String, VatSar>,
}

/// The per-day figures' differences, and what they add up to per month and overall: per
/// currency, and the VAT in SAR.
pub(super) fn settle(
    by_day: &mut BTreeMap<String, BTreeMap<String, Reconciled>>,
    vat_sar_by_day: &mut BTreeMap<String, VatSar>,
) -> Settled {
    let mut s = Settled::default();
    for (date, day) in by_day.iter_mut() {
        let month = s.by_month.entry(month_of(date).to_string()).or_default();
        for (currency, r) in day.iter_mut() {
            r.settle();
            s.overall.entry(currency.clone()).or_default().add(r);
            month.entry(currency.clone()).or_default().add(r);
        }
    }
    s.overall.values_mut().for_each(Reconciled::settle);
    s.by_month
        .values_mut()
        .flat_map(|m| m.values_mut())
        .for_each(Reconciled::settle);
    for (date, v) in vat_sar_by_day.iter_mut() {
        v.settle();
        s.vat_sar.add(v);
        s.vat_sar_by_month.entry(month_of(date).to_string()).or_default().add(v);
    }
    s.vat_sar.settle();
    s.vat_sar_by_month.values_mut().for_each(VatSar::settle);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn a(net: Decimal) -> Amounts {
        Amounts {
            net,
            vat: net * dec!(0.15),
            gross: net * dec!(1.15),
        }
    }

    #[test]
    fn amounts_of_nothing_are_written_with_two_decimals() {
        let json = serde_json::to_string(&(VatSar::default(), Reconciled::default())).unwrap();
        assert!(!json.contains("\"0\""), "{json}");
        assert!(json.contains("\"input\":\"0.00\""), "{json}");
        assert!(json.contains("\"gross\":\"0.00\""), "{json}");
        let mut v = VatSar::default();
        v.add_input(Some(dec!(1.5)), "invoice");
        assert!(serde_json::to_string(&v).unwrap().contains("\"input\":\"1.50\""));
    }

    #[test]
    fn a_day_nets_credit_notes_on_both_sides_and_adds_the_vat_in_sar_of_every_currency() {
        let mut by_day: BTreeMap<String, BTreeMap<String, Reconciled>> = BTreeMap::new();
        let mut vat_sar: BTreeMap<String, VatSar> = BTreeMap::new();
        let day = by_day.entry("2026-11-16".into()).or_default();
        let sar = day.entry("SAR".into()).or_default();
        sar.add_input(a(dec!(10000)), "invoice");
        sar.add_input(a(dec!(2500)), "credit_note");
        sar.add_xml(a(dec!(10000)), xml_kind(Some("388")));
        sar.add_xml(a(dec!(2500)), xml_kind(Some("381")));
        let usd = day.entry("USD".into()).or_default();
        usd.add_input(a(dec!(1000)), "invoice");
        usd.add_xml(a(dec!(1000)), xml_kind(Some("388")));
        let v = vat_sar.entry("2026-11-16".into()).or_default();
        for (vat, kind) in [
            (dec!(1500), "invoice"),
            (dec!(375), "credit_note"),
            (dec!(562.50), "invoice"),
        ] {
            v.add_input(Some(vat), kind);
            v.add_xml(Some(vat), kind);
        }
        let Settled {
            overall, vat_sar: all, ..
        } = settle(&mut by_day, &mut vat_sar);
        let sar = &overall["SAR"];
        assert_eq!(sar.input.vat, dec!(1875.00), "as issued");
        assert_eq!(sar.netted_input.vat, dec!(1125.00));
        assert_eq!(sar.netted_xml, sar.netted_input);
        assert!(sar.is_ok() && overall["USD"].is_ok());
        assert_eq!(by_day["2026-11-16"]["SAR"].netted_input.net, dec!(7500));
        assert_eq!(
            (all.input, all.xml, all.difference),
            (dec!(1687.50), dec!(1687.50), dec!(0))
        );
        assert!(all.is_ok() && vat_sar["2026-11-16"].is_ok());
    }

    #[test]
    fn months_add_up_their_days_and_the_overall_figures_the_months() {
        let mut by_day: BTreeMap<String, BTreeMap<String, Reconciled>> = BTreeMap::new();
        let mut vat_sar: BTreeMap<String, VatSar> = BTreeMap::new();
        for (date, net, kind) in [
            ("2026-10-31", dec!(100), "invoice"),
            ("2026-11-01", dec!(200), "invoice"),
            ("2026-11-30", dec!(40), "credit_note"),
        ] {
            let r = by_day.entry(date.into()).or_default().entry("SAR".into()).or_default();
            r.add_input(a(net), kind);
            r.add_xml(a(net), kind);
            let v = vat_sar.entry(date.into()).or_default();
            v.add_input(Some(a(net).vat), kind);
            v.add_xml(Some(a(net).vat), kind);
        }
        let s = settle(&mut by_day, &mut vat_sar);
        assert_eq!(s.by_month.keys().collect::<Vec<_>>(), ["2026-10", "2026-11"]);
        let nov = &s.by_month["2026-11"]["SAR"];
        assert_eq!(
            (nov.documents, nov.input.net, nov.netted_input.net),
            (2, dec!(240), dec!(160))
        );
        assert!(nov.is_ok());
        assert_eq!(s.vat_sar_by_month["2026-11"].input, dec!(24.00));
        assert_eq!(s.vat_sar_by_month["2026-10"].input, dec!(15.00));
        assert_eq!(s.vat_sar.input, dec!(39.00));
        assert!(s.vat_sar_by_month.values().all(VatSar::is_ok));
        assert_eq!(
            (month_of("2026-11-30"), month_of("(no date)"), month_of("")),
            ("2026-11", "(no date)", "")
        );
    }

    #[test]
    fn a_kind_the_xml_does_not_share_is_a_difference_though_as_issued_nothing_differs() {
        let mut r = Reconciled::default();
        r.add_input(a(dec!(100)), "credit_note");
        r.add_xml(a(dec!(100)), xml_kind(Some("388")));
        r.settle();
        assert!(r.difference.is_zero());
        assert_eq!(r.netted_difference.net, dec!(-200));
        assert!(!r.is_ok());
    }

    #[test]
    fn a_document_without_its_vat_in_sar_keeps_the_total_from_being_ok() {
        let mut v = VatSar::default();
        v.add_input(None, "invoice");
        v.add_xml(None, "invoice");
        v.settle();
        assert_eq!((v.input_without, v.xml_without, v.difference), (1, 1, Decimal::ZERO));
        assert!(!v.is_ok());
        assert_eq!(xml_kind(Some(" 383 ")), "debit_note");
        assert_eq!(xml_kind(None), "invoice");
    }
}

//! The document bodies of the submission endpoints (api.md 2.5, D10, D11, D12).
//!
//! One [`Document`] type serves invoices, credit notes and debit notes. On the wire the number and
//! type keys are named after the kind (`invoice_number`, `creditnote_number`, `debitnote_number`),
//! notes carry a `billing_reference`, and the reason for a note travels in
//! `payment_means_instruction_note` (D10). A few fields this project adds beyond api.md (all
//! optional and left off the wire when unset) are marked *extension*.

use super::amount;
use chrono::{NaiveDate, NaiveTime};
/// A short code (currency, unit, VAT category, tax type, exemption reason code): held inline up to
/// 24 bytes, so copying one into every line allocates nothing.
pub use compact_str::CompactString as Code;
use rust_decimal::Decimal;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

mod wire;

/// Which endpoint a document goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentKind {
    /// A tax invoice (type code 388).
    Invoice,
    /// A credit note (381).
    CreditNote,
    /// A debit note (383).
    DebitNote,
}

impl DocumentKind {
    /// Every kind.
    pub const ALL: [DocumentKind; 3] = [DocumentKind::Invoice, DocumentKind::CreditNote, DocumentKind::DebitNote];

    /// The wire key of the document number.
    pub fn number_key(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "invoice_number",
            DocumentKind::CreditNote => "creditnote_number",
            DocumentKind::DebitNote => "debitnote_number",
        }
    }

    /// The wire key of the document type.
    pub fn type_key(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "invoice_type",
            DocumentKind::CreditNote => "creditnote_type",
            DocumentKind::DebitNote => "debitnote_type",
        }
    }

    /// The path segment of the endpoint (`invoices`, `credit-notes`, `debit-notes`).
    pub fn path_segment(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "invoices",
            DocumentKind::CreditNote => "credit-notes",
            DocumentKind::DebitNote => "debit-notes",
        }
    }

    /// The UBL invoice type code (BT-3).
    pub fn type_code(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "388",
            DocumentKind::CreditNote => "381",
            DocumentKind::DebitNote => "383",
        }
    }

    /// Words for messages: "invoice", "credit note", "debit note".
    pub fn label(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "invoice",
            DocumentKind::CreditNote => "credit note",
            DocumentKind::DebitNote => "debit note",
        }
    }

    /// True for credit and debit notes.
    pub fn is_note(self) -> bool {
        self != DocumentKind::Invoice
    }
}

impl fmt::Display for DocumentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Clearance (standard, B2B) or reporting (simplified, B2C).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InvoiceType {
    /// B2B, cleared in real time.
    Standard,
    /// B2C, reported within 24 hours.
    Simplified,
}

impl InvoiceType {
    /// `standard` or `simplified`.
    pub fn as_str(self) -> &'static str {
        match self {
            InvoiceType::Standard => "standard",
            InvoiceType::Simplified => "simplified",
        }
    }

    /// The subtype digits of the KSA-2 transaction code (`01` or `02`).
    pub fn subtype(self) -> &'static str {
        match self {
            InvoiceType::Standard => "01",
            InvoiceType::Simplified => "02",
        }
    }
}

impl fmt::Display for InvoiceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A postal address (api.md 2.5). Every field is a string; absent fields are empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Address {
    /// Street (BT-35).
    pub street_name: String,
    /// Building number, 4 digits for Saudi addresses (KSA-17).
    pub building_number: String,
    /// Additional number (KSA-23).
    pub plot_identification: String,
    /// District (KSA-3).
    pub city_subdivision_name: String,
    /// City (BT-37).
    pub city_name: String,
    /// Postal code, 5 digits for Saudi addresses (BT-38).
    pub postal_zone: String,
    /// Two-letter country code (BT-40).
    pub country: String,
    /// Region (BT-39); may be empty.
    pub country_subentity: String,
}

/// A party identifier with its scheme (CRN, NAT, TIN, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartyIdentification {
    /// The scheme (BT-29/BT-46 schemeID).
    pub scheme: String,
    /// The identifier.
    pub id: String,
}

/// Seller or buyer (api.md 2.5).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Party {
    /// 15-digit VAT number; absent for buyers without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vat_number: Option<String>,
    /// Always `VAT`.
    #[serde(default = "vat")]
    pub tax_type: Code,
    /// Legal name (BT-27 / BT-44).
    #[serde(default)]
    pub registration_name: String,
    /// Postal address.
    #[serde(default)]
    pub address: Address,
    /// Other identifier (CRN for sellers; NAT, TIN, CRN, ... for buyers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub party_identification: Option<PartyIdentification>,
}

fn vat() -> Code {
    Code::const_new("VAT")
}

/// A VAT category with its rate and, for Z, E and O, the exemption reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxCategory {
    /// `S`, `Z`, `E` or `O`.
    pub id: Code,
    /// Rate in percent (15, 5, 0).
    #[serde(with = "amount", default)]
    pub percent: Decimal,
    /// Always `VAT`.
    #[serde(default = "vat")]
    pub tax_type: Code,
    /// Exemption reason code (`VATEX-SA-...`), for Z, E and O (BT-121). *Extension.*
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exemption_reason_code: Option<Code>,
    /// Exemption reason text (BT-120). *Extension.*
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exemption_reason: Option<String>,
}

impl TaxCategory {
    /// A category with a rate and no exemption reason.
    pub fn new(id: &str, percent: Decimal) -> Self {
        TaxCategory {
            id: id.into(),
            percent,
            tax_type: vat(),
            exemption_reason_code: None,
            exemption_reason: None,
        }
    }

    /// The key that groups lines into one VAT breakdown: category and normalised rate
    /// (`15` and `15.00` are the same rate).
    pub fn breakdown_key(&self) -> (String, Decimal) {
        (self.id.trim().to_ascii_uppercase(), self.percent.normalize())
    }

    /// True when both go into the same VAT breakdown: equal [`breakdown_key`](Self::breakdown_key)s,
    /// compared without making them.
    pub fn same_breakdown(&self, other: &TaxCategory) -> bool {
        self.percent == other.percent && self.id.trim().eq_ignore_ascii_case(other.id.trim())
    }
}

/// A document-level discount (`charge_indicator: false`) or charge (api.md 2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllowanceCharge {
    /// `false` for a discount, `true` for a charge.
    pub charge_indicator: bool,
    /// Reason text.
    #[serde(default)]
    pub reason: String,
    /// Reason code (UNTDID 5189 for discounts, 7161 for charges). *Extension.*
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// The amount.
    #[serde(with = "amount")]
    pub amount: Decimal,
    /// The base the percentage applies to. *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub base_amount: Option<Decimal>,
    /// The percentage (0 to 100). *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub multiplier_factor: Option<Decimal>,
    /// Currency (the document currency).
    #[serde(default)]
    pub currency: Code,
    /// The category whose taxable amount it changes.
    pub tax_category: TaxCategory,
}

/// The document-level `allowance_charge`: one object on the wire (api.md), several accepted as an
/// array (tolerant). Empty means no discount or charge; it is then sent as a zero discount.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowanceCharges(pub Vec<AllowanceCharge>);

impl Serialize for AllowanceCharges {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => one.serialize(serializer),
            many => many.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AllowanceCharges {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AllowanceCharges;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an allowance_charge object or an array of them")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(AllowanceCharges::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let one = AllowanceCharge::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(AllowanceCharges(vec![one]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut all = Vec::new();
                while let Some(one) = seq.next_element()? {
                    all.push(one);
                }
                Ok(AllowanceCharges(all))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// One VAT breakdown entry: per category and rate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxSubtotal {
    /// BT-116.
    #[serde(with = "amount")]
    pub taxable_amount: Decimal,
    /// BT-117.
    #[serde(with = "amount")]
    pub tax_amount: Decimal,
    /// BT-118/119 and the exemption reason.
    pub tax_category: TaxCategory,
}

/// The document's tax total. One category travels as `tax_subtotal` (an object), several as
/// `tax_subtotals` (an array) (D11); use [`TaxTotal::subtotals`] and [`TaxTotal::set_subtotals`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxTotal {
    /// Document currency.
    #[serde(default)]
    pub currency: Code,
    /// BT-110: the VAT total in the document currency.
    #[serde(with = "amount")]
    pub tax_amount: Decimal,
    /// The single breakdown of a one-category document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tax_subtotal: Option<TaxSubtotal>,
    /// The breakdowns of a document with several categories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tax_subtotals: Option<Vec<TaxSubtotal>>,
    /// BT-111: the VAT total in SAR when the document currency is not SAR. *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub tax_amount_in_tax_currency: Option<Decimal>,
}

impl TaxTotal {
    /// Every breakdown, whichever form it came in.
    pub fn subtotals(&self) -> Vec<&TaxSubtotal> {
        let mut all: Vec<&TaxSubtotal> = self.tax_subtotal.iter().collect();
        if let Some(many) = &self.tax_subtotals {
            all.extend(many.iter());
        }
        all
    }

    /// Store breakdowns in the form D11 prescribes: one as an object, several as an array.
    pub fn set_subtotals(&mut self, mut subtotals: Vec<TaxSubtotal>) {
        if subtotals.len() == 1 {
            self.tax_subtotal = subtotals.pop();
            self.tax_subtotals = None;
        } else {
            self.tax_subtotal = None;
            self.tax_subtotals = Some(subtotals);
        }
    }
}

/// `legal_monitory_total` (spelled so on the wire).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalMonetaryTotal {
    /// BT-106: the sum of line net amounts.
    #[serde(with = "amount")]
    pub total_amount: Decimal,
    /// BT-109: total without VAT (lines − allowances + charges).
    #[serde(with = "amount")]
    pub tax_exclusive_amount: Decimal,
    /// BT-112: total with VAT.
    #[serde(with = "amount")]
    pub tax_inclusive_amount: Decimal,
    /// BT-115: amount due.
    #[serde(with = "amount")]
    pub payable_amount: Decimal,
    /// BT-107: sum of document allowances. *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub allowance_total_amount: Option<Decimal>,
    /// BT-108: sum of document charges. *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub charge_total_amount: Option<Decimal>,
    /// BT-113: amount paid in advance. *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub prepaid_amount: Option<Decimal>,
    /// BT-114: rounding of the amount due. *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub payable_rounding_amount: Option<Decimal>,
}

/// A line's VAT (KSA-11) and amount with VAT (KSA-12, `rounding_amount`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineTaxTotal {
    /// Document currency.
    #[serde(default)]
    pub currency: Code,
    /// KSA-11.
    #[serde(with = "amount")]
    pub tax_amount: Decimal,
    /// KSA-12 = line net + line VAT.
    #[serde(with = "amount")]
    pub rounding_amount: Decimal,
}

/// The item of a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// BT-153.
    pub name: String,
    /// BT-151/152.
    pub classified_tax_category: TaxCategory,
}

/// A price-level discount (BG-29): gross price (`base_amount`) minus discount (`amount`) gives the
/// net price. The authority forbids price-level charges (BR-KSA-EN16931-06).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceAllowanceCharge {
    /// Must be `false`.
    pub charge_indicator: bool,
    /// Reason text.
    #[serde(default)]
    pub reason: String,
    /// BT-147: the discount per unit.
    #[serde(with = "amount")]
    pub amount: Decimal,
    /// BT-148: the gross unit price.
    #[serde(with = "amount")]
    pub base_amount: Decimal,
    /// Currency.
    #[serde(default)]
    pub currency: Code,
}

/// The price of a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Price {
    /// Currency.
    #[serde(default)]
    pub currency: Code,
    /// BT-146: net unit price (after the price discount), any number of decimals.
    #[serde(with = "amount")]
    pub price_per_unit: Decimal,
    /// Unit of the base quantity.
    #[serde(default)]
    pub base_unit_code: Code,
    /// BT-149: the quantity the price is for (1 when absent). *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub base_quantity: Option<Decimal>,
    /// The price discount, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowance_charge: Option<PriceAllowanceCharge>,
}

/// A line-level discount or charge (BG-27/28). *Extension.*
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineAllowanceCharge {
    /// `false` for a discount, `true` for a charge.
    pub charge_indicator: bool,
    /// Reason text.
    #[serde(default)]
    pub reason: String,
    /// Reason code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// The amount.
    #[serde(with = "amount")]
    pub amount: Decimal,
}

/// One line of a document (api.md 2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// BT-126, 1 to 6 characters.
    pub id: String,
    /// BT-130.
    #[serde(default)]
    pub unit_code: Code,
    /// BT-129, up to 6 decimals.
    #[serde(with = "amount")]
    pub quantity: Decimal,
    /// BT-131: the line net amount.
    #[serde(with = "amount")]
    pub amount: Decimal,
    /// KSA-11 and KSA-12.
    pub tax_total: LineTaxTotal,
    /// The item and its category.
    pub item: Item,
    /// The price.
    pub price: Price,
    /// Line discounts and charges. *Extension.*
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowance_charges: Vec<LineAllowanceCharge>,
    /// The ERP's own line amount with VAT, for tax-inclusive prices. When given (and within one
    /// cent of net + round2(net × rate)), compute makes KSA-12 equal to it and the line VAT the
    /// difference, so the line total the buyer saw is kept. *Extension.*
    #[serde(default, with = "amount::option", skip_serializing_if = "Option::is_none")]
    pub inclusive_amount: Option<Decimal>,
}

/// An invoice, credit note or debit note body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Which endpoint it goes to; decides the names of the number and type keys.
    pub kind: DocumentKind,
    /// The caller's document number (BT-1).
    pub number: String,
    /// Standard or simplified.
    pub invoice_type: InvoiceType,
    /// BT-2.
    pub issue_date: NaiveDate,
    /// KSA-5.
    pub actual_delivery_date: NaiveDate,
    /// KSA-25, local (Riyadh) time.
    pub issue_time: NaiveTime,
    /// BT-22.
    pub note: Option<String>,
    /// BT-5.
    pub doc_currency_code: Code,
    /// BT-6; always SAR.
    pub tax_currency_code: Code,
    /// Buyer.
    pub customer_info: Party,
    /// Seller: the same profile for every document of a run, shared rather than copied (its
    /// strings were ten allocations a document). `Arc::make_mut` changes one document's copy.
    pub supplier_info: Arc<Party>,
    /// UN/ECE 4461 code or alias (D13).
    pub payment_means: Option<String>,
    /// Free payment note; for notes, the reason (KSA-10, D10).
    pub payment_means_instruction_note: Option<String>,
    /// Document-level discounts and charges.
    pub allowance_charge: AllowanceCharges,
    /// VAT total and breakdown.
    pub tax_total: TaxTotal,
    /// Monetary totals.
    pub legal_monitory_total: LegalMonetaryTotal,
    /// The lines.
    pub invoice_lines: Vec<Line>,
    /// For notes: `Invoice Number: <n>; Invoice Issue Date: <YYYY-MM-DD>` (D10).
    pub billing_reference: Option<String>,
    /// Document currency to SAR rate when the document currency is not SAR. *Extension.*
    pub tax_exchange_rate: Option<Decimal>,
    /// For notes: the billing reference as the note's own rows give it (the invoice's number,
    /// and their own date if any), where `billing_reference` may carry a date found elsewhere
    /// (the invoice's row, the ledger). Never sent: a note issued with this reference is the same
    /// note as one with the date added (`submit`'s comparison with what was issued).
    pub exported_reference: Option<String>,
}

/// What an issued invoice charged: its total with VAT (BT-112) in its currency, as the ledger
/// holds it (what a credit note correcting it is compared with).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedTotal {
    /// BT-112, in `currency`.
    pub amount: Decimal,
    /// The invoice's currency (BT-5).
    pub currency: String,
}

/// The credit notes issued against an invoice before a credit note (one not issued yet: all of
/// them; one issued already, sent again: those accepted before it), as the ledger holds them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CreditedBefore {
    /// The notes, one per number.
    pub notes: Vec<CreditedNote>,
    /// Whether the note itself is issued already (a rerun).
    pub issued: bool,
}

/// A credit note issued against an invoice, as the ledger holds it: its number and what it took
/// back (its total with VAT, BT-112, without its sign), in the invoice's currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditedNote {
    /// The note's number.
    pub number: String,
    /// Its total with VAT, positive.
    pub amount: Decimal,
}

impl Document {
    /// The billing reference text D10 prescribes for a note.
    pub fn billing_reference_for(invoice_number: &str, invoice_date: NaiveDate) -> String {
        format!(
            "Invoice Number: {invoice_number}; Invoice Issue Date: {}",
            invoice_date.format("%Y-%m-%d")
        )
    }

    /// The billing reference of a note whose invoice's date is unknown: its number only.
    pub fn number_only_reference(invoice_number: &str) -> String {
        format!("Invoice Number: {invoice_number}")
    }

    /// A field of a billing reference as D10 writes it (`Invoice Number: <n>; Invoice Issue Date:
    /// <YYYY-MM-DD>`), read loosely: `name` (`invoice number`, `invoice issue date`) in any case
    /// and spacing; its value trimmed.
    pub fn billing_reference_field<'a>(reference: &'a str, name: &str) -> Option<&'a str> {
        reference.split(';').find_map(|part| {
            let (key, value) = part.split_once(':')?;
            let same = key
                .split_whitespace()
                .map(str::to_lowercase)
                .eq(name.split_whitespace().map(str::to_lowercase));
            same.then(|| value.trim())
        })
    }
}

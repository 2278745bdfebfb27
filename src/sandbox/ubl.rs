//! The UBL 2.1 `Invoice` of a computed document, written in canonical form (zatca.md §1, §10).
//!
//! [`write_unsigned`] writes everything the invoice hash covers: the whole document except
//! `ext:UBLExtensions`, the QR `cac:AdditionalDocumentReference` and `cac:Signature`. It records
//! where those three go, so the signed document is the same text with them inserted, and the
//! hash is the SHA-256 of exactly the written text (zatca.md §4: removing the three elements leaves
//! the whitespace around them).
//!
//! Element order follows the UBL 2.1 schema (zatca.md §1.2); optional elements whose value is
//! blank are left out. Every amount carries the document currency (BT-5), except the VAT total in
//! the tax currency (BT-111). Totals are written with two decimals; quantities, prices and rates
//! with the decimals they have.

use super::issue::{ChainPosition, IssueError};
use super::xml::{Xml, money, percent, plain};
use crate::model::{Address, Document, InvoiceType, Line, Party, TaxCategory};
use rust_decimal::Decimal;

/// The root start tag: namespace declarations in canonical order (default first, then by prefix).
/// `xmlns:ext` stays although the hashed text has no `ext:` element (inclusive C14N keeps it).
const ROOT_START: &str = concat!(
    r#"<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2""#,
    r#" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2""#,
    r#" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2""#,
    r#" xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2">"#
);

/// The XML declaration of the written file (not part of the canonical form).
pub(crate) const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

/// `cac:Signature` (KSA-15; BR-KSA-29/30), written at depth 1.
pub(crate) const SIGNATURE_REFERENCE: &str = concat!(
    "<cac:Signature>\n",
    "        <cbc:ID>urn:oasis:names:specification:ubl:signature:Invoice</cbc:ID>\n",
    "        <cbc:SignatureMethod>urn:oasis:names:specification:ubl:dsig:enveloped:xades</cbc:SignatureMethod>\n",
    "    </cac:Signature>"
);

/// The canonical text the invoice hash covers, with the places of the three elements it leaves out.
#[derive(Debug)]
pub(crate) struct Unsigned {
    /// The hashed text: the document without UBLExtensions, the QR reference and cac:Signature.
    pub body: String,
    /// Where `ext:UBLExtensions` goes (right after the root start tag).
    pub extensions_at: usize,
    /// Where the QR `cac:AdditionalDocumentReference` goes.
    pub qr_at: usize,
    /// Where `cac:Signature` goes.
    pub signature_at: usize,
    /// `LegalMonetaryTotal/PayableAmount` as written (QR tag 4).
    pub payable_text: String,
    /// The VAT total in SAR as written (QR tag 5).
    pub vat_in_tax_currency_text: String,
}

/// The QR `cac:AdditionalDocumentReference` (KSA-14), written at depth 1. Base64 text needs no
/// escaping.
pub(crate) fn qr_reference(qr_base64: &str) -> String {
    format!(
        "<cac:AdditionalDocumentReference>\n        <cbc:ID>QR</cbc:ID>\n        <cac:Attachment>\n            \
         <cbc:EmbeddedDocumentBinaryObject mimeCode=\"text/plain\">{qr_base64}</cbc:EmbeddedDocumentBinaryObject>\n        \
         </cac:Attachment>\n    </cac:AdditionalDocumentReference>"
    )
}

/// The UN/ECE 4461 payment means code of a `payment_means` value (D13 aliases included).
pub fn payment_means_code(value: &str) -> Result<String, IssueError> {
    let v = value.trim();
    let code = match v.to_ascii_lowercase().as_str() {
        "cash" => "10",
        "credit" => "30",
        "bank-payment" => "42",
        "card" => "48",
        "zzz" => "ZZZ",
        _ if !v.is_empty() && v.len() <= 3 && v.bytes().all(|b| b.is_ascii_digit()) => v,
        _ => return Err(IssueError::UnknownPaymentMeans(value.to_string())),
    };
    Ok(code.to_string())
}

/// Write the hashed part of the document.
pub(crate) fn write_unsigned(doc: &Document, uuid: &uuid::Uuid, chain: &ChainPosition) -> Result<Unsigned, IssueError> {
    let currency = doc.doc_currency_code.as_str();
    let mut x = Xml::new(4096 + 2048 * doc.invoice_lines.len(), 1);
    x.raw(ROOT_START);
    let extensions_at = x.len();

    x.leaf("cbc:ProfileID", "reporting:1.0")?;
    x.leaf("cbc:ID", &doc.number)?;
    x.leaf("cbc:UUID", &uuid.hyphenated().to_string())?;
    x.leaf("cbc:IssueDate", &doc.issue_date.format("%Y-%m-%d").to_string())?;
    x.leaf("cbc:IssueTime", &doc.issue_time.format("%H:%M:%S").to_string())?;
    let transaction = format!("{}00000", doc.invoice_type.subtype());
    x.leaf_attrs("cbc:InvoiceTypeCode", &[("name", &transaction)], doc.kind.type_code())?;
    if let Some(note) = &doc.note {
        x.leaf_opt("cbc:Note", note)?;
    }
    x.leaf("cbc:DocumentCurrencyCode", currency)?;
    x.leaf("cbc:TaxCurrencyCode", &doc.tax_currency_code)?;
    if let Some(reference) = doc.billing_reference.as_deref().filter(|r| !r.trim().is_empty()) {
        x.open("cac:BillingReference");
        x.open("cac:InvoiceDocumentReference");
        x.leaf("cbc:ID", reference)?;
        x.close("cac:InvoiceDocumentReference");
        x.close("cac:BillingReference");
    }
    x.open("cac:AdditionalDocumentReference");
    x.leaf("cbc:ID", "ICV")?;
    x.leaf("cbc:UUID", &chain.icv.to_string())?;
    x.close("cac:AdditionalDocumentReference");
    x.open("cac:AdditionalDocumentReference");
    x.leaf("cbc:ID", "PIH")?;
    x.open("cac:Attachment");
    x.leaf_attrs(
        "cbc:EmbeddedDocumentBinaryObject",
        &[("mimeCode", "text/plain")],
        &chain.pih,
    )?;
    x.close("cac:Attachment");
    x.close("cac:AdditionalDocumentReference");
    x.newline();
    let qr_at = x.len();
    x.newline();
    let signature_at = x.len();

    x.open("cac:AccountingSupplierParty");
    party(&mut x, &doc.supplier_info)?;
    x.close("cac:AccountingSupplierParty");
    if is_empty_party(&doc.customer_info) {
        x.newline();
        x.raw("<cac:AccountingCustomerParty></cac:AccountingCustomerParty>");
    } else {
        x.open("cac:AccountingCustomerParty");
        party(&mut x, &doc.customer_info)?;
        x.close("cac:AccountingCustomerParty");
    }
    x.open("cac:Delivery");
    x.leaf(
        "cbc:ActualDeliveryDate",
        &doc.actual_delivery_date.format("%Y-%m-%d").to_string(),
    )?;
    x.close("cac:Delivery");
    payment_means(&mut x, doc)?;
    for ac in &doc.allowance_charge.0 {
        x.open("cac:AllowanceCharge");
        x.leaf(
            "cbc:ChargeIndicator",
            if ac.charge_indicator { "true" } else { "false" },
        )?;
        if let Some(code) = &ac.reason_code {
            x.leaf_opt("cbc:AllowanceChargeReasonCode", code)?;
        }
        x.leaf_opt("cbc:AllowanceChargeReason", &ac.reason)?;
        if let Some(factor) = ac.multiplier_factor {
            x.leaf("cbc:MultiplierFactorNumeric", &plain(factor))?;
        }
        x.amount("cbc:Amount", currency, &money(ac.amount))?;
        if let Some(base) = ac.base_amount {
            x.amount("cbc:BaseAmount", currency, &money(base))?;
        }
        tax_category(&mut x, "cac:TaxCategory", &ac.tax_category, false)?;
        x.close("cac:AllowanceCharge");
    }
    let foreign = !doc.doc_currency_code.eq_ignore_ascii_case(&doc.tax_currency_code);
    if foreign && let Some(rate) = doc.tax_exchange_rate {
        x.open("cac:TaxExchangeRate");
        x.leaf("cbc:SourceCurrencyCode", currency)?;
        x.leaf("cbc:TargetCurrencyCode", &doc.tax_currency_code)?;
        x.leaf("cbc:CalculationRate", &plain(rate))?;
        x.close("cac:TaxExchangeRate");
    }
    // BT-111: the VAT total in the tax currency, without breakdown.
    let vat_in_tax_currency = if foreign {
        doc.tax_total
            .tax_amount_in_tax_currency
            .ok_or_else(|| IssueError::MissingTaxCurrencyTotal {
                currency: doc.doc_currency_code.to_string(),
                tax_currency: doc.tax_currency_code.to_string(),
            })?
    } else {
        doc.tax_total.tax_amount
    };
    let vat_in_tax_currency_text = money(vat_in_tax_currency);
    x.open("cac:TaxTotal");
    x.amount("cbc:TaxAmount", &doc.tax_currency_code, &vat_in_tax_currency_text)?;
    x.close("cac:TaxTotal");
    // BT-110 with the breakdown, in the document currency.
    x.open("cac:TaxTotal");
    x.amount("cbc:TaxAmount", currency, &money(doc.tax_total.tax_amount))?;
    for sub in doc.tax_total.subtotals() {
        x.open("cac:TaxSubtotal");
        x.amount("cbc:TaxableAmount", currency, &money(sub.taxable_amount))?;
        x.amount("cbc:TaxAmount", currency, &money(sub.tax_amount))?;
        tax_category(&mut x, "cac:TaxCategory", &sub.tax_category, true)?;
        x.close("cac:TaxSubtotal");
    }
    x.close("cac:TaxTotal");
    let payable_text = monetary_total(&mut x, doc)?;
    for (index, line) in doc.invoice_lines.iter().enumerate() {
        invoice_line(&mut x, line, index, currency)?;
    }
    x.raw("\n</Invoice>");
    Ok(Unsigned {
        body: x.into_string(),
        extensions_at,
        qr_at,
        signature_at,
        payable_text,
        vat_in_tax_currency_text,
    })
}

fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

fn is_empty_address(a: &Address) -> bool {
    [
        &a.street_name,
        &a.building_number,
        &a.plot_identification,
        &a.city_subdivision_name,
        &a.city_name,
        &a.postal_zone,
        &a.country_subentity,
        &a.country,
    ]
    .iter()
    .all(|s| is_blank(s))
}

fn is_empty_party(p: &Party) -> bool {
    p.vat_number.as_deref().is_none_or(is_blank)
        && is_blank(&p.registration_name)
        && is_empty_address(&p.address)
        && p.party_identification.as_ref().is_none_or(|id| is_blank(&id.id))
}

/// `cac:Party` of the seller or the buyer: PartyIdentification, PostalAddress, PartyTaxScheme,
/// PartyLegalEntity (schema order), each only when it has a value.
fn party(x: &mut Xml, p: &Party) -> Result<(), IssueError> {
    x.open("cac:Party");
    if let Some(id) = p.party_identification.as_ref().filter(|id| !is_blank(&id.id)) {
        x.open("cac:PartyIdentification");
        if is_blank(&id.scheme) {
            x.leaf("cbc:ID", &id.id)?;
        } else {
            x.leaf_attrs("cbc:ID", &[("schemeID", &id.scheme)], &id.id)?;
        }
        x.close("cac:PartyIdentification");
    }
    let a = &p.address;
    if !is_empty_address(a) {
        x.open("cac:PostalAddress");
        x.leaf_opt("cbc:StreetName", &a.street_name)?;
        x.leaf_opt("cbc:BuildingNumber", &a.building_number)?;
        x.leaf_opt("cbc:PlotIdentification", &a.plot_identification)?;
        x.leaf_opt("cbc:CitySubdivisionName", &a.city_subdivision_name)?;
        x.leaf_opt("cbc:CityName", &a.city_name)?;
        x.leaf_opt("cbc:PostalZone", &a.postal_zone)?;
        x.leaf_opt("cbc:CountrySubentity", &a.country_subentity)?;
        if !is_blank(&a.country) {
            x.open("cac:Country");
            x.leaf("cbc:IdentificationCode", &a.country)?;
            x.close("cac:Country");
        }
        x.close("cac:PostalAddress");
    }
    if let Some(vat) = p.vat_number.as_deref().filter(|v| !is_blank(v)) {
        x.open("cac:PartyTaxScheme");
        x.leaf("cbc:CompanyID", vat)?;
        scheme(x, &p.tax_type)?;
        x.close("cac:PartyTaxScheme");
    }
    if !is_blank(&p.registration_name) {
        x.open("cac:PartyLegalEntity");
        x.leaf("cbc:RegistrationName", &p.registration_name)?;
        x.close("cac:PartyLegalEntity");
    }
    x.close("cac:Party");
    Ok(())
}

/// `cac:TaxScheme/cbc:ID`, `VAT` unless the document names another.
fn scheme(x: &mut Xml, tax_type: &str) -> Result<(), IssueError> {
    x.open("cac:TaxScheme");
    x.leaf("cbc:ID", if is_blank(tax_type) { "VAT" } else { tax_type })?;
    x.close("cac:TaxScheme");
    Ok(())
}

/// A tax category (`cac:TaxCategory` or `cac:ClassifiedTaxCategory`); the exemption reason
/// goes only into the VAT breakdown (`with_reason`), as in the authority's samples.
fn tax_category(x: &mut Xml, element: &str, cat: &TaxCategory, with_reason: bool) -> Result<(), IssueError> {
    x.open(element);
    x.leaf("cbc:ID", &cat.id)?;
    x.leaf("cbc:Percent", &percent(cat.percent))?;
    if with_reason {
        if let Some(code) = &cat.exemption_reason_code {
            x.leaf_opt("cbc:TaxExemptionReasonCode", code)?;
        }
        if let Some(reason) = &cat.exemption_reason {
            x.leaf_opt("cbc:TaxExemptionReason", reason)?;
        }
    }
    scheme(x, &cat.tax_type)?;
    x.close(element);
    Ok(())
}

/// `cac:PaymentMeans` with the code (D13 aliases mapped) and the instruction note (the reason
/// of a credit or debit note, KSA-10). A note without payment means gets code `1` (not defined),
/// since the element needs a code to carry the reason.
fn payment_means(x: &mut Xml, doc: &Document) -> Result<(), IssueError> {
    let means = doc.payment_means.as_deref().filter(|m| !is_blank(m));
    let note = doc.payment_means_instruction_note.as_deref().filter(|n| !is_blank(n));
    if means.is_none() && note.is_none() {
        return Ok(());
    }
    let code = match means {
        Some(m) => payment_means_code(m)?,
        None => "1".to_string(),
    };
    x.open("cac:PaymentMeans");
    x.leaf("cbc:PaymentMeansCode", &code)?;
    if let Some(note) = note {
        x.leaf("cbc:InstructionNote", note)?;
    }
    x.close("cac:PaymentMeans");
    Ok(())
}

/// `cac:LegalMonetaryTotal` in schema order; returns the PayableAmount text.
fn monetary_total(x: &mut Xml, doc: &Document) -> Result<String, IssueError> {
    let currency = doc.doc_currency_code.as_str();
    let t = &doc.legal_monitory_total;
    x.open("cac:LegalMonetaryTotal");
    x.amount("cbc:LineExtensionAmount", currency, &money(t.total_amount))?;
    x.amount("cbc:TaxExclusiveAmount", currency, &money(t.tax_exclusive_amount))?;
    x.amount("cbc:TaxInclusiveAmount", currency, &money(t.tax_inclusive_amount))?;
    let optional: [(&str, Option<Decimal>); 4] = [
        ("cbc:AllowanceTotalAmount", t.allowance_total_amount),
        ("cbc:ChargeTotalAmount", t.charge_total_amount),
        ("cbc:PrepaidAmount", t.prepaid_amount),
        ("cbc:PayableRoundingAmount", t.payable_rounding_amount),
    ];
    for (name, value) in optional {
        if let Some(v) = value {
            x.amount(name, currency, &money(v))?;
        }
    }
    let payable = money(t.payable_amount);
    x.amount("cbc:PayableAmount", currency, &payable)?;
    x.close("cac:LegalMonetaryTotal");
    Ok(payable)
}

/// One `cac:InvoiceLine`.
fn invoice_line(x: &mut Xml, line: &Line, index: usize, currency: &str) -> Result<(), IssueError> {
    x.open("cac:InvoiceLine");
    x.leaf("cbc:ID", &line.id)?;
    let quantity = plain(line.quantity);
    if is_blank(&line.unit_code) {
        x.leaf("cbc:InvoicedQuantity", &quantity)?;
    } else {
        x.leaf_attrs("cbc:InvoicedQuantity", &[("unitCode", &line.unit_code)], &quantity)?;
    }
    x.amount("cbc:LineExtensionAmount", currency, &money(line.amount))?;
    for ac in &line.allowance_charges {
        x.open("cac:AllowanceCharge");
        x.leaf(
            "cbc:ChargeIndicator",
            if ac.charge_indicator { "true" } else { "false" },
        )?;
        if let Some(code) = &ac.reason_code {
            x.leaf_opt("cbc:AllowanceChargeReasonCode", code)?;
        }
        x.leaf_opt("cbc:AllowanceChargeReason", &ac.reason)?;
        x.amount("cbc:Amount", currency, &money(ac.amount))?;
        x.close("cac:AllowanceCharge");
    }
    x.open("cac:TaxTotal");
    x.amount("cbc:TaxAmount", currency, &money(line.tax_total.tax_amount))?;
    x.amount("cbc:RoundingAmount", currency, &money(line.tax_total.rounding_amount))?;
    x.close("cac:TaxTotal");
    x.open("cac:Item");
    x.leaf("cbc:Name", &line.item.name)?;
    tax_category(
        x,
        "cac:ClassifiedTaxCategory",
        &line.item.classified_tax_category,
        false,
    )?;
    x.close("cac:Item");
    x.open("cac:Price");
    x.amount("cbc:PriceAmount", currency, &plain(line.price.price_per_unit))?;
    if let Some(base) = line.price.base_quantity {
        let unit = if is_blank(&line.price.base_unit_code) {
            &line.unit_code
        } else {
            &line.price.base_unit_code
        };
        if is_blank(unit) {
            x.leaf("cbc:BaseQuantity", &plain(base))?;
        } else {
            x.leaf_attrs("cbc:BaseQuantity", &[("unitCode", unit)], &plain(base))?;
        }
    }
    if let Some(pac) = &line.price.allowance_charge {
        if pac.charge_indicator {
            return Err(IssueError::PriceLevelCharge { line: index });
        }
        x.open("cac:AllowanceCharge");
        x.leaf("cbc:ChargeIndicator", "false")?;
        x.leaf_opt("cbc:AllowanceChargeReason", &pac.reason)?;
        x.amount("cbc:Amount", currency, &plain(pac.amount))?;
        x.amount("cbc:BaseAmount", currency, &plain(pac.base_amount))?;
        x.close("cac:AllowanceCharge");
    }
    x.close("cac:Price");
    x.close("cac:InvoiceLine");
    Ok(())
}

/// Whether the document is simplified (its QR carries tag 9).
pub(crate) fn is_simplified(doc: &Document) -> bool {
    doc.invoice_type == InvoiceType::Simplified
}

//! The figures of a signed UBL document that reconciliation compares: number, UUID, issue date
//! and time, currencies, the two VAT totals (zatca.md §1.9) and `LegalMonetaryTotal` (§1.10).
//! Amounts are parsed as exact decimals from the XML text, never through floating point.
//!
//! Elements are matched by local name (any namespace prefix) and position: children of the root
//! element, and the children of its `TaxTotal` and `LegalMonetaryTotal`. Lines, signature and
//! extensions are passed over.

use quick_xml::Reader;
use quick_xml::events::Event;
use rust_decimal::Decimal;

/// What a signed document says about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XmlTotals {
    /// `cbc:ID` (BT-1).
    pub number: Option<String>,
    /// `cbc:UUID` (KSA-1).
    pub uuid: Option<String>,
    /// `cbc:IssueDate` (BT-2).
    pub issue_date: Option<String>,
    /// `cbc:IssueTime` (KSA-25).
    pub issue_time: Option<String>,
    /// `cbc:InvoiceTypeCode` (388, 381, 383).
    pub type_code: Option<String>,
    /// `cbc:DocumentCurrencyCode` (BT-5).
    pub currency: Option<String>,
    /// `LineExtensionAmount` (BT-106).
    pub line_extension: Option<Decimal>,
    /// `TaxExclusiveAmount` (BT-109): net.
    pub net: Option<Decimal>,
    /// `TaxInclusiveAmount` (BT-112): gross.
    pub gross: Option<Decimal>,
    /// `PayableAmount` (BT-115).
    pub payable: Option<Decimal>,
    /// The `TaxTotal` with subtotals (BT-110): VAT in the document currency.
    pub vat: Option<Decimal>,
    /// The `TaxTotal` without subtotals (BT-111): VAT in the tax currency (SAR).
    pub vat_tax_currency: Option<Decimal>,
}

#[derive(Default)]
struct TaxTotal {
    amount: Option<String>,
    has_subtotals: bool,
}

fn amount(name: &str, text: &str) -> Result<Decimal, String> {
    Decimal::from_str_exact(text.trim()).map_err(|e| format!("{name} {text:?} is not an amount: {e}"))
}

fn set_once(slot: &mut Option<String>, name: &str, text: String) -> Result<(), String> {
    if slot.is_some() {
        return Err(format!("{name} appears twice"));
    }
    *slot = Some(text);
    Ok(())
}

/// Read the totals of a signed document. Malformed XML, a missing root, an amount that is not a
/// decimal, or a figure given twice is an error (text for a person); a figure that is absent is
/// `None`.
pub fn read_xml_totals(bytes: &[u8]) -> Result<XmlTotals, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let mut reader = Reader::from_str(text);
    // The names of the open elements (local names).
    let mut path: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut capture = false;
    let mut root_fields: [Option<String>; 6] = Default::default();
    let mut monetary: [Option<String>; 4] = Default::default();
    let mut monetary_seen = false;
    let mut tax_totals: Vec<TaxTotal> = Vec::new();
    let mut saw_root = false;
    const ROOT: [&str; 6] = [
        "ID",
        "UUID",
        "IssueDate",
        "IssueTime",
        "InvoiceTypeCode",
        "DocumentCurrencyCode",
    ];
    const MONETARY: [&str; 4] = [
        "LineExtensionAmount",
        "TaxExclusiveAmount",
        "TaxInclusiveAmount",
        "PayableAmount",
    ];
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("malformed XML at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(e) => {
                let name = e.local_name().as_ref().to_string();
                saw_root = true;
                let depth = path.len();
                if depth == 1 && name == "TaxTotal" {
                    tax_totals.push(TaxTotal::default());
                }
                if depth == 1 && name == "LegalMonetaryTotal" {
                    if monetary_seen {
                        return Err("LegalMonetaryTotal appears twice".into());
                    }
                    monetary_seen = true;
                }
                if depth == 2
                    && path[1] == "TaxTotal"
                    && name == "TaxSubtotal"
                    && let Some(t) = tax_totals.last_mut()
                {
                    t.has_subtotals = true;
                }
                path.push(name);
                capture = matches!(depth, 1 | 2);
                current.clear();
            }
            Event::Empty(_) => {
                saw_root = true;
            }
            Event::Text(t) if capture => current.push_str(&t.xml10_content()),
            Event::CData(t) if capture => current.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if capture => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    current.push(c);
                } else if let Some(s) = quick_xml::escape::resolve_predefined_entity(&r.xml10_content()) {
                    current.push_str(s);
                } else {
                    return Err(format!("unknown entity &{};", r.xml10_content()));
                }
            }
            Event::End(_) => {
                let Some(name) = path.pop() else {
                    return Err("an end tag without start".into());
                };
                let depth = path.len();
                if capture {
                    let value = std::mem::take(&mut current);
                    if depth == 1 {
                        if let Some(i) = ROOT.iter().position(|r| *r == name) {
                            set_once(&mut root_fields[i], &name, value)?;
                        }
                    } else if depth == 2 && path[1] == "LegalMonetaryTotal" {
                        if let Some(i) = MONETARY.iter().position(|m| *m == name) {
                            set_once(&mut monetary[i], &name, value)?;
                        }
                    } else if depth == 2
                        && path[1] == "TaxTotal"
                        && name == "TaxAmount"
                        && let Some(t) = tax_totals.last_mut()
                    {
                        set_once(&mut t.amount, "TaxTotal/TaxAmount", value)?;
                    }
                }
                capture = false;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !saw_root {
        return Err("no document element".into());
    }
    if !path.is_empty() {
        return Err(format!("the XML ends inside <{}>", path.join("/")));
    }
    let [number, uuid, issue_date, issue_time, type_code, currency] = root_fields;
    let parse = |name: &str, v: &Option<String>| v.as_deref().map(|t| amount(name, t)).transpose();
    let mut totals = XmlTotals {
        number,
        uuid,
        issue_date,
        issue_time,
        type_code,
        currency,
        line_extension: parse(MONETARY[0], &monetary[0])?,
        net: parse(MONETARY[1], &monetary[1])?,
        gross: parse(MONETARY[2], &monetary[2])?,
        payable: parse(MONETARY[3], &monetary[3])?,
        ..XmlTotals::default()
    };
    for t in &tax_totals {
        let slot = if t.has_subtotals {
            &mut totals.vat
        } else {
            &mut totals.vat_tax_currency
        };
        if slot.is_some() {
            return Err(format!(
                "two TaxTotal elements {} subtotals",
                if t.has_subtotals { "with" } else { "without" }
            ));
        }
        *slot = parse("TaxTotal/TaxAmount", &t.amount)?;
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    const DOC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:cac" xmlns:cbc="urn:cbc">
  <cbc:ID>A&amp;B-1</cbc:ID><cbc:UUID>u-1</cbc:UUID>
  <cbc:IssueDate>2026-11-20</cbc:IssueDate><cbc:IssueTime>10:30:00</cbc:IssueTime>
  <cbc:InvoiceTypeCode name="0100000">388</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>SAR</cbc:DocumentCurrencyCode>
  <cac:AdditionalDocumentReference><cbc:ID>ICV</cbc:ID></cac:AdditionalDocumentReference>
  <cac:TaxTotal><cbc:TaxAmount currencyID="SAR">15.00</cbc:TaxAmount></cac:TaxTotal>
  <cac:TaxTotal><cbc:TaxAmount currencyID="SAR">15.00</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="SAR">100.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="SAR">15.00</cbc:TaxAmount></cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="SAR">100.00</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="SAR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="SAR">115.00</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="SAR">115.00</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cac:TaxTotal><cbc:TaxAmount>99</cbc:TaxAmount></cac:TaxTotal></cac:InvoiceLine>
</Invoice>"#;

    #[test]
    fn reads_the_document_figures() {
        let t = read_xml_totals(DOC.as_bytes()).unwrap();
        assert_eq!(t.number.as_deref(), Some("A&B-1"));
        assert_eq!(t.uuid.as_deref(), Some("u-1"));
        assert_eq!(t.issue_date.as_deref(), Some("2026-11-20"));
        assert_eq!(t.type_code.as_deref(), Some("388"));
        assert_eq!(t.currency.as_deref(), Some("SAR"));
        assert_eq!(t.net, Some(dec!(100.00)));
        assert_eq!(t.gross, Some(dec!(115.00)));
        assert_eq!(t.payable, Some(dec!(115.00)));
        assert_eq!(t.vat, Some(dec!(15.00)));
        assert_eq!(t.vat_tax_currency, Some(dec!(15.00)));
    }

    #[test]
    fn broken_documents_are_errors_not_panics() {
        for (bad, says) in [
            ("", "no document element"),
            ("<Invoice><cbc:ID>1</cbc:ID>", "ends inside"),
            ("<Invoice></Other>", "malformed"),
            (
                "<Invoice><LegalMonetaryTotal><TaxExclusiveAmount>1e5</TaxExclusiveAmount></LegalMonetaryTotal></Invoice>",
                "not an amount",
            ),
            ("<Invoice><ID>1</ID><ID>2</ID></Invoice>", "twice"),
            ("<Invoice><ID>&bogus;</ID></Invoice>", "entity"),
        ] {
            let e = read_xml_totals(bad.as_bytes()).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        assert!(read_xml_totals(&[0xff, 0xfe]).unwrap_err().contains("UTF-8"));
    }
}

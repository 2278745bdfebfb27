//! A [`Document`] on the wire (api.md 2.5, D10): the number and type keys named after its kind,
//! optional fields left off, and on parsing the kind inferred from which number key is present.

use super::*;

impl Serialize for Document {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Amount<'a>(&'a Decimal);
        impl Serialize for Amount<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                amount::serialize(self.0, s)
            }
        }
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry(self.kind.number_key(), &self.number)?;
        m.serialize_entry(self.kind.type_key(), &self.invoice_type)?;
        m.serialize_entry("issue_date", &self.issue_date.format("%Y-%m-%d").to_string())?;
        m.serialize_entry(
            "actual_delivery_date",
            &self.actual_delivery_date.format("%Y-%m-%d").to_string(),
        )?;
        m.serialize_entry("issue_time", &self.issue_time.format("%H:%M:%S").to_string())?;
        if let Some(note) = &self.note {
            m.serialize_entry("note", note)?;
        }
        m.serialize_entry("doc_currency_code", &self.doc_currency_code)?;
        m.serialize_entry("tax_currency_code", &self.tax_currency_code)?;
        m.serialize_entry("customer_info", &self.customer_info)?;
        m.serialize_entry("supplier_info", &*self.supplier_info)?;
        if let Some(pm) = &self.payment_means {
            m.serialize_entry("payment_means", pm)?;
        }
        if let Some(n) = &self.payment_means_instruction_note {
            m.serialize_entry("payment_means_instruction_note", n)?;
        }
        if let Some(b) = &self.billing_reference {
            m.serialize_entry("billing_reference", b)?;
        }
        m.serialize_entry("allowance_charge", &self.allowance_charge)?;
        m.serialize_entry("tax_total", &self.tax_total)?;
        m.serialize_entry("legal_monitory_total", &self.legal_monitory_total)?;
        m.serialize_entry("invoice_lines", &self.invoice_lines)?;
        if let Some(rate) = &self.tax_exchange_rate {
            m.serialize_entry("tax_exchange_rate", &Amount(rate))?;
        }
        m.end()
    }
}

/// The wire form, for parsing: the kind is inferred from which number key is present.
#[derive(Deserialize)]
struct DocumentWire {
    invoice_number: Option<String>,
    creditnote_number: Option<String>,
    debitnote_number: Option<String>,
    #[serde(alias = "creditnote_type", alias = "debitnote_type")]
    invoice_type: InvoiceType,
    issue_date: NaiveDate,
    actual_delivery_date: NaiveDate,
    issue_time: NaiveTime,
    #[serde(default)]
    note: Option<String>,
    doc_currency_code: Code,
    tax_currency_code: Code,
    customer_info: Party,
    supplier_info: Party,
    #[serde(default)]
    payment_means: Option<String>,
    #[serde(default)]
    payment_means_instruction_note: Option<String>,
    #[serde(default)]
    billing_reference: Option<String>,
    allowance_charge: AllowanceCharges,
    tax_total: TaxTotal,
    legal_monitory_total: LegalMonetaryTotal,
    invoice_lines: Vec<Line>,
    #[serde(default, with = "amount::option")]
    tax_exchange_rate: Option<Decimal>,
}

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let w = DocumentWire::deserialize(deserializer)?;
        let (kind, number) = match (w.invoice_number, w.creditnote_number, w.debitnote_number) {
            (Some(n), None, None) => (DocumentKind::Invoice, n),
            (None, Some(n), None) => (DocumentKind::CreditNote, n),
            (None, None, Some(n)) => (DocumentKind::DebitNote, n),
            (None, None, None) => {
                return Err(de::Error::custom(
                    "missing field `invoice_number` (or `creditnote_number`/`debitnote_number`)",
                ));
            }
            _ => return Err(de::Error::custom("more than one document number field")),
        };
        Ok(Document {
            kind,
            number,
            invoice_type: w.invoice_type,
            issue_date: w.issue_date,
            actual_delivery_date: w.actual_delivery_date,
            issue_time: w.issue_time,
            note: w.note,
            doc_currency_code: w.doc_currency_code,
            tax_currency_code: w.tax_currency_code,
            customer_info: w.customer_info,
            supplier_info: Arc::new(w.supplier_info),
            payment_means: w.payment_means,
            payment_means_instruction_note: w.payment_means_instruction_note,
            allowance_charge: w.allowance_charge,
            tax_total: w.tax_total,
            legal_monitory_total: w.legal_monitory_total,
            invoice_lines: w.invoice_lines,
            billing_reference: w.billing_reference,
            tax_exchange_rate: w.tax_exchange_rate,
            exported_reference: None,
        })
    }
}

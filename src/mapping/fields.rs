//! The document fields a mapping can fill: their names in mapping files, their value types, whether
//! they belong to the document or to a line, and where they land in the document's JSON (so that a
//! finding about `invoice_lines[2].price.price_per_unit` can be traced back to its source column).

/// The type a field's text is parsed into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Free text.
    Text,
    /// A calendar date.
    Date,
    /// A time of day.
    Time,
    /// A decimal number (amounts, quantities, prices).
    Decimal,
    /// A percentage: `15`, `15%`, `15 %`.
    Percent,
    /// true/false, yes/no, 1/0.
    Bool,
    /// `invoice`, `credit_note` or `debit_note`.
    Kind,
    /// `standard` or `simplified`.
    InvoiceType,
    /// A VAT category: a key of the mapping's `[taxes]` table, or a rate such as `15%`.
    Tax,
}

impl FieldType {
    /// Words for messages.
    pub fn describe(self) -> &'static str {
        match self {
            FieldType::Text => "text",
            FieldType::Date => "a date",
            FieldType::Time => "a time",
            FieldType::Decimal => "a number",
            FieldType::Percent => "a percentage",
            FieldType::Bool => "true or false",
            FieldType::Kind => "invoice, credit_note or debit_note",
            FieldType::InvoiceType => "standard or simplified",
            FieldType::Tax => "a tax code of the [taxes] table or a rate like 15%",
        }
    }
}

/// One field a mapping can fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDef {
    /// The name in mapping files (`buyer.vat_number`, `line.unit_price`).
    pub name: &'static str,
    /// The value type.
    pub ty: FieldType,
    /// True for line fields (read on every row), false for document fields (first row).
    pub line: bool,
    /// Where the field lands in the document JSON; for line fields relative to the line
    /// (`invoice_lines[i].`). Several paths may share one field.
    pub paths: &'static [&'static str],
    /// What it means, for `mappings/README.md` and messages.
    pub doc: &'static str,
}

const fn doc(name: &'static str, ty: FieldType, paths: &'static [&'static str], doc: &'static str) -> FieldDef {
    FieldDef {
        name,
        ty,
        line: false,
        paths,
        doc,
    }
}

const fn line(name: &'static str, ty: FieldType, paths: &'static [&'static str], doc: &'static str) -> FieldDef {
    FieldDef {
        name,
        ty,
        line: true,
        paths,
        doc,
    }
}

use FieldType::*;

/// Every field, in the order `mappings/README.md` lists them.
pub const FIELDS: &[FieldDef] = &[
    doc(
        "number",
        Text,
        &["invoice_number", "creditnote_number", "debitnote_number"],
        "the document number (required); rows sharing it form one document",
    ),
    doc(
        "kind",
        Kind,
        &[],
        "invoice, credit_note or debit_note (default invoice)",
    ),
    doc(
        "debit_note",
        Bool,
        &[],
        "true: the document is a debit note (a check box such as ERPNext's Is Rate Adjustment Entry)",
    ),
    doc(
        "invoice_type",
        InvoiceType,
        &["invoice_type", "creditnote_type", "debitnote_type"],
        "standard or simplified (default: [rules] invoice_type)",
    ),
    doc("issue_date", Date, &["issue_date"], "issue date (required)"),
    doc("issue_time", Time, &["issue_time"], "issue time (default 00:00:00)"),
    doc(
        "delivery_date",
        Date,
        &["actual_delivery_date"],
        "supply date (default: the issue date)",
    ),
    doc(
        "currency",
        Text,
        &["doc_currency_code"],
        "document currency (default SAR)",
    ),
    doc(
        "exchange_rate",
        Decimal,
        // BT-111, the VAT total in SAR, is computed from it (INV-SAR-VAT asks for the rate).
        &["tax_exchange_rate", "tax_total.tax_amount_in_tax_currency"],
        "document currency to SAR rate, for foreign-currency documents",
    ),
    doc("note", Text, &["note"], "free-text note"),
    doc(
        "payment_means",
        Text,
        &["payment_means"],
        "UN/ECE 4461 code (10 cash, 30 credit, 42 bank, 48 card)",
    ),
    doc(
        "payment_note",
        Text,
        &["payment_means_instruction_note"],
        "free payment note (invoices)",
    ),
    doc(
        "note_reason",
        Text,
        &["payment_means_instruction_note"],
        "the reason for a credit or debit note (required for notes)",
    ),
    // The date before the number: a finding on the reference they share (BR-KSA-56) is located
    // on the last of them, the number, which names the invoice.
    doc(
        "original_date",
        Date,
        &["billing_reference"],
        "for notes: the issue date of the invoice corrected (default: found in the same file)",
    ),
    doc(
        "original_number",
        Text,
        &["billing_reference"],
        "for notes: the number of the invoice corrected",
    ),
    doc(
        "prices_include_tax",
        Bool,
        &[],
        "true when unit prices and line amounts include VAT",
    ),
    // The percent before the amount: a finding on the discount they make is located on the
    // last of them, the amount, which is used when both are given.
    doc(
        "discount_percent",
        Percent,
        &["allowance_charge"],
        "a discount on the whole document, in percent of the lines' net total (when discount_amount is blank or 0)",
    ),
    doc(
        "discount_amount",
        Decimal,
        &["allowance_charge"],
        "a discount on the whole document, as an amount (with VAT when prices include tax)",
    ),
    doc(
        "discount_before_tax",
        Bool,
        &[],
        "false: the document discount is given after VAT, which cannot be issued (default true)",
    ),
    doc(
        "buyer.name",
        Text,
        &["customer_info.registration_name"],
        "buyer's legal name",
    ),
    doc(
        "buyer.vat_number",
        Text,
        &["customer_info.vat_number"],
        "buyer's 15-digit VAT number",
    ),
    doc(
        "buyer.id_scheme",
        Text,
        &["customer_info.party_identification.scheme"],
        "scheme of the buyer's other id: CRN, NAT, TIN, IQA, PAS, ...",
    ),
    doc(
        "buyer.id",
        Text,
        &["customer_info.party_identification"],
        "buyer's other id (commercial registration, national id, ...)",
    ),
    doc("buyer.street", Text, &["customer_info.address.street_name"], "street"),
    doc(
        "buyer.building_number",
        Text,
        &["customer_info.address.building_number"],
        "building number (4 digits in Saudi Arabia)",
    ),
    doc(
        "buyer.plot",
        Text,
        &["customer_info.address.plot_identification"],
        "additional number",
    ),
    doc(
        "buyer.district",
        Text,
        &["customer_info.address.city_subdivision_name"],
        "district",
    ),
    doc("buyer.city", Text, &["customer_info.address.city_name"], "city"),
    doc(
        "buyer.postal_zone",
        Text,
        &["customer_info.address.postal_zone"],
        "postal code (5 digits in Saudi Arabia)",
    ),
    doc(
        "buyer.country",
        Text,
        &["customer_info.address.country"],
        "two-letter country code (default SA)",
    ),
    doc(
        "buyer.subentity",
        Text,
        &["customer_info.address.country_subentity"],
        "region",
    ),
    doc(
        "erp.total",
        Decimal,
        &[
            "legal_monitory_total.tax_inclusive_amount",
            "legal_monitory_total.payable_amount",
        ],
        "the export's own document total with VAT (compared, not trusted)",
    ),
    doc(
        "erp.tax_total",
        Decimal,
        &["tax_total"],
        "the export's own document VAT total (compared, not trusted)",
    ),
    doc(
        "erp.tax_exclusive",
        Decimal,
        &[
            "legal_monitory_total.tax_exclusive_amount",
            "legal_monitory_total.total_amount",
        ],
        "the export's own document total without VAT (compared, not trusted)",
    ),
    line(
        "line.id",
        Text,
        &["id"],
        "line id, 1 to 6 characters (default 1, 2, 3, ...)",
    ),
    line("line.item_name", Text, &["item.name"], "item name (required)"),
    line("line.quantity", Decimal, &["quantity"], "quantity (default 1)"),
    line(
        "line.unit_price",
        Decimal,
        &["price.price_per_unit", "price.allowance_charge.base_amount", "price"],
        "unit price before the line discount (required unless line.amount is given)",
    ),
    line(
        "line.unit_code",
        Text,
        &["unit_code", "price.base_unit_code"],
        "unit (default PCE)",
    ),
    line(
        "line.discount_percent",
        Percent,
        &["price.allowance_charge"],
        "line discount in percent of the price",
    ),
    line(
        "line.discount_amount",
        Decimal,
        &["allowance_charges"],
        "line discount as an amount for the whole line",
    ),
    line(
        "line.amount",
        Decimal,
        &["amount"],
        "the export's line amount (net, or with VAT when prices include tax)",
    ),
    line(
        "line.gross_amount",
        Decimal,
        &["tax_total.rounding_amount"],
        "the export's line amount with VAT (compared, not trusted)",
    ),
    line(
        "line.tax_amount",
        Decimal,
        &["tax_total.tax_amount", "tax_total"],
        "the export's line VAT (compared, not trusted)",
    ),
    line(
        "line.tax",
        Tax,
        &["item.classified_tax_category"],
        "tax code, looked up in [taxes] (or a rate like 15%)",
    ),
    line(
        "line.tax_category",
        Text,
        &["item.classified_tax_category.id"],
        "VAT category S, Z, E or O (overrides line.tax)",
    ),
    line(
        "line.tax_percent",
        Percent,
        &["item.classified_tax_category.percent"],
        "VAT rate (overrides line.tax)",
    ),
    line(
        "line.exemption_code",
        Text,
        &["item.classified_tax_category.exemption_reason_code"],
        "VATEX-SA-... code for Z, E, O (overrides line.tax)",
    ),
    line(
        "line.exemption_reason",
        Text,
        &["item.classified_tax_category.exemption_reason"],
        "exemption reason text (overrides line.tax)",
    ),
];

/// Index of a field in [`FIELDS`].
pub type FieldId = usize;

/// Find a field by name.
pub fn field_id(name: &str) -> Option<FieldId> {
    FIELDS.iter().position(|f| f.name == name)
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A field's index by name, for names known to exist. A `const fn`: in a constant (see
/// [`fid!`](crate::mapping::fields::fid)) the name is checked and looked up at compile time.
pub(crate) const fn id(name: &str) -> FieldId {
    let mut i = 0;
    while i < FIELDS.len() {
        if same(FIELDS[i].name, name) {
            return i;
        }
        i += 1;
    }
    panic!("unknown built-in field")
}

/// The [`FieldId`] of a built-in field name, computed at compile time.
macro_rules! fid {
    ($name:literal) => {{
        const ID: $crate::mapping::fields::FieldId = $crate::mapping::fields::id($name);
        ID
    }};
}
pub(crate) use fid;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert_eq!(field_id(f.name), Some(i), "{}", f.name);
            assert_eq!(f.line, f.name.starts_with("line."), "{}", f.name);
        }
    }
}

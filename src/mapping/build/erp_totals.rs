//! The export's own totals, as read from its rows, beside the computed ones.

use rust_decimal::Decimal;

/// The export's own figures, to be compared with the computed ones (not trusted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErpTotals {
    /// Per line: the net amount the export printed.
    pub line_net: Vec<Option<Decimal>>,
    /// Per line: the VAT the export printed.
    pub line_vat: Vec<Option<Decimal>>,
    /// Per line: the amount with VAT the export printed.
    pub line_gross: Vec<Option<Decimal>>,
    /// Document total without VAT.
    pub tax_exclusive: Option<Decimal>,
    /// Document VAT.
    pub tax_total: Option<Decimal>,
    /// Document total with VAT.
    pub tax_inclusive: Option<Decimal>,
    /// The mapping reads a discount on the whole document (`discount_amount` or
    /// `discount_percent`), whether or not this document has one.
    pub document_discount: bool,
}

impl ErpTotals {
    /// True when the export carried no figure at all.
    pub fn is_empty(&self) -> bool {
        self.tax_exclusive.is_none()
            && self.tax_total.is_none()
            && self.tax_inclusive.is_none()
            && self
                .line_net
                .iter()
                .chain(&self.line_vat)
                .chain(&self.line_gross)
                .all(Option::is_none)
    }
}

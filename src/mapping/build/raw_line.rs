//! A line's values as read from its row, before they make an invoice line.

use super::provenance::Prefix;
use super::{Ctx, dec, text};
use crate::compute::round_to;
use crate::ingest::Row;
use crate::mapping::Issue;
use crate::mapping::apply::{Bound, Sourced, Value};
use crate::mapping::fields::{FieldId, fid};
use crate::model::{Code, TaxCategory};
use rust_decimal::Decimal;

/// One line's fields, each `None` when blank or unreadable.
pub(super) struct RawLine {
    pub(super) idx: usize,
    pub(super) id: Option<String>,
    pub(super) name: Option<String>,
    pub(super) quantity: Decimal,
    pub(super) unit_price: Option<Decimal>,
    pub(super) unit_code: Code,
    pub(super) discount_percent: Option<Decimal>,
    pub(super) discount_amount: Option<Decimal>,
    pub(super) amount: Option<Decimal>,
    pub(super) tax_amount: Option<Decimal>,
    pub(super) gross_amount: Option<Decimal>,
    pub(super) tax: Option<TaxCategory>,
    /// The line's tax code or rate could not be read (an issue says so).
    pub(super) tax_unreadable: bool,
    /// A value of the line could not be read (an issue says so).
    pub(super) unreadable: bool,
}

impl RawLine {
    /// Line `n` of the document, from `row` (index `idx` among the document's rows; `h` its
    /// header row, for layouts that repeat one), recording where each value came from and an
    /// issue for each that cannot be read.
    pub(super) fn read(cx: &mut Ctx<'_>, n: usize, idx: usize, row: &Row, h: Option<&Row>) -> RawLine {
        cx.prov.add(Prefix::Line(n), idx, None);
        // Values that could not be read (each already an issue naming its cell).
        let unreadable = std::cell::Cell::new(0u32);
        let mut get = |f: FieldId| {
            if !cx.bound.maps(f) {
                return None;
            }
            match cx.bound.field(f, row, h) {
                Ok(Some(Sourced { value, label, warning })) => {
                    cx.prov.add(Prefix::LineField(n, f), idx, label);
                    if let Some(w) = warning {
                        cx.issues.push((Some(idx), *w));
                    }
                    Some(value)
                }
                // As for a document field: the missing value is located on its cell.
                missing => {
                    if let Err(e) = missing {
                        cx.issues.push((Some(idx), *e));
                        unreadable.set(unreadable.get() + 1);
                    }
                    if let Some(label) = cx.bound.source_label(f) {
                        cx.prov.add(Prefix::LineField(n, f), idx, Some(label));
                    }
                    None
                }
            }
        };
        let mut tax = match get(fid!("line.tax")) {
            Some(Value::Tax(t)) => Some(*t),
            _ => None,
        };
        let cat = text(get(fid!("line.tax_category")));
        let pct = dec(get(fid!("line.tax_percent")));
        // An unknown tax code or a rate that is not a number is its own issue: no second one
        // saying the category is missing.
        let tax_unreadable = unreadable.get() > 0;
        let code = text(get(fid!("line.exemption_code")));
        let reason = text(get(fid!("line.exemption_reason")));
        if cat.is_some() || pct.is_some() {
            let base = tax.clone().unwrap_or_else(|| TaxCategory::new("S", Decimal::ZERO));
            let id_ = cat.map(|c| Code::from(c.to_ascii_uppercase())).unwrap_or_else(|| {
                if pct.is_some_and(|p| p.is_zero()) && base.id == "S" {
                    "Z".into()
                } else {
                    base.id.clone()
                }
            });
            tax = Some(TaxCategory {
                id: id_,
                percent: pct.unwrap_or(base.percent),
                ..base
            });
        }
        if let Some(t) = &mut tax {
            if let Some(code) = code {
                t.exemption_reason_code = Some(code.into());
            }
            if reason.is_some() {
                t.exemption_reason = reason;
            }
        }
        let mut line = RawLine {
            idx,
            id: text(get(fid!("line.id"))),
            name: text(get(fid!("line.item_name"))),
            quantity: dec(get(fid!("line.quantity"))).unwrap_or(Decimal::ONE),
            unit_price: dec(get(fid!("line.unit_price"))),
            unit_code: text(get(fid!("line.unit_code"))).map_or(Code::const_new("PCE"), Code::from),
            discount_percent: dec(get(fid!("line.discount_percent"))),
            discount_amount: dec(get(fid!("line.discount_amount"))),
            amount: dec(get(fid!("line.amount"))),
            tax_amount: dec(get(fid!("line.tax_amount"))),
            gross_amount: dec(get(fid!("line.gross_amount"))),
            tax,
            tax_unreadable,
            // Last: after every read of the line.
            unreadable: unreadable.get() > 0,
        };
        // The API takes quantities and unit prices with at most 6 decimals (D12): more are
        // rounded to 6, half away from zero, and said on the cell (the ERP's line amount is still
        // compared with the line computed from the rounded figures).
        let mut six = |f: FieldId, v: Decimal| -> Decimal {
            if v.scale() <= 6 {
                return v;
            }
            let n = v.normalize();
            if n.scale() <= 6 {
                return v;
            }
            let issued = round_to(n, 6).normalize();
            cx.issues.push((
                Some(idx),
                Issue::warning(
                    "INV-MAP-DECIMALS",
                    cx.bound.source_label(f).map(str::to_string),
                    Some(n.to_string()),
                    format!(
                        "{} decimals where the API takes at most 6: issued as {issued}; give it with \
                         6 decimals in the export to issue it as it is",
                        n.scale()
                    ),
                ),
            ));
            issued
        };
        line.quantity = six(fid!("line.quantity"), line.quantity);
        line.unit_price = line.unit_price.map(|p| six(fid!("line.unit_price"), p));
        // A discount of more than the price: said on its cell, and not applied (the negative
        // price it would make is only its consequence).
        if let Some(d) = line.discount_percent.filter(|d| *d > Decimal::ONE_HUNDRED) {
            let f = fid!("line.discount_percent");
            cx.issues.push((
                Some(idx),
                crate::mapping::Issue::error(
                    "INV-MAP-VALUE",
                    cx.bound.source_label(f).map(str::to_string),
                    Some(d.normalize().to_string()),
                    "a discount of more than 100 % of the price: give the discount in percent of the price (0 to 100)",
                ),
            ));
            line.discount_percent = None;
            line.unreadable = true;
        }
        line
    }

    /// The finding of a line without VAT category (its tax cell blank). A row with a description
    /// and nothing else, no quantity, price, amount or tax, is a section or note line (Odoo
    /// exports them among the lines), not a line without its tax code. `row` is the line's row,
    /// `h` its header row.
    pub(super) fn missing_tax(&self, bound: &Bound, row: &Row, h: Option<&Row>) -> Issue {
        let nothing = |v: Option<Decimal>| v.is_none_or(|d| d.is_zero());
        if let Some(name) = &self.name
            && !self.unreadable
            && nothing(self.unit_price)
            && nothing(self.amount)
            && nothing(self.gross_amount)
            && nothing(self.tax_amount)
            && nothing(self.discount_amount)
            && (self.quantity.is_zero() || bound.is_blank(fid!("line.quantity"), row, h))
        {
            return Issue::error(
                "INV-MAP-MISSING",
                bound.source_label(fid!("line.item_name")).map(str::to_string),
                Some(name.clone()),
                "this row has a description and nothing else (no quantity, price or tax): it looks like a \
                 section or note line, which is not an invoice line; remove it from the export, or give it a \
                 quantity, price and tax",
            );
        }
        let fields = [fid!("line.tax"), fid!("line.tax_category"), fid!("line.tax_percent")];
        let column = fields.iter().find_map(|&f| bound.source_label(f)).map(str::to_string);
        let what = if !bound.maps(fid!("line.tax")) {
            "write its VAT category (S, Z, E or O) and rate".to_string()
        } else if bound.mapping.taxes.is_empty() {
            "write its rate (like 15%), or a tax code added to the mapping's [taxes] with its VAT category".to_string()
        } else {
            format!(
                "write its tax code, one the mapping knows: {} (a line without VAT takes the code that says why: \
                 zero-rated, exempt or out of scope)",
                bound.mapping.known_tax_codes()
            )
        };
        Issue::error(
            "INV-MAP-MISSING",
            column,
            None,
            format!("no VAT category for this line (the tax column is blank): {what}"),
        )
    }
}

/// `INV-MAP-SIGN`, on the first negative line's amount: a document with positive and negative
/// lines (a discount or return line in an invoice) is neither an invoice nor a credit note.
pub(super) fn mixed_signs_issue(cx: &mut Ctx<'_>, raw: &[RawLine], sign: impl Fn(&RawLine) -> Decimal) {
    let Some(l) = raw.iter().find(|l| sign(l) < Decimal::ZERO) else {
        return;
    };
    let (field, value) = match l.amount {
        Some(a) => (fid!("line.amount"), a),
        None => (fid!("line.unit_price"), l.unit_price.unwrap_or_default()),
    };
    let column = cx.bound.source_label(field).map(str::to_string);
    cx.issues.push((
        Some(l.idx),
        Issue::error(
            "INV-MAP-SIGN",
            column,
            Some(value.to_string()),
            "this line is negative and the document's other lines are positive: a document is an invoice or a \
             credit note, and its amounts are never negative. A discount belongs to the line it reduces (lower \
             that line's price or amount, or give it in the discount column) and this row goes; a return is a \
             credit note with its own number. The document is not issued until then",
        ),
    ));
}

//! The reading of one field of a row into its typed [`Value`]: the field's cell (or template,
//! lookup, default), trimmed, cut by the mapping's pattern, mapped, then parsed by the field's type.

use super::{Bound, Label, RSource, Sourced, Value, chars, shortened};
use crate::ingest::{self, CellRef, Row};
use crate::mapping::Issue;
use crate::mapping::build::currency_mark;
use crate::mapping::fields::{FIELDS, FieldId, FieldType};
use crate::mapping::load::{FieldRule, NormText, parse_invoice_type, parse_kind};
use crate::mapping::transform;
use crate::text::Trimmed;
use chrono::NaiveTime;
use std::borrow::Cow;

/// The label of a mapping's default for a blank cell.
const DEFAULT_LABEL: &str = "(mapping default)";

impl Bound {
    /// Read one field of a row. `Ok(None)`: not mapped, or blank with no default.
    pub fn field(&self, f: FieldId, row: &Row, header: Option<&Row>) -> Result<Option<Sourced<'_>>, Box<Issue>> {
        let Some(Some(rule)) = self.mapping.fields.get(f) else {
            return Ok(None);
        };
        if !self.read_here(f, row, header) {
            return Ok(None);
        }
        // The usual field: one column of the file, no value map. Its text is read in place,
        // without the general path's `Cow`s (a few dozen instructions a field, eleven fields a
        // row in the Xero layout).
        if let Some(Some(RSource::Column(Some(i)))) = self.fields.get(f)
            && *i < self.headers.width()
            && rule.map.is_empty()
            && rule.map_other.is_none()
            && rule.pattern.is_none()
        {
            match row.get(*i) {
                CellRef::Text(t) => {
                    let text = if rule.trim { t.trimmed() } else { t };
                    if !text.is_empty() {
                        let cell = CellRef::Text(t);
                        return self.value(f, rule, cell, text, Some(self.label(*i))).map(Some);
                    }
                }
                // Blank with no default: nothing to read.
                CellRef::Empty if rule.default.is_none() => return Ok(None),
                _ => {}
            }
        }
        let v = self.view(row, header);
        let Some((cell, text, label)) = self.raw(f, &v) else {
            return Ok(None);
        };
        if let CellRef::Error(e) = cell {
            return Err(Box::new(Issue::error(
                "INV-MAP-VALUE",
                label.map(str::to_string),
                Some(e.to_string()),
                ingest::no_value_message(e),
            )));
        }
        let trimmed: Cow<'_, str> = match text {
            Cow::Borrowed(t) if rule.trim => Cow::Borrowed(t.trimmed()),
            Cow::Owned(t) if rule.trim && t.trimmed().len() != t.len() => Cow::Owned(t.trimmed().to_string()),
            other => other,
        };
        // The part of the text the mapping's pattern reads (no match: blank). A typed cell (a
        // number, a date) becomes its text.
        let (cell, trimmed) = match &rule.pattern {
            Some(p) => {
                let part = p
                    .captures(&trimmed)
                    .and_then(|c| c.get(1).or_else(|| c.get(0)))
                    .map(|m| m.as_str().trim().to_string())
                    .unwrap_or_default();
                (CellRef::Empty, Cow::Owned(part))
            }
            None => (cell, trimmed),
        };
        let (cell, text, label) = if cell.is_blank() && trimmed.is_empty() {
            match &rule.default {
                Some(d) => (
                    CellRef::Text(d.as_str()),
                    Cow::Borrowed(d.as_str()),
                    label.or(Some(DEFAULT_LABEL)),
                ),
                None => return Ok(None),
            }
        } else if !rule.map.is_empty() || rule.map_other.is_some() {
            let norm = NormText::new(&trimmed);
            match rule.map.iter().find(|(mk, _)| norm.matches(mk)) {
                Some((_, m)) => (CellRef::Text(m.as_str()), Cow::Borrowed(m.as_str()), label),
                None => match &rule.map_other {
                    Some(m) => (CellRef::Text(m.as_str()), Cow::Borrowed(m.as_str()), label),
                    None => (cell, trimmed, label),
                },
            }
        } else {
            (cell, trimmed, label)
        };
        self.value(f, rule, cell, &text, label).map(Some)
    }

    /// A field's typed value, from its cell and its text (trimmed, mapped, or the default). A
    /// text with a character XML cannot hold is [`chars::unfit_text`]'s.
    fn value<'s>(
        &'s self,
        f: FieldId,
        rule: &FieldRule,
        cell: CellRef<'_>,
        text: &str,
        label: Option<Label<'s>>,
    ) -> Result<Sourced<'s>, Box<Issue>> {
        let issue = |code: &str, msg: String| {
            let shown = if text.is_empty() {
                cell.to_text()
            } else {
                text.to_string()
            };
            Box::new(Issue::error(code, label.map(str::to_string), Some(shown), msg))
        };
        let fail = |msg: String| issue("INV-MAP-VALUE", msg);
        let mut warning = None;
        let value = match FIELDS[f].ty {
            FieldType::Text => {
                let text = if text.is_empty() {
                    cell.to_text()
                } else {
                    text.to_string()
                };
                if crate::text::xml_unfit_at(&text).is_some() {
                    return chars::unfit_text(f, text, label);
                }
                if chars::is_code(f) {
                    if crate::text::has_invisible(&text) {
                        return Err(chars::invisible_text(f, &text, label));
                    }
                    if shortened::scientific(&text) {
                        return Err(shortened::shortened(f, &text, label));
                    }
                }
                Value::Text(text)
            }
            FieldType::Date => Value::Date(match &rule.dates {
                None => transform::parse_date(cell, text, &rule.formats).map_err(fail)?,
                Some(alt) => alt.parse(cell, text, &rule.formats).map_err(|(c, m)| issue(c, m))?,
            }),
            FieldType::Time => Value::Time(transform::parse_time(cell, text, &rule.formats).map_err(fail)?),
            FieldType::Decimal => {
                let v = transform::parse_decimal(cell, text, &rule.style).map_err(fail)?;
                // An amount written with a currency mark: compared with the document's currency
                // once it is known (an exchange rate is SAR for the document's currency).
                if let Some(mark) = transform::currency_mark(text)
                    && f != crate::mapping::fields::fid!("exchange_rate")
                {
                    warning = Some(Box::new(currency_mark::noted(label, text, mark, v)));
                }
                Value::Decimal(v)
            }
            FieldType::Percent => Value::Decimal(transform::parse_percent(cell, text, &rule.style).map_err(fail)?),
            FieldType::Bool => Value::Bool(transform::parse_bool(cell, text).map_err(fail)?),
            FieldType::Kind => Value::Kind(parse_kind(text).map_err(fail)?),
            FieldType::InvoiceType => Value::Type(parse_invoice_type(text).map_err(fail)?),
            FieldType::Tax => Value::Tax(Box::new(
                self.tax(cell, text, rule).map_err(|m| issue("INV-MAP-TAX", m))?,
            )),
        };
        Ok(Sourced { value, label, warning })
    }

    /// The time of day the cell of date field `f` gives after its date (`05/11/2026 14:30`, an
    /// xlsx date-time, the fraction of an Excel date number), when it gives one: the issue time
    /// where no column gives it. `None` for a date alone, and for a time with a zone
    /// (`2026-11-05T10:00:00Z`), which is not the time in Saudi Arabia.
    pub fn time_after_date(&self, f: FieldId, row: &Row, header: Option<&Row>) -> Option<NaiveTime> {
        if !self.read_here(f, row, header) {
            return None;
        }
        let v = self.view(row, header);
        let (cell, text, _) = self.raw(f, &v)?;
        match cell {
            CellRef::DateTime(dt) => Some(dt.time()),
            CellRef::Number(n) if n.fract() > rust_decimal::Decimal::ZERO => {
                transform::parse_time(CellRef::Number(n.fract()), "", &[]).ok()
            }
            _ => transform::time_after_date(&text),
        }
    }

    /// The text of a field, ignoring errors (for keys and labels).
    pub fn text(&self, f: FieldId, row: &Row, header: Option<&Row>) -> Option<String> {
        match self.field(f, row, header) {
            Ok(Some(Sourced {
                value: Value::Text(t), ..
            })) => Some(t),
            _ => None,
        }
    }
}

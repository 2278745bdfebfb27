//! The values a mapping file writes, read and checked: a scalar, a template, a map key, a
//! document kind or type, a thousands separator; and the dotted keys of `[fields]` flattened.

use super::MappingError;
use super::compiled::{Origin, Part};
use super::fields::{FIELDS, FieldType, field_id};
use super::load_toml::invalid;
use super::transform::{self, NumberStyle};

/// A TOML scalar as text (`15` → "15", `true` → "true").
pub(super) fn scalar(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Parse a template: `{Column}` pieces and literal text; `{{` and `}}` are literal braces.
pub fn parse_template(t: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => return Err(format!("unclosed `{{` in template {t:?}; close it with `}}`")),
                    }
                }
                if name.trim().is_empty() {
                    return Err(format!(
                        "empty `{{}}` in template {t:?}; put a column name between the braces"
                    ));
                }
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                parts.push(Part::Column(name.trim().to_string()));
            }
            '}' => return Err(format!("stray `}}` in template {t:?} ; write `}}}}` for a brace")),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    if !parts.iter().any(|p| matches!(p, Part::Column(_))) {
        return Err(format!("template {t:?} names no column; write `{{Column}}`"));
    }
    Ok(parts)
}

/// Normalise a map or skip key: trimmed, lower case.
pub fn norm_value(s: &str) -> String {
    s.trim().to_lowercase()
}

/// A text to compare with normalised keys: `norm_value(raw) == key` for each key, with the
/// text trimmed once, and lower-cased once only when it is not ASCII (an ASCII text is compared
/// ignoring ASCII case, without allocating).
pub struct NormText<'a> {
    text: std::borrow::Cow<'a, str>,
    ascii: bool,
}

impl<'a> NormText<'a> {
    /// The text as a key would be compared with it.
    pub fn new(raw: &'a str) -> NormText<'a> {
        let t = crate::text::Trimmed::trimmed(raw);
        if t.is_ascii() {
            NormText {
                text: t.into(),
                ascii: true,
            }
        } else {
            NormText {
                text: t.to_lowercase().into(),
                ascii: false,
            }
        }
    }

    /// `norm_value(raw) == key`, for a key already normalised.
    pub fn matches(&self, key: &str) -> bool {
        if self.ascii {
            self.text.eq_ignore_ascii_case(key)
        } else {
            *self.text == *key
        }
    }
}

/// A date or time format a mapping gives that cannot be used: why, and what to write.
pub(super) fn bad_format(why: String) -> String {
    format!("{why}; give a format such as \"%d/%m/%Y\" (the codes are listed in mappings/README.md)")
}

/// A value the mapping gives (a map's value, a default, a constant) that does not fit its field:
/// the value is what is wrong, so the fix is to change it.
pub(super) fn bad_value(ty: FieldType, value: &str, why: &str) -> String {
    match ty {
        FieldType::Kind | FieldType::InvoiceType => {
            format!("{value:?} is not {}; change it to one of those", ty.describe())
        }
        _ => format!("{value:?}: {why}; change it to {}", ty.describe()),
    }
}

pub(super) fn check_typed(ty: FieldType, text: &str, style: &NumberStyle, formats: &[String]) -> Result<(), String> {
    let cell = crate::ingest::CellRef::Text(text);
    match ty {
        FieldType::Text | FieldType::Tax => Ok(()),
        FieldType::Date => transform::parse_date(cell, text, formats).map(|_| ()),
        FieldType::Time => transform::parse_time(cell, text, formats).map(|_| ()),
        FieldType::Decimal => transform::parse_decimal(cell, text, style).map(|_| ()),
        FieldType::Percent => transform::parse_percent(cell, text, style).map(|_| ()),
        FieldType::Bool => transform::parse_bool(cell, text).map(|_| ()),
        FieldType::Kind => parse_kind(text).map(|_| ()),
        FieldType::InvoiceType => parse_invoice_type(text).map(|_| ()),
    }
}

/// `invoice`, `credit_note`, `debit_note` (also `credit note`, `credit-note`).
pub fn parse_kind(text: &str) -> Result<crate::model::DocumentKind, String> {
    use crate::model::DocumentKind::*;
    // The words themselves (what a `map` gives): no normalising, no allocation.
    match text {
        "invoice" => return Ok(Invoice),
        "credit_note" => return Ok(CreditNote),
        "debit_note" => return Ok(DebitNote),
        _ => {}
    }
    match norm_value(text).replace([' ', '-'], "_").as_str() {
        "invoice" => Ok(Invoice),
        "credit_note" | "credit" => Ok(CreditNote),
        "debit_note" | "debit" => Ok(DebitNote),
        _ => Err("not invoice, credit_note or debit_note (add it to the field's map)".into()),
    }
}

/// `standard` or `simplified`.
pub fn parse_invoice_type(text: &str) -> Result<crate::model::InvoiceType, String> {
    match norm_value(text).as_str() {
        "standard" => Ok(crate::model::InvoiceType::Standard),
        "simplified" => Ok(crate::model::InvoiceType::Simplified),
        _ => Err("not standard or simplified (add it to the field's map)".into()),
    }
}

pub(super) fn thousands_char(origin: &Origin, key: &str, t: &Option<String>) -> Result<Option<char>, MappingError> {
    match t.as_deref() {
        None => Ok(None),
        Some(s) => {
            let mut it = s.chars();
            match (it.next(), it.next()) {
                (Some(c), None) if !c.is_alphanumeric() => Ok(Some(c)),
                _ => Err(invalid(
                    origin,
                    key,
                    format!(
                        "{s:?} is not a thousands separator; give one character such as \",\", \".\", \" \" or \"'\" \
                         (or leave it out)"
                    ),
                )),
            }
        }
    }
}

/// Dotted keys (`buyer.name = ...` under `[fields]`) arrive as nested tables: flatten them back
/// to `buyer.name`.
pub(super) fn flatten(fields: &std::collections::BTreeMap<String, toml::Value>) -> Vec<(String, toml::Value)> {
    let mut out = Vec::new();
    for (k, v) in fields {
        let prefix = format!("{k}.");
        match v {
            toml::Value::Table(t) if field_id(k).is_none() && FIELDS.iter().any(|f| f.name.starts_with(&prefix)) => {
                let inner: std::collections::BTreeMap<String, toml::Value> =
                    t.iter().map(|(ik, iv)| (format!("{k}.{ik}"), iv.clone())).collect();
                out.extend(flatten(&inner));
            }
            _ => out.push((k.clone(), v.clone())),
        }
    }
    out
}

#[cfg(test)]
mod norm_tests {
    use super::{NormText, norm_value};
    use proptest::prelude::*;

    proptest! {
        /// The allocation-free comparison says what comparing the normalised texts says.
        #[test]
        fn norm_text_agrees_with_norm_value(
            key in "[ a-zA-Z0-9%()\u{212A}\u{130}\u{645}]{0,8}",
            raw in "[ a-zA-Z0-9%()\u{212A}\u{130}\u{645}\u{a0}]{0,8}",
        ) {
            let key = norm_value(&key);
            prop_assert_eq!(NormText::new(&raw).matches(&key), norm_value(&raw) == key);
            // A text always matches its own key.
            prop_assert!(NormText::new(&raw).matches(&norm_value(&raw)));
        }
    }
}

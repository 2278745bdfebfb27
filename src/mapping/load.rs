//! Loading a mapping file and checking it: unknown field names, bad formats, unknown tax
//! categories, missing required fields are errors naming the mapping, the key and what was
//! expected. The result is a [`Mapping`], ready to be bound to a file's headers.

use super::MappingError;
pub use super::compiled::{FieldRule, Mapping, Origin, Part, SkipRule, Source, TaxCode, TypeRule};
use super::fields::{FIELDS, FieldType, field_id, id};
use super::headers::closest;
use super::spec::{MappingFile, OneOrMany};
use super::transform::{self, NumberStyle};
use crate::model::{Code, TaxCategory};
use rust_decimal::Decimal;

fn invalid(origin: &Origin, key: impl Into<String>, expected: impl Into<String>) -> MappingError {
    MappingError::Invalid {
        mapping: origin.to_string(),
        key: key.into(),
        expected: expected.into(),
    }
}

/// A TOML scalar as text (`15` → "15", `true` → "true").
fn scalar(v: &toml::Value) -> Option<String> {
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
                        None => return Err(format!("unclosed `{{` in template {t:?}")),
                    }
                }
                if name.trim().is_empty() {
                    return Err(format!("empty `{{}}` in template {t:?}"));
                }
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                parts.push(Part::Column(name.trim().to_string()));
            }
            '}' => return Err(format!("stray `}}` in template {t:?} (write `}}}}` for a brace)")),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    if !parts.iter().any(|p| matches!(p, Part::Column(_))) {
        return Err(format!("template {t:?} names no column (write `{{Column}}`)"));
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

fn check_typed(ty: FieldType, text: &str, style: &NumberStyle, formats: &[String]) -> Result<(), String> {
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

fn thousands_char(origin: &Origin, key: &str, t: &Option<String>) -> Result<Option<char>, MappingError> {
    match t.as_deref() {
        None => Ok(None),
        Some(s) => {
            let mut it = s.chars();
            match (it.next(), it.next()) {
                (Some(c), None) if !c.is_alphanumeric() => Ok(Some(c)),
                _ => Err(invalid(
                    origin,
                    key,
                    "one separator character such as \",\", \".\", \" \" or \"'\"",
                )),
            }
        }
    }
}

/// Dotted keys (`buyer.name = ...` under `[fields]`) arrive as nested tables: flatten them back
/// to `buyer.name`.
fn flatten(fields: &std::collections::BTreeMap<String, toml::Value>) -> Vec<(String, toml::Value)> {
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

impl Mapping {
    /// Parse and check a mapping file's text.
    pub fn from_toml(text: &str, origin: Origin) -> Result<Mapping, MappingError> {
        let file: MappingFile = toml::from_str(text).map_err(|e| {
            let msg = e.message().to_string();
            let at = e
                .span()
                .map(|s| format!("line {}", text[..s.start.min(text.len())].lines().count().max(1)))
                .unwrap_or_else(|| "file".into());
            invalid(&origin, at, msg)
        })?;
        let name = file.name.clone().unwrap_or_else(|| match &origin {
            Origin::Bundled(n) => n.clone(),
            Origin::File(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        });
        let d = &file.defaults;
        let default_dates = d.date_format.as_ref().map(OneOrMany::to_vec);
        let default_times = d.time_format.as_ref().map(OneOrMany::to_vec);
        for (key, list, want_date) in [
            ("defaults.date_format", &default_dates, true),
            ("defaults.time_format", &default_times, false),
        ] {
            for f in list.iter().flatten() {
                transform::check_format(f, want_date).map_err(|e| invalid(&origin, key, e))?;
            }
        }
        let default_style = NumberStyle {
            decimal_comma: d.decimal_comma.unwrap_or(false),
            thousands: thousands_char(&origin, "defaults.thousands", &d.thousands)?,
        };

        let mut fields: Vec<Option<FieldRule>> = vec![None; FIELDS.len()];
        for (key, raw) in &flatten(&file.fields) {
            let fkey = format!("fields.{key:?}");
            let fid = field_id(key).ok_or_else(|| {
                let hint = closest(key, FIELDS.iter().map(|f| f.name))
                    .map(|c| format!("; did you mean {c:?}?"))
                    .unwrap_or_default();
                invalid(
                    &origin,
                    &fkey,
                    format!("unknown field {key:?}{hint} (the fields are listed in mappings/README.md)"),
                )
            })?;
            let def = FIELDS[fid];
            let spec: super::spec::FieldSpec = match raw {
                toml::Value::String(col) => super::spec::FieldSpec {
                    column: Some(OneOrMany::One(col.clone())),
                    ..Default::default()
                },
                toml::Value::Table(_) => raw
                    .clone()
                    .try_into()
                    .map_err(|e: toml::de::Error| invalid(&origin, &fkey, e.message().to_string()))?,
                _ => {
                    return Err(invalid(
                        &origin,
                        &fkey,
                        "a column name (string) or a table such as { column = \"...\", format = \"...\" }",
                    ));
                }
            };
            let optional = spec.optional.unwrap_or(false);
            let kinds = [
                spec.column.is_some(),
                spec.value.is_some(),
                spec.template.is_some(),
                spec.lookup.is_some(),
            ];
            if kinds.iter().filter(|k| **k).count() > 1 {
                return Err(invalid(&origin, &fkey, "only one of column, value, template or lookup"));
            }
            let source = if let Some(c) = &spec.column {
                let names = c.to_vec();
                if names.is_empty() || names.iter().any(|n| n.trim().is_empty()) {
                    return Err(invalid(&origin, &fkey, "a non-empty column name"));
                }
                Source::Column { names, optional }
            } else if let Some(v) = &spec.value {
                Source::Constant(
                    scalar(v).ok_or_else(|| invalid(&origin, &fkey, "value: a string, number or boolean"))?,
                )
            } else if let Some(t) = &spec.template {
                Source::Template {
                    parts: parse_template(t).map_err(|e| invalid(&origin, &fkey, e))?,
                    optional,
                }
            } else if let Some(table) = &spec.lookup {
                if !file.lookups.contains_key(table) {
                    return Err(invalid(
                        &origin,
                        &fkey,
                        format!("lookup {table:?} is not declared in [lookups]"),
                    ));
                }
                let key = match spec.key.as_ref() {
                    None => {
                        return Err(invalid(
                            &origin,
                            &fkey,
                            "key = the column (or template, or list of alternative columns) giving the lookup key",
                        ));
                    }
                    Some(OneOrMany::One(key)) if key.contains('{') => {
                        parse_template(key).map_err(|e| invalid(&origin, &fkey, e))?
                    }
                    Some(OneOrMany::One(key)) => vec![Part::Column(key.to_string())],
                    // Alternatives, as a column field's: the first present in the file.
                    Some(OneOrMany::Many(names)) if !names.is_empty() => vec![Part::Columns(names.clone())],
                    Some(OneOrMany::Many(_)) => {
                        return Err(invalid(
                            &origin,
                            &fkey,
                            "key = a column name, or a list of them (not empty)",
                        ));
                    }
                };
                let get = spec
                    .get
                    .clone()
                    .ok_or_else(|| invalid(&origin, &fkey, "get = the lookup table's column giving the value"))?;
                Source::Lookup {
                    table: table.clone(),
                    key,
                    get,
                }
            } else if spec.default.is_some() {
                Source::DefaultOnly
            } else {
                return Err(invalid(
                    &origin,
                    &fkey,
                    "a source: column, value, template or lookup (or at least a default)",
                ));
            };
            let formats = match (&spec.format, def.ty) {
                (Some(f), FieldType::Date | FieldType::Time) => f.to_vec(),
                (Some(_), _) => {
                    return Err(invalid(
                        &origin,
                        format!("{fkey}.format"),
                        format!("no format: {key} is {}", def.ty.describe()),
                    ));
                }
                (None, FieldType::Date) => default_dates.clone().unwrap_or_default(),
                (None, FieldType::Time) => default_times
                    .clone()
                    .unwrap_or_else(|| transform::TIME_FORMATS.iter().map(|s| s.to_string()).collect()),
                (None, _) => Vec::new(),
            };
            if def.ty == FieldType::Date && formats.is_empty() && !matches!(source, Source::Constant(_)) {
                return Err(invalid(
                    &origin,
                    format!("{fkey}.format"),
                    "a date format such as \"%d/%m/%Y\" for DD/MM/YYYY (or [defaults] date_format): dates are never guessed",
                ));
            }
            for f in &formats {
                transform::check_format(f, def.ty == FieldType::Date)
                    .map_err(|e| invalid(&origin, format!("{fkey}.format"), e))?;
            }
            let style = NumberStyle {
                decimal_comma: spec.decimal_comma.unwrap_or(default_style.decimal_comma),
                thousands: match &spec.thousands {
                    Some(_) => thousands_char(&origin, &format!("{fkey}.thousands"), &spec.thousands)?,
                    None => default_style.thousands,
                },
            };
            let mut map = Vec::new();
            let mut map_other = None;
            for (k, v) in spec.map.iter().flatten() {
                let v = scalar(v).ok_or_else(|| invalid(&origin, format!("{fkey}.map.{k:?}"), "a string or number"))?;
                if def.ty != FieldType::Tax {
                    check_typed(def.ty, &v, &style, &formats)
                        .map_err(|e| invalid(&origin, format!("{fkey}.map.{k:?}"), format!("{v:?}: {e}")))?;
                }
                if k == "*" {
                    map_other = Some(v);
                } else {
                    map.push((norm_value(k), v));
                }
            }
            let default = match &spec.default {
                Some(v) => {
                    Some(scalar(v).ok_or_else(|| invalid(&origin, format!("{fkey}.default"), "a string or number"))?)
                }
                None => None,
            };
            let checks = default
                .iter()
                .map(|v| (format!("{fkey}.default"), v.clone()))
                .chain(match &source {
                    Source::Constant(v) if map.is_empty() => Some((format!("{fkey}.value"), v.clone())),
                    _ => None,
                });
            for (k, v) in checks {
                if def.ty == FieldType::Tax {
                    continue;
                }
                check_typed(def.ty, &v, &style, &formats).map_err(|e| invalid(&origin, k, format!("{v:?}: {e}")))?;
            }
            // Alternatives the mapping lists, else the other order of day and month implied by a
            // column's one-order formats (see `super::dates`).
            let dates = match (def.ty, &source) {
                (FieldType::Date, Source::Column { .. }) => super::dates::alternatives(&formats)
                    .or_else(|| super::dates::implied(&formats))
                    .map(Box::new),
                (FieldType::Date, _) => super::dates::alternatives(&formats).map(Box::new),
                _ => None,
            };
            let pattern = match &spec.pattern {
                Some(p) => Some(regex::Regex::new(p).map_err(|e| {
                    invalid(
                        &origin,
                        format!("{fkey}.pattern"),
                        format!("a regular expression ({e})"),
                    )
                })?),
                None => None,
            };
            fields[fid] = Some(FieldRule {
                dates,
                field: fid,
                source,
                formats,
                style,
                map,
                map_other,
                default,
                pattern,
                trim: spec.trim.unwrap_or(true),
                when: spec
                    .when
                    .as_ref()
                    .map(|w| super::when::When::parse(w, &origin, &fkey))
                    .transpose()?,
            });
        }
        // A mapping that lists both orders somewhere reads its files by those: no order is
        // implied elsewhere.
        if fields
            .iter()
            .flatten()
            .any(|r| r.dates.as_ref().is_some_and(|a| a.implied.is_none()))
        {
            for r in fields.iter_mut().flatten() {
                if r.dates.as_ref().is_some_and(|a| a.implied.is_some()) {
                    r.dates = None;
                }
            }
        }

        // Required fields.
        for (req, what) in [
            ("number", "the document number column"),
            ("issue_date", "the issue date column and its format"),
            ("line.item_name", "the item name or description column"),
        ] {
            if fields[id(req)].is_none() {
                return Err(invalid(&origin, format!("fields.{req:?}"), format!("required: {what}")));
            }
        }
        if fields[id("line.unit_price")].is_none() && fields[id("line.amount")].is_none() {
            return Err(invalid(
                &origin,
                "fields.\"line.unit_price\"",
                "required: the unit price column (or line.amount)",
            ));
        }

        let mut taxes = Vec::new();
        for (code, t) in &file.taxes {
            let key = format!("taxes.{code:?}");
            let cat = t.category.trim().to_ascii_uppercase();
            if !["S", "Z", "E", "O"].contains(&cat.as_str()) {
                return Err(invalid(&origin, key, "category S, Z, E or O"));
            }
            let percent = match &t.percent {
                Some(v) => {
                    let s = scalar(v).unwrap_or_default();
                    transform::parse_percent(crate::ingest::CellRef::Empty, &s, &NumberStyle::default())
                        .map_err(|e| invalid(&origin, format!("{key}.percent"), format!("{s:?}: {e}")))?
                }
                None => Decimal::ZERO,
            };
            if cat == "S" && percent <= Decimal::ZERO {
                return Err(invalid(
                    &origin,
                    format!("{key}.percent"),
                    "a rate above 0 for category S (15 or 5)",
                ));
            }
            if cat != "S" && !percent.is_zero() {
                return Err(invalid(
                    &origin,
                    format!("{key}.percent"),
                    format!("0 for category {cat}"),
                ));
            }
            if cat != "S" && t.reason_code.is_none() {
                return Err(invalid(
                    &origin,
                    format!("{key}.reason_code"),
                    format!("an exemption reason code (VATEX-SA-...) for category {cat}"),
                ));
            }
            taxes.push(TaxCode {
                key: norm_value(code),
                written: code.trim().to_string(),
                category: TaxCategory {
                    exemption_reason_code: t.reason_code.as_deref().map(Code::from),
                    exemption_reason: t.reason.clone(),
                    ..TaxCategory::new(&cat, percent)
                },
            });
        }

        let skip = file
            .skip
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if s.column.trim().is_empty() || s.equals.is_empty() {
                    return Err(invalid(
                        &origin,
                        format!("skip[{i}]"),
                        "column = \"...\" and equals = [\"...\"]",
                    ));
                }
                Ok(SkipRule {
                    column: s.column.clone(),
                    equals: s.equals.iter().map(|v| norm_value(v)).collect(),
                    reason: s
                        .reason
                        .clone()
                        .unwrap_or_else(|| format!("{} is \"{{value}}\": not issued", s.column)),
                    optional: s.optional.unwrap_or(false),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;

        let type_rule = match file.rules.invoice_type.as_deref().map(norm_value).as_deref() {
            None | Some("auto") => TypeRule::Auto,
            Some("standard") => TypeRule::Standard,
            Some("simplified") => TypeRule::Simplified,
            Some(_) => return Err(invalid(&origin, "rules.invoice_type", "auto, standard or simplified")),
        };
        if let Some(j) = &file.join
            && (j.file_replace.len() != 2 || j.file_replace[0].is_empty())
        {
            return Err(invalid(
                &origin,
                "join.file_replace",
                "[\"part of the lines file name\", \"its replacement giving the header file name\"]",
            ));
        }
        for (n, l) in &file.lookups {
            if l.file.trim().is_empty() || l.key_column.trim().is_empty() {
                return Err(invalid(
                    &origin,
                    format!("lookups.{n}"),
                    "file = \"...\" and key_column = \"...\"",
                ));
            }
        }
        Ok(Mapping {
            name,
            description: file.description.clone().unwrap_or_default(),
            origin,
            input: file.input.clone(),
            fields,
            taxes,
            skip,
            type_rule,
            credit_note_when_negative: file.rules.credit_note_when_negative.unwrap_or(false),
            continuation: file.group.continuation.unwrap_or(false),
            group_key: file.group.key.clone(),
            join: file.join.clone(),
            lookups: file.lookups.into_iter().collect(),
        })
    }
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

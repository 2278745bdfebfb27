//! Loading a mapping file and checking it: TOML syntax, unknown field names, bad formats, unknown
//! tax categories, missing required fields are errors `mapping FILE: KEY: what is wrong; what to
//! do`. The result is a [`Mapping`], ready to be bound to a file's headers.

use super::MappingError;
pub use super::compiled::{FieldRule, Mapping, Origin, Part, SkipRule, Source, TaxCode, TypeRule};
use super::fields::{FIELDS, FieldType, field_id, id};
use super::headers::closest;
use super::load_toml::invalid;
pub use super::load_values::{NormText, norm_value, parse_invoice_type, parse_kind, parse_template};
use super::load_values::{bad_format, bad_value, check_typed, flatten, scalar, thousands_char};
use super::spec::{MappingFile, OneOrMany};
use super::transform::{self, NumberStyle};
use crate::model::{Code, TaxCategory};
use rust_decimal::Decimal;

impl Mapping {
    /// Parse and check a mapping file's text.
    pub fn from_toml(text: &str, origin: Origin) -> Result<Mapping, MappingError> {
        super::load_toml::syntax(text, &origin)?;
        let file: MappingFile =
            toml::from_str(text).map_err(|e| super::load_toml::read_error(&origin, Some(text), "", &e))?;
        super::input::check(&file.input, &origin)?;
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
                transform::check_format(f, want_date).map_err(|e| invalid(&origin, key, bad_format(e)))?;
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
                    format!("unknown field{hint} (the fields are listed in mappings/README.md)"),
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
                    .map_err(|e: toml::de::Error| super::load_toml::read_error(&origin, None, &fkey, &e))?,
                _ => {
                    return Err(invalid(
                        &origin,
                        &fkey,
                        "neither a column name nor a table; write a column name in double quotes, or a table \
                         such as { column = \"...\", format = \"...\" }",
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
                return Err(invalid(
                    &origin,
                    &fkey,
                    "more than one source; keep only one of column, value, template or lookup",
                ));
            }
            let source = if let Some(c) = &spec.column {
                let names = c.to_vec();
                if names.is_empty() || names.iter().any(|n| n.trim().is_empty()) {
                    return Err(invalid(&origin, &fkey, "an empty column name; give the column's name"));
                }
                Source::Column { names, optional }
            } else if let Some(v) = &spec.value {
                Source::Constant(scalar(v).ok_or_else(|| {
                    invalid(
                        &origin,
                        format!("{fkey}.value"),
                        "not a text, number or boolean; write one of those",
                    )
                })?)
            } else if let Some(t) = &spec.template {
                Source::Template {
                    parts: parse_template(t).map_err(|e| invalid(&origin, format!("{fkey}.template"), e))?,
                    optional,
                }
            } else if let Some(table) = &spec.lookup {
                if !file.lookups.contains_key(table) {
                    return Err(invalid(
                        &origin,
                        &fkey,
                        format!(
                            "lookup {table:?} is not declared; add a [lookups.{table}] table with its file and \
                             key_column"
                        ),
                    ));
                }
                let key = match spec.key.as_ref() {
                    None => {
                        return Err(invalid(
                            &origin,
                            &fkey,
                            "a lookup without a key; add key = the column (or template, or list of alternative \
                             columns) giving the lookup key",
                        ));
                    }
                    Some(OneOrMany::One(key)) if key.contains('{') => {
                        parse_template(key).map_err(|e| invalid(&origin, format!("{fkey}.key"), e))?
                    }
                    Some(OneOrMany::One(key)) => vec![Part::Column(key.to_string())],
                    // Alternatives, as a column field's: the first present in the file.
                    Some(OneOrMany::Many(names)) if !names.is_empty() => vec![Part::Columns(names.clone())],
                    Some(OneOrMany::Many(_)) => {
                        return Err(invalid(
                            &origin,
                            format!("{fkey}.key"),
                            "an empty list; give a column name, or a list of them",
                        ));
                    }
                };
                let get = spec.get.clone().ok_or_else(|| {
                    invalid(
                        &origin,
                        &fkey,
                        "a lookup without get; add get = the lookup table's column giving the value",
                    )
                })?;
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
                    "no source; give one of column, value, template or lookup (or at least a default)",
                ));
            };
            let formats = match (&spec.format, def.ty) {
                (Some(f), FieldType::Date | FieldType::Time) => f.to_vec(),
                (Some(_), _) => {
                    return Err(invalid(
                        &origin,
                        format!("{fkey}.format"),
                        format!(
                            "a format for a field that is {}, not a date or time; remove it",
                            def.ty.describe()
                        ),
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
                    "missing: dates are never guessed; add a date format such as \"%d/%m/%Y\" for DD/MM/YYYY (or \
                     [defaults] date_format)",
                ));
            }
            for f in &formats {
                transform::check_format(f, def.ty == FieldType::Date)
                    .map_err(|e| invalid(&origin, format!("{fkey}.format"), bad_format(e)))?;
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
                let v = scalar(v).ok_or_else(|| {
                    invalid(
                        &origin,
                        format!("{fkey}.map.{k:?}"),
                        "not a text or number; write the value as text in double quotes",
                    )
                })?;
                if def.ty != FieldType::Tax {
                    check_typed(def.ty, &v, &style, &formats)
                        .map_err(|e| invalid(&origin, format!("{fkey}.map.{k:?}"), bad_value(def.ty, &v, &e)))?;
                }
                if k == "*" {
                    map_other = Some(v);
                } else {
                    map.push((norm_value(k), v));
                }
            }
            let default = match &spec.default {
                Some(v) => Some(scalar(v).ok_or_else(|| {
                    invalid(
                        &origin,
                        format!("{fkey}.default"),
                        "not a text or number; write the default as text in double quotes",
                    )
                })?),
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
                check_typed(def.ty, &v, &style, &formats)
                    .map_err(|e| invalid(&origin, k, bad_value(def.ty, &v, &e)))?;
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
                        format!("not a regular expression ({e}); correct it"),
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
        for (req, what, how) in [
            ("number", "the document number column", "number = \"...\""),
            (
                "issue_date",
                "the issue date column and its format",
                "issue_date = { column = \"...\", format = \"...\" }",
            ),
            (
                "line.item_name",
                "the item name or description column",
                "line.item_name = \"...\"",
            ),
        ] {
            if fields[id(req)].is_none() {
                return Err(invalid(
                    &origin,
                    format!("fields.{req:?}"),
                    format!("missing: every mapping needs {what}; add {how} under [fields]"),
                ));
            }
        }
        if fields[id("line.unit_price")].is_none() && fields[id("line.amount")].is_none() {
            return Err(invalid(
                &origin,
                "fields.\"line.unit_price\"",
                "missing: every mapping needs the unit price column (or line.amount); add line.unit_price = \"...\" \
                 under [fields]",
            ));
        }

        let mut taxes = Vec::new();
        for (code, t) in &file.taxes {
            let key = format!("taxes.{code:?}");
            let cat = t.category.trim().to_ascii_uppercase();
            if !["S", "Z", "E", "O"].contains(&cat.as_str()) {
                return Err(invalid(
                    &origin,
                    format!("{key}.category"),
                    format!("{:?} is not a VAT category; give S, Z, E or O", t.category),
                ));
            }
            let percent = match &t.percent {
                Some(v) => {
                    let s = scalar(v).unwrap_or_default();
                    transform::parse_percent(crate::ingest::CellRef::Empty, &s, &NumberStyle::default()).map_err(
                        |e| {
                            invalid(
                                &origin,
                                format!("{key}.percent"),
                                format!("{s:?}: {e}; give the rate as a number such as 15"),
                            )
                        },
                    )?
                }
                None => Decimal::ZERO,
            };
            if cat == "S" && percent <= Decimal::ZERO {
                return Err(invalid(
                    &origin,
                    format!("{key}.percent"),
                    format!("{percent} for category S; give its rate, 15 or 5 (0% is category Z, E or O)"),
                ));
            }
            if cat != "S" && !percent.is_zero() {
                return Err(invalid(
                    &origin,
                    format!("{key}.percent"),
                    format!("{percent} for category {cat}, whose rate is 0; remove percent (or give category S)"),
                ));
            }
            if cat != "S" && t.reason_code.is_none() {
                return Err(invalid(
                    &origin,
                    format!("{key}.reason_code"),
                    format!(
                        "missing: category {cat} needs an exemption reason code; add reason_code = \"VATEX-SA-...\""
                    ),
                ));
            }
            // A code the authority does not list for the category would go on every document of
            // that tax code (BR-KSA-CL-04 warns, and the API issues it): refused here, once.
            if let Some(given) = t.reason_code.as_deref()
                && cat != "S"
            {
                let allowed = crate::validate::exemption_reasons(&cat);
                let code = given.trim();
                if !allowed.contains(&code) {
                    let fix = match allowed.iter().find(|a| a.eq_ignore_ascii_case(code)) {
                        Some(same) => format!("write it {same:?}"),
                        None => match allowed {
                            [one] => format!("category {cat} takes {one}"),
                            _ => format!("use one of {}", allowed.join(", ")),
                        },
                    };
                    return Err(invalid(
                        &origin,
                        format!("{key}.reason_code"),
                        format!("{given:?} is not an exemption reason code of category {cat}; {fix}"),
                    ));
                }
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
                        "an empty column or equals; give column = \"...\" and equals = [\"...\"]",
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
            Some(other) => {
                return Err(invalid(
                    &origin,
                    "rules.invoice_type",
                    format!("{other:?} is not a document type rule; give auto, standard or simplified"),
                ));
            }
        };
        if let Some(j) = &file.join
            && (j.file_replace.len() != 2 || j.file_replace[0].is_empty())
        {
            return Err(invalid(
                &origin,
                "join.file_replace",
                "not two names; give [\"part of the lines file name\", \"its replacement giving the header file \
                 name\"]",
            ));
        }
        for (n, l) in &file.lookups {
            if l.file.trim().is_empty() || l.key_column.trim().is_empty() {
                return Err(invalid(
                    &origin,
                    format!("lookups.{n}"),
                    "an empty file or key_column; give file = \"...\" and key_column = \"...\"",
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

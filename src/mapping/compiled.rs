//! A checked mapping, as [`super::load`] builds it from a mapping file.

use super::MappingError;
use super::dates::{Alternatives, Settlement};
use super::fields::{FIELDS, FieldId, id};
use super::spec::{InputSpec, JoinSpec, LookupSpec};
use super::transform::NumberStyle;
use crate::model::TaxCategory;
use std::path::{Path, PathBuf};

/// Where a mapping came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Bundled in the binary, by name.
    Bundled(String),
    /// A file on disk.
    File(PathBuf),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Bundled(n) => write!(f, "mappings/{n}.toml (bundled)"),
            Origin::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// A piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text.
    Text(String),
    /// A column's value.
    Column(String),
    /// A column's value, from the first of these alternatives present in the file (a lookup
    /// `key` written as a list: `["InvoiceNo", "Invoice number"]`).
    Columns(Vec<String>),
}

/// Where a field's value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A column; alternatives are tried in order and the first present in the file is used.
    Column {
        /// The names.
        names: Vec<String>,
        /// The column may be absent.
        optional: bool,
    },
    /// A constant.
    Constant(String),
    /// Columns combined.
    Template {
        /// The pieces.
        parts: Vec<Part>,
        /// Columns may be absent.
        optional: bool,
    },
    /// A value from a side table.
    Lookup {
        /// The table.
        table: String,
        /// The key: a column or a template.
        key: Vec<Part>,
        /// The table's column giving the value.
        get: String,
    },
    /// Nothing but the default.
    DefaultOnly,
}

/// How one field is filled.
#[derive(Debug, Clone)]
pub struct FieldRule {
    /// The field.
    pub field: FieldId,
    /// Where from.
    pub source: Source,
    /// Date or time formats.
    pub formats: Vec<String>,
    /// For a date field whose formats hold a format and the same with day and month swapped:
    /// those alternatives, and the order the file settled ([`super::dates`]).
    pub dates: Option<Box<Alternatives>>,
    /// Number style.
    pub style: NumberStyle,
    /// Value map, keys normalised (trimmed, lower case).
    pub map: Vec<(String, String)>,
    /// The map's catch-all (`"*"`).
    pub map_other: Option<String>,
    /// Used when the source is blank.
    pub default: Option<String>,
    /// The text's part read (`pattern`): its first group, or the whole match; no match is blank.
    pub pattern: Option<regex::Regex>,
    /// Trim white space.
    pub trim: bool,
    /// Read only from rows whose column holds one of some values.
    pub when: Option<super::when::When>,
}

/// A tax code of the `[taxes]` table.
#[derive(Debug, Clone)]
pub struct TaxCode {
    /// As a cell is compared with it (trimmed, lower case).
    pub key: String,
    /// As the mapping writes it (trimmed), for messages.
    pub written: String,
    /// Its VAT category.
    pub category: TaxCategory,
}

/// A `[[skip]]` rule.
#[derive(Debug, Clone)]
pub struct SkipRule {
    /// The column tested.
    pub column: String,
    /// Normalised values that skip.
    pub equals: Vec<String>,
    /// Why (with `{value}`).
    pub reason: String,
    /// The column may be absent.
    pub optional: bool,
}

/// The document type rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeRule {
    /// Standard when the buyer has a VAT number, else simplified.
    Auto,
    /// Always standard.
    Standard,
    /// Always simplified.
    Simplified,
}

/// A checked mapping.
#[derive(Debug, Clone)]
pub struct Mapping {
    /// Short name.
    pub name: String,
    /// What it reads.
    pub description: String,
    /// Where it came from.
    pub origin: Origin,
    /// Reading options.
    pub input: InputSpec,
    /// Per field (indexed by [`FieldId`]).
    pub fields: Vec<Option<FieldRule>>,
    /// The `[taxes]` table.
    pub taxes: Vec<TaxCode>,
    /// Skip rules.
    pub skip: Vec<SkipRule>,
    /// Document type rule.
    pub type_rule: TypeRule,
    /// Negative documents are credit notes.
    pub credit_note_when_negative: bool,
    /// Blank-number rows continue the document above.
    pub continuation: bool,
    /// The grouping column, when not the `number` field.
    pub group_key: Option<String>,
    /// Header file join.
    pub join: Option<JoinSpec>,
    /// Side tables.
    pub lookups: Vec<(String, LookupSpec)>,
}

impl Mapping {
    /// Load a mapping file from disk.
    pub fn from_file(path: &Path) -> Result<Mapping, MappingError> {
        let text = std::fs::read_to_string(path).map_err(|e| MappingError::Invalid {
            mapping: path.display().to_string(),
            key: "file".into(),
            problem: format!("cannot be read ({e}); give a readable UTF-8 TOML file"),
        })?;
        Mapping::from_toml(&text, Origin::File(path.to_path_buf()))
    }

    /// The `[taxes]` codes as the mapping writes them, for messages: `E0FIN, S15, S5`; a code
    /// holding a comma is quoted.
    pub fn known_tax_codes(&self) -> String {
        let shown: Vec<String> = self
            .taxes
            .iter()
            .map(|t| {
                if t.written.contains(',') {
                    format!("{:?}", t.written)
                } else {
                    t.written.clone()
                }
            })
            .collect();
        shown.join(", ")
    }

    /// True when every document this mapping reads is a credit or debit note: its `kind` is a
    /// constant note (Zoho's `Credit_Note.csv`). Such an export is read after the others of a
    /// run, so that the invoices its notes correct are known first (their dates).
    pub fn notes_only(&self) -> bool {
        match self.rule("kind").map(|r| &r.source) {
            Some(Source::Constant(v)) => super::load::parse_kind(v).is_ok_and(|k| k.is_note()),
            _ => false,
        }
    }

    /// The rule of a field, by name.
    pub fn rule(&self, name: &str) -> Option<&FieldRule> {
        self.fields[id(name)].as_ref()
    }

    /// Every column the mapping reads, as (alternatives, optional, key for messages). Columns the
    /// join declares as header-file columns are listed separately by [`Mapping::header_columns`].
    pub fn columns(&self) -> Vec<(Vec<String>, bool, String)> {
        let mut out = Vec::new();
        let mut push = |names: Vec<String>, optional: bool, key: String| {
            if !out.iter().any(|(n, _, _): &(Vec<String>, bool, String)| *n == names) {
                out.push((names, optional, key));
            }
        };
        for r in self.fields.iter().flatten() {
            let key = format!("fields.{:?}", FIELDS[r.field].name);
            match &r.source {
                Source::Column { names, optional } => push(names.clone(), *optional, key.clone()),
                Source::Template { parts, optional } => {
                    for p in parts {
                        if let Part::Column(c) = p {
                            push(vec![c.clone()], *optional, key.clone());
                        }
                    }
                }
                Source::Lookup { key: k, .. } => {
                    for p in k {
                        match p {
                            Part::Column(c) => push(vec![c.clone()], false, key.clone()),
                            Part::Columns(names) => push(names.clone(), false, key.clone()),
                            Part::Text(_) => {}
                        }
                    }
                }
                _ => {}
            }
            if let Some(w) = &r.when {
                let optional = super::when::source_optional(&r.source);
                push(vec![w.column.clone()], optional, format!("{key}.when.column"));
            }
        }
        for (i, s) in self.skip.iter().enumerate() {
            push(vec![s.column.clone()], s.optional, format!("skip[{i}].column"));
        }
        if let Some(k) = &self.group_key {
            push(vec![k.clone()], false, "group.key".into());
        }
        if let Some(j) = &self.join {
            push(vec![j.parent.clone()], false, "join.parent".into());
        }
        let header = self.header_columns();
        out.retain(|(names, _, _)| {
            !names.iter().any(|n| {
                header
                    .iter()
                    .any(|h| super::headers::normalize(h) == super::headers::normalize(n))
            })
        });
        out
    }

    /// True when a date field's formats hold alternatives (a format and the same with day and
    /// month swapped).
    pub fn has_date_alternatives(&self) -> bool {
        self.fields
            .iter()
            .flatten()
            .any(|r| r.dates.as_ref().is_some_and(|a| a.implied.is_none()))
    }

    /// True when the order of a file's dates is looked at before it is read: a date field's
    /// formats hold alternatives, or write day and month in one order whose swap is implied
    /// ([`super::dates::implied`]).
    pub fn looks_at_date_order(&self) -> bool {
        self.fields.iter().flatten().any(|r| r.dates.is_some())
    }

    /// Settle the order of one file's dates (this is a copy of the mapping for that file): the
    /// other order's formats are taken out of every date field with alternatives (and, for a
    /// mapping that writes one order, the implied swaps take the place of its formats when the
    /// file shows the other order). Its note; `against`: the file's first date that reads only
    /// in the other order than a one-order mapping's, met before `s`.
    pub fn settle_dates(&mut self, s: &Settlement, against: Option<&Settlement>) -> Option<String> {
        let mut note = None;
        for r in self.fields.iter_mut().flatten() {
            if let Some(alt) = r.dates.as_mut() {
                alt.settle(&mut r.formats, s);
                if note.is_none() {
                    note = Some(alt.settled_note(s, against, &r.formats));
                }
            }
        }
        note.flatten()
    }

    /// The note of a file with dates that read both ways and none that tells which (`example`).
    pub fn undecided_dates_note(&self, example: &str) -> Option<String> {
        let alt = self.fields.iter().flatten().find_map(|r| r.dates.as_ref())?;
        alt.undecided_note(example)
    }

    /// The columns that come from the joined header file (empty without a join).
    pub fn header_columns(&self) -> Vec<String> {
        match &self.join {
            Some(j) => {
                let mut cols = vec![j.key.clone()];
                cols.extend(j.header_columns.iter().cloned());
                cols
            }
            None => Vec::new(),
        }
    }
}

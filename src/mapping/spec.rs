//! The TOML model of a mapping file, as written (see `mappings/README.md`). [`super::load`] checks
//! it and turns it into a [`super::Mapping`].

use serde::Deserialize;
use std::collections::BTreeMap;

/// One string or several (`format = "%d/%m/%Y"` or `format = ["%d/%m/%Y", "%d.%m.%Y"]`).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum OneOrMany {
    /// One.
    One(String),
    /// Several, tried in order.
    Many(Vec<String>),
}

impl OneOrMany {
    /// As a list.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MappingFile {
    /// Short name (`xero`); defaults to the file stem.
    pub name: Option<String>,
    /// One line saying which ERP export this reads.
    pub description: Option<String>,
    /// How to read the file.
    #[serde(default)]
    pub input: InputSpec,
    /// Defaults for every field's transforms.
    #[serde(default)]
    pub defaults: DefaultsSpec,
    /// Field name → source (a column name, or a table).
    #[serde(default)]
    pub fields: BTreeMap<String, toml::Value>,
    /// Tax codes found in the export → VAT category.
    #[serde(default)]
    pub taxes: BTreeMap<String, TaxSpec>,
    /// Rows (documents) not to issue.
    #[serde(default)]
    pub skip: Vec<SkipSpec>,
    /// Document kind and type rules.
    #[serde(default)]
    pub rules: RulesSpec,
    /// How rows form documents.
    #[serde(default)]
    pub group: GroupSpec,
    /// A header file joined to this (lines) file.
    pub join: Option<JoinSpec>,
    /// Side tables, by name.
    #[serde(default)]
    pub lookups: BTreeMap<String, LookupSpec>,
}

/// `[input]`: how to read the export.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// Character encoding (`utf-8`, `windows-1256`, `utf-16le`); detected when absent.
    pub encoding: Option<String>,
    /// Field delimiter (`,`, `;`, `\t`, `|`); detected when absent.
    pub delimiter: Option<String>,
    /// Worksheet name for spreadsheets (first sheet when absent).
    pub sheet: Option<String>,
    /// 1-based row of the (first) header row, when not the first row.
    pub header_row: Option<usize>,
    /// Number of header rows (SAP DTW: 2).
    pub header_rows: Option<usize>,
}

/// `[defaults]`: transform defaults for every field.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultsSpec {
    /// Date formats (chrono strftime, or `excel` for serial numbers).
    pub date_format: Option<OneOrMany>,
    /// Time formats.
    pub time_format: Option<OneOrMany>,
    /// Numbers use `,` as decimal separator.
    pub decimal_comma: Option<bool>,
    /// Thousands separator (`,`, `.`, ` `, `'`).
    pub thousands: Option<String>,
}

/// A field written as a table.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// A column, or alternatives: the first one present in the file is used.
    pub column: Option<OneOrMany>,
    /// A constant.
    pub value: Option<toml::Value>,
    /// Columns combined: `"{FirstName} {LastName}"`.
    pub template: Option<String>,
    /// A lookup table's name (see `[lookups]`).
    pub lookup: Option<String>,
    /// The lookup key: a column name, a template, or a list of column names (alternatives: the
    /// first present in the file, as a field's `column` list).
    pub key: Option<OneOrMany>,
    /// The lookup table's column giving the value.
    pub get: Option<String>,
    /// Date or time formats, tried in order.
    pub format: Option<OneOrMany>,
    /// `,` is the decimal separator.
    pub decimal_comma: Option<bool>,
    /// Thousands separator.
    pub thousands: Option<String>,
    /// Value map, compared ignoring case and surrounding spaces; `"*"` catches the rest.
    pub map: Option<BTreeMap<String, toml::Value>>,
    /// Used when the source is blank.
    pub default: Option<toml::Value>,
    /// A regular expression the text must match: its first group (or the whole match) is the
    /// value; a text it does not match is blank (then `default` applies). Odoo's reversal
    /// text `Reversal of: INV/2026/00041, damaged router` gives the invoice number and reason.
    pub pattern: Option<String>,
    /// Trim surrounding white space (default true).
    pub trim: Option<bool>,
    /// The column may be absent from the file (then the field is blank).
    pub optional: Option<bool>,
    /// Read the field only from rows whose column holds one of some values (Zoho's `Entity
    /// Discount Amount` only when `Discount Type` is `entity_level`).
    pub when: Option<WhenSpec>,
}

/// A field's `when`: the column tested and the values that let the field be read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhenSpec {
    /// The column tested.
    pub column: String,
    /// Values (ignoring case and surrounding spaces) for which the field is read.
    pub equals: Vec<String>,
}

/// `[taxes]` entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaxSpec {
    /// S, Z, E or O.
    pub category: String,
    /// Rate in percent (S: 15 or 5; Z, E, O: 0, the default).
    pub percent: Option<toml::Value>,
    /// VATEX-SA-... code (Z, E, O).
    pub reason_code: Option<String>,
    /// Exemption reason text (Z, E, O).
    pub reason: Option<String>,
}

/// `[[skip]]`: documents not to issue.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkipSpec {
    /// The column tested.
    pub column: String,
    /// Values (ignoring case and surrounding spaces) that skip the document.
    pub equals: Vec<String>,
    /// Why, for the result file; `{value}` is replaced by the cell.
    pub reason: Option<String>,
    /// The column may be absent.
    pub optional: Option<bool>,
}

/// `[rules]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// `auto` (standard when the buyer has a VAT number, else simplified), `standard` or
    /// `simplified`. Used when the `invoice_type` field is not mapped or blank.
    pub invoice_type: Option<String>,
    /// A document whose amounts are negative is a credit note; its amounts become positive.
    pub credit_note_when_negative: Option<bool>,
}

/// `[group]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    /// Rows with a blank document number continue the document above (Odoo, ERPNext).
    pub continuation: Option<bool>,
    /// Column whose value identifies a document's rows, when not the `number` field (SAP:
    /// `ParentKey`).
    pub key: Option<String>,
}

/// `[join]`: a header file joined to this lines file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinSpec {
    /// How to find the header file from the lines file name: `[from, to]` replaces `from` by
    /// `to` in the file name (`["Document_Lines", "Documents"]`).
    pub file_replace: Vec<String>,
    /// The header file's key column (`RecordKey`).
    pub key: String,
    /// The lines file's column referring to it (`ParentKey`).
    pub parent: String,
    /// Header rows of the header file (default: those of the lines file).
    pub header_rows: Option<usize>,
    /// The columns read from the header file (every other column is read from the lines file).
    pub header_columns: Vec<String>,
}

/// `[lookups.NAME]`: a side table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupSpec {
    /// CSV file: absolute, or relative to the mapping file, the configuration file, or the
    /// export's folder (tried in that order).
    pub file: String,
    /// The column holding the key.
    pub key_column: String,
    /// The file may be missing (its fields are then blank, and the check says so).
    pub optional: Option<bool>,
}

//! Mapping files: which columns of an ERP export feed which document fields, with transforms,
//! rules and grouping. Mappings are data (TOML), bundled in `mappings/` and documented in
//! `mappings/README.md`.
//!
//! The flow for one export:
//! 1. [`Mapping::from_toml`] / [`Mapping::from_file`] / [`bundled::get`] load and check a mapping
//!    (unknown field names, bad formats, missing required fields are errors naming the key);
//! 2. [`Bound::new`] binds it to the file's headers before any row is read (an unknown column is an
//!    error naming it and the closest header), loads its lookup tables and its joined header file;
//! 3. [`Grouper`] turns the stream of rows into [`Unit`]s: documents (rows sharing a number,
//!    and a kind where the mapping reads it from a column; contiguous) and stray rows, keeping
//!    only the rows of the open document in memory; a [`KeyScan`] of the rows before finds the
//!    numbers whose rows are not together ([`SplitKeys`]), so that no part of such a document is
//!    issued;
//! 4. [`build`] turns a document's rows into a [`Document`](crate::model::Document), with the
//!    export's own totals ([`ErpFigures`](crate::validate::ErpFigures)) and a [`Provenance`] that maps a finding's JSON path back
//!    to the source row and column.
//!    Its later rows must agree with its first on every document field (`agree`:
//!    `INV-MAP-CONFLICT` otherwise).

mod agree;
mod apply;
mod build;
pub mod bundled;
mod compiled;
pub mod dates;
pub mod detect;
mod doc_key;
pub mod fields;
mod group;
pub mod headers;
mod input;
mod load;
mod load_toml;
/// The keys a toml error is about (for the config file's messages too).
pub(crate) use load_toml::keys as toml_error_keys;
mod load_values;
pub mod lookup;
mod numbers_used;
mod rate;
pub mod spec;
mod splits;
pub mod transform;
mod when;

pub use apply::{
    Bound, CHAR_CODE, DateLook, JoinRows, KEY_BLANK_CODE, KEY_DUPLICATE_CODE, LOOKUP_DUPLICATE_CODE, Left, LookupMiss,
    NO_LINES_CODE, SideFile, SideUse, Unjoined, Value,
};
pub use build::{
    Built, DISCOUNT_CODE, NamedNote, NoteAt, NoteReference, OriginalDates, Provenance, REFERENCE_CODE,
    TABLE_MISSING_CODE, build, build_with, field_of,
};
pub use group::{DocDraft, DraftRow, Grouper, ORPHAN_CODE, RowNote, SPLIT_CODE, Unit};
pub use input::delimiter_byte;
pub use load::{FieldRule, Mapping, Origin, Part, SkipRule, Source, TypeRule, parse_template};
pub use numbers_used::{NUMBER_USED_CODE, NumbersUsed};
pub use splits::{KeyScan, SplitKeys, whose_rows};
pub use when::When;

use crate::validate::Severity;

/// `columns 24 and 45`, `columns 2, 5 and 9`.
fn positions_text(positions: &[usize]) -> String {
    let mut list: Vec<String> = positions.iter().map(usize::to_string).collect();
    let last = list.pop().unwrap_or_default();
    if list.is_empty() {
        format!("column {last}")
    } else {
        format!("columns {} and {last}", list.join(", "))
    }
}

/// A mapping that cannot be used, or cannot be used with a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MappingError {
    /// The mapping file itself is wrong.
    #[error("mapping {mapping}: {key}: {problem}")]
    Invalid {
        /// The mapping file (or bundled name).
        mapping: String,
        /// The key at fault (`fields."issue_date".format`), or where in the file (`line 10,
        /// column 22`) for a TOML syntax error.
        key: String,
        /// What is wrong, then what to do: `unknown field; did you mean "issue_date"? ...`.
        problem: String,
    },
    /// No bundled mapping has this name, and it is no mapping file.
    #[error(
        "{given_as} {name:?}: no bundled mapping has this name, and it is not a mapping file: give one of \
         {bundled}, or a mapping file ending .toml (`invoicedrop mappings list` describes the bundled ones)"
    )]
    Unknown {
        /// How the command line gave it: `--mapping`, `mappings show`.
        given_as: String,
        /// The name given.
        name: String,
        /// The bundled mappings' names, `a, b, c`.
        bundled: String,
    },
    /// A column the mapping reads is not in the file.
    #[error(
        "{input}: no column {column:?} (needed by {key} of mapping {mapping}){}{}",
        closest.as_ref().map(|c| format!("; the closest header is {c:?}")).unwrap_or_default(),
        hint.as_ref().map(|h| format!("; {h}")).unwrap_or_default()
    )]
    MissingColumn {
        /// The export.
        input: String,
        /// The mapping.
        mapping: String,
        /// The mapping key that reads it.
        key: String,
        /// The column.
        column: Box<str>,
        /// The closest header present.
        closest: Option<Box<str>>,
        /// Where the header was read, and the row that holds the mapping's columns (the
        /// `header_row` to set), when it is not the one read.
        hint: Option<Box<str>>,
    },
    /// A column the mapping reads is named more than once in the file's header.
    #[error(
        "{input}: {} columns are named {column:?} ({}), and mapping {mapping} reads {column:?} ({key}): it \
         cannot tell which to read; rename or remove all but one of them in the export",
        positions.len(),
        positions_text(positions)
    )]
    AmbiguousColumn {
        /// The export (or its header file).
        input: String,
        /// The mapping.
        mapping: String,
        /// The mapping key that reads it.
        key: String,
        /// The column, as the mapping names it.
        column: Box<str>,
        /// The 1-based positions of the columns so named.
        positions: Box<[usize]>,
    },
    /// A lookup table or joined header file cannot be used.
    #[error("{path}: {message}")]
    Lookup {
        /// The side file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// No mapping, or more than one, fits a file.
    #[error("{input}: {message}")]
    Detect {
        /// The export.
        input: String,
        /// What was found.
        message: String,
    },
}

/// A problem with one row or document found while mapping: a value that cannot be read, a blank
/// required field, an unknown tax code. Carries the source column and value for the result file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// `INV-MAP-...`.
    pub code: String,
    /// Error (the document is not issued) or warning.
    pub severity: Severity,
    /// The source column (or lookup, template) the value came from.
    pub column: Option<String>,
    /// The offending value.
    pub value: Option<String>,
    /// What is wrong, for a clerk.
    pub message: String,
}

impl Issue {
    /// An error.
    pub fn error(code: &str, column: Option<String>, value: Option<String>, message: impl Into<String>) -> Self {
        Issue {
            code: code.into(),
            severity: Severity::Error,
            column,
            value,
            message: message.into(),
        }
    }

    /// A warning.
    pub fn warning(code: &str, column: Option<String>, value: Option<String>, message: impl Into<String>) -> Self {
        Issue {
            severity: Severity::Warning,
            ..Issue::error(code, column, value, message)
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The form used in result files: `CODE column "value": message`.
    pub fn render(&self) -> String {
        let mut s = self.code.clone();
        if let Some(c) = &self.column {
            s.push(' ');
            s.push_str(c);
        }
        if let Some(v) = &self.value {
            s.push_str(&format!(" {v:?}"));
        }
        s.push_str(": ");
        s.push_str(&self.message);
        s
    }
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

#[cfg(test)]
pub(crate) mod tests;

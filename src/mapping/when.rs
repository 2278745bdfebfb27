//! A field read only from some rows: `when = { column = "Discount Type", equals = ["entity_level"] }`
//! reads Zoho's `Entity Discount Amount` only where the discount is given on the whole document.
//! In a row whose column holds none of the values the field is blank, its `default` too. The
//! column is required unless the field is `optional`; an optional field whose `when` column is
//! not in the file is never read (a note says so).

use super::MappingError;
use super::compiled::{Origin, Source};
use super::load::{NormText, norm_value};
use super::spec::WhenSpec;
use crate::ingest::CellRef;

/// A field's condition, as loaded: the column tested and the values (normalised) for which the
/// field is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct When {
    /// The column tested.
    pub column: String,
    /// Normalised values (trimmed, lower case) that let the field be read.
    pub equals: Vec<String>,
}

impl When {
    /// Check a field's `when` (`fkey`: the field's key, for messages).
    pub(super) fn parse(spec: &WhenSpec, origin: &Origin, fkey: &str) -> Result<When, MappingError> {
        if spec.column.trim().is_empty() || spec.equals.is_empty() {
            return Err(MappingError::Invalid {
                mapping: origin.to_string(),
                key: format!("{fkey}.when"),
                problem: "an empty column or equals; give { column = \"...\", equals = [\"...\"] }: the column \
                          tested and the values for which the field is read"
                    .into(),
            });
        }
        Ok(When {
            column: spec.column.clone(),
            equals: spec.equals.iter().map(|v| norm_value(v)).collect(),
        })
    }

    /// True when a cell's text is one of the values.
    pub(super) fn holds(&self, cell: CellRef<'_>) -> bool {
        let text = cell.as_text();
        let norm = NormText::new(&text);
        self.equals.iter().any(|e| norm.matches(e))
    }
}

/// True when the field's source may be absent from the file (and so may its `when` column).
pub(super) fn source_optional(source: &Source) -> bool {
    match source {
        Source::Column { optional, .. } | Source::Template { optional, .. } => *optional,
        Source::Constant(_) | Source::Lookup { .. } | Source::DefaultOnly => false,
    }
}

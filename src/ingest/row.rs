//! A row of an export and where it came from.

use chrono::{NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;
use std::fmt;
use std::sync::Arc;

/// Where a row came from: the file, the sheet (spreadsheets), and the 1-based line (CSV: the
/// physical line the record starts on) or row number (spreadsheets).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceRef {
    /// The file as the user named it.
    pub file: Arc<str>,
    /// The sheet, for spreadsheets.
    pub sheet: Option<Arc<str>>,
    /// 1-based line or row number.
    pub line: u64,
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.sheet {
            Some(s) => write!(f, "{} [{}] row {}", self.file, s, self.line),
            None => write!(f, "{} line {}", self.file, self.line),
        }
    }
}

/// A cell's text: strings of up to 24 bytes (most cells of an export) are held inline, without
/// an allocation of their own.
pub type Text = compact_str::CompactString;

/// A cell. CSV cells are always text; spreadsheet cells keep their type, with numbers converted to
/// exact decimals (never `f64` near an amount) and date-formatted cells to dates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Nothing there.
    Empty,
    /// Text as written.
    Text(Text),
    /// A number from a spreadsheet, as the exact decimal the sheet shows.
    Number(Decimal),
    /// A date from a date-formatted spreadsheet cell.
    Date(NaiveDate),
    /// A date and time from a spreadsheet cell.
    DateTime(NaiveDateTime),
    /// A boolean cell.
    Bool(bool),
}

impl Cell {
    /// True when empty or only white space.
    pub fn is_blank(&self) -> bool {
        match self {
            Cell::Empty => true,
            Cell::Text(t) => t.trim().is_empty(),
            _ => false,
        }
    }

    /// [`Cell::to_text`], borrowed when the cell is text or empty.
    pub fn as_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Cell::Empty => std::borrow::Cow::Borrowed(""),
            Cell::Text(t) => std::borrow::Cow::Borrowed(t.as_str()),
            other => std::borrow::Cow::Owned(other.to_text()),
        }
    }

    /// The cell as text, the way a person would read it.
    pub fn to_text(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Text(t) => t.to_string(),
            Cell::Number(d) => d.normalize().to_string(),
            Cell::Date(d) => d.format("%Y-%m-%d").to_string(),
            Cell::DateTime(d) => d.format("%Y-%m-%d %H:%M:%S").to_string(),
            Cell::Bool(b) => b.to_string(),
        }
    }
}

/// One data row: cells in header order (a short row is padded with [`Cell::Empty`], extra cells
/// beyond the headers are kept at the end), and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Where the row came from.
    pub source: SourceRef,
    /// The cells, in the order of the headers.
    pub cells: Vec<Cell>,
}

impl Row {
    /// The cell at a column index, or [`Cell::Empty`].
    pub fn get(&self, index: usize) -> &Cell {
        static EMPTY: Cell = Cell::Empty;
        self.cells.get(index).unwrap_or(&EMPTY)
    }

    /// True when every cell is blank.
    pub fn is_blank(&self) -> bool {
        self.cells.iter().all(Cell::is_blank)
    }
}

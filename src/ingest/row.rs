//! A row of an export and where it came from.

use super::error_cells::is_spreadsheet_error;
use crate::text::{Trimmed, date_text, decimal_plain};
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
    /// A spreadsheet error cell (`#REF!`, `#N/A`, `#DIV/0!`: a formula that failed), with its
    /// text: it holds no value, and a mapped field that reads it is an error. Also a formula
    /// saved without its computed value, with the formula as its text (`=B2*C2`: see
    /// [`formula_without_value`](super::formula_without_value)).
    Error(Text),
}

impl Cell {
    /// True when empty or only white space.
    pub fn is_blank(&self) -> bool {
        self.borrowed().is_blank()
    }

    /// [`Cell::to_text`], borrowed when the cell is text or empty.
    pub fn as_text(&self) -> std::borrow::Cow<'_, str> {
        self.borrowed().as_text()
    }

    /// The cell as text, the way a person would read it ([`CellRef::to_text`]).
    pub fn to_text(&self) -> String {
        self.borrowed().to_text()
    }
}

/// A decimal as `Decimal::normalize().to_string()` writes it (a spreadsheet cell's text is made
/// for every number of every row).
fn decimal_text(d: &Decimal) -> String {
    decimal_plain(&d.normalize())
}

impl Cell {
    /// The cell, borrowed.
    pub fn borrowed(&self) -> CellRef<'_> {
        match self {
            Cell::Empty => CellRef::Empty,
            Cell::Text(t) => CellRef::Text(t.as_str()),
            Cell::Number(d) => CellRef::Number(*d),
            Cell::Date(d) => CellRef::Date(*d),
            Cell::DateTime(d) => CellRef::DateTime(*d),
            Cell::Bool(b) => CellRef::Bool(*b),
            Cell::Error(t) => CellRef::Error(t.as_str()),
        }
    }
}

/// A cell of a [`Row`], borrowed from it: what [`Row::get`] gives. A CSV row holds its record's
/// text, not a [`Cell`] per column, so its cells are slices of that text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellRef<'a> {
    /// Nothing there.
    Empty,
    /// Text as written.
    Text(&'a str),
    /// A number from a spreadsheet.
    Number(Decimal),
    /// A date from a date-formatted spreadsheet cell.
    Date(NaiveDate),
    /// A date and time from a spreadsheet cell.
    DateTime(NaiveDateTime),
    /// A boolean cell.
    Bool(bool),
    /// A spreadsheet error cell, with its text (`#REF!`), or a formula saved without its
    /// computed value (`=B2*C2`).
    Error(&'a str),
}

impl<'a> CellRef<'a> {
    /// True when empty or only white space.
    pub fn is_blank(self) -> bool {
        match self {
            CellRef::Empty => true,
            CellRef::Text(t) => t.trimmed().is_empty(),
            _ => false,
        }
    }

    /// [`CellRef::to_text`], borrowed when the cell is text or empty.
    pub fn as_text(self) -> std::borrow::Cow<'a, str> {
        match self {
            CellRef::Empty => std::borrow::Cow::Borrowed(""),
            CellRef::Text(t) | CellRef::Error(t) => std::borrow::Cow::Borrowed(t),
            other => std::borrow::Cow::Owned(other.to_text()),
        }
    }

    /// The cell as text, the way a person would read it.
    pub fn to_text(self) -> String {
        match self {
            CellRef::Empty => String::new(),
            CellRef::Text(t) => t.to_string(),
            CellRef::Number(d) => decimal_text(&d),
            CellRef::Date(d) => date_text(d),
            CellRef::DateTime(d) => d.format("%Y-%m-%d %H:%M:%S").to_string(),
            CellRef::Bool(b) => b.to_string(),
            CellRef::Error(t) => t.to_string(),
        }
    }

    /// The cell, owned.
    pub fn to_cell(self) -> Cell {
        match self {
            CellRef::Empty => Cell::Empty,
            CellRef::Text(t) => Cell::Text(t.into()),
            CellRef::Number(d) => Cell::Number(d),
            CellRef::Date(d) => Cell::Date(d),
            CellRef::DateTime(d) => Cell::DateTime(d),
            CellRef::Bool(b) => Cell::Bool(b),
            CellRef::Error(t) => Cell::Error(t.into()),
        }
    }
}

/// Something wrong the reader saw in a record whose cells it could still read: bytes that
/// are not UTF-8 (read as U+FFFD), a quote never closed, more cells than headers. The row keeps
/// its cells, and so its place in its document, with this error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadProblem {
    /// `INV-ROW-READ` (a cell's bytes), `INV-ROW-QUOTE` (a quote that took in the lines after
    /// it), `INV-ROW-CELLS` (more cells than headers) or `INV-ROW-SEPARATOR` (a line saved with
    /// another separator than the file's, its cells read with that one only to find its
    /// document). With the last three the row's cells may be shifted, so what the rules say
    /// about them is not repeated.
    pub code: &'static str,
    /// The column (0-based) of the cell at fault, when one is.
    pub column: Option<usize>,
    /// The text at fault, as read (shortened when long).
    pub value: Option<String>,
    /// What is wrong and what to do.
    pub message: String,
}

impl ReadProblem {
    /// True for a problem that makes every cell of the row doubtful (`INV-ROW-CELLS`,
    /// `INV-ROW-QUOTE`, `INV-ROW-SEPARATOR`): the row is never the one its document's fields are
    /// read from.
    pub fn shifts_cells(&self) -> bool {
        matches!(self.code, "INV-ROW-CELLS" | "INV-ROW-QUOTE" | "INV-ROW-SEPARATOR")
    }
}

/// A row of the export that holds no data, given (by a reader asked for every row) so that the
/// result file keeps each of the export's rows on its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotData {
    /// A row above the header (a title, a company name, a blank line).
    AboveHeader,
    /// A header row after the first (SAP Business One DTW's field descriptions), or a blank line
    /// between header rows.
    Header,
    /// A blank line (empty, or only empty cells) after the header, with a data row after it.
    Blank,
}

/// One data row: cells in header order (a short row is padded with empty cells, extra cells
/// beyond the headers are kept at the end), and where it came from.
#[derive(Debug, Clone)]
pub struct Row {
    /// Where the row came from.
    pub source: SourceRef,
    /// What the reader found wrong in a record it could read ([`ReadProblem`]).
    problem: Option<Box<ReadProblem>>,
    /// Hidden in the workbook ([`Row::hidden`]).
    hidden: bool,
    /// A row of the export that holds no data ([`Row::not_data`]).
    not_data: Option<NotData>,
    /// A spreadsheet's typed cells (empty when `text` is set).
    cells: Vec<Cell>,
    /// A CSV record: its text and where each field ends in it. The reader makes no cell of its
    /// own per column (a string copy each, and a vector of them, on the reading thread, read and
    /// freed on other threads): a cell is a slice of the text, taken when it is read.
    text: Option<TextCells>,
}

#[derive(Debug, Clone)]
struct TextCells {
    /// The fields back to back (`gap` 0), or joined by `,` (`gap` 1: the record as written,
    /// which is then the text the result CSV writes for its cells).
    text: Box<str>,
    /// Where field `i` ends in `text`; it starts `gap` bytes after the end of field `i - 1`.
    ends: Box<[u32]>,
    gap: u8,
    /// True when `text` is the record as written and has exactly a field per header: the line
    /// the result CSV writes for its cells.
    joined: bool,
    /// The number of cells: the fields, padded with empty cells to the header count.
    len: u32,
}

impl TextCells {
    /// From the start of cell `first` to the end of cell `last`, delimiters included, when the
    /// cells were split at a delimiter none of them holds (`gap` 1: a plain record).
    fn plain_span(&self, first: usize, last: usize) -> Option<&str> {
        if self.gap != 1 || first > last {
            return None;
        }
        let end = *self.ends.get(last)? as usize;
        let start = match first {
            0 => 0,
            _ => self.ends[first - 1] as usize + 1,
        };
        self.text.get(start..end)
    }

    fn get(&self, i: usize) -> CellRef<'_> {
        let Some(&end) = self.ends.get(i) else {
            return CellRef::Empty;
        };
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize + usize::from(self.gap),
        };
        match self.text.get(start..end as usize) {
            Some("") | None => CellRef::Empty,
            Some(t) if t.as_bytes()[0] == b'#' && is_spreadsheet_error(t) => CellRef::Error(t),
            Some(t) => CellRef::Text(t),
        }
    }
}

impl PartialEq for Row {
    /// Rows are equal when they come from the same place and hold the same cells, however
    /// they hold them.
    fn eq(&self, other: &Row) -> bool {
        self.source == other.source && self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Row {}

impl Row {
    /// A row of cells.
    pub fn new(source: SourceRef, cells: Vec<Cell>) -> Row {
        Row {
            source,
            problem: None,
            hidden: false,
            not_data: None,
            cells,
            text: None,
        }
    }

    /// A row of the export that holds no data ([`NotData`]), with its cells as written (none
    /// for an empty line).
    pub(crate) fn not_data_row(source: SourceRef, cells: Vec<Cell>, kind: NotData) -> Row {
        let mut row = Row::new(source, cells);
        row.not_data = Some(kind);
        row
    }

    /// A row of a record's text, whose field `i` ends at `ends[i]` plus `gap` bytes per field
    /// before it (`gap` 0: the fields back to back; 1: joined by a one-byte ASCII delimiter, so
    /// a field ending elsewhere than at an ASCII byte or the end of the text is refused). Trailing empty
    /// fields beyond `width` (the header count) are dropped; a short row is padded with empty
    /// cells. `None` when a field boundary splits a character (bytes that are not UTF-8 around
    /// a delimiter) or the record is over 4 GiB.
    pub fn from_text(source: SourceRef, text: &str, ends: &[usize], width: usize, gap: usize) -> Option<Row> {
        let mut row = Row::new(source, Vec::new());
        row.set_text(text, ends, width, gap)?;
        Some(row)
    }

    /// Make the row hold a record's text ([`Row::from_text`]); unchanged when `None`.
    pub(crate) fn set_text(&mut self, text: &str, ends: &[usize], width: usize, gap: usize) -> Option<()> {
        let mut keep = ends.len();
        while keep > width {
            let start = if keep >= 2 { ends[keep - 2] } else { 0 };
            if ends[keep - 1] != start {
                break;
            }
            keep -= 1;
        }
        // Every offset fits in a u32 when the text's length does.
        u32::try_from(text.len()).ok()?;
        let bytes = text.as_bytes();
        // `str::is_char_boundary`, for an offset known to be at most the length.
        let boundary = |i: usize| bytes.get(i).is_none_or(|&b| (b as i8) >= -0x40);
        let mut at = Vec::with_capacity(keep);
        if gap == 1 {
            // The record as written: each field ends at a delimiter or at the end of the text.
            // Where the byte there is ASCII, both it and the byte after it start characters, so
            // every field of a valid text is whole (one check a field, in one pass).
            let mut ok = true;
            let mut start = 0;
            at.extend(ends[..keep].iter().enumerate().map(|(i, &end)| {
                let end = end + i;
                ok &= end >= start && bytes.get(end).is_none_or(u8::is_ascii) && end <= bytes.len();
                start = end + 1;
                end as u32
            }));
            if !ok {
                return None;
            }
        } else {
            let mut start = 0;
            for (i, &end) in ends[..keep].iter().enumerate() {
                let end = end + i * gap;
                if end < start || end > bytes.len() || !boundary(start) || !boundary(end) {
                    return None;
                }
                at.push(end as u32);
                start = end + gap;
            }
        }
        let text_end = if gap == 0 {
            at.last().map_or(0, |&e| e as usize)
        } else {
            text.len()
        };
        let cells = TextCells {
            text: text.get(..text_end)?.into(),
            ends: at.into_boxed_slice(),
            gap: u8::try_from(gap).ok()?,
            joined: gap == 1 && ends.len() == width,
            len: u32::try_from(keep.max(width)).ok()?,
        };
        self.cells = Vec::new();
        self.text = Some(cells);
        self.problem = None;
        self.hidden = false;
        self.not_data = None;
        Some(())
    }

    /// What the reader found wrong in the record, when it could still read its cells.
    pub fn problem(&self) -> Option<&ReadProblem> {
        self.problem.as_deref()
    }

    /// True when the reader found the row's cells may be shifted ([`ReadProblem::shifts_cells`]):
    /// no cell of it can be trusted to be in its column.
    pub fn cells_shifted(&self) -> bool {
        self.problem().is_some_and(ReadProblem::shifts_cells)
    }

    /// Record what is wrong in the row (after its cells are set: setting them clears it).
    pub(crate) fn set_problem(&mut self, problem: ReadProblem) {
        self.problem = Some(Box::new(problem));
    }

    /// True when the row is hidden in the workbook (filtered out, or hidden by hand: an xlsx
    /// `<row hidden="1">`). It is read as any other row.
    pub fn hidden(&self) -> bool {
        self.hidden
    }

    /// What the row is when it holds no data: a row above the header, a header row after the
    /// first, a blank line between data rows. Only a reader asked for every row
    /// ([`ReadOptions::every_row`](super::ReadOptions::every_row)) gives such rows.
    pub fn not_data(&self) -> Option<NotData> {
        self.not_data
    }

    /// Say whether the row is hidden (after its cells are set: setting them clears it).
    pub(crate) fn set_hidden(&mut self, hidden: bool) {
        self.hidden = hidden;
    }

    /// For a row of a record's text, the number of fields the record had (trailing empty ones
    /// past the headers not counted), before padding to the headers. `None` for spreadsheet
    /// rows, whose trailing empty cells are not stored.
    pub fn fields_read(&self) -> Option<usize> {
        self.text.as_ref().map(|t| t.ends.len())
    }

    /// The cell at a column index, or [`CellRef::Empty`].
    pub fn get(&self, index: usize) -> CellRef<'_> {
        match &self.text {
            None => self.cells.get(index).map_or(CellRef::Empty, Cell::borrowed),
            Some(t) => t.get(index),
        }
    }

    /// The text of cells `first` to `last` (inclusive) with the delimiters between them, when
    /// the row holds a plain record: its cells split at a delimiter none of them holds (a CSV
    /// line without quotes), so that two rows with the same span have the same cells there.
    /// `None` for any other row, or when it has fewer cells.
    pub fn plain_span(&self, first: usize, last: usize) -> Option<&str> {
        self.text.as_ref()?.plain_span(first, last)
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        match &self.text {
            None => self.cells.len(),
            Some(t) => t.len as usize,
        }
    }

    /// True when the row has no cell.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cells, in column order.
    pub fn iter(&self) -> impl Iterator<Item = CellRef<'_>> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The cells, owned.
    pub fn to_cells(&self) -> Vec<Cell> {
        self.iter().map(CellRef::to_cell).collect()
    }

    /// The spreadsheet cells, when the row holds cells rather than text.
    pub fn cell_slice(&self) -> Option<&[Cell]> {
        match &self.text {
            None => Some(&self.cells),
            Some(_) => None,
        }
    }

    /// The cells' texts joined by `,`, exactly as the result CSV writes them, when the reader
    /// had that at hand: a `,`-separated record of as many fields as there are headers, with no
    /// quote in it, is that already (see `CsvResult::write`).
    pub fn joined(&self) -> Option<&str> {
        match &self.text {
            Some(t) if t.joined => Some(&t.text),
            _ => None,
        }
    }

    /// The cells, to fill in place (spreadsheet rows).
    pub(crate) fn cells_mut(&mut self) -> &mut Vec<Cell> {
        self.text = None;
        self.problem = None;
        self.hidden = false;
        self.not_data = None;
        &mut self.cells
    }

    /// True when every cell is blank.
    pub fn is_blank(&self) -> bool {
        self.iter().all(CellRef::is_blank)
    }
}

#[cfg(test)]
#[path = "row_tests.rs"]
mod tests;

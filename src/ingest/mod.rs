//! Rows from CSV files and spreadsheets, streamed, with their source position.
//!
//! This module knows nothing about invoices: it yields header-keyed cells. Open a file with
//! [`RowReader::open`], look at [`RowReader::headers`] (and [`RowReader::notes`] for what to tell
//! the user), then iterate over the rows. [`peek_headers`] reads only the header rows, for
//! detecting which mapping fits a file.
//!
//! # Delimited text (CSV, TSV, `;`, `|`)
//! - **Streaming**: memory does not grow with the number of rows; one record buffer is reused
//!   and the input is decoded on the fly.
//! - **Encoding** ([`ReadOptions::encoding`] wins when given): a byte-order mark (UTF-8,
//!   UTF-16LE/BE) decides; else UTF-8 when the first 256 KiB are valid UTF-8; else
//!   windows-1256, the fallback for legacy Arabic ERPs (with a note). A file that starts as
//!   plain ASCII and later holds bytes that are not UTF-8 switches to windows-1256 from that
//!   record on (with a note). In a file read as UTF-8, a later record that is not UTF-8 is a
//!   per-row error. Characters that cannot be decoded become U+FFFD, counted in a note.
//! - **Delimiter** ([`ReadOptions::delimiter`] wins when given): sniffed among `,` `;` tab `|`
//!   over the first 20 non-blank records, respecting quotes.
//! - Quoted fields may hold delimiters, doubled quotes and newlines. [`SourceRef::line`] is the
//!   1-based physical line where a record starts, counting header and blank lines (`\n`, `\r\n`;
//!   files that end lines with a lone `\r` are read correctly but all their rows say line 1).
//! - Cells are [`CellRef::Text`] exactly as written (spaces kept; trimming is the mapping's
//!   business), or [`CellRef::Empty`] for an empty field: a CSV row holds its record's text, and
//!   [`Row::get`] borrows a cell from it. Rows of only blank fields and empty lines are skipped
//!   (counted in a note at the end: [`RowReader::late_notes`]), unless every row is asked for
//!   ([`ReadOptions::every_row`]: those between data rows, the rows above the header and the
//!   extra header rows then come out as rows of no data, [`Row::not_data`]).
//! - A binary file (NUL bytes without a UTF-16 byte-order mark, or a workbook signature under
//!   a text name) is a whole-file error, not garbage rows.
//!
//! # Spreadsheets (xlsx, xlsm, xlsb, xls, ods)
//! Read through calamine. xlsx and xlsm sheets are **streamed**: a reader thread parses the
//! sheet's XML with calamine's cell reader and hands rows over a few hundred at a time, so memory
//! does not grow with the sheet and reading overlaps with checking (a sheet damaged half-way is
//! reported when the reader gets there: the rows before it are kept). For xlsb, xls and ods
//! calamine **loads the whole sheet into memory** (its design); rows are then moved out of it
//! one by one. The sheet is [`ReadOptions::sheet`] or the first visible
//! worksheet. Cells keep their type: text, numbers as exact decimals (the shortest decimal that
//! the stored float stands for, see `sheet_cells::decimal_from_sheet_float`; an integer-valued
//! number has scale 0), date-formatted cells as [`Cell::Date`] / [`Cell::DateTime`] (1904 date
//! system handled), booleans; an unformatted date serial stays a number (the mapping converts
//! it). Error cells (`#N/A`, ...) come out as their text, with a note. Formulas give their
//! cached value; an xlsx formula saved without one (a workbook written by a program that does
//! not calculate) is an error cell of the formula's text, `=B2*C2`, with a note (a row of nothing
//! else is blank). An xlsx row hidden in the workbook is read as any other, and says so
//! ([`Row::hidden`]). [`SourceRef::line`] is the sheet's 1-based row number; cells are indexed by
//! column from column A, even when the sheet's data starts further right.

mod csv_problems;
mod csv_source;
mod cut;
mod encoding;
mod error;
mod error_cells;
mod gaps;
mod late_notes;
mod reader;
mod records;
mod row;
mod sheet_cells;
mod sheet_marks;
mod sheet_scan;
mod sniff;
mod stamp;
mod workbook;
mod workbook_peek;
mod xlsx_stream;

pub use cut::{CutLine, LastLine};
pub use error::IngestError;
pub use error_cells::{FORMULA_FIX, FORMULA_WHY, formula_named, formula_without_value, no_value_message};
pub use late_notes::LateNotes;
pub use reader::RowReader;
pub use row::{Cell, CellRef, NotData, ReadProblem, Row, SourceRef, Text};
pub use stamp::FileStamp;

use std::fmt;
use std::path::Path;

/// How to read a file. The default detects everything.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Forced encoding label for text files ("windows-1256", "utf-16le", "utf-8", ...); `None`
    /// detects it.
    pub encoding: Option<String>,
    /// Delimiter for text files; `None` sniffs among `,` `;` tab `|`.
    pub delimiter: Option<u8>,
    /// Spreadsheet sheet by name (exact, else ignoring case); `None` = the first worksheet.
    pub sheet: Option<String>,
    /// 1-based line (text) or row (spreadsheet) of the header; `None` = the first non-blank
    /// one. If that line is blank, the next non-blank one is taken (with a note).
    pub header_row: Option<usize>,
    /// How many header rows (SAP Business One DTW files have 2: property names, then database
    /// names); 0 is treated as 1. Blank rows between them are skipped.
    pub header_rows: usize,
    /// Give every row of the export, in order, so that the result file keeps each on its line:
    /// the rows above the header, the header rows after the first and the blank lines between
    /// data rows come out as rows marked [`Row::not_data`] (the rows above the header and the
    /// extra header rows first, before the first data row). Blank rows after the last data row
    /// are only counted in a note. Off: those rows are skipped (blank ones counted in the note).
    pub every_row: bool,
}

/// What kind of file was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// Delimited text.
    Csv {
        /// The field delimiter.
        delimiter: u8,
        /// The encoding's name ("UTF-8", "UTF-16LE", "windows-1256", ...).
        encoding: &'static str,
    },
    /// Excel 2007+ workbook (also .xlsm).
    Xlsx,
    /// Excel binary workbook.
    Xlsb,
    /// Excel 97-2003 workbook.
    Xls,
    /// OpenDocument spreadsheet.
    Ods,
}

impl FileFormat {
    /// True for spreadsheets (typed cells), false for delimited text (text cells).
    pub fn is_spreadsheet(&self) -> bool {
        !matches!(self, FileFormat::Csv { .. })
    }
}

impl fmt::Display for FileFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileFormat::Csv { delimiter, encoding } => {
                let d = match delimiter {
                    b'\t' => "tab".to_owned(),
                    other => format!("'{}'", char::from(*other)),
                };
                write!(f, "CSV ({d}-delimited, {encoding})")
            }
            FileFormat::Xlsx => f.write_str("Excel workbook (xlsx)"),
            FileFormat::Xlsb => f.write_str("Excel binary workbook (xlsb)"),
            FileFormat::Xls => f.write_str("Excel 97-2003 workbook (xls)"),
            FileFormat::Ods => f.write_str("OpenDocument spreadsheet (ods)"),
        }
    }
}

/// Whether a note only says how a file was read the usual way (its encoding from a byte-order
/// mark, as given, or detected as UTF-8; its delimiter detected). Such notes are printed when the
/// file is checked and kept in its `X.summary.json`; `report`'s folder summary leaves them out,
/// to show the notes that need a look (a delimiter or encoding other than the mapping's, dates
/// read in the other order, a joined header file).
pub fn routine_note(note: &str) -> bool {
    let Some((what, rest)) = note.split_once(": ") else {
        return false;
    };
    let Some((_, why)) = rest.split_once(" (") else {
        return false;
    };
    matches!(what, "encoding" | "delimiter")
        && matches!(
            why,
            "detected)" | "byte-order mark)" | "as given)" | "the start of the file is plain ASCII)"
        )
}

/// The header rows of a file, as [`RowReader::header_rows`] gives them, reading as little as
/// possible: for text, a 256 KiB sample and the header lines; for xlsx, the sheet's first rows
/// (streamed); xls, ods and xlsb are loaded whole (calamine reads them so at open).
pub fn peek_headers(path: &Path, opts: &ReadOptions) -> Result<Vec<Vec<String>>, IngestError> {
    let file = path.display().to_string();
    if reader::detect(path, &file, &mut Vec::new())? == reader::Kind::Book(Some(workbook::BookKind::Xlsx))
        && let Some(rows) = workbook_peek::peek_xlsx(path, &file, opts)
    {
        return Ok(rows);
    }
    let reader = RowReader::open(path, opts)?;
    Ok(reader.header_rows().to_vec())
}

/// The note on the rows of only empty cells a reader skipped (none when it skipped none), the
/// first at `first` (`line 6`, `row 6`): they are no rows of the result file, and a count of the
/// export's lines needs them.
pub(crate) fn blank_rows_note(count: u64, first: &str) -> Option<String> {
    (count > 0).then(|| {
        format!("{count} row(s) hold only empty cells (the first at {first}): no data, so not in the result file")
    })
}

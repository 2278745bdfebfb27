//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods) through calamine.
//!
//! xlsx and xlsm sheets are streamed (`xlsx_stream`): memory holds a few hundred rows, not the
//! sheet. For the other kinds calamine loads the whole sheet into memory (that is its design);
//! rows are then handed out one by one, each cell moved out of the sheet rather than copied.
//! Cells keep their type: numbers become exact decimals
//! (`sheet_cells::decimal_from_sheet_float`), date-formatted cells dates, error cells (`#N/A`,
//! ...) their text plus a note.

use super::error::IngestError;
use super::gaps::Gaps;
use super::row::{Cell, NotData, Row, SourceRef};
use super::sheet_cells::{Problem, RawCell, column_name, convert_raw, header_text};
use super::xlsx_stream::{READER_FAILED, XlsxStream};
use super::{FileFormat, ReadOptions};
use calamine::{Data, Ods, Range, Reader, SheetType, SheetVisible, Sheets, Xls, Xlsb, Xlsx, open_workbook};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

mod open;
pub(crate) use open::open;
use open::workbook_error;
pub(super) use open::{choose_sheet, open_kind};

/// The kind of workbook, from the file's signature and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BookKind {
    Xlsx,
    Xlsb,
    Xls,
    Ods,
}

impl BookKind {
    fn name(self) -> &'static str {
        match self {
            BookKind::Xlsx => "xlsx",
            BookKind::Xlsb => "xlsb",
            BookKind::Xls => "xls",
            BookKind::Ods => "ods",
        }
    }

    fn format(self) -> FileFormat {
        match self {
            BookKind::Xlsx => FileFormat::Xlsx,
            BookKind::Xlsb => FileFormat::Xlsb,
            BookKind::Xls => FileFormat::Xls,
            BookKind::Ods => FileFormat::Ods,
        }
    }
}

/// Where a sheet's rows come from.
enum SheetRows {
    /// The whole sheet, loaded; `next` is the next row relative to the range.
    Loaded {
        range: Range<Data>,
        next: usize,
        first_row: u32,
        first_col: u32,
    },
    /// Streamed (xlsx).
    Streamed(XlsxStream),
}

/// One row as the sheet holds it: its 1-based number, how many columns lie left of its first
/// cell, its cells, and whether it is hidden.
struct SheetRow {
    number: u64,
    lead: u32,
    cells: Vec<RawCell>,
    hidden: bool,
}

/// A row's cells as the sheet holds them, from column A (a row of no data, given as written).
fn row_cells(row: SheetRow) -> Vec<Cell> {
    let lead = std::iter::repeat_n(Cell::Empty, row.lead as usize);
    let mut cells: Vec<Cell> = lead.chain(row.cells.into_iter().map(|c| convert_raw(c).0)).collect();
    while cells.last() == Some(&Cell::Empty) {
        cells.pop();
    }
    cells
}

/// Rows of one sheet.
pub(crate) struct SheetSource {
    file: Arc<str>,
    sheet: Arc<str>,
    kind: BookKind,
    rows: SheetRows,
    /// The number of the last row read, blank or not (0 before any).
    last_row: u64,
    width: usize,
    error_cells: u64,
    /// The rows between the rows given (blank, above the header, header rows after the first).
    gaps: Gaps,
    /// The number of the last row of only blank cells.
    last_blank_row: u64,
    /// A row read, given once the blank rows before it are.
    held: Option<SheetRow>,
    first_error: String,
    odd_numbers: u64,
    first_odd_number: String,
    formulas: u64,
    first_formula: String,
    finished: bool,
    notes: Vec<String>,
    /// The number of the (first) header row.
    header_line: u64,
}

/// An opened sheet, positioned on the first data row, and its header rows.
pub(crate) struct OpenedSheet {
    pub(crate) source: SheetSource,
    pub(crate) header_rows: Vec<Vec<String>>,
    pub(crate) notes: Vec<String>,
    pub(crate) format: FileFormat,
}

impl SheetSource {
    /// Number of headers; rows are padded to it.
    pub(crate) fn set_width(&mut self, width: usize) {
        self.width = width;
    }

    /// The sheet's name.
    pub(crate) fn sheet(&self) -> &Arc<str> {
        &self.sheet
    }

    /// Whether the sheet is read on a thread of its own (a streamed xlsx sheet), busy for as
    /// long as rows are taken.
    pub(crate) fn reads_on_own_thread(&self) -> bool {
        matches!(self.rows, SheetRows::Streamed(_))
    }

    /// The number of the (first) header row.
    pub(crate) fn header_line(&self) -> u64 {
        self.header_line
    }

    /// The next row of the sheet, blank or not; `Ok(None)` at the end.
    fn next_raw(&mut self) -> Result<Option<SheetRow>, IngestError> {
        let row = match &mut self.rows {
            SheetRows::Loaded {
                range,
                next,
                first_row,
                first_col,
            } => {
                if *next >= range.height() {
                    return Ok(None);
                }
                let i = *next;
                *next += 1;
                SheetRow {
                    number: u64::from(*first_row) + i as u64 + 1,
                    lead: *first_col,
                    cells: range[i].iter_mut().map(|d| RawCell::Data(std::mem::take(d))).collect(),
                    hidden: false,
                }
            }
            SheetRows::Streamed(stream) => match stream.next_row() {
                Ok(Some(raw)) => SheetRow {
                    number: u64::from(raw.index) + 1,
                    lead: 0,
                    cells: raw.cells,
                    hidden: raw.hidden,
                },
                Ok(None) => return Ok(None),
                Err(e) => {
                    let at = match self.last_row {
                        0 => String::new(),
                        n => format!(" after row {n}"),
                    };
                    return Err(workbook_error(
                        &self.file,
                        self.kind,
                        format!("sheet {:?}{at}: {e}", self.sheet),
                    ));
                }
            },
        };
        self.last_row = row.number;
        Ok(Some(row))
    }

    fn read_headers(&mut self, header_row: Option<usize>, count: usize) -> Result<Vec<Vec<String>>, IngestError> {
        let wanted = header_row.map_or(1, |n| n.max(1) as u64);
        let mut rows: Vec<Vec<String>> = Vec::with_capacity(count);
        while rows.len() < count {
            let before = self.last_row;
            let Some(row) = self.next_raw()? else {
                return Err(self.missing_headers(&rows, wanted, count));
            };
            let kind = if rows.is_empty() {
                NotData::AboveHeader
            } else {
                NotData::Header
            };
            if self.gaps.every_row() {
                // The rows not in the sheet before this one.
                for empty in before + 1..row.number {
                    self.gaps.before(self.at(empty), Vec::new(), kind);
                }
            }
            if row.number < wanted || row.cells.iter().all(RawCell::is_blank) {
                if self.gaps.every_row() {
                    self.gaps.before(self.at(row.number), row_cells(row), kind);
                }
                continue;
            }
            if rows.is_empty() {
                self.header_line = row.number;
            }
            if rows.is_empty() && header_row.is_some() && row.number != wanted {
                self.notes.push(format!(
                    "header: row {wanted} of sheet {:?} is blank; the header was taken from row {}",
                    self.sheet, row.number
                ));
            }
            // Cells are indexed by absolute column: column A is always index 0.
            let lead = std::iter::repeat_n(String::new(), row.lead as usize);
            let mut names: Vec<String> = lead.chain(row.cells.iter().map(RawCell::header_text)).collect();
            while names.last().is_some_and(String::is_empty) {
                names.pop();
            }
            if self.gaps.every_row() && !rows.is_empty() {
                self.gaps.before(self.at(row.number), row_cells(row), NotData::Header);
            }
            rows.push(names);
        }
        Ok(rows)
    }

    fn missing_headers(&self, rows: &[Vec<String>], wanted: u64, count: usize) -> IngestError {
        let file = self.file.to_string();
        if rows.is_empty() && wanted <= 1 {
            let detail = if self.last_row == 0 {
                format!("sheet {:?} has no cells", self.sheet)
            } else {
                format!("sheet {:?} holds only blank rows", self.sheet)
            };
            return IngestError::Empty { file, detail };
        }
        let last = self.last_row;
        let detail = if rows.is_empty() {
            format!(
                "sheet {:?} has no non-blank row at or after row {wanted}, where the header was \
                 looked for (its last row is {last}); set header_row in the mapping's [input] to the \
                 row of the header (1 to {last}), or sheet to the sheet that holds the export",
                self.sheet
            )
        } else {
            format!(
                "{count} header rows were expected from row {} of sheet {:?}, but it has only {}; set \
                 header_rows in the mapping's [input] to the number of header rows",
                self.header_line,
                self.sheet,
                rows.len()
            )
        };
        IngestError::Header { file, detail }
    }

    /// Moves the next non-blank row into `row`. `Ok(false)` at the end.
    pub(crate) fn next_row(&mut self, row: &mut Row) -> Result<bool, IngestError> {
        if self.gaps.every_row() && self.give_not_data(row) {
            return Ok(true);
        }
        loop {
            let raw = match self.held.take() {
                Some(raw) => raw,
                None => match self.next_raw()? {
                    Some(raw) => raw,
                    None => break,
                },
            };
            let blank = raw.cells.iter().all(RawCell::is_blank);
            if blank {
                // Counted (or given) with the blank rows around it, once the next row is read.
                self.last_blank_row = raw.number;
                continue;
            }
            if self.gaps.ahead_of(raw.number) {
                // Blank rows before this one: given as rows first.
                self.held = Some(raw);
                if self.give_not_data(row) {
                    return Ok(true);
                }
                continue;
            }
            self.gaps.last_end = raw.number;
            let number = raw.number;
            let first_col = raw.lead;
            let cells = row.cells_mut();
            cells.clear();
            // Room for the whole row at once (a fresh row's vector is empty).
            cells.reserve((first_col as usize + raw.cells.len()).max(self.width));
            cells.resize(first_col as usize, Cell::Empty);
            for (c, data) in raw.cells.into_iter().enumerate() {
                let (cell, problem) = convert_raw(data);
                if let Some(problem) = problem {
                    let at = format!("row {number}, column {}", column_name(first_col + c as u32));
                    match problem {
                        Problem::Error(text) => {
                            if self.error_cells == 0 {
                                self.first_error = format!("{at}: {text}");
                            }
                            self.error_cells += 1;
                        }
                        Problem::Number(text) => {
                            if self.odd_numbers == 0 {
                                self.first_odd_number = format!("{at}: {text}");
                            }
                            self.odd_numbers += 1;
                        }
                        Problem::Formula(text) => {
                            if self.formulas == 0 {
                                self.first_formula = format!("{at}: {text}");
                            }
                            self.formulas += 1;
                        }
                    }
                }
                cells.push(cell);
            }
            let keep = cells
                .iter()
                .rposition(|c| *c != Cell::Empty)
                .map_or(0, |p| p + 1)
                .max(self.width);
            cells.truncate(keep);
            cells.resize(keep, Cell::Empty);
            if !Arc::ptr_eq(&row.source.file, &self.file) {
                row.source.file = self.file.clone();
            }
            if row.source.sheet.as_ref().is_none_or(|s| !Arc::ptr_eq(s, &self.sheet)) {
                row.source.sheet = Some(self.sheet.clone());
            }
            row.source.line = number;
            row.set_hidden(raw.hidden);
            return Ok(true);
        }
        if !self.finished {
            self.finished = true;
            // Blank rows after the last row: counted, given as no row.
            let end = self.last_blank_row.max(self.gaps.last_end);
            self.gaps.end_at(end);
            self.finish_notes();
        }
        Ok(false)
    }

    fn at(&self, line: u64) -> SourceRef {
        SourceRef {
            file: self.file.clone(),
            sheet: Some(self.sheet.clone()),
            line,
        }
    }

    /// Gives the next row of no data into `row` ([`Gaps::give`]).
    fn give_not_data(&mut self, row: &mut Row) -> bool {
        let (file, sheet, gaps) = (&self.file, &self.sheet, &mut self.gaps);
        gaps.give(row, |line| SourceRef {
            file: file.clone(),
            sheet: Some(sheet.clone()),
            line,
        })
    }

    fn finish_notes(&mut self) {
        self.notes.extend(self.gaps.note("row"));
        if self.error_cells > 0 {
            self.notes.push(format!(
                "sheet {:?}: {} cell(s) hold a spreadsheet error (first at {}); they are passed \
                 on as that text; fix the formulas in the workbook if those cells matter",
                self.sheet, self.error_cells, self.first_error
            ));
        }
        if self.odd_numbers > 0 {
            self.notes.push(format!(
                "sheet {:?}: {} cell(s) hold a number that has no exact decimal form (first at \
                 {}); they are passed on as text",
                self.sheet, self.odd_numbers, self.first_odd_number
            ));
        }
        if self.formulas > 0 {
            self.notes.push(format!(
                "sheet {:?}: {} cell(s) hold a formula but no computed value (first at {}): {}; \
                 they hold no value, so a column the mapping reads is an error on their rows; {}",
                self.sheet,
                self.formulas,
                self.first_formula,
                super::FORMULA_WHY,
                super::FORMULA_FIX
            ));
        }
        if let SheetRows::Streamed(stream) = &mut self.rows
            && let Some(note) = stream.take_note()
        {
            self.notes.push(note);
        }
    }

    /// Notes gathered while reading (taken, so each is reported once).
    pub(crate) fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

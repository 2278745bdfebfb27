//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods) through calamine.
//!
//! xlsx and xlsm sheets are streamed (`xlsx_stream`): memory holds a few hundred rows, not the
//! sheet. For the other kinds calamine loads the whole sheet into memory (that is its design);
//! rows are then handed out one by one, each cell moved out of the sheet rather than copied.
//! Cells keep their type: numbers become exact decimals
//! (`sheet_cells::decimal_from_sheet_float`), date-formatted cells dates, error cells (`#N/A`,
//! ...) their text plus a note.

use super::error::IngestError;
use super::row::{Cell, NotData, Row, SourceRef};
use super::sheet_cells::{Problem, RawCell, column_name, convert_raw, header_text};
use super::xlsx_stream::{READER_FAILED, XlsxStream};
use super::{FileFormat, ReadOptions};
use calamine::{Data, Ods, Range, Reader, SheetType, SheetVisible, Sheets, Xls, Xlsb, Xlsx, open_workbook};
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

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
    /// Blank rows after the header (of only blank cells, or not in the sheet at all) that are no
    /// rows of the result file, and the number of the first.
    blank_rows: u64,
    first_blank_row: u64,
    /// Give every row ([`ReadOptions::every_row`]).
    every_row: bool,
    /// The rows before the first data row that are not the (first) header, given first when
    /// every row is given.
    before: VecDeque<Row>,
    /// The number of the last row given (or of the last header row): the rows after it, up to
    /// the next one, are blank.
    last_end: u64,
    /// The number of the last row of only blank cells.
    last_blank_row: u64,
    /// Blank rows to give before the row held: the next one's number, and the held row's.
    fill: (u64, u64),
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

fn workbook_error(file: &str, kind: BookKind, detail: impl ToString) -> IngestError {
    IngestError::Workbook {
        file: file.to_owned(),
        kind: kind.name(),
        detail: detail.to_string(),
    }
}

pub(super) fn open_kind(path: &Path, kind: BookKind) -> Result<Sheets<std::io::BufReader<std::fs::File>>, String> {
    let opened = catch_unwind(AssertUnwindSafe(|| match kind {
        BookKind::Xlsx => open_workbook::<Xlsx<_>, _>(path)
            .map(Sheets::Xlsx)
            .map_err(|e| e.to_string()),
        BookKind::Xlsb => open_workbook::<Xlsb<_>, _>(path)
            .map(Sheets::Xlsb)
            .map_err(|e| e.to_string()),
        BookKind::Xls => open_workbook::<Xls<_>, _>(path)
            .map(Sheets::Xls)
            .map_err(|e| e.to_string()),
        BookKind::Ods => open_workbook::<Ods<_>, _>(path)
            .map(Sheets::Ods)
            .map_err(|e| e.to_string()),
    }));
    opened.unwrap_or_else(|_| Err("the spreadsheet reader failed on this file".to_owned()))
}

/// Picks the sheet: by name (exact, then ignoring case and surrounding spaces), or the first
/// visible worksheet.
pub(super) fn choose_sheet<RS: std::io::Read + std::io::Seek>(
    book: &Sheets<RS>,
    file: &str,
    wanted: Option<&str>,
    notes: &mut Vec<String>,
) -> Result<String, IngestError> {
    let sheets = book.sheets_metadata();
    let names: Vec<String> = sheets.iter().map(|s| s.name.clone()).collect();
    if let Some(wanted) = wanted {
        if let Some(n) = names.iter().find(|n| n.as_str() == wanted) {
            return Ok(n.clone());
        }
        let key = wanted.trim().to_lowercase();
        if let Some(n) = names.iter().find(|n| n.trim().to_lowercase() == key) {
            return Ok(n.clone());
        }
        return Err(IngestError::SheetNotFound {
            file: file.to_owned(),
            sheet: wanted.to_owned(),
            available: names,
        });
    }
    let worksheet = |s: &&calamine::Sheet| s.typ == SheetType::WorkSheet;
    let chosen = sheets
        .iter()
        .filter(worksheet)
        .find(|s| s.visible == SheetVisible::Visible)
        .or_else(|| sheets.iter().find(worksheet))
        .or_else(|| sheets.first());
    let Some(chosen) = chosen else {
        return Err(IngestError::Empty {
            file: file.to_owned(),
            detail: "the workbook has no sheets".to_owned(),
        });
    };
    if names.len() > 1 {
        notes.push(format!(
            "sheet: {:?}, the first worksheet of {} ({}); choose another sheet by name if needed",
            chosen.name,
            names.len(),
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(chosen.name.clone())
}

/// Opens a workbook of `kind` (or, for `None`, whichever of xlsx, ods and xlsb fits a zip
/// file), picks the sheet, and reads the header rows.
pub(crate) fn open(
    path: &Path,
    file: Arc<str>,
    kind: Option<BookKind>,
    opts: &ReadOptions,
) -> Result<OpenedSheet, IngestError> {
    let (book, kind) = match kind {
        Some(kind) => (open_kind(path, kind).map_err(|e| workbook_error(&file, kind, e))?, kind),
        None => {
            let mut first_err = None;
            let mut found = None;
            for kind in [BookKind::Xlsx, BookKind::Ods, BookKind::Xlsb] {
                match open_kind(path, kind) {
                    Ok(book) => {
                        found = Some((book, kind));
                        break;
                    }
                    Err(e) => {
                        first_err.get_or_insert(e);
                    }
                }
            }
            let err = || workbook_error(&file, BookKind::Xlsx, first_err.unwrap_or_default());
            found.ok_or_else(err)?
        }
    };
    let mut notes = Vec::new();
    let sheet = choose_sheet(&book, &file, opts.sheet.as_deref(), &mut notes)?;
    let rows = match book {
        // The workbook opened again, for what calamine's reader does not say.
        Sheets::Xlsx(xlsx) => SheetRows::Streamed(XlsxStream::start(xlsx, std::fs::File::open(path), sheet.clone())),
        mut book => {
            let range = catch_unwind(AssertUnwindSafe(|| book.worksheet_range(&sheet)))
                .unwrap_or(Err(calamine::Error::Msg(READER_FAILED)))
                .map_err(|e| workbook_error(&file, kind, format!("sheet {sheet:?}: {e}")))?;
            drop(book);
            let Some((first_row, first_col)) = range.start() else {
                let detail = format!("sheet {sheet:?} has no cells");
                return Err(empty_sheet(
                    path,
                    kind,
                    &sheet,
                    opts.sheet.is_some(),
                    file.to_string(),
                    detail,
                ));
            };
            SheetRows::Loaded {
                range,
                next: 0,
                first_row,
                first_col,
            }
        }
    };
    let mut source = SheetSource {
        file,
        sheet: Arc::from(sheet.as_str()),
        kind,
        rows,
        last_row: 0,
        width: 0,
        error_cells: 0,
        blank_rows: 0,
        first_blank_row: 0,
        every_row: opts.every_row,
        before: VecDeque::new(),
        last_end: 0,
        last_blank_row: 0,
        fill: (0, 0),
        held: None,
        first_error: String::new(),
        odd_numbers: 0,
        first_odd_number: String::new(),
        formulas: 0,
        first_formula: String::new(),
        finished: false,
        notes: Vec::new(),
        header_line: 0,
    };
    let header_rows = match source.read_headers(opts.header_row, opts.header_rows.max(1)) {
        Ok(rows) => rows,
        Err(IngestError::Empty { file, detail }) => {
            return Err(empty_sheet(path, kind, &sheet, opts.sheet.is_some(), file, detail));
        }
        Err(e) => return Err(e),
    };
    source.last_end = source.last_row;
    notes.append(&mut source.notes);
    Ok(OpenedSheet {
        source,
        header_rows,
        notes,
        format: kind.format(),
    })
}

/// The error for `sheet` of a workbook having no cells or only blank rows (`detail`, for the
/// file `file`): when another worksheet has cells, it is named with the setting that reads it
/// (`sheet` in the mapping's `[input]`; `named`: that setting named this sheet); else the
/// workbook is empty.
fn empty_sheet(path: &Path, kind: BookKind, sheet: &str, named: bool, file: String, detail: String) -> IngestError {
    let has_cells = |name: &str| -> bool {
        catch_unwind(AssertUnwindSafe(|| -> Option<bool> {
            match open_kind(path, kind).ok()? {
                Sheets::Xlsx(mut xlsx) => {
                    let mut cells = xlsx.worksheet_cells_reader(name).ok()?;
                    loop {
                        match cells.next_cell().ok()? {
                            Some(c) if !header_text(&Data::from(c.get_value().clone())).is_empty() => {
                                return Some(true);
                            }
                            Some(_) => {}
                            None => return Some(false),
                        }
                    }
                }
                mut book => {
                    let range = book.worksheet_range(name).ok()?;
                    Some(range.used_cells().any(|(_, _, d)| !header_text(d).is_empty()))
                }
            }
        }))
        .ok()
        .flatten()
        .unwrap_or(false)
    };
    let others: Vec<String> = match open_kind(path, kind) {
        Ok(book) => book
            .sheets_metadata()
            .iter()
            .filter(|s| s.typ == SheetType::WorkSheet && s.name != sheet)
            .map(|s| s.name.clone())
            .collect(),
        Err(_) => Vec::new(),
    };
    let Some(other) = others.iter().find(|n| has_cells(n)) else {
        return IngestError::Empty { file, detail };
    };
    let what = detail.strip_prefix(&format!("sheet {sheet:?} ")).unwrap_or(&detail);
    let which = if named {
        "the sheet the mapping's [input] names".to_string()
    } else {
        "the first sheet (read when the mapping names none)".to_string()
    };
    let fix = if named {
        format!("set sheet = {other:?} in the mapping's [input]")
    } else {
        format!(
            "set sheet = {other:?} in the [input] of the mapping (a copy of a bundled one: see mappings/README.md), \
             or move that sheet first"
        )
    };
    IngestError::Header {
        file,
        detail: format!("sheet {sheet:?}, {which}, {what}; the workbook's sheet {other:?} has rows: {fix}"),
    }
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
            if self.every_row {
                // The rows not in the sheet before this one.
                for empty in before + 1..row.number {
                    self.before
                        .push_back(Row::not_data_row(self.at(empty), Vec::new(), kind));
                }
            }
            if row.number < wanted || row.cells.iter().all(RawCell::is_blank) {
                if self.every_row {
                    let at = self.at(row.number);
                    self.before.push_back(Row::not_data_row(at, row_cells(row), kind));
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
            if self.every_row && !rows.is_empty() {
                let at = self.at(row.number);
                self.before
                    .push_back(Row::not_data_row(at, row_cells(row), NotData::Header));
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
        if self.every_row && self.give_not_data(row) {
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
            if raw.number > self.last_end + 1 {
                // Blank rows before this one: given as rows first (or counted).
                let gap = raw.number - self.last_end - 1;
                if self.every_row {
                    self.fill = (self.last_end + 1, raw.number);
                    self.last_end = raw.number - 1;
                    self.held = Some(raw);
                    if self.give_not_data(row) {
                        return Ok(true);
                    }
                    continue;
                }
                self.count_blank(gap);
            }
            self.last_end = raw.number;
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
            let end = self.last_blank_row.max(self.last_end);
            self.count_blank(end - self.last_end);
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

    /// Count `n` blank rows (no rows of the result file) after `last_end`.
    fn count_blank(&mut self, n: u64) {
        if n > 0 && self.blank_rows == 0 {
            self.first_blank_row = self.last_end + 1;
        }
        self.blank_rows += n;
    }

    /// Gives the next row of no data into `row`: the rows before the first data row, then the
    /// blank rows before the row held. False when there is none.
    fn give_not_data(&mut self, row: &mut Row) -> bool {
        if let Some(r) = self.before.pop_front() {
            *row = r;
            return true;
        }
        let (next, to) = self.fill;
        if next >= to {
            return false;
        }
        self.fill.0 += 1;
        *row = Row::not_data_row(self.at(next), Vec::new(), NotData::Blank);
        true
    }

    fn finish_notes(&mut self) {
        self.notes.extend(super::blank_rows_note(
            self.blank_rows,
            &format!("row {}", self.first_blank_row),
        ));
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

//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods) through calamine.
//!
//! calamine loads a whole sheet into memory (that is its design); rows are then handed out one
//! by one, each cell moved out of the sheet rather than copied. Cells keep their type: numbers
//! become exact decimals ([`decimal_from_sheet_float`]), date-formatted cells dates, error cells
//! (`#N/A`, ...) their text plus a note.

use super::error::IngestError;
use super::row::{Cell, Row};
use super::{FileFormat, ReadOptions};
use calamine::{Data, Ods, Range, Reader, SheetType, SheetVisible, Sheets, Xls, Xlsb, Xlsx, open_workbook};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use rust_decimal::Decimal;
use rust_decimal::prelude::FromPrimitive;
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

/// **The one place where an `f64` becomes a decimal.** Spreadsheets store numbers as binary
/// floating point; calamine hands them over as `f64`. `Decimal::from_f64` gives the shortest
/// decimal that reads back as the same float (so a cell showing 0.1 gives 0.1, and 0.1+0.2
/// stored as 0.30000000000000004 gives 0.3), never the float's full binary expansion
/// (`from_f64_retain` would give 0.1000000000000000055511151231). The result is normalized, so
/// an integer-valued float becomes an integer. `None` for NaN, infinities and magnitudes beyond
/// a decimal's range.
pub(crate) fn decimal_from_sheet_float(value: f64) -> Option<Decimal> {
    Decimal::from_f64(value).map(|d| d.normalize())
}

/// `A`, `B`, ..., `Z`, `AA`, ... for a 0-based column.
pub(crate) fn column_name(mut col: u32) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'A' + (col % 26) as u8);
        if col < 26 {
            break;
        }
        col = col / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

/// Rows of one sheet.
pub(crate) struct SheetSource {
    file: Arc<str>,
    sheet: Arc<str>,
    range: Range<Data>,
    /// Next row, relative to the range.
    next: usize,
    first_row: u32,
    first_col: u32,
    width: usize,
    error_cells: u64,
    first_error: String,
    odd_numbers: u64,
    first_odd_number: String,
    finished: bool,
    notes: Vec<String>,
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

fn open_kind(path: &Path, kind: BookKind) -> Result<Sheets<std::io::BufReader<std::fs::File>>, String> {
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
fn choose_sheet<RS: std::io::Read + std::io::Seek>(
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
    let (mut book, kind) = match kind {
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
    const FAILED: &str = "the spreadsheet reader failed on this sheet";
    let range = catch_unwind(AssertUnwindSafe(|| book.worksheet_range(&sheet)))
        .unwrap_or(Err(calamine::Error::Msg(FAILED)))
        .map_err(|e| workbook_error(&file, kind, format!("sheet {sheet:?}: {e}")))?;
    drop(book);
    let Some((first_row, first_col)) = range.start() else {
        return Err(IngestError::Empty {
            file: file.to_string(),
            detail: format!("sheet {sheet:?} has no cells"),
        });
    };
    let mut source = SheetSource {
        file,
        sheet: Arc::from(sheet.as_str()),
        range,
        next: 0,
        first_row,
        first_col,
        width: 0,
        error_cells: 0,
        first_error: String::new(),
        odd_numbers: 0,
        first_odd_number: String::new(),
        finished: false,
        notes: Vec::new(),
    };
    let header_rows = source.read_headers(opts.header_row, opts.header_rows.max(1))?;
    notes.append(&mut source.notes);
    Ok(OpenedSheet {
        source,
        header_rows,
        notes,
        format: kind.format(),
    })
}

/// The header rows of an xlsx sheet, streaming only its first rows (calamine would otherwise
/// load the whole sheet). `None` when anything is unusual (a missing header, a read error): the
/// caller then opens the file fully, which reports the problem properly.
pub(crate) fn peek_xlsx(path: &Path, file: &str, opts: &ReadOptions) -> Option<Vec<Vec<String>>> {
    let book = open_kind(path, BookKind::Xlsx).ok()?;
    let sheet = choose_sheet(&book, file, opts.sheet.as_deref(), &mut Vec::new()).ok()?;
    let Sheets::Xlsx(mut xlsx) = book else {
        return None;
    };
    let wanted = opts.header_row.map_or(1, |n| n.max(1) as u64);
    let count = opts.header_rows.max(1);
    let streamed = catch_unwind(AssertUnwindSafe(|| -> Option<Vec<Vec<String>>> {
        let mut cells = xlsx.worksheet_cells_reader(&sheet).ok()?;
        let mut rows: Vec<Vec<String>> = Vec::with_capacity(count);
        let mut current: Option<u32> = None;
        let mut names: Vec<String> = Vec::new();
        loop {
            let next = cells.next_cell().ok()?;
            let row = next.as_ref().map(|c| c.get_position().0);
            if row != current {
                let number = current.map_or(0, |r| u64::from(r) + 1);
                if number >= wanted && names.iter().any(|n| !n.is_empty()) {
                    while names.last().is_some_and(String::is_empty) {
                        names.pop();
                    }
                    rows.push(std::mem::take(&mut names));
                    if rows.len() == count {
                        return Some(rows);
                    }
                }
                names.clear();
                current = row;
            }
            let cell = next?;
            let col = cell.get_position().1 as usize;
            if names.len() <= col {
                names.resize(col + 1, String::new());
            }
            names[col] = header_text(&Data::from(cell.get_value().clone()));
        }
    }));
    streamed.ok().flatten()
}

fn data_is_blank(d: &Data) -> bool {
    match d {
        Data::Empty => true,
        Data::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// A header cell as text.
fn header_text(d: &Data) -> String {
    let text = match d {
        Data::Empty => String::new(),
        Data::String(s) => s.clone(),
        Data::Float(f) => decimal_from_sheet_float(*f).map_or_else(|| f.to_string(), |d| d.to_string()),
        other => convert(other.clone()).0.to_text(),
    };
    text.trim().to_owned()
}

/// A data cell. The second value is set when the cell deserves a note (an error cell or a
/// number that has no decimal form), with the text to quote.
fn convert(d: Data) -> (Cell, Option<Problem>) {
    match d {
        Data::Empty => (Cell::Empty, None),
        Data::String(s) if s.is_empty() => (Cell::Empty, None),
        Data::String(s) => (Cell::Text(s), None),
        Data::Int(i) => (Cell::Number(Decimal::from(i)), None),
        Data::Float(f) => match decimal_from_sheet_float(f) {
            Some(d) => (Cell::Number(d), None),
            None => (Cell::Text(f.to_string()), Some(Problem::Number(f.to_string()))),
        },
        Data::Bool(b) => (Cell::Bool(b), None),
        Data::DateTime(dt) => {
            let serial = dt.as_f64();
            if dt.is_duration() || (0.0..1.0).contains(&serial) {
                (Cell::Text(clock_text(serial)), None)
            } else {
                match dt.as_datetime() {
                    Some(t) if t.time() == NaiveTime::MIN => (Cell::Date(t.date()), None),
                    Some(t) => (Cell::DateTime(t.with_nanosecond(0).unwrap_or(t)), None),
                    None => (
                        Cell::Text(serial.to_string()),
                        Some(Problem::Number(serial.to_string())),
                    ),
                }
            }
        }
        Data::DateTimeIso(s) => (iso_date(&s).unwrap_or(Cell::Text(s)), None),
        Data::DurationIso(s) => (Cell::Text(s), None),
        Data::Error(e) => {
            let text = e.to_string();
            (Cell::Text(text.clone()), Some(Problem::Error(text)))
        }
    }
}

enum Problem {
    Error(String),
    Number(String),
}

/// A time of day or duration (in days) as `H:MM:SS`.
fn clock_text(days: f64) -> String {
    let total = (days * 86_400.0).round();
    let total = if total.is_finite() { total as i64 } else { 0 };
    let sign = if total < 0 { "-" } else { "" };
    let t = total.abs();
    format!("{sign}{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
}

/// ODS dates come as ISO text.
fn iso_date(s: &str) -> Option<Cell> {
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Some(Cell::Date(d));
    }
    let t = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
    Some(if t.time() == NaiveTime::MIN {
        Cell::Date(t.date())
    } else {
        Cell::DateTime(t)
    })
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

    fn row_is_blank(&self, i: usize) -> bool {
        self.range[i].iter().all(data_is_blank)
    }

    fn read_headers(&mut self, header_row: Option<usize>, count: usize) -> Result<Vec<Vec<String>>, IngestError> {
        let wanted = header_row.map_or(1, |n| n.max(1) as u64);
        let height = self.range.height();
        let mut rows: Vec<Vec<String>> = Vec::with_capacity(count);
        while rows.len() < count {
            let i = self.next;
            if i >= height {
                return Err(self.missing_headers(&rows, wanted, count));
            }
            self.next += 1;
            let number = u64::from(self.first_row) + i as u64 + 1;
            if number < wanted || self.row_is_blank(i) {
                continue;
            }
            if rows.is_empty() && header_row.is_some() && number != wanted {
                self.notes.push(format!(
                    "header: row {wanted} of sheet {:?} is blank; the header was taken from row {number}",
                    self.sheet
                ));
            }
            // Cells are indexed by absolute column: column A is always index 0.
            let lead = std::iter::repeat_n(String::new(), self.first_col as usize);
            let mut names: Vec<String> = lead.chain(self.range[i].iter().map(header_text)).collect();
            while names.last().is_some_and(String::is_empty) {
                names.pop();
            }
            rows.push(names);
        }
        Ok(rows)
    }

    fn missing_headers(&self, rows: &[Vec<String>], wanted: u64, count: usize) -> IngestError {
        let file = self.file.to_string();
        if rows.is_empty() && wanted <= 1 {
            return IngestError::Empty {
                file,
                detail: format!("sheet {:?} holds only blank rows", self.sheet),
            };
        }
        let last = u64::from(self.first_row) + self.range.height() as u64;
        let detail = if rows.is_empty() {
            format!(
                "sheet {:?} has no non-blank row at or after row {wanted}, where the header was \
                 expected (its last row is {last}); check the header row setting",
                self.sheet
            )
        } else {
            format!(
                "{count} header rows were expected but sheet {:?} has only {}; check the header \
                 rows setting",
                self.sheet,
                rows.len()
            )
        };
        IngestError::Header { file, detail }
    }

    /// Moves the next non-blank row into `row`. `Ok(false)` at the end.
    pub(crate) fn next_row(&mut self, row: &mut Row) -> Result<bool, IngestError> {
        let height = self.range.height();
        while self.next < height {
            let i = self.next;
            self.next += 1;
            if self.row_is_blank(i) {
                continue;
            }
            let number = u64::from(self.first_row) + i as u64 + 1;
            let first_col = self.first_col;
            let cells = &mut row.cells;
            cells.clear();
            cells.resize(first_col as usize, Cell::Empty);
            for (c, data) in self.range[i].iter_mut().enumerate() {
                let (cell, problem) = convert(std::mem::take(data));
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
            return Ok(true);
        }
        if !self.finished {
            self.finished = true;
            self.finish_notes();
        }
        Ok(false)
    }

    fn finish_notes(&mut self) {
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
    }

    /// Notes gathered while reading (taken, so each is reported once).
    pub(crate) fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap_or_default()
    }

    #[test]
    fn floats_become_shortest_decimals() {
        let cases = [
            (0.1 + 0.2, "0.3"),
            (0.1, "0.1"),
            (46096.0, "46096"),
            (1234567.89, "1234567.89"),
            (19.99, "19.99"),
            (-2.675, "-2.675"),
            (0.07 * 3.0, "0.21"),
            (-0.0, "0"),
        ];
        for (f, want) in cases {
            let got = decimal_from_sheet_float(f).map(|d| d.to_string());
            assert_eq!(got.as_deref(), Some(want), "{f:?}");
        }
        assert_eq!(decimal_from_sheet_float(46096.0).map(|d| d.scale()), Some(0));
        assert_eq!(decimal_from_sheet_float(f64::NAN), None);
        assert_eq!(decimal_from_sheet_float(1e300), None);
    }

    #[test]
    fn cells_convert() {
        assert_eq!(convert(Data::Int(7)).0, Cell::Number(dec("7")));
        assert_eq!(convert(Data::String(String::new())).0, Cell::Empty);
        assert_eq!(convert(Data::Bool(true)).0, Cell::Bool(true));
        let (cell, problem) = convert(Data::Error(calamine::CellErrorType::NA));
        assert_eq!(cell, Cell::Text("#N/A".into()));
        assert!(problem.is_some());
        assert_eq!(
            convert(Data::DateTimeIso("2025-03-04".into())).0,
            Cell::Date(NaiveDate::from_ymd_opt(2025, 3, 4).unwrap_or_default())
        );
        assert_eq!(clock_text(0.5), "12:00:00");
        assert_eq!(clock_text(1.5), "36:00:00");
    }

    #[test]
    fn column_names() {
        assert_eq!(column_name(0), "A");
        assert_eq!(column_name(25), "Z");
        assert_eq!(column_name(26), "AA");
        assert_eq!(column_name(701), "ZZ");
        assert_eq!(column_name(702), "AAA");
    }
}

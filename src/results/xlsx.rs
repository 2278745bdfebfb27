//! `X.result.xlsx` for spreadsheet input: sheet "Results" holds the rows and columns of
//! `X.result.csv` (every cell as text, exactly the CSV's), with a frozen, filterable header row
//! and the `result_status` cell coloured (valid/accepted green, invalid/rejected/failed red,
//! skipped grey); sheet "Errors" lists each finding: source row, document, column, value, rule
//! code, severity, message.
//!
//! Both sheets are written in rust_xlsxwriter's constant-memory mode: rows go to temporary files
//! (in the results folder, unnamed) as they are written, in order, so memory does not grow with
//! the file. The workbook is saved aside and renamed into place.

use super::atomic::{aside, sync_parent};
use super::csv_file::CsvResult;
use super::{RESULT_COLUMNS, ResultRow, ResultsError, RowStatus};
use rust_xlsxwriter::{Color, Format, Workbook, Worksheet, XlsxError};
use std::path::{Path, PathBuf};

/// Excel's last row index (1,048,576 rows).
const LAST_ROW: u32 = 1_048_575;
/// Excel's column count.
const MAX_COLUMNS: usize = 16_384;
/// Excel's longest cell text, in UTF-16 units.
const MAX_CELL: usize = 32_767;
/// The columns of the "Errors" sheet.
pub const ERROR_COLUMNS: [&str; 7] = ["row", "document", "column", "value", "code", "severity", "message"];

/// The spreadsheet result being written.
pub(crate) struct XlsxResult {
    workbook: Workbook,
    target: PathBuf,
    width: usize,
    columns: u16,
    row: u32,
    error_row: u32,
    formats: [Format; 3],
    dropped_rows: u64,
    dropped_findings: u64,
    cut_cells: u64,
}

fn xlsx_error(path: &Path, e: XlsxError) -> ResultsError {
    ResultsError::Xlsx {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Text cut to Excel's cell limit.
fn fit(text: &str) -> (String, bool) {
    if text.len() < MAX_CELL {
        // Never more UTF-16 units than bytes: nothing to cut.
        return (text.to_string(), false);
    }
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > MAX_CELL - 1 {
            return (format!("{}…", &text[..at]), true);
        }
    }
    (text.to_string(), false)
}

fn status_format(fill: u32, font: u32) -> Format {
    Format::new()
        .set_background_color(Color::RGB(fill))
        .set_font_color(Color::RGB(font))
}

/// The zip compression level of the result workbook (1 fastest, 9 smallest).
const ZIP_LEVEL: u8 = 1;

impl XlsxResult {
    /// Start `target` (its folder is also where the constant-memory temporary files go).
    pub(crate) fn create(target: &Path, headers: &[String]) -> Result<XlsxResult, ResultsError> {
        let err = |e| xlsx_error(target, e);
        let mut workbook = Workbook::new();
        // Level 1, not the default 6: zipping the sheet at level 6 was a fifth of `check`'s
        // CPU on a 200,000-row workbook, on the writing thread that bounds the pipeline. Level 3
        // took 4.97 s and 30 MB on that file, level 1 4.37 s and 42 MB (BENCHMARKS.md).
        workbook.set_zip_compression_level(ZIP_LEVEL);
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
            workbook.set_tempdir(dir).map_err(err)?;
        }
        let all = headers.len() + RESULT_COLUMNS.len();
        let columns = u16::try_from(all.min(MAX_COLUMNS)).unwrap_or(u16::MAX);
        let bold = Format::new().set_bold();
        {
            let sheet = workbook.add_worksheet_with_constant_memory().map_err(err)?;
            sheet.set_name("Results").map_err(err)?;
            sheet.set_freeze_panes(1, 0).map_err(err)?;
            let names = headers.iter().map(String::as_str).chain(RESULT_COLUMNS);
            for (col, name) in names.take(usize::from(columns)).enumerate() {
                let col = col as u16;
                sheet
                    .write_string_with_format(0, col, fit(name).0, &bold)
                    .map_err(err)?;
            }
        }
        {
            let sheet = workbook.add_worksheet_with_constant_memory().map_err(err)?;
            sheet.set_name("Errors").map_err(err)?;
            sheet.set_freeze_panes(1, 0).map_err(err)?;
            for (col, name) in ERROR_COLUMNS.iter().enumerate() {
                sheet
                    .write_string_with_format(0, col as u16, *name, &bold)
                    .map_err(err)?;
            }
            sheet.set_column_width(6, 80).map_err(err)?;
        }
        Ok(XlsxResult {
            workbook,
            target: target.to_path_buf(),
            width: headers.len(),
            columns,
            row: 1,
            error_row: 1,
            formats: [
                status_format(0xC6EFCE, 0x006100),
                status_format(0xFFC7CE, 0x9C0006),
                status_format(0xD9D9D9, 0x404040),
            ],
            dropped_rows: 0,
            dropped_findings: 0,
            cut_cells: 0,
        })
    }

    fn sheet(&mut self, index: usize) -> Result<&mut Worksheet, ResultsError> {
        let target = self.target.clone();
        self.workbook
            .worksheet_from_index(index)
            .map_err(|e| xlsx_error(&target, e))
    }

    /// Write one row and its findings (`line`: the source row number).
    pub(crate) fn write<S: AsRef<str>>(
        &mut self,
        cells: &[S],
        result: &ResultRow,
        line: Option<u64>,
    ) -> Result<(), ResultsError> {
        // Fields borrowed apart: the workbook mutably, the target and formats shared.
        let target = &self.target;
        let e = |e| xlsx_error(target, e);
        if self.row > LAST_ROW {
            self.dropped_rows += 1;
        } else {
            let res = result.cells();
            let record = CsvResult::record(self.width, cells, &res);
            let format = &self.formats[match result.status {
                RowStatus::Valid | RowStatus::Accepted => 0,
                RowStatus::Invalid | RowStatus::Rejected | RowStatus::Failed => 1,
                RowStatus::Skipped => 2,
            }];
            let sheet = self.workbook.worksheet_from_index(0).map_err(e)?;
            for (col, text) in record.iter().take(usize::from(self.columns)).enumerate() {
                let (text, was_cut) = fit(text);
                self.cut_cells += u64::from(was_cut);
                let col16 = col as u16;
                if col == self.width {
                    sheet.write_string_with_format(self.row, col16, text, format)
                } else {
                    sheet.write_string(self.row, col16, text)
                }
                .map_err(e)?;
            }
            self.row += 1;
        }
        let findings = result.findings();
        if findings.is_empty() {
            return Ok(());
        }
        let sheet = self.workbook.worksheet_from_index(1).map_err(e)?;
        for f in findings {
            if self.error_row > LAST_ROW {
                self.dropped_findings += 1;
                continue;
            }
            let row = self.error_row;
            if let Some(line) = line {
                sheet.write_number(row, 0, line as f64).map_err(e)?;
            }
            let texts = [
                result.document.as_str(),
                f.column.as_deref().unwrap_or_default(),
                f.value.as_deref().unwrap_or_default(),
                &f.code,
                if f.is_error() { "error" } else { "warning" },
                &f.message,
            ];
            for (i, t) in texts.iter().enumerate() {
                sheet.write_string(row, (i + 1) as u16, fit(t).0).map_err(e)?;
            }
            self.error_row += 1;
        }
        Ok(())
    }

    /// What the user should know about this file (rows beyond Excel's limits).
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.dropped_rows > 0 {
            notes.push(format!(
                "the spreadsheet result holds the first {} rows only (Excel's limit); {} more are in the CSV result",
                LAST_ROW, self.dropped_rows
            ));
        }
        if self.dropped_findings > 0 {
            notes.push(format!(
                "the Errors sheet lists the first {LAST_ROW} findings; {} more are in the CSV result",
                self.dropped_findings
            ));
        }
        if usize::from(self.columns) < self.width + RESULT_COLUMNS.len() {
            notes.push(format!(
                "the spreadsheet result holds the first {MAX_COLUMNS} columns only (Excel's limit)"
            ));
        }
        if self.cut_cells > 0 {
            notes.push(format!(
                "{} cells longer than Excel's 32,767 characters are cut in the spreadsheet result (whole in the CSV)",
                self.cut_cells
            ));
        }
        notes
    }

    /// Save aside and rename into place.
    pub(crate) fn commit(mut self) -> Result<PathBuf, ResultsError> {
        let target = self.target.clone();
        let last_col = self.columns.saturating_sub(1);
        let last_row = self.row - 1;
        let last_error = self.error_row - 1;
        self.sheet(0)?
            .autofilter(0, 0, last_row, last_col)
            .map_err(|e| xlsx_error(&target, e))?;
        self.sheet(1)?
            .autofilter(0, 0, last_error, (ERROR_COLUMNS.len() - 1) as u16)
            .map_err(|e| xlsx_error(&target, e))?;
        let tmp = aside(&target, "tmp");
        if let Err(e) = self.workbook.save(&tmp) {
            let _ = std::fs::remove_file(&tmp);
            return Err(xlsx_error(&target, e));
        }
        let synced = std::fs::File::open(&tmp).and_then(|f| f.sync_all());
        if let Err(e) = synced.and_then(|()| std::fs::rename(&tmp, &target)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(ResultsError::io(&target, e));
        }
        sync_parent(&target);
        Ok(target)
    }
}

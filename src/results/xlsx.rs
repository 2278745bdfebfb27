//! `X.result.xlsx` for spreadsheet input: sheet "Results" holds the rows and columns of
//! `X.result.csv` (every cell as text, exactly the CSV's), with a frozen, filterable header row
//! and the `result_status` cell coloured (valid/accepted green, invalid/rejected/failed red,
//! skipped grey); sheet "Errors" lists each finding: source row, document, column, value, rule
//! code, severity, message.
//!
//! The rows of both sheets stream to temporary files (in the results folder, unnamed) as they
//! are written ([`SheetBody`]), so memory does not grow with the file. On commit, rust_xlsxwriter
//! writes the rest of the workbook (styles, the workbook part, the header rows, frozen panes and
//! filters) around an empty copy of each sheet, and the package is put together from its parts
//! with the streamed rows in place: the same workbook rust_xlsxwriter's constant-memory mode
//! writes, part for part (a test holds it to that), at a fraction of the cost per cell. The
//! workbook is saved aside and renamed into place.

use super::atomic::{aside, sync_parent};
use super::xlsx_sheet::{Range, SheetBody, compressor, deflate};
use super::xlsx_zip::{Entry, ZipOut};
use super::{CellText, RESULT_COLUMNS, ResultIssue, ResultRow, ResultsError, RowStatus};
use flate2::FlushCompress;
use rust_xlsxwriter::{Color, Format, Workbook, Worksheet, XlsxError};
use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Excel's last row index (1,048,576 rows).
const LAST_ROW: u32 = 1_048_575;
/// Excel's column count.
const MAX_COLUMNS: usize = 16_384;
/// Excel's longest cell text, in UTF-16 units.
const MAX_CELL: usize = 32_767;
/// The columns of the "Errors" sheet.
pub const ERROR_COLUMNS: [&str; 7] = ["row", "document", "column", "value", "code", "severity", "message"];
/// Style indices of the status cell (green, red, grey): the workbook's formats after the bold
/// header's (1), in the order [`template`] first uses them.
const STATUS_XF: [u32; 3] = [2, 3, 4];

/// The spreadsheet result being written.
pub(crate) struct XlsxResult {
    target: PathBuf,
    headers: Vec<String>,
    width: usize,
    columns: u16,
    row: u32,
    error_row: u32,
    results: SheetBody,
    errors: SheetBody,
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

fn zip_error(path: &Path, e: zip::result::ZipError) -> ResultsError {
    ResultsError::Xlsx {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Text cut to Excel's cell limit.
fn fit(text: &str) -> (Cow<'_, str>, bool) {
    if text.len() < MAX_CELL {
        // Never more UTF-16 units than bytes: nothing to cut.
        return (Cow::Borrowed(text), false);
    }
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > MAX_CELL - 1 {
            return (Cow::Owned(format!("{}…", &text[..at])), true);
        }
    }
    (Cow::Borrowed(text), false)
}

/// The "Errors" sheet's cells of a finding after its source row: document, column, value, code,
/// severity, message.
fn finding_texts<'a>(result: &'a ResultRow, f: &'a ResultIssue) -> [&'a str; 6] {
    [
        result.document.as_str(),
        f.column.as_deref().unwrap_or_default(),
        f.value.as_deref().unwrap_or_default(),
        &f.code,
        if f.is_error() { "error" } else { "warning" },
        &f.message,
    ]
}

fn status_format(fill: u32, font: u32) -> Format {
    Format::new()
        .set_background_color(Color::RGB(fill))
        .set_font_color(Color::RGB(font))
}

/// The zip compression level of the result workbook (1 fastest, 9 smallest).
pub(crate) const ZIP_LEVEL: u32 = 1;

/// The workbook without its data rows: the header rows, the styles (bold, then the three status
/// colours, used in that order so that they are styles 1 to 4), frozen panes, the message
/// column's width and the filters over the final ranges. `last` is the last row of each sheet.
/// The status cells below the header only register the styles: [`splice`] keeps the header row
/// of each sheet and drops the rest.
fn template(headers: &[String], columns: u16, last: (u32, u32)) -> Result<Vec<u8>, XlsxError> {
    let mut workbook = Workbook::new();
    let bold = Format::new().set_bold();
    let formats = status_formats();
    let sheet = workbook.add_worksheet_with_constant_memory()?;
    sheet.set_name("Results")?;
    sheet.set_freeze_panes(1, 0)?;
    let names = headers.iter().map(String::as_str).chain(RESULT_COLUMNS);
    for (col, name) in names.take(usize::from(columns)).enumerate() {
        sheet.write_string_with_format(0, col as u16, fit(name).0, &bold)?;
    }
    for (i, format) in formats.iter().enumerate() {
        sheet.write_string_with_format(1 + i as u32, 0, "x", format)?;
    }
    sheet.autofilter(0, 0, last.0, columns.saturating_sub(1))?;
    errors_sheet(&mut workbook, &bold)?.autofilter(0, 0, last.1, (ERROR_COLUMNS.len() - 1) as u16)?;
    workbook.save_to_buffer()
}

/// The green, red and grey of the status cell.
fn status_formats() -> [Format; 3] {
    [
        status_format(0xC6EFCE, 0x006100),
        status_format(0xFFC7CE, 0x9C0006),
        status_format(0xD9D9D9, 0x404040),
    ]
}

/// The "Errors" sheet with its header row, frozen, the message column wide.
fn errors_sheet<'w>(workbook: &'w mut Workbook, bold: &Format) -> Result<&'w mut Worksheet, XlsxError> {
    let sheet = workbook.add_worksheet_with_constant_memory()?;
    sheet.set_name("Errors")?;
    sheet.set_freeze_panes(1, 0)?;
    for (col, name) in ERROR_COLUMNS.iter().enumerate() {
        sheet.write_string_with_format(0, col as u16, *name, bold)?;
    }
    sheet.set_column_width(6, 80)?;
    Ok(sheet)
}

/// A sheet of the template with `rows` in place of its data rows: its part up to the end of the
/// header row (with the dimension of header and rows), the rows, and its part from
/// `</sheetData>` on. `None` when the part is not shaped as expected.
fn splice(part: &str, header: Range, rows: Option<Range>) -> Option<(String, String)> {
    let dim_at = part.find("<dimension ref=\"")? + "<dimension ref=\"".len();
    let dim_end = dim_at + part[dim_at..].find('"')?;
    let header_end = part.find("</row>")? + "</row>".len();
    let tail = &part[part.find("</sheetData>")?..];
    let (r0, c0, r1, c1) = match rows {
        None => header,
        Some((r0, c0, r1, c1)) => (r0.min(header.0), c0.min(header.1), r1.max(header.2), c1.max(header.3)),
    };
    let dimension = rust_xlsxwriter::utility::cell_range(r0, c0, r1, c1);
    let head = format!("{}{}{}", &part[..dim_at], dimension, &part[dim_end..header_end]);
    Some((head, tail.to_string()))
}

impl XlsxResult {
    /// Start `target` (its folder is also where the temporary files of the rows go).
    pub(crate) fn create(target: &Path, headers: &[String]) -> Result<XlsxResult, ResultsError> {
        let all = headers.len() + RESULT_COLUMNS.len();
        let columns = u16::try_from(all.min(MAX_COLUMNS)).unwrap_or(u16::MAX);
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let io = |e| ResultsError::io(target, e);
        Ok(XlsxResult {
            target: target.to_path_buf(),
            headers: headers.to_vec(),
            width: headers.len(),
            columns,
            row: 1,
            error_row: 1,
            results: SheetBody::create(dir, columns).map_err(io)?,
            errors: SheetBody::create(dir, ERROR_COLUMNS.len() as u16).map_err(io)?,
            dropped_rows: 0,
            dropped_findings: 0,
            cut_cells: 0,
        })
    }

    /// Write one row and its findings (`line`: the source row number).
    pub(crate) fn write<S: CellText>(
        &mut self,
        cells: &[S],
        result: &ResultRow,
        line: Option<u64>,
    ) -> Result<(), ResultsError> {
        let target = &self.target;
        let io = |e| ResultsError::io(target, e);
        if self.row > LAST_ROW {
            self.dropped_rows += 1;
        } else {
            let xf = STATUS_XF[match result.status {
                RowStatus::Valid | RowStatus::Accepted => 0,
                RowStatus::Invalid | RowStatus::Rejected | RowStatus::Failed => 1,
                RowStatus::Skipped => 2,
            }];
            let (width, columns, row) = (self.width, usize::from(self.columns), self.row);
            let (sheet, cut_cells) = (&mut self.results, &mut self.cut_cells);
            result
                .with_texts(|results| {
                    let input = (0..width).map(|i| cells.get(i).map_or("".into(), CellText::cell_text));
                    for (col, text) in input.chain(results.map(Into::into)).take(columns).enumerate() {
                        let (text, was_cut) = fit(&text);
                        *cut_cells += u64::from(was_cut);
                        let style = if col == width { xf } else { 0 };
                        sheet.text(row, col as u16, &text, style)?;
                    }
                    Ok(())
                })
                .map_err(io)?;
            self.row += 1;
        }
        if result.errors.is_empty() && result.warnings.is_empty() && result.issues.is_empty() {
            return Ok(());
        }
        for f in result.findings() {
            if self.error_row > LAST_ROW {
                self.dropped_findings += 1;
                continue;
            }
            let row = self.error_row;
            if let Some(line) = line {
                self.errors.number(row, 0, line).map_err(io)?;
            }
            for (i, t) in finding_texts(result, &f).iter().enumerate() {
                self.errors.text(row, (i + 1) as u16, &fit(t).0, 0).map_err(io)?;
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
    pub(crate) fn commit(self) -> Result<PathBuf, ResultsError> {
        let target = self.target.clone();
        let tmp = aside(&target, "tmp");
        // Locked until it is in place, so that a later run's cleaning (stale.rs) leaves it
        // alone; `assemble` writes the same file.
        let held = File::create(&tmp).map_err(|e| ResultsError::io(&tmp, e))?;
        super::stale::hold(&held);
        let synced = self.assemble(&tmp).and_then(|()| {
            File::open(&tmp)
                .and_then(|f| f.sync_all())
                .map_err(|e| ResultsError::io(&target, e))
        });
        if let Err(e) = synced.and_then(|()| std::fs::rename(&tmp, &target).map_err(|e| ResultsError::io(&target, e))) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        sync_parent(&target);
        drop(held);
        Ok(target)
    }

    /// The package at `path`: the template's parts as they are, its sheets with the streamed
    /// rows in place.
    fn assemble(self, path: &Path) -> Result<(), ResultsError> {
        let target = self.target.as_path();
        let io = |e| ResultsError::io(target, e);
        let zip_err = |e| zip_error(target, e);
        let last = (self.row - 1, self.error_row - 1);
        let template = template(&self.headers, self.columns, last).map_err(|e| xlsx_error(target, e))?;
        let names = self.headers.iter().map(String::as_str).chain(RESULT_COLUMNS);
        let filled: Vec<u16> = (0u16..)
            .zip(names.take(usize::from(self.columns)))
            .filter(|(_, n)| !n.is_empty())
            .map(|(c, _)| c)
            .collect();
        let results_header = (
            0,
            filled.first().copied().unwrap_or(0),
            0,
            filled.last().copied().unwrap_or(0),
        );
        let errors_header = (0, 0, 0, (ERROR_COLUMNS.len() - 1) as u16);
        let mut bodies = [
            (
                "xl/worksheets/sheet1.xml",
                results_header,
                self.results.finish().map_err(io)?,
            ),
            (
                "xl/worksheets/sheet2.xml",
                errors_header,
                self.errors.finish().map_err(io)?,
            ),
        ];
        let mut parts = zip::ZipArchive::new(std::io::Cursor::new(template)).map_err(zip_err)?;
        let out = File::create(path).map_err(io)?;
        let mut zip = ZipOut::new(std::io::BufWriter::with_capacity(1 << 16, out));
        let mut scratch = Vec::with_capacity(1 << 16);
        for i in 0..parts.len() {
            let mut raw = parts.by_index_raw(i).map_err(zip_err)?;
            let name = raw.name().map_err(zip_err)?.to_string();
            let Some((_, header, (body, range, rows))) = bodies.iter_mut().find(|(n, ..)| *n == name) else {
                let method = match raw.compression() {
                    zip::CompressionMethod::Stored => 0,
                    _ => 8,
                };
                zip.start(Entry {
                    name,
                    method,
                    crc: raw.crc32(),
                    compressed: raw.compressed_size(),
                    len: raw.size(),
                })
                .map_err(io)?;
                zip.copy(&mut raw).map_err(io)?;
                continue;
            };
            drop(raw);
            let mut part = String::new();
            parts
                .by_index(i)
                .map_err(zip_err)?
                .read_to_string(&mut part)
                .map_err(io)?;
            let Some((head, tail)) = splice(&part, *header, *range) else {
                return Err(ResultsError::Xlsx {
                    path: target.to_path_buf(),
                    message: format!("rust_xlsxwriter wrote {name} in an unexpected shape"),
                });
            };
            let (mut head_z, mut tail_z) = (Vec::new(), Vec::new());
            deflate(
                &mut compressor(),
                head.as_bytes(),
                FlushCompress::Sync,
                &mut head_z,
                &mut scratch,
            )
            .map_err(io)?;
            deflate(
                &mut compressor(),
                tail.as_bytes(),
                FlushCompress::Finish,
                &mut tail_z,
                &mut scratch,
            )
            .map_err(io)?;
            let mut crc = crc32fast::Hasher::new();
            crc.update(head.as_bytes());
            crc.combine(&rows.crc);
            crc.update(tail.as_bytes());
            zip.start(Entry {
                name,
                method: 8,
                crc: crc.finalize(),
                compressed: head_z.len() as u64 + rows.compressed + tail_z.len() as u64,
                len: (head.len() + tail.len()) as u64 + rows.len,
            })
            .map_err(io)?;
            zip.data(&head_z).map_err(io)?;
            zip.copy(body).map_err(io)?;
            zip.data(&tail_z).map_err(io)?;
        }
        zip.finish().map_err(io)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The workbook as rust_xlsxwriter's constant-memory mode writes it cell by cell (how the
    /// result workbook was written before [`SheetBody`]): the reference.
    fn by_the_crate(headers: &[String], rows: &[(Vec<String>, ResultRow, Option<u64>)]) -> Result<Vec<u8>, XlsxError> {
        let mut workbook = Workbook::new();
        let bold = Format::new().set_bold();
        let formats = status_formats();
        let columns = (headers.len() + RESULT_COLUMNS.len()) as u16;
        let sheet = workbook.add_worksheet_with_constant_memory()?;
        sheet.set_name("Results")?;
        sheet.set_freeze_panes(1, 0)?;
        for (col, name) in headers.iter().map(String::as_str).chain(RESULT_COLUMNS).enumerate() {
            sheet.write_string_with_format(0, col as u16, name, &bold)?;
        }
        for (r, (cells, result, _)) in rows.iter().enumerate() {
            let format = &formats[match result.status {
                RowStatus::Valid | RowStatus::Accepted => 0,
                RowStatus::Invalid | RowStatus::Rejected | RowStatus::Failed => 1,
                RowStatus::Skipped => 2,
            }];
            let res = result.cells();
            let record = (0..headers.len())
                .map(|i| cells.get(i).map_or("", String::as_str))
                .chain(res.iter().map(String::as_str));
            for (col, text) in record.enumerate() {
                if col == headers.len() {
                    sheet.write_string_with_format(r as u32 + 1, col as u16, text, format)?;
                } else {
                    sheet.write_string(r as u32 + 1, col as u16, text)?;
                }
            }
        }
        sheet.autofilter(0, 0, rows.len() as u32, columns - 1)?;
        let sheet = errors_sheet(&mut workbook, &bold)?;
        let mut row = 1;
        for (_, result, line) in rows {
            for f in result.findings() {
                if let Some(line) = line {
                    sheet.write_number(row, 0, *line as f64)?;
                }
                for (i, t) in finding_texts(result, &f).iter().enumerate() {
                    sheet.write_string(row, (i + 1) as u16, *t)?;
                }
                row += 1;
            }
        }
        sheet.autofilter(0, 0, row - 1, (ERROR_COLUMNS.len() - 1) as u16)?;
        workbook.save_to_buffer()
    }

    /// Every part of a workbook but `docProps/core.xml` (which holds the time it was made).
    fn parts(bytes: Vec<u8>) -> Result<BTreeMap<String, Vec<u8>>, Box<dyn std::error::Error>> {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))?;
        let mut out = BTreeMap::new();
        for i in 0..archive.len() {
            let mut part = archive.by_index(i)?;
            let name = part.name()?.to_string();
            if name == "docProps/core.xml" {
                continue;
            }
            let mut content = Vec::new();
            part.read_to_end(&mut content)?;
            out.insert(name, content);
        }
        Ok(out)
    }

    fn ours(
        headers: &[String],
        rows: &[(Vec<String>, ResultRow, Option<u64>)],
    ) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("x.result.xlsx");
        let mut x = XlsxResult::create(&target, headers)?;
        for (cells, result, line) in rows {
            x.write(cells, result, *line)?;
        }
        let notes = x.notes();
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(x.commit()?, target);
        let left: Vec<_> = std::fs::read_dir(dir.path())?.collect();
        assert_eq!(left.len(), 1, "only the workbook is left in the folder");
        Ok(std::fs::read(&target)?)
    }

    fn row(status: RowStatus, cells: &[&str], findings: &[(&str, bool)]) -> (Vec<String>, ResultRow, Option<u64>) {
        let mut r = ResultRow::new(status, "2026-11-21T09:00:00Z");
        r.document = "INV-1".into();
        for (message, error) in findings {
            r.push_issue(if *error {
                ResultIssue::error("BR-KSA-98", *message)
            } else {
                ResultIssue::warning("BR-KSA-98", *message)
            });
        }
        (cells.iter().map(|c| c.to_string()).collect(), r, Some(7))
    }

    const TEXTS: &str = "[a &<>\"'_x0041 0-9A-F\t\n\r\u{1}\u{FFFE}عربي]{0,12}";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The same workbook, part for part, as rust_xlsxwriter writes cell by cell, whatever the
        /// texts (escapes, control characters, leading and trailing spaces, Arabic, empty cells).
        #[test]
        fn the_same_workbook_as_the_crate(
            texts in proptest::collection::vec(proptest::collection::vec(TEXTS, 0..5), 0..12),
            statuses in proptest::collection::vec(0..3usize, 12),
        ) {
            let headers: Vec<String> = ["Name", "", "Amount", "Note"].map(String::from).to_vec();
            // The first three rows use the three styles in the template's order, as the crate
            // numbers styles by first use.
            let mut rows = vec![
                row(RowStatus::Valid, &["a", "", "1"], &[]),
                row(RowStatus::Invalid, &[" lead", "x"], &[("bad & <worse>", true), ("late", false)]),
                row(RowStatus::Skipped, &[], &[("skipped", false)]),
            ];
            for (cells, s) in texts.iter().zip(&statuses) {
                let status = [RowStatus::Valid, RowStatus::Invalid, RowStatus::Skipped][*s];
                let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
                let findings: Vec<(&str, bool)> = cells.iter().map(|c| (*c, status == RowStatus::Invalid)).collect();
                rows.push(row(status, &cells, &findings));
            }
            let want = parts(by_the_crate(&headers, &rows).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            let got = parts(ours(&headers, &rows).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            proptest::prop_assert_eq!(want.keys().collect::<Vec<_>>(), got.keys().collect::<Vec<_>>());
            for (name, content) in &want {
                proptest::prop_assert!(
                    Some(content) == got.get(name),
                    "{} differs:\n{}\n{}",
                    name,
                    String::from_utf8_lossy(content),
                    String::from_utf8_lossy(&got[name])
                );
            }
        }
    }

    #[test]
    fn an_empty_result_is_a_workbook_with_its_headers() -> Result<(), Box<dyn std::error::Error>> {
        let headers = vec!["Name".to_string()];
        let mut want = parts(by_the_crate(&headers, &[])?)?;
        let mut got = parts(ours(&headers, &[])?)?;
        // The crate lists only the styles used; ours always lists the three status colours.
        let styles =
            |p: &mut BTreeMap<String, Vec<u8>>| String::from_utf8(p.remove("xl/styles.xml").unwrap_or_default());
        assert!(styles(&mut want)?.contains("<cellXfs count=\"2\">"));
        assert!(styles(&mut got)?.contains("<cellXfs count=\"5\">"));
        assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
        for (name, content) in &want {
            assert!(Some(content) == got.get(name), "{name} differs");
        }
        Ok(())
    }
}

//! Delimited text (CSV, TSV, semicolon, pipe): setup, header rows and streaming rows.
//!
//! Memory does not grow with the file: one [`Record`] buffer is reused for every record, the
//! input is read through a 64 KiB buffer (decoded on the fly for non-UTF-8 encodings) and the
//! only allocations per row are the [`Row`]'s two blocks: the record's text and where its fields
//! end. A plain `,`-separated record keeps its line as the result file writes it
//! ([`Row::joined`]); other records keep their fields back to back.

use super::csv_problems::{
    cut_short, extra_cells, misplaced_quote, other_separator, shortened, swallowed_lines, unclosed_quote,
};
use super::cut::LastLine;
use super::encoding::{self, TextEncoding};
use super::error::IngestError;
use super::gaps::Gaps;
use super::records::{MAX_RECORD_BYTES, MAX_RECORD_FIELDS, Outcome, Record, RecordReader};
use super::row::{Cell, NotData, ReadProblem, Row, SourceRef};
use super::{FileFormat, ReadOptions, sniff};
use encoding_rs::{Encoding, WINDOWS_1256};
use encoding_rs_io::DecodeReaderBytesBuilder;
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

mod open;
pub(crate) use open::open;

/// How much of the file is looked at to decide encoding and delimiter.
const SAMPLE_BYTES: usize = 256 * 1024;
/// Read buffer of the streaming reader.
const READ_BUFFER: usize = 64 * 1024;

type Input = BufReader<Box<dyn Read + Send>>;

/// How record bytes become text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// UTF-8, strictly: a record that is not UTF-8 is a row error.
    Utf8,
    /// UTF-8 while everything so far was ASCII; the first record that is not UTF-8 switches
    /// the rest of the file to windows-1256.
    Utf8Tentative,
    /// A single-byte legacy encoding, decoded field by field (after the switch above).
    Legacy(&'static Encoding),
    /// Decoded to UTF-8 while streaming; U+FFFD marks bytes that could not be decoded.
    Decoded,
}

/// Rows from a delimited text file.
pub(crate) struct CsvSource {
    file: Arc<str>,
    records: RecordReader<Input>,
    rec: Record,
    mode: Mode,
    scratch: String,
    scratch_ends: Vec<usize>,
    format: FileFormat,
    width: usize,
    replaced_rows: u64,
    /// The lines between the rows given (blank, above the header, header rows after the first).
    gaps: Gaps,
    /// The line of the last record of only empty fields (it may end the file without a line end).
    last_blank_line: u64,
    /// A record read, given once the blank lines before it are.
    held: Option<Outcome>,
    first_replaced_line: u64,
    finished: bool,
    notes: Vec<String>,
    /// The line of the (first) header row.
    header_line: u64,
    /// Set when the last line is read, if it was cut short.
    last_line: LastLine,
    /// A row before the last had fewer cells than the header (an export that leaves out
    /// trailing empty cells): a short last line is then no sign of a cut.
    ragged: bool,
}

/// An opened file: the source positioned on the first data row, and its header rows.
pub(crate) struct OpenedCsv {
    pub(crate) source: CsvSource,
    pub(crate) header_rows: Vec<Vec<String>>,
    pub(crate) notes: Vec<String>,
}

/// The current record as text, its fields' end offsets and the gap between fields, as in
/// [`Record::text`] (decoded from a legacy encoding: the fields back to back).
///
/// A record that is not UTF-8 in a file read strictly as UTF-8 is read with U+FFFD for the
/// bytes at fault, and `problem` says which cell and what to do.
fn record_text<'a>(
    rec: &'a Record,
    mode: &mut Mode,
    scratch: &'a mut String,
    scratch_ends: &'a mut Vec<usize>,
    notes: &mut Vec<String>,
    format: &mut FileFormat,
    problem: &mut Option<ReadProblem>,
) -> (&'a str, &'a [usize], usize) {
    if !matches!(mode, Mode::Legacy(_)) {
        let (bytes, ends, gap) = rec.text();
        match simdutf8::basic::from_utf8(bytes) {
            Ok(text) => {
                if *mode == Mode::Utf8Tentative && !text.is_ascii() {
                    *mode = Mode::Utf8;
                }
                return (text, ends, gap);
            }
            Err(_) if *mode == Mode::Utf8Tentative => {
                *mode = Mode::Legacy(WINDOWS_1256);
                notes.push(format!(
                    "encoding: the file was plain ASCII up to line {}, where bytes that are not \
                     UTF-8 appear; from there on it is read as windows-1256 (if the text looks \
                     wrong, give the file's encoding)",
                    rec.line()
                ));
                if let FileFormat::Csv { encoding, .. } = format {
                    *encoding = WINDOWS_1256.name();
                }
            }
            Err(_) => {
                scratch.clear();
                scratch_ends.clear();
                for i in 0..rec.len() {
                    let text = String::from_utf8_lossy(rec.field(i));
                    if problem.is_none() && matches!(text, Cow::Owned(_)) {
                        *problem = Some(ReadProblem {
                            code: "INV-ROW-READ",
                            column: Some(i),
                            value: Some(shortened(&text)),
                            message: "the cell holds bytes that are not valid UTF-8 (shown as \
                                      \u{FFFD}), but the file is read as UTF-8; if the file was \
                                      written in a legacy encoding, give that encoding (for example \
                                      windows-1256), or save the file again as UTF-8"
                                .to_owned(),
                        });
                    }
                    scratch.push_str(&text);
                    scratch_ends.push(scratch.len());
                }
                return (scratch.as_str(), scratch_ends.as_slice(), 0);
            }
        }
    }
    let enc = match mode {
        Mode::Legacy(enc) => *enc,
        _ => WINDOWS_1256,
    };
    scratch.clear();
    scratch_ends.clear();
    for i in 0..rec.len() {
        let (text, _) = enc.decode_without_bom_handling(rec.field(i));
        scratch.push_str(&text);
        scratch_ends.push(scratch.len());
    }
    (scratch.as_str(), scratch_ends.as_slice(), 0)
}

/// True when a record's text ([`Record::text`]) holds only white space between its delimiters
/// (a gap is a `,`: only `,`-separated lines keep their delimiters).
fn is_blank(text: &str, gap: usize) -> bool {
    match gap {
        0 => text.trim().is_empty(),
        _ => text.trim_matches(|c: char| c == ',' || c.is_whitespace()).is_empty(),
    }
}

/// A field as a cell: empty, or its text.
/// The fields of a record's text (its fields' end offsets and the gap between fields, as
/// [`record_text`] gives them), each as text (lossy where a field ends inside a character).
fn fields<'t>(text: &'t str, ends: &'t [usize], gap: usize) -> impl Iterator<Item = Cow<'t, str>> + 't {
    let mut start = 0;
    ends.iter().enumerate().map(move |(i, &end)| {
        let end = end + i * gap;
        let field = text
            .get(start..end)
            .map_or_else(|| String::from_utf8_lossy(&text.as_bytes()[start..end]), Cow::Borrowed);
        start = end + gap;
        field
    })
}

fn text_cell(text: &str) -> Cell {
    match text {
        "" => Cell::Empty,
        t => Cell::Text(t.into()),
    }
}

/// The record's text when it is its fields joined by `,` ([`Record::joined`]), as UTF-8, with
/// one field per header (`width`): the text the result CSV writes for its cells.
fn joined_text(rec: &Record, mode: Mode, width: usize) -> Option<&str> {
    if rec.len() != width || matches!(mode, Mode::Legacy(_)) {
        return None;
    }
    simdutf8::basic::from_utf8(rec.joined()?).ok()
}

impl CsvSource {
    /// The format as read so far (the encoding can switch, see [`Mode::Utf8Tentative`]).
    pub(crate) fn format(&self) -> FileFormat {
        self.format
    }

    /// Number of headers; rows are padded to it.
    pub(crate) fn set_width(&mut self, width: usize) {
        self.width = width;
    }

    fn at(&self, line: u64) -> SourceRef {
        SourceRef {
            file: self.file.clone(),
            sheet: None,
            line,
        }
    }

    fn too_long(&self, line: u64) -> String {
        format!(
            "the record starting on line {line} is longer than {} MiB or has more than {} \
             fields, most likely because a quote (\") is never closed; fix the quoting in the \
             file and run again",
            MAX_RECORD_BYTES / (1024 * 1024),
            MAX_RECORD_FIELDS
        )
    }

    fn read_error(&mut self, source: io::Error) -> IngestError {
        self.finished = true;
        IngestError::Read {
            file: self.file.to_string(),
            line: self.records.lines_seen(),
            source,
        }
    }

    /// Reads `count` non-blank header rows starting at or after `header_line`.
    fn read_headers(
        &mut self,
        header_line: u64,
        count: usize,
        explicit: bool,
    ) -> Result<Vec<Vec<String>>, IngestError> {
        let mut rows: Vec<Vec<String>> = Vec::with_capacity(count);
        while rows.len() < count {
            let before = self.records.lines_seen();
            let outcome = self.records.read(&mut self.rec);
            let outcome = outcome.map_err(|e| self.read_error(e))?;
            let line = self.rec.line();
            let kind = if rows.is_empty() {
                NotData::AboveHeader
            } else {
                NotData::Header
            };
            if self.gaps.every_row() && outcome != Outcome::End {
                // The empty lines before the record.
                for empty in before + 1..line {
                    self.gaps.before(self.at(empty), Vec::new(), kind);
                }
            }
            match outcome {
                Outcome::Record if line < header_line => {
                    if self.gaps.every_row() {
                        let cells = self.record_cells();
                        self.gaps.before(self.at(line), cells, kind);
                    }
                    continue;
                }
                Outcome::Record => {}
                Outcome::TooLong => {
                    return Err(IngestError::Header {
                        file: self.file.to_string(),
                        detail: format!("header: {}", self.too_long(line)),
                    });
                }
                Outcome::End => return Err(self.missing_headers(&rows, header_line, count)),
            }
            let mut problem = None;
            let (text, ends, gap) = record_text(
                &self.rec,
                &mut self.mode,
                &mut self.scratch,
                &mut self.scratch_ends,
                &mut self.notes,
                &mut self.format,
                &mut problem,
            );
            if let Some(p) = problem {
                return Err(IngestError::Header {
                    file: self.file.to_string(),
                    detail: format!("header line {line}: {}", p.message),
                });
            }
            if is_blank(text, gap) {
                self.gaps.before(self.at(line), Vec::new(), kind);
                continue;
            }
            if rows.is_empty() {
                self.header_line = line;
            }
            if rows.is_empty() && explicit && line != header_line {
                self.notes.push(format!(
                    "header: line {header_line} is blank; the header was taken from line {line}"
                ));
            }
            let mut names: Vec<String> = fields(text, ends, gap)
                .map(|name| name.trim_start_matches('\u{feff}').trim().to_owned())
                .collect();
            // A trailing delimiter on the header line names no column.
            while names.last().is_some_and(String::is_empty) {
                names.pop();
            }
            if self.gaps.every_row() && !rows.is_empty() {
                let cells = names.iter().map(|n| text_cell(n)).collect();
                self.gaps.before(self.at(line), cells, NotData::Header);
            }
            rows.push(names);
        }
        Ok(rows)
    }

    /// The current record's fields as cells (a row above the header, given as written).
    fn record_cells(&mut self) -> Vec<Cell> {
        let mut problem = None;
        let (text, ends, gap) = record_text(
            &self.rec,
            &mut self.mode,
            &mut self.scratch,
            &mut self.scratch_ends,
            &mut self.notes,
            &mut self.format,
            &mut problem,
        );
        let mut cells: Vec<Cell> = fields(text, ends, gap).map(|f| text_cell(&f)).collect();
        while cells.last() == Some(&Cell::Empty) {
            cells.pop();
        }
        cells
    }

    fn missing_headers(&self, rows: &[Vec<String>], header_line: u64, count: usize) -> IngestError {
        let file = self.file.to_string();
        if rows.is_empty() && header_line <= 1 {
            return IngestError::Empty {
                file,
                detail: "it holds only blank lines".to_owned(),
            };
        }
        let detail = if rows.is_empty() {
            let lines = self.records.lines_seen();
            format!(
                "there is no non-blank line at or after line {header_line}, where the header was \
                 looked for (the file has {lines} lines); set header_row in the mapping's [input] to \
                 the line of the header (1 to {lines})"
            )
        } else {
            format!(
                "{count} header rows were expected from line {}, but the file has only {}; set \
                 header_rows in the mapping's [input] to the number of header rows",
                self.header_line,
                rows.len()
            )
        };
        IngestError::Header { file, detail }
    }

    /// The line of the (first) header row.
    pub(crate) fn header_line(&self) -> u64 {
        self.header_line
    }

    /// Reads the next non-blank record into `row`. `Ok(false)` at the end.
    pub(crate) fn next_row(&mut self, row: &mut Row) -> Result<bool, IngestError> {
        if self.finished {
            return Ok(false);
        }
        if self.gaps.every_row() && self.give_not_data(row) {
            return Ok(true);
        }
        loop {
            let outcome = match self.held.take() {
                Some(held) => held,
                None => self.records.read(&mut self.rec).map_err(|e| self.read_error(e))?,
            };
            let line = self.rec.line();
            if outcome != Outcome::End
                && line > self.gaps.last_end + 1
                && !self.blank_record(outcome)
                && self.gaps.ahead_of(line)
            {
                // Blank lines before this record: given as rows first.
                self.held = Some(outcome);
                if self.give_not_data(row) {
                    return Ok(true);
                }
            }
            match outcome {
                Outcome::Record => {}
                Outcome::TooLong => {
                    self.gaps.last_end = self.records.lines_seen();
                    return Err(IngestError::Record {
                        at: self.at(line),
                        detail: self.too_long(line),
                    });
                }
                Outcome::End => {
                    self.finished = true;
                    // Blank lines after the last row: counted, given as no row.
                    let end = self.records.lines_seen().max(self.last_blank_line);
                    self.gaps.end_at(end);
                    self.notes.extend(self.gaps.note("line"));
                    if self.replaced_rows > 0 {
                        self.notes.push(format!(
                            "{} row(s) held bytes that are not valid {}; they were replaced by \
                             the character U+FFFD (first on line {}); check the file's encoding",
                            self.replaced_rows,
                            self.encoding_name(),
                            self.first_replaced_line
                        ));
                    }
                    return Ok(false);
                }
            }
            // A plain `,`-separated record (no quote, one field per header) is its own result
            // line: its fields are read from it in place, and it is kept for the result file.
            let mut problem = None;
            let joined = joined_text(&self.rec, self.mode, self.width);
            // Only a record with a quote can run over several lines.
            let plain = joined.is_some();
            let (text, ends, gap) = match joined {
                Some(text) => {
                    if self.mode == Mode::Utf8Tentative && !text.is_ascii() {
                        self.mode = Mode::Utf8;
                    }
                    (text, self.rec.ends(), 1)
                }
                None => record_text(
                    &self.rec,
                    &mut self.mode,
                    &mut self.scratch,
                    &mut self.scratch_ends,
                    &mut self.notes,
                    &mut self.format,
                    &mut problem,
                ),
            };
            if is_blank(text, gap) {
                // Counted (or given) with the blank lines around it, once the next record is read.
                self.last_blank_line = line;
                continue;
            }
            self.gaps.last_end = self.records.lines_seen();
            if self.mode == Mode::Decoded && text.contains('\u{FFFD}') {
                if self.replaced_rows == 0 {
                    self.first_replaced_line = line;
                }
                self.replaced_rows += 1;
            }
            if row.set_text(text, ends, self.width, gap).is_none() {
                return Err(IngestError::Record {
                    at: self.at(line),
                    detail: "this record holds bytes that are not valid UTF-8 next to a \
                             delimiter; give the file's encoding (for example windows-1256) or \
                             save it again as UTF-8"
                        .to_owned(),
                });
            }
            let unclosed = self.rec.unclosed();
            if unclosed || (ends.len() != self.width && self.width > 0) {
                // Only such a record can be a last line cut short, or saved with another
                // separator: nothing more is looked at for the others.
                // A line far shorter than the header that another separator splits into about a
                // cell per header was saved with that separator: its cells are read so, to find
                // its document, and it is an error (not a short line, nor a last line cut).
                let other = match self.format {
                    FileFormat::Csv { delimiter, .. } if !unclosed && problem.is_none() && ends.len() < self.width => {
                        other_separator(text, ends, gap, line, self.width, char::from(delimiter))
                    }
                    _ => None,
                };
                if let Some(other) = other {
                    // Unchanged (its cells read with the file's separator) if it cannot be.
                    let _ = row.set_text(&other.text, &other.ends, self.width, 0);
                    problem = Some(other.problem);
                } else {
                    let ran_out = self.records.ran_out();
                    if !ran_out && ends.len() < self.width {
                        self.ragged = true;
                    }
                    // In a file that leaves out trailing empty cells, a short last line is like its
                    // other lines: only a quote never closed says it was cut.
                    let ran_out = ran_out && !self.ragged;
                    if let Some(cut) = cut_short(text, ends.len(), self.width, line, ran_out, unclosed) {
                        self.last_line.set(cut);
                    }
                    // Lines read into a cell are said before a cell's bytes: they are rows
                    // of the export that are not checked.
                    problem = if unclosed {
                        Some(unclosed_quote(text, ends, gap, line))
                    } else {
                        misplaced_quote(text, ends, gap, line, self.width).or(problem)
                    };
                }
            } else if !plain
                && let FileFormat::Csv { delimiter, .. } = self.format
                && text.contains(['\n', '\r'])
                && let Some(swallowed) = swallowed_lines(text, ends, gap, line, self.width, char::from(delimiter))
            {
                problem = Some(swallowed);
            }
            if let Some(p) = problem.or_else(|| extra_cells(row, line, self.width, self.format)) {
                row.set_problem(p);
            }
            if !Arc::ptr_eq(&row.source.file, &self.file) {
                row.source.file = self.file.clone();
            }
            row.source.sheet = None;
            row.source.line = line;
            return Ok(true);
        }
    }

    /// True when `outcome` is a record of only empty fields (read again as text only when it
    /// follows blank lines, never for an ordinary row).
    fn blank_record(&mut self, outcome: Outcome) -> bool {
        if outcome != Outcome::Record || !self.rec.is_blank() {
            return false;
        }
        // `Record::is_blank` looks at the bytes: a legacy encoding's field may decode to
        // white space only where its bytes are ASCII white space too.
        self.last_blank_line = self.rec.line();
        true
    }

    /// Gives the next row of no data into `row` ([`Gaps::give`]).
    fn give_not_data(&mut self, row: &mut Row) -> bool {
        let (file, gaps) = (&self.file, &mut self.gaps);
        gaps.give(row, |line| SourceRef {
            file: file.clone(),
            sheet: None,
            line,
        })
    }

    fn encoding_name(&self) -> &'static str {
        match self.format {
            FileFormat::Csv { encoding, .. } => encoding,
            _ => "text",
        }
    }

    /// Where the last line is said to be cut short, once it is read.
    pub(crate) fn last_line(&self) -> LastLine {
        self.last_line.clone()
    }

    /// Notes gathered while reading (taken, so each is reported once).
    pub(crate) fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

#[cfg(test)]
#[path = "csv_source_tests.rs"]
mod tests;

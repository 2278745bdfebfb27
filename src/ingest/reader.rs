//! [`RowReader`]: picks the format, holds the headers and notes, and hands out rows.

use super::csv_source::{self, CsvSource};
use super::cut::LastLine;
use super::error::IngestError;
use super::late_notes::LateNotes;
use super::row::{Row, SourceRef};
use super::workbook::{self, BookKind, SheetSource};
use super::{FileFormat, ReadOptions};
use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const OLE_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// What the file is, from its name and first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Delimited text, with the delimiter to assume for a one-column file.
    Text { default_delimiter: u8 },
    /// A workbook; `None` = a zip of unknown kind (try xlsx, ods, xlsb).
    Book(Option<BookKind>),
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// Decides how to read the file. Text names (and unknown names without a workbook signature)
/// are delimited text; workbook names must carry a workbook signature, except `.xls`, which
/// some ERPs use for tab-separated text (read as text, with a note).
pub(crate) fn detect(path: &Path, file: &str, notes: &mut Vec<String>) -> Result<Kind, IngestError> {
    let open_err = |source| IngestError::Open {
        file: file.to_owned(),
        source,
    };
    let mut head = Vec::with_capacity(8);
    File::open(path)
        .map_err(open_err)?
        .take(8)
        .read_to_end(&mut head)
        .map_err(open_err)?;
    if head.is_empty() {
        return Err(IngestError::Empty {
            file: file.to_owned(),
            detail: "the file has 0 bytes".to_owned(),
        });
    }
    let ext = extension(path);
    let text_delimiter = if matches!(ext.as_str(), "tsv" | "tab") {
        b'\t'
    } else {
        b','
    };
    let zip = head.starts_with(ZIP_MAGIC);
    let ole = head.starts_with(OLE_MAGIC);
    let kind = match ext.as_str() {
        "csv" | "tsv" | "tab" | "txt" | "prn" | "dat" => Kind::Text {
            default_delimiter: text_delimiter,
        },
        "xlsx" | "xlsm" | "xlam" if zip => Kind::Book(Some(BookKind::Xlsx)),
        "xlsb" if zip => Kind::Book(Some(BookKind::Xlsb)),
        "ods" if zip => Kind::Book(Some(BookKind::Ods)),
        "xls" if ole => Kind::Book(Some(BookKind::Xls)),
        "xls" if zip => {
            notes.push("format: the .xls file is really a zip workbook (xlsx); read as such".into());
            Kind::Book(None)
        }
        "xls" if head.first() == Some(&b'<') => {
            return Err(IngestError::NotASpreadsheet {
                file: file.to_owned(),
                detail: "it is a web page (HTML) saved with an .xls name".to_owned(),
            });
        }
        "xls" => {
            notes.push("format: the .xls file holds text, not a workbook; read as delimited text".into());
            Kind::Text {
                default_delimiter: b'\t',
            }
        }
        "xlsx" | "xlsm" | "xlam" | "xlsb" | "ods" => {
            let detail = if ole {
                "it is an old-style Excel workbook (.xls) with a newer name; rename it to .xls"
            } else {
                "it does not start with the signature of a workbook (it may be text with a \
                 spreadsheet name, or a damaged file)"
            };
            return Err(IngestError::NotASpreadsheet {
                file: file.to_owned(),
                detail: detail.to_owned(),
            });
        }
        _ if zip => Kind::Book(None),
        _ if ole => Kind::Book(Some(BookKind::Xls)),
        _ => Kind::Text {
            default_delimiter: text_delimiter,
        },
    };
    Ok(kind)
}

/// Header names as the mapping sees them, from the first header row: a name blank there is
/// taken from the next header row that names the column (`header_rows = 2` under merged group
/// labels), and a column no header row names becomes `Column N` (1-based); a repeated name gets
/// ` (2)`, ` (3)`, ... Each change is described in `notes`.
pub(crate) fn unique_headers(rows: &[Vec<String>], notes: &mut Vec<String>) -> Vec<String> {
    // As wide as the widest header row (each drops its trailing blank names).
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut seen: HashSet<String> = HashSet::with_capacity(width);
    let mut out = Vec::with_capacity(width);
    let mut blanks = Vec::new();
    let mut renamed = Vec::new();
    for i in 0..width {
        let name = rows.first().and_then(|r| r.get(i)).map_or("", String::as_str);
        let below = || {
            rows.iter()
                .skip(1)
                .filter_map(|r| r.get(i))
                .find(|h| !h.trim().is_empty())
        };
        let base = if !name.is_empty() {
            name.to_string()
        } else if let Some(named) = below() {
            named.clone()
        } else {
            blanks.push(i + 1);
            format!("Column {}", i + 1)
        };
        let mut unique = base.clone();
        let mut n = 2;
        while seen.contains(&unique) {
            unique = format!("{base} ({n})");
            n += 1;
        }
        if unique != base {
            renamed.push(format!("{base:?} (column {}) is called {unique:?}", i + 1));
        }
        seen.insert(unique.clone());
        out.push(unique);
    }
    if !blanks.is_empty() {
        let list: Vec<String> = blanks.iter().map(ToString::to_string).collect();
        notes.push(format!(
            "header: column(s) {} have no name; they are called \"Column N\"",
            list.join(", ")
        ));
    }
    if !renamed.is_empty() {
        notes.push(format!(
            "header: repeated column names were made unique: {}",
            renamed.join("; ")
        ));
    }
    out
}

enum Source {
    Csv(Box<CsvSource>),
    Sheet(Box<SheetSource>),
}

/// Streams the data rows of one file, after its header row(s).
///
/// Blank rows are skipped (never yielded). A short row is padded with empty cells to the
/// number of headers; cells beyond the headers are kept. A record that cannot be read comes
/// out as an `Err` ([`IngestError::is_row_error`]) and the iteration goes on with the next one;
/// a read failure of the file itself ends the iteration after its `Err`.
///
/// [`RowReader::notes`] grows while reading (an encoding switch, counts of replaced characters
/// or error cells): read it again after the last row for the complete list, or take the notes
/// added after opening from [`RowReader::late_notes`] once the rows (handed on) have run out.
pub struct RowReader {
    file: Arc<str>,
    sheet: Option<Arc<str>>,
    headers: Vec<String>,
    header_rows: Vec<Vec<String>>,
    notes: Vec<String>,
    format: FileFormat,
    source: Source,
    finished: bool,
    late: LateNotes,
}

impl std::fmt::Debug for RowReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowReader")
            .field("file", &self.file)
            .field("sheet", &self.sheet)
            .field("format", &self.format())
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

impl RowReader {
    /// Opens `path`, decides its format (and for text its encoding and delimiter), and reads
    /// the header row(s). Whole-file problems are errors here; nothing is read past the
    /// headers (except that an xlsb, xls or ods sheet is loaded whole).
    pub fn open(path: &Path, opts: &ReadOptions) -> Result<RowReader, IngestError> {
        let file: Arc<str> = Arc::from(path.display().to_string());
        let mut notes = Vec::new();
        let kind = detect(path, &file, &mut notes)?;
        let (source, header_rows, format, sheet) = match kind {
            Kind::Text { default_delimiter } => {
                let opened = csv_source::open(path, file.clone(), opts, default_delimiter)?;
                notes.extend(opened.notes);
                let format = opened.source.format();
                (Source::Csv(Box::new(opened.source)), opened.header_rows, format, None)
            }
            Kind::Book(book) => {
                let opened = workbook::open(path, file.clone(), book, opts)?;
                notes.extend(opened.notes);
                let sheet = Some(opened.source.sheet().clone());
                (
                    Source::Sheet(Box::new(opened.source)),
                    opened.header_rows,
                    opened.format,
                    sheet,
                )
            }
        };
        let headers = unique_headers(&header_rows, &mut notes);
        let mut reader = RowReader {
            file,
            sheet,
            headers,
            header_rows,
            notes,
            format,
            source,
            finished: false,
            late: LateNotes::default(),
        };
        let width = reader.headers.len();
        match &mut reader.source {
            Source::Csv(s) => s.set_width(width),
            Source::Sheet(s) => s.set_width(width),
        }
        Ok(reader)
    }

    /// The first header row, trimmed, with blank names called `Column N` and repeated names
    /// made unique (`Amount`, `Amount (2)`); the renaming is reported in [`RowReader::notes`].
    /// Cells of a row are in this order.
    pub fn headers(&self) -> &[String] {
        &self.headers
    }

    /// All header rows (see [`ReadOptions::header_rows`]), trimmed but otherwise as written
    /// (not made unique), trailing blank names dropped. SAP Business One DTW files have two:
    /// property names, then database names.
    pub fn header_rows(&self) -> &[Vec<String>] {
        &self.header_rows
    }

    /// Things worth telling the user: the encoding and delimiter chosen, the sheet read,
    /// renamed headers, characters replaced, error cells. Grows while reading.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The file's format (for text: delimiter and encoding; the encoding can change while
    /// reading when a plain-ASCII start is followed by windows-1256 text, see the notes).
    pub fn format(&self) -> FileFormat {
        match &self.source {
            Source::Csv(s) => s.format(),
            Source::Sheet(_) => self.format,
        }
    }

    /// Whether the rows are read on a thread of their own (an xlsx sheet), which keeps a core
    /// busy while they are taken: `check` then leaves that core to it.
    pub fn reads_on_own_thread(&self) -> bool {
        match &self.source {
            Source::Csv(_) => false,
            Source::Sheet(s) => s.reads_on_own_thread(),
        }
    }

    /// The file as named in every [`SourceRef`].
    pub fn file(&self) -> &Arc<str> {
        &self.file
    }

    /// The sheet read, for a workbook.
    pub fn sheet(&self) -> Option<&str> {
        self.sheet.as_deref()
    }

    /// The line (or sheet row) of the first header row.
    pub fn header_line(&self) -> u64 {
        match &self.source {
            Source::Csv(s) => s.header_line(),
            Source::Sheet(s) => s.header_line(),
        }
    }

    /// Where the header was read, as messages say it: `line 3`, `row 1 of sheet "Sales"`.
    pub fn header_place(&self) -> String {
        match &self.sheet {
            Some(sheet) => format!("row {} of sheet {sheet:?}", self.header_line()),
            None => format!("line {}", self.header_line()),
        }
    }

    /// Where a text file's reader says, once it has read the last line, whether that line was
    /// cut short ([`LastLine::cut`]: no line end, and fewer cells than the header or a quote
    /// never closed). Taken before the rows are handed on; never set for a spreadsheet.
    pub fn last_line(&self) -> LastLine {
        match &self.source {
            Source::Csv(s) => s.last_line(),
            Source::Sheet(_) => LastLine::default(),
        }
    }

    /// The notes added while rows are read (not those of [`RowReader::notes`] at opening):
    /// taken once the rows have run out, wherever the reader went meanwhile.
    pub fn late_notes(&self) -> LateNotes {
        self.late.clone()
    }

    /// An empty row to pass to [`RowReader::read_row`].
    pub fn new_row(&self) -> Row {
        Row::new(
            SourceRef {
                file: self.file.clone(),
                sheet: self.sheet.clone(),
                line: 0,
            },
            Vec::new(),
        )
    }

    /// Reads the next data row into `row` (a spreadsheet row refills its cells' vector; a CSV
    /// row takes its record's text, two allocations). `Ok(true)` when a row was read, `Ok(false)` at the end;
    /// after a per-row error, call again for the next row.
    pub fn read_row(&mut self, row: &mut Row) -> Result<bool, IngestError> {
        if self.finished {
            return Ok(false);
        }
        let result = match &mut self.source {
            Source::Csv(s) => s.next_row(row),
            Source::Sheet(s) => s.next_row(row),
        };
        let mut more = match &mut self.source {
            Source::Csv(s) => s.take_notes(),
            Source::Sheet(s) => s.take_notes(),
        };
        self.late.extend(&more);
        self.notes.append(&mut more);
        match result {
            Ok(false) => {
                self.finished = true;
                Ok(false)
            }
            Err(e) if !e.is_row_error() => {
                self.finished = true;
                Err(e)
            }
            other => other,
        }
    }
}

impl Iterator for RowReader {
    type Item = Result<Row, IngestError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut row = self.new_row();
        match self.read_row(&mut row) {
            Ok(true) => Some(Ok(row)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

impl std::iter::FusedIterator for RowReader {}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reader_can_move_to_another_thread() {
        fn send<T: Send>() {}
        send::<RowReader>();
        send::<IngestError>();
    }

    #[test]
    fn duplicates_and_blanks_are_renamed_and_noted() {
        let mut notes = Vec::new();
        let got = unique_headers(&[names(&["Amount", "", "Amount", "Amount (2)", "Amount"])], &mut notes);
        assert_eq!(
            got,
            names(&["Amount", "Column 2", "Amount (2)", "Amount (2) (2)", "Amount (3)"])
        );
        assert_eq!(notes.len(), 2);
        assert!(notes[1].contains("\"Amount\" (column 3) is called \"Amount (2)\""));
        let mut notes = Vec::new();
        assert_eq!(unique_headers(&[names(&["a", "b"])], &mut notes), names(&["a", "b"]));
        assert!(notes.is_empty());
    }

    #[test]
    fn a_column_named_by_a_later_header_row_has_a_name() {
        // Merged group labels over the names (header_rows = 2), the first row cut at its last
        // label; one column named by no row.
        let rows = [
            names(&["Document", "", "", "Line"]),
            names(&["Doc No", "Doc Date", "", "Item", "Qty"]),
        ];
        let mut notes = Vec::new();
        let got = unique_headers(&rows, &mut notes);
        assert_eq!(got, names(&["Document", "Doc Date", "Column 3", "Line", "Qty"]));
        assert_eq!(
            notes,
            ["header: column(s) 3 have no name; they are called \"Column N\""]
        );
        let mut notes = Vec::new();
        unique_headers(
            &[names(&["Document", "", "Line"]), names(&["Doc No", "Doc Date", "Item"])],
            &mut notes,
        );
        assert!(notes.is_empty(), "{notes:?}");
    }
}

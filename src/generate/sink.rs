//! Where generated rows go: delimited text (UTF-8 with or without a byte-order mark, or a legacy
//! encoding) or an xlsx workbook written in rust_xlsxwriter's constant-memory mode. Both stream:
//! a row is written and forgotten.

use super::GenerateError;
use chrono::{Datelike, NaiveDate};
use encoding_rs::Encoding;
use rust_decimal::Decimal;
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// How a number is written in delimited text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumFmt {
    /// As few decimals as needed (`2`, `2.5`).
    Plain,
    /// Two decimals (`1150.00`).
    Fixed2,
    /// Two decimals with a thousands comma (`1,150.00`).
    Thousands2,
    /// Decimal comma, `.` for thousands, two decimals (`1.150,00`).
    Comma2,
    /// Decimal comma, as few decimals as needed (`85,5`).
    CommaPlain,
}

/// One cell of a generated row.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    /// Nothing.
    Empty,
    /// Fixed text.
    Str(&'static str),
    /// Text.
    Text(String),
    /// A number: a number cell in xlsx, formatted text in CSV.
    Num(Decimal, NumFmt),
    /// A date: a date cell in xlsx, text in the given strftime format in CSV.
    Date(NaiveDate, &'static str),
}

fn group_thousands(int: &str, sep: char) -> String {
    let mut out = String::with_capacity(int.len() + int.len() / 3);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// A number as text in one of the [`NumFmt`] styles.
pub(crate) fn format_number(d: Decimal, fmt: NumFmt) -> String {
    let two = || {
        format!(
            "{:.2}",
            d.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
        )
    };
    match fmt {
        NumFmt::Plain => d.normalize().to_string(),
        NumFmt::Fixed2 => two(),
        NumFmt::Thousands2 | NumFmt::Comma2 => {
            let s = two();
            let (sign, s) = s.strip_prefix('-').map_or(("", s.as_str()), |r| ("-", r));
            let (int, frac) = s.split_once('.').unwrap_or((s, "00"));
            if fmt == NumFmt::Thousands2 {
                format!("{sign}{}.{frac}", group_thousands(int, ','))
            } else {
                format!("{sign}{},{frac}", group_thousands(int, '.'))
            }
        }
        NumFmt::CommaPlain => d.normalize().to_string().replace('.', ","),
    }
}

/// Writes rows somewhere.
pub(crate) trait Sink {
    /// One row.
    fn row(&mut self, cells: &[Val]) -> Result<(), GenerateError>;
    /// Flush and close.
    fn finish(self: Box<Self>) -> Result<(), GenerateError>;
}

/// Opens a sink for `path`: xlsx by extension, else delimited text.
pub(crate) fn open(path: &Path, text: TextStyle) -> Result<Box<dyn Sink>, GenerateError> {
    let xlsx = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xlsx") || e.eq_ignore_ascii_case("xlsm"));
    if xlsx {
        Ok(Box::new(XlsxSink::create(path)?))
    } else {
        Ok(Box::new(CsvSink::create(path, text)?))
    }
}

/// How delimited text is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextStyle {
    /// Field delimiter.
    pub(crate) delimiter: u8,
    /// A UTF-8 byte-order mark first (Excel's "CSV UTF-8").
    pub(crate) bom: bool,
    /// A legacy encoding instead of UTF-8.
    pub(crate) encoding: Option<&'static Encoding>,
}

impl TextStyle {
    /// UTF-8 with a byte-order mark, comma-separated.
    pub(crate) const EXCEL: TextStyle = TextStyle {
        delimiter: b',',
        bom: true,
        encoding: None,
    };
}

/// Delimited text, `\r\n` line ends, `"` quotes where needed.
pub(crate) struct CsvSink {
    path: PathBuf,
    out: BufWriter<File>,
    style: TextStyle,
    line: String,
}

impl CsvSink {
    pub(crate) fn create(path: &Path, style: TextStyle) -> Result<CsvSink, GenerateError> {
        let file = File::create(path).map_err(|e| GenerateError::io(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        if style.bom && style.encoding.is_none() {
            out.write_all("\u{feff}".as_bytes())
                .map_err(|e| GenerateError::io(path, e))?;
        }
        Ok(CsvSink {
            path: path.to_path_buf(),
            out,
            style,
            line: String::with_capacity(1024),
        })
    }

    fn push_field(&mut self, text: &str) {
        let d = char::from(self.style.delimiter);
        if text.contains([d, '"', '\r', '\n']) {
            self.line.push('"');
            self.line.push_str(&text.replace('"', "\"\""));
            self.line.push('"');
        } else {
            self.line.push_str(text);
        }
    }
}

impl Sink for CsvSink {
    fn row(&mut self, cells: &[Val]) -> Result<(), GenerateError> {
        self.line.clear();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                self.line.push(char::from(self.style.delimiter));
            }
            match c {
                Val::Empty => {}
                Val::Str(s) => self.push_field(s),
                Val::Text(s) => self.push_field(s),
                Val::Num(d, f) => self.push_field(&format_number(*d, *f)),
                Val::Date(d, f) => self.push_field(&d.format(f).to_string()),
            }
        }
        self.line.push_str("\r\n");
        let result = match self.style.encoding {
            None => self.out.write_all(self.line.as_bytes()),
            Some(enc) => self.out.write_all(&enc.encode(&self.line).0),
        };
        result.map_err(|e| GenerateError::io(&self.path, e))
    }

    fn finish(self: Box<Self>) -> Result<(), GenerateError> {
        let path = self.path.clone();
        self.out
            .into_inner()
            .map_err(|e| GenerateError::io(&path, e.into_error()))?
            .sync_all()
            .map_err(|e| GenerateError::io(&path, e))
    }
}

/// The most data rows a worksheet holds below its header row(s).
pub(crate) const XLSX_MAX_ROWS: u64 = 1_048_576;

/// An xlsx workbook with one worksheet, `Sheet1`, in constant-memory mode (each row goes to a
/// temporary file as it is written).
pub(crate) struct XlsxSink {
    path: PathBuf,
    book: Workbook,
    row: u32,
    date: Format,
}

fn xlsx_err(path: &Path, e: rust_xlsxwriter::XlsxError) -> GenerateError {
    GenerateError::Xlsx {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

impl XlsxSink {
    pub(crate) fn create(path: &Path) -> Result<XlsxSink, GenerateError> {
        let mut book = Workbook::new();
        book.add_worksheet_with_constant_memory()
            .and_then(|s| s.set_name("Sheet1").map(|_| ()))
            .map_err(|e| xlsx_err(path, e))?;
        Ok(XlsxSink {
            path: path.to_path_buf(),
            book,
            row: 0,
            date: Format::new().set_num_format("dd/mm/yyyy"),
        })
    }
}

impl Sink for XlsxSink {
    fn row(&mut self, cells: &[Val]) -> Result<(), GenerateError> {
        if u64::from(self.row) >= XLSX_MAX_ROWS {
            return Err(GenerateError::Usage(format!(
                "an xlsx worksheet holds at most {XLSX_MAX_ROWS} rows; write CSV for more"
            )));
        }
        let path = self.path.clone();
        let sheet = self.book.worksheet_from_index(0).map_err(|e| xlsx_err(&path, e))?;
        for (col, c) in cells.iter().enumerate() {
            let col = u16::try_from(col).map_err(|_| GenerateError::Usage("too many columns".into()))?;
            let r = match c {
                Val::Empty => continue,
                Val::Str(s) => sheet.write_string(self.row, col, *s),
                Val::Text(s) => sheet.write_string(self.row, col, s),
                Val::Num(d, _) => sheet.write(self.row, col, *d),
                Val::Date(d, _) => {
                    let month = u8::try_from(d.month()).unwrap_or(1);
                    let day = u8::try_from(d.day()).unwrap_or(1);
                    let year = u16::try_from(d.year()).unwrap_or(1900);
                    let dt = ExcelDateTime::from_ymd(year, month, day).map_err(|e| xlsx_err(&path, e))?;
                    sheet.write_datetime_with_format(self.row, col, &dt, &self.date)
                }
            };
            r.map_err(|e| xlsx_err(&path, e))?;
        }
        self.row += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), GenerateError> {
        let path = self.path.clone();
        self.book.save(&path).map_err(|e| xlsx_err(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn numbers_in_each_style() {
        assert_eq!(format_number(dec!(2.50), NumFmt::Plain), "2.5");
        assert_eq!(format_number(dec!(1150), NumFmt::Fixed2), "1150.00");
        assert_eq!(format_number(dec!(1150), NumFmt::Thousands2), "1,150.00");
        assert_eq!(format_number(dec!(-1234567.8), NumFmt::Thousands2), "-1,234,567.80");
        assert_eq!(format_number(dec!(999.5), NumFmt::Thousands2), "999.50");
        assert_eq!(format_number(dec!(1234.5), NumFmt::Comma2), "1.234,50");
        assert_eq!(format_number(dec!(85.50), NumFmt::CommaPlain), "85,5");
    }

    #[test]
    fn csv_quotes_what_needs_it_and_encodes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        let style = TextStyle {
            delimiter: b';',
            bom: false,
            encoding: Some(encoding_rs::WINDOWS_1256),
        };
        let mut s: Box<dyn Sink> = Box::new(CsvSink::create(&p, style).unwrap());
        s.row(&[
            Val::Str("a;b"),
            Val::Text("ق \"x\"".into()),
            Val::Num(dec!(1.5), NumFmt::CommaPlain),
        ])
        .unwrap();
        s.finish().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let (text, _, bad) = encoding_rs::WINDOWS_1256.decode(&bytes);
        assert!(!bad);
        assert_eq!(text, "\"a;b\";\"ق \"\"x\"\"\";1,5\r\n");
    }
}

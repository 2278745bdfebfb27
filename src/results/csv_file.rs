//! `X.result.csv`: UTF-8 with a byte-order mark (so Excel shows Arabic), the input's header
//! names then the result columns, written aside and renamed on commit.

use super::atomic::AtomicFile;
use super::{RESULT_COLUMNS, ResultRow, ResultsError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The CSV result being written.
pub(crate) struct CsvResult {
    out: csv::Writer<AtomicFile>,
    target: PathBuf,
    width: usize,
    scratch: String,
}

impl CsvResult {
    /// Start `target` with the header row.
    pub(crate) fn create(target: &Path, headers: &[String]) -> Result<CsvResult, ResultsError> {
        let mut file = AtomicFile::create(target)?;
        file.write_all("\u{feff}".as_bytes())
            .map_err(|e| ResultsError::io(target, e))?;
        let mut out = csv::WriterBuilder::new().flexible(false).from_writer(file);
        let mut header: Vec<&str> = headers.iter().map(String::as_str).collect();
        header.extend(RESULT_COLUMNS);
        out.write_record(&header).map_err(|e| csv_error(target, e))?;
        Ok(CsvResult {
            out,
            target: target.to_path_buf(),
            width: headers.len(),
            scratch: String::new(),
        })
    }

    /// The input's cells padded or cut to the header width, then the result cells.
    pub(crate) fn record<'a, S: AsRef<str>>(width: usize, cells: &'a [S], result: &'a [String]) -> Vec<&'a str> {
        let input = (0..width).map(|i| cells.get(i).map_or("", AsRef::as_ref));
        input.chain(result.iter().map(String::as_str)).collect()
    }

    /// Write one row: field by field, the same record as `record(width, cells, &result.cells())`
    /// without copying the cells.
    pub(crate) fn write<S: AsRef<str>>(&mut self, cells: &[S], result: &ResultRow) -> Result<(), ResultsError> {
        self.write_fields(cells, result).map_err(|e| csv_error(&self.target, e))
    }

    fn write_fields<S: AsRef<str>>(&mut self, cells: &[S], result: &ResultRow) -> Result<(), csv::Error> {
        let out = &mut self.out;
        for i in 0..self.width {
            out.write_field(cells.get(i).map_or("", AsRef::as_ref))?;
        }
        out.write_field(result.status.as_str())?;
        out.write_field(&result.document)?;
        for f in [&result.uuid, &result.qr, &result.xml_file, &result.qr_file] {
            out.write_field(f)?;
        }
        for list in [&result.errors, &result.warnings] {
            match list.as_slice() {
                [] => out.write_field("")?,
                [one] => out.write_field(one)?,
                many => {
                    self.scratch.clear();
                    for (i, s) in many.iter().enumerate() {
                        if i > 0 {
                            self.scratch.push_str(" | ");
                        }
                        self.scratch.push_str(s);
                    }
                    out.write_field(&self.scratch)?;
                }
            }
        }
        let (digits, from) = decimal_digits(result.attempts);
        out.write_field(&digits[from..])?;
        out.write_field(&result.time)?;
        out.write_record(None::<&[u8]>)
    }

    /// Flush and rename into place.
    pub(crate) fn commit(self) -> Result<PathBuf, ResultsError> {
        let target = self.target.clone();
        let file = self
            .out
            .into_inner()
            .map_err(|e| ResultsError::io(&target, std::io::Error::other(e.to_string())))?;
        file.commit()
    }
}

pub(crate) fn csv_error(path: &Path, e: csv::Error) -> ResultsError {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => ResultsError::io(path, io),
        other => ResultsError::malformed(path, format!("{other:?}")),
    }
}

/// `n` in decimal ASCII digits, without going through `format!`: the digits are `buf[from..]`.
fn decimal_digits(mut n: u32) -> ([u8; 10], usize) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return (buf, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits_match_to_string() {
        for n in [0u32, 1, 9, 10, 99, 100, 12345, u32::MAX] {
            let (buf, from) = decimal_digits(n);
            assert_eq!(std::str::from_utf8(&buf[from..]).unwrap(), n.to_string());
        }
    }
}

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
        })
    }

    /// The input's cells padded or cut to the header width, then the result cells.
    pub(crate) fn record<'a>(width: usize, cells: &'a [String], result: &'a [String]) -> Vec<&'a str> {
        let input = (0..width).map(|i| cells.get(i).map_or("", String::as_str));
        input.chain(result.iter().map(String::as_str)).collect()
    }

    /// Write one row.
    pub(crate) fn write(&mut self, cells: &[String], result: &ResultRow) -> Result<(), ResultsError> {
        let res = result.cells();
        let record = Self::record(self.width, cells, &res);
        self.out.write_record(&record).map_err(|e| csv_error(&self.target, e))
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

//! `X.result.csv`: UTF-8 with a byte-order mark (so Excel shows Arabic), the input's header
//! names then the result columns, written aside and renamed on commit.

use super::atomic::AtomicFile;
use super::{CellText, RESULT_COLUMNS, ResultRow, ResultsError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The CSV result being written. Records are written as the csv crate writes them by default
/// (`,` between fields, `\n` after each record, a field quoted only when it holds `,`, `"`, `\r`
/// or `\n`, quotes doubled), byte for byte (a property test holds it to the crate), but a row at
/// a time into one buffer instead of field by field through the crate's state machine: this is
/// the pipeline's one serial stage.
pub(crate) struct CsvResult {
    out: AtomicFile,
    target: PathBuf,
    width: usize,
    line: Vec<u8>,
}

/// A field the csv crate would quote (its `QuoteStyle::Necessary` with the default delimiter,
/// quote and terminator).
fn needs_quotes(field: &[u8]) -> bool {
    // Without an early exit, so the compiler can look at many bytes at once.
    field
        .iter()
        .fold(false, |seen, &b| seen | matches!(b, b',' | b'"' | b'\n' | b'\r'))
}

/// Append one field as the csv crate writes it.
fn push_field(line: &mut Vec<u8>, field: &[u8]) {
    if !needs_quotes(field) {
        line.extend_from_slice(field);
        return;
    }
    line.push(b'"');
    // Copy the runs between quotes whole, doubling each quote.
    let mut rest = field;
    while let Some(at) = rest.iter().position(|&b| b == b'"') {
        line.extend_from_slice(&rest[..=at]);
        line.push(b'"');
        rest = &rest[at + 1..];
    }
    line.extend_from_slice(rest);
    line.push(b'"');
}

/// One record (fields joined by `,`, then `\n`) appended to `line`.
pub(crate) fn push_record<'a>(line: &mut Vec<u8>, fields: impl IntoIterator<Item = &'a [u8]>) {
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            line.push(b',');
        }
        push_field(line, f);
    }
    line.push(b'\n');
}

impl CsvResult {
    /// Start `target` with the header row.
    pub(crate) fn create(target: &Path, headers: &[String]) -> Result<CsvResult, ResultsError> {
        let mut out = AtomicFile::create(target)?;
        out.write_all("\u{feff}".as_bytes())
            .map_err(|e| ResultsError::io(target, e))?;
        let mut line = Vec::with_capacity(1024);
        push_record(
            &mut line,
            headers
                .iter()
                .map(String::as_str)
                .chain(RESULT_COLUMNS)
                .map(str::as_bytes),
        );
        out.write_all(&line).map_err(|e| ResultsError::io(target, e))?;
        line.clear();
        Ok(CsvResult {
            out,
            target: target.to_path_buf(),
            width: headers.len(),
            line,
        })
    }

    /// The input's cells padded or cut to the header width, then the result cells (the record
    /// [`CsvResult::write`] is tested against).
    #[cfg(test)]
    pub(crate) fn record<'a, S: AsRef<str>>(width: usize, cells: &'a [S], result: &'a [String]) -> Vec<&'a str> {
        let input = (0..width).map(|i| cells.get(i).map_or("", AsRef::as_ref));
        input.chain(result.iter().map(String::as_str)).collect()
    }

    /// Write one row: the same record as `record(width, cells, &result.cells())`, without
    /// copying the cells (the input's cells padded or cut to the header width, then the result
    /// cells).
    pub(crate) fn write<S: CellText>(&mut self, cells: &[S], result: &ResultRow) -> Result<(), ResultsError> {
        let (width, line) = (self.width, &mut self.line);
        line.clear();
        for i in 0..width {
            if i > 0 {
                line.push(b',');
            }
            if let Some(c) = cells.get(i) {
                push_field(line, c.cell_text().as_bytes());
            }
        }
        self.finish_line(result)
    }

    /// Write one row whose input cells are `joined`: their texts joined by `,`, as many as there
    /// are headers, none needing quotes (`ingest::Row::joined`).
    pub(crate) fn write_line(&mut self, joined: &str, result: &ResultRow) -> Result<(), ResultsError> {
        self.line.clear();
        self.line.extend_from_slice(joined.as_bytes());
        self.finish_line(result)
    }

    /// Append the result cells to the line and write it.
    fn finish_line(&mut self, result: &ResultRow) -> Result<(), ResultsError> {
        let (width, line) = (self.width, &mut self.line);
        // Spelled for every row, not copied from the row before when the cells are the same:
        // comparing ten cells (a `memcmp` call each, most of them empty) cost 8 % more CPU
        // than spelling them, though callgrind counted fewer instructions.
        result.with_texts(|results| {
            for (j, r) in results.iter().enumerate() {
                if width > 0 || j > 0 {
                    line.push(b',');
                }
                push_field(line, r.as_bytes());
            }
            line.push(b'\n');
        });
        self.out
            .write_all(&self.line)
            .map_err(|e| ResultsError::io(&self.target, e))
    }

    /// Flush and rename into place.
    pub(crate) fn commit(self) -> Result<PathBuf, ResultsError> {
        self.out.commit()
    }
}

pub(crate) fn csv_error(path: &Path, e: csv::Error) -> ResultsError {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => ResultsError::io(path, io),
        other => ResultsError::malformed(path, format!("{other:?}")),
    }
}

/// `n` in decimal ASCII digits, without going through `format!`: the digits are `buf[from..]`.
pub(crate) fn decimal_digits(mut n: u32) -> ([u8; 10], usize) {
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

    /// The csv crate's default writer, as the result file was written before.
    fn by_the_crate(fields: &[String]) -> Vec<u8> {
        let mut w = csv::WriterBuilder::new().flexible(false).from_writer(Vec::new());
        w.write_record(fields).unwrap();
        w.into_inner().unwrap()
    }

    proptest::proptest! {
        /// Every record is written exactly as the csv crate writes it: quoting, doubled quotes,
        /// empty fields, line breaks inside fields, Arabic.
        #[test]
        fn records_are_the_csv_crates(fields in proptest::collection::vec("[a ,\"\r\nم|0-9]{0,6}", 2..12)) {
            let mut line = Vec::new();
            push_record(&mut line, fields.iter().map(|f| f.as_bytes()));
            proptest::prop_assert_eq!(line, by_the_crate(&fields));
        }
    }

    #[test]
    fn a_result_row_is_the_record_of_its_cells() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("x.result.csv");
        let headers = vec!["A".to_string(), "B, the second".to_string(), "C".to_string()];
        let mut csv = CsvResult::create(&target, &headers).unwrap();
        let mut row = ResultRow::new(super::super::RowStatus::Invalid, "2026-11-21T09:00:00Z");
        row.document = "INV-1".into();
        row.errors = vec!["E1 column \"x\": bad".into(), "E2: worse\nstill".into()];
        row.warnings = vec!["W1: note".into()];
        row.attempts = 12;
        // Short, long (cut to the header width) and padded rows.
        let rows: [&[&str]; 3] = [&["1", "a\"b"], &["", "", "", "extra"], &["x,y", "", "z"]];
        let mut want = "\u{feff}".as_bytes().to_vec();
        let header: Vec<String> = headers
            .iter()
            .cloned()
            .chain(RESULT_COLUMNS.map(String::from))
            .collect();
        want.extend(by_the_crate(&header));
        for cells in rows {
            csv.write(cells, &row).unwrap();
            let record: Vec<String> = CsvResult::record(3, cells, &row.cells())
                .into_iter()
                .map(String::from)
                .collect();
            want.extend(by_the_crate(&record));
        }
        csv.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), want);
    }

    /// Result rows that differ from the first in one result cell each (and one the same).
    fn result_rows() -> Vec<ResultRow> {
        let base = ResultRow::new(super::super::RowStatus::Valid, "2026-11-21T09:00:00Z");
        let mut rows = vec![base.clone(), base.clone()];
        let changes: [fn(&mut ResultRow); 10] = [
            |r| r.status = super::super::RowStatus::Invalid,
            |r| r.document = "INV-2".into(),
            |r| r.uuid = "u-1".into(),
            |r| r.qr = "QR==".into(),
            |r| r.xml_file = "a, b.xml".into(),
            |r| r.qr_file = "q.png".into(),
            |r| r.errors = vec!["E1 column \"x\": bad".into()],
            |r| r.warnings = vec!["W1: a".into(), "W2: b".into()],
            |r| r.attempts = 3,
            |r| r.time = "2026-11-21T09:00:01Z".into(),
        ];
        for change in changes {
            let mut r = base.clone();
            change(&mut r);
            rows.push(r);
        }
        rows
    }

    proptest::proptest! {
        /// Rows in any order, the same result as the row before or not, are each written with
        /// their own result cells.
        #[test]
        fn each_row_has_its_own_result_cells(order in proptest::collection::vec(0usize..12, 1..30)) {
            let rows = result_rows();
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("x.result.csv");
            let headers = vec!["A".to_string()];
            let mut csv = CsvResult::create(&target, &headers).unwrap();
            let header: Vec<String> = headers.iter().cloned().chain(RESULT_COLUMNS.map(String::from)).collect();
            let mut want = "\u{feff}".as_bytes().to_vec();
            want.extend(by_the_crate(&header));
            for (n, &i) in order.iter().enumerate() {
                let cells = [n.to_string()];
                csv.write(&cells, &rows[i]).unwrap();
                let record: Vec<String> = CsvResult::record(1, &cells, &rows[i].cells())
                    .into_iter()
                    .map(String::from)
                    .collect();
                want.extend(by_the_crate(&record));
            }
            csv.commit().unwrap();
            proptest::prop_assert_eq!(std::fs::read(&target).unwrap(), want);
        }
    }

    #[test]
    fn cells_are_written_as_their_texts() {
        use crate::ingest::Cell;
        let dir = tempfile::tempdir().unwrap();
        let headers: Vec<String> = ["A", "B", "C", "D", "E", "F"].map(String::from).to_vec();
        let row = ResultRow::new(super::super::RowStatus::Valid, "2026-11-21T09:00:00Z");
        let date = chrono::NaiveDate::from_ymd_opt(2026, 11, 2).unwrap();
        let cells = vec![
            Cell::Empty,
            Cell::Text("a,\"b\"".into()),
            Cell::Number(rust_decimal_macros::dec!(1.50)),
            Cell::Date(date),
            Cell::DateTime(date.and_hms_opt(9, 5, 0).unwrap()),
            Cell::Bool(true),
        ];
        let texts: Vec<String> = cells.iter().map(Cell::to_text).collect();
        let mut files = Vec::new();
        for name in ["cells", "texts"] {
            let target = dir.path().join(format!("{name}.result.csv"));
            let mut csv = CsvResult::create(&target, &headers).unwrap();
            match name {
                "cells" => csv.write(&cells, &row).unwrap(),
                _ => csv.write(&texts, &row).unwrap(),
            }
            csv.commit().unwrap();
            files.push(std::fs::read_to_string(&target).unwrap());
        }
        assert_eq!(files[0], files[1]);
        assert!(
            files[0].contains("\n,\"a,\"\"b\"\"\",1.5,2026-11-02,2026-11-02 09:05:00,true,valid,"),
            "{}",
            files[0]
        );
    }
    #[test]
    fn decimal_digits_match_to_string() {
        for n in [0u32, 1, 9, 10, 99, 100, 12345, u32::MAX] {
            let (buf, from) = decimal_digits(n);
            assert_eq!(std::str::from_utf8(&buf[from..]).unwrap(), n.to_string());
        }
    }
}

//! The atomic CSV result writer: UTF-8 with a byte-order mark (so Excel shows Arabic), written to
//! a temporary file beside the target and renamed into place by [`ResultWriter::finish`]. Dropped
//! without `finish`, it removes its temporary file and leaves any earlier result untouched.

use super::{RESULT_COLUMNS, ResultRow};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// `RESULTS/X.result.csv` for an input `.../X.csv` or `.../X.xlsx`.
pub fn result_path(results_dir: &Path, input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    results_dir.join(format!("{stem}.result.csv"))
}

/// Writes one result file.
pub struct ResultWriter {
    target: PathBuf,
    tmp: PathBuf,
    out: Option<csv::Writer<BufWriter<File>>>,
    width: usize,
    rows: u64,
}

impl std::fmt::Debug for ResultWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultWriter")
            .field("target", &self.target)
            .field("rows", &self.rows)
            .finish()
    }
}

impl ResultWriter {
    /// Start the result file for `input` in `results_dir` (created if needed), with the input's
    /// header names followed by the result columns.
    pub fn create(results_dir: &Path, input: &Path, headers: &[String]) -> std::io::Result<ResultWriter> {
        std::fs::create_dir_all(results_dir)?;
        let target = result_path(results_dir, input);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = results_dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let mut file = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
        file.write_all("\u{feff}".as_bytes())?;
        let mut out = csv::WriterBuilder::new().flexible(false).from_writer(file);
        let mut header: Vec<&str> = headers.iter().map(String::as_str).collect();
        header.extend(RESULT_COLUMNS);
        out.write_record(&header)?;
        Ok(ResultWriter {
            target,
            tmp,
            out: Some(out),
            width: headers.len(),
            rows: 0,
        })
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Write one row: the input's cells (padded or cut to the header width) and its result.
    pub fn write(&mut self, cells: &[String], result: &ResultRow) -> std::io::Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Err(std::io::Error::other("result file already finished"));
        };
        let empty = String::new();
        let input = (0..self.width).map(|i| cells.get(i).unwrap_or(&empty).as_str());
        let res = result.cells();
        let record: Vec<&str> = input.chain(res.iter().map(String::as_str)).collect();
        out.write_record(&record)?;
        self.rows += 1;
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Flush, sync and rename into place; returns the final path.
    pub fn finish(mut self) -> std::io::Result<PathBuf> {
        let out = self
            .out
            .take()
            .ok_or_else(|| std::io::Error::other("result file already finished"))?;
        let file = out.into_inner().map_err(|e| std::io::Error::other(e.to_string()))?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.tmp, &self.target)?;
        Ok(self.target.clone())
    }
}

impl Drop for ResultWriter {
    fn drop(&mut self) {
        if self.out.is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::RowStatus;

    #[test]
    fn writes_bom_headers_rows_and_renames_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = ResultWriter::create(dir.path(), Path::new("in/x.csv"), &["A".into(), "اسم".into()]).unwrap();
        assert!(!dir.path().join("x.result.csv").exists());
        let mut r = ResultRow::new(RowStatus::Invalid, "2026-11-21T00:00:00Z");
        r.errors = vec!["E1 A \"1\": bad".into(), "E2: worse".into()];
        w.write(&["1".into()], &r).unwrap();
        w.finish().unwrap();
        let text = std::fs::read_to_string(dir.path().join("x.result.csv")).unwrap();
        assert!(text.starts_with('\u{feff}'));
        let mut lines = text.trim_start_matches('\u{feff}').lines();
        assert!(lines.next().unwrap().starts_with("A,اسم,result_status,result_document"));
        assert_eq!(
            lines.next().unwrap(),
            "1,,invalid,,,,,,\"E1 A \"\"1\"\": bad | E2: worse\",,0,2026-11-21T00:00:00Z"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn an_unfinished_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let w = ResultWriter::create(dir.path(), Path::new("x.xlsx"), &["A".into()]).unwrap();
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

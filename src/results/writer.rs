//! [`ResultWriter`]: every result file of one input, written aside while the rows stream in and
//! put in place together by [`ResultWriter::finish`].

use super::artefacts::{self, ArtefactContent, ArtefactPaths, Durability};
use super::atomic::{aside, sync_parent, write_atomic};
use super::csv_file::CsvResult;
use super::documents::{DocumentRecord, DocumentsFile, documents_path, visit_documents_where};
use super::kept::{self, Earlier, IssuedNumbers, Kept};
use super::summary::{Summary, SummaryBuilder};
use super::xlsx::XlsxResult;
use super::{CellText, RESULT_COLUMNS, ResultRow, ResultsError};
use crate::ingest::{CellRef, Row};
use crate::model::SubmissionResponse;
use chrono::{NaiveDate, NaiveTime, SecondsFormat, Utc};
use std::path::{Path, PathBuf};

/// Input extensions that get a spreadsheet result too.
pub const SPREADSHEET_EXTENSIONS: [&str; 5] = ["xlsx", "xlsm", "xlsb", "xls", "ods"];

/// The input file's stem (`sales` for `in/sales.xlsx`): the name of its result set. A control
/// character in it (a line break in the file name) becomes `-`, as in the artefacts folder's
/// name, so that no result file's name holds one.
pub fn input_stem(input: &Path) -> String {
    input
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .chars()
                .map(|c| if c.is_control() { '-' } else { c })
                .collect()
        })
        .unwrap_or_else(|| "input".into())
}

/// `RESULTS/X.result.csv` for an input `.../X.csv` or `.../X.xlsx`.
pub fn result_path(results_dir: &Path, input: &Path) -> PathBuf {
    results_dir.join(format!("{}.result.csv", input_stem(input)))
}

/// True when the input is a spreadsheet (xlsx, xlsm, xlsb, xls, ods), which gets
/// `X.result.xlsx` beside `X.result.csv`.
pub fn is_spreadsheet(input: &Path) -> bool {
    input
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .is_some_and(|e| SPREADSHEET_EXTENSIONS.contains(&e.as_str()))
}

/// What [`ResultWriter::finish`] put in place.
#[derive(Debug, Clone)]
pub struct Finished {
    /// `X.result.csv`.
    pub result_csv: PathBuf,
    /// `X.result.xlsx`, for spreadsheet input.
    pub result_xlsx: Option<PathBuf>,
    /// `X.documents.csv`.
    pub documents_csv: PathBuf,
    /// `X.summary.json`.
    pub summary_json: PathBuf,
    /// `X/`, when any document was accepted (or kept).
    pub artefacts: Option<PathBuf>,
    /// The summary written.
    pub summary: Summary,
    /// The accepted documents of the replaced set kept in this one (see `kept`); its notes are
    /// in `summary` too.
    pub kept: Kept,
}

/// Writes the result files of one input: `X.result.csv`, `X.result.xlsx` (spreadsheet input),
/// `X.documents.csv`, `X.summary.json` and the artefacts folder `X/`.
///
/// Everything is written aside (hidden temporary files, and a hidden folder for artefacts) and
/// only [`finish`](ResultWriter::finish) puts it in place. Dropped without `finish` (an error, a
/// panic), it removes what it wrote and leaves the earlier results untouched.
pub struct ResultWriter {
    results_dir: PathBuf,
    stem: String,
    folder: String,
    csv: Option<CsvResult>,
    xlsx: Option<XlsxResult>,
    documents: Option<DocumentsFile>,
    summary: SummaryBuilder,
    staging: Option<PathBuf>,
    /// Held while the staging folder is written into (see `stale.rs`).
    staging_lock: Option<super::stale::StagingLock>,
    target: PathBuf,
    rows: u64,
    /// The input's own columns named like result columns (an earlier result file given
    /// again), as renamed: `previous_result_status`...
    previous: Vec<String>,
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
    /// Start the result files of `input` in `results_dir` (created if needed), with the input's
    /// header names followed by the result columns.
    pub fn create(results_dir: &Path, input: &Path, headers: &[String]) -> std::io::Result<ResultWriter> {
        Ok(Self::start(results_dir, input, headers)?)
    }

    fn start(results_dir: &Path, input: &Path, headers: &[String]) -> Result<ResultWriter, ResultsError> {
        std::fs::create_dir_all(results_dir).map_err(|e| ResultsError::io(results_dir, e))?;
        let stem = input_stem(input);
        let target = result_path(results_dir, input);
        let (headers, previous) = previous_results(headers);
        let headers = &headers[..];
        let csv = CsvResult::create(&target, headers)?;
        let xlsx = if is_spreadsheet(input) {
            Some(XlsxResult::create(
                &results_dir.join(format!("{stem}.result.xlsx")),
                headers,
            )?)
        } else {
            None
        };
        let documents = DocumentsFile::create(&documents_path(results_dir, &stem))?;
        let time = Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true);
        let mut summary = SummaryBuilder::new(&input.display().to_string(), "", &time);
        summary.set_input_path(&super::owner::resolved(input).display().to_string());
        Ok(ResultWriter {
            results_dir: results_dir.to_path_buf(),
            folder: artefacts::folder_name(&stem),
            summary,
            stem,
            csv: Some(csv),
            xlsx,
            documents: Some(documents),
            staging: None,
            staging_lock: None,
            target,
            rows: 0,
            previous,
        })
    }

    /// The final path of `X.result.csv`.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The artefacts folder's name (`X`, made safe), relative to the results folder.
    pub fn artefacts_folder(&self) -> &str {
        &self.folder
    }

    /// Name the mapping in the summary.
    pub fn set_mapping(&mut self, mapping: &str) {
        self.summary.set_mapping(mapping);
    }

    /// Write one row without a source line number (the "Errors" sheet leaves `row` empty).
    pub fn write<S: CellText>(&mut self, cells: &[S], result: &ResultRow) -> std::io::Result<()> {
        self.write_row(cells, result, None)
    }

    /// Write one row: the input's cells (padded or cut to the header width) and its result;
    /// `line` is its source line or row number. A row whose `document` is empty is a row
    /// outside any document: its finding codes count in the summary by themselves (the codes of
    /// a document's rows count through [`ResultWriter::document`]).
    pub fn write_row<S: CellText>(
        &mut self,
        cells: &[S],
        result: &ResultRow,
        line: Option<u64>,
    ) -> std::io::Result<()> {
        self.csv_result()?.write(cells, result)?;
        if let Some(x) = self.xlsx.as_mut() {
            x.write(cells, result, line)?;
        }
        self.count_row(result);
        Ok(())
    }

    /// Write one input row ([`ResultWriter::write_row`]) as the reader made it: a spreadsheet's
    /// cells, or a CSV record's text. A record that is its own result line ([`Row::joined`]) is
    /// copied whole into the result CSV, without looking at its cells. `None`: a record that
    /// could not be read, written with empty cells.
    pub fn write_input_row(&mut self, row: Option<&Row>, result: &ResultRow, line: Option<u64>) -> std::io::Result<()> {
        let Some(row) = row else {
            return self.write_row::<&str>(&[], result, line);
        };
        if let Some(cells) = row.cell_slice() {
            return self.write_row(cells, result, line);
        }
        let Some(joined) = row.joined() else {
            let cells: Vec<CellRef<'_>> = row.iter().collect();
            return self.write_row(&cells, result, line);
        };
        self.csv_result()?.write_line(joined, result)?;
        if let Some(x) = self.xlsx.as_mut() {
            let cells: Vec<CellRef<'_>> = row.iter().collect();
            x.write(&cells, result, line)?;
        }
        self.count_row(result);
        Ok(())
    }

    /// The result CSV, while it is being written.
    fn csv_result(&mut self) -> std::io::Result<&mut CsvResult> {
        self.csv
            .as_mut()
            .ok_or_else(|| std::io::Error::other("result file already finished"))
    }

    /// Count a written row into the summary.
    fn count_row(&mut self, result: &ResultRow) {
        self.summary.add_row(result.status);
        if result.document.is_empty() {
            let mut errors = Vec::new();
            let mut warnings = Vec::new();
            for f in result.findings() {
                let list = if f.is_error() { &mut errors } else { &mut warnings };
                if !list.contains(&f.code) {
                    list.push(f.code);
                }
            }
            self.summary.add_stray_codes(&errors, &warnings);
        }
        self.rows += 1;
    }

    /// Record one document in `X.documents.csv` and the summary (once per document, whatever
    /// its status).
    pub fn document(&mut self, record: &DocumentRecord) -> std::io::Result<()> {
        let Some(d) = self.documents.as_mut() else {
            return Err(std::io::Error::other("result file already finished"));
        };
        d.write(record)?;
        self.summary.add_document(record);
        Ok(())
    }

    /// Write an accepted document's signed XML and QR PNG into this run's artefacts folder
    /// (aside until [`finish`](ResultWriter::finish)); returns the paths for the result row
    /// and the document record.
    pub fn write_accepted(
        &mut self,
        seller_vat: &str,
        doc_number: &str,
        issue_date: NaiveDate,
        issue_time: NaiveTime,
        response: &SubmissionResponse,
    ) -> Result<ArtefactPaths, ResultsError> {
        let content = ArtefactContent::make(doc_number, response)?;
        self.store_accepted(seller_vat, doc_number, issue_date, issue_time, &content)
    }

    /// [`write_accepted`](ResultWriter::write_accepted) with the artefacts already made (see
    /// [`ArtefactContent::make`], which can run in parallel). The files are written plainly into
    /// the folder aside and synced together when [`finish`](ResultWriter::finish) puts it in
    /// place.
    pub fn store_accepted(
        &mut self,
        seller_vat: &str,
        doc_number: &str,
        issue_date: NaiveDate,
        issue_time: NaiveTime,
        content: &ArtefactContent,
    ) -> Result<ArtefactPaths, ResultsError> {
        let staging = self.artefacts_staging()?;
        let name = artefacts::xml_file_name(seller_vat, doc_number, issue_date, issue_time);
        artefacts::store(&staging, &self.folder, &name, content, Durability::Folder)
    }

    /// The folder aside that the artefacts are written into (created on first use) and the
    /// folder name the result file refers to, for writing several documents' artefacts in
    /// parallel with [`ArtefactSink::store`].
    pub fn artefact_sink(&mut self) -> Result<ArtefactSink, ResultsError> {
        Ok(ArtefactSink {
            dir: self.artefacts_staging()?,
            folder: self.folder.clone(),
        })
    }

    fn artefacts_staging(&mut self) -> Result<PathBuf, ResultsError> {
        Ok(match &self.staging {
            Some(s) => s.clone(),
            None => {
                let s = aside(&self.results_dir.join(&self.folder), "staging");
                std::fs::create_dir(&s).map_err(|e| ResultsError::io(&s, e))?;
                self.staging_lock = Some(super::stale::StagingLock::take(&s));
                self.staging = Some(s.clone());
                s
            }
        })
    }

    /// A note when the input is an earlier result file given again (corrected and dropped
    /// back): its result columns keep their earlier values under other names.
    pub fn previous_results_note(&self) -> Option<String> {
        if self.previous.is_empty() {
            return None;
        }
        Some(format!(
            "the file holds the result columns of an earlier result file: they keep their earlier values as {}; \
             this run's are the result_ columns at the end",
            self.previous.join(", ")
        ))
    }

    /// Add a note about the whole input (how it was read: its encoding, delimiter or date
    /// order) to `X.summary.json`, where `report` shows it.
    pub fn note(&mut self, note: impl Into<String>) {
        self.summary.note(note);
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The summary so far.
    pub fn summary(&mut self) -> &Summary {
        self.summary.summary()
    }

    /// Put every file in place, replacing the earlier run's, in this order: the artefacts
    /// folder `X/` (the new one, with the earlier one's issued documents not accepted anew linked
    /// into it, or none, replaces the old one), `X.documents.csv`,
    /// `X.result.xlsx`, `X.result.csv`, and last `X.summary.json`. Each file appears whole; if
    /// the process dies between two of them, `report` notices the mismatch.
    ///
    /// The accepted documents of the earlier set that this one does not give as accepted are
    /// kept first, as issued (see `kept`): their signed XML and QR in the new `X/`, their records
    /// in `X.documents.csv` and the summary, and a note saying so.
    ///
    /// An `X/` folder holding anything but XML and PNG files is not ours: it is left alone and
    /// finishing fails ([`ResultsError::InTheWay`]) before anything is replaced.
    pub fn finish(mut self) -> Result<Finished, ResultsError> {
        let kept = self.keep_issued()?;
        let artefacts = self.swap_artefacts()?;
        let documents_csv = match self.documents.take() {
            Some(d) => d.commit()?,
            None => return Err(ResultsError::malformed(&self.target, "already finished")),
        };
        let mut result_xlsx = None;
        if let Some(x) = self.xlsx.take() {
            for n in x.notes() {
                self.summary.note(n);
            }
            result_xlsx = Some(x.commit()?);
        }
        let result_csv = match self.csv.take() {
            Some(c) => c.commit()?,
            None => return Err(ResultsError::malformed(&self.target, "already finished")),
        };
        let summary = self.summary.summary().clone();
        let summary_json = self.results_dir.join(format!("{}.summary.json", self.stem));
        let text =
            serde_json::to_vec_pretty(&summary).map_err(|e| ResultsError::malformed(&summary_json, e.to_string()))?;
        write_atomic(&summary_json, &text)?;
        Ok(Finished {
            result_csv,
            result_xlsx,
            documents_csv,
            summary_json,
            artefacts,
            summary,
            kept,
        })
    }

    /// Keep what the set being replaced issued and this one does not give as accepted: its
    /// files linked into this set's artefacts folder aside, its records added (see `kept`).
    fn keep_issued(&mut self) -> Result<Kept, ResultsError> {
        let live = self.results_dir.join(&self.folder);
        let old = documents_path(&self.results_dir, &self.stem);
        let new = match self.documents.as_mut() {
            Some(d) => d.written_so_far()?.to_path_buf(),
            None => return Err(ResultsError::malformed(&self.target, "already finished")),
        };
        let mut kept = Kept::default();
        match kept::earlier(&old, &new, &live)? {
            Earlier::Nothing => return Ok(kept),
            Earlier::Records(records) => {
                let staging = self.artefacts_staging()?;
                let mut issued = IssuedNumbers::default();
                for (mut r, in_export) in records {
                    let found = kept::place(&mut r, &live, &staging, &self.folder)?;
                    kept.add(&r, in_export, found);
                    let Some(d) = self.documents.as_mut() else {
                        return Err(ResultsError::malformed(&self.target, "already finished"));
                    };
                    d.write(&r)?;
                    self.summary.add_document(&r);
                    if in_export {
                        issued.add(&r);
                    }
                }
                if !issued.is_empty() {
                    self.count_issued_once(&issued)?;
                }
            }
            Earlier::Unreadable(why) => {
                if !kept::has_files(&live) {
                    return Ok(kept);
                }
                let staging = self.artefacts_staging()?;
                kept.files = kept::keep_files(&live, &staging)?;
                kept.unreadable = Some(why);
            }
        }
        kept.notes = kept.say(&self.stem, &self.folder);
        for n in &kept.notes {
            self.summary.note(n.clone());
        }
        Ok(kept)
    }

    /// Count the documents of `issued` (kept as issued, and still in the export) once, as
    /// accepted: the documents' figures counted again from `X.documents.csv` as written,
    /// leaving out the records they supersede ([`IssuedNumbers::supersedes`]), as `report` does.
    fn count_issued_once(&mut self, issued: &IssuedNumbers) -> Result<(), ResultsError> {
        let path = match self.documents.as_mut() {
            Some(d) => d.written_so_far()?.to_path_buf(),
            None => return Err(ResultsError::malformed(&self.target, "already finished")),
        };
        let mut once = SummaryBuilder::new("", "", "");
        visit_documents_where(
            &path,
            |_| true,
            |r| {
                if !issued.supersedes(&r) {
                    once.add_document(&r);
                }
            },
        )?;
        self.summary.use_documents_of(once.summary());
        Ok(())
    }

    /// Replace `X/` with the staged folder (or remove it when nothing was accepted).
    fn swap_artefacts(&mut self) -> Result<Option<PathBuf>, ResultsError> {
        let live = self.results_dir.join(&self.folder);
        let old = match std::fs::symlink_metadata(&live) {
            Ok(m) if m.is_dir() => {
                if !artefacts::is_ours(&live).map_err(|e| ResultsError::io(&live, e))? {
                    return Err(ResultsError::InTheWay { path: live });
                }
                let old = aside(&live, "old");
                std::fs::rename(&live, &old).map_err(|e| ResultsError::io(&live, e))?;
                Some(old)
            }
            Ok(_) => return Err(ResultsError::InTheWay { path: live }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(ResultsError::io(&live, e)),
        };
        let mut placed = None;
        if let Some(staging) = self.staging.take() {
            // The lock file is no artefact; the lock itself is kept until the folder is in place.
            if let Some(lock) = &self.staging_lock {
                lock.unlink();
            }
            // The artefacts were written without syncing each file: sync them all before the
            // folder appears under its name.
            if let Err(e) = artefacts::sync_folder(&staging).and_then(|()| std::fs::rename(&staging, &live)) {
                if let Some(old) = &old {
                    let _ = std::fs::rename(old, &live);
                }
                let _ = std::fs::remove_dir_all(&staging);
                return Err(ResultsError::io(&live, e));
            }
            placed = Some(live.clone());
        }
        self.staging_lock = None;
        if let Some(old) = old {
            match std::fs::remove_dir_all(&old) {
                Ok(()) => {}
                // Already removed (by another machine's cleaning of a shared folder, stale.rs).
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(ResultsError::io(&old, e)),
            }
        }
        sync_parent(&live);
        Ok(placed)
    }
}

/// Where a [`ResultWriter`]'s artefacts go; see [`ResultWriter::artefact_sink`].
#[derive(Debug, Clone)]
pub struct ArtefactSink {
    dir: PathBuf,
    folder: String,
}

impl ArtefactSink {
    /// Write one accepted document's artefacts. Documents with different
    /// [`xml_file_name`](artefacts::xml_file_name)s may be stored from several threads at once;
    /// documents sharing a name must be stored one after the other (the second gets `_2`).
    pub fn store(
        &self,
        seller_vat: &str,
        doc_number: &str,
        issue_date: NaiveDate,
        issue_time: NaiveTime,
        content: &ArtefactContent,
    ) -> Result<ArtefactPaths, ResultsError> {
        let name = artefacts::xml_file_name(seller_vat, doc_number, issue_date, issue_time);
        artefacts::store(&self.dir, &self.folder, &name, content, Durability::Folder)
    }
}

impl Drop for ResultWriter {
    fn drop(&mut self) {
        if let Some(s) = self.staging.take() {
            let _ = std::fs::remove_dir_all(s);
        }
    }
}

/// The input's header with each column named like a result column (`result_status`: an
/// earlier result file given again) renamed `previous_result_status` (with more `previous_`
/// while the name is taken), so that this run's result columns are the only ones of their
/// names; and the new names.
fn previous_results(headers: &[String]) -> (std::borrow::Cow<'_, [String]>, Vec<String>) {
    if !headers.iter().any(|h| RESULT_COLUMNS.contains(&h.as_str())) {
        return (std::borrow::Cow::Borrowed(headers), Vec::new());
    }
    let mut named: Vec<String> = headers.to_vec();
    let mut renamed = Vec::new();
    for i in 0..named.len() {
        if !RESULT_COLUMNS.contains(&named[i].as_str()) {
            continue;
        }
        let mut name = format!("previous_{}", named[i]);
        while named.contains(&name) || RESULT_COLUMNS.contains(&name.as_str()) {
            name.insert_str(0, "previous_");
        }
        named[i] = name.clone();
        renamed.push(name);
    }
    (std::borrow::Cow::Owned(named), renamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_control_character_in_a_file_name_is_not_in_its_set_name() {
        assert_eq!(input_stem(Path::new("in/nightly\nexport.csv")), "nightly-export");
        assert_eq!(input_stem(Path::new("in/a\tb.xlsx")), "a-b");
        assert_eq!(input_stem(Path::new("in/a:b.csv")), "a:b");
        assert_eq!(
            result_path(Path::new("r"), Path::new("x\r\ny.csv")),
            Path::new("r/x--y.result.csv")
        );
    }

    #[test]
    fn an_earlier_result_files_columns_are_renamed_and_others_kept() {
        let plain = names(&["InvoiceNumber", "Total"]);
        let (h, renamed) = previous_results(&plain);
        assert_eq!(&h[..], &plain[..]);
        assert!(renamed.is_empty());
        let again = names(&[
            "InvoiceNumber",
            "result_status",
            "result_errors",
            "previous_result_status",
        ]);
        let (h, renamed) = previous_results(&again);
        assert_eq!(
            &h[..],
            names(&[
                "InvoiceNumber",
                "previous_previous_result_status",
                "previous_result_errors",
                "previous_result_status"
            ])
        );
        assert_eq!(renamed, ["previous_previous_result_status", "previous_result_errors"]);
    }
}

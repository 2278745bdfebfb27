//! `invoicedrop report RESULTS_DIR`: the summary over every result set in a results folder, and
//! the reconciliation of the documents' amounts (from `X.documents.csv`, computed from the input
//! rows) with the amounts in the accepted documents' signed XML, per issue date and overall.
//!
//! Every difference is listed by document ([`Difference`]): an amount, number, UUID or date that
//! differs from its XML, an accepted document whose XML is missing or unreadable, an XML file no
//! accepted document claims, and result files of one set that disagree with each other (an
//! interrupted write), and an accepted document whose export changed after it was issued
//! (`conflict`).
//!
//! The folder's totals ("all sets", per day, overall) count each document once, however many
//! result sets hold it ([`duplicates`](super::duplicates)); the documents left out are listed.
//! A conflict is a difference once, for the record that counts (that of the set written last):
//! so "all sets"' `conflicts`, the `conflict` differences and the exit code agree, and a
//! conflict an earlier set said that a later set no longer says (the export given back its
//! issued content) is settled: listed under `conflicts_settled`, not a difference.

use super::documents::DocumentRecord;
use super::duplicates::{self, Duplicates, SetRecords};
use super::summary::{Summary, SummaryBuilder};
use super::xml_totals::read_xml_totals;
use super::{RESULT_COLUMNS, ResultsError, RowStatus};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

mod compare;
mod sets;
mod totals;
mod twice;
use compare::{Ctx, is_conflict};
use sets::{SetFiles, read_set, xml_files};
pub use totals::{Reconciled, VatSar, month_of};

/// One result set: the files of one input.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    /// The input's stem (`X`).
    pub name: String,
    /// Its summary, rebuilt from `X.documents.csv` and `X.result.csv`.
    pub summary: Summary,
}

/// Something that does not reconcile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The result set (`X`).
    pub set: String,
    /// The document number (empty for a whole-file difference).
    pub document: String,
    /// Its issue date, when known.
    pub issue_date: String,
    /// `amount`, `number`, `uuid`, `issue_date`, `currency`, `kind`, `xml_missing`,
    /// `xml_unreadable`, `xml_orphan`, `inconsistent`, `conflict`, `twice`.
    pub kind: String,
    /// The field compared (`net`, `vat`, `vat_sar`, `gross`, `payable`), for amounts.
    pub field: String,
    /// The value in the result files.
    pub input: String,
    /// The value in the XML.
    pub xml: String,
    /// What it means, for a person.
    pub message: String,
}

/// A conflict (`INV-LEDGER-CONFLICT`) an earlier result set said of an accepted document that
/// the set written last holding it no longer says: the export was given back its issued content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettledConflict {
    /// The set that said the conflict.
    pub set: String,
    /// The document number.
    pub document: String,
    /// The issued document's UUID.
    pub uuid: String,
    /// Its issue date.
    pub issue_date: String,
    /// The set that counts for it, which reports it accepted without a conflict.
    pub settled_in: String,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The folder read.
    pub results_dir: String,
    /// Each result set.
    pub sets: Vec<SetReport>,
    /// All sets together, each document once.
    pub summary: Summary,
    /// Documents held by more than one record (in several sets, or twice in one), which
    /// `summary`, `by_day` and `overall` count once.
    pub duplicates: Duplicates,
    /// Per issue date, then currency (each document once).
    pub by_day: BTreeMap<String, BTreeMap<String, Reconciled>>,
    /// Per currency (each document once).
    pub overall: BTreeMap<String, Reconciled>,
    /// Per issue date, the VAT in SAR of every currency together, credit notes subtracted.
    pub vat_sar_by_day: BTreeMap<String, VatSar>,
    /// Per month of issue (`YYYY-MM`), then currency: the days of `by_day` added up.
    pub by_month: BTreeMap<String, BTreeMap<String, Reconciled>>,
    /// Per month of issue, the VAT in SAR of every currency together, credit notes subtracted:
    /// a monthly VAT return's figure.
    pub vat_sar_by_month: BTreeMap<String, VatSar>,
    /// The VAT in SAR of every currency together, credit notes subtracted: the VAT return's
    /// figure.
    pub vat_sar: VatSar,
    /// Every difference, by set and document.
    pub differences: Vec<Difference>,
    /// Conflicts of earlier sets that the set counting for the document no longer says (not
    /// differences).
    pub conflicts_settled: Vec<SettledConflict>,
    /// True when there is no difference.
    pub reconciled: bool,
}

/// The result sets of a folder: every `X` with an `X.result.csv`, `X.documents.csv` or
/// `X.summary.json` (hidden files are passed over).
pub fn result_sets(dir: &Path) -> Result<Vec<String>, ResultsError> {
    let mut sets = BTreeSet::new();
    for entry in std::fs::read_dir(dir).map_err(|e| ResultsError::io(dir, e))? {
        let entry = entry.map_err(|e| ResultsError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        for suffix in [".result.csv", ".documents.csv", ".summary.json"] {
            if let Some(stem) = name.strip_suffix(suffix) {
                sets.insert(stem.to_string());
            }
        }
    }
    Ok(sets.into_iter().collect())
}

/// The conflicts of records left out (not counted) whose document's counted record, in
/// another set, has none: settled by the set written last.
fn settled_conflicts(files: &[SetFiles], counted: &[Vec<bool>]) -> Vec<SettledConflict> {
    // An accepted document's key as `duplicates` knows it: its UUID, else kind and number.
    let key = |r: &DocumentRecord| {
        if r.uuid.is_empty() {
            (String::new(), r.kind.clone(), r.document.clone())
        } else {
            (r.uuid.clone(), String::new(), String::new())
        }
    };
    // Every accepted record: (set, record, counts).
    let accepted = || {
        files.iter().zip(counted).enumerate().flat_map(|(si, (f, c))| {
            f.records
                .as_deref()
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter(|(_, r)| r.status == RowStatus::Accepted)
                .map(move |(ri, r)| (si, r, c.get(ri).copied().unwrap_or(true)))
        })
    };
    let mut counting = HashMap::new();
    for (si, r, _) in accepted().filter(|(_, _, counts)| *counts) {
        counting.entry(key(r)).or_insert((si, is_conflict(r)));
    }
    let mut settled = Vec::new();
    for (si, r, _) in accepted().filter(|(_, r, counts)| !counts && is_conflict(r)) {
        if let Some(&(ci, false)) = counting.get(&key(r))
            && ci != si
        {
            settled.push(SettledConflict {
                set: files[si].name.clone(),
                document: r.document.clone(),
                uuid: r.uuid.clone(),
                issue_date: r.issue_date.clone(),
                settled_in: files[ci].name.clone(),
            });
        }
    }
    settled
}

/// Count the rows of `X.result.csv` by status; check that every accepted row names the XML
/// file of a document of its number in `X.documents.csv` (`accepted_files`, by number: two
/// documents of two kinds may share one, and a row names the number only).
fn read_result_rows(
    path: &Path,
    accepted_files: &HashMap<String, Vec<String>>,
    ctx: &mut Ctx<'_>,
    set: &str,
) -> Result<BTreeMap<RowStatus, u64>, ResultsError> {
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| super::csv_file::csv_error(path, e))?;
    let headers = rdr.headers().map_err(|e| super::csv_file::csv_error(path, e))?.clone();
    let n = headers.len();
    let tail: Vec<&str> = headers.iter().skip(n.saturating_sub(RESULT_COLUMNS.len())).collect();
    if tail != RESULT_COLUMNS {
        return Err(ResultsError::malformed(
            path,
            "the last columns are not the result columns",
        ));
    }
    let base = n - RESULT_COLUMNS.len();
    let mut counts = BTreeMap::new();
    let mut mismatched = BTreeSet::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| super::csv_file::csv_error(path, e))?;
        let cell = |c: usize| rec.get(base + c).unwrap_or("");
        let status = RowStatus::parse(cell(0))
            .ok_or_else(|| ResultsError::malformed(path, format!("line {}: unknown status {:?}", i + 2, cell(0))))?;
        *counts.entry(status).or_default() += 1;
        if status == RowStatus::Accepted {
            let doc = cell(1);
            let named = accepted_files.get(doc).is_some_and(|f| f.iter().any(|f| f == cell(4)));
            if !named && mismatched.insert(doc.to_string()) {
                ctx.diff(
                    set,
                    doc,
                    "",
                    "inconsistent",
                    format!(
                        "X.result.csv line {} says accepted with XML {:?}, X.documents.csv does not agree",
                        i + 2,
                        cell(4)
                    ),
                );
            }
        }
    }
    Ok(counts)
}

/// Reconcile one set; `counted[i]`: the set's `i`-th document counts in the folder's totals.
fn reconcile_set(ctx: &mut Ctx<'_>, files: &SetFiles, counted: &[bool]) -> Result<Summary, ResultsError> {
    let dir = ctx.dir;
    let set = files.name.as_str();
    let result_path = dir.join(format!("{set}.result.csv"));
    let mut builder = SummaryBuilder::new(set, "", "");
    if files.records.is_none() {
        ctx.diff(
            set,
            "",
            "",
            "inconsistent",
            format!("{set}.documents.csv is missing: nothing to reconcile with"),
        );
    }
    let records = files.records.as_deref().unwrap_or_default();
    let mut claimed = BTreeSet::new();
    let mut accepted_files: HashMap<String, Vec<String>> = HashMap::new();
    // A document kept as issued counts once in its set's figures, as `check` and `run` count it.
    let in_figures = super::kept::counted_in_set(records);
    for (i, r) in records.iter().enumerate() {
        if in_figures[i] {
            builder.add_document(r);
        }
        if r.status == RowStatus::Accepted {
            accepted_files
                .entry(r.document.clone())
                .or_default()
                .push(r.xml_file.clone());
            if let Some(f) = ctx.reconcile(set, r, counted.get(i).copied().unwrap_or(true)) {
                claimed.insert(f);
            }
        }
    }
    let written = files.written.as_ref();
    if written.is_none() {
        ctx.diff(set, "", "", "inconsistent", format!("{set}.summary.json is missing"));
    }
    let rows = if result_path.is_file() {
        Some(read_result_rows(&result_path, &accepted_files, ctx, set)?)
    } else {
        ctx.diff(set, "", "", "inconsistent", format!("{set}.result.csv is missing"));
        None
    };
    let mut summary = builder.finish();
    if let Some(rows) = rows {
        summary.rows = rows.values().sum();
        summary.rows_by_status = rows;
    }
    if let Some(w) = written {
        summary.files = w.files.clone();
        summary.input_paths = w.input_paths.clone();
        summary.mapping = w.mapping.clone();
        summary.time = w.time.clone();
        // How the file was read the usual way (its encoding and delimiter detected) is left out.
        summary.notes = w
            .notes
            .iter()
            .filter(|n| !crate::ingest::routine_note(n))
            .cloned()
            .collect();
        summary.warnings.iter_mut().for_each(|(code, g)| {
            if let Some(wg) = w.warnings.get(code) {
                g.stray_rows = wg.stray_rows;
            }
        });
        for (code, wg) in &w.rejections {
            if wg.stray_rows > 0 {
                summary.rejections.entry(code.clone()).or_default().stray_rows = wg.stray_rows;
            }
        }
        let counts =
            |s: &Summary| -> Vec<(RowStatus, u64)> { s.by_status.iter().map(|(k, t)| (*k, t.documents)).collect() };
        // A summary written before kept documents counted once counted every record.
        let every_record = || {
            let mut n: BTreeMap<RowStatus, u64> = BTreeMap::new();
            records.iter().for_each(|r| *n.entry(r.status).or_default() += 1);
            n.into_iter().collect::<Vec<_>>()
        };
        let same_documents = counts(w) == counts(&summary) || counts(w) == every_record();
        if !same_documents || (result_path.is_file() && w.rows_by_status != summary.rows_by_status) {
            ctx.diff(
                set,
                "",
                "",
                "inconsistent",
                format!("{set}.summary.json does not match {set}.documents.csv / {set}.result.csv (an interrupted write? run the file again)"),
            );
        }
    }
    let folder = super::artefacts::folder_name(set);
    for f in xml_files(dir, &folder) {
        if claimed.contains(&f) {
            continue;
        }
        let parsed = std::fs::read(dir.join(&f)).ok().and_then(|b| read_xml_totals(&b).ok());
        let (doc, date) = parsed
            .as_ref()
            .map(|x| {
                (
                    x.number.clone().unwrap_or_default(),
                    x.issue_date.clone().unwrap_or_default(),
                )
            })
            .unwrap_or_default();
        if let Some(x) = parsed {
            ctx.orphans.push(x);
        }
        ctx.diff(
            set,
            &doc,
            &date,
            "xml_orphan",
            format!("{f} is a signed XML no accepted document of {set}.documents.csv claims"),
        );
    }
    Ok(summary)
}

/// Build the report of a results folder. An error means the folder cannot be read, holds no
/// result files, or a result file does not read at all; differences are not errors.
pub fn build(dir: &Path) -> Result<Report, ResultsError> {
    let sets = result_sets(dir)?;
    if sets.is_empty() {
        return Err(ResultsError::malformed(
            dir,
            "no result files (X.result.csv, X.documents.csv, X.summary.json) here",
        ));
    }
    let mut ctx = Ctx {
        dir,
        differences: Vec::new(),
        by_day: BTreeMap::new(),
        vat_sar_by_day: BTreeMap::new(),
        xml_uuids: HashSet::new(),
        orphans: Vec::new(),
    };
    let files = sets
        .into_iter()
        .map(|set| read_set(dir, set))
        .collect::<Result<Vec<_>, _>>()?;
    let selection = duplicates::select(
        &files
            .iter()
            .map(|f| SetRecords {
                name: &f.name,
                time: f.written.as_ref().map_or("", |w| w.time.as_str()),
                records: f.records.as_deref().unwrap_or_default(),
            })
            .collect::<Vec<_>>(),
    );
    let conflicts_settled = settled_conflicts(&files, &selection.counted);
    twice::issued_twice(&mut ctx, &files, &selection.counted);
    let mut reports = Vec::new();
    let mut all = Summary::default();
    let mut once = SummaryBuilder::new("", "", "");
    for (f, counted) in files.iter().zip(&selection.counted) {
        let summary = reconcile_set(&mut ctx, f, counted)?;
        all.merge(&summary);
        for (r, _) in f.records.iter().flatten().zip(counted).filter(|(_, c)| **c) {
            once.add_document(r);
        }
        reports.push(SetReport {
            name: f.name.clone(),
            summary,
        });
    }
    all.use_documents_of(&once.finish());
    for x in std::mem::take(&mut ctx.orphans) {
        ctx.add_xml(&x);
    }
    let settled = totals::settle(&mut ctx.by_day, &mut ctx.vat_sar_by_day);
    let reconciled = ctx.differences.is_empty();
    Ok(Report {
        results_dir: dir.display().to_string(),
        sets: reports,
        summary: all,
        duplicates: selection.duplicates,
        by_day: ctx.by_day,
        overall: settled.overall,
        vat_sar_by_day: ctx.vat_sar_by_day,
        vat_sar: settled.vat_sar,
        by_month: settled.by_month,
        vat_sar_by_month: settled.vat_sar_by_month,
        differences: ctx.differences,
        conflicts_settled,
        reconciled,
    })
}

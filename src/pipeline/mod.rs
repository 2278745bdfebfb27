//! One export from rows to result file, without the network (`invoicedrop check`): rows are
//! grouped into documents as they stream in, closed documents are built, computed and validated in
//! parallel batches (one document's work on one thread), and every input row is written to the
//! result file once, in input order, with its document's status.
//!
//! Memory holds the rows of the open document and of one batch of closed documents, never the
//! file.

pub mod open;

pub use open::{FileError, Prepared, detect, load_mapping, lookup_file_names, prepare, read_options};

use crate::compute::compute_document;
use crate::ingest::{Cell, Row, SourceRef};
use crate::mapping::{Bound, Built, DocDraft, DraftRow, ErpTotals, Issue, RowNote, Unit, build};
use crate::model::{Document, Party};
use crate::results::{
    ArtefactContent, ArtefactPaths, DocumentRecord, ResultIssue, ResultRow, ResultWriter, RowStatus, Summary,
};
use crate::validate::Finding;
use chrono::{DateTime, SecondsFormat, Utc};
use rayon::prelude::*;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Documents per parallel batch.
pub const BATCH_DOCUMENTS: usize = 1000;

/// A record the reader could not read.
#[derive(Debug, Clone)]
pub struct RowError {
    /// Where, when known.
    pub source: Option<SourceRef>,
    /// What went wrong.
    pub message: String,
}

/// An opened export: its header rows and its rows.
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// Header rows (one, or two for SAP DTW).
    pub header_rows: Vec<Vec<String>>,
    /// The rows, streamed.
    pub rows: Box<dyn Iterator<Item = Result<Row, RowError>> + Send>,
}

/// Settings of a check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The clock of the checks (issue date not in the future, 24-hour window).
    pub now: DateTime<Utc>,
    /// The seller profile.
    pub seller: Party,
    /// Documents per parallel batch.
    pub batch: usize,
    /// Keep at most this many document briefs in the summary.
    pub max_briefs: usize,
}

impl CheckOptions {
    /// Defaults for a seller at a time.
    pub fn new(now: DateTime<Utc>, seller: Party) -> Self {
        CheckOptions {
            now,
            seller,
            batch: BATCH_DOCUMENTS,
            max_briefs: 1000,
        }
    }
}

/// Documents by status.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    /// Passed every check (`check`).
    pub valid: u64,
    /// Has errors.
    pub invalid: u64,
    /// Not to be issued.
    pub skipped: u64,
    /// Accepted by the authority (`run`).
    pub accepted: u64,
    /// Rejected by the authority (`run`).
    pub rejected: u64,
    /// No final answer (`run`): the next run repeats them with the same idempotency key.
    pub failed: u64,
}

impl Counts {
    /// Count one document of a status.
    pub fn add(&mut self, status: RowStatus) {
        match status {
            RowStatus::Valid => self.valid += 1,
            RowStatus::Invalid => self.invalid += 1,
            RowStatus::Skipped => self.skipped += 1,
            RowStatus::Accepted => self.accepted += 1,
            RowStatus::Rejected => self.rejected += 1,
            RowStatus::Failed => self.failed += 1,
        }
    }

    /// Add another count to this one.
    pub fn merge(&mut self, other: &Counts) {
        self.valid += other.valid;
        self.invalid += other.invalid;
        self.skipped += other.skipped;
        self.accepted += other.accepted;
        self.rejected += other.rejected;
        self.failed += other.failed;
    }

    /// All documents.
    pub fn total(&self) -> u64 {
        self.valid + self.invalid + self.skipped + self.accepted + self.rejected + self.failed
    }

    /// Documents that did not go through: invalid, rejected or failed.
    pub fn bad(&self) -> u64 {
        self.invalid + self.rejected + self.failed
    }
}

/// What became of a valid document after the checks: for `run`, the authority's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// `accepted`, `rejected` or `failed` (or `valid` when nothing was sent).
    pub status: Option<RowStatus>,
    /// The UUID the authority gave.
    pub uuid: String,
    /// The QR payload.
    pub qr: String,
    /// The signed XML file, relative to the results folder.
    pub xml_file: String,
    /// The QR image, relative to the results folder.
    pub qr_file: String,
    /// Errors, each `CODE column "value": message` or `CODE: message`.
    pub errors: Vec<String>,
    /// Warnings, same form.
    pub warnings: Vec<String>,
    /// Rule codes of the errors and warnings, for the summary.
    pub codes: Vec<String>,
    /// Requests sent for the document, over all runs.
    pub attempts: u32,
    /// The authority's answer of an accepted document: its signed XML and QR are written beside
    /// the result file.
    pub response: Option<crate::model::SubmissionResponse>,
}

/// The rule code a rendered finding starts with (`BR-KSA-98 column ...`, `BR-KSA-98: ...`).
fn finding_code(rendered: &str) -> &str {
    rendered.split([' ', ':']).next().unwrap_or(rendered)
}

/// Where valid documents go after the checks. `check` has none; `run` sends them.
pub trait Dispatch {
    /// Handle one batch of valid documents, in input order; one verdict per document, in the same
    /// order. Must not fail: a document that could not be handled gets a `failed` verdict.
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict>;
}

/// One document, for the summary.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DocBrief {
    /// Its number.
    pub number: String,
    /// invoice, credit_note, debit_note.
    pub kind: String,
    /// standard or simplified.
    pub invoice_type: String,
    /// valid, invalid, skipped.
    pub status: RowStatus,
    /// The payable amount, when computed.
    pub payable: Option<Decimal>,
    /// Lines.
    pub lines: usize,
    /// First source line.
    pub first_line: u64,
}

/// What one file gave.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileSummary {
    /// The export.
    pub file: String,
    /// The mapping used.
    pub mapping: String,
    /// The result file written.
    pub result_file: Option<String>,
    /// Input rows (each appears once in the result file).
    pub rows: u64,
    /// Rows written with status `invalid` (in documents or on their own).
    pub rows_invalid: u64,
    /// Documents by status.
    pub documents: Counts,
    /// Documents by `kind/type` (`invoice/standard`).
    pub by_kind: BTreeMap<String, u64>,
    /// Rule codes, by the number of documents (or stray rows) they were found in.
    pub codes: BTreeMap<String, u64>,
    /// Things the user should know.
    pub notes: Vec<String>,
    /// A whole-file error: nothing was checked.
    pub error: Option<String>,
    /// The first problems, as `file line N: CODE column "value": message`.
    pub problems: Vec<String>,
    /// The first documents.
    pub document_list: Vec<DocBrief>,
    /// The spreadsheet result written (spreadsheet input).
    pub result_xlsx: Option<String>,
    /// The summary file written.
    pub summary_file: Option<String>,
    /// Counts and amounts by status, kind, date and rule code (what the summary file holds).
    pub summary: Option<Summary>,
}

struct Outcome {
    rows: Vec<(Vec<String>, ResultRow, Option<u64>)>,
    brief: Option<DocBrief>,
    codes: Vec<String>,
    record: Option<DocumentRecord>,
    /// The document, when it is valid (and so may be dispatched).
    document: Option<Document>,
    /// What names its artefacts: seller VAT, number, issue date and time.
    artefact_key: Option<(String, String, chrono::NaiveDate, chrono::NaiveTime)>,
}

impl Outcome {
    /// Apply a dispatch verdict to the document's rows, record and brief.
    fn apply(&mut self, v: Verdict) {
        let Some(status) = v.status else { return };
        for (_, rr, _) in &mut self.rows {
            if rr.status != RowStatus::Valid {
                continue;
            }
            rr.status = status;
            rr.uuid.clone_from(&v.uuid);
            rr.qr.clone_from(&v.qr);
            rr.xml_file.clone_from(&v.xml_file);
            rr.qr_file.clone_from(&v.qr_file);
            rr.attempts = v.attempts;
            // The authority's answer repeats what the local check already said (BR-KSA-98...):
            // keep one finding per rule code.
            for (list, more) in [(&mut rr.errors, &v.errors), (&mut rr.warnings, &v.warnings)] {
                for m in more {
                    let code = finding_code(m);
                    if !list.iter().any(|l| finding_code(l) == code) {
                        list.push(m.clone());
                    }
                }
            }
        }
        if let Some(r) = &mut self.record {
            r.status = status;
            r.uuid.clone_from(&v.uuid);
            r.xml_file.clone_from(&v.xml_file);
            r.qr_file.clone_from(&v.qr_file);
            for e in &v.errors {
                let code = finding_code(e).to_string();
                if !r.errors.contains(&code) {
                    r.errors.push(code);
                }
            }
            for w in &v.warnings {
                let code = finding_code(w).to_string();
                if !r.warnings.contains(&code) {
                    r.warnings.push(code);
                }
            }
        }
        if let Some(b) = &mut self.brief {
            b.status = status;
        }
        self.codes.extend(v.codes);
        self.codes.sort();
        self.codes.dedup();
    }
}

/// The row's cells as text for the result file, moving the strings out of the row (the row is
/// done with once its document is evaluated).
fn cells_of(r: DraftRow) -> Vec<String> {
    r.row
        .map(|row| {
            row.cells
                .into_iter()
                .map(|c| match c {
                    Cell::Text(t) => t,
                    other => other.to_text(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Where a document path has no source column: the seller profile or a computed total.
fn fallback_label(path: &str) -> String {
    if path.starts_with("supplier_info") {
        "(seller profile)".into()
    } else {
        format!("[{path}]")
    }
}

/// Turn a rule finding into an issue on the row and column that fed the field.
fn locate(f: &Finding, built: &Built) -> (Option<usize>, Issue) {
    let (row, label) = match built.provenance.locate(&f.path) {
        Some((row, label)) => (Some(row), label.map(str::to_string)),
        None => (None, None),
    };
    let issue = Issue {
        code: f.code.clone(),
        severity: f.severity,
        column: Some(label.unwrap_or_else(|| fallback_label(&f.path))),
        value: f.value.clone(),
        message: f.message.clone(),
    };
    (row, issue)
}

/// The authority's rules and ours, for one computed document.
fn rules(doc: &Document, erp: &ErpTotals, now: DateTime<Utc>) -> Vec<Finding> {
    let mut ctx = crate::validate::Context::new(now);
    if !erp.is_empty() {
        ctx.erp = Some(crate::validate::ErpFigures {
            line_net: erp.line_net.clone(),
            line_vat: erp.line_vat.clone(),
            line_gross: erp.line_gross.clone(),
            tax_exclusive: erp.tax_exclusive,
            tax_total: erp.tax_total,
            tax_inclusive: erp.tax_inclusive,
        });
    }
    crate::validate::validate(doc, &ctx)
}

/// `invoice`, `credit_note`, `debit_note`.
pub fn kind_name(kind: crate::model::DocumentKind) -> &'static str {
    match kind {
        crate::model::DocumentKind::Invoice => "invoice",
        crate::model::DocumentKind::CreditNote => "credit_note",
        crate::model::DocumentKind::DebitNote => "debit_note",
    }
}

fn evaluate_document(draft: DocDraft, bound: &Bound, opts: &CheckOptions, time: &str) -> Outcome {
    let first_line = draft.rows.first().and_then(|r| r.source.as_ref()).map_or(0, |s| s.line);
    if let Some((reason, column, value)) = &draft.skip {
        let issue = ResultIssue::from(&Issue::warning(
            "INV-SKIP",
            Some(column.clone()),
            Some(value.clone()),
            reason.clone(),
        ));
        let text = issue.render();
        let row_count = draft.rows.len() as u64;
        let rows = draft
            .rows
            .into_iter()
            .map(|r| {
                let mut rr = ResultRow::new(RowStatus::Skipped, time);
                rr.document = draft.key.clone();
                rr.push_rendered(issue.clone(), text.clone());
                let line = r.source.as_ref().map(|s| s.line);
                (cells_of(r), rr, line)
            })
            .collect();
        let mut record = DocumentRecord::new(&draft.key, RowStatus::Skipped);
        record.first_line = Some(first_line);
        record.rows = row_count;
        record.add_codes(&[issue]);
        return Outcome {
            rows,
            record: Some(record),
            brief: Some(DocBrief {
                number: draft.key.clone(),
                kind: String::new(),
                invoice_type: String::new(),
                status: RowStatus::Skipped,
                payable: None,
                lines: 0,
                first_line,
            }),
            codes: vec!["INV-SKIP".into()],
            document: None,
            artefact_key: None,
        };
    }
    let mut built = build(&draft, bound, &opts.seller);
    let mut issues = std::mem::take(&mut built.issues);
    let mut payable = None;
    if let Some(doc) = built.document.as_mut() {
        match compute_document(doc) {
            Ok(()) => {
                payable = Some(doc.legal_monitory_total.payable_amount);
                for f in rules(doc, &built.erp, opts.now) {
                    issues.push(locate(&f, &built));
                }
            }
            Err(e) => {
                let f = Finding::error("INV-COMPUTE", compute_path(&e), None, e.to_string());
                issues.push(locate(&f, &built));
            }
        }
    }
    let invalid = built.document.is_none() || issues.iter().any(|(_, i)| i.is_error());
    let status = if invalid { RowStatus::Invalid } else { RowStatus::Valid };
    let number = built.document.as_ref().map_or(draft.key.clone(), |d| d.number.clone());
    let mut codes: Vec<String> = issues.iter().map(|(_, i)| i.code.clone()).collect();
    codes.sort();
    codes.dedup();
    // Each issue rendered once, and the lines of the document's errors, for every row.
    let found: Vec<ResultIssue> = issues.iter().map(|(_, i)| ResultIssue::from(i)).collect();
    let rendered: Vec<String> = found.iter().map(ResultIssue::render).collect();
    let other_rows = (status == RowStatus::Invalid).then(|| {
        let lines: Vec<String> = issues
            .iter()
            .filter(|(_, i)| i.is_error())
            .filter_map(|(at, _)| at.and_then(|a| draft.rows.get(a)).and_then(|r| r.source.as_ref()))
            .map(|s| s.line.to_string())
            .collect();
        let issue = ResultIssue::error(
            "INV-DOCUMENT",
            format!("the document has errors on other rows (line {})", lines.join(", ")),
        );
        let text = issue.render();
        (issue, text)
    });
    let row_count = draft.rows.len() as u64;
    let rows = draft
        .rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let row_status = if r.note == Some(RowNote::HeaderRepeat) {
                RowStatus::Skipped
            } else {
                status
            };
            let mut rr = ResultRow::new(row_status, time);
            rr.document = number.clone();
            for (((at, _), issue), text) in issues.iter().zip(&found).zip(&rendered) {
                let mine = *at == Some(i);
                let doc_level = at.is_none() && r.note != Some(RowNote::HeaderRepeat);
                if mine || doc_level {
                    rr.push_rendered(issue.clone(), text.clone());
                }
            }
            if row_status == RowStatus::Invalid
                && rr.errors.is_empty()
                && let Some((issue, text)) = &other_rows
            {
                rr.push_rendered(issue.clone(), text.clone());
            }
            let line = r.source.as_ref().map(|s| s.line);
            (cells_of(r), rr, line)
        })
        .collect();
    let brief = DocBrief {
        number,
        kind: built
            .document
            .as_ref()
            .map(|d| kind_name(d.kind).to_string())
            .unwrap_or_default(),
        invoice_type: built
            .document
            .as_ref()
            .map(|d| d.invoice_type.to_string())
            .unwrap_or_default(),
        status,
        payable,
        lines: built.document.as_ref().map_or(0, |d| d.invoice_lines.len()),
        first_line,
    };
    let mut record = match &built.document {
        Some(d) if payable.is_some() => DocumentRecord::from_document(d, status),
        Some(d) => DocumentRecord::from_document(d, status).without_amounts(),
        None => DocumentRecord::new(&brief.number, status),
    };
    record.first_line = Some(first_line);
    record.rows = row_count;
    record.add_codes(&found);
    let document = if invalid { None } else { built.document };
    let artefact_key = document.as_ref().map(|d| {
        (
            d.supplier_info.vat_number.clone().unwrap_or_default(),
            d.number.clone(),
            d.issue_date,
            d.issue_time,
        )
    });
    Outcome {
        rows,
        brief: Some(brief),
        codes,
        record: Some(record),
        document,
        artefact_key,
    }
}

fn compute_path(e: &crate::compute::ComputeError) -> String {
    match e {
        crate::compute::ComputeError::Overflow { path } | crate::compute::ComputeError::BadBaseQuantity { path } => {
            path.clone()
        }
    }
}

fn evaluate(unit: Unit, bound: &Bound, opts: &CheckOptions, time: &str) -> Outcome {
    match unit {
        Unit::Document(d) => evaluate_document(d, bound, opts, time),
        Unit::Stray(r) => {
            let status = match r.note {
                Some(RowNote::HeaderRepeat) => RowStatus::Skipped,
                _ => RowStatus::Invalid,
            };
            let mut rr = ResultRow::new(status, time);
            for i in &r.issues {
                rr.push_issue(ResultIssue::from(i));
            }
            let codes = r.issues.iter().map(|i| i.code.clone()).collect();
            let line = r.source.as_ref().map(|s| s.line);
            Outcome {
                rows: vec![(cells_of(r), rr, line)],
                brief: None,
                codes,
                record: None,
                document: None,
                artefact_key: None,
            }
        }
    }
}

/// A batch whose valid documents were dispatched: the outcomes (their documents taken), which
/// outcome each verdict belongs to, and the verdicts.
struct Dispatched {
    outcomes: Vec<Outcome>,
    at: Vec<usize>,
    verdicts: Vec<Verdict>,
}

/// Hand a batch's valid documents to `dispatch`; the verdicts are applied by [`finish_batch`].
fn dispatch_batch(mut outcomes: Vec<Outcome>, d: &mut (dyn Dispatch + '_)) -> Dispatched {
    let (at, docs): (Vec<usize>, Vec<Document>) = outcomes
        .iter_mut()
        .enumerate()
        .filter_map(|(i, o)| o.document.take().map(|d| (i, d)))
        .unzip();
    if docs.is_empty() {
        return Dispatched {
            outcomes,
            at,
            verdicts: Vec::new(),
        };
    }
    let n = docs.len();
    let started = std::time::Instant::now();
    let verdicts = d.dispatch(docs);
    tracing::debug!(
        documents = n,
        dispatch_ms = started.elapsed().as_millis() as u64,
        "batch dispatched"
    );
    Dispatched { outcomes, at, verdicts }
}

/// Apply a dispatched batch's verdicts; accepted documents get their signed XML and QR image
/// written beside the results.
fn finish_batch(batch: Dispatched, writer: &mut ResultWriter) -> Vec<Outcome> {
    let Dispatched {
        mut outcomes,
        at,
        mut verdicts,
    } = batch;
    if at.is_empty() {
        return outcomes;
    }
    let started = std::time::Instant::now();
    // The artefacts of the accepted documents (signed XML, QR image) are made and written in
    // parallel, except that documents whose files would have the same name are written one
    // after the other (the later ones get `_2`, `_3`...).
    let stored = store_artefacts(&at, &verdicts, &outcomes, writer);
    for ((i, v), stored) in at.into_iter().zip(verdicts.iter_mut()).zip(stored) {
        let mut v = std::mem::take(v);
        v.response = None;
        match stored {
            Some(Ok(paths)) => {
                v.xml_file = paths.xml_file;
                v.qr_file = paths.qr_file;
            }
            Some(Err(e)) => v.warnings.push(format!(
                "INV-ARTEFACT: accepted, but its signed XML or QR image could not be written: {e}"
            )),
            None => {}
        }
        outcomes[i].apply(v);
    }
    tracing::debug!(
        artefacts_ms = started.elapsed().as_millis() as u64,
        "batch artefacts written"
    );
    outcomes
}

/// The artefacts of a batch's accepted documents (`at[k]` is the outcome of `verdicts[k]`):
/// `None` for a document without an answer to keep.
fn store_artefacts(
    at: &[usize],
    verdicts: &[Verdict],
    outcomes: &[Outcome],
    writer: &mut ResultWriter,
) -> Vec<Option<Result<ArtefactPaths, String>>> {
    type Key<'a> = &'a (String, String, chrono::NaiveDate, chrono::NaiveTime);
    let wanted: Vec<Option<(Key<'_>, &crate::model::SubmissionResponse)>> = at
        .iter()
        .zip(verdicts)
        .map(|(&i, v)| Some((outcomes[i].artefact_key.as_ref()?, v.response.as_ref()?)))
        .collect();
    if wanted.iter().all(Option::is_none) {
        return vec![None; at.len()];
    }
    let sink = match writer.artefact_sink() {
        Ok(s) => s,
        Err(e) => return wanted.iter().map(|w| w.map(|_| Err(e.to_string()))).collect(),
    };
    let store = |w: &Option<(Key<'_>, &crate::model::SubmissionResponse)>| {
        w.map(|((vat, number, date, time), response)| {
            ArtefactContent::make(number, response)
                .and_then(|c| sink.store(vat, number, *date, *time, &c))
                .map_err(|e| e.to_string())
        })
    };
    // A name taken twice in the batch: those documents are written in order, after the rest.
    let mut seen = std::collections::HashMap::new();
    for (k, w) in wanted.iter().enumerate() {
        if let Some(((vat, number, date, time), _)) = w {
            seen.entry(crate::results::artefacts::xml_file_name(vat, number, *date, *time))
                .or_insert_with(Vec::new)
                .push(k);
        }
    }
    let shared: std::collections::HashSet<usize> = seen.into_values().filter(|v| v.len() > 1).flatten().collect();
    let mut out: Vec<Option<Result<ArtefactPaths, String>>> = wanted
        .par_iter()
        .enumerate()
        .map(|(k, w)| if shared.contains(&k) { None } else { store(w) })
        .collect();
    let mut later: Vec<usize> = shared.into_iter().collect();
    later.sort_unstable();
    for k in later {
        out[k] = store(&wanted[k]);
    }
    out
}

/// Write one batch's outcomes, in input order, and count them into the summary.
fn record(
    outcomes: Vec<Outcome>,
    file: &str,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
) -> std::io::Result<()> {
    for o in outcomes {
        for (cells, rr, line) in &o.rows {
            writer.write_row(cells, rr, *line)?;
            summary.rows += 1;
            if rr.status == RowStatus::Invalid {
                summary.rows_invalid += 1;
            }
            if summary.problems.len() < 20
                && matches!(rr.status, RowStatus::Invalid | RowStatus::Rejected | RowStatus::Failed)
            {
                for e in rr.errors.iter().filter(|e| !e.starts_with("INV-DOCUMENT")) {
                    if summary.problems.len() < 20 {
                        summary.problems.push(format!("{file} line {}: {e}", line.unwrap_or(0)));
                    }
                }
            }
        }
        for c in o.codes {
            *summary.codes.entry(c).or_default() += 1;
        }
        if let Some(r) = &o.record {
            writer.document(r)?;
        }
        if let Some(b) = o.brief {
            summary.documents.add(b.status);
            if b.status != RowStatus::Skipped {
                *summary
                    .by_kind
                    .entry(format!("{}/{}", b.kind, b.invoice_type))
                    .or_default() += 1;
            }
            if summary.document_list.len() < opts.max_briefs {
                summary.document_list.push(b);
            }
        }
    }
    Ok(())
}

/// Batches in flight between the stages; with one batch being read and one being written, this
/// bounds memory to a few batches of documents whatever the file's size.
const BATCHES_IN_FLIGHT: usize = 2;

/// Check one export: group, build, compute and validate its documents, hand each batch's valid
/// documents to `dispatch` (none for `check`; `run` sends them), and write every row's result.
/// Fails only when the result file cannot be written.
///
/// Three stages overlap: a thread reads and groups rows into batches of documents, a thread has
/// the batches evaluated in parallel (rayon, one document per task), and the calling thread
/// writes the outcomes. With a `dispatch`, the calling thread dispatches each batch and a fourth
/// stage writes its artefacts and outcomes while the next batch is dispatched. Channels between them are bounded
/// ([`BATCHES_IN_FLIGHT`]) and carry batches in input order, so the result file's rows are in
/// input order, and `dispatch` sees each batch once it is evaluated while the next is.
pub fn check_stream(
    input: Input,
    bound: Arc<Bound>,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
    mut dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> std::io::Result<()> {
    let time = opts.now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let file = input.path.display().to_string();
    let per_batch = opts.batch.max(1);
    let (batch_tx, batch_rx) = std::sync::mpsc::sync_channel::<Vec<Unit>>(BATCHES_IN_FLIGHT);
    let (out_tx, out_rx) = std::sync::mpsc::sync_channel::<Vec<Outcome>>(BATCHES_IN_FLIGHT);
    let grouper_bound = bound.clone();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut grouper = crate::mapping::Grouper::new(grouper_bound);
            let mut batch: Vec<Unit> = Vec::new();
            let mut docs_in_batch = 0usize;
            for item in input.rows {
                let units = match item {
                    Ok(row) => grouper.push(row),
                    Err(e) => grouper.push_error(e.source, e.message),
                };
                for u in units {
                    if matches!(u, Unit::Document(_)) {
                        docs_in_batch += 1;
                    }
                    batch.push(u);
                }
                if docs_in_batch >= per_batch {
                    if batch_tx.send(std::mem::take(&mut batch)).is_err() {
                        // The writer stopped (a write error): nothing more to do.
                        return;
                    }
                    docs_in_batch = 0;
                }
            }
            batch.extend(grouper.finish());
            let _ = batch_tx.send(batch);
        });
        let time = &time;
        let evaluator = scope.spawn(move || {
            for units in batch_rx {
                let outcomes: Vec<Outcome> = units.into_par_iter().map(|u| evaluate(u, &bound, opts, time)).collect();
                if out_tx.send(outcomes).is_err() {
                    // The writer stopped; dropping `batch_rx` stops the reader.
                    return;
                }
            }
        });
        let written = match dispatch.as_deref_mut() {
            None => (|| {
                for outcomes in &out_rx {
                    record(outcomes, &file, opts, writer, summary)?;
                }
                Ok::<(), std::io::Error>(())
            })(),
            // A fourth stage: while one batch's artefacts and result rows are written, the next
            // batch is being sent.
            Some(d) => {
                let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<Dispatched>(1);
                let file = &file;
                let finisher = scope.spawn(move || {
                    for batch in done_rx {
                        let outcomes = finish_batch(batch, writer);
                        record(outcomes, file, opts, writer, summary)?;
                    }
                    Ok::<(), std::io::Error>(())
                });
                for outcomes in &out_rx {
                    if done_tx.send(dispatch_batch(outcomes, d)).is_err() {
                        // The finisher stopped on a write error.
                        break;
                    }
                }
                drop(done_tx);
                finisher.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
            }
        };
        // On a write error, the evaluator's next send fails, then the reader's: both stop. A
        // panic in either thread is passed on, never turned into a short result file.
        drop(out_rx);
        evaluator.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        reader.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        written
    })
}

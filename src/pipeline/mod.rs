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
use crate::ingest::{Row, SourceRef};
use crate::mapping::{Bound, Built, DocDraft, DraftRow, ErpTotals, Issue, RowNote, Unit, build};
use crate::model::{Document, Party};
use crate::results::{DocumentRecord, ResultIssue, ResultRow, ResultWriter, RowStatus, Summary};
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
    /// Passed every check.
    pub valid: u64,
    /// Has errors.
    pub invalid: u64,
    /// Not to be issued.
    pub skipped: u64,
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
}

fn cells_of(r: &DraftRow) -> Vec<String> {
    r.row
        .as_ref()
        .map(|row| row.cells.iter().map(|c| c.to_text()).collect())
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
        let issue = Issue::warning("INV-SKIP", Some(column.clone()), Some(value.clone()), reason.clone());
        let rows = draft
            .rows
            .iter()
            .map(|r| {
                let mut rr = ResultRow::new(RowStatus::Skipped, time);
                rr.document = draft.key.clone();
                rr.push_issue(ResultIssue::from(&issue));
                (cells_of(r), rr, r.source.as_ref().map(|s| s.line))
            })
            .collect();
        let mut record = DocumentRecord::new(&draft.key, RowStatus::Skipped);
        record.first_line = Some(first_line);
        record.rows = draft.rows.len() as u64;
        record.add_codes(&[ResultIssue::from(&issue)]);
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
    let rows = draft
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let row_status = if r.note == Some(RowNote::HeaderRepeat) {
                RowStatus::Skipped
            } else {
                status
            };
            let mut rr = ResultRow::new(row_status, time);
            rr.document = number.clone();
            for (at, issue) in &issues {
                let mine = *at == Some(i);
                let doc_level = at.is_none() && r.note != Some(RowNote::HeaderRepeat);
                if mine || doc_level {
                    rr.push_issue(ResultIssue::from(issue));
                }
            }
            if row_status == RowStatus::Invalid && rr.errors.is_empty() {
                let lines: Vec<String> = issues
                    .iter()
                    .filter(|(_, i)| i.is_error())
                    .filter_map(|(at, _)| at.and_then(|a| draft.rows.get(a)).and_then(|r| r.source.as_ref()))
                    .map(|s| s.line.to_string())
                    .collect();
                rr.push_issue(ResultIssue::error(
                    "INV-DOCUMENT",
                    format!("the document has errors on other rows (line {})", lines.join(", ")),
                ));
            }
            (cells_of(r), rr, r.source.as_ref().map(|s| s.line))
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
    record.rows = draft.rows.len() as u64;
    let found: Vec<ResultIssue> = issues.iter().map(|(_, i)| ResultIssue::from(i)).collect();
    record.add_codes(&found);
    Outcome {
        rows,
        brief: Some(brief),
        codes,
        record: Some(record),
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
            Outcome {
                rows: vec![(cells_of(&r), rr, r.source.as_ref().map(|s| s.line))],
                brief: None,
                codes,
                record: None,
            }
        }
    }
}

/// Check one export: group, build, compute and validate its documents, writing every row's
/// result. Fails only when the result file cannot be written.
pub fn check_stream(
    input: Input,
    bound: Arc<Bound>,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
) -> std::io::Result<()> {
    let time = opts.now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let file = input.path.display().to_string();
    let mut grouper = crate::mapping::Grouper::new(bound.clone());
    let mut batch: Vec<Unit> = Vec::new();
    let mut docs_in_batch = 0usize;
    let flush = |batch: &mut Vec<Unit>, summary: &mut FileSummary, writer: &mut ResultWriter| {
        let units = std::mem::take(batch);
        let outcomes: Vec<Outcome> = units
            .into_par_iter()
            .map(|u| evaluate(u, &bound, opts, &time))
            .collect();
        for o in outcomes {
            for (cells, rr, line) in &o.rows {
                writer.write_row(cells, rr, *line)?;
                summary.rows += 1;
                if rr.status == RowStatus::Invalid {
                    summary.rows_invalid += 1;
                }
                if summary.problems.len() < 20 && rr.status == RowStatus::Invalid {
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
                match b.status {
                    RowStatus::Skipped => summary.documents.skipped += 1,
                    RowStatus::Invalid => summary.documents.invalid += 1,
                    _ => summary.documents.valid += 1,
                }
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
        Ok::<(), std::io::Error>(())
    };
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
        if docs_in_batch >= opts.batch.max(1) {
            flush(&mut batch, summary, writer)?;
            docs_in_batch = 0;
        }
    }
    batch.extend(grouper.finish());
    flush(&mut batch, summary, writer)?;
    Ok(())
}

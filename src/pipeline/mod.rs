//! One export from rows to result file, without the network (`invoicedrop check`): rows are
//! grouped into documents as they stream in, closed documents are built, computed and validated in
//! parallel batches (one document's work on one thread), and every input row is written to the
//! result file once, in input order, with its document's status.
//!
//! Memory holds the rows of the open document, of the last closed one (released only once the
//! next is closed, see `local.rs`) and of one batch of closed documents, never the file; in
//! `run`, also the results of the documents in parts whose number the ledger holds, read
//! together before the file's pass (`parts.rs`).

mod breakdown;
mod dispatch;
mod encoding_hint;
mod evaluate;
mod join_files;
mod local;
mod notes;
mod notes_only;
pub mod open;
mod outcome;
mod over_credit;
mod parts;
mod record;
mod sending;
mod skipped;
pub mod stamp;
mod unjoined;

use dispatch::{Dispatched, dispatch_batch, finish_batch};
use evaluate::evaluate;
pub use notes::{DATE_CODE as REFERENCE_DATE_CODE, NOT_ISSUED_CODE, Unissued};
pub use notes_only::holds_only_notes;
pub use open::{
    FileError, Prepared, detect, load_mapping, load_mapping_given_as, lookup_file_names, prepare, prepare_looking,
    read_options, split_keys,
};
use outcome::{Outcome, RowOutcome};
pub use parts::{Assembled, assemble};
use record::{record, tally};
use sending::finding_code;
pub use sending::{Dispatch, Held, Skipped, Unsent, Verdict};
pub use stamp::{FILE_CHANGED_CODE, FILE_CUT_CODE, FILE_DAMAGED_CODE, FileChanged, FileStamp, HeldBack, HeldFrom};
use unjoined::record_unjoined;

use crate::compute::compute_document_totals;
use crate::ingest::{Row, SourceRef};
use crate::mapping::{Bound, Built, DocDraft, DraftRow, Issue, Unit, build, build_with};
use crate::model::{Document, Party};
use crate::results::{
    ArtefactContent, ArtefactPaths, DocumentRecord, ResultIssue, ResultRow, ResultWriter, RowStatus, Summary,
};
use crate::validate::{DeviceContext, Finding};
use chrono::{DateTime, SecondsFormat, Utc};
use rayon::prelude::*;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Documents per parallel batch (the default, and `run`'s: each batch's valid documents are
/// sent together).
pub const BATCH_DOCUMENTS: usize = 1000;

/// Documents per batch when nothing is sent (`check`), where one thread reads, checks and writes
/// each batch (`local.rs`): a batch of about 250 rows stays in that core's caches from the
/// reading to the writing. On 1,000,000 rows, 50 against 200 was about 2 % faster with a
/// quarter less memory; 10 and 25 were slower, 100 the same (BENCHMARKS.md, "2026-11-25
/// afternoon").
pub const CHECK_BATCH_DOCUMENTS: usize = 50;

/// A record the reader could not read.
#[derive(Debug, Clone)]
pub struct RowError {
    /// Where, when known.
    pub source: Option<SourceRef>,
    /// What went wrong.
    pub message: String,
    /// The reader cannot go on (a damaged workbook, a read error of the file): no row follows,
    /// and the rest of the file was not read.
    pub ends_file: bool,
}

/// An opened export: its header rows and its rows.
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// Header rows (one, or two for SAP DTW).
    pub header_rows: Vec<Vec<String>>,
    /// The rows, streamed.
    pub rows: Box<dyn Iterator<Item = Result<Row, RowError>> + Send>,
    /// The file's size and modification time when it was opened (`None`: not known, not
    /// compared): compared again when the rows run out, before the last documents are evaluated.
    pub opened: Option<FileStamp>,
    /// Where a text file's reader says whether its last line was cut short (no line end, fewer
    /// cells than the header): looked at when the rows run out, as `opened` is.
    pub last_line: crate::ingest::LastLine,
    /// What the reader says once it has read the rows (blank rows skipped, characters
    /// replaced, spreadsheet error cells): put in the file's notes when the rows have run out.
    pub late_notes: crate::ingest::LateNotes,
    /// The rows are read on a thread of their own (an xlsx sheet): `check` runs one thread
    /// fewer beside it, so that the reading, its slowest stage, keeps a core.
    pub reader_thread: bool,
    /// The document numbers whose rows are not together in the file, when a first pass over it
    /// found them ([`split_keys`]): every part of such a document is invalid (`INV-MAP-SPLIT`),
    /// none is dispatched (unless its parts were read together: [`Input::assembled`]). `None`:
    /// not known, a number that reappears is said on its later parts only (the first was
    /// checked before it was found).
    pub splits: Option<Arc<crate::mapping::SplitKeys>>,
    /// The documents among those whose parts were read together ([`assemble`], `run` only: their
    /// numbers are in the ledger), each part's results ready: they take the place of the
    /// parts' own evaluation.
    pub assembled: Option<Arc<Assembled>>,
}

/// Settings of a check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The clock of the checks (issue date not in the future, 24-hour window).
    pub now: DateTime<Utc>,
    /// The seller profile, shared by every document built.
    pub seller: Arc<Party>,
    /// Documents per parallel batch.
    pub batch: usize,
    /// Keep at most this many document briefs in the summary.
    pub max_briefs: usize,
    /// The device documents are sent through, when known (`run`, `watch`): a document it may not
    /// issue (another seller VAT number, a type it was not onboarded for) is invalid, not sent
    /// (D7, D21).
    pub device: Option<DeviceContext>,
    /// The document numbers of the files checked so far (`check` of several files): a number a
    /// later file uses again is an error there (`INV-NUMBER-USED`). `None`: not looked for.
    pub numbers: Option<Arc<std::sync::Mutex<crate::mapping::NumbersUsed>>>,
    /// Where a note's corrected invoice is looked for when neither its rows nor its file give
    /// its date (`run`, `watch`: the invoices the ledger holds as issued). `None`: not looked for.
    pub originals: Option<Originals>,
    /// The invoices of the files read so far that were not issued (invalid, skipped, rejected,
    /// without a final answer): a note correcting one is held back (`INV-REFERENCE-NOT-ISSUED`).
    pub unissued: Arc<std::sync::Mutex<Unissued>>,
}

/// The lookup of [`CheckOptions::originals`].
#[derive(Clone)]
pub struct Originals(pub Arc<dyn crate::mapping::OriginalDates>);

impl std::fmt::Debug for Originals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Originals")
    }
}

impl CheckOptions {
    /// Defaults for a seller at a time.
    pub fn new(now: DateTime<Utc>, seller: Party) -> Self {
        CheckOptions {
            now,
            seller: Arc::new(seller),
            batch: BATCH_DOCUMENTS,
            max_briefs: 1000,
            device: None,
            numbers: None,
            originals: None,
            unissued: Arc::default(),
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
    /// No final answer (`run`): sent, maybe issued (`INV-SUBMIT-UNKNOWN`: the next run repeats
    /// them with the same idempotency key), or not sent (`INV-SUBMIT-NOT-SENT`: the next run
    /// sends them).
    pub failed: u64,
    /// Of the accepted, those issued earlier with content the export no longer gives
    /// (`INV-LEDGER-CONFLICT`): issued, but to be corrected with a credit or debit note.
    pub conflicts: u64,
    /// Of the accepted, those issued before this request (an earlier run, or an earlier file
    /// or batch of this run): reported from the ledger, not sent again.
    pub issued_before: u64,
    /// Of the accepted, those an earlier result set of this export holds and the export no
    /// longer does (`INV-NOT-IN-EXPORT`): kept in these results as issued, not sent; counted so
    /// that the counts printed are those of the result set and its summary.
    pub kept: u64,
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
        self.conflicts += other.conflicts;
        self.issued_before += other.issued_before;
        self.kept += other.kept;
    }

    /// All documents.
    pub fn total(&self) -> u64 {
        self.valid + self.invalid + self.skipped + self.accepted + self.rejected + self.failed
    }

    /// Documents that need attention: invalid, rejected, failed, or accepted in conflict with
    /// the export.
    pub fn bad(&self) -> u64 {
        self.invalid + self.rejected + self.failed + self.conflicts
    }
}

/// Money in `--json` as in the result files (`X.documents.csv`) and the summaries: exact, with
/// at least two decimals (`"0.00"`, not `"0"`).
fn cents<S: serde::Serializer>(d: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    d.map(crate::results::documents::at_least_cents).serialize(s)
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
    #[serde(serialize_with = "cents")]
    pub payable: Option<Decimal>,
    /// Lines.
    pub lines: usize,
    /// First source line.
    pub first_line: u64,
    /// Accepted earlier with other content than the export gives now (`INV-LEDGER-CONFLICT`):
    /// `payable` is the export's, `issued` what was issued.
    pub conflict: bool,
    /// What was issued, for a conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issued: Option<Box<IssuedBrief>>,
    /// Accepted before this request (an earlier run, or an earlier file or batch of this run):
    /// reported from the ledger, not sent again.
    pub issued_before: bool,
}

/// What was issued under a number whose export now differs (`INV-LEDGER-CONFLICT`): from the
/// ledger, the UUID and the figures of the document the authority accepted.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct IssuedBrief {
    /// The UUID the authority gave it.
    pub uuid: String,
    /// Tax exclusive total (BT-109), when the issued document is known.
    #[serde(serialize_with = "cents")]
    pub net: Option<Decimal>,
    /// VAT total (BT-110).
    #[serde(serialize_with = "cents")]
    pub vat: Option<Decimal>,
    /// Tax inclusive total (BT-112).
    #[serde(serialize_with = "cents")]
    pub gross: Option<Decimal>,
    /// Payable amount (BT-115).
    #[serde(serialize_with = "cents")]
    pub payable: Option<Decimal>,
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
    /// A whole-file error. Its result files were not (all) written; the counts are what was done
    /// before it (in `run`, documents already sent, which the ledger keeps). Or the file changed
    /// while it was read ([`FileSummary::changed`]): its result files are written, and its last
    /// documents were held back.
    pub error: Option<String>,
    /// Set when the file changed between its opening and the end of its rows (still being
    /// written, or replaced): its last documents were held back (`INV-FILE-CHANGED`).
    #[serde(skip)]
    pub changed: Option<FileChanged>,
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

/// `invoice`, `credit_note`, `debit_note`.
pub fn kind_name(kind: crate::model::DocumentKind) -> &'static str {
    match kind {
        crate::model::DocumentKind::Invoice => "invoice",
        crate::model::DocumentKind::CreditNote => "credit_note",
        crate::model::DocumentKind::DebitNote => "debit_note",
    }
}
/// Batches in flight between the stages; with one batch being read and one being written, this
/// bounds memory to a few batches of documents whatever the file's size.
const BATCHES_IN_FLIGHT: usize = 2;

/// Check one export: group, build, compute and validate its documents, hand each batch's valid
/// documents to `dispatch` (none for `check`; `run` sends them), and write every row's result.
/// Fails only when the result file cannot be written.
///
/// Without a `dispatch`, each thread reads a batch in turn, evaluates it and writes it in input
/// order (see `local.rs`). With one, the stages overlap: a thread reads and groups rows into
/// batches of documents, a thread has the batches evaluated in parallel (rayon, one document
/// per task), the calling thread dispatches each batch, and a fourth stage writes its artefacts
/// and outcomes while the next batch is dispatched. Channels between them are bounded
/// ([`BATCHES_IN_FLIGHT`]) and carry batches in input order, so the result file's rows are in
/// input order, and `dispatch` sees each batch once it is evaluated while the next is.
pub fn check_stream(
    input: Input,
    bound: Arc<Bound>,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
    dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> std::io::Result<()> {
    // The header file's records no row referred to, once every row is read (and written).
    let joined = bound.clone();
    let settling = notes::Settling::new(opts, &input.path.display().to_string());
    let late_notes = input.late_notes.clone();
    let Some(d) = dispatch else {
        local::check_local(input, bound, opts, writer, summary, &settling)?;
        summary.notes.extend(late_notes.take());
        return record_unjoined(&joined, opts, writer, summary, None);
    };
    let mut input = input;
    let assembled = input.assembled.take();
    let time = opts.now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let file = input.path.display().to_string();
    let per_batch = opts.batch.max(1);
    let (batch_tx, batch_rx) = std::sync::mpsc::sync_channel::<Vec<Unit>>(BATCHES_IN_FLIGHT);
    let (out_tx, out_rx) = std::sync::mpsc::sync_channel::<Vec<Outcome>>(BATCHES_IN_FLIGHT);
    let mut reading = local::Reading::new(input, bound.clone(), per_batch, true, opts.numbers.as_ref());
    let side = stamp::SideWatch::new(&bound, true);
    let write_failed = std::sync::atomic::AtomicBool::new(false);
    // Lent to the writing stage; the file's change, if any, is put in after it.
    let tallied = &mut *summary;
    let (written, changed) = std::thread::scope(|scope| {
        // Lent to the writing stage (the header file's records no row referred to are written
        // after it).
        let writer = &mut *writer;
        let reader = scope.spawn(move || {
            while let Some((_, batch)) = reading.batch(per_batch) {
                if batch_tx.send(batch).is_err() {
                    // The writer stopped (a write error): nothing more to do.
                    return None;
                }
            }
            reading.changed.take()
        });
        let time = &time;
        let side = &side;
        let assembled = assembled.as_deref();
        let evaluator = scope.spawn(move || {
            for units in batch_rx {
                let outcomes: Vec<Outcome> = units
                    .into_par_iter()
                    .map(|u| parts::outcome(assembled, u, |u| evaluate(u, &bound, opts, time, true, side)))
                    .collect();
                if out_tx.send(outcomes).is_err() {
                    // The writer stopped; dropping `batch_rx` stops the reader.
                    return;
                }
            }
        });
        // A fourth stage: while one batch's artefacts and result rows are written, the next
        // batch is being sent.
        let (done_tx, done_rx) = std::sync::mpsc::sync_channel::<Dispatched>(1);
        let file = &file;
        // After a write error nothing more is sent, but the batches already sent are still
        // counted, so that the summary says what the ledger holds.
        let write_failed = &write_failed;
        let finisher = scope.spawn(move || {
            let mut written = Ok(());
            for batch in done_rx {
                if written.is_ok() {
                    let outcomes = finish_batch(batch, Some(&mut *writer));
                    written = record(outcomes, file, opts, writer, tallied);
                    write_failed.store(written.is_err(), std::sync::atomic::Ordering::Relaxed);
                } else {
                    for o in finish_batch(batch, None) {
                        tally(o, file, opts, tallied);
                    }
                }
            }
            written
        });
        for outcomes in &out_rx {
            if write_failed.load(std::sync::atomic::Ordering::Relaxed)
                || done_tx.send(dispatch_batch(outcomes, d, &settling)).is_err()
            {
                break;
            }
        }
        drop(done_tx);
        d.writing(file);
        let written = finisher.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        // On a write error, the evaluator's next send fails, then the reader's: both stop. A
        // panic in either thread is passed on, never turned into a short result file.
        drop(out_rx);
        evaluator.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        let changed = reader.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (written, changed)
    });
    summary.changed = stamp::with_side(changed, side.finish());
    summary.notes.extend(late_notes.take());
    written?;
    record_unjoined(&joined, opts, writer, summary, Some(d))
}

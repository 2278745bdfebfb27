//! What the checking side hands the sending side ([`Dispatch`]: `run`'s sending, `check`'s
//! nothing), and what it gets back ([`Verdict`]): the valid documents of each batch, the invalid
//! and skipped ones whose numbers may have been issued before, and the answers.

use super::*;

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
    /// Accepted before this request: the answer comes from the ledger (an earlier run, or an
    /// earlier file or batch of this run), nothing was sent.
    pub issued_before: bool,
    /// The document as issued, when it differs from the export's (an `INV-LEDGER-CONFLICT`):
    /// the result files give its figures, and its artefacts are named after it.
    pub issued: Option<Box<Document>>,
    /// When it was accepted, for a document accepted in an earlier run: its rows'
    /// `result_time` (otherwise the time of this run).
    pub accepted_at: Option<String>,
    /// Issued earlier with other content than the export gives now (`INV-LEDGER-CONFLICT`):
    /// `errors` are said once, on the document's first row, and its other rows refer to that
    /// row (`INV-DOCUMENT`); the document's brief is marked.
    pub conflict: bool,
}

/// The rule code a rendered finding starts with (`BR-KSA-98 column ...`, `BR-KSA-98: ...`).
pub(super) fn finding_code(rendered: &str) -> &str {
    rendered.split([' ', ':']).next().unwrap_or(rendered)
}

/// Where valid documents go after the checks. `check` has none; `run` sends them.
pub trait Dispatch {
    /// Handle one batch of valid documents, in input order; one verdict per document, in the same
    /// order. Must not fail: a document that could not be handled gets a `failed` verdict.
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict>;

    /// The batch's simplified documents that failed the checks and so are not sent, in input
    /// order (before [`Dispatch::dispatch`] of the same batch). Their 24-hour reporting window
    /// runs all the same: the watch alerts on them. Nothing by default.
    fn not_sent(&mut self, _invalid_simplified: Vec<Unsent>) {}

    /// A batch was read and checked (before [`Dispatch::dispatch`] of it): its input rows, its
    /// documents, and how many of those failed the checks. For progress; nothing by default.
    fn checked(&mut self, _rows: u64, _documents: u64, _invalid: u64) {}

    /// The device the documents go through, when known: each document is checked against it
    /// before it is dispatched (D7, D21). None by default.
    fn device(&self) -> Option<DeviceContext> {
        None
    }

    /// The exports about to be read, in order, before the first is (for progress: `run` counts
    /// their rows to estimate its whole length). Nothing by default.
    fn inputs(&mut self, _files: &[std::path::PathBuf]) {}

    /// Where a note's corrected invoice is looked for when neither its rows nor its file give
    /// its date ([`CheckOptions::originals`]). None by default (`check`).
    fn originals(&self) -> Option<Originals> {
        None
    }

    /// The batch's documents that failed the checks (never sent), in input order, before
    /// [`Dispatch::dispatch`] of the same batch: a verdict for each whose number was issued
    /// before, or maybe issued (for `run`, what its ledger holds: accepted, with or without a
    /// conflict, or `failed` when it was sent without a final answer), `None` (or nothing) for
    /// the others, which stay invalid. Nothing may be sent. Nothing by default (`check`).
    fn issued(&mut self, _invalid: Vec<Held>) -> Vec<Option<Verdict>> {
        Vec::new()
    }

    /// The batch's documents a skip rule keeps from being issued (`INV-SKIP`: `Voided`,
    /// `Draft`...), in input order, before [`Dispatch::dispatch`] of the same batch: a verdict
    /// for each whose number was issued before (for `run`: accepted with `INV-LEDGER-CONFLICT`,
    /// as an issued document cannot be withdrawn), or maybe issued (`failed`), `None` (or
    /// nothing) for the others, which stay skipped. Nothing may be sent. Nothing by default
    /// (`check`).
    fn withdrawn(&mut self, _skipped: Vec<Skipped>) -> Vec<Option<Verdict>> {
        Vec::new()
    }

    /// Which of these document numbers (of documents whose rows are apart in the export) were
    /// issued, or maybe issued, before, each under its kind when known (the mapping reads it
    /// from a column), else under any kind (through a device of `seller_vat`), in their order:
    /// their parts are read together and asked about ([`assemble`]). Nothing may be sent. None
    /// by default (`check`).
    fn holds(
        &mut self,
        _numbers: &[(String, Option<crate::model::DocumentKind>)],
        _seller_vat: Option<&str>,
    ) -> Vec<bool> {
        Vec::new()
    }

    /// The documents the result set of the export about to be read lists as accepted (read
    /// before it is written again), for the export's batches: `run` does not send one of them
    /// that its ledger does not hold (issued through another state folder). Nothing by default.
    fn accepted_before(&mut self, _before: crate::results::AcceptedBefore) {}

    /// Every batch of `file` is answered; what is left is writing its results (the signed XML
    /// and QR images of its accepted documents, then its result files), which a busy disk may
    /// make long. Nothing by default.
    fn writing(&mut self, _file: &str) {}
}

/// A document a skip rule keeps from being issued, kept (by `run`) to ask whether its number
/// was issued before; never sent.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// Its number.
    pub number: String,
    /// Its kind, when its rows make a document (built only for this).
    pub kind: Option<crate::model::DocumentKind>,
    /// The seller's VAT number.
    pub seller_vat: Option<String>,
    /// The skip rule's reason (as the row's `INV-SKIP` says).
    pub reason: String,
    /// The column the skip rule read.
    pub column: String,
    /// Its value.
    pub value: String,
    /// Not skipped: a document that fails the checks and whose rows do not make a document, or
    /// not one of a known kind (a date or kind that cannot be read), its number looked up as a
    /// skipped one's is: its errors, as [`Held::failing`] gives them.
    pub unread: Option<Vec<String>>,
}

/// A document that failed the checks, kept (by `run`) to ask whether its number was issued
/// before; never sent.
#[derive(Debug, Clone)]
pub struct Held {
    /// The document as the export gives it now.
    pub document: Document,
    /// Its errors, each `CODE on line N` (or `CODE`), once each, in order; none for a document
    /// that passes them but is not sent all the same (its rows apart in the export).
    pub failing: Vec<String>,
    /// Whether its amounts were read and computed (when not, they are not compared).
    pub amounts_known: bool,
    /// A value of it could not be read (`INV-MAP-VALUE`, or a line's amount): what was built is
    /// not all the export says, so the same content as issued is not taken to be the issued
    /// document (a conflict, saying so).
    pub unread: bool,
}

/// A simplified document that failed the checks: what the 24-hour alert needs of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsent {
    /// Invoice, credit or debit note.
    pub kind: crate::model::DocumentKind,
    /// Its number.
    pub number: String,
    /// Its issue date (Riyadh).
    pub issue_date: chrono::NaiveDate,
    /// Its issue time (Riyadh).
    pub issue_time: chrono::NaiveTime,
    /// Its first error, rendered (`CODE: message`).
    pub why: String,
}

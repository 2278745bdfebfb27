//! What goes in ([`Outgoing`]), what comes out ([`Outcome`]) and what happens on the way
//! ([`SubmitEvent`]).

use crate::model::{Document, Message, SubmissionResponse};
use std::time::Instant;

/// Code of the local conflict: a number already accepted with other content.
pub const CONFLICT_CODE: &str = "INV-LEDGER-CONFLICT";

/// Code of the API's 409: a number the API already accepted with other content (D16).
pub const DUPLICATE_CODE: &str = "DUPLICATE-DOCUMENT";

/// Code of the API's 413: a request body over its limit (the sandbox's, 1 MiB).
pub const BODY_TOO_LARGE_CODE: &str = "BODY-TOO-LARGE";

/// Code of a document left without a final answer that was sent (a request for it may have
/// reached the API, in this run or an earlier one, through this device or an earlier one): it
/// may or may not be issued ([`Outcome::Failed`] with `sent`).
pub const UNKNOWN_CODE: &str = "INV-SUBMIT-UNKNOWN";

/// Code of a document left without a final answer that nothing of reached the API: it is
/// certainly not issued, and the next run (or the running watcher) sends it ([`Outcome::Failed`]
/// without `sent`).
pub const NOT_SENT_CODE: &str = "INV-SUBMIT-NOT-SENT";

/// A document to submit, with the caller's own id for it.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The document, computed and checked.
    pub document: Document,
    /// The caller's id (for example an index into its own list); returned in the outcome.
    pub tag: u64,
}

/// What became of one document.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The API accepted it (now or in an earlier run).
    Accepted {
        /// The caller's id.
        tag: u64,
        /// The parsed answer (UUID, signed XML, QR, warnings).
        response: SubmissionResponse,
        /// The answer's exact bytes.
        raw: Vec<u8>,
        /// Requests sent for it, over all runs.
        attempts: u32,
        /// True when it was accepted in an earlier run and not sent now.
        from_ledger: bool,
        /// When the acceptance was recorded in the ledger (RFC 3339, UTC), in this run or an
        /// earlier one: the `result_time` of its rows, the same in every run.
        accepted_at: Option<String>,
    },
    /// The API rejected it (400, 409, 422 or another final 4xx); `response.errors` says why.
    Rejected {
        /// The caller's id.
        tag: u64,
        /// The HTTP status.
        http_status: u16,
        /// The parsed answer; its `errors` hold at least one message.
        response: SubmissionResponse,
        /// The answer's exact bytes.
        raw: Vec<u8>,
        /// Requests sent for it, over all runs.
        attempts: u32,
    },
    /// Not sent: this number was already accepted with different content. The document is
    /// issued (with the content the API accepted): `response` is that acceptance, from the
    /// ledger, so its UUID, signed XML and QR are kept.
    Conflict {
        /// The caller's id.
        tag: u64,
        /// What happened and what to do, without the code (the code is [`CONFLICT_CODE`]).
        message: String,
        /// The issued document's acceptance (UUID, signed XML, QR, warnings).
        response: SubmissionResponse,
        /// Its exact bytes.
        raw: Vec<u8>,
        /// The document as issued (the body the API accepted), when the ledger's body reads.
        issued: Option<Box<Document>>,
        /// Requests sent for the issued content, over all runs.
        attempts: u32,
        /// When the issued content's acceptance was recorded in the ledger (RFC 3339, UTC): the
        /// `result_time` of its rows, the same in every run.
        accepted_at: Option<String>,
        /// Issued before this run (the ledger's answer); false when this run's request (the
        /// repeat of one an earlier run left without an answer) is what issued it.
        from_ledger: bool,
    },
    /// No final answer in this run: the outcome is still unknown (`sent`), or the document was
    /// not sent at all. The ledger keeps it; the next run repeats it with the same idempotency key
    /// and body (`sent`), or sends it.
    Failed {
        /// The caller's id.
        tag: u64,
        /// Why, in words.
        reason: String,
        /// Requests sent for it, over all runs.
        attempts: u32,
        /// True when a request for it may have reached the API (in this run or an earlier one,
        /// through this device or an earlier one of the state folder): it may be issued
        /// ([`UNKNOWN_CODE`]). False when nothing of it reached the API: not issued
        /// ([`NOT_SENT_CODE`]). `attempts` does not tell: a request whose connection could not
        /// be opened counts as an attempt, and a document sent through an earlier device, or
        /// left by an earlier run, may show none.
        sent: bool,
        /// True when it was left because a stop was asked for ([`Halt`](super::Halt)): not
        /// sent, or (`sent`) sent without a final answer and not repeated.
        halted: bool,
    },
}

impl Outcome {
    /// The caller's id.
    pub fn tag(&self) -> u64 {
        match self {
            Outcome::Accepted { tag, .. }
            | Outcome::Rejected { tag, .. }
            | Outcome::Conflict { tag, .. }
            | Outcome::Failed { tag, .. } => *tag,
        }
    }

    /// True when the document was accepted with this content (a [`Outcome::Conflict`] is issued
    /// too, but with other content).
    pub fn is_accepted(&self) -> bool {
        matches!(self, Outcome::Accepted { .. })
    }

    /// Requests sent for the document, over all runs (for a conflict, for its issued content).
    pub fn attempts(&self) -> u32 {
        match self {
            Outcome::Accepted { attempts, .. }
            | Outcome::Rejected { attempts, .. }
            | Outcome::Conflict { attempts, .. }
            | Outcome::Failed { attempts, .. } => *attempts,
        }
    }

    /// The blocking messages, for result files: the API's errors of a rejection, the conflict, or
    /// the reason of a failure. Empty for an accepted document.
    pub fn errors(&self) -> Vec<Message> {
        match self {
            Outcome::Accepted { .. } => Vec::new(),
            Outcome::Rejected { response, .. } => response.errors.0.clone(),
            Outcome::Conflict { message, .. } => vec![Message::error(CONFLICT_CODE, "LEDGER", message.clone())],
            Outcome::Failed { reason, sent, .. } => vec![Message::error(failed_code(*sent), "SUBMIT", reason.clone())],
        }
    }

    pub(crate) fn with_tag(mut self, new: u64) -> Outcome {
        match &mut self {
            Outcome::Accepted { tag, .. }
            | Outcome::Rejected { tag, .. }
            | Outcome::Conflict { tag, .. }
            | Outcome::Failed { tag, .. } => *tag = new,
        }
        self
    }
}

/// The code of a document left without a final answer: [`UNKNOWN_CODE`] when it was sent (maybe
/// issued), [`NOT_SENT_CODE`] when nothing of it reached the API (not issued).
pub fn failed_code(sent: bool) -> &'static str {
    if sent { UNKNOWN_CODE } else { NOT_SENT_CODE }
}

/// Progress, for progress bars and logs. Called from the submitting task; keep it quick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubmitEvent {
    /// A request left (first send or a repeat).
    Sent,
    /// A document was accepted (also for documents reported from the ledger).
    Accepted,
    /// A document is issued with other content than it has now ([`Outcome::Conflict`]): accepted
    /// earlier, not sent again, and in conflict with its export. Not a rejection.
    Conflict,
    /// A document was rejected.
    Rejected,
    /// A document's request will be repeated.
    Retrying {
        /// Why: the status or transport error.
        reason: String,
    },
    /// All sending stopped until `until`: a 429 (`Retry-After`) or an API that does not answer.
    Paused {
        /// When sending resumes (or the next probe goes).
        until: Instant,
        /// Why, in words.
        reason: String,
    },
    /// Sending resumed after a pause.
    Resumed,
    /// A document ended without a final answer ([`Outcome::Failed`]).
    Failed,
}

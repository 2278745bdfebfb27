//! Result files: per input file, one row per input row, the input's own columns unchanged, then
//! the result columns of design.md. Written aside and renamed into place, so a result file is
//! either absent or complete.

mod writer;

pub use writer::{ResultWriter, result_path};

use serde::Serialize;

/// The result columns appended to the input's own, in order.
pub const RESULT_COLUMNS: [&str; 10] = [
    "result_status",
    "result_document",
    "result_uuid",
    "result_qr",
    "result_xml_file",
    "result_qr_file",
    "result_errors",
    "result_warnings",
    "result_attempts",
    "result_time",
];

/// What happened to a row's document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RowStatus {
    /// `check`: the document passed every local check.
    Valid,
    /// The document has errors and was not (or would not be) sent.
    Invalid,
    /// Not a document to issue (draft, voided, repeated header line).
    Skipped,
    /// `run`: the authority accepted the document.
    Accepted,
    /// `run`: the authority rejected it.
    Rejected,
    /// `run`: the outcome could not be obtained.
    Failed,
}

impl RowStatus {
    /// The word written in `result_status`.
    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Valid => "valid",
            RowStatus::Invalid => "invalid",
            RowStatus::Skipped => "skipped",
            RowStatus::Accepted => "accepted",
            RowStatus::Rejected => "rejected",
            RowStatus::Failed => "failed",
        }
    }
}

/// The result columns of one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultRow {
    /// `result_status`.
    pub status: RowStatus,
    /// `result_document`: the document number.
    pub document: String,
    /// `result_uuid`.
    pub uuid: String,
    /// `result_qr`: the QR payload.
    pub qr: String,
    /// `result_xml_file`.
    pub xml_file: String,
    /// `result_qr_file`.
    pub qr_file: String,
    /// `result_errors`: `CODE column "value": message`, joined with ` | `.
    pub errors: Vec<String>,
    /// `result_warnings`, same form.
    pub warnings: Vec<String>,
    /// `result_attempts`.
    pub attempts: u32,
    /// `result_time` (RFC 3339).
    pub time: String,
}

impl ResultRow {
    /// A row with a status and nothing else.
    pub fn new(status: RowStatus, time: &str) -> Self {
        ResultRow {
            status,
            document: String::new(),
            uuid: String::new(),
            qr: String::new(),
            xml_file: String::new(),
            qr_file: String::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            attempts: 0,
            time: time.to_string(),
        }
    }

    /// The cells of the result columns, in [`RESULT_COLUMNS`] order.
    pub fn cells(&self) -> [String; 10] {
        [
            self.status.as_str().to_string(),
            self.document.clone(),
            self.uuid.clone(),
            self.qr.clone(),
            self.xml_file.clone(),
            self.qr_file.clone(),
            self.errors.join(" | "),
            self.warnings.join(" | "),
            self.attempts.to_string(),
            self.time.clone(),
        ]
    }
}

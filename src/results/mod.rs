//! Result files: what accountants reconcile from.
//!
//! Per input file `X`, in the results folder:
//!
//! | file | what |
//! |---|---|
//! | `X.result.csv` | one row per input row, the input's own columns unchanged, then [`RESULT_COLUMNS`] |
//! | `X.result.xlsx` | the same rows and columns, for spreadsheet input; a second sheet "Errors" lists every finding |
//! | `X.documents.csv` | one row per document: number, kind, type, issue date, status, amounts, XML file ([`documents`]) |
//! | `X.summary.json` | counts and amounts by status, kind and type, issue date; findings by rule code ([`summary`]) |
//! | `X/` | the signed XML and the QR PNG of every accepted document ([`artefacts`]) |
//!
//! Every file is written aside and renamed into place ([`atomic`]), so a result file is either
//! absent or complete. [`ResultWriter`] writes them all for one input and replaces an earlier
//! run's files as one set (see [`ResultWriter::finish`]), keeping the documents that set issued
//! and the new one does not give as accepted ([`kept`]). [`report`] reads a results folder back
//! and reconciles the documents' amounts with their signed XML.

mod accepted_before;
pub mod artefacts;
pub mod atomic;
mod csv_file;
pub mod documents;
pub mod duplicates;
mod error;
mod issue;
pub mod kept;
pub mod owner;
pub mod qr;
pub mod report;
mod row;
pub mod stale;
pub mod summary;
pub mod window;
mod writer;
mod xlsx;
mod xlsx_sheet;
mod xlsx_zip;
pub mod xml_totals;

pub use accepted_before::{AcceptedBefore, ISSUED_ELSEWHERE_CODE};
pub use artefacts::{ArtefactContent, ArtefactPaths, write_accepted};
pub use documents::DocumentRecord;
pub use error::{ResultsError, folder_unusable};
pub use issue::ResultIssue;
pub(crate) use issue::without_code;
pub use row::{CellText, ResultRow};
pub use summary::{Summary, SummaryBuilder};
pub use writer::{ArtefactSink, Finished, ResultWriter, input_stem, is_spreadsheet, result_path};

use serde::{Deserialize, Serialize};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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
    /// Every status, in order.
    pub const ALL: [RowStatus; 6] = [
        RowStatus::Valid,
        RowStatus::Invalid,
        RowStatus::Skipped,
        RowStatus::Accepted,
        RowStatus::Rejected,
        RowStatus::Failed,
    ];

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

    /// The status a `result_status` word names (the inverse of [`RowStatus::as_str`]).
    pub fn parse(word: &str) -> Option<RowStatus> {
        RowStatus::ALL.into_iter().find(|s| s.as_str() == word.trim())
    }

    /// True for the statuses that count against the exit code: invalid, rejected, failed.
    pub fn is_problem(self) -> bool {
        matches!(self, RowStatus::Invalid | RowStatus::Rejected | RowStatus::Failed)
    }
}

impl std::fmt::Display for RowStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_word_round_trips() {
        for s in RowStatus::ALL {
            assert_eq!(RowStatus::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
        }
        assert_eq!(RowStatus::parse("ok"), None);
        let problems: Vec<_> = RowStatus::ALL.into_iter().filter(|s| s.is_problem()).collect();
        assert_eq!(problems, [RowStatus::Invalid, RowStatus::Rejected, RowStatus::Failed]);
    }
}

//! What can go wrong while reading a file: whole-file errors and per-row errors.

use super::row::SourceRef;

/// An error from reading an export.
///
/// Most variants are **whole-file** errors: the file cannot be read at all and no row comes out
/// of it. [`IngestError::Record`] is a **per-row** error: one record could not be turned into a
/// row, the iteration goes on with the next one (see [`IngestError::is_row_error`]).
///
/// Every message names the file (and the row, for per-row errors) and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The file could not be opened or read from the start.
    #[error("cannot open {file}: {source}; check that the path is right and that you may read it")]
    Open {
        /// The file as the user named it.
        file: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// Reading failed part-way through the file (disk or network share error). The iteration
    /// ends after this error.
    #[error("reading {file} failed after line {line}: {source}; copy the file to a local disk and try again")]
    Read {
        /// The file as the user named it.
        file: String,
        /// The last line read successfully (0 when nothing was read).
        line: u64,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// The file holds nothing (zero bytes, or only blank lines / empty sheets).
    #[error("{file} is empty ({detail}); export the data again and check that the export finished")]
    Empty {
        /// The file as the user named it.
        file: String,
        /// What exactly was empty.
        detail: String,
    },

    /// A file with a text name (`.csv`, `.txt`, ...) that holds binary data.
    #[error("{file} is not a text file: {detail}")]
    Binary {
        /// The file as the user named it.
        file: String,
        /// What was found and what to do about it.
        detail: String,
    },

    /// A file with a spreadsheet name (`.xlsx`, `.ods`, ...) that is not a spreadsheet.
    #[error(
        "{file} is not a spreadsheet: {detail}; open it in Excel or LibreOffice and save it as .xlsx, or export it as CSV"
    )]
    NotASpreadsheet {
        /// The file as the user named it.
        file: String,
        /// What was found.
        detail: String,
    },

    /// A spreadsheet that is damaged or truncated (for example a copy that did not finish).
    #[error(
        "{file} could not be read as an {kind} workbook ({detail}); the file may be truncated or damaged: copy or export it again, or open it in Excel and save it again"
    )]
    Workbook {
        /// The file as the user named it.
        file: String,
        /// "xlsx", "xls", "ods", ...
        kind: &'static str,
        /// What the spreadsheet reader said.
        detail: String,
    },

    /// The encoding asked for is not a known encoding label.
    #[error(
        "unknown encoding {label:?} for {file}; use a label such as \"utf-8\", \"windows-1256\", \"utf-16le\" or \"utf-16be\", or leave the encoding out to detect it"
    )]
    UnknownEncoding {
        /// The file as the user named it.
        file: String,
        /// The label as given.
        label: String,
    },

    /// The sheet asked for does not exist.
    #[error("{file} has no sheet named {sheet:?}; its sheets are: {}; choose one of them", quoted(.available))]
    SheetNotFound {
        /// The file as the user named it.
        file: String,
        /// The sheet asked for.
        sheet: String,
        /// The sheets the workbook has, in order.
        available: Vec<String>,
    },

    /// The header row(s) asked for are not there.
    #[error("{file}: {detail}")]
    Header {
        /// The file as the user named it.
        file: String,
        /// What is missing and what to do.
        detail: String,
    },

    /// One record could not be read; the other records are not affected.
    #[error("{at}: {detail}")]
    Record {
        /// Where the record starts.
        at: SourceRef,
        /// What is wrong and what to do.
        detail: String,
    },
}

impl IngestError {
    /// True for a per-row error ([`IngestError::Record`]): that row is lost but the iteration
    /// goes on. Every other error concerns the whole file.
    pub fn is_row_error(&self) -> bool {
        matches!(self, IngestError::Record { .. })
    }

    /// Where the failing row starts, for a per-row error.
    pub fn source_ref(&self) -> Option<&SourceRef> {
        match self {
            IngestError::Record { at, .. } => Some(at),
            _ => None,
        }
    }
}

fn quoted(names: &[String]) -> String {
    if names.is_empty() {
        return "(none)".to_owned();
    }
    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}

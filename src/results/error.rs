//! Why a result file or artefact could not be written or read.

use std::path::{Path, PathBuf};

/// An error of the result files.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// Reading or writing a file or folder failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The spreadsheet result could not be written.
    #[error("{}: {message}", path.display())]
    Xlsx {
        /// The file.
        path: PathBuf,
        /// What rust_xlsxwriter said.
        message: String,
    },
    /// The authority's response lacks something an accepted document must have.
    #[error("the response of document {document:?} has no {field}")]
    MissingField {
        /// The document number.
        document: String,
        /// `invoice` or `qr_code`.
        field: &'static str,
    },
    /// The authority's response holds base64 that does not decode.
    #[error("the {field} of document {document:?} is not valid base64: {message}")]
    Base64 {
        /// The document number.
        document: String,
        /// `invoice`.
        field: &'static str,
        /// The decoder's message.
        message: String,
    },
    /// The QR payload cannot be drawn as a QR code (too long).
    #[error("the QR payload of document {document:?} cannot be drawn: {message}")]
    Qr {
        /// The document number.
        document: String,
        /// The encoder's message.
        message: String,
    },
    /// A folder in the results folder is in the way and is not ours to replace.
    #[error(
        "{} is in the way: it is not an artefacts folder of invoicedrop (no .invoicedrop-artefacts file, or files other than signed XML and QR images), so it is not replaced; move it and run again",
        path.display()
    )]
    InTheWay {
        /// The folder.
        path: PathBuf,
    },
    /// A file of the results folder does not read as expected.
    #[error("{}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl ResultsError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> ResultsError {
        ResultsError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A malformed file.
    pub fn malformed(path: &Path, message: impl Into<String>) -> ResultsError {
        ResultsError::Malformed {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

impl From<ResultsError> for std::io::Error {
    fn from(e: ResultsError) -> std::io::Error {
        let kind = match &e {
            ResultsError::Io { source, .. } => source.kind(),
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, e.to_string())
    }
}

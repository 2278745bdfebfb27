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

impl ResultsError {
    /// True when the error is the results folder's as a whole, not one file's: see
    /// [`folder_unusable`].
    pub fn folder_unusable(&self) -> bool {
        matches!(self, ResultsError::Io { source, .. } if folder_unusable(source))
    }
}

/// True when an error writing a result file says that the results folder takes no more result
/// files, whichever input they are of: no space left (`ENOSPC`), a disk quota reached
/// (`EDQUOT`), a file system mounted read-only (`EROFS`), the file size limit of the process
/// (`EFBIG`: `ulimit -f`, which every later file has too), or the disk failing (`EIO`). Anything
/// else (a folder in the way, a name refused, an answer that cannot be written) is one file's.
pub fn folder_unusable(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    /// `EIO`, the same number on every Unix.
    const EIO: i32 = 5;
    if matches!(
        e.kind(),
        K::StorageFull | K::QuotaExceeded | K::ReadOnlyFilesystem | K::FileTooLarge
    ) || (cfg!(unix) && e.raw_os_error() == Some(EIO))
    {
        return true;
    }
    // An error passed on with its cause inside (a `ResultsError` made an `io::Error`).
    match e.get_ref() {
        Some(inner) => match inner.downcast_ref::<ResultsError>() {
            Some(r) => r.folder_unusable(),
            None => inner.downcast_ref::<std::io::Error>().is_some_and(folder_unusable),
        },
        None => false,
    }
}

impl From<ResultsError> for std::io::Error {
    /// Of the same kind, with the error itself inside (so that [`folder_unusable`] still sees
    /// its operating system error).
    fn from(e: ResultsError) -> std::io::Error {
        let kind = match &e {
            ResultsError::Io { source, .. } => source.kind(),
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_full_disk_is_the_folders_and_a_folder_in_the_way_one_files() {
        let os = std::io::Error::from_raw_os_error;
        // ENOSPC, EROFS, EFBIG, EIO, EDQUOT (Linux numbers).
        for code in [28, 30, 27, 5, 122] {
            assert!(folder_unusable(&os(code)), "{}", os(code));
            let wrapped: std::io::Error = ResultsError::io(Path::new("r/x.csv"), os(code)).into();
            assert!(folder_unusable(&wrapped), "{wrapped}");
            assert_eq!(wrapped.to_string(), format!("r/x.csv: {}", os(code)));
        }
        // EACCES, EISDIR, ENOTDIR, ENAMETOOLONG.
        for code in [13, 21, 20, 36] {
            assert!(!folder_unusable(&os(code)), "{}", os(code));
        }
        let in_the_way = ResultsError::InTheWay {
            path: PathBuf::from("r/x"),
        };
        assert!(!in_the_way.folder_unusable());
        assert!(!folder_unusable(&in_the_way.into()));
        assert!(!folder_unusable(&std::io::Error::other("result file already finished")));
    }
}

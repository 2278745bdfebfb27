//! Why the ledger cannot be used, each message saying what to do.

use std::path::PathBuf;

/// Why the ledger cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// Another process holds the state folder.
    #[error(
        "another invoicedrop is already running with the state folder {} ({holder}holds {}); wait for it to \
         finish (a watcher: put the file in its inbox instead, or stop it with SIGTERM, then run again). Do \
         not give this run another --state folder: that folder's ledger does not know what this one issued, \
         and its device would issue the same documents a second time",
        dir.display(), dir.join("lock").display()
    )]
    Busy {
        /// The state folder.
        dir: PathBuf,
        /// `process N ` when known.
        holder: String,
    },
    /// The folder or lock file cannot be created or opened.
    #[error("cannot use the state folder {}: {message}; check that it exists and is writable", dir.display())]
    Folder {
        /// The state folder.
        dir: PathBuf,
        /// The system's error.
        message: String,
    },
    /// The database cannot be opened.
    #[error(
        "cannot open the ledger {}: {message}. It records which documents were already sent, so do not delete \
         it; restore it from a backup if it is damaged",
        path.display()
    )]
    Open {
        /// The ledger file.
        path: PathBuf,
        /// SQLite's error.
        message: String,
    },
    /// The file was written by a newer version.
    #[error(
        "the ledger {} has schema version {found}, newer than this invoicedrop understands ({known}); use the \
         newer invoicedrop",
        path.display()
    )]
    Newer {
        /// The ledger file.
        path: PathBuf,
        /// Its version.
        found: i64,
        /// Ours.
        known: i64,
    },
    /// A write failed (disk full, I/O error).
    #[error(
        "writing the ledger {} failed: {message}. Sending stops so that no document leaves unrecorded; free \
         disk space or fix the folder, then run again",
        path.display()
    )]
    Write {
        /// The ledger file.
        path: PathBuf,
        /// SQLite's error.
        message: String,
    },
    /// The ledger thread is gone (it stopped after a panic or at shutdown).
    #[error("the ledger is closed")]
    Closed,
}

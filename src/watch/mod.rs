//! The drop folder behind `invoicedrop watch INBOX`: the pieces that know nothing of sending.
//!
//! - [`Inbox`] (`inbox.rs`): the layout (`.processing/`, `done/`, `failed/`, `results/`), which
//!   names are candidates, claiming a file by renaming it, and moving it on without ever
//!   overwriting; [`InboxLock`], one watcher per inbox.
//! - [`Stability`] (`stable.rs`): a file is taken only once its size and modification time have
//!   not changed for a quiet period.
//! - [`Seen`] (`seen.rs`): the SHA-256 of every file done, in the state folder, so that the same
//!   content dropped again is recognised.
//! - [`WatchStatus`] (`status.rs`): `results/status.json`, with the simplified documents not yet
//!   accepted close to the end of their 24-hour reporting window.

mod inbox;
mod seen;
mod stable;
mod status;

pub use inbox::{Inbox, InboxLock, is_candidate, link_error};
pub use seen::{Seen, sha256_file};
pub use stable::Stability;
pub use status::{LastFile, Queued, Tracked, Unanswered, WatchStatus, alert_warnings, overdue, why_of};

use std::path::PathBuf;

/// What can go wrong with the inbox itself.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// Another watcher holds the inbox's lock.
    #[error("another invoicedrop watch is running on {inbox} (pid {pid})")]
    Locked {
        /// The inbox.
        inbox: String,
        /// The other watcher's process id, as it wrote it (`?` when unreadable).
        pid: String,
    },
    /// A file or folder operation failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// On what.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
}

impl WatchError {
    /// An I/O error with its context.
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> WatchError {
        WatchError::Io {
            what,
            path: path.into(),
            source,
        }
    }
}

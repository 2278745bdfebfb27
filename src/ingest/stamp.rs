//! A file's size and modification time: noted when a file is opened and looked at again later,
//! to see whether it changed meanwhile (still being written, or replaced).

use std::path::Path;
use std::time::SystemTime;

/// A file's size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Bytes.
    pub len: u64,
    /// When it was last modified (`None` where the platform does not say).
    pub modified: Option<SystemTime>,
}

impl FileStamp {
    /// The stamp of `path` now.
    pub fn of(path: &Path) -> std::io::Result<FileStamp> {
        let m = std::fs::metadata(path)?;
        Ok(FileStamp {
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

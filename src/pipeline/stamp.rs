//! The input file's size and modification time, noted when it is opened and looked at again when
//! its rows run out, before the last document is evaluated: a file that changed meanwhile was
//! still being written (a writer that stalled longer than the watch's quiet period) or was
//! replaced, and its last document, the only one whose rows may be cut, is held back.
//!
//! One `stat` when the file is opened and one at its end: nothing per row.

use crate::mapping::{Issue, Unit};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The rule code of a last document held back because its file changed while it was read.
pub const FILE_CHANGED_CODE: &str = "INV-FILE-CHANGED";

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

/// A file that changed between its opening and the end of its rows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the file changed while it was read ({})", self.sizes())]
pub struct FileChanged {
    /// Its size when it was opened.
    pub opened: u64,
    /// Its size at the end of the rows, or why it could not be looked at.
    pub now: Result<u64, String>,
    /// The last document, held back: its number and first line. `None` when the file ended
    /// with rows outside any document (or a skipped document): nothing was held back.
    pub held_back: Option<(String, u64)>,
}

impl FileChanged {
    fn sizes(&self) -> String {
        let opened = thousands(self.opened);
        match &self.now {
            Ok(now) if *now == self.opened => format!("{opened} bytes when opened and now, but modified since"),
            Ok(now) => format!("{opened} bytes when opened, {} now", thousands(*now)),
            Err(e) => format!("{opened} bytes when opened, and it can no longer be looked at: {e}"),
        }
    }

    /// The file's error: what changed, what was held back (`held`: "was not sent"), and
    /// `again`, what to do once the file is complete.
    pub fn explain(&self, held: &str, again: &str) -> String {
        match &self.held_back {
            Some((number, line)) => format!(
                "{self}: it was still being written or was replaced; its last document, {number} (line {line}), \
                 which may be incomplete, {held} ({FILE_CHANGED_CODE}), and rows written after it was read \
                 were not seen. {again}"
            ),
            None => format!(
                "{self}: it was still being written or was replaced; rows written after it was read were not \
                 seen. {again}"
            ),
        }
    }

    /// The finding on the first row of the last document, held back; `sending` says whether
    /// documents are sent (`run`, `watch`) or only checked.
    pub fn finding(&self, sending: bool) -> String {
        if sending {
            format!(
                "{self}: it was still being written or was replaced, so this last document may be incomplete \
                 and is not sent; send the file again once it is complete (what was sent is reported from \
                 the ledger, nothing is sent twice)"
            )
        } else {
            format!(
                "{self}: it was still being written or was replaced, so this last document may be incomplete \
                 and is held back; check the file again once it is complete"
            )
        }
    }
}

/// `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The file being read, as it was when opened.
#[derive(Debug, Clone)]
pub(super) struct Watched {
    path: PathBuf,
    opened: FileStamp,
    /// Documents are sent (the finding says "not sent") or only checked.
    sending: bool,
}

impl Watched {
    pub(super) fn new(path: PathBuf, opened: FileStamp, sending: bool) -> Self {
        Watched { path, opened, sending }
    }

    /// At the end of the rows: whether the file changed since it was opened.
    fn changed(&self) -> Option<FileChanged> {
        let now = FileStamp::of(&self.path);
        let changed = match &now {
            Ok(now) => *now != self.opened,
            Err(_) => true,
        };
        changed.then(|| FileChanged {
            opened: self.opened.len,
            now: now.map(|s| s.len).map_err(|e| e.to_string()),
            held_back: None,
        })
    }

    /// The end of the rows, with `last` the unit the grouper closed there: when the file changed,
    /// the last document gets an error on its first row (so it is invalid, and not sent) and
    /// what changed is returned.
    pub(super) fn at_end(&self, last: &mut Option<Unit>) -> Option<FileChanged> {
        let mut changed = self.changed()?;
        if let Some(Unit::Document(doc)) = last
            && doc.skip.is_none()
            && let Some(first) = doc.rows.first_mut()
        {
            let line = first.source().map_or(0, |s| s.line);
            first.issues.push(Issue::error(
                FILE_CHANGED_CODE,
                None,
                None,
                changed.finding(self.sending),
            ));
            changed.held_back = Some((doc.key.clone(), line));
        }
        Some(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_with_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(12_345), "12,345");
        assert_eq!(thousands(1_234_567), "1,234,567");
        let c = FileChanged {
            opened: 12_345,
            now: Ok(23_456),
            held_back: None,
        };
        assert_eq!(
            c.to_string(),
            "the file changed while it was read (12,345 bytes when opened, 23,456 now)"
        );
        assert!(c.finding(true).starts_with(
            "the file changed while it was read (12,345 bytes when opened, 23,456 now): it was still being written or was replaced, so this last document may be incomplete and is not sent; send the file again"
        ));
        assert!(c.finding(false).contains("is held back; check the file again"));
    }

    #[test]
    fn an_unchanged_file_is_not_flagged_and_a_grown_replaced_or_removed_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        std::fs::write(&p, "a,b\n1,2\n").unwrap();
        let w = Watched::new(p.clone(), FileStamp::of(&p).unwrap(), true);
        assert_eq!(w.changed(), None);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        std::io::Write::write_all(&mut f, b"3,4\n").unwrap();
        drop(f);
        let c = w.changed().expect("grown");
        assert_eq!((c.opened, c.now.clone()), (8, Ok(12)));
        // Same size, other modification time (a file rewritten in place).
        let w = Watched::new(
            p.clone(),
            FileStamp {
                len: 12,
                modified: Some(SystemTime::UNIX_EPOCH),
            },
            true,
        );
        let c = w.changed().expect("modified");
        assert!(
            c.to_string()
                .contains("12 bytes when opened and now, but modified since"),
            "{c}"
        );
        std::fs::remove_file(&p).unwrap();
        let c = w.changed().expect("removed");
        assert!(c.now.is_err());
        assert!(c.to_string().contains("can no longer be looked at"), "{c}");
    }
}

//! The files read whole with an export, before its rows (its joined header file, lookup
//! tables), watched while the export is checked: a document built from the last row of one of
//! them (or whose key a lookup table lacks) is held back when that file has changed by the time
//! the document is checked, and each is looked at once more when every document is checked.

use super::{Change, FILE_CHANGED_CODE, FileChanged, HeldBack, named};
use crate::mapping::{Bound, Issue, SideFile, SideUse};
use std::sync::{Mutex, PoisonError};

/// A file read with an export (its header file, a lookup table) that changed while the export
/// was read: the documents built from its last row (or, for a lookup table, whose key it does
/// not hold) may be incomplete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideChanged {
    /// What it is, for messages (`the header file X.txt`, `the lookup table customers.csv`).
    pub what: String,
    /// Its file name.
    pub name: String,
    /// How it changed.
    pub change: Change,
    /// It is a lookup table (a key not in it is suspect too).
    pub lookup: bool,
    /// The documents built from it that were held back, in the order they were checked (the
    /// first few).
    pub held_back: Vec<HeldBack>,
    /// How many were held back in all.
    pub held_count: u64,
    /// The documents built from it that were checked before the change was seen (the first
    /// few), and how many in all.
    pub earlier: Vec<HeldBack>,
    /// How many were checked before the change was seen.
    pub earlier_count: u64,
}

impl SideChanged {
    /// What became of the documents built from it, for the file's error.
    pub(super) fn explain(&self, held: &str) -> String {
        let from = if self.lookup {
            "built from its last row or not found in it"
        } else {
            "built from its last row"
        };
        let mut out = format!(
            "{} changed while this export was read ({}): it was still being written or was replaced; ",
            self.what, self.change
        );
        match self.held_count {
            0 => out.push_str(&format!("no document {from} was held back")),
            1 => out.push_str(&format!(
                "the document {from}, {}, which may be incomplete, was {held} ({FILE_CHANGED_CODE})",
                named(&self.held_back, 1)
            )),
            n => out.push_str(&format!(
                "the documents {from}, {}, which may be incomplete, were {held} ({FILE_CHANGED_CODE})",
                named(&self.held_back, n)
            )),
        }
        if self.earlier_count > 0 {
            out.push_str(&format!(
                "; {} of it, checked before the change was seen, {} not held back: look at {} again",
                named(&self.earlier, self.earlier_count),
                if self.earlier_count == 1 { "was" } else { "were" },
                if self.earlier_count == 1 { "it" } else { "them" },
            ));
        }
        out
    }
}

/// The finding on the first row of a document built from the last row of a file read with its
/// export (`what`, named `name`), or for a lookup table (`missing`) from a key that it does not
/// hold, when that file changed since it was opened.
pub fn side_finding(what: &str, name: &str, change: &Change, missing: bool, sending: bool) -> String {
    let why = if missing {
        "this document's key is not in it, and may be in the part of it not read"
    } else {
        "this document is built from its last row, which may be incomplete"
    };
    let then = if sending {
        format!(
            "so it is not sent; send the export again once {name} is complete (what was sent is reported from \
             the ledger, nothing is sent twice)"
        )
    } else {
        format!("so it is held back; check the export again once {name} is complete")
    };
    format!("{what} changed while this export was read ({change}): {why} (still being written, or replaced), {then}")
}

/// Documents named in a side file's part of the file error; the others are counted.
const NAMED: usize = 6;

/// What became of the documents built from a side file's last row.
#[derive(Debug, Default)]
struct SideSeen {
    /// The change first seen, when a document was held back.
    change: Option<Change>,
    held: Vec<HeldBack>,
    held_count: u64,
    earlier: Vec<HeldBack>,
    earlier_count: u64,
}

/// The files read with an export that documents are built from (its header file, lookup
/// tables; [`Bound::side_files`]), watched while the export is checked: a document built from
/// the last row of one of them (which a writer still at work may have cut), or from a key a
/// lookup table does not hold (which may be in the part not read), is held back when that file
/// has changed since it was opened (one `stat` when such a document is checked, none per row);
/// and when the export's documents are all checked, each is looked at once more.
#[derive(Debug)]
pub(in crate::pipeline) struct SideWatch {
    files: Vec<SideFile>,
    seen: Vec<Mutex<SideSeen>>,
    /// Documents are sent (the finding says "not sent") or only checked.
    sending: bool,
}

impl SideWatch {
    pub(in crate::pipeline) fn new(bound: &Bound, sending: bool) -> Self {
        let files = bound.side_files().to_vec();
        let seen = files.iter().map(|_| Mutex::default()).collect();
        SideWatch { files, seen, sending }
    }

    /// The document `number` (first line `line`) is built from `uses`: an error on its row for
    /// each of those files that changed since it was opened.
    pub(in crate::pipeline) fn check(&self, uses: &[SideUse], number: &str, line: u64) -> Vec<(usize, Issue)> {
        let mut out = Vec::new();
        for u in uses {
            let (Some(file), Some(seen)) = (self.files.get(u.file), self.seen.get(u.file)) else {
                continue;
            };
            let change = Change::since(&file.path, &file.opened);
            let mut seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
            let doc = HeldBack {
                number: number.to_string(),
                line,
                last: false,
            };
            match change {
                Some(change) => {
                    let message = side_finding(&file.what, &file.name, &change, u.missing, self.sending);
                    out.push((
                        u.row,
                        Issue::error(FILE_CHANGED_CODE, u.column.clone(), Some(u.key.clone()), message),
                    ));
                    seen.change.get_or_insert(change);
                    if seen.held.len() < NAMED {
                        seen.held.push(doc);
                    }
                    seen.held_count += 1;
                }
                None => {
                    if seen.earlier.len() < NAMED {
                        seen.earlier.push(doc);
                    }
                    seen.earlier_count += 1;
                }
            }
        }
        out
    }

    /// Once every document is checked: the side files that changed since they were opened, with
    /// the documents held back because of them.
    pub(in crate::pipeline) fn finish(self) -> Vec<SideChanged> {
        self.files
            .into_iter()
            .zip(self.seen)
            .filter_map(|(file, seen)| {
                let seen = seen.into_inner().unwrap_or_else(PoisonError::into_inner);
                let change = Change::since(&file.path, &file.opened).or(seen.change)?;
                Some(SideChanged {
                    what: file.what,
                    name: file.name,
                    change,
                    lookup: file.lookup,
                    held_back: seen.held,
                    held_count: seen.held_count,
                    earlier: seen.earlier,
                    earlier_count: seen.earlier_count,
                })
            })
            .collect()
    }
}

/// The export's change (if any) and its side files' (`side`) as one.
pub(in crate::pipeline) fn with_side(changed: Option<FileChanged>, side: Vec<SideChanged>) -> Option<FileChanged> {
    if side.is_empty() {
        return changed;
    }
    let mut changed = changed.unwrap_or_default();
    changed.side = side;
    Some(changed)
}

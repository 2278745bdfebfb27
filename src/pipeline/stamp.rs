//! The input file's size and modification time, noted when it is opened and looked at again when
//! its rows run out, before its last documents are evaluated: a file that changed meanwhile was
//! still being written (a writer that stalled longer than the watch's quiet period) or was
//! replaced, and the documents that may still have been receiving rows are held back.
//!
//! Those are two: the document open when the rows ran out (the last line read may be cut), and
//! the one before it, ended by that document's first row, which may itself be a cut row of its
//! own: `INV-0001` and `INV-0001` read, then `INV-00` where the writer stopped in the number
//! cell of `INV-0001`'s third line. Every document before those two was ended by a row followed
//! by another, so complete. The reading keeps the last document it closed until the next one is
//! closed too (`Reading` in `local.rs`), so both are still there to hold back.
//!
//! One `stat` when the file is opened and one at its end: nothing per row. When documents are
//! sent (`run`, `watch`), one more after each batch's rows are read, before the batch is handed
//! on: a file rewritten in place while it is read (truncated and written again, as `cp new.csv
//! export.csv` does) gives rows read after the rewrite from the new version at the old one's
//! offset, so a document may mix the two; once a change is seen, every document from that batch
//! on is held back ([`hold_all`], [`FileChanged::midway`]), the last batch's look being the one at
//! the end. The batches before were read before the change and go on. A change is seen when the
//! size or the modification time differs: a rewrite to the same size within one tick of the
//! file system's clock (a few milliseconds on Linux; a second or two on FAT, HFS+ and some
//! network shares), or one that puts the old time back (`cp -p`, `rsync -t`), is not.
//!
//! A file that did not change but whose last line was cut short before it was read (no line
//! end, and fewer cells than the header or a quote never closed: [`CutLine`]) has the same two
//! documents held back ([`cut_at_end`], `INV-FILE-CUT`): the row that closed the one before may
//! be the cut line.
//!
//! The files read whole with the export, before its rows (its joined header file, lookup
//! tables), are noted just before they are opened too ([`SideWatch`], in `stamp/side.rs`): a
//! document built from the last row of one of them (or whose key a lookup table lacks) is held
//! back when that file has changed by the time the document is checked (one `stat` for such a
//! document), and each is looked at once more when every document is checked.

mod side;

use crate::ingest::CutLine;
use crate::mapping::{DocDraft, Issue, Unit};
use std::path::{Path, PathBuf};

pub use side::{SideChanged, side_finding};
pub(in crate::pipeline) use side::{SideWatch, with_side};

/// The rule code of a document held back because its file changed while it was read.
pub const FILE_CHANGED_CODE: &str = "INV-FILE-CHANGED";

/// The rule code of a document held back because its file's last line was cut short.
pub const FILE_CUT_CODE: &str = "INV-FILE-CUT";

/// The rule code of the document open where the reader could not read its file further (a
/// damaged workbook, a read error of the disk or share).
pub const FILE_DAMAGED_CODE: &str = "INV-FILE-DAMAGED";

pub use crate::ingest::FileStamp;

/// How a file changed: its size when it was opened, and now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Its size when it was opened.
    pub opened: u64,
    /// Its size now, or why it could not be looked at.
    pub now: Result<u64, String>,
}

impl Change {
    /// The change between `opened` and the file at `path` now; `None` when it did not change.
    pub fn since(path: &Path, opened: &FileStamp) -> Option<Change> {
        let now = FileStamp::of(path);
        let changed = match &now {
            Ok(now) => now != opened,
            Err(_) => true,
        };
        changed.then(|| Change {
            opened: opened.len,
            now: now.map(|s| s.len).map_err(|e| e.to_string()),
        })
    }
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let opened = thousands(self.opened);
        match &self.now {
            Ok(now) if *now == self.opened => write!(f, "{opened} bytes when opened and now, but modified since"),
            Ok(now) => write!(f, "{opened} bytes when opened, {} now", thousands(*now)),
            Err(e) => write!(f, "{opened} bytes when opened, and it can no longer be looked at: {e}"),
        }
    }
}

/// An export, or a file read with it, that changed between its opening and the end of the
/// export's rows; or an export whose last line was cut short before it was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileChanged {
    /// How the export itself changed (`None`: it did not, a file read with it did, or its last
    /// line was cut).
    pub export: Option<Change>,
    /// The export did not change while it was read, but its last line was cut short before
    /// (no line end, fewer cells than the header or a quote never closed): its last documents
    /// were held back as for a change ([`FILE_CUT_CODE`]).
    pub cut: Option<CutLine>,
    /// The export's documents held back at its end, in file order (at most two; none when the
    /// file had no document or only skipped ones there, or when it was seen changed while its
    /// documents were sent: see [`FileChanged::midway`]).
    pub held_back: Vec<HeldBack>,
    /// The export was seen changed after a batch of its rows was read, while its documents were
    /// sent (`run`, `watch`): every document from that batch on was held back.
    pub midway: Option<HeldFrom>,
    /// The files read with the export (its header file, lookup tables) that changed.
    pub side: Vec<SideChanged>,
    /// The export did not change and was not cut, but its reader could not read it to its end
    /// (a workbook whose sheet is damaged part-way, a read error): what the reader said, which
    /// names the file and the last row read. The document open there was held back
    /// ([`FILE_DAMAGED_CODE`]); the rows after it were not read.
    pub damaged: Option<String>,
}

/// A document held back because its file changed while it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldBack {
    /// Its number.
    pub number: String,
    /// Its first line (or sheet row).
    pub line: u64,
    /// It is the file's last document (else the one before the last, ended by a row that may
    /// be a cut row of its own).
    pub last: bool,
}

/// The documents held back from where a file was seen changed while its documents were sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeldFrom {
    /// The first of them (`None`: no document was left to hold back).
    pub first: Option<HeldBack>,
    /// How many in all (skipped documents, never sent, are not counted).
    pub count: u64,
}

impl std::fmt::Display for FileChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.export, &self.cut, self.side.first()) {
            (Some(c), _, _) => write!(f, "the file changed while it was read ({c})"),
            (None, Some(cut), _) => {
                write!(f, "the file ends in the middle of a line: ")?;
                if cut.unclosed {
                    write!(
                        f,
                        "its last line, in the row from line {}, has no line end and a quote (\") in it is never \
                         closed",
                        cut.line
                    )
                } else {
                    write!(
                        f,
                        "its last line, line {}, has no line end and {} of the header's {} cells",
                        cut.line, cut.cells, cut.width
                    )
                }
            }
            (None, None, _) if self.damaged.is_some() => {
                write!(
                    f,
                    "the file could not be read to its end: {}",
                    self.damaged.as_deref().unwrap_or_default()
                )
            }
            (None, None, Some(s)) => write!(f, "{} changed while this export was read ({})", s.what, s.change),
            (None, None, None) => write!(f, "the file changed while it was read"),
        }
    }
}

impl std::error::Error for FileChanged {}

/// `A (line 2)`, `A (line 2) and B (line 5)`, `A (line 2), B (line 5) and 3 more`.
fn named(docs: &[HeldBack], count: u64) -> String {
    let mut names: Vec<String> = docs.iter().map(|h| format!("{} (line {})", h.number, h.line)).collect();
    let more = count.saturating_sub(names.len() as u64);
    if more > 0 {
        return format!("{} and {more} more", names.join(", "));
    }
    let last = names.pop().unwrap_or_default();
    if names.is_empty() {
        last
    } else {
        format!("{} and {last}", names.join(", "))
    }
}

/// What became of the last documents held back (`held`: "not sent", "held back"), for the
/// file's error: `its last two documents, A (line 2) and B (line 5), which may be incomplete,
/// were not sent`; empty when none was.
fn last_ones(held_back: &[HeldBack], held: &str) -> String {
    let named = |h: &HeldBack| format!("{} (line {})", h.number, h.line);
    match held_back {
        [] => String::new(),
        [one] if one.last => format!("its last document, {}, which may be incomplete, was {held}", named(one)),
        [one] => format!(
            "its last document but one, {}, which may be incomplete, was {held}",
            named(one)
        ),
        more => {
            let mut names: Vec<String> = more.iter().map(named).collect();
            let last = names.pop().unwrap_or_default();
            format!(
                "its last {} documents, {} and {last}, which may be incomplete, were {held}",
                if more.len() == 2 {
                    "two".to_string()
                } else {
                    more.len().to_string()
                },
                names.join(", ")
            )
        }
    }
}

/// Why a cut last line was cut short, as the findings and the file's error say it.
const CUT_CAUSE: &str = "it was cut short (still being written, or copied incompletely)";

impl FileChanged {
    /// The file's error: what changed, what was held back (`held`: "not sent", "held back"),
    /// and `again`, what to do once the file is complete (`... once it is complete`: when only
    /// files read with the export changed, it names them).
    pub fn explain(&self, held: &str, again: &str) -> String {
        let mut parts = Vec::new();
        if let Some(change) = &self.export {
            parts.push(match &self.midway {
                Some(from) => format!(
                    "the file changed while it was read ({change}): it was still being written, rewritten or \
                     replaced while its documents \
                     were being sent; {}",
                    midway_text(from, held)
                ),
                None => {
                    let which = last_ones(&self.held_back, held);
                    if which.is_empty() {
                        format!(
                            "the file changed while it was read ({change}): it was still being written or was \
                             replaced; rows written after it was read were not seen"
                        )
                    } else {
                        format!(
                            "the file changed while it was read ({change}): it was still being written or was \
                             replaced; {which} ({FILE_CHANGED_CODE}), and rows written after it was read were not \
                             seen"
                        )
                    }
                }
            });
        } else if self.cut.is_some() {
            let which = last_ones(&self.held_back, held);
            parts.push(if which.is_empty() {
                format!("{self}: {CUT_CAUSE}; the rest of the file was not seen")
            } else {
                format!("{self}: {CUT_CAUSE}; {which} ({FILE_CUT_CODE}), and the rest of the file was not seen")
            });
        } else if self.damaged.is_some() {
            let which = last_ones(&self.held_back, held);
            parts.push(if which.is_empty() {
                format!("{self}. The rows after that were not read")
            } else {
                format!(
                    "{self}. {} ({FILE_DAMAGED_CODE}), and the rows after it were not read",
                    capital(&which)
                )
            });
        }
        parts.extend(self.side.iter().map(|s| s.explain(held)));
        let again = if self.export.is_none() && self.cut.is_none() && self.damaged.is_some() {
            again.replace("once it is complete", "once it reads to its end")
        } else if self.export.is_none() && self.cut.is_none() && !self.side.is_empty() {
            let names: Vec<&str> = self.side.iter().map(|s| s.name.as_str()).collect();
            again.replace(
                "once it is complete",
                &format!(
                    "once {} {} complete",
                    names.join(" and "),
                    if names.len() == 1 { "is" } else { "are" }
                ),
            )
        } else {
            again.to_string()
        };
        format!("{}. {again}", parts.join(". "))
    }

    /// The finding on the first row of a document held back at the end of the rows: the `last`
    /// one, or the one before it; `sending` says whether documents are sent (`run`, `watch`) or
    /// only checked.
    pub fn finding(&self, sending: bool, last: bool) -> String {
        let which = if last {
            "this last document may be incomplete"
        } else {
            "this document may be incomplete (the last row read, after it, may be a row of its own, cut \
             short in its number)"
        };
        if self.export.is_none() && self.cut.is_none() && self.damaged.is_some() {
            let then = if sending {
                "is not sent; send the file again once it reads to its end (what was sent is reported from the ledger, \
                 nothing is sent twice)"
            } else {
                "is held back; check the file again once it reads to its end"
            };
            return format!("{self}; this document was being read there, so it may be incomplete and {then}");
        }
        let cause = if self.export.is_none() && self.cut.is_some() {
            CUT_CAUSE
        } else {
            "it was still being written or was replaced"
        };
        if sending {
            format!(
                "{self}: {cause}, so {which} and is not sent; send the file again once it is complete (what was \
                 sent is reported from the ledger, nothing is sent twice)"
            )
        } else {
            format!("{self}: {cause}, so {which} and is held back; check the file again once it is complete")
        }
    }

    /// The finding on the first row of a document read after (or just before) the file was seen
    /// changed while its documents were sent.
    pub fn midway_finding(&self) -> String {
        format!(
            "{self}: it was still being written, rewritten or \
             replaced while its documents were being sent, and this document was read \
             after that or just before it was seen, so it may mix rows (or parts of a row) of the two versions and \
             is not sent; send the file again once it is complete (what was sent is reported from the ledger, \
             nothing is sent twice)"
        )
    }
}

/// `the 3 documents from A (line 2) on, which may mix ..., were not sent (INV-FILE-CHANGED);
/// those before were read before it changed, and went on`.
fn midway_text(from: &HeldFrom, held: &str) -> String {
    let Some(first) = &from.first else {
        return "no document was left to hold back when that was seen, and rows written after it was read were \
                not seen"
            .to_string();
    };
    let docs = match from.count {
        1 => format!("the document from {} (line {}) on", first.number, first.line),
        n => format!(
            "the {} documents from {} (line {}) on",
            thousands(n),
            first.number,
            first.line
        ),
    };
    format!(
        "{docs}, which may mix rows (or parts of a row) of the two versions, {} {held} ({FILE_CHANGED_CODE}); \
         those before {} were read before it changed, and went on",
        if from.count == 1 { "was" } else { "were" },
        if from.count == 1 { "it" } else { "them" },
    )
}

/// `Its last document, ...`.
fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
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

/// Hold back the documents at the end of the rows that a cut may have left incomplete: `read`,
/// the units read and not yet released (the last document the grouper closed comes last among
/// their documents), and `last`, the unit the grouper closed at the end (the document open
/// there). Those are the document open at the end, and the last one of `read` (ended by the
/// open one's first row, or, when none was open, by a row outside any document, either of which
/// may be a cut row of its own). Each gets an error (`code`, `finding(last)`) on its first row,
/// so it is invalid and not sent; skipped documents (never sent) are left alone. Returns those
/// held back, in file order.
fn hold_last_two(
    read: &mut [Unit],
    last: &mut Option<Unit>,
    code: &'static str,
    finding: impl Fn(bool) -> String,
) -> Vec<HeldBack> {
    let open = match last {
        Some(Unit::Document(doc)) => Some(doc),
        _ => None,
    };
    let before = read.iter_mut().rev().find_map(|u| match u {
        Unit::Document(doc) => Some(doc),
        Unit::Stray(_) => None,
    });
    let open_at_end = open.is_some();
    [(before, !open_at_end), (open, true)]
        .into_iter()
        .filter_map(|(doc, last)| hold(doc?, code, last, &finding))
        .collect()
}

/// Hold `doc` back: an error (`code`, `finding(last)`) on its first row, so it is invalid and
/// not sent; a skipped document (never sent) is left alone.
fn hold(doc: &mut DocDraft, code: &'static str, last: bool, finding: impl Fn(bool) -> String) -> Option<HeldBack> {
    if doc.skip.is_some() {
        return None;
    }
    let first = doc.rows.first_mut()?;
    let line = first.source().map_or(0, |s| s.line);
    first.issues.push(Issue::error(code, None, None, finding(last)));
    Some(HeldBack {
        number: doc.key.clone(),
        line,
        last,
    })
}

/// The end of the rows of a file whose last line was cut short (`cut`): the documents a cut may
/// have left incomplete are held back as for a file changed at its end ([`Watched::at_end`]),
/// and what was cut is returned.
pub(super) fn cut_at_end(cut: CutLine, sending: bool, read: &mut [Unit], last: &mut Option<Unit>) -> FileChanged {
    let mut changed = FileChanged {
        cut: Some(cut),
        ..FileChanged::default()
    };
    changed.held_back = hold_last_two(read, last, FILE_CUT_CODE, |last| changed.finding(sending, last));
    changed
}

/// The end of the rows of a file its reader could not read further (`reason`, what the reader
/// said): the document open there may be missing its next rows, and is held back; the one
/// before it was ended by a whole row (the reader hands on only rows it read to their end), so
/// it is complete and goes on.
pub(super) fn damaged_at_end(reason: String, sending: bool, last: &mut Option<Unit>) -> FileChanged {
    let mut changed = FileChanged {
        damaged: Some(reason),
        ..FileChanged::default()
    };
    if let Some(Unit::Document(doc)) = last {
        changed.held_back.extend(hold(doc, FILE_DAMAGED_CODE, true, |last| {
            changed.finding(sending, last)
        }));
    }
    changed
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

    /// Whether the file changed since it was opened (one `stat`).
    pub(super) fn changed(&self) -> Option<FileChanged> {
        Change::since(&self.path, &self.opened).map(|c| FileChanged {
            export: Some(c),
            ..FileChanged::default()
        })
    }

    /// The end of the rows: `read`, the units read and not yet released, and `last`, the unit
    /// the grouper closed at the end. When the file changed, the documents that may still have
    /// been receiving rows are held back ([`hold_last_two`]), and what changed is returned.
    pub(super) fn at_end(&self, read: &mut [Unit], last: &mut Option<Unit>) -> Option<FileChanged> {
        let mut changed = self.changed()?;
        changed.held_back = hold_last_two(read, last, FILE_CHANGED_CODE, |last| {
            changed.finding(self.sending, last)
        });
        Some(changed)
    }

    /// After a batch's rows were read, before the batch is handed on to be sent: when the file
    /// changed since it was opened (one `stat`), what changed, to hold back every document from
    /// that batch on ([`hold_all`]).
    pub(super) fn midway(&self) -> Option<FileChanged> {
        self.changed().map(|c| FileChanged {
            midway: Some(HeldFrom::default()),
            ..c
        })
    }
}

/// Once a file was seen changed while its documents were sent (`changed`, from
/// [`Watched::midway`]): hold back every document of `units` (not the skipped ones, never
/// sent), counting them into what changed.
pub(super) fn hold_all(changed: &mut FileChanged, units: &mut [Unit]) {
    let finding = changed.midway_finding();
    let Some(from) = &mut changed.midway else { return };
    for u in units {
        if let Unit::Document(doc) = u
            && doc.skip.is_none()
            && let Some(first) = doc.rows.first_mut()
        {
            first
                .issues
                .push(Issue::error(FILE_CHANGED_CODE, None, None, finding.clone()));
            from.count += 1;
            if from.first.is_none() {
                from.first = Some(HeldBack {
                    number: doc.key.clone(),
                    line: first.source().map_or(0, |s| s.line),
                    last: false,
                });
            }
        }
    }
}

#[cfg(test)]
#[path = "stamp_tests.rs"]
mod tests;

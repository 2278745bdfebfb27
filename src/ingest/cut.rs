//! A text file whose last line was cut short before it was read: it has no line end and fewer
//! cells than the header (or a quote in it is never closed). A file copied incompletely, or
//! taken while its writer was still at work, ends so; an export that merely leaves out its final
//! line end has all the cells of its last line, and is not cut.
//!
//! The reader says so once it has read that line, through a [`LastLine`] handle taken before the
//! rows are handed on (boxed in an iterator, moved to another thread), and looked at once they
//! have run out.

use std::sync::{Arc, OnceLock};

/// The last line of a text file, cut short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutLine {
    /// The line its row starts on.
    pub line: u64,
    /// The cells it has.
    pub cells: usize,
    /// The header's cells.
    pub width: usize,
    /// It ends inside a quoted value whose quote (`"`) is never closed.
    pub unclosed: bool,
}

/// Whether the last line of a file was cut short, as its reader found it: set (once) when that
/// line is read; nothing for a spreadsheet or a file whose last line is whole.
#[derive(Debug, Clone, Default)]
pub struct LastLine(Arc<OnceLock<CutLine>>);

impl LastLine {
    /// The last line, when it was cut short (look once the rows have run out).
    pub fn cut(&self) -> Option<&CutLine> {
        self.0.get()
    }

    /// Say that the last line was cut short.
    pub(crate) fn set(&self, cut: CutLine) {
        // Only the last line can be cut: a second call cannot happen, and would change nothing.
        let _ = self.0.set(cut);
    }
}

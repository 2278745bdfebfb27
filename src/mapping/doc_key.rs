//! What tells one document of an export from another while its rows are grouped: its key (the
//! `number` field, or `[group] key`) and, when the mapping reads the document kind from a column
//! ([`Bound::kind_column`]), its kind as that column maps it. Tally numbers each voucher type
//! from 1: the rows of Sales 1 and of Credit Note 1 are two documents, next to each other or not,
//! and Sales 1 in two places is still one document in parts. Where the kind is not read from a
//! column (a constant, or negative amounts) a document is known by its key alone.
//!
//! A later row of the open document's key whose kind cell is blank, or says something the
//! mapping cannot read, stays with it (as any document column may be left blank on later rows;
//! a value that cannot be read is a conflict `agree` reports). A document's kind is the one its
//! first row gives, as it is built: the field's default for a blank cell, else an invoice.

use super::apply::Bound;
use crate::ingest::{Cell, CellRef, Row};
use crate::model::DocumentKind;
use std::hash::{DefaultHasher, Hash, Hasher};

/// A document's identity, as a 64-bit hash: its key, and its kind when documents are told apart
/// by kind (`None`: by key alone, the hash of the key as it always was). The kind is mixed into
/// the key's hash rather than hashed with it (hashed, it cost some 80 instructions more per hash,
/// two a document).
pub(super) fn hash(key: &str, kind: Option<DocumentKind>) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    let h = h.finish();
    match kind {
        None => h,
        // A distinct non-zero constant per kind: XOR with it permutes the key hashes, so the
        // documents of one kind are told apart as their keys are.
        Some(k) => h ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    }
}

/// A document's kind and number as messages name it (`credit note 1`), when another document
/// of the file has its number (`shared`); `None` otherwise (its number says which it is).
pub(super) fn named(key: &str, kind: Option<DocumentKind>, shared: bool) -> Option<String> {
    kind.filter(|_| shared).map(|k| format!("{} {key}", k.label()))
}

/// The kinds other than `kind`: where another document of the same number is looked for.
pub(super) fn other_kinds(kind: DocumentKind) -> impl Iterator<Item = DocumentKind> {
    DocumentKind::ALL.into_iter().filter(move |k| *k != kind)
}

/// The kind cell of the last document opened and the kind it gave: a row whose cell holds the
/// same is of that kind without the cell being read again (the usual case: every row of a
/// document, and most documents, say the same). Kept by the grouper and the first pass alike.
#[derive(Debug, Default)]
pub(super) struct KindMemo {
    /// The cell's text, when it is a text cell (compared as it is, the usual case).
    text: String,
    /// The cell, when it is not a text cell (a spreadsheet's number `0` or `1`, a blank).
    other: Option<Cell>,
    /// The kind it gave (`None`: no cell read yet).
    kind: Option<DocumentKind>,
}

impl KindMemo {
    /// The kind `cell` gave when it was read last, if it is the cell remembered.
    #[inline(always)]
    fn holds(&self, cell: CellRef<'_>) -> Option<DocumentKind> {
        let kind = self.kind?;
        let same = match (cell, &self.other) {
            (CellRef::Text(t), None) => t == self.text,
            (c, Some(other)) => other.borrowed() == c,
            (_, None) => false,
        };
        same.then_some(kind)
    }

    /// The kind of the document `row` opens: `None` when the mapping does not read the kind
    /// from a column.
    #[inline(always)]
    pub(super) fn opening(&mut self, bound: &Bound, row: &Row, header: Option<&Row>) -> Option<DocumentKind> {
        bound.kind_column()?;
        let cell = bound.kind_cell(row, header);
        if let Some(kind) = self.holds(cell) {
            return Some(kind);
        }
        Some(self.read(bound, row, header, cell))
    }

    /// [`KindMemo::opening`] for a cell other than the one remembered: read and remembered
    /// (out of line, as [`read_same`]).
    #[inline(never)]
    fn read(&mut self, bound: &Bound, row: &Row, header: Option<&Row>, cell: CellRef<'_>) -> DocumentKind {
        let kind = bound.opening_kind(row, header);
        match cell {
            CellRef::Text(t) => {
                self.text.clear();
                self.text.push_str(t);
                self.other = None;
            }
            c => self.other = Some(c.to_cell()),
        }
        self.kind = Some(kind);
        kind
    }

    /// True when `row`, of the open document's key, is of the open document (of kind `open`,
    /// as [`KindMemo::opening`] gave it): documents are not told apart by kind, or the row's
    /// kind cell says the same as the open document's first row, or is blank, or cannot be
    /// read, or maps to the same kind.
    #[inline(always)]
    pub(super) fn same(&self, open: Option<DocumentKind>, bound: &Bound, row: &Row, header: Option<&Row>) -> bool {
        let Some(open) = open else {
            return true;
        };
        let cell = bound.kind_cell(row, header);
        // The memo is the open document's first row's cell, or one that gave the same kind.
        if let Some(kind) = self.holds(cell) {
            return kind == open;
        }
        read_same(open, bound, row, header)
    }
}

/// [`KindMemo::same`] for a cell other than the one remembered: read (rare; kept out of line, so
/// that the usual case is a comparison where the grouper calls it).
#[inline(never)]
fn read_same(open: DocumentKind, bound: &Bound, row: &Row, header: Option<&Row>) -> bool {
    bound.row_kind(row, header).is_none_or(|k| k == open)
}

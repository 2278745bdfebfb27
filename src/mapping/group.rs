//! Rows into documents, streaming.
//!
//! Rows sharing a document key (the `number` field, or `[group] key`) form one document; they must
//! be contiguous. When the mapping reads the document kind from a column, rows of one key but of
//! two kinds (Tally's Sales 1 and Credit Note 1) are two documents (see `doc_key.rs`). Only the
//! rows of the open document are held; a closed document's number (and kind) is remembered as a
//! 64-bit hash with its first line and issue date (a few dozen bytes per document, never the
//! rows). The issue dates let a credit note find the date of the invoice it corrects
//! when that invoice is in the same file.
//!
//! A key whose rows are in more than one block of the file (another document's rows, or a row
//! without a number, between them) is a document split in parts: no part of it may be issued,
//! since the first part, complete in appearance, would be sent before the rest is read. A first
//! pass over the file ([`KeyScan`], `splits.rs`: the same block logic as the grouper, a hash per
//! document) finds those keys ([`SplitKeys`]) before any document is evaluated; the grouper
//! given them puts `INV-MAP-SPLIT` on the first row of every part. Without them (`check`'s first
//! pass) a key that reappears is found only on its later parts, which get the same code: `check`
//! then checks the file again with the keys known (see `commands/check.rs`).
//!
//! Rows that belong to no document (a continuation row before any document, a row without a
//! number, an unreadable record between documents) are emitted as stray rows, in place.

use super::Issue;
use super::apply::{Bound, Value};
use super::build::NamedNote;
use super::doc_key::{KindMemo, hash, named, other_kinds};
use super::fields::fid;
use super::headers::RepeatMemo;
use super::numbers_used::{NUMBER_USED_CODE, NumbersHere, NumbersUsed};
use super::splits::{SplitKeys, split_issue};
use crate::ingest::{self, Row, SourceRef};
use crate::model::DocumentKind;
use chrono::NaiveDate;
use std::collections::HashMap;
use std::sync::Arc;

/// Why a row is not a line of its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowNote {
    /// The header line repeated inside the data (concatenated exports): skipped.
    HeaderRepeat,
    /// A row of the export that holds no data ([`ingest::NotData`]: above the header, a header
    /// row after the first, a blank line between data rows): skipped, kept on its line.
    NoData,
    /// The record could not be read (or belongs nowhere): the row is invalid.
    Broken,
    /// A row of no document number that a skip rule matches (a totals or footer row the
    /// mapping says not to issue): skipped, no row of the document above.
    Skipped,
}

/// One input row, as held until its document is done.
#[derive(Debug, Clone)]
pub struct DraftRow {
    /// Where a record the reader could not read came from; a row carries its own (see
    /// [`DraftRow::source`]), so it is not copied here: a copy per row was a reference count
    /// raised on the reading thread and lowered on another.
    source: Option<SourceRef>,
    /// The row itself (`None` for a record the reader could not read).
    pub row: Option<Row>,
    /// Problems found while grouping.
    pub issues: Vec<Issue>,
    /// Set when the row is not a line.
    pub note: Option<RowNote>,
}

impl DraftRow {
    /// Where it came from: the row's own source, or that of the record that could not be read.
    pub fn source(&self) -> Option<&SourceRef> {
        self.row.as_ref().map(|r| &r.source).or(self.source.as_ref())
    }

    /// True when the row is a line of its document.
    pub fn is_line(&self) -> bool {
        self.note.is_none() && self.row.is_some()
    }

    /// True when the row is no row of any document, even among a document's rows (the header
    /// line repeated, a row of no data): `skipped`, with no `result_document`, and not counted
    /// in its document's rows or findings.
    pub fn outside_document(&self) -> bool {
        matches!(
            self.note,
            Some(RowNote::HeaderRepeat | RowNote::NoData | RowNote::Skipped)
        )
    }
}

/// The rows of one document.
#[derive(Debug, Clone)]
pub struct DocDraft {
    /// The document key.
    pub key: String,
    /// Its kind, when the mapping reads the kind from a column ([`Bound::kind_column`]): the
    /// document is known by its key and kind. `None`: by its key alone.
    pub kind: Option<DocumentKind>,
    /// Its rows, in input order.
    pub rows: Vec<DraftRow>,
    /// Set when a skip rule matched the first row: (reason, column, value).
    pub skip: Option<(String, String, String)>,
    /// Set when the key's rows are in more than one block of the file (its first row then
    /// carries `INV-MAP-SPLIT`): no part of the document may be issued.
    pub split: bool,
    /// The issue date of the corrected invoice, when found earlier in the same file.
    pub original_date: Option<NaiveDate>,
    /// A note's corrected "invoice" when it is a credit or debit note (above it in its file, or
    /// in a file checked before) and no invoice of that number is there: an error.
    pub original_note: Option<Box<NamedNote>>,
}

impl DocDraft {
    /// The row its document fields are read from, with its index in `rows`: its first line row
    /// whose cells are in place, as a row with more cells than headers (or a quote that took in
    /// the lines after it) may have them shifted (`17,678.80` unquoted in the first row would
    /// have every other row contradict its shifted Status); its first line row when all are.
    pub fn reference(&self) -> Option<(usize, &Row)> {
        let mut lines = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_line())
            .filter_map(|(i, r)| r.row.as_ref().map(|row| (i, row)));
        let first = lines.next()?;
        if !first.1.cells_shifted() {
            return Some(first);
        }
        Some(lines.find(|(_, r)| !r.cells_shifted()).unwrap_or(first))
    }

    /// The document's number when it is not built (its rows make no document, or a skip rule
    /// keeps it): the `number` field as its first line row, with its joined header row, gives
    /// it; its key when that gives nothing. A SAP Business One document is grouped by its lines'
    /// `ParentKey` (4) but known by its header's `DocNum` (600204), which a header whose date
    /// cannot be read still gives. Read once per such document, never for a built one.
    pub fn number(&self, bound: &Bound) -> String {
        self.reference()
            .map(|(_, r)| r)
            .and_then(|r| bound.text(fid!("number"), r, bound.header_row(r).ok().flatten()))
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| self.key.clone())
    }
}

/// What the grouper hands on, in input order.
#[derive(Debug, Clone)]
pub enum Unit {
    /// A document's rows.
    Document(DocDraft),
    /// A row outside any document.
    Stray(DraftRow),
}

/// The code (a warning) of a blank line between the export's data rows.
pub const BLANK_CODE: &str = "INV-ROW-BLANK";

/// The code of a document whose rows are in more than one block of the file.
pub const SPLIT_CODE: &str = "INV-MAP-SPLIT";
/// The rule code of a document followed by a row without a number, which may be one of its
/// lines: it is not issued without that row.
pub const ORPHAN_CODE: &str = "INV-MAP-ORPHAN";
/// The rule code (a warning) of a row hidden in the workbook.
pub const HIDDEN_CODE: &str = "INV-ROW-HIDDEN";

/// [`NumbersUsed`] while one file is read.
#[derive(Debug)]
struct UsedHere {
    used: NumbersUsed,
    /// This file's index.
    file: u32,
}

/// Where a row goes, given the open document's key: the same block (a line of the open
/// document, or a continuation row), no document (a row without a number), or a new block.
/// The one rule of blocks, for the grouper and for [`KeyScan`] alike. `same_kind`, asked only of
/// a row of the open document's key: whether it is of the open document's kind
/// ([`KindMemo::same`]); a row of another kind opens a new block.
pub(super) enum Block {
    Same,
    Stray,
    New,
}

pub(super) fn block(
    key: &str,
    open: Option<&str>,
    continuation: bool,
    unreadable: bool,
    same_kind: impl FnOnce() -> bool,
) -> Block {
    if key.is_empty() {
        if continuation && open.is_some() && !unreadable {
            Block::Same
        } else {
            Block::Stray
        }
    } else if open == Some(key) && same_kind() {
        Block::Same
    } else {
        Block::New
    }
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    line: u64,
    date: Option<NaiveDate>,
}

/// Streams rows into [`Unit`]s.
#[derive(Debug)]
pub struct Grouper {
    bound: Arc<Bound>,
    open: Option<DocDraft>,
    open_date: Option<NaiveDate>,
    /// The documents closed, by the hash of their key (and kind).
    seen: HashMap<u64, Seen>,
    kinds: KindMemo,
    repeat_memo: RepeatMemo,
    /// The split keys, when a first pass found them ([`KeyScan`]).
    splits: Option<Arc<SplitKeys>>,
    /// The numbers of the files checked before this one (`check` of several files).
    used: Option<UsedHere>,
    /// This file's numbers, where documents are grouped by another column than their number.
    here: NumbersHere,
    /// The line of the row without a document number just read (its number cell blank), when
    /// the next row may open a document: that row may be the new document's first line.
    stray_above: Option<u64>,
    /// The line and number of the row just read whose number held undecodable bytes, when it
    /// opened a document: it may be the next document's line ([`Grouper::unread_below`]).
    unread_above: Option<(u64, String)>,
}

impl Grouper {
    /// A grouper for rows of a bound mapping, the split keys not known: a key that reappears
    /// is said on its later parts only.
    pub fn new(bound: Arc<Bound>) -> Self {
        Self::with_splits(bound, None)
    }

    /// A grouper that knows the file's split keys (from a [`KeyScan`] of the same rows): every
    /// part of a split document says so on its first row.
    pub fn with_splits(bound: Arc<Bound>, splits: Option<Arc<SplitKeys>>) -> Self {
        Grouper {
            bound,
            open: None,
            open_date: None,
            seen: HashMap::new(),
            kinds: KindMemo::default(),
            repeat_memo: RepeatMemo::default(),
            splits,
            used: None,
            here: NumbersHere::default(),
            stray_above: None,
            unread_above: None,
        }
    }

    /// Remember the numbers of this file, `file`, in `used`, and say on the first row of a
    /// document whose number a document of an earlier file has that it is used already.
    pub fn with_numbers_used(mut self, mut used: NumbersUsed, file: &str) -> Self {
        let file = used.file(file);
        self.used = Some(UsedHere { used, file });
        self
    }

    /// The numbers remembered (this file's among them), to be given to the next file's grouper.
    pub fn take_numbers_used(&mut self) -> Option<NumbersUsed> {
        self.used.take().map(|u| u.used)
    }

    /// Documents closed so far (distinct keys, or keys and kinds).
    pub fn documents_seen(&self) -> usize {
        self.seen.len()
    }

    fn close(&mut self) -> Option<Unit> {
        let mut doc = self.open.take()?;
        let line = doc.rows.first().and_then(DraftRow::source).map_or(0, |s| s.line);
        let h = hash(&doc.key, doc.kind);
        self.seen.entry(h).or_insert(Seen {
            line,
            date: self.open_date.take(),
        });
        // A note whose corrected invoice is earlier in this file takes that invoice's date (where
        // documents are known by kind too, the invoice of that number); in `check` of several
        // files, failing that, the date of that invoice in a file checked before.
        // A first row whose cells may be shifted decided nothing: the skip rule reads the row
        // the document's fields are read from; when every row's cells may be shifted (a quote
        // that took in the lines up to another document's `Voided`), no row decides, and the
        // document is checked, its rows saying what is wrong with them.
        match doc.reference() {
            Some((at, r)) if at > 0 => {
                let skip = self.bound.skip_reason(r, self.bound.header_row(r).ok().flatten());
                doc.skip = skip;
            }
            Some((_, r)) if r.cells_shifted() => doc.skip = None,
            _ => {}
        }
        if let Some((_, first)) = doc.reference() {
            let header = self.bound.header_row(first).ok().flatten();
            let invoice = doc.kind.map(|_| DocumentKind::Invoice);
            if let Some(orig) = self.bound.text(fid!("original_number"), first, header) {
                let orig = orig.trim();
                doc.original_date = match self.seen.get(&hash(orig, invoice)) {
                    Some(s) => s.date,
                    // `check` of several files: the invoice of a file checked before this one.
                    None => self.used.as_ref().and_then(|u| u.used.invoice_date(orig, u.file)),
                };
                // Where kinds are read from a column: no invoice of that number here, but a note.
                if doc.original_date.is_none() && doc.kind.is_some_and(DocumentKind::is_note) {
                    doc.original_note = self.named_note(orig).map(Box::new);
                }
            }
        }
        Some(Unit::Document(doc))
    }

    /// True when a document closed before has `key` under another kind than `kind`: messages
    /// then name the kind (`credit note 1`). False where documents are not known by kind.
    fn shared(&self, key: &str, kind: Option<DocumentKind>) -> bool {
        kind.is_some_and(|kind| other_kinds(kind).any(|o| self.seen.contains_key(&hash(key, Some(o)))))
    }

    /// The open document as messages name it: its number, or its kind and number when a
    /// document closed before has its number.
    fn open_name(&self) -> String {
        match &self.open {
            Some(d) => named(&d.key, d.kind, self.shared(&d.key, d.kind)).unwrap_or_else(|| d.key.clone()),
            None => String::new(),
        }
    }

    fn open(&mut self, key: String, kind: Option<DocumentKind>, mut row: DraftRow) {
        let (skip, date) = match &row.row {
            Some(r) => {
                let header = self.bound.header_row(r).ok().flatten();
                let date = match self.bound.field(fid!("issue_date"), r, header) {
                    Ok(Some(s)) => match s.value {
                        Value::Date(d) => Some(d),
                        _ => None,
                    },
                    _ => None,
                };
                (self.bound.skip_reason(r, header), date)
            }
            None => (None, None),
        };
        let h = hash(&key, kind);
        let parts = self.splits.as_deref().and_then(|s| s.get(h));
        let earlier = self.seen.get(&h).map(|s| s.line);
        let split = parts.is_some() || earlier.is_some();
        if split {
            let shared = parts.is_some_and(|p| p.shared()) || self.shared(&key, kind);
            let name = named(&key, kind, shared);
            row.issues
                .push(split_issue(&self.bound, &key, name.as_deref(), parts, earlier));
        }
        if skip.is_none() {
            self.number_used(&key, kind, date, &mut row);
        }
        self.open_date = date;
        self.open = Some(DocDraft {
            key,
            kind,
            rows: vec![row],
            skip,
            split,
            original_date: None,
            original_note: None,
        });
    }

    /// Say on the first row of a document (not skipped) that its number is used already: by a
    /// document of a file checked before (`check` of several files), or, where documents are
    /// grouped by another column than their number (SAP's `ParentKey`), by an earlier document
    /// of this file under another key. The number is the document's (`DocNum`), and the finding
    /// is on its column; elsewhere the key is the number.
    fn number_used(&mut self, key: &str, kind: Option<DocumentKind>, date: Option<NaiveDate>, row: &mut DraftRow) {
        let line = row.source().map_or(0, |s| s.line);
        let apart = row.row.as_ref().and_then(|r| {
            let header = self.bound.header_row(r).ok().flatten();
            self.bound.number_apart(r, header)
        });
        let (number, column) = match &apart {
            Some((n, label)) => (n.as_str(), label.filter(|l| !l.is_empty())),
            None => (key, self.bound.key_label().filter(|l| !l.is_empty())),
        };
        let column = column.map(str::to_string);
        let key_label = self.bound.key_label().filter(|l| !l.is_empty()).unwrap_or("its key");
        if apart.is_some()
            && let Some(first) = self.here.note(number, kind, key, line)
        {
            row.issues.push(Issue::error(
                NUMBER_USED_CODE,
                column.clone(),
                Some(number.to_string()),
                format!(
                    "this number is already used by the document at line {first} of this file, under another \
                     {key_label} (this one's is {key:?}): a number is issued once; if this is the same document \
                     exported twice, remove one of the two (its header record and its lines), else give this one a \
                     number of its own"
                ),
            ));
            return;
        }
        let Some(here) = &mut self.used else { return };
        if let Some((file, first)) = here.used.note(number, kind, here.file, line, date) {
            let name = here.used.file_name(file);
            row.issues.push(Issue::error(
                NUMBER_USED_CODE,
                column,
                Some(number.to_string()),
                format!(
                    "this number is already used by the document at line {first} of {name}, checked before \
                     this file: a number is issued once; if this is the same document exported twice, remove it \
                     from one of the two files, else give this one a number of its own"
                ),
            ));
        }
    }

    /// Feed one row; returns the units it completes (zero, one or two), in order.
    pub fn push(&mut self, row: Row) -> Vec<Unit> {
        let mut out = Vec::new();
        if let Some(kind) = row.not_data() {
            let dr = DraftRow {
                source: None,
                row: Some(row),
                issues: vec![no_data_issue(kind)],
                note: Some(RowNote::NoData),
            };
            match &mut self.open {
                Some(doc) => doc.rows.push(dr),
                None => out.push(Unit::Stray(dr)),
            }
            return out;
        }
        if self.bound.headers.is_header_repeat(&row, &mut self.repeat_memo) {
            let dr = DraftRow {
                source: None,
                row: Some(row),
                issues: vec![Issue::warning(
                    "INV-ROW-HEADER",
                    None,
                    None,
                    "the header line repeated inside the data: skipped",
                )],
                note: Some(RowNote::HeaderRepeat),
            };
            match &mut self.open {
                Some(doc) => doc.rows.push(dr),
                None => out.push(Unit::Stray(dr)),
            }
            return out;
        }
        let mut issues = Vec::new();
        if let Some(p) = row.problem() {
            let column = p.column.map(|i| self.bound.column_label(i).to_string());
            issues.push(Issue::error(p.code, column, p.value.clone(), p.message.clone()));
        } else if let Some(short) = self.bound.short_row(&row) {
            issues.push(short);
        }
        if row.hidden() {
            issues.push(hidden_issue());
        }
        let header = self.bound.header_row_said(&row, &mut issues);
        let key = self.bound.key(&row, header);
        // A number cell holding a spreadsheet error (`#REF!`): no number, and no continuation
        // of the document above either, though it may be one of its lines.
        let error_cell = if key.is_empty() {
            self.bound.key_error(&row, header).map(str::to_string)
        } else {
            None
        };
        let continuation = self.bound.mapping.continuation;
        let open_kind = self.open.as_ref().and_then(|d| d.kind);
        let place = block(
            &key,
            self.open.as_ref().map(|d| d.key.as_str()),
            continuation,
            error_cell.is_some(),
            || self.kinds.same(open_kind, &self.bound, &row, header),
        );
        // A row without a number just above: this row opens a document (or is that number-less
        // row's own), or continues one.
        let stray_above = self.stray_above.take();
        let unread_above = self.unread_above.take();
        if let (Block::Same, Some(doc)) = (&place, &mut self.open) {
            doc.rows.push(DraftRow {
                source: None,
                row: Some(row),
                issues,
                note: None,
            });
            return out;
        }
        let kind = match place {
            Block::New => self.kinds.opening(&self.bound, &row, header),
            _ => None,
        };
        let key = key.into_owned();
        let mut dr = DraftRow {
            source: None,
            row: Some(row),
            issues,
            note: None,
        };
        if let Block::Stray = place
            && error_cell.is_none()
            && let Some(row) = &dr.row
            && let Some((reason, column, value)) = self.bound.skip_reason(row, header)
        {
            // A row of no document number the mapping says not to issue (a totals row at the
            // bottom of a workbook): skipped on its own, and no missing line of the document
            // above.
            dr.issues
                .push(Issue::warning("INV-SKIP", Some(column), Some(value), reason));
            dr.note = Some(RowNote::Skipped);
            out.extend(self.close());
            out.push(Unit::Stray(dr));
            return out;
        }
        if let Block::Stray = place {
            self.push_stray(dr, error_cell, &mut out);
            return out;
        }
        // A number with undecodable bytes may be the document's above or below it.
        let line = dr.source().map_or(0, |s| s.line);
        self.unread_after_open(&key, line);
        out.extend(self.close());
        self.open(key, kind, dr);
        self.unread_below(unread_above);
        if let (Some(line), Some(doc)) = (stray_above, &mut self.open)
            && doc.skip.is_none()
            && !doc.split
        {
            // The document below may be missing this line (its first, its number left blank): it
            // is not issued without it, as the document above is not.
            let issue = orphan_below_issue(&self.bound, &doc.key, line);
            doc.rows[0].issues.push(issue);
        }
        out
    }

    /// Feed a record the reader could not read. It joins the open document (which then cannot
    /// be issued: one of its rows is missing) or stands alone between documents.
    pub fn push_error(&mut self, source: Option<SourceRef>, message: String) -> Vec<Unit> {
        let dr = DraftRow {
            source,
            row: None,
            issues: vec![Issue::error("INV-ROW-READ", None, None, message)],
            note: Some(RowNote::Broken),
        };
        match &mut self.open {
            Some(doc) => {
                doc.rows.push(dr);
                Vec::new()
            }
            None => vec![Unit::Stray(dr)],
        }
    }

    /// The end of the file: the last document.
    pub fn finish(&mut self) -> Option<Unit> {
        self.close()
    }
}

mod issues;
mod named;
mod stray;
mod unread;
use issues::{hidden_issue, no_data_issue, orphan_below_issue};

#[cfg(test)]
#[path = "tests_sheet_cells.rs"]
mod tests_sheet_cells;

//! Rows into documents, streaming.
//!
//! Rows sharing a document key (the `number` field, or `[group] key`) form one document; they must
//! be contiguous. Only the rows of the open document are held; a closed document's number is
//! remembered as a 64-bit hash with its first line and issue date (a few dozen bytes per document,
//! never the rows), so a number that reappears later in the file is reported as an error on the
//! second group of rows instead of being merged silently or buffering the whole file. The issue
//! dates let a credit note find the date of the invoice it corrects when that invoice is in the
//! same file.
//!
//! Rows that belong to no document (a continuation row before any document, a row without a
//! number, an unreadable record between documents) are emitted as stray rows, in place.

use super::Issue;
use super::apply::{Bound, Value};
use super::fields::fid;
use super::headers::RepeatMemo;
use crate::ingest::{Row, SourceRef};
use chrono::NaiveDate;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

/// Why a row is not a line of its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowNote {
    /// The header line repeated inside the data (concatenated exports): skipped.
    HeaderRepeat,
    /// The record could not be read (or belongs nowhere): the row is invalid.
    Broken,
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
}

/// The rows of one document.
#[derive(Debug, Clone)]
pub struct DocDraft {
    /// The document key.
    pub key: String,
    /// Its rows, in input order.
    pub rows: Vec<DraftRow>,
    /// Set when a skip rule matched the first row: (reason, column, value).
    pub skip: Option<(String, String, String)>,
    /// Set when the same key closed earlier in the file: that document's first line.
    pub duplicate_of: Option<u64>,
    /// The issue date of the corrected invoice, when found earlier in the same file.
    pub original_date: Option<NaiveDate>,
}

/// What the grouper hands on, in input order.
#[derive(Debug, Clone)]
pub enum Unit {
    /// A document's rows.
    Document(DocDraft),
    /// A row outside any document.
    Stray(DraftRow),
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
    seen: HashMap<u64, Seen>,
    repeat_memo: RepeatMemo,
}

fn hash(key: &str) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl Grouper {
    /// A grouper for rows of a bound mapping.
    pub fn new(bound: Arc<Bound>) -> Self {
        Grouper {
            bound,
            open: None,
            open_date: None,
            seen: HashMap::new(),
            repeat_memo: RepeatMemo::default(),
        }
    }

    /// Documents closed so far (distinct numbers).
    pub fn documents_seen(&self) -> usize {
        self.seen.len()
    }

    fn close(&mut self) -> Option<Unit> {
        let mut doc = self.open.take()?;
        let line = doc.rows.first().and_then(DraftRow::source).map_or(0, |s| s.line);
        let h = hash(&doc.key);
        self.seen.entry(h).or_insert(Seen {
            line,
            date: self.open_date.take(),
        });
        // A note whose corrected invoice is earlier in this file takes that invoice's date.
        if let Some(first) = doc.rows.iter().find(|r| r.is_line()).and_then(|r| r.row.as_ref()) {
            let header = self.bound.header_row(first).ok().flatten();
            if let Some(orig) = self.bound.text(fid!("original_number"), first, header)
                && let Some(s) = self.seen.get(&hash(orig.trim()))
            {
                doc.original_date = s.date;
            }
        }
        Some(Unit::Document(doc))
    }

    fn open(&mut self, key: String, row: DraftRow) {
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
        let duplicate_of = self.seen.get(&hash(&key)).map(|s| s.line);
        self.open_date = date;
        self.open = Some(DocDraft {
            key,
            rows: vec![row],
            skip,
            duplicate_of,
            original_date: None,
        });
    }

    /// Feed one row; returns the units it completes (zero, one or two), in order.
    pub fn push(&mut self, row: Row) -> Vec<Unit> {
        let mut out = Vec::new();
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
        let header = match self.bound.header_row(&row) {
            Ok(h) => h,
            Err(e) => {
                issues.push(e);
                None
            }
        };
        let key = self.bound.key(&row, header);
        if !key.is_empty()
            && let Some(doc) = &mut self.open
            && doc.key == key
        {
            doc.rows.push(DraftRow {
                source: None,
                row: Some(row),
                issues,
                note: None,
            });
            return out;
        }
        let key = key.into_owned();
        let mut dr = DraftRow {
            source: None,
            row: Some(row),
            issues,
            note: None,
        };
        if key.is_empty() {
            if self.bound.mapping.continuation
                && let Some(doc) = &mut self.open
            {
                doc.rows.push(dr);
                return out;
            }
            let what = if self.bound.mapping.continuation {
                "a continuation row (blank document number) with no document above it"
            } else {
                "no document number in this row"
            };
            dr.issues.push(Issue::error("INV-MAP-NUMBER", None, None, what));
            dr.note = Some(RowNote::Broken);
            out.extend(self.close());
            out.push(Unit::Stray(dr));
            return out;
        }
        out.extend(self.close());
        self.open(key, dr);
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

//! Documents in parts: a key whose rows are in more than one block of the file (another
//! document's rows, or a row without a number, between them). A first pass over the file
//! ([`KeyScan`], the grouper's own block rule, a hash per document) finds those keys
//! ([`SplitKeys`]) before any document is evaluated, with where their parts start and, for
//! `run`, the document number each gives (to ask the ledger whether it is issued); the
//! grouper given them puts `INV-MAP-SPLIT` on the first row of every part ([`split_issue`]).
//! Where the mapping reads the document kind from a column, a key is split only when its rows
//! of one kind are apart: the rows of invoice 1 and of credit note 1 are two documents
//! (`doc_key.rs`).

use super::Issue;
use super::apply::Bound;
use super::doc_key::{KindMemo, hash, other_kinds};
use super::fields::fid;
use super::group::{Block, SPLIT_CODE, block};
use super::headers::RepeatMemo;
use crate::ingest::Row;
use crate::model::DocumentKind;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

/// The first lines kept of a split key's parts (the message names them, then how many more).
const PART_LINES: usize = 6;

/// Where one split key's parts start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Parts {
    /// The first lines of its first parts, in file order (at most [`PART_LINES`]).
    lines: Vec<u64>,
    /// How many parts.
    count: u64,
    /// The key itself, and the document number its rows give (the key, unless the mapping
    /// groups by another column), read where the key was found split: `run` asks the ledger
    /// whether that number is issued.
    key: String,
    number: String,
    /// Its kind, where documents are known by kind too.
    kind: Option<DocumentKind>,
    /// Another document of the file has its key (under another kind): messages name its kind.
    shared: bool,
}

impl Parts {
    /// `its 2 parts start at lines 2 and 5`.
    fn starts(&self) -> String {
        let mut lines: Vec<String> = self.lines.iter().map(u64::to_string).collect();
        let more = self.count.saturating_sub(self.lines.len() as u64);
        let list = if more > 0 {
            format!("{} and {more} more", lines.join(", "))
        } else {
            let last = lines.pop().unwrap_or_default();
            if lines.is_empty() {
                last
            } else {
                format!("{} and {last}", lines.join(", "))
            }
        };
        format!("its {} parts start at lines {list}", self.count)
    }

    /// True when another document of the file has its key, under another kind.
    pub(super) fn shared(&self) -> bool {
        self.shared
    }
}

/// The document keys whose rows are in more than one block of a file, each with the first lines
/// of its parts: a hash per key, as the grouper keeps per document, never the rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitKeys {
    parts: HashMap<u64, Parts>,
}

impl SplitKeys {
    /// No key is split.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// How many keys are split.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// A key (of `kind`) seen first at `first` opens another part at `line`; `named`: the key
    /// and the document number, asked for only when the key is found split.
    fn add(
        &mut self,
        h: u64,
        kind: Option<DocumentKind>,
        first: u64,
        line: u64,
        named: impl FnOnce() -> (String, String),
    ) {
        let p = self.parts.entry(h).or_insert_with(|| {
            let (key, number) = named();
            Parts {
                lines: vec![first],
                count: 1,
                key,
                number,
                kind,
                shared: false,
            }
        });
        if p.lines.len() < PART_LINES {
            p.lines.push(line);
        }
        p.count += 1;
    }

    pub(super) fn get(&self, h: u64) -> Option<&Parts> {
        self.parts.get(&h)
    }

    /// The split keys, each with the document number its rows give and its kind (where
    /// documents are known by kind too), in no particular order.
    pub fn numbers(&self) -> impl Iterator<Item = (&str, &str, Option<DocumentKind>)> {
        self.parts.values().map(|p| (p.key.as_str(), p.number.as_str(), p.kind))
    }

    /// The parts of a key of `kind` (as [`DocDraft::kind`](super::DocDraft::kind) gives it).
    fn of(&self, key: &str, kind: Option<DocumentKind>) -> Option<&Parts> {
        self.get(hash(key, kind)).filter(|p| p.key == key && p.kind == kind)
    }

    /// How many parts the key of `kind` has (0: not split).
    pub fn part_count(&self, key: &str, kind: Option<DocumentKind>) -> u64 {
        self.of(key, kind).map_or(0, |p| p.count)
    }

    /// Where the parts of the key of `kind` start, as findings say it (`its 2 parts start at
    /// lines 2 and 5`).
    pub fn starts(&self, key: &str, kind: Option<DocumentKind>) -> Option<String> {
        self.of(key, kind).map(Parts::starts)
    }

    /// The key of `kind` as messages name it: `credit note 1` when another document of the file
    /// has its key under another kind, else `None` (its number says which it is).
    pub fn name(&self, key: &str, kind: Option<DocumentKind>) -> Option<String> {
        super::doc_key::named(key, kind, self.of(key, kind).is_some_and(|p| p.shared))
    }
}

/// The first pass over a file: the keys whose rows are in more than one block ([`SplitKeys`]),
/// by the grouper's own rules (a repeated header line or an unreadable record stays in the
/// open block; a row without a number, unless it continues one, ends it). Keeps the open key
/// and a hash and first line per key; reads no field but the key (and the kind cell, where
/// documents are known by kind too), and the number of a key found split (once).
#[derive(Debug)]
pub struct KeyScan {
    bound: Arc<Bound>,
    open: Option<String>,
    open_kind: Option<DocumentKind>,
    kinds: KindMemo,
    first: HashMap<u64, u64>,
    splits: SplitKeys,
    repeat_memo: RepeatMemo,
}

impl KeyScan {
    /// A scan for rows of a bound mapping.
    pub fn new(bound: Arc<Bound>) -> Self {
        KeyScan {
            bound,
            open: None,
            open_kind: None,
            kinds: KindMemo::default(),
            first: HashMap::new(),
            splits: SplitKeys::default(),
            repeat_memo: RepeatMemo::default(),
        }
    }

    /// One row.
    pub fn push(&mut self, row: &Row) {
        if self.bound.headers.is_header_repeat(row, &mut self.repeat_memo) {
            return;
        }
        let header = self.bound.header_row(row).ok().flatten();
        let key = self.bound.key(row, header);
        let unreadable = key.is_empty() && self.bound.key_error(row, header).is_some();
        let kinds = &self.kinds;
        let same_kind = || kinds.same(self.open_kind, &self.bound, row, header);
        match block(
            &key,
            self.open.as_deref(),
            self.bound.mapping.continuation,
            unreadable,
            same_kind,
        ) {
            Block::Same => {}
            Block::Stray => self.open = None,
            Block::New => {
                let line = row.source.line;
                let kind = self.kinds.opening(&self.bound, row, header);
                self.open_kind = kind;
                let h = hash(&key, kind);
                match self.first.entry(h) {
                    Entry::Vacant(e) => {
                        e.insert(line);
                    }
                    Entry::Occupied(e) => {
                        let bound = &self.bound;
                        self.splits.add(h, kind, *e.get(), line, || {
                            let number = bound.text(fid!("number"), row, header);
                            let number = number.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
                            let number = number.unwrap_or_else(|| key.to_string());
                            (key.to_string(), number)
                        });
                    }
                }
                let open = self.open.get_or_insert_with(String::new);
                open.clear();
                open.push_str(&key);
            }
        }
    }

    /// A record the reader could not read: it stays in the open block (see
    /// [`Grouper::push_error`]).
    pub fn push_error(&mut self) {}

    /// The split keys.
    pub fn finish(mut self) -> SplitKeys {
        // Where documents are known by kind too: which split keys another kind has.
        for p in self.splits.parts.values_mut() {
            if let Some(kind) = p.kind {
                p.shared = other_kinds(kind).any(|o| self.first.contains_key(&hash(&p.key, Some(o))));
            }
        }
        self.splits
    }
}

/// `this document's rows`, or `the rows of credit note 1` when `name`d (another document of
/// the file has its number).
pub fn whose_rows(name: Option<&str>) -> String {
    match name {
        Some(name) => format!("the rows of {name}"),
        None => "this document's rows".to_string(),
    }
}

/// The finding on the first row of each part of a split document: `parts`, where they start,
/// when the first pass found them; otherwise `earlier`, the line of an earlier part. `name`:
/// the document's kind and number, when another document of the file has its number.
pub(super) fn split_issue(
    bound: &Bound,
    key: &str,
    name: Option<&str>,
    parts: Option<&Parts>,
    earlier: Option<u64>,
) -> Issue {
    let column = bound.key_label().filter(|l| !l.is_empty()).map(str::to_string);
    let rows = whose_rows(name);
    let message = match parts {
        Some(p) => format!(
            "{rows} are not together in the file ({}): no part of it is issued; put all its rows together, with \
             its number on each, and run again; where a part only repeats another's rows (an export written \
             twice into one file), take the repetition out instead",
            p.starts()
        ),
        // Found only here: this is a later part (the keys were not known before the rows).
        None => format!(
            "{rows} are not together in the file (a part of it starts at line {}): no part of it is issued; put \
             all its rows together, with its number on each, and run again; where a part only repeats another's \
             rows (an export written twice into one file), take the repetition out instead",
            earlier.unwrap_or(0)
        ),
    };
    Issue::error(SPLIT_CODE, column, Some(key.to_string()), message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::tests::{SIMPLE, bound, rows_from_csv};

    fn scan(b: &Arc<Bound>, rows: &[Row]) -> SplitKeys {
        let mut k = KeyScan::new(b.clone());
        for r in rows {
            k.push(r);
        }
        k.finish()
    }

    #[test]
    fn a_split_key_says_where_its_parts_start_and_which_number_it_is() {
        let csv = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                   A1,05/11/2026,X,,Pen,1,1,\nA2,05/11/2026,X,,Pen,1,1,\nA1,05/11/2026,X,,Cup,1,1,\n\
                   A3,05/11/2026,X,,Pen,1,1,\nA1,05/11/2026,X,,Ink,1,1,\nA1,05/11/2026,X,,Pad,1,1,\n";
        let (h, rows) = rows_from_csv(csv, 1);
        let splits = scan(&bound(SIMPLE, &h), &rows);
        assert_eq!(splits.len(), 1);
        assert_eq!(splits.numbers().collect::<Vec<_>>(), [("A1", "A1", None)]);
        assert_eq!(splits.part_count("A1", None), 3, "rows 6 and 7 are one part");
        assert_eq!(
            splits.starts("A1", None).as_deref(),
            Some("its 3 parts start at lines 2, 4 and 6")
        );
        for together in ["A2", "A3", "A9"] {
            assert_eq!(
                (splits.part_count(together, None), splits.starts(together, None)),
                (0, None)
            );
        }
    }

    #[test]
    fn a_key_other_than_the_number_is_asked_by_the_number_its_rows_give() {
        let mapping = SIMPLE.replace("[defaults]", "[group]\nkey = \"Grp\"\n[defaults]");
        let csv = "Grp,No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                   7,INV-7,05/11/2026,X,,Pen,1,1,\n8,INV-8,05/11/2026,X,,Pen,1,1,\n7,INV-7,05/11/2026,X,,Cup,1,1,\n";
        let (h, rows) = rows_from_csv(csv, 1);
        let splits = scan(&bound(&mapping, &h), &rows);
        assert_eq!(splits.numbers().collect::<Vec<_>>(), [("7", "INV-7", None)]);
        assert_eq!(splits.part_count("7", None), 2);
        assert_eq!(splits.part_count("INV-7", None), 0, "parts are known by their key");
    }
}

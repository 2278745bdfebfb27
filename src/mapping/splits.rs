//! Documents in parts: a key whose rows are in more than one block of the file (another
//! document's rows, or a row without a number, between them). A first pass over the file
//! ([`KeyScan`], the grouper's own block rule, a hash per document) finds those keys
//! ([`SplitKeys`]) before any document is evaluated, with where their parts start and, for
//! `run`, the document number each gives (to ask the ledger whether it is issued); the
//! grouper given them puts `INV-MAP-SPLIT` on the first row of every part ([`split_issue`]).

use super::Issue;
use super::apply::Bound;
use super::fields::fid;
use super::group::{Block, SPLIT_CODE, block, hash};
use super::headers::RepeatMemo;
use crate::ingest::Row;
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

    /// A key seen first at `first` opens another part at `line`; `named`: the key and the
    /// document number, asked for only when the key is found split.
    fn add(&mut self, h: u64, first: u64, line: u64, named: impl FnOnce() -> (String, String)) {
        let p = self.parts.entry(h).or_insert_with(|| {
            let (key, number) = named();
            Parts {
                lines: vec![first],
                count: 1,
                key,
                number,
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

    /// The split keys, each with the document number its rows give, in no particular order.
    pub fn numbers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.parts.values().map(|p| (p.key.as_str(), p.number.as_str()))
    }

    /// How many parts the key has (0: not split).
    pub fn part_count(&self, key: &str) -> u64 {
        self.get(hash(key)).filter(|p| p.key == key).map_or(0, |p| p.count)
    }

    /// Where the key's parts start, as findings say it (`its 2 parts start at lines 2 and 5`).
    pub fn starts(&self, key: &str) -> Option<String> {
        self.get(hash(key)).filter(|p| p.key == key).map(Parts::starts)
    }
}

/// The first pass over a file: the keys whose rows are in more than one block ([`SplitKeys`]),
/// by the grouper's own rules (a repeated header line or an unreadable record stays in the
/// open block; a row without a number, unless it continues one, ends it). Keeps the open key
/// and a hash and first line per key; reads no field but the key, and the number of a key
/// found split (once).
#[derive(Debug)]
pub struct KeyScan {
    bound: Arc<Bound>,
    open: Option<String>,
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
        match block(&key, self.open.as_deref(), self.bound.mapping.continuation, unreadable) {
            Block::Same => {}
            Block::Stray => self.open = None,
            Block::New => {
                let line = row.source.line;
                let h = hash(&key);
                match self.first.entry(h) {
                    Entry::Vacant(e) => {
                        e.insert(line);
                    }
                    Entry::Occupied(e) => {
                        let bound = &self.bound;
                        self.splits.add(h, *e.get(), line, || {
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
    pub fn finish(self) -> SplitKeys {
        self.splits
    }
}

/// The finding on the first row of each part of a split document: `parts`, where they start,
/// when the first pass found them; otherwise `earlier`, the line of an earlier part.
pub(super) fn split_issue(bound: &Bound, key: &str, parts: Option<&Parts>, earlier: Option<u64>) -> Issue {
    let column = bound.key_label().filter(|l| !l.is_empty()).map(str::to_string);
    let message = match parts {
        Some(p) => format!(
            "this document's rows are not together in the file ({}): no part of it is issued; put all its \
             rows together, with its number on each, and run again",
            p.starts()
        ),
        // Found only here: this is a later part (the keys were not known before the rows).
        None => format!(
            "this document's rows are not together in the file (a part of it starts at line {}): no \
             part of it is issued; put all its rows together, with its number on each, and run again",
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
        assert_eq!(splits.numbers().collect::<Vec<_>>(), [("A1", "A1")]);
        assert_eq!(splits.part_count("A1"), 3, "rows 6 and 7 are one part");
        assert_eq!(
            splits.starts("A1").as_deref(),
            Some("its 3 parts start at lines 2, 4 and 6")
        );
        for together in ["A2", "A3", "A9"] {
            assert_eq!((splits.part_count(together), splits.starts(together)), (0, None));
        }
    }

    #[test]
    fn a_key_other_than_the_number_is_asked_by_the_number_its_rows_give() {
        let mapping = SIMPLE.replace("[defaults]", "[group]\nkey = \"Grp\"\n[defaults]");
        let csv = "Grp,No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                   7,INV-7,05/11/2026,X,,Pen,1,1,\n8,INV-8,05/11/2026,X,,Pen,1,1,\n7,INV-7,05/11/2026,X,,Cup,1,1,\n";
        let (h, rows) = rows_from_csv(csv, 1);
        let splits = scan(&bound(&mapping, &h), &rows);
        assert_eq!(splits.numbers().collect::<Vec<_>>(), [("7", "INV-7")]);
        assert_eq!(splits.part_count("7"), 2);
        assert_eq!(splits.part_count("INV-7"), 0, "parts are known by their key");
    }
}

//! Documents' amounts added up once per document, by status, kind and type, and issue date, and
//! put into the summary's four views (every document, by status, by kind, by date) only when the
//! summary is read. Adding each document to the four views directly cost four [`Totals`] and
//! two map look-ups by text a document (3 % of `check`'s instructions); the sums are the same,
//! since decimal addition is exact (and its scale the largest of the two).

use super::{DocumentRecord, RowStatus, Summary, Totals, entry, unknown_if_empty};
use compact_str::CompactString;
use std::collections::HashMap;

/// Which totals a document adds to: its status, `kind/type` and issue date, as the summary's
/// views name them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    status: RowStatus,
    kind: CompactString,
    date: CompactString,
}

impl Key {
    fn of(r: &DocumentRecord) -> Key {
        let mut kind = CompactString::const_new("(unknown)");
        if !(r.kind.is_empty() && r.invoice_type.is_empty()) {
            kind.clear();
            kind.push_str(unknown_if_empty(&r.kind, "?"));
            kind.push('/');
            kind.push_str(unknown_if_empty(&r.invoice_type, "?"));
        }
        Key {
            status: r.status,
            kind,
            date: unknown_if_empty(&r.issue_date, "(no date)").into(),
        }
    }
}

/// The documents added since the summary was last read, by [`Key`].
#[derive(Debug, Clone, Default)]
pub(super) struct Staged {
    totals: Vec<(Key, Totals)>,
    /// Where each key's totals are in `totals`.
    at: HashMap<Key, usize>,
    /// The last key added to: documents of one day, kind and status come together.
    last: usize,
}

impl Staged {
    pub(super) fn add_record(&mut self, r: &DocumentRecord) {
        let key = Key::of(r);
        let i = match self.totals.get(self.last) {
            // Spelled on the stack (a short `CompactString` is inline); hashed only when it
            // is not the last document's.
            Some((k, _)) if *k == key => self.last,
            _ => match self.at.get(&key) {
                Some(&i) => i,
                None => {
                    self.at.insert(key.clone(), self.totals.len());
                    self.totals.push((key, Totals::default()));
                    self.totals.len() - 1
                }
            },
        };
        self.last = i;
        self.totals[i].1.add_record(r);
    }

    /// Add every staged total to `summary`'s views, and start again with none.
    pub(super) fn put_into(&mut self, summary: &mut Summary) {
        self.at.clear();
        self.last = 0;
        for (k, t) in self.totals.drain(..) {
            summary.documents.merge(&t);
            summary.by_status.entry(k.status).or_default().merge(&t);
            entry(&mut summary.by_kind, &k.kind)
                .entry(k.status)
                .or_default()
                .merge(&t);
            entry(&mut summary.by_date, &k.date)
                .entry(k.status)
                .or_default()
                .merge(&t);
        }
    }
}

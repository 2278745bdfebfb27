//! The document numbers of the files checked so far in one run of `check`, to find a document
//! that a later file has again (`INV-NUMBER-USED`).

use super::doc_key::hash;
use crate::model::DocumentKind;
use chrono::NaiveDate;
use std::collections::HashMap;

/// The code of a document whose number a document of an earlier file of the same check has.
pub const NUMBER_USED_CODE: &str = "INV-NUMBER-USED";

/// One document remembered: its kind (`None` when its file's mapping does not read the kind
/// from a column), its file, its first line, and its issue date (when its first row gives one:
/// a note of a later file that corrects it takes it).
#[derive(Debug, Clone, Copy)]
struct Used {
    line: u64,
    file: u32,
    date: Option<NaiveDate>,
    kind: Option<DocumentKind>,
}

/// The document numbers of the files checked so far in one run of `check`, to find a number
/// that a later file uses again: a 64-bit hash per number (as the grouper keeps per document)
/// with the kind, file, line and issue date of its first document, never the rows. It grows
/// with the documents checked, a few dozen bytes each, not with the rows. A note whose corrected
/// invoice is in an earlier file takes that invoice's date from it ([`NumbersUsed::invoice_date`]).
///
/// Where the kind is read from a column, a number is used again by a document of the same kind
/// only (invoice 1 and credit note 1 are two documents); a document whose kind is not known
/// while grouping (its mapping does not read it from a column) uses its number under every kind.
#[derive(Debug, Default)]
pub struct NumbersUsed {
    /// Number hash → its first document.
    first: HashMap<u64, Used>,
    /// Number hash → its documents of other kinds (rare: a number each kind has).
    others: HashMap<u64, Vec<Used>>,
    /// The files, as messages name them.
    files: Vec<String>,
}

impl NumbersUsed {
    /// The index of `file` (added when new).
    pub(super) fn file(&mut self, file: &str) -> u32 {
        match self.files.iter().position(|f| f == file) {
            Some(i) => i as u32,
            None => {
                self.files.push(file.to_string());
                (self.files.len() - 1) as u32
            }
        }
    }

    /// The name of file `i`, as messages name it.
    pub(super) fn file_name(&self, i: u32) -> &str {
        self.files.get(i as usize).map_or("", String::as_str)
    }

    /// How many documents are remembered.
    pub fn len(&self) -> usize {
        self.first.len() + self.others.values().map(Vec::len).sum::<usize>()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// A document of `key` and `kind` at `line` of `file`, issued on `date`: the file and first
    /// line of a document of an earlier file it is the same number as, if any; else it is
    /// remembered (unless one of its number and kind is already).
    pub(super) fn note(
        &mut self,
        key: &str,
        kind: Option<DocumentKind>,
        file: u32,
        line: u64,
        date: Option<NaiveDate>,
    ) -> Option<(u32, u64)> {
        let h = hash(key, None);
        let this = Used { line, file, date, kind };
        let Some(&first) = self.first.get(&h) else {
            self.first.insert(h, this);
            return None;
        };
        let others = self.others.get(&h).map_or(&[][..], Vec::as_slice);
        let all = || std::iter::once(&first).chain(others);
        let same_kind = |k: Option<DocumentKind>| k.is_none() || kind.is_none() || k == kind;
        if let Some(u) = all().find(|u| u.file != file && same_kind(u.kind)) {
            return Some((u.file, u.line));
        }
        if !all().any(|u| u.kind == kind) {
            self.others.entry(h).or_default().push(this);
        }
        None
    }

    /// The issue date of the invoice `number` of a file other than `file` (a file checked
    /// before it), where one is remembered with a date: a document known as an invoice, or one
    /// whose kind is not known while grouping (as a note's invoice is looked for in its own
    /// file).
    pub(super) fn invoice_date(&self, number: &str, file: u32) -> Option<NaiveDate> {
        let h = hash(number, None);
        let first = self.first.get(&h)?;
        let others = self.others.get(&h).map_or(&[][..], Vec::as_slice);
        std::iter::once(first)
            .chain(others)
            .find(|u| u.file != file && matches!(u.kind, None | Some(DocumentKind::Invoice)) && u.date.is_some())
            .and_then(|u| u.date)
    }

    /// The credit or debit note `number` of a file other than `file` (a file checked before
    /// it), when no document of that number there is known as an invoice, or may be one (its
    /// kind not known while grouping): a note naming it names no invoice. Its kind, file and
    /// first line.
    pub(super) fn named_note(&self, number: &str, file: u32) -> Option<(DocumentKind, &str, u64)> {
        let h = hash(number, None);
        let first = self.first.get(&h)?;
        let others = self.others.get(&h).map_or(&[][..], Vec::as_slice);
        let all = || std::iter::once(first).chain(others).filter(|u| u.file != file);
        if all().any(|u| matches!(u.kind, None | Some(DocumentKind::Invoice))) {
            return None;
        }
        all().find_map(|u| {
            let kind = u.kind.filter(|k| k.is_note())?;
            Some((kind, self.file_name(u.file), u.line))
        })
    }
}

/// The document numbers of one file whose documents are grouped by another column than their
/// number (`[group] key`: SAP Business One's lines are grouped by `ParentKey`, their document is
/// known by its header's `DocNum`): two documents of two keys may have one number, which the
/// grouping does not see (a number's rows apart under one key are `INV-MAP-SPLIT`). Per number
/// (and kind), a 64-bit hash with the hash of its first document's key and its first line: a
/// few dozen bytes per document, never the rows. Empty for other mappings.
#[derive(Debug, Default)]
pub(super) struct NumbersHere(HashMap<u64, (u64, u64)>);

impl NumbersHere {
    /// A document of `number` and `kind` grouped under `key`, opening at `line`: the first line
    /// of an earlier document of this file with that number under another key, if any; else it
    /// is remembered (unless its number already is).
    pub(super) fn note(&mut self, number: &str, kind: Option<DocumentKind>, key: &str, line: u64) -> Option<u64> {
        let key = hash(key, None);
        match self.0.entry(hash(number, kind)) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let (first, first_key) = *e.get();
                (first_key != key).then_some(first)
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert((line, key));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_under_two_keys_is_used_again_and_one_key_apart_is_not() {
        let mut here = NumbersHere::default();
        assert_eq!(here.note("500101", None, "1", 3), None);
        assert_eq!(here.note("500102", None, "2", 5), None);
        // Key 1 again (its rows apart: INV-MAP-SPLIT says that): not a second document.
        assert_eq!(here.note("500101", None, "1", 7), None);
        assert_eq!(here.note("500101", None, "3", 9), Some(3));
        // Where the kind is read from a column, credit note 500101 is another document.
        assert_eq!(here.note("500101", Some(DocumentKind::CreditNote), "4", 11), None);
    }
}

//! Which documents of a results folder count in `report`'s "all sets" and "overall" totals, so
//! that each document counts once however many result sets hold it (a file dropped into `watch`
//! again gets a second, time-stamped result set reported from the ledger; two exports may share
//! documents).
//!
//! - An accepted document is the document the authority issued: it is known by its UUID. Its
//!   record in the set written last that holds it counts (`time` of `X.summary.json`, then the
//!   set's name; the first record of it in that set): that set says what the export gives now,
//!   so whether the document is in conflict with its export (`INV-LEDGER-CONFLICT`) is what
//!   that record says (an export given back its issued content settles an earlier conflict).
//!   Every other record of that UUID, in any set or twice in one, is a duplicate; its amounts
//!   are the issued ones, like those of the record that counts.
//! - A document never accepted (rejected, failed, invalid, skipped, valid) has no UUID: it is
//!   known by its kind and number, the authority's own key for a seller's document. When that
//!   kind and number is accepted anywhere in the folder, the other results of it are earlier (or
//!   refused) attempts at the accepted document: duplicates. Otherwise its latest result counts,
//!   that of the set written last (`time` of `X.summary.json`, then the set's name), with every
//!   record of it in that set (two documents under one number in one export stay two, as in the
//!   set's own figures); its records in other sets are duplicates.
//! - A record without a number (rows that made no document) always counts.
//!
//! Per-set figures are not touched: they say what each set's files hold (a set counts a
//! document it keeps as issued once itself, see `kept::counted_in_set`).

use super::{DocumentRecord, RowStatus};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Document numbers given as examples per group of sets.
const EXAMPLES: usize = 10;

/// One result set's records, for [`select`].
#[derive(Debug, Clone, Copy)]
pub struct SetRecords<'a> {
    /// The set's name (`X`).
    pub name: &'a str,
    /// When its results were written (RFC 3339; empty when unknown).
    pub time: &'a str,
    /// Its `X.documents.csv`.
    pub records: &'a [DocumentRecord],
}

/// A document held by more than one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Duplicate {
    /// Its number.
    pub document: String,
    /// `invoice`, `credit_note`, `debit_note` (empty when unknown).
    pub kind: String,
    /// The authority's UUID (empty for a document never accepted).
    pub uuid: String,
    /// The status of the record that counts.
    pub status: RowStatus,
    /// The set whose record counts.
    pub counted_in: String,
    /// The sets of the records left out (a set twice when it holds the document twice).
    pub left_out_in: Vec<String>,
}

/// Documents held by several records, grouped by the sets they are in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SetGroup {
    /// The set whose records count.
    pub counted_in: String,
    /// The sets whose records are left out.
    pub left_out_in: Vec<String>,
    /// How many documents.
    pub documents: u64,
    /// The first document numbers.
    pub examples: Vec<String>,
}

/// What [`select`] left out of the folder's totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Duplicates {
    /// Documents held by more than one record.
    pub documents: u64,
    /// Records left out of "all sets" and "overall" (each document's other records).
    pub records_left_out: u64,
    /// The input rows of those records.
    pub rows_left_out: u64,
    /// By the sets they are in.
    pub by_sets: Vec<SetGroup>,
    /// Every duplicated document.
    pub list: Vec<Duplicate>,
}

/// Which record counts: `counted[set][record]`, and the duplicates.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// True for the records that count in the folder's totals, per set, in file order.
    pub counted: Vec<Vec<bool>>,
    /// The documents held more than once.
    pub duplicates: Duplicates,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Uuid(String),
    Number(String, String),
}

/// Choose the record that counts for each document; see the module's documentation.
pub fn select(sets: &[SetRecords<'_>]) -> Selection {
    let mut counted: Vec<Vec<bool>> = sets.iter().map(|s| vec![true; s.records.len()]).collect();
    // The record that counts, and the records left out, per document.
    let mut first: HashMap<Key, (usize, usize)> = HashMap::new();
    let mut left_out: HashMap<Key, Vec<(usize, usize)>> = HashMap::new();
    let mut accepted_numbers: HashMap<(&str, &str), Key> = HashMap::new();
    let mut order: Vec<Key> = Vec::new();
    let latest = |a: usize, b: usize| {
        let k = |i: usize| (sets[i].time, sets[i].name);
        if k(b) > k(a) { b } else { a }
    };
    let accepted_key = |r: &DocumentRecord| {
        if r.uuid.is_empty() {
            Key::Number(r.kind.clone(), r.document.clone())
        } else {
            Key::Uuid(r.uuid.clone())
        }
    };
    // Accepted documents: the latest set holding each counts (its first record of it).
    let mut accepted_holder: HashMap<Key, usize> = HashMap::new();
    for (si, s) in sets.iter().enumerate() {
        for r in s.records.iter().filter(|r| r.status == RowStatus::Accepted) {
            let key = accepted_key(r);
            accepted_numbers
                .entry((r.kind.as_str(), r.document.as_str()))
                .or_insert_with(|| key.clone());
            match accepted_holder.get_mut(&key) {
                Some(h) => *h = latest(*h, si),
                None => {
                    accepted_holder.insert(key.clone(), si);
                    order.push(key);
                }
            }
        }
    }
    for (si, s) in sets.iter().enumerate() {
        for (ri, r) in s
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.status == RowStatus::Accepted)
        {
            let key = accepted_key(r);
            if accepted_holder[&key] == si && !first.contains_key(&key) {
                first.insert(key, (si, ri));
            } else {
                counted[si][ri] = false;
                left_out.entry(key).or_default().push((si, ri));
            }
        }
    }
    // Documents never accepted: the latest set holding each counts.
    let mut holder: HashMap<(&str, &str), usize> = HashMap::new();
    for (si, s) in sets.iter().enumerate() {
        for r in s
            .records
            .iter()
            .filter(|r| r.status != RowStatus::Accepted && !r.document.is_empty())
        {
            let n = (r.kind.as_str(), r.document.as_str());
            if !accepted_numbers.contains_key(&n) {
                holder.entry(n).and_modify(|h| *h = latest(*h, si)).or_insert(si);
            }
        }
    }
    for (si, s) in sets.iter().enumerate() {
        for (ri, r) in s.records.iter().enumerate() {
            if r.status == RowStatus::Accepted || r.document.is_empty() {
                continue;
            }
            let n = (r.kind.as_str(), r.document.as_str());
            let key = match accepted_numbers.get(&n) {
                Some(k) => k.clone(),
                None if holder.get(&n) == Some(&si) => {
                    let key = Key::Number(r.kind.clone(), r.document.clone());
                    if !first.contains_key(&key) {
                        first.insert(key.clone(), (si, ri));
                        order.push(key);
                    }
                    continue;
                }
                None => Key::Number(r.kind.clone(), r.document.clone()),
            };
            counted[si][ri] = false;
            left_out.entry(key).or_default().push((si, ri));
        }
    }
    let mut duplicates = Duplicates::default();
    let mut groups: BTreeMap<(String, Vec<String>), SetGroup> = BTreeMap::new();
    for key in order {
        let Some(out) = left_out.remove(&key) else { continue };
        let (si, ri) = first[&key];
        let r = &sets[si].records[ri];
        let left_out_in: Vec<String> = out.iter().map(|&(s, _)| sets[s].name.to_string()).collect();
        duplicates.documents += 1;
        duplicates.records_left_out += out.len() as u64;
        duplicates.rows_left_out += out.iter().map(|&(s, i)| sets[s].records[i].rows).sum::<u64>();
        let mut group_sets = left_out_in.clone();
        group_sets.dedup();
        let g = groups
            .entry((sets[si].name.to_string(), group_sets.clone()))
            .or_insert_with(|| SetGroup {
                counted_in: sets[si].name.to_string(),
                left_out_in: group_sets,
                ..SetGroup::default()
            });
        g.documents += 1;
        if g.examples.len() < EXAMPLES {
            g.examples.push(r.document.clone());
        }
        duplicates.list.push(Duplicate {
            document: r.document.clone(),
            kind: r.kind.clone(),
            uuid: if r.status == RowStatus::Accepted {
                r.uuid.clone()
            } else {
                String::new()
            },
            status: r.status,
            counted_in: sets[si].name.to_string(),
            left_out_in,
        });
    }
    duplicates.by_sets = groups.into_values().collect();
    duplicates.by_sets.sort_by_key(|g| std::cmp::Reverse(g.documents));
    Selection { counted, duplicates }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(n: &str, status: RowStatus, uuid: &str) -> DocumentRecord {
        DocumentRecord {
            kind: "invoice".into(),
            uuid: uuid.into(),
            rows: 2,
            ..DocumentRecord::new(n, status)
        }
    }

    fn sets<'a>(all: &'a [(&'a str, &'a str, Vec<DocumentRecord>)]) -> Vec<SetRecords<'a>> {
        all.iter()
            .map(|(name, time, records)| SetRecords { name, time, records })
            .collect()
    }

    #[test]
    fn a_result_set_reported_again_counts_once_by_uuid() {
        use RowStatus::*;
        let a = vec![
            rec("A", Accepted, "u-a"),
            rec("B", Accepted, "u-b"),
            rec("C", Invalid, ""),
        ];
        let all = [
            ("x", "2026-11-21T10:00:00Z", a.clone()),
            ("x.20261121T230000123", "2026-11-21T23:00:00Z", a),
        ];
        let s = select(&sets(&all));
        assert_eq!(
            s.counted,
            [vec![false, false, false], vec![true, true, true]],
            "every document counts with the set written last"
        );
        let d = &s.duplicates;
        assert_eq!((d.documents, d.records_left_out, d.rows_left_out), (3, 3, 6));
        assert_eq!(d.by_sets.len(), 1, "{:?}", d.by_sets);
        let g = &d.by_sets[0];
        assert_eq!(
            (g.counted_in.as_str(), g.left_out_in.clone()),
            ("x.20261121T230000123", vec!["x".to_string()])
        );
        assert_eq!(
            (g.documents, g.examples.clone()),
            (3, vec!["A".to_string(), "B".into(), "C".into()])
        );
        let c = d.list.iter().find(|l| l.document == "C").unwrap();
        assert_eq!(
            (c.counted_in.as_str(), c.status, c.uuid.as_str()),
            ("x.20261121T230000123", Invalid, ""),
            "a document never accepted counts with its latest result"
        );
        assert_eq!(d.list.iter().find(|l| l.document == "A").unwrap().uuid, "u-a");
    }

    #[test]
    fn an_accepted_document_counts_with_the_set_written_last_whatever_the_names() {
        use RowStatus::*;
        let all = [
            ("a", "2026-11-21T12:00:00Z", vec![rec("A", Accepted, "u-a")]),
            ("b", "2026-11-21T10:00:00Z", vec![rec("A", Accepted, "u-a")]),
            ("c", "", vec![rec("A", Accepted, "u-a")]),
            (
                "d",
                "2026-11-21T12:00:00Z",
                vec![rec("A", Accepted, "u-a"), rec("A", Accepted, "u-a")],
            ),
        ];
        let s = select(&sets(&all));
        assert_eq!(
            s.counted,
            [vec![false], vec![false], vec![false], vec![true, false]],
            "the latest time, then the name; the first record of that set"
        );
        assert_eq!(s.duplicates.list[0].left_out_in, ["a", "b", "c", "d"]);
    }

    #[test]
    fn an_accepted_document_supersedes_its_other_results_and_distinct_uuids_both_count() {
        use RowStatus::*;
        let all = [
            ("a", "1", vec![rec("N", Rejected, ""), rec("F", Failed, "")]),
            (
                "b",
                "2",
                vec![rec("N", Accepted, "u-n"), rec("F", Failed, ""), rec("", Invalid, "")],
            ),
            (
                "c",
                "3",
                vec![
                    rec("N", Rejected, ""),
                    rec("M", Accepted, "u-m1"),
                    rec("M", Accepted, "u-m2"),
                ],
            ),
            ("d", "0", vec![rec("F", Rejected, ""), rec("", Invalid, "")]),
        ];
        let s = select(&sets(&all));
        assert_eq!(
            s.counted,
            [
                vec![false, false],
                vec![true, true, true],
                vec![false, true, true],
                vec![false, true]
            ],
            "N counts accepted; F counts in b, the set written last that holds it; no number: always"
        );
        let n = s.duplicates.list.iter().find(|l| l.document == "N").unwrap();
        assert_eq!(n.left_out_in, ["a", "c"]);
        assert_eq!(
            (n.status, n.uuid.as_str(), n.counted_in.as_str()),
            (Accepted, "u-n", "b")
        );
        let f = s.duplicates.list.iter().find(|l| l.document == "F").unwrap();
        assert_eq!(f.left_out_in, ["a", "d"]);
        assert!(
            !s.duplicates.list.iter().any(|l| l.document == "M"),
            "two UUIDs: two issued documents"
        );
    }

    #[test]
    fn the_same_uuid_twice_in_one_set_counts_once_and_documents_under_one_number_stay_apart() {
        use RowStatus::*;
        let all = [(
            "x",
            "",
            vec![
                rec("D", Accepted, "u-d"),
                rec("D", Accepted, "u-d"),
                rec("I", Invalid, ""),
                rec("I", Invalid, ""),
            ],
        )];
        let s = select(&sets(&all));
        assert_eq!(s.counted, [vec![true, false, true, true]]);
        assert_eq!(s.duplicates.by_sets[0].left_out_in, ["x"]);
        assert_eq!(s.duplicates.documents, 1);
    }

    #[test]
    fn nothing_in_common_leaves_nothing_out() {
        use RowStatus::*;
        let all = [
            ("a", "", vec![rec("A", Accepted, "u-a")]),
            ("b", "", vec![rec("B", Accepted, "u-b")]),
        ];
        let s = select(&sets(&all));
        assert_eq!(s.counted, [vec![true], vec![true]]);
        assert_eq!(s.duplicates, Duplicates::default());
    }
}

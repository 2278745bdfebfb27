//! The records of a joined header file: found by the key of a row of the lines file, and those
//! that make no document of the lines file's rows, each said with a row of its own once the lines
//! file is read, never lost without a word:
//! - a record no row of the lines file refers to (`INV-MAP-NO-LINES`): a document of SAP Business
//!   One's Documents file whose lines are not in the Document_Lines file (a lines file cut short,
//!   or exported with a narrower filter);
//! - a record without a key (`INV-MAP-KEY-BLANK`): no row can refer to it;
//! - records that share a key (`INV-MAP-KEY-DUPLICATE`): the lines of that key cannot be told
//!   apart between them, so none of them is issued. The lines join the first of them (its
//!   `DocNum` names their document, which the finding holds back); each later record has a row of
//!   its own. When no line has that key, every one of them has a row of its own, with both
//!   `INV-MAP-KEY-DUPLICATE` and `INV-MAP-NO-LINES`.

use super::{Bound, Issue};
use crate::ingest::{Row, SourceRef};
use crate::mapping::fields::fid;
use crate::model::DocumentKind;
use crate::text::Trimmed;
use std::sync::atomic::{AtomicBool, Ordering};

/// The finding on a record of the header file that no row of the lines file refers to.
pub const NO_LINES_CODE: &str = "INV-MAP-NO-LINES";
/// The finding on a record of the header file without a key.
pub const KEY_BLANK_CODE: &str = "INV-MAP-KEY-BLANK";
/// The finding on the records of the header file that share a key, and on the lines of that key.
pub const KEY_DUPLICATE_CODE: &str = "INV-MAP-KEY-DUPLICATE";

/// A record of the joined header file (the first of its key), the later records with its key,
/// and whether a row of the lines file referred to it.
#[derive(Debug)]
pub(super) struct Joined {
    row: Row,
    referred: AtomicBool,
    /// The later records with this key, in the header file's order (none: no allocation).
    repeats: Vec<Row>,
}

impl Joined {
    pub(super) fn new(row: Row) -> Self {
        Joined {
            row,
            referred: AtomicBool::new(false),
            repeats: Vec::new(),
        }
    }

    /// A later record with this key.
    pub(super) fn repeat(&mut self, row: Row) {
        self.repeats.push(row);
    }

    /// The record, noted as referred to by a row of the lines file. Its flag is read on each
    /// row (it sits beside the record just found) and written once: the threads that read the
    /// rows of one document do not write to one place again and again.
    #[inline]
    pub(super) fn referred(&self) -> &Row {
        if !self.referred.load(Ordering::Relaxed) {
            self.referred.store(true, Ordering::Relaxed);
        }
        &self.row
    }

    fn records(&self) -> impl Iterator<Item = &Row> {
        std::iter::once(&self.row).chain(&self.repeats)
    }
}

/// Why a record of the joined header file makes no document of the lines file's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// No row of the lines file refers to it (`INV-MAP-NO-LINES`).
    NoLines,
    /// It has no key (`INV-MAP-KEY-BLANK`).
    BlankKey,
    /// Another record has its key (`INV-MAP-KEY-DUPLICATE`); `lines`: some rows of the lines file
    /// have that key (else `INV-MAP-NO-LINES` too).
    DuplicateKey {
        /// Rows of the lines file have the key.
        lines: bool,
    },
}

/// A record of the joined header file that makes no document of the lines file's rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unjoined {
    /// Its key (`RecordKey`; blank for [`Left::BlankKey`]).
    pub key: String,
    /// Its document number, when the mapping reads the number from the header file (`DocNum`).
    pub number: Option<String>,
    /// Its kind, when the header record gives it without lines ([`Bound::record_kind`]).
    pub kind: Option<DocumentKind>,
    /// Where it is in the header file.
    pub source: SourceRef,
    /// Why.
    pub left: Left,
}

impl Unjoined {
    /// How the result files name its document: its number, else its key.
    pub fn name(&self) -> &str {
        self.number.as_deref().unwrap_or(&self.key)
    }
}

impl Bound {
    /// The joined header row of a lines row: `Ok(None)` without a join, `Err` when the row's parent
    /// key is not in the header file. A key on several records gives the first of them.
    pub fn header_row(&self, row: &Row) -> Result<Option<&Row>, Issue> {
        Ok(self.joined(row)?.map(|(_, j)| j.referred()))
    }

    /// [`Bound::header_row`] for the grouper, once for each row: the finding on the row's key
    /// pushed to `issues` (not in the header file, `INV-MAP-JOIN`; on several records of it,
    /// `INV-MAP-KEY-DUPLICATE`).
    pub fn header_row_said(&self, row: &Row, issues: &mut Vec<Issue>) -> Option<&Row> {
        match self.joined(row) {
            Ok(Some((key, j))) => {
                if !j.repeats.is_empty() {
                    let column = self.join_parent.map(|p| self.label(p).to_string());
                    issues.push(self.duplicate_issue(&key, j, column));
                }
                Some(j.referred())
            }
            Ok(None) => None,
            Err(e) => {
                issues.push(e);
                None
            }
        }
    }

    fn joined(&self, row: &Row) -> Result<Option<(String, &Joined)>, Issue> {
        let Some(p) = self.join_parent else {
            return Ok(None);
        };
        let key = row.get(p).to_text().trimmed().to_string();
        match self.join_rows.get(&key) {
            Some(h) => Ok(Some((key, h))),
            None => Err(Issue::error(
                "INV-MAP-JOIN",
                Some(self.headers.name(p)),
                Some(key),
                format!(
                    "no header with this key in {}, where this document's number, date, buyer and currency are \
                     read: export the header file again with this document in it (or correct the key in this \
                     file), and check it again",
                    self.join_path
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ),
            )),
        }
    }

    /// A record's document number (`DocNum`), read from the header file alone.
    fn record_number(&self, r: &Row) -> Option<String> {
        let none = Row::new(r.source.clone(), Vec::new());
        self.text(fid!("number"), &none, Some(r))
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    }

    /// The kind of a record's document as its lines would build it, when the record alone gives
    /// it: the mapping's kind (a constant, or a column of the header file; an invoice when not
    /// mapped, as SAP's oInvoices are), unless lines could change it (negative amounts making a
    /// credit note, a debit-note flag, a kind column of the lines file).
    fn record_kind(&self, r: &Row) -> Option<DocumentKind> {
        let lines_decide = self.mapping.credit_note_when_negative
            || self.mapping.rule("debit_note").is_some()
            || self.kind_column.is_some_and(|k| k < self.headers.width());
        if lines_decide {
            return None;
        }
        let none = Row::new(r.source.clone(), Vec::new());
        Some(self.opening_kind(&none, Some(r)))
    }

    /// The records of the joined header file that make no document of the lines file's rows so
    /// far, in the header file's order; none without a join. Asked once the lines file's rows were
    /// all read (and built into documents).
    pub fn unjoined(&self) -> Vec<Unjoined> {
        let mut out = Vec::new();
        let mut add = |key: &str, r: &Row, left: Left| {
            out.push(Unjoined {
                key: key.to_string(),
                number: self.record_number(r),
                kind: self.record_kind(r),
                source: r.source.clone(),
                left,
            })
        };
        for (key, j) in &self.join_rows {
            let lines = j.referred.load(Ordering::Relaxed);
            if j.repeats.is_empty() {
                if !lines {
                    add(key, &j.row, Left::NoLines);
                }
                continue;
            }
            // The lines, when there are, joined the first record and name their document by it.
            for r in j.records().skip(usize::from(lines)) {
                add(key, r, Left::DuplicateKey { lines });
            }
        }
        for r in &self.join_blank {
            add("", r, Left::BlankKey);
        }
        out.sort_by_key(|u| u.source.line);
        out
    }

    /// The column of the lines file that refers to the header file's records (`ParentKey`).
    pub fn join_parent_column(&self) -> Option<usize> {
        self.join_parent
    }

    /// The findings of a record that makes no document of the lines file's rows, named on the
    /// header file's key column, saying which document, where, and what to do.
    pub fn unjoined_issues(&self, u: &Unjoined) -> Vec<Issue> {
        let column = self.join_key.map(|k| self.label(self.headers.width() + k).to_string());
        match u.left {
            Left::NoLines => vec![self.no_lines_issue(u, column)],
            Left::BlankKey => vec![self.blank_key_issue(u, column)],
            Left::DuplicateKey { lines } => {
                let Some(j) = self.join_rows.get(&u.key) else {
                    return vec![self.no_lines_issue(u, column)];
                };
                let mut out = vec![self.duplicate_issue(&u.key, j, column.clone())];
                if !lines {
                    out.push(self.no_lines_issue(u, column));
                }
                out
            }
        }
    }

    /// The header file's key column's name (`RecordKey`), and the lines file's (`ParentKey`).
    fn key_names(&self) -> (&str, &str) {
        let key = self.mapping.join.as_ref().map_or("", |j| j.key.as_str());
        (key, self.join_parent.map_or("", |p| self.label(p)))
    }

    fn what(u: &Unjoined) -> String {
        match &u.number {
            Some(n) => format!("document {n} (line {} of the header file)", u.source.line),
            None => format!("the record at line {} of the header file", u.source.line),
        }
    }

    fn no_lines_issue(&self, u: &Unjoined, column: Option<String>) -> Issue {
        let (_, parent) = self.key_names();
        Issue::error(
            NO_LINES_CODE,
            column,
            Some(u.key.clone()),
            format!(
                "{} has no lines: no row of the lines file has {parent} {:?}, so it is not issued; export its \
                 lines too (a lines file cut short, or exported with a narrower filter than the \
                 header file, leaves documents out: export the two files again together, with the same \
                 selection), or take it out of the header file if it is not to be issued, and check it again",
                Self::what(u),
                u.key
            ),
        )
    }

    fn blank_key_issue(&self, u: &Unjoined, column: Option<String>) -> Issue {
        let (key, parent) = self.key_names();
        Issue::error(
            KEY_BLANK_CODE,
            column,
            Some(String::new()),
            format!(
                "{} has no {key}, so no row of the lines file can refer to it and it is not issued: give it its \
                 {key} in the DTW header file (the number its lines have in {parent} in the lines file), or take \
                 it out of the header file if it is not to be issued, and check it again",
                Self::what(u)
            ),
        )
    }

    /// The finding on the records that share `key` and on the lines with that key: which records
    /// (their numbers and lines), and what to do.
    fn duplicate_issue(&self, key: &str, j: &Joined, column: Option<String>) -> Issue {
        let (key_name, parent) = self.key_names();
        let named: Vec<String> = j
            .records()
            .map(|r| match self.record_number(r) {
                Some(n) => format!("document {n} (line {})", r.source.line),
                None => format!("the record at line {}", r.source.line),
            })
            .collect();
        let list = match named.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        Issue::error(
            KEY_DUPLICATE_CODE,
            column,
            Some(key.to_string()),
            format!(
                "{key_name} {key:?} is on {} records of the header file, {list}: the lines with {parent} {key:?} \
                 cannot be told apart between them, so none of these documents is issued; give each document its \
                 own {key_name} in the DTW header file (and its lines that number in {parent} in the lines file), \
                 or take out the record exported twice if they are one document, and check it again",
                named.len()
            ),
        )
    }

    /// What the note on the joined header file says: its records, how many make documents of
    /// their own, and those that do not (a blank or shared key).
    pub fn join_note(&self) -> Option<String> {
        let path = self.join_path.as_ref()?;
        let (key, _) = self.key_names();
        let shared_keys = self.join_rows.values().filter(|j| !j.repeats.is_empty()).count();
        let shared: usize = self
            .join_rows
            .values()
            .filter(|j| !j.repeats.is_empty())
            .map(|j| 1 + j.repeats.len())
            .sum();
        let blank = self.join_blank.len();
        let records = self.join_rows.len() - shared_keys + shared + blank;
        let docs = if records == 1 {
            "1 document".to_string()
        } else {
            format!("{records} documents")
        };
        let mut not = Vec::new();
        if shared > 0 {
            let keys = if shared_keys == 1 {
                format!("a {key}")
            } else {
                format!("{shared_keys} {key}s")
            };
            not.push(format!("{shared} sharing {keys} ({KEY_DUPLICATE_CODE})"));
        }
        if blank > 0 {
            not.push(format!("{blank} without a {key} ({KEY_BLANK_CODE})"));
        }
        Some(if not.is_empty() {
            format!("header file {} joined ({docs})", path.display())
        } else {
            format!(
                "header file {} joined ({docs}, one for each record; not issued: {})",
                path.display(),
                not.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::Cell;
    use crate::mapping::JoinRows;
    use std::sync::Arc;

    fn row(file: &str, line: u64, cells: &[&str]) -> Row {
        Row::new(
            SourceRef {
                file: Arc::from(file),
                sheet: None,
                line,
            },
            cells.iter().map(|c| Cell::Text((*c).into())).collect(),
        )
    }

    /// The bundled SAP mapping bound to a lines file's headers and a header file of RecordKeys
    /// 1, 3 and 4 (lines 3 to 5, DocNums 600201, 600203, 600204).
    fn sap() -> Bound {
        sap_of(&[("1", "600201"), ("3", "600203"), ("4", "600204")])
    }

    /// The bundled SAP mapping bound to a header file of these (RecordKey, DocNum), from line 3.
    fn sap_of(records: &[(&str, &str)]) -> Bound {
        let mapping = crate::mapping::bundled::get("sap-b1-dtw").unwrap().unwrap();
        let lines = [
            "ParentKey",
            "LineNum",
            "ItemDescription",
            "Quantity",
            "Price",
            "TaxCode",
        ];
        let docs = [
            "RecordKey",
            "DocNum",
            "DocDate",
            "DocDueDate",
            "CardCode",
            "CardName",
            "NumAtCard",
            "DocCurrency",
        ];
        let head = |h: &[&str]| vec![h.iter().map(|s| s.to_string()).collect::<Vec<_>>(); 2];
        let rows = records
            .iter()
            .enumerate()
            .map(|(i, (k, n))| {
                row(
                    "Docs.txt",
                    3 + i as u64,
                    &[k, n, "20261107", "", "C", "Buyer", "", "SAR"],
                )
            })
            .collect();
        let join = JoinRows {
            path: "Docs.txt".into(),
            headers: head(&docs),
            rows,
            opened: None,
        };
        Bound::new(Arc::new(mapping), &head(&lines), "Lines.txt", &[], Some(join)).unwrap()
    }

    /// RecordKey 2 on lines 4 and 5 (600202, 600203), none on line 6 (600204), RecordKey 5 on
    /// lines 7 and 8 (600205, 600206); rows of the lines file refer to 1 and 2.
    fn blank_and_shared() -> Bound {
        let b = sap_of(&[
            ("1", "600201"),
            ("2", "600202"),
            ("2", "600203"),
            (" ", "600204"),
            ("5", "600205"),
            ("5", "600206"),
        ]);
        for key in ["1", "2", "2"] {
            let _ = b.header_row(&row("Lines.txt", 3, &[key, "0", "Toner", "1", "10", "S15"]));
        }
        b
    }

    #[test]
    fn records_with_a_blank_or_shared_key_each_have_a_row_of_their_own() {
        let b = blank_and_shared();
        let left = b.unjoined();
        assert_eq!(
            left.iter()
                .map(|u| (u.key.as_str(), u.name(), u.source.line, u.left))
                .collect::<Vec<_>>(),
            [
                // The lines of key 2 joined 600202, the first record: its document.
                ("2", "600203", 5, Left::DuplicateKey { lines: true }),
                ("", "600204", 6, Left::BlankKey),
                ("5", "600205", 7, Left::DuplicateKey { lines: false }),
                ("5", "600206", 8, Left::DuplicateKey { lines: false }),
            ]
        );
        let said = |u: &Unjoined| {
            b.unjoined_issues(u)
                .iter()
                .map(|i| (i.code.clone(), i.column.clone(), i.value.clone(), i.message.clone()))
                .collect::<Vec<_>>()
        };
        let column = Some("Docs.txt RecordKey".to_string());
        let [(code, col, value, message)] = said(&left[0]).try_into().unwrap();
        assert_eq!(
            (code.as_str(), &col, value.as_deref()),
            (KEY_DUPLICATE_CODE, &column, Some("2"))
        );
        assert_eq!(
            message,
            "RecordKey \"2\" is on 2 records of the header file, document 600202 (line 4) and document 600203 \
             (line 5): the lines with ParentKey \"2\" cannot be told apart between them, so none of these \
             documents is issued; give each document its own RecordKey in the DTW header file (and its lines \
             that number in ParentKey in the lines file), or take out the record exported twice if they are \
             one document, and check it again"
        );
        let [(code, col, value, message)] = said(&left[1]).try_into().unwrap();
        assert_eq!(
            (code.as_str(), &col, value.as_deref()),
            (KEY_BLANK_CODE, &column, Some(""))
        );
        assert!(
            message.starts_with(
                "document 600204 (line 6 of the header file) has no RecordKey, so no row of the lines file can \
                 refer to it and it is not issued: give it its RecordKey in the DTW header file"
            ),
            "{message}"
        );
        // No line has key 5: both findings, on each of its records.
        for u in &left[2..] {
            let s = said(u);
            assert_eq!(
                s.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(),
                [KEY_DUPLICATE_CODE, NO_LINES_CODE]
            );
            assert!(
                s[0].3.contains("document 600205 (line 7) and document 600206 (line 8)"),
                "{}",
                s[0].3
            );
        }
        assert_eq!(
            b.join_note().as_deref(),
            Some(
                "header file Docs.txt joined (6 documents, one for each record; not issued: 4 sharing 2 \
                 RecordKeys (INV-MAP-KEY-DUPLICATE), 1 without a RecordKey (INV-MAP-KEY-BLANK))"
            )
        );
        assert_eq!(
            sap().join_note().as_deref(),
            Some("header file Docs.txt joined (3 documents)")
        );
    }

    #[test]
    fn a_line_of_a_shared_key_joins_its_first_record_and_says_the_key_is_shared() {
        let b = blank_and_shared();
        let mut issues = Vec::new();
        let line = |key| row("Lines.txt", 9, &[key, "0", "Toner", "1", "10", "S15"]);
        let h = b.header_row_said(&line("1"), &mut issues);
        assert_eq!((h.map(|h| h.source.line), issues.len()), (Some(3), 0));
        let h = b.header_row_said(&line("2"), &mut issues);
        assert_eq!(h.map(|h| h.source.line), Some(4), "the first record of key 2");
        let [issue] = issues.as_slice() else {
            panic!("{issues:?}")
        };
        assert_eq!(
            (issue.code.as_str(), issue.column.as_deref(), issue.value.as_deref()),
            (KEY_DUPLICATE_CODE, Some("ParentKey"), Some("2"))
        );
        assert!(
            issue
                .message
                .contains("document 600202 (line 4) and document 600203 (line 5)")
        );
        // A blank parent key: not in the header file, whatever records have none.
        issues.clear();
        assert!(b.header_row_said(&line(""), &mut issues).is_none());
        assert_eq!(
            issues.iter().map(|i| i.code.as_str()).collect::<Vec<_>>(),
            ["INV-MAP-JOIN"]
        );
    }

    #[test]
    fn the_records_no_row_referred_to_are_listed_in_the_header_files_order() {
        let b = sap();
        assert_eq!(b.unjoined().len(), 3, "none referred to yet");
        for key in ["4", "1", "4", "9"] {
            let _ = b.header_row(&row("Lines.txt", 3, &[key, "0", "Toner", "1", "10", "S15"]));
        }
        let left = b.unjoined();
        assert_eq!(
            left.iter()
                .map(|u| (u.key.as_str(), u.name(), u.source.line))
                .collect::<Vec<_>>(),
            [("3", "600203", 4)]
        );
        let issue = b.unjoined_issues(&left[0]).remove(0);
        assert_eq!(issue.code, NO_LINES_CODE);
        assert_eq!(
            (issue.column.as_deref(), issue.value.as_deref()),
            (Some("Docs.txt RecordKey"), Some("3"))
        );
        assert!(
            issue.message.starts_with(
                "document 600203 (line 4 of the header file) has no lines: no row of the lines file has ParentKey \"3\""
            ),
            "{}",
            issue.message
        );
    }

    #[test]
    fn a_document_not_built_is_named_by_its_header_records_number() {
        let b = Arc::new(sap());
        let mut g = crate::mapping::Grouper::with_splits(b.clone(), None);
        let mut units = Vec::new();
        for (line, key) in [(3, "4"), (4, "9")] {
            units.extend(g.push(row("Lines.txt", line, &[key, "0", "Toner", "1", "10", "S15"])));
        }
        units.extend(g.finish());
        let names: Vec<String> = units
            .iter()
            .map(|u| match u {
                crate::mapping::Unit::Document(d) => d.number(&b),
                crate::mapping::Unit::Stray(_) => "stray".into(),
            })
            .collect();
        // RecordKey 4 is DocNum 600204; ParentKey 9 has no header record: its key.
        assert_eq!(names, ["600204", "9"]);
    }
}

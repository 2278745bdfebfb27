//! The records of a joined header file, and those no row of the lines file referred to
//! (`INV-MAP-NO-LINES`): a document of SAP Business One's Documents file whose lines are not in
//! the Document_Lines file (a lines file cut short, or exported with a narrower filter) is said,
//! never lost without a word.

use super::{Bound, Issue};
use crate::ingest::{Row, SourceRef};
use crate::mapping::fields::fid;
use std::sync::atomic::{AtomicBool, Ordering};

/// The finding on a record of the header file that no row of the lines file refers to.
pub const NO_LINES_CODE: &str = "INV-MAP-NO-LINES";

/// A record of the joined header file, and whether a row of the lines file referred to it.
#[derive(Debug)]
pub(super) struct Joined {
    row: Row,
    referred: AtomicBool,
}

impl Joined {
    pub(super) fn new(row: Row) -> Self {
        Joined {
            row,
            referred: AtomicBool::new(false),
        }
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
}

/// A record of the joined header file that no row of the lines file referred to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unjoined {
    /// Its key (`RecordKey`).
    pub key: String,
    /// Its document number, when the mapping reads the number from the header file (`DocNum`).
    pub number: Option<String>,
    /// Where it is in the header file.
    pub source: SourceRef,
}

impl Unjoined {
    /// How the result files name its document: its number, else its key.
    pub fn name(&self) -> &str {
        self.number.as_deref().unwrap_or(&self.key)
    }
}

impl Bound {
    /// The records of the joined header file that no row of the lines file referred to so far,
    /// in the header file's order; none without a join. Asked once the lines file's rows were
    /// all read (and built into documents).
    pub fn unjoined(&self) -> Vec<Unjoined> {
        let mut out: Vec<Unjoined> = self
            .join_rows
            .iter()
            .filter(|(_, j)| !j.referred.load(Ordering::Relaxed))
            .map(|(key, j)| {
                // The header file's fields, with an empty row of the lines file.
                let none = Row::new(j.row.source.clone(), Vec::new());
                let number = self
                    .text(fid!("number"), &none, Some(&j.row))
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty());
                Unjoined {
                    key: key.clone(),
                    number,
                    source: j.row.source.clone(),
                }
            })
            .collect();
        out.sort_by_key(|u| u.source.line);
        out
    }

    /// The column of the lines file that refers to the header file's records (`ParentKey`).
    pub fn join_parent_column(&self) -> Option<usize> {
        self.join_parent
    }

    /// The finding of a record of the header file that no row of the lines file refers to:
    /// named on the header file's key column, saying which document, where, and what to do.
    pub fn no_lines_issue(&self, u: &Unjoined) -> Issue {
        let column = self.join_key.map(|k| self.label(self.headers.width() + k).to_string());
        let parent = self.join_parent.map_or("", |p| self.label(p));
        let what = match &u.number {
            Some(n) => format!("document {n} (line {} of the header file)", u.source.line),
            None => format!("the record at line {} of the header file", u.source.line),
        };
        Issue::error(
            NO_LINES_CODE,
            column,
            Some(u.key.clone()),
            format!(
                "{what} has no lines: no row of the lines file has {parent} {:?}, so it is not issued; export its \
                 lines too (a lines file cut short, or exported with a narrower filter than the \
                 header file, leaves documents out: export the two files again together, with the same \
                 selection), or take it out of the header file if it is not to be issued, and check it again",
                u.key
            ),
        )
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
        let rows = [("1", "600201"), ("3", "600203"), ("4", "600204")]
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
        let issue = b.no_lines_issue(&left[0]);
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

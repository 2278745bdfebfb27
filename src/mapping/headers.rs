//! Matching a mapping's column names to a file's headers: case, spaces, punctuation and the
//! leading `*` of Xero's import template are ignored; several header rows (SAP DTW: property
//! names, then database names) all count. An unknown column is reported with the closest header.

use crate::ingest::{CellRef, Row};

/// The characters a header is compared by: letters and digits (any script), and `%`, which
/// tells a rate from the column it is the rate of (Zoho's `Item Tax %` beside `Item Tax`).
fn significant(c: &char) -> bool {
    c.is_alphanumeric() || *c == '%'
}

/// The comparable form of a header: letters, digits (any script) and `%`, lower case.
pub fn normalize(header: &str) -> String {
    header
        .trim()
        .trim_start_matches('*')
        .chars()
        .filter(significant)
        .flat_map(char::to_lowercase)
        .collect()
}

/// True when `normalize(raw) == normalized`, without building the normalised string.
pub fn normalizes_to(raw: &str, normalized: &str) -> bool {
    let mut want = normalized.chars();
    let got = raw
        .trim()
        .trim_start_matches('*')
        .chars()
        .filter(significant)
        .flat_map(char::to_lowercase);
    for c in got {
        if want.next() != Some(c) {
            return false;
        }
    }
    want.next().is_none()
}

/// Levenshtein distance between two strings, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `name` (compared in normalised form), if any is reasonably close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let n = normalize(name);
    candidates
        .into_iter()
        .filter(|c| !c.trim().is_empty())
        .map(|c| (edit_distance(&n, &normalize(c)), c))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= n.chars().count().max(3) / 2 + 1)
        .map(|(_, c)| c)
}

/// A file's header rows, ready for lookups.
#[derive(Debug, Clone, Default)]
pub struct HeaderIndex {
    rows: Vec<Vec<String>>,
    normalized: Vec<Vec<String>>,
    /// The named columns (index, normalised name) of each header row naming more than one,
    /// which is what a repeated header line is compared with.
    repeat: Vec<Vec<(usize, String)>>,
    width: usize,
    /// The header row that names the columns in messages (see [`HeaderIndex::label_by`]).
    label_row: usize,
    /// Per column, the header row whose name a mapping matched it by (`None`: not matched).
    matched_row: Vec<Option<usize>>,
}

impl HeaderIndex {
    /// Index the header rows of a file (one or more rows).
    pub fn new(rows: &[Vec<String>]) -> Self {
        let width = rows.iter().map(Vec::len).max().unwrap_or(0);
        let normalized: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(|h| normalize(h)).collect()).collect();
        let repeat = normalized
            .iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .filter(|(_, h)| !h.is_empty())
                    .map(|(i, h)| (i, h.clone()))
                    .collect::<Vec<_>>()
            })
            .filter(|named| named.len() > 1)
            .collect();
        HeaderIndex {
            rows: rows.to_vec(),
            normalized,
            repeat,
            width,
            label_row: 0,
            matched_row: Vec::new(),
        }
    }

    /// Name the columns in messages by the header rows a mapping matched them by: `matched`,
    /// the (header row, column) of each column the mapping found ([`HeaderIndex::find_at`]).
    /// A matched column is named as the row that matched it writes it; another, as the row
    /// that matched the most columns writes it (the first on a tie), else as the first row
    /// naming it. With two header rows, group labels over the names a mapping reads (a
    /// workbook's merged "Document" over "Doc No", "Doc Date") are then not the columns' names;
    /// SAP's property names over their database names stay the names, being what the mapping
    /// reads.
    pub fn label_by(&mut self, matched: &[(usize, usize)]) {
        let mut per_row = vec![0usize; self.rows.len()];
        self.matched_row = vec![None; self.width];
        for &(row, col) in matched {
            if let (Some(n), Some(m)) = (per_row.get_mut(row), self.matched_row.get_mut(col)) {
                if m.is_none() {
                    *n += 1;
                }
                *m = Some(row);
            }
        }
        // The first row of the most matches.
        self.label_row = per_row
            .iter()
            .enumerate()
            .fold((0, 0), |best, (r, &n)| if n > best.1 { (r, n) } else { best })
            .0;
    }

    /// The number of columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The first header row (the names shown to people).
    pub fn names(&self) -> Vec<String> {
        (0..self.width).map(|i| self.name(i)).collect()
    }

    /// The display name of a column: as the header row a mapping matched it by writes it, else
    /// as the row naming the columns writes it ([`HeaderIndex::label_by`]; the first row
    /// unless told), else as the first header row naming it.
    pub fn name(&self, index: usize) -> String {
        let named = |row: usize| {
            self.rows
                .get(row)
                .and_then(|r| r.get(index))
                .filter(|h| !h.trim().is_empty())
        };
        self.matched_row
            .get(index)
            .copied()
            .flatten()
            .and_then(named)
            .or_else(|| named(self.label_row))
            .or_else(|| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(index))
                    .find(|h| !h.trim().is_empty())
            })
            .cloned()
            .unwrap_or_else(|| format!("column {}", index + 1))
    }

    /// The index of a column, matching any header row (earlier rows first).
    pub fn find(&self, column: &str) -> Option<usize> {
        self.find_at(column).map(|(_, col)| col)
    }

    /// [`HeaderIndex::find`], with the header row that names it: (row, column).
    pub fn find_at(&self, column: &str) -> Option<(usize, usize)> {
        let n = normalize(column);
        if n.is_empty() {
            return None;
        }
        self.normalized
            .iter()
            .enumerate()
            .find_map(|(r, row)| row.iter().position(|h| *h == n).map(|c| (r, c)))
    }

    /// The column [`HeaderIndex::find`] finds for `column`, and every other column of that
    /// header row written the same way (ignoring case and surrounding spaces): more than one,
    /// and the mapping cannot tell which to read. (`Item Tax` and `Item Tax %` are two names,
    /// though they compare equal.)
    pub fn named(&self, column: &str) -> Vec<usize> {
        let n = normalize(column);
        if n.is_empty() {
            return Vec::new();
        }
        let written = |h: &str| h.trim().trim_start_matches('*').trim().to_lowercase();
        for (row, norm) in self.rows.iter().zip(&self.normalized) {
            let Some(first) = norm.iter().position(|h| *h == n) else {
                continue;
            };
            let name = written(&row[first]);
            return norm
                .iter()
                .enumerate()
                .filter(|(i, h)| **h == n && written(&row[*i]) == name)
                .map(|(i, _)| i)
                .collect();
        }
        Vec::new()
    }

    /// The header closest to an unknown column name.
    pub fn closest(&self, column: &str) -> Option<String> {
        let all: Vec<&str> = self.rows.iter().flatten().map(String::as_str).collect();
        closest(column, all).map(str::to_string)
    }

    /// True when a data row repeats the headers (concatenated exports). Cheap for ordinary rows:
    /// the first named column is compared before any other, and its answer is kept in `memo`
    /// for the next row (the rows of one document repeat it).
    pub fn is_header_repeat(&self, data: &Row, memo: &mut RepeatMemo) -> bool {
        memo.0.resize_with(self.repeat.len(), Default::default);
        self.repeat.iter().zip(&mut memo.0).any(|(named, last)| {
            let Some(((first, header), rest)) = named.split_first() else {
                return false;
            };
            let first = match data.get(*first) {
                CellRef::Text(t) if last.known && last.text == t => last.matches,
                CellRef::Text(t) => {
                    last.text.clear();
                    last.text.push_str(t);
                    last.matches = normalizes_to(t, header);
                    last.known = true;
                    last.matches
                }
                _ => false,
            };
            first
                && rest.iter().all(|(i, h)| match data.get(*i) {
                    CellRef::Text(t) => normalizes_to(t, h),
                    _ => false,
                })
        })
    }
}

/// For each header row, the last text compared with its first named column and the answer.
/// Rows of one document usually repeat that column (a Xero export's customer name), and
/// comparing a name written in Arabic looks every character up in Unicode's tables.
#[derive(Debug, Default)]
pub struct RepeatMemo(Vec<LastFirst>);

#[derive(Debug, Default)]
struct LastFirst {
    text: String,
    matches: bool,
    known: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(rows: &[&[&str]]) -> HeaderIndex {
        HeaderIndex::new(
            &rows
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn a_name_written_twice_in_the_row_that_names_it_is_found_twice() {
        let h = idx(&[&["No", "Total", "*total ", "Item Tax", "Item Tax %"]]);
        assert_eq!(h.named("Total"), [1, 2]);
        assert_eq!(h.named("No"), [0]);
        // Two names that compare equal, written apart: not the same column name.
        assert_eq!(h.named("Item Tax"), [3]);
        assert_eq!(h.named("Nope"), Vec::<usize>::new());
        // SAP DTW: the second row names DocNum twice, the first once; the first row decides.
        let h = idx(&[&["RecordKey", "DocNum"], &["DocNum", "DocNum"]]);
        assert_eq!(h.named("DocNum"), [1]);
    }

    #[test]
    fn ignores_case_spaces_punctuation_and_xero_stars() {
        assert_eq!(normalize("*ContactName"), "contactname");
        assert_eq!(normalize("Item(Product/Service)"), "itemproductservice");
        assert_eq!(normalize(" Item Quantity "), "itemquantity");
        assert_eq!(normalize("invoice_line_ids/price_unit"), "invoicelineidspriceunit");
        assert_eq!(normalize("رقم الفاتورة"), "رقمالفاتورة");
        // A rate is not the column it is the rate of.
        assert_eq!(normalize("Item Tax %"), "itemtax%");
        assert_ne!(normalize("Item Tax %"), normalize("Item Tax"));
        assert_eq!(normalize("Tax%"), normalize("tax %"));
        let h = idx(&[&["*ContactName", "*InvoiceNumber", "Item Quantity"]]);
        assert_eq!(h.find("ContactName"), Some(0));
        assert_eq!(h.find("invoicenumber"), Some(1));
        assert_eq!(h.find("ItemQuantity"), Some(2));
        assert_eq!(h.find("Missing"), None);
    }

    #[test]
    fn two_header_rows_both_match() {
        let h = idx(&[&["ParentKey", "ItemDescription"], &["DocNum", "Dscription"]]);
        assert_eq!(h.find("ParentKey"), Some(0));
        assert_eq!(h.find("Dscription"), Some(1));
        assert_eq!(h.name(1), "ItemDescription");
    }

    #[test]
    fn columns_are_named_by_the_header_row_the_mapping_matched() {
        // Merged group labels over the names the mapping reads (the labels only in the first
        // cell of each group), and a column the mapping does not read.
        let mut h = idx(&[
            &["Document", "", "Line", "", ""],
            &["Doc No", "Doc Date", "Item", "Qty", "Note"],
        ]);
        assert_eq!(h.name(0), "Document");
        let matched: Vec<(usize, usize)> = ["Doc No", "Item", "Qty"].iter().filter_map(|c| h.find_at(c)).collect();
        assert_eq!(matched, [(1, 0), (1, 2), (1, 3)]);
        h.label_by(&matched);
        assert_eq!(h.names(), ["Doc No", "Doc Date", "Item", "Qty", "Note"]);
        // SAP DTW: property names (read by the mapping) over database names; a column matched
        // by its second-row name keeps that name, the others their first-row names.
        let mut h = idx(&[
            &["ParentKey", "ItemDescription", "Quantity"],
            &["DocNum", "Dscription", "Quantity"],
        ]);
        let matched: Vec<(usize, usize)> = ["ParentKey", "Quantity", "Dscription"]
            .iter()
            .filter_map(|c| h.find_at(c))
            .collect();
        h.label_by(&matched);
        assert_eq!(h.names(), ["ParentKey", "Dscription", "Quantity"]);
        h.label_by(&[]);
        assert_eq!(h.names(), ["ParentKey", "ItemDescription", "Quantity"]);
    }

    #[test]
    fn closest_header_for_a_typo() {
        let h = idx(&[&["ContactName", "InvoiceNumber", "InvoiceDate"]]);
        assert_eq!(h.closest("InvoiceNumbr").as_deref(), Some("InvoiceNumber"));
        assert_eq!(h.closest("Zzzzzzzzzzzzzzzzzzzzzzzz"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn repeated_header_lines_are_recognised() {
        let h = idx(&[&["A", "B", "C"]]);
        let cells = |v: &[&str]| {
            let cells = v.iter().map(|s| crate::ingest::Cell::Text((*s).into())).collect();
            Row::new(
                crate::ingest::SourceRef {
                    file: "t.csv".into(),
                    sheet: None,
                    line: 2,
                },
                cells,
            )
        };
        let fresh = |row: &Row| h.is_header_repeat(row, &mut RepeatMemo::default());
        assert!(fresh(&cells(&["a", "B", "c"])));
        for (raw, n) in [
            (" *Contact Name", "contactname"),
            ("ab", "abc"),
            ("abc", "ab"),
            ("", ""),
            ("İ", "i̇"),
            ("Item Tax %", "itemtax"),
            ("Item Tax %", "itemtax%"),
        ] {
            assert_eq!(normalizes_to(raw, n), normalize(raw) == n, "{raw:?} {n:?}");
        }
        assert!(!fresh(&cells(&["1", "B", "c"])));
        // With the answer for the first column kept from row to row: the same answers as
        // without, whether the first column repeats, changes, or repeats with the rest changed.
        let mut memo = RepeatMemo::default();
        for row in [
            ["1", "B", "c"],
            ["1", "x", "y"],
            ["a", "x", "y"],
            ["a", "b", "c"],
            ["a", "b", "c"],
            ["A ", "b", "1"],
            ["*A", "b", "c"],
            ["", "b", "c"],
            ["a", "b", "c"],
        ] {
            let row = cells(&row);
            assert_eq!(h.is_header_repeat(&row, &mut memo), fresh(&row), "{row:?}");
        }
        let two = idx(&[&["A", "B"], &["C", "D"]]);
        let mut memo = RepeatMemo::default();
        for row in [["c", "d"], ["a", "b"], ["c", "x"], ["c", "d"]] {
            let row = cells(&row);
            let expected = two.is_header_repeat(&row, &mut RepeatMemo::default());
            assert_eq!(two.is_header_repeat(&row, &mut memo), expected, "{row:?}");
        }
    }
}

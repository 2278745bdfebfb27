//! Side tables (`[lookups.NAME]`): small CSV files keyed by one column, such as a customers file
//! giving the buyer's VAT number, address, building number and district that exports lack.
//! A table is read whole into memory; it is meant for master data, not for exports.

use super::MappingError;
use super::headers::{HeaderIndex, normalize};
use super::spec::LookupSpec;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A loaded side table.
#[derive(Debug, Clone)]
pub struct Table {
    /// The name in the mapping.
    pub name: String,
    /// The file read.
    pub path: PathBuf,
    headers: HeaderIndex,
    /// The key column.
    key: usize,
    /// The rows, first of each key only.
    rows: Vec<Vec<String>>,
    /// Key form to row.
    index: HashMap<String, usize>,
    /// Every key as the file writes it (trimmed) to the row its key form finds: an export
    /// usually writes a key exactly as its master data does, and such a key is then found
    /// without being put in its comparable form (for an Arabic name, Unicode's lower case of
    /// every character).
    exact: HashMap<String, usize>,
    /// Tells this table's entry in [`LAST`] from another's.
    id: usize,
    /// Its size and modification time just before it was read (`None`: not known).
    pub opened: Option<crate::ingest::FileStamp>,
    /// The row made from the file's last record, when that record is the first of its key: if
    /// the file changed after it was opened, that record may have been cut.
    last: Option<usize>,
    /// The rows whose key later records give again with other cells (by row). Empty, and
    /// nothing allocated, for a table with one record per key.
    duplicates: HashMap<usize, Box<Duplicates>>,
}

/// A key that several records of a table give, not all alike: the first record (the row
/// kept) and the later ones that differ from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicates {
    /// The first record's line in the file.
    pub first_line: u64,
    /// Each later record of the key whose cells differ from the first's: its line and cells.
    pub others: Vec<(u64, Vec<String>)>,
}

/// Tables loaded in this process, for [`Table::id`].
static TABLES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

thread_local! {
    /// The last key this thread looked up, as written, and its row (table id, key, row): a
    /// document asks one table for several columns of one key (the Xero mapping, six buyer
    /// fields by contact name), so the key is put in its comparable form and hashed once.
    static LAST: std::cell::RefCell<(usize, String, Option<usize>)> =
        const { std::cell::RefCell::new((usize::MAX, String::new(), None)) };
}

/// The comparable form of a key: trimmed, lower case, inner white space collapsed.
pub fn key_form(s: &str) -> String {
    key_form_inline(s).into_string()
}

/// [`key_form`], held inline when short (most keys: a lookup is made for every document), in
/// one pass. Only a capital sigma lowers differently by its place in a word (final ς), so keys
/// holding one take the general form.
fn key_form_inline(s: &str) -> crate::ingest::Text {
    if s.is_ascii() {
        // The same form, a word at a time (the white space of ASCII is these six bytes).
        let mut out = crate::ingest::Text::with_capacity(s.len());
        let words = s.split([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
        for word in words.filter(|w| !w.is_empty()) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        out.make_ascii_lowercase();
        return out;
    }
    if s.contains('Σ') {
        return s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase().into();
    }
    let mut out = crate::ingest::Text::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in word.chars() {
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
        }
    }
    out
}

/// Where a lookup file is: the first existing candidate of `file` (absolute, or relative to each
/// folder in `dirs`, in order).
pub fn resolve(file: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let p = Path::new(file);
    if p.is_absolute() {
        return p.exists().then(|| p.to_path_buf());
    }
    dirs.iter().map(|d| d.join(p)).find(|c| c.is_file())
}

impl Table {
    /// Load a table. A missing optional file gives `Ok(None)`.
    pub fn load(name: &str, spec: &LookupSpec, dirs: &[PathBuf]) -> Result<Option<Table>, MappingError> {
        let Some(path) = resolve(&spec.file, dirs) else {
            if spec.optional.unwrap_or(false) {
                return Ok(None);
            }
            let looked: Vec<String> = dirs.iter().map(|d| d.join(&spec.file).display().to_string()).collect();
            return Err(MappingError::Lookup {
                path: spec.file.clone(),
                message: format!("lookup table {name:?} not found (looked for {})", looked.join(", ")),
            });
        };
        let err = |message: String| MappingError::Lookup {
            path: path.display().to_string(),
            message,
        };
        // Before it is read: a change from then on is seen when a document built from it is
        // checked.
        let opened = crate::ingest::FileStamp::of(&path).ok();
        let bytes = std::fs::read(&path).map_err(|e| err(format!("cannot read: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|_| err("not UTF-8 text: save it as \"CSV UTF-8\"".into()))?;
        if text.trim_start_matches('\u{feff}').trim().is_empty() {
            return Err(err(format!(
                "the file is empty: give it its header line at least (its key column {:?} and the columns the \
                 mapping reads from it), then one row per key",
                spec.key_column
            )));
        }
        let delimiter = [b',', b';', b'\t']
            .into_iter()
            .max_by_key(|d| text.lines().next().unwrap_or("").bytes().filter(|b| b == d).count())
            .unwrap_or(b',');
        // Without its byte order mark: the records' byte offsets are then offsets in `body`.
        let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .from_reader(body.as_bytes());
        let header: Vec<String> = rdr
            .headers()
            .map_err(|e| err(format!("cannot read the header line: {e}")))?
            .iter()
            .map(|h| h.trim_start_matches('\u{feff}').to_string())
            .collect();
        let headers = HeaderIndex::new(&[header]);
        let key_idx = headers.find(&spec.key_column).ok_or_else(|| {
            err(format!(
                "no key column {:?}{}",
                spec.key_column,
                headers
                    .closest(&spec.key_column)
                    .map(|c| format!(" (closest header: {c:?})"))
                    .unwrap_or_default()
            ))
        })?;
        let (mut rows, mut index, mut exact): (Vec<Vec<String>>, HashMap<String, usize>, _) =
            (Vec::new(), HashMap::new(), HashMap::new());
        let mut last = None;
        // Each row's line in the file, while reading: what a duplicate's message names.
        let mut lines: Vec<u64> = Vec::new();
        // (byte, line breaks before it) up to where records have been counted.
        let mut counted = (0usize, 0u64);
        let mut duplicates: HashMap<usize, Box<Duplicates>> = HashMap::new();
        for (i, rec) in rdr.records().enumerate() {
            let rec = rec.map_err(|e| err(format!("record {}: {e}", i + 2)))?;
            // Its first line: 1 + the line breaks before its first byte, counted on from the
            // last record's. After a CRLF the reader places a record at the LF before it (and
            // its line count is then one short): line breaks before the record are skipped.
            let start = rec.position().and_then(|p| usize::try_from(p.byte()).ok()).map(|at| {
                at + body
                    .as_bytes()
                    .get(at..)
                    .map_or(0, |b| b.iter().take_while(|&&c| c == b'\n' || c == b'\r').count())
            });
            let line = match start {
                Some(at) if at >= counted.0 && at <= body.len() => {
                    counted.1 += body.as_bytes()[counted.0..at].iter().filter(|&&b| b == b'\n').count() as u64;
                    counted.0 = at;
                    counted.1 + 1
                }
                _ => i as u64 + 2,
            };
            let cells: Vec<String> = rec.iter().map(|c| c.trim().to_string()).collect();
            let written = cells.get(key_idx).cloned().unwrap_or_default();
            let key = key_form(&written);
            last = None;
            if key.is_empty() {
                continue;
            }
            let row = match index.get(&key) {
                Some(&row) => {
                    // A record exactly like the first of its key is harmless; one that differs
                    // is kept aside, for the documents that look its key up to say so.
                    if !same_cells(&rows[row], &cells, key_idx) {
                        duplicates
                            .entry(row)
                            .or_insert_with(|| {
                                Box::new(Duplicates {
                                    first_line: lines[row],
                                    others: Vec::new(),
                                })
                            })
                            .others
                            .push((line, cells));
                    }
                    row
                }
                None => {
                    index.insert(key, rows.len());
                    rows.push(cells);
                    lines.push(line);
                    last = Some(rows.len() - 1);
                    rows.len() - 1
                }
            };
            exact.entry(written).or_insert(row);
        }
        Ok(Some(Table {
            name: name.to_string(),
            path,
            headers,
            key: key_idx,
            rows,
            index,
            exact,
            id: TABLES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            opened,
            last,
            duplicates,
        }))
    }

    /// True when some key of the table is given by records that differ.
    pub fn has_duplicates(&self) -> bool {
        !self.duplicates.is_empty()
    }

    /// When the key of `row` is given again by later records that differ from it in one of
    /// `columns` (the columns a mapping takes from the table): what differs, as a message says
    /// it (`line 4 gives vat_number "310122393500003", line 9 "300000000000003"`).
    pub fn differing(&self, row: usize, columns: &[usize]) -> Option<String> {
        let dups = self.duplicates.get(&row)?;
        let first = self.rows.get(row)?;
        let cell = |cells: &[String], c: usize| cells.get(c).map_or("", String::as_str).to_string();
        let mut parts: Vec<String> = Vec::new();
        let mut seen: Vec<usize> = Vec::new();
        for &c in columns {
            // The key itself may be written in another case or spacing.
            if c == self.key || seen.contains(&c) {
                continue;
            }
            seen.push(c);
            let mine = cell(first, c);
            let others: Vec<String> = dups
                .others
                .iter()
                .filter(|(_, cells)| cell(cells, c) != mine)
                .map(|(line, cells)| format!("line {line} {:?}", cell(cells, c)))
                .collect();
            if !others.is_empty() {
                parts.push(format!(
                    "{} {:?} on line {}, {}",
                    self.headers.name(c),
                    mine,
                    dups.first_line,
                    others.join(", ")
                ));
            }
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// The index of a column, or an error naming the closest header.
    pub fn column(&self, column: &str) -> Result<usize, MappingError> {
        self.headers.find(column).ok_or_else(|| MappingError::Lookup {
            path: self.path.display().to_string(),
            message: format!(
                "no column {column:?}{}",
                self.headers
                    .closest(column)
                    .map(|c| format!(" (closest header: {c:?})"))
                    .unwrap_or_default()
            ),
        })
    }

    /// The value at (key, column index); `None` when the key is not in the table.
    pub fn get(&self, key: &str, column: usize) -> Option<&str> {
        let row = self.row_of(key)?;
        self.rows
            .get(row)
            .map(|r| r.get(column).map(String::as_str).unwrap_or(""))
    }

    /// The row of a key; `None` when the key is not in the table.
    pub fn row_of(&self, key: &str) -> Option<usize> {
        LAST.with_borrow_mut(|(id, last, row)| {
            if *id != self.id || last != key {
                *row = match self.exact.get(key) {
                    Some(&row) => Some(row),
                    None => self.index.get(key_form_inline(key).as_str()).copied(),
                };
                *id = self.id;
                last.clear();
                last.push_str(key);
            }
            *row
        })
    }

    /// The row made from the file's last record, when that record was the first of its key.
    pub fn last_row(&self) -> Option<usize> {
        self.last
    }

    /// The file name, for messages.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// True when `path` is this table's file.
    pub fn is_file(&self, path: &Path) -> bool {
        same_file(&self.path, path)
    }
}

/// True when two records of one key give the same cells (blank cells past the end count as
/// blank; the key itself may be written in another case or spacing).
fn same_cells(a: &[String], b: &[String], key: usize) -> bool {
    let width = a.len().max(b.len());
    (0..width).all(|c| c == key || a.get(c).map_or("", String::as_str) == b.get(c).map_or("", String::as_str))
}

/// True when two paths name the same file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// True when a header is the lookup's key column (used by detection to ignore side files).
pub fn has_key_column(headers: &[String], key_column: &str) -> bool {
    let k = normalize(key_column);
    headers.iter().any(|h| normalize(h) == k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_form_fast_path_matches_the_general_form() {
        let general = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        for k in [
            "  Al  Ofuq\tTrading\x0bCO. ",
            "",
            " ",
            "Walk-in",
            "شركة  الندى",
            "ΣΑΣ Ltd",
        ] {
            assert_eq!(key_form(k), general(k), "{k:?}");
        }
    }

    proptest::proptest! {
        /// The one-pass form is the general one, for any mix of scripts, cases and spaces.
        #[test]
        fn key_form_is_the_general_form(k in "[ \t\u{a0}\u{3000}aZ.ΣσςΑİẞДжعربي0-9]{0,16}") {
            let general = k.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            proptest::prop_assert_eq!(key_form(&k), general);
        }

        /// The same for ASCII keys (their own path), with every ASCII white space and control.
        #[test]
        fn ascii_key_form_is_the_general_form(k in "[ \t\n\r\x0b\x0c\x1c\x1faZmQ.0-9-]{0,24}") {
            let general = k.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            proptest::prop_assert_eq!(key_form(&k), general);
        }
    }

    #[test]
    fn loads_a_customers_table_and_finds_keys_ignoring_case_and_spaces() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("customers.csv"),
            "\u{feff}name,vat_number,district\nAl Noor  Trading,300000000000003,Al Olaya\n",
        )
        .unwrap();
        let spec = LookupSpec {
            file: "customers.csv".into(),
            key_column: "Name".into(),
            optional: None,
        };
        let t = Table::load("customers", &spec, &[dir.path().to_path_buf()])
            .unwrap()
            .unwrap();
        let vat = t.column("VAT Number").unwrap();
        assert_eq!(t.get(" al noor trading ", vat), Some("300000000000003"));
        assert_eq!(t.get("nobody", vat), None);
        let e = t.column("distrct").unwrap_err().to_string();
        assert!(e.contains("\"district\""), "{e}");
    }

    #[test]
    fn an_empty_table_says_it_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let spec = LookupSpec {
            file: "customers.csv".into(),
            key_column: "account".into(),
            optional: Some(true),
        };
        for body in ["", "\u{feff}", " \r\n"] {
            std::fs::write(dir.path().join("customers.csv"), body).unwrap();
            let e = Table::load("customers", &spec, &[dir.path().to_path_buf()])
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                e.contains("the file is empty: give it its header line at least (its key column \"account\""),
                "{body:?}: {e}"
            );
        }
    }

    #[test]
    fn the_last_key_remembered_is_per_table_and_per_key() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let load = |file: &str, body: &str| -> Result<Table, Box<dyn std::error::Error>> {
            std::fs::write(dir.path().join(file), body)?;
            let spec = LookupSpec {
                file: file.into(),
                key_column: "name".into(),
                optional: None,
            };
            Table::load("t", &spec, &[dir.path().to_path_buf()])?.ok_or_else(|| "no table".into())
        };
        // A key written twice (once in another case): the first row, however it is asked for.
        let a = load("a.csv", "name,vat\nAcme,1\nZeta,2\n ACME ,3\n")?;
        let b = load("b.csv", "name,vat\nAcme,9\n")?;
        for _ in 0..2 {
            assert_eq!(a.get("Acme", 1), Some("1"));
            assert_eq!(a.get("acme ", 1), Some("1"));
            assert_eq!(b.get("acme ", 1), Some("9"));
            assert_eq!(b.get("Zeta", 1), None);
            assert_eq!(a.get("Zeta", 1), Some("2"));
            assert_eq!(a.get("Zeta", 0), Some("Zeta"));
            assert_eq!(a.get("", 1), None);
            assert_eq!(a.get("ACME", 1), Some("1"));
            assert_eq!(a.get("ACME  ", 1), Some("1"));
        }
        Ok(())
    }

    #[test]
    fn a_missing_file_is_an_error_unless_optional() {
        let spec = LookupSpec {
            file: "nowhere.csv".into(),
            key_column: "name".into(),
            optional: None,
        };
        let e = Table::load("customers", &spec, &[PathBuf::from("/nonexistent")]).unwrap_err();
        assert!(e.to_string().contains("nowhere.csv"), "{e}");
        let spec = LookupSpec {
            optional: Some(true),
            ..spec
        };
        assert!(Table::load("customers", &spec, &[]).unwrap().is_none());
    }

    #[test]
    fn a_key_given_twice_differently_is_known_with_its_lines_and_values() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(
            dir.path().join("c.csv"),
            "\u{feff}name,account,vat\r\nAcme,A1,300000000000003\r\n\"Zeta\nLtd\",Z1,311111111111113\r\n\
             Acme Co,a1 ,310122393500003\r\n\"Zeta\nLtd\",Z1,311111111111113\r\n",
        )?;
        let spec = LookupSpec {
            file: "c.csv".into(),
            key_column: "account".into(),
            optional: None,
        };
        let t = Table::load("customers", &spec, &[dir.path().to_path_buf()])?.ok_or("no table")?;
        assert!(t.has_duplicates());
        let a1 = t.row_of("A1").ok_or("no A1")?;
        let what = t.differing(a1, &[2, 0, 2]).ok_or("A1 not said")?;
        assert_eq!(
            what,
            r#"vat "300000000000003" on line 2, line 5 "310122393500003"; name "Acme" on line 2, line 5 "Acme Co""#
        );
        // Only the columns asked for count; the first record is still the one used.
        assert_eq!(t.differing(a1, &[1]), None);
        assert_eq!(t.get("A1", 2), Some("300000000000003"));
        // Z1 given twice alike (its key's case aside) is harmless.
        let z1 = t.row_of("z1").ok_or("no Z1")?;
        assert_eq!(t.differing(z1, &[0, 1, 2]), None);
        Ok(())
    }

    #[test]
    fn a_table_with_one_record_per_key_or_alike_duplicates_has_none() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("c.csv"), "name,vat\nAcme,1\nZeta,2\nacme,1\n")?;
        let spec = LookupSpec {
            file: "c.csv".into(),
            key_column: "name".into(),
            optional: None,
        };
        let t = Table::load("customers", &spec, &[dir.path().to_path_buf()])?.ok_or("no table")?;
        assert!(!t.has_duplicates());
        assert_eq!(t.duplicates.capacity(), 0);
        Ok(())
    }
}

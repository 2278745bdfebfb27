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

/// The folders in `dirs` as messages name them: each once, in full (the current folder, which
/// an export or mapping named without a folder gives as an empty path, too).
pub fn folders_searched(dirs: &[PathBuf]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in dirs {
        let d = if d.as_os_str().is_empty() {
            Path::new(".")
        } else {
            d.as_path()
        };
        let full = std::path::absolute(d).unwrap_or_else(|_| d.to_path_buf());
        // `a/./b` and `a/b` are one folder.
        let full: PathBuf = full.components().collect();
        let shown = full.display().to_string();
        if !out.contains(&shown) {
            out.push(shown);
        }
    }
    out
}

impl Table {
    /// Load a table. A missing optional file gives `Ok(None)`. `mapping` names the mapping for
    /// messages.
    pub fn load(name: &str, spec: &LookupSpec, dirs: &[PathBuf], mapping: &str) -> Result<Option<Table>, MappingError> {
        let Some(path) = resolve(&spec.file, dirs) else {
            if spec.optional.unwrap_or(false) {
                return Ok(None);
            }
            let looked = if Path::new(&spec.file).is_absolute() {
                String::new()
            } else {
                let folders = folders_searched(dirs);
                match folders.as_slice() {
                    [] => String::new(),
                    [one] => format!("; looked in {one}"),
                    many => format!("; looked in {}", many.join(", ")),
                }
            };
            return Err(MappingError::Lookup {
                path: spec.file.clone(),
                message: format!(
                    "lookup table {name:?} not found (lookups.{name}.file = {:?} of mapping {mapping}{looked}): put \
                     {} beside the export or the mapping, give its path in lookups.{name}.file (absolute, or \
                     relative to the mapping's folder), or, when the table may be absent, set optional = true in \
                     [lookups.{name}] (see mappings/README.md)",
                    spec.file,
                    Path::new(&spec.file)
                        .file_name()
                        .map_or_else(|| spec.file.clone(), |f| f.to_string_lossy().into_owned())
                ),
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
                "no key column {:?} (lookups.{name}.key_column of mapping {mapping}){}",
                spec.key_column,
                unknown_column_help(&headers, &spec.key_column, &format!("lookups.{name}.key_column"))
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

    /// The index of a column, or an error naming the mapping key that reads it (`key`, the
    /// field: `fields."buyer.vat_number"`, whose `get` names it), the mapping and the closest
    /// header.
    pub fn column(&self, column: &str, key: &str, mapping: &str) -> Result<usize, MappingError> {
        self.headers.find(column).ok_or_else(|| MappingError::Lookup {
            path: self.path.display().to_string(),
            message: format!(
                "no column {column:?} (needed by {key}.get of mapping {mapping}){}",
                unknown_column_help(&self.headers, column, &format!("{key}.get"))
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

/// What follows a lookup table's unknown column in its error: the closest header, or, when
/// none is close, the table's columns (a lookup table has few), and the fix (`setting`: the
/// mapping key to correct).
fn unknown_column_help(headers: &HeaderIndex, column: &str, setting: &str) -> String {
    if let Some(c) = headers.closest(column).or_else(|| same_start(headers, column)) {
        return format!("; the closest header is {c:?}: write it in {setting}, or add the column to the table");
    }
    const SHOWN: usize = 12;
    let names: Vec<String> = headers.names().into_iter().filter(|n| !n.trim().is_empty()).collect();
    let mut list: Vec<String> = names.iter().take(SHOWN).map(|n| format!("{n:?}")).collect();
    if names.len() > SHOWN {
        list.push(format!("and {} more", names.len() - SHOWN));
    }
    format!(
        "; the table's columns are {}: write one of them in {setting}, or add the column to the table",
        list.join(", ")
    )
}

/// The header that begins the way `column` does, over at least half of it (3 characters at
/// least, compared in normalised form): `vat_no` for `vat_number`, which is too many edits away
/// to be the closest by spelling. The longest such start wins; a tie, none.
fn same_start(headers: &HeaderIndex, column: &str) -> Option<String> {
    let n: Vec<char> = normalize(column).chars().collect();
    let need = (n.len().div_ceil(2)).max(3);
    let mut best: Option<(usize, String)> = None;
    let mut tie = false;
    for h in headers.names() {
        let common = normalize(&h).chars().zip(&n).take_while(|(a, b)| a == *b).count();
        if common < need {
            continue;
        }
        match &best {
            Some((len, _)) if *len > common => {}
            Some((len, _)) if *len == common => tie = true,
            _ => {
                best = Some((common, h));
                tie = false;
            }
        }
    }
    if tie { None } else { best.map(|(_, h)| h) }
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
#[path = "lookup_tests.rs"]
mod tests;

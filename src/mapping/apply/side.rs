//! The files read with the export that documents are built from (its joined header file, its
//! lookup tables): what a document takes from their last rows, which a writer still at work may
//! have cut, and what a lookup did not find.

use super::{Bound, Label, RPart, RSource};
use crate::ingest::Row;
use crate::mapping::Issue;
use crate::mapping::fields::{FIELDS, FieldId};
use crate::mapping::lookup::Table;
use crate::text::Trimmed;
use std::path::PathBuf;

/// A file read whole with the export, that documents are built from: its joined header file, or
/// a lookup table. Noted as it was just before it was opened, so that a change while the export
/// is read (still being written, or replaced) holds back the documents built from its last row,
/// which may be cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFile {
    /// What it is, for messages: `the header file X.txt`, `the lookup table customers.csv`.
    pub what: String,
    /// Its file name.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Its size and modification time just before it was opened.
    pub opened: crate::ingest::FileStamp,
    /// A lookup table (a key that is not in it may be in a part not read); else a header file.
    pub lookup: bool,
}

/// A document built from the last row of a [`SideFile`] (or, for a lookup table, from a key
/// not in it): what [`Bound::side_rows`] finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideUse {
    /// The side file, as an index in [`Bound::side_files`].
    pub file: usize,
    /// The document's row (index in its rows) whose key reads it.
    pub row: usize,
    /// The export's column holding the key, when one column does.
    pub column: Option<String>,
    /// The key.
    pub key: String,
    /// The key is not in the table (a lookup table only).
    pub missing: bool,
}

/// The error code of a key that several records of a lookup table give with different values.
pub const LOOKUP_DUPLICATE_CODE: &str = "INV-MAP-LOOKUP-DUPLICATE";

/// A lookup that gave nothing for a key ([`Bound::lookup_miss`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupMiss {
    /// The key, as looked up.
    pub key: String,
    /// The table's file name (as the mapping names it when the table was not found).
    pub file: String,
    /// False when the table itself was not found (an optional lookup file that is absent).
    pub table_found: bool,
}

impl LookupMiss {
    /// Where lookup files are looked for, as messages say it.
    pub const WHERE: &str =
        "it is looked for beside the mapping, in the configuration's lookups_dir and folder, and beside the export";

    /// Why the lookup gave nothing, as a finding says it: `"K" is not in F`, or `F was not
    /// found` and where it is looked for.
    pub fn reason(&self) -> String {
        if self.table_found {
            format!("{:?} is not in {}", self.key, self.file)
        } else {
            format!("{} was not found ({})", self.file, Self::WHERE)
        }
    }
}

impl Bound {
    /// The lookup tables loaded.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The files read with the export that documents are built from (its joined header file,
    /// its lookup tables), as they were when opened.
    pub fn side_files(&self) -> &[SideFile] {
        &self.side
    }

    /// The side files whose last row a document with first line row `first` (index `row` in its
    /// rows; `header`, its joined header row) is built from, or, for a lookup table, whose
    /// key it looks up and does not find: if such a file changed since it was opened, that row
    /// may have been cut, and the document is held back. Nothing per row: once per document,
    /// and nothing at all without side files.
    pub fn side_rows(&self, first: &Row, header: Option<&Row>, row: usize) -> Vec<SideUse> {
        let mut out = Vec::new();
        if self.side.is_empty() {
            return out;
        }
        if let (Some((last, file)), Some(p)) = (&self.join_last, self.join_parent) {
            let key = first.get(p).to_text();
            if key.trimmed() == last {
                out.push(SideUse {
                    file: *file,
                    row,
                    column: Some(self.label(p).to_string()),
                    key: last.clone(),
                    missing: false,
                });
            }
        }
        let v = self.view(first, header);
        for &(ti, f) in &self.side_lookups {
            let Some(RSource::Lookup { key, .. }) = &self.fields[f] else {
                continue;
            };
            let Some(Some(file)) = self.table_side.get(ti) else {
                continue;
            };
            let k = self.render(key, &v);
            if k.is_empty() {
                continue;
            }
            let table = &self.tables[ti];
            let found = table.row_of(&k);
            if found.is_none() || found == table.last_row() {
                let column = match key.as_slice() {
                    [RPart::Col(Some(i))] => Some(self.label(*i).to_string()),
                    _ => None,
                };
                out.push(SideUse {
                    file: *file,
                    row,
                    column,
                    key: k.into_owned(),
                    missing: found.is_none(),
                });
            }
        }
        out
    }

    /// The column a lookup field's key is read from, when it is one column.
    pub fn lookup_key_label(&self, f: FieldId) -> Option<Label<'_>> {
        match self.fields.get(f)?.as_ref()? {
            RSource::Lookup { key, .. } => match key.as_slice() {
                [RPart::Col(Some(i))] => Some(self.label(*i)),
                _ => None,
            },
            _ => None,
        }
    }

    /// When a lookup field has a key but no value from its table: the key is not in the table,
    /// or the table (optional) was not found.
    pub fn lookup_miss(&self, f: FieldId, row: &Row, header: Option<&Row>) -> Option<LookupMiss> {
        let v = self.view(row, header);
        if let Some(RSource::Lookup { table, key, label, .. }) = &self.fields[f] {
            let k = self.render(key, &v);
            if k.is_empty() {
                return None;
            }
            return match table {
                Some(ti) if self.tables[*ti].get(&k, 0).is_none() => Some(LookupMiss {
                    key: k.into_owned(),
                    file: self.tables[*ti].file_name(),
                    table_found: true,
                }),
                Some(_) => None,
                None => Some(LookupMiss {
                    key: k.into_owned(),
                    file: label.to_string(),
                    table_found: false,
                }),
            };
        }
        None
    }

    /// True when some lookup table gives a key on records that differ: only then does
    /// [`Bound::lookup_duplicates`] have anything to look for.
    pub fn has_lookup_duplicates(&self) -> bool {
        self.tables.iter().any(Table::has_duplicates)
    }

    /// The keys `row` (`header`: its joined header row) looks up, for its document's fields
    /// (`line` false) or its line's (`line` true), that several records of their table give
    /// with different values in a column the mapping takes: one error per table and key, on
    /// the key's column, naming the records' lines and what differs. The first record is not
    /// taken silently: it may be the wrong buyer's VAT number on a legal document, or a standard
    /// (B2B) invoice issued as simplified.
    pub fn lookup_duplicates(&self, row: &Row, header: Option<&Row>, line: bool) -> Vec<Issue> {
        let mut out = Vec::new();
        if !self.has_lookup_duplicates() {
            return out;
        }
        let v = self.view(row, header);
        // Each (table, key) asked, the columns taken from it, and the first field asking.
        let mut asked: Vec<(usize, String, Vec<usize>, FieldId)> = Vec::new();
        for (f, src) in self.fields.iter().enumerate() {
            let Some(RSource::Lookup {
                table: Some(ti),
                key,
                get,
                ..
            }) = src
            else {
                continue;
            };
            if FIELDS[f].line != line || !self.tables[*ti].has_duplicates() {
                continue;
            }
            let k = self.render(key, &v);
            if k.is_empty() {
                continue;
            }
            match asked.iter_mut().find(|(t, at, ..)| t == ti && at.as_str() == k) {
                Some((.., columns, _)) => columns.push(*get),
                None => asked.push((*ti, k.into_owned(), vec![*get], f)),
            }
        }
        for (ti, key, columns, f) in asked {
            let table = &self.tables[ti];
            let Some(what) = table.row_of(&key).and_then(|r| table.differing(r, &columns)) else {
                continue;
            };
            let file = table.file_name();
            let column = self
                .lookup_key_label(f)
                .or_else(|| self.source_label(f))
                .map(str::to_string);
            out.push(Issue::error(
                LOOKUP_DUPLICATE_CODE,
                column,
                Some(key.clone()),
                format!(
                    "{file} gives {key:?} on more than one line, with different values: {what}. Which one is meant \
                     is not guessed (for a buyer: its VAT number, and whether the invoice is standard or \
                     simplified), so this document is not issued. Keep one line per key in {file} (delete or \
                     correct the others), then run again"
                ),
            ));
        }
        out
    }
}

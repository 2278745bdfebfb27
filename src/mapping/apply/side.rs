//! The files read with the export that documents are built from (its joined header file, its
//! lookup tables): what a document takes from their last rows, which a writer still at work may
//! have cut, and what a lookup did not find.

use super::{Bound, Label, RPart, RSource};
use crate::ingest::Row;
use crate::mapping::fields::FieldId;
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
}

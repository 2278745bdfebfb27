//! A mapping bound to one file's headers ([`Bound`]), and the reading of a row's fields into typed
//! [`Value`]s.

use super::fields::{FIELDS, FieldId, fid};
use super::headers::HeaderIndex;
use super::load::{Mapping, NormText, Part, Source};
use super::lookup::Table;
use super::{Issue, MappingError};
use crate::ingest::{CellRef, Row};
use crate::model::{DocumentKind, InvoiceType, TaxCategory};
use crate::text::Trimmed;
use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

mod bind;
mod chars;
mod dates;
mod joined;
mod kind;
mod read;
mod shortened;
mod side;
mod tax;
mod when;

pub use chars::CHAR_CODE;
pub(crate) use chars::invisible_difference;
pub use dates::DateLook;
use joined::Joined;
pub use joined::{KEY_BLANK_CODE, KEY_DUPLICATE_CODE, Left, NO_LINES_CODE, Unjoined};
pub use side::{LOOKUP_DUPLICATE_CODE, LookupMiss, SideFile, SideUse};
use when::WhenAt;

/// A typed field value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Text.
    Text(String),
    /// A decimal or percentage.
    Decimal(Decimal),
    /// A date.
    Date(NaiveDate),
    /// A time.
    Time(NaiveTime),
    /// A boolean.
    Bool(bool),
    /// A document kind.
    Kind(DocumentKind),
    /// A document type.
    Type(InvoiceType),
    /// A VAT category (boxed: the other values are a few words, and a field's value is moved
    /// several times on its way into a line).
    Tax(Box<TaxCategory>),
}

/// Where a value came from, for messages: a column, template, lookup or the mapping itself.
/// Made once when the mapping is bound and borrowed from the [`Bound`], so reading a field
/// neither allocates a label nor touches a reference count (rows are read on several threads at
/// once, and a shared count would bounce between their caches).
pub type Label<'a> = &'a str;

/// The label of a mapping's constant.
const CONSTANT_LABEL: &str = "(mapping constant)";

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<'a> {
    /// The value.
    pub value: Value,
    /// The column (or template, lookup) it came from, for messages.
    pub label: Option<Label<'a>>,
    /// Said of the cell though its value is read (`INV-MAP-CHAR`: a character XML cannot hold,
    /// replaced by a space).
    pub warning: Option<Box<Issue>>,
}

#[derive(Debug, Clone)]
enum RPart {
    Text(String),
    Col(Option<usize>),
}

#[derive(Debug, Clone)]
enum RSource {
    Column(Option<usize>),
    Constant(String),
    Template(Vec<RPart>, Box<str>),
    Lookup {
        table: Option<usize>,
        key: Vec<RPart>,
        get: usize,
        label: Box<str>,
    },
    DefaultOnly,
}

/// The rows of a joined header file, by key.
#[derive(Debug, Clone, Default)]
pub struct JoinRows {
    /// The header file.
    pub path: PathBuf,
    /// Its header rows.
    pub headers: Vec<Vec<String>>,
    /// Its data rows.
    pub rows: Vec<Row>,
    /// Its size and modification time just before it was opened (`None`: not known).
    pub opened: Option<crate::ingest::FileStamp>,
}

/// A mapping bound to a file: every column resolved to an index, lookup tables loaded, the joined
/// header file (if any) indexed by key.
#[derive(Debug)]
pub struct Bound {
    /// The mapping.
    pub mapping: Arc<Mapping>,
    /// The file's headers.
    pub headers: HeaderIndex,
    join_headers: Option<HeaderIndex>,
    join_rows: HashMap<String, Joined>,
    /// The joined header file's records without a key (`INV-MAP-KEY-BLANK`).
    join_blank: Vec<Row>,
    join_parent: Option<usize>,
    /// The joined header file's key column, as an index in its headers.
    join_key: Option<usize>,
    /// The joined header file.
    pub join_path: Option<PathBuf>,
    fields: Vec<Option<RSource>>,
    /// Per field, the rows it is read from (its `when`).
    when: Box<[WhenAt]>,
    skip: Vec<Option<usize>>,
    group_key: Option<usize>,
    /// The column the document kind is read from, when one is ([`Bound::kind_column`]).
    kind_column: Option<usize>,
    tables: Vec<Table>,
    /// The label of every column (the file's, then the joined header file's), made once.
    labels: Vec<Box<str>>,
    /// The file's columns that feed document fields and no line field (see
    /// [`Bound::document_columns`]).
    doc_columns: Box<[(usize, Box<[FieldId]>)]>,
    /// The runs of adjacent columns among `doc_columns` ([`Bound::document_runs`]).
    doc_runs: Box<[DocRun]>,
    /// Things the user should know (a lookup file not found, a column absent).
    pub notes: Vec<String>,
    /// The files read with the export that documents are built from (header file, lookup
    /// tables), when their stamps are known.
    side: Vec<SideFile>,
    /// The key of the joined header file's last row (when it is the first row of its key), and
    /// its side file.
    join_last: Option<(String, usize)>,
    /// Each lookup table's side file.
    table_side: Vec<Option<usize>>,
    /// Each lookup table read with a stamp, and the first field that looks a key up in it.
    side_lookups: Vec<(usize, FieldId)>,
}

/// Adjacent columns among [`Bound::document_columns`]: from `first` to `last` (file columns),
/// which are `at` in that list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocRun {
    /// The run's first column.
    pub first: usize,
    /// Its last column.
    pub last: usize,
    /// Where its columns are in [`Bound::document_columns`].
    pub at: std::ops::Range<usize>,
}

/// The runs of adjacent columns of `columns` (in column order).
fn runs(columns: &[(usize, Box<[FieldId]>)]) -> Box<[DocRun]> {
    let mut out: Vec<DocRun> = Vec::new();
    for (k, &(c, _)) in columns.iter().enumerate() {
        match out.last_mut() {
            Some(r) if r.last + 1 == c => {
                r.last = c;
                r.at.end = k + 1;
            }
            _ => out.push(DocRun {
                first: c,
                last: c,
                at: k..k + 1,
            }),
        }
    }
    out.into_boxed_slice()
}

/// The cells of a row, plus those of its joined header row.
struct View<'a> {
    row: &'a Row,
    width: usize,
    header: Option<&'a Row>,
}

impl<'a> View<'a> {
    fn get(&self, i: usize) -> CellRef<'a> {
        if i < self.width {
            self.row.get(i)
        } else {
            match self.header {
                Some(h) => h.get(i - self.width),
                None => CellRef::Empty,
            }
        }
    }
}

impl Bound {
    /// The file's columns that feed document fields or skip rules (read from a document's first
    /// row) and no line field, each with the fields it feeds (none: a skip rule's column only):
    /// the rows of one document repeat them or leave them blank, so a row that says something
    /// else there contradicts its document.
    pub fn document_columns(&self) -> &[(usize, Box<[FieldId]>)] {
        &self.doc_columns
    }

    /// True when every document cell `row` gives (blank ones aside) is the one `other` gives,
    /// trimmed: a row without a number that repeats a document's date, buyer... is a line of it.
    pub fn same_document_cells(&self, row: &Row, other: &Row) -> bool {
        self.doc_columns.iter().all(|(c, _)| {
            let here = row.get(*c);
            here.is_blank() || here.as_text().trimmed() == other.get(*c).as_text().trimmed()
        })
    }

    /// [`Bound::document_columns`] in runs of adjacent columns, for comparing two rows' cells
    /// of a run at once ([`Row::plain_span`]).
    pub fn document_runs(&self) -> &[DocRun] {
        &self.doc_runs
    }

    /// The file's columns the mapping reads (for fields, lookups' keys, the document key and
    /// skip rules), in column order.
    fn read_columns(&self) -> Vec<usize> {
        let parts = |p: &[RPart]| -> Vec<usize> {
            p.iter()
                .filter_map(|p| match p {
                    RPart::Col(c) => *c,
                    RPart::Text(_) => None,
                })
                .collect()
        };
        let mut cols: Vec<usize> = self
            .fields
            .iter()
            .flatten()
            .flat_map(|f| match f {
                RSource::Column(c) => c.iter().copied().collect(),
                RSource::Template(p, _) | RSource::Lookup { key: p, .. } => parts(p),
                RSource::Constant(_) | RSource::DefaultOnly => Vec::new(),
            })
            .chain(self.when_columns())
            .chain(self.skip.iter().flatten().copied())
            .chain(self.group_key)
            .filter(|&i| i < self.headers.width())
            .collect();
        cols.sort_unstable();
        cols.dedup();
        cols
    }

    /// A warning for a text row with fewer cells than headers when a column the mapping reads
    /// is among those missing: they are read as blank, which the findings about them would not
    /// say (a line cut short by a line break inside an unquoted value, most often).
    pub fn short_row(&self, row: &Row) -> Option<Issue> {
        let read = row.fields_read()?;
        let width = self.headers.width();
        if read >= width || row.is_blank() {
            return None;
        }
        let missing: Vec<&str> = self
            .read_columns()
            .into_iter()
            .filter(|&i| i >= read)
            .map(|i| self.label(i))
            .collect();
        let first = *missing.first()?;
        Some(Issue::warning(
            "INV-ROW-SHORT",
            Some(first.to_string()),
            None,
            format!(
                "the line has {read} cells but the header has {width} columns: {} read as blank; if \
                 a line break inside a value cut the line, quote that value in the export",
                match missing.len() {
                    1 => format!("{first} is"),
                    _ => format!("{} are", missing.join(", ")),
                }
            ),
        ))
    }

    /// The name of column `i`, as messages show it.
    pub fn column_label(&self, i: usize) -> &str {
        self.label(i)
    }

    /// The text of the cell a column label (as [`Bound::column_label`] and provenance give it)
    /// names in `row` (or in its joined header row), trimmed: what a finding about that cell
    /// quotes. `None` for a label that is no column (a template, a lookup) or a blank cell.
    pub fn cell_text(&self, row: &Row, label: &str) -> Option<String> {
        let i = self
            .labels
            .iter()
            .position(|l| std::ptr::eq(l.as_ref(), label))
            .or_else(|| self.labels.iter().position(|l| l.as_ref() == label))?;
        let header = if i >= self.headers.width() {
            self.header_row(row).ok().flatten()
        } else {
            None
        };
        let text = self.view(row, header).get(i).as_text();
        let t = text.trimmed();
        (!t.is_empty()).then(|| t.to_string())
    }

    fn column_name(&self, i: usize) -> String {
        let w = self.headers.width();
        if i < w {
            self.headers.name(i)
        } else {
            let name = self.join_headers.as_ref().map(|h| h.name(i - w)).unwrap_or_default();
            let file = self
                .join_path
                .as_ref()
                .and_then(|p| p.file_name())
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{file} {name}")
        }
    }

    fn view<'a>(&self, row: &'a Row, header: Option<&'a Row>) -> View<'a> {
        View {
            row,
            width: self.headers.width(),
            header,
        }
    }

    /// The label of a column (every column of the file and of the joined header file has one,
    /// made when the mapping is bound).
    fn label(&self, i: usize) -> Label<'_> {
        self.labels.get(i).map_or("", |l| l)
    }

    /// A template's text: its parts joined (each column's text trimmed), then trimmed. Borrowed
    /// when the template is one column of text (a lookup's usual key): no copy per row.
    fn render<'a>(&self, parts: &[RPart], v: &View<'a>) -> Cow<'a, str> {
        if let [RPart::Col(Some(i))] = parts
            && let CellRef::Text(t) = v.get(*i)
        {
            return Cow::Borrowed(t.trimmed());
        }
        let mut out = String::new();
        for p in parts {
            match p {
                RPart::Text(t) => out.push_str(t),
                RPart::Col(Some(i)) => out.push_str(v.get(*i).as_text().trimmed()),
                RPart::Col(None) => {}
            }
        }
        match out.trimmed() {
            t if t.len() == out.len() => Cow::Owned(out),
            t => Cow::Owned(t.to_string()),
        }
    }

    /// The document key of a row: the group key column, else the `number` field's text.
    /// Borrowed from the row when the key is a column's text, so the rows of an open document
    /// are compared with it without a copy each.
    ///
    /// A character that shows as nothing ([`crate::text::invisible`]: a byte-order mark pasted
    /// in front of one row's number) does not take the row out of its document: it is left out
    /// of the key, and reading the number says it is there (`INV-MAP-CHAR`).
    pub fn key<'a>(&'a self, row: &'a Row, header: Option<&'a Row>) -> Cow<'a, str> {
        let trim = |t: Cow<'a, str>| match t {
            Cow::Borrowed(t) if crate::text::has_invisible(t) => Cow::Owned(visible(t)),
            Cow::Borrowed(t) => Cow::Borrowed(t.trimmed()),
            Cow::Owned(t) if crate::text::has_invisible(&t) => Cow::Owned(visible(&t)),
            Cow::Owned(t) => Cow::Owned(t.trimmed().to_string()),
        };
        fn visible(t: &str) -> String {
            crate::text::without_invisible(t).trimmed().to_string()
        }
        let v = self.view(row, header);
        if let Some(i) = self.group_key {
            return match v.get(i) {
                CellRef::Error(_) => Cow::Borrowed(""),
                c => trim(c.as_text()),
            };
        }
        match self.raw(fid!("number"), &v) {
            Some((CellRef::Error(_), _, _)) | None => Cow::Borrowed(""),
            Some((_, text, _)) => trim(text),
        }
    }

    /// The spreadsheet error (`#REF!`, `#N/A`) in the cell a row's document key is read from,
    /// if it holds one: the row has no number it can be grouped by ([`Bound::key`] is blank),
    /// though it may well be a line of a document.
    pub fn key_error<'a>(&'a self, row: &'a Row, header: Option<&'a Row>) -> Option<&'a str> {
        let v = self.view(row, header);
        let cell = match self.group_key {
            Some(i) => v.get(i),
            None => self.raw(fid!("number"), &v)?.0,
        };
        match cell {
            CellRef::Error(e) => Some(e),
            _ => None,
        }
    }

    /// The document number of the row opening a document, when documents are grouped by another
    /// column than the number (`[group] key`: SAP Business One's `ParentKey`, whose document is
    /// known by its header's `DocNum`), with the column it is read from; `None` where the key is
    /// the number, or the number is blank.
    pub fn number_apart<'a>(&'a self, row: &Row, header: Option<&Row>) -> Option<(String, Option<Label<'a>>)> {
        self.group_key?;
        let number = self.text(fid!("number"), row, header)?;
        let number = number.trimmed();
        (!number.is_empty()).then(|| (number.to_string(), self.source_label(fid!("number"))))
    }

    /// The column (or template, lookup) the document key is read from, as findings name it:
    /// the group key column, else the `number` field's source.
    pub fn key_label(&self) -> Option<Label<'_>> {
        match self.group_key {
            Some(i) => Some(self.label(i)),
            None => self.source_label(fid!("number")),
        }
    }

    /// The reason to skip a row's document, if a skip rule matches: (reason, column, value).
    pub fn skip_reason(&self, row: &Row, header: Option<&Row>) -> Option<(String, String, String)> {
        let v = self.view(row, header);
        for (rule, idx) in self.mapping.skip.iter().zip(&self.skip) {
            let Some(i) = idx else { continue };
            let text = v.get(*i).as_text();
            let norm = NormText::new(&text);
            if rule.equals.iter().any(|e| norm.matches(e)) {
                return Some((
                    rule.reason.replace("{value}", text.trimmed()),
                    self.column_name(*i),
                    text.trimmed().to_string(),
                ));
            }
        }
        None
    }

    /// The raw source of a field: (cell, text, label). `None` when the field is not mapped. A
    /// column's cell and text are borrowed from the row; a text made here (a template, a
    /// lookup) comes with an empty cell: the text is all there is.
    fn raw<'s: 'a, 'a>(&'s self, f: FieldId, v: &View<'a>) -> Option<(CellRef<'a>, Cow<'a, str>, Option<Label<'s>>)> {
        let src = self.fields[f].as_ref()?;
        let made = |t: Cow<'a, str>, label: &'s str| (CellRef::Empty, t, Some(label));
        Some(match src {
            RSource::Column(Some(i)) => {
                let c = v.get(*i);
                (c, c.as_text(), Some(self.label(*i)))
            }
            RSource::Column(None) => (CellRef::Empty, Cow::Borrowed(""), None),
            RSource::Constant(s) => (
                CellRef::Text(s.as_str()),
                Cow::Borrowed(s.as_str()),
                Some(CONSTANT_LABEL),
            ),
            RSource::Template(parts, label) => made(self.render(parts, v), label),
            RSource::Lookup { table, key, get, label } => {
                let Some(ti) = table else {
                    return Some((CellRef::Empty, Cow::Borrowed(""), None));
                };
                let k = self.render(key, v);
                let t = if k.is_empty() {
                    ""
                } else {
                    self.tables[*ti].get(&k, *get).unwrap_or("")
                };
                made(Cow::Borrowed(t), label)
            }
            RSource::DefaultOnly => (CellRef::Empty, Cow::Borrowed(""), None),
        })
    }

    /// True when the mapping gives field `f` a source: a field that is not is never read
    /// ([`Bound::field`] gives `Ok(None)` for it), so callers reading many fields per row can
    /// skip it without a call.
    #[inline]
    pub fn maps(&self, f: FieldId) -> bool {
        self.fields.get(f).is_some_and(Option::is_some) && self.mapping.fields.get(f).is_some_and(Option::is_some)
    }

    /// True when field `f`'s own cell (template, lookup) is blank in this row, whatever the
    /// mapping's default for it; also when the field is not mapped, or is a mapping constant
    /// (no cell of the row).
    pub fn is_blank(&self, f: FieldId, row: &Row, header: Option<&Row>) -> bool {
        let v = self.view(row, header);
        match self.fields.get(f).and_then(Option::as_ref) {
            None | Some(RSource::Constant(_)) => true,
            Some(_) => self.raw(f, &v).is_none_or(|(_, text, _)| text.trimmed().is_empty()),
        }
    }

    /// True when fields `a` and `b` are both read from one column of the file (a credit note's
    /// `original_number` from its own number's column: a mapping's slip).
    pub fn same_column(&self, a: FieldId, b: FieldId) -> bool {
        let column = |f: FieldId| match self.fields.get(f).and_then(Option::as_ref) {
            Some(RSource::Column(Some(i))) => Some(*i),
            _ => None,
        };
        column(a).is_some_and(|i| column(b) == Some(i))
    }

    /// The column (or template, or lookup) a field is read from, as findings name it: for the
    /// cell of a field that is blank or could not be read, so that what the rules say of the
    /// missing value points at the cell to fill in. `None` for a constant or an unmapped field.
    pub fn source_label(&self, f: FieldId) -> Option<Label<'_>> {
        match self.fields.get(f)?.as_ref()? {
            RSource::Column(Some(i)) => Some(self.label(*i)),
            RSource::Template(_, label) | RSource::Lookup { label, .. } => Some(label),
            RSource::Column(None) | RSource::Constant(_) | RSource::DefaultOnly => None,
        }
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;

    #[test]
    fn document_columns_make_runs_of_adjacent_columns() {
        let cols: Vec<(usize, Box<[FieldId]>)> = [0, 1, 2, 5, 7, 8].iter().map(|&c| (c, Box::default())).collect();
        let r = runs(&cols);
        let got: Vec<(usize, usize, std::ops::Range<usize>)> =
            r.iter().map(|r| (r.first, r.last, r.at.clone())).collect();
        assert_eq!(got, vec![(0, 2, 0..3), (5, 5, 3..4), (7, 8, 4..6)]);
        assert!(runs(&[]).is_empty());
    }
}

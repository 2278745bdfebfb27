//! Where each field of a built document came from ([`Provenance`]), so that a finding's JSON path
//! (`invoice_lines[2].price.price_per_unit`) leads back to the row and column to fix.

use super::super::apply::Label;
use super::super::fields::{FIELDS, FieldId};

/// A JSON path prefix a field fed, kept symbolic (the paths are only spelled out when a finding
/// is located, so building a document formats none of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Prefix {
    /// A document field's paths (`FIELDS[f].paths`).
    Document(FieldId),
    /// `invoice_lines[n]`.
    Line(usize),
    /// A line field's paths under `invoice_lines[n].`.
    LineField(usize, FieldId),
}

/// Where each field of a document came from: JSON path prefix → (row index in the document's
/// rows, source column).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance<'a> {
    entries: Vec<(Prefix, usize, Option<Label<'a>>)>,
}

/// The length of `prefix` when `path` is it or starts with it followed by `.` or `[`.
fn prefix_len(path: &str, prefix: &str) -> Option<usize> {
    let rest = path.strip_prefix(prefix)?;
    (rest.is_empty() || rest.starts_with(['.', '['])).then_some(prefix.len())
}

/// `n` when `path` starts with `invoice_lines[n]`, and the rest of the path.
fn line_of(path: &str) -> Option<(usize, &str)> {
    let rest = path.strip_prefix("invoice_lines[")?;
    let close = rest.find(']')?;
    let digits = &rest[..close];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    Some((digits.parse().ok()?, &rest[close + 1..]))
}

/// A field the export's figures are read into only to be compared with the computed ones.
fn compared_only(name: &str) -> bool {
    name.starts_with("erp.") || matches!(name, "line.tax_amount" | "line.gross_amount")
}

/// The mapping field whose value feeds `path` (`exchange_rate` for
/// `tax_total.tax_amount_in_tax_currency`, `line.item_name` for `invoice_lines[2].item.name`),
/// and how much of the path its own path covers (as [`Provenance::locate_len`] measures): the
/// longest of the fields' paths that the path starts with. `None` for a computed figure.
pub fn field_of(path: &str) -> Option<(usize, &'static str)> {
    let (line, tail) = match line_of(path) {
        Some((_, rest)) => (true, rest.strip_prefix('.')?),
        None => (false, path),
    };
    let head = path.len() - tail.len();
    FIELDS
        .iter()
        // The export's own figures are compared with the document's, they do not feed it.
        .filter(|f| f.line == line && !compared_only(f.name))
        .flat_map(|f| {
            f.paths
                .iter()
                .filter_map(move |p| prefix_len(tail, p).map(|len| (head + len, f.name)))
        })
        .max_by_key(|(len, _)| *len)
}

impl<'a> Provenance<'a> {
    /// Room for `entries` entries.
    pub(super) fn with_capacity(entries: usize) -> Self {
        Provenance {
            entries: Vec::with_capacity(entries),
        }
    }

    pub(super) fn add(&mut self, prefix: Prefix, row: usize, label: Option<Label<'a>>) {
        self.entries.push((prefix, row, label));
    }

    /// The row and column that fed a JSON path (`invoice_lines[2].price.price_per_unit`): the
    /// longest recorded prefix of the path.
    pub fn locate(&self, path: &str) -> Option<(usize, Option<&str>)> {
        self.locate_len(path).map(|(row, _, label)| (row, label))
    }

    /// [`Provenance::locate_len`], and whether the chosen prefix is a field that feeds the
    /// document (`line.tax`, whose code gives the VAT category and rate), rather than a whole
    /// line or one of the export's figures read only to be compared.
    pub fn locate_feeding(&self, path: &str) -> Option<(usize, usize, Option<&str>, bool)> {
        let (row, len, label) = self.locate_len(path)?;
        let feeds = self.entries.iter().any(|(prefix, r, l)| {
            *r == row
                && *l == label
                && match *prefix {
                    Prefix::Document(f) | Prefix::LineField(_, f) => !compared_only(FIELDS[f].name),
                    Prefix::Line(_) => false,
                }
        });
        Some((row, len, label, feeds))
    }

    /// [`Provenance::locate`], with how much of the path the chosen prefix covers.
    pub fn locate_len(&self, path: &str) -> Option<(usize, usize, Option<&str>)> {
        let line = line_of(path);
        // "invoice_lines[" + digits + "]"
        let line_head = |n: usize| 15 + n.to_string().len();
        let mut best: Option<((usize, bool), usize, Option<&str>)> = None;
        for (prefix, row, label) in &self.entries {
            let lens: Vec<usize> = match *prefix {
                Prefix::Document(f) => FIELDS[f].paths.iter().filter_map(|p| prefix_len(path, p)).collect(),
                Prefix::Line(n) => match line {
                    Some((m, rest)) if m == n && (rest.is_empty() || rest.starts_with(['.', '['])) => {
                        vec![line_head(n)]
                    }
                    _ => Vec::new(),
                },
                Prefix::LineField(n, f) => match line {
                    Some((m, rest)) if m == n => match rest.strip_prefix('.') {
                        Some(tail) => FIELDS[f]
                            .paths
                            .iter()
                            .filter_map(|p| prefix_len(tail, p).map(|l| line_head(n) + 1 + l))
                            .collect(),
                        None => Vec::new(),
                    },
                    _ => Vec::new(),
                },
            };
            for len in lens {
                let key = (len, label.is_some());
                // The last of equal keys wins, as `Iterator::max_by_key` would choose.
                if best.as_ref().is_none_or(|(k, _, _)| key >= *k) {
                    best = Some((key, *row, *label));
                }
            }
        }
        best.map(|((len, _), row, label)| (row, len, label))
    }
}

//! The order of a file's dates, read ahead ([`Bound::date_look`]): for a mapping whose date
//! formats hold alternatives (see [`crate::mapping::dates`]), the first date of the file that
//! reads in one order only settles the order of all its dates. For a mapping that writes one
//! order (the other implied), the file keeps it unless it shows the other order only.

use super::*;
use crate::ingest::SourceRef;
use crate::mapping::dates::{Alternatives, Order, Settlement, tells};

/// What a look over a file's dates found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DateLook {
    /// The order settled by the first date that reads in one order only (for a mapping that
    /// writes one order: by its first date that reads only in that order, else, when the file
    /// has none, by its first that reads only in the other).
    pub settled: Option<Settlement>,
    /// Without one: the first date that reads both ways as two dates (its text).
    pub ambiguous: Option<String>,
    /// For a mapping that writes one order: the file's first date that reads only in the other
    /// (the settlement too when no date reads only in the mapping's).
    pub against: Option<Settlement>,
}

/// Where a row is, as notes say it: `line 3`, `row 3`.
fn place(s: &SourceRef) -> String {
    match s.sheet {
        Some(_) => format!("row {}", s.line),
        None => format!("line {}", s.line),
    }
}

impl Bound {
    /// Look at the dates of `rows` (the file's, in order; rows that could not be read are
    /// passed over) in the fields whose formats hold alternatives, until one reads in one order
    /// only: that settles the file. Reads every row when none does; keeps no row.
    ///
    /// For a mapping that writes one order (the other implied), a date that reads only in the
    /// mapping's order settles it; one that reads only in the other does not stop the look,
    /// which settles that order only at the end of a file with no date of the mapping's. A
    /// spreadsheet date cell (no order to read) ends the look, unless such a date was met.
    pub fn date_look<E>(&self, rows: impl Iterator<Item = Result<Row, E>>) -> DateLook {
        let fields: Vec<(FieldId, &Alternatives)> = self
            .mapping
            .fields
            .iter()
            .flatten()
            .filter_map(|r| r.dates.as_deref().map(|a| (r.field, a)))
            .collect();
        let mut look = DateLook::default();
        if fields.is_empty() {
            return look;
        }
        // The order a one-order mapping writes (every field's: a mapping that lists both orders
        // anywhere implies none).
        let mine: Option<Order> = fields.iter().find_map(|(_, a)| a.implied);
        for row in rows.flatten() {
            let header = self.header_row(&row).ok().flatten();
            let v = self.view(&row, header);
            for &(f, alt) in &fields {
                let Some((cell, text, label)) = self.raw(f, &v) else {
                    continue;
                };
                if mine.is_some()
                    && look.against.is_none()
                    && matches!(cell, CellRef::Date(_) | CellRef::DateTime(_) | CellRef::Number(_))
                {
                    return look;
                }
                let t = text.trimmed();
                if t.is_empty() {
                    continue;
                }
                match tells(alt, cell, t) {
                    Some(Ok((order, format))) => {
                        let s = Settlement {
                            order,
                            format,
                            evidence: format!("{} {t:?} on {}", label.unwrap_or("the date"), place(&row.source)),
                        };
                        if mine.is_none_or(|m| m == order) {
                            look.settled = Some(s);
                            look.ambiguous = None;
                            return look;
                        }
                        look.against.get_or_insert(s);
                    }
                    Some(Err(_)) => {
                        look.ambiguous.get_or_insert_with(|| t.to_string());
                    }
                    None => {}
                }
            }
        }
        if look.against.is_some() {
            look.settled = look.against.take();
            look.ambiguous = None;
        }
        look
    }
}

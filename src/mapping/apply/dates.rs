//! The order of a file's dates, read ahead ([`Bound::date_look`]): for a mapping whose date
//! formats hold alternatives (see [`crate::mapping::dates`]), the first date of the file that
//! reads in one order only settles the order of all its dates.

use super::*;
use crate::ingest::SourceRef;
use crate::mapping::dates::{Alternatives, Settlement, tells};

/// What a look over a file's dates found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DateLook {
    /// The order settled by the first date that reads in one order only.
    pub settled: Option<Settlement>,
    /// Without one: the first date that reads both ways as two dates (its text).
    pub ambiguous: Option<String>,
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
        for row in rows.flatten() {
            let header = self.header_row(&row).ok().flatten();
            let v = self.view(&row, header);
            for &(f, alt) in &fields {
                let Some((cell, text, label)) = self.raw(f, &v) else {
                    continue;
                };
                let t = text.trimmed();
                if t.is_empty() {
                    continue;
                }
                match tells(alt, cell, t) {
                    Some(Ok((order, format))) => {
                        look.settled = Some(Settlement {
                            order,
                            format,
                            evidence: format!("{} {t:?} on {}", label.unwrap_or("the date"), place(&row.source)),
                        });
                        look.ambiguous = None;
                        return look;
                    }
                    Some(Err(_)) => {
                        look.ambiguous.get_or_insert_with(|| t.to_string());
                    }
                    None => {}
                }
            }
        }
        look
    }
}

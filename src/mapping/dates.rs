//! Date formats that are alternatives: a mapping whose date formats hold one format and the same
//! with day and month swapped (`date_format = ["%m/%d/%Y", "%d/%m/%Y"]`, QuickBooks Online: a US
//! company writes MM/DD/YYYY, any other DD/MM/YYYY) reads a file in one order only, settled
//! once per file before any of its documents is built: the first date of the file that reads in
//! one order only decides (`13/11/2026`: DD/MM/YYYY). Until a file settles it (or when none of
//! its dates tells), a date that reads both ways (`05/11/2026`) is an error, never a guess.

use super::transform::{clerk_format, parse_date};
use crate::ingest::CellRef;
use chrono::NaiveDate;

/// The finding of a date that reads both ways in a file that does not say which.
pub const AMBIGUOUS_CODE: &str = "INV-MAP-DATE-AMBIGUOUS";

/// Which comes first in a date: the day or the month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// DD/MM/YYYY.
    DayFirst,
    /// MM/DD/YYYY.
    MonthFirst,
}

/// What settled a file's order: its first date that reads in that order only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    /// The order.
    pub order: Order,
    /// The format that read it (`%d/%m/%Y`).
    pub format: String,
    /// Where: `InvoiceDate 13/11/2026 on line 3`.
    pub evidence: String,
}

/// The alternatives of a date field's formats, and what the file settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternatives {
    /// (day-first, month-first) pairs of the rule's formats, as the mapping writes them.
    pub pairs: Vec<(String, String)>,
    /// What the file settled (`None`: nothing yet, or nothing in the file tells).
    pub settled: Option<Settlement>,
    /// Once settled: the other order's formats, taken out of the rule's formats (for the
    /// message of a date that reads only in them).
    pub dropped: Vec<String>,
}

/// The format with its numeric day and month swapped (`%d/%m/%Y` → `%m/%d/%Y`), and which of
/// the two comes first in `format`. `None` without both a numeric day and a numeric month.
pub fn swapped(format: &str) -> Option<(String, Order)> {
    let mut out = String::with_capacity(format.len());
    let (mut day, mut month) = (None, None);
    let mut chars = format.chars().peekable();
    let mut at = 0;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        out.push('%');
        if let Some(flag) = chars.next_if(|f| matches!(f, '-' | '_' | '0')) {
            out.push(flag);
        }
        match chars.next() {
            Some('d') => {
                day.get_or_insert(at);
                out.push('m');
            }
            Some('m') => {
                month.get_or_insert(at);
                out.push('d');
            }
            Some(other) => out.push(other),
            None => {}
        }
        at += 1;
    }
    let (day, month) = (day?, month?);
    let order = if day < month {
        Order::DayFirst
    } else {
        Order::MonthFirst
    };
    Some((out, order))
}

/// The alternatives among a date field's formats: each format whose day-month swap is also in
/// the list. `None` when there are none (nearly every mapping).
pub fn alternatives(formats: &[String]) -> Option<Alternatives> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (i, f) in formats.iter().enumerate() {
        let Some((other, order)) = swapped(f) else {
            continue;
        };
        if other == *f || !formats[i + 1..].contains(&other) {
            continue;
        }
        let pair = match order {
            Order::DayFirst => (f.clone(), other),
            Order::MonthFirst => (other, f.clone()),
        };
        if !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    (!pairs.is_empty()).then_some(Alternatives {
        pairs,
        settled: None,
        dropped: Vec::new(),
    })
}

/// A date as a clerk reads it: `5 November 2026`.
fn spoken(d: NaiveDate) -> String {
    d.format("%-d %B %Y").to_string()
}

/// What a date cell tells of the order: `Some(Ok(order, format))` when it reads in one order
/// only, `Some(Err((a, b)))` when it reads both ways as two dates (`a` day-first), `None` when
/// it tells nothing (blank, no pair reads it, or both read the same day: `05/05/2026`).
pub fn tells(
    alt: &Alternatives,
    cell: CellRef<'_>,
    text: &str,
) -> Option<Result<(Order, String), (NaiveDate, NaiveDate)>> {
    let reads = |f: &String| parse_date(cell, text, std::slice::from_ref(f)).ok();
    let mut both = None;
    for (d, m) in &alt.pairs {
        match (reads(d), reads(m)) {
            (Some(_), None) => return Some(Ok((Order::DayFirst, d.clone()))),
            (None, Some(_)) => return Some(Ok((Order::MonthFirst, m.clone()))),
            (Some(a), Some(b)) if a != b => {
                both.get_or_insert((a, b));
            }
            _ => {}
        }
    }
    both.map(Err)
}

impl Alternatives {
    /// Settle the order of the file's dates: `formats` (the rule's) loses the other order's
    /// formats, kept in `dropped`.
    pub fn settle(&mut self, formats: &mut Vec<String>, s: &Settlement) {
        let other: Vec<&String> = self
            .pairs
            .iter()
            .map(|(d, m)| if s.order == Order::DayFirst { m } else { d })
            .collect();
        self.dropped = formats.iter().filter(|f| other.contains(f)).cloned().collect();
        formats.retain(|f| !other.contains(&f));
        self.settled = Some(s.clone());
    }

    /// The formats of both orders as the mapping lists them: `MM/DD/YYYY (%m/%d/%Y) and
    /// DD/MM/YYYY (%d/%m/%Y)`.
    fn both(&self) -> String {
        let (d, m) = &self.pairs[0];
        format!("{} ({m}) and {} ({d})", clerk_format(m), clerk_format(d))
    }

    /// Read a date of a field with alternatives: `formats` are the rule's (settled or not).
    /// `Err((code, message))`.
    pub fn parse(
        &self,
        cell: CellRef<'_>,
        text: &str,
        formats: &[String],
    ) -> Result<NaiveDate, (&'static str, String)> {
        match parse_date(cell, text, formats) {
            Ok(d) => {
                if self.settled.is_none()
                    && let Some(Err((a, b))) = tells(self, cell, text)
                {
                    return Err((
                        AMBIGUOUS_CODE,
                        format!(
                            "{} reads as {} or {}; the mapping allows {} and no date in this file tells which: set \
                             date_format in the mapping (or a copy of it) to the one the ERP writes",
                            text.trim(),
                            spoken(b),
                            spoken(a),
                            self.both()
                        ),
                    ));
                }
                Ok(d)
            }
            Err(e) => match &self.settled {
                Some(s) if !self.dropped.is_empty() => match parse_date(cell, text, &self.dropped) {
                    Ok(d) => Err((
                        "INV-MAP-VALUE",
                        format!(
                            "{e}: it is a date only as {} ({}), but this file's dates read as {} ({}): the file \
                             mixes both orders; if it is {}, write it {}, as the other dates are written",
                            self.dropped
                                .iter()
                                .map(|f| clerk_format(f))
                                .collect::<Vec<_>>()
                                .join(" or "),
                            spoken(d),
                            clerk_format(&s.format),
                            s.evidence,
                            spoken(d),
                            d.format(&s.format)
                        ),
                    )),
                    Err(_) => Err(("INV-MAP-VALUE", e)),
                },
                _ => Err(("INV-MAP-VALUE", e)),
            },
        }
    }

    /// The note of a file that settled `s`.
    pub fn settled_note(&self, s: &Settlement) -> String {
        format!(
            "dates read as {} ({}): the mapping allows {}, and {} is a date only that way",
            clerk_format(&s.format),
            s.format,
            self.both(),
            s.evidence
        )
    }

    /// The note of a file in which dates read both ways and none tells which.
    pub fn undecided_note(&self, example: &str) -> String {
        format!(
            "no date in this file tells whether its dates are {}: each date that reads both ways ({example}) is \
             an error ({AMBIGUOUS_CODE}) and nothing with such a date is issued; set date_format in the mapping \
             (or a copy of it) to the one the ERP writes",
            self.both().replace(" and ", " or ")
        )
    }
}

#[cfg(test)]
#[path = "dates_tests.rs"]
mod tests;

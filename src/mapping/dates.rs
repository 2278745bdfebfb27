//! Date formats that are alternatives: a mapping whose date formats hold one format and the same
//! with day and month swapped (`date_format = ["%m/%d/%Y", "%d/%m/%Y"]`, QuickBooks Online: a US
//! company writes MM/DD/YYYY, any other DD/MM/YYYY) reads a file in one order only, settled
//! once per file before any of its documents is built: the first date of the file that reads in
//! one order only decides (`13/11/2026`: DD/MM/YYYY). Until a file settles it (or when none of
//! its dates tells), a date that reads both ways (`05/11/2026`) is an error, never a guess.
//!
//! A mapping that writes one order only (`["%d/%m/%Y", "excel"]`, Xero) has the other order
//! implied ([`implied`]): an export re-saved by a program set to another country (a US-locale
//! Excel) writes the same dates month first. Its file is read in the mapping's order unless its
//! own dates show the other order only: a date that reads in the other order only
//! (`10/31/2026`) and none that reads in the mapping's only (the whole file is looked at). A file
//! none of whose dates tells keeps the mapping's order, as a file that shows it does.

use super::transform::{clerk_format, parse_date};
use crate::ingest::CellRef;
use chrono::NaiveDate;

/// The finding of a date that reads both ways in a file that does not say which.
pub const AMBIGUOUS_CODE: &str = "INV-MAP-DATE-AMBIGUOUS";

/// The finding of a date that reads only in the other order of day and month than its mapping
/// writes (`10/31/2026` for DD/MM/YYYY), in a file whose order was not looked at: `check` then
/// checks the file again after the look, and a workbook whose dates are date cells keeps it.
pub const ORDER_CODE: &str = "INV-MAP-DATE-ORDER";

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
    /// `Some(order)` when the mapping writes its dates in that one order, the pairs' other
    /// formats implied (not in the mapping): the file keeps the mapping's order unless it shows
    /// the other one only. `None` when the mapping lists both orders (alternatives it declares).
    pub implied: Option<Order>,
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
    let pairs = paired(formats, |i, _, other, _| {
        Some(formats[i + 1..].iter().any(|g| g == other))
    })?;
    Alternatives::of(pairs, None)
}

/// The (day-first, month-first) pairs of `formats`: each format with a numeric day and month
/// that `take` accepts (given its index, itself, its swap and the order it writes), with its
/// swap, each pair once, in the order of the formats. `take` gives `None` to give up on the
/// list (then `None`).
fn paired(
    formats: &[String],
    mut take: impl FnMut(usize, &str, &str, Order) -> Option<bool>,
) -> Option<Vec<(String, String)>> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (i, f) in formats.iter().enumerate() {
        let Some((other, order)) = swapped(f) else {
            continue;
        };
        if other == *f || !take(i, f, &other, order)? {
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
    Some(pairs)
}

/// True when a format's first two directives are its day and month (`%d/%m/%Y`, `%m-%d-%y`):
/// the formats one country writes one way and another the other (not `%Y-%m-%d`).
fn day_and_month_lead(format: &str) -> bool {
    let mut lead = Vec::with_capacity(2);
    let mut chars = format.chars();
    while lead.len() < 2
        && let Some(c) = chars.next()
    {
        if c != '%' {
            continue;
        }
        let mut d = chars.next();
        if matches!(d, Some('-' | '_' | '0')) {
            d = chars.next();
        }
        match d {
            Some('%') | None => {}
            Some(x) => lead.push(x),
        }
    }
    matches!(lead[..], ['d', 'm'] | ['m', 'd'])
}

/// The other order implied by a date field's formats that write one order only
/// (`["%d/%m/%Y", "excel"]`: `%m/%d/%Y`): each format that begins with its numeric day and month
/// paired with its swap. `None` when no format does, when the list already holds a swap (see
/// [`alternatives`]), or when its formats write both orders.
pub fn implied(formats: &[String]) -> Option<Alternatives> {
    let mut order = None;
    let pairs = paired(formats, |_, f, other, o| {
        if !day_and_month_lead(f) {
            return Some(false);
        }
        // A swap the list holds, or formats of both orders: not one order only.
        (!formats.iter().any(|g| g == other) && *order.get_or_insert(o) == o).then_some(true)
    })?;
    Alternatives::of(pairs, order)
}

/// An order as a note says it.
fn order_words(o: Order) -> &'static str {
    match o {
        Order::DayFirst => "day first",
        Order::MonthFirst => "month first",
    }
}

/// A list of date formats as a TOML value: `["%m/%d/%Y", "excel"]`.
fn toml_list(formats: &[String]) -> String {
    let quoted: Vec<String> = formats.iter().map(|f| format!("{f:?}")).collect();
    format!("[{}]", quoted.join(", "))
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
    /// The alternatives of `pairs`, nothing settled yet (`None` without a pair).
    fn of(pairs: Vec<(String, String)>, implied: Option<Order>) -> Option<Self> {
        (!pairs.is_empty()).then_some(Alternatives {
            pairs,
            implied,
            settled: None,
            dropped: Vec::new(),
        })
    }

    /// Settle the order of the file's dates: `formats` (the rule's) loses the other order's
    /// formats, kept in `dropped`. An implied pair's format of the mapping's order is replaced by
    /// its swap when the file settles the other order.
    pub fn settle(&mut self, formats: &mut Vec<String>, s: &Settlement) {
        self.dropped.clear();
        for (d, m) in &self.pairs {
            let (keep, other) = if s.order == Order::DayFirst { (d, m) } else { (m, d) };
            if let Some(i) = formats.iter().position(|f| f == other) {
                if formats.contains(keep) {
                    formats.remove(i);
                } else {
                    formats[i] = keep.clone();
                }
                if !self.dropped.contains(other) {
                    self.dropped.push(other.clone());
                }
            } else if self.implied.is_some() && !self.dropped.contains(other) {
                self.dropped.push(other.clone());
            }
        }
        self.settled = Some(s.clone());
    }

    /// The rule's formats in the other order than the mapping's (the implied swaps in place of
    /// the formats they swap): `["%m/%d/%Y", "excel"]` for `["%d/%m/%Y", "excel"]`.
    fn swapped_formats(&self, formats: &[String]) -> Vec<String> {
        let Some(order) = self.implied else {
            return formats.to_vec();
        };
        formats
            .iter()
            .map(|f| {
                self.pairs
                    .iter()
                    .find_map(|(d, m)| match order {
                        Order::DayFirst => (f == d).then(|| m.clone()),
                        Order::MonthFirst => (f == m).then(|| d.clone()),
                    })
                    .unwrap_or_else(|| f.clone())
            })
            .collect()
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
                    && self.implied.is_none()
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
                None if let Some(order) = self.implied => {
                    let other = self.swapped_formats(formats);
                    match parse_date(cell, text, &other) {
                        Ok(d) => Err((ORDER_CODE, self.other_order_only(text, d, order, formats, &other))),
                        Err(_) => Err(("INV-MAP-VALUE", e)),
                    }
                }
                _ => Err(("INV-MAP-VALUE", e)),
            },
        }
    }

    /// The message of a date `text` that reads only in the other order than the mapping's
    /// (`order`), `d` that way, in a file whose order is not settled (a workbook whose dates
    /// are date cells is not looked through).
    fn other_order_only(&self, text: &str, d: NaiveDate, order: Order, formats: &[String], other: &[String]) -> String {
        // The pair of a format of the rule (every pair's, but for a field read by several).
        let (d0, m0) = self
            .pairs
            .iter()
            .find(|(a, b)| formats.contains(if order == Order::DayFirst { a } else { b }))
            .unwrap_or(&self.pairs[0]);
        let (mine, theirs) = match order {
            Order::DayFirst => (d0.as_str(), m0.as_str()),
            Order::MonthFirst => (m0.as_str(), d0.as_str()),
        };
        format!(
            "{} is not a date as {}, the mapping's order, but only as {} ({}): if this file's dates are {} \
             ({}), read it with a copy of the mapping with date_format = {}; if it is {}, write it {}",
            text.trim(),
            clerk_format(mine),
            clerk_format(theirs),
            spoken(d),
            clerk_format(theirs),
            order_words(if order == Order::DayFirst {
                Order::MonthFirst
            } else {
                Order::DayFirst
            }),
            toml_list(other),
            spoken(d),
            d.format(mine)
        )
    }

    /// The note of a file that settled `s` (`against`: for a mapping that writes one order, the
    /// first date of the file that reads only in the other, met before `s`). `formats`: the
    /// rule's, settled. `None` for a file that shows the order its mapping writes.
    pub fn settled_note(&self, s: &Settlement, against: Option<&Settlement>, formats: &[String]) -> Option<String> {
        let Some(mine) = self.implied else {
            return Some(format!(
                "dates read as {} ({}): the mapping allows {}, and {} is a date only that way",
                clerk_format(&s.format),
                s.format,
                self.both(),
                s.evidence
            ));
        };
        // The mapping's own format (of the first pair), as the note names it.
        let (d0, m0) = &self.pairs[0];
        let theirs = if mine == Order::DayFirst { d0 } else { m0 };
        if s.order != mine {
            let us = if s.order == Order::MonthFirst {
                ", such as Excel in a US locale,"
            } else {
                ""
            };
            return Some(format!(
                "this file's dates are {}, not as its mapping writes them: they are read as {} ({}), not {} ({}), \
                 since {} is a date only that way and no date of the file is one only as {} (an export saved \
                 again by a program set to another country{us} is written so); if the ERP writes its exports so, \
                 read them with a copy of the mapping with date_format = {}",
                order_words(s.order),
                clerk_format(&s.format),
                s.format,
                clerk_format(theirs),
                theirs,
                s.evidence,
                clerk_format(theirs),
                toml_list(formats)
            ));
        }
        let a = against?;
        Some(format!(
            "this file mixes both orders of day and month: its dates are read as {} ({}), the mapping's, since \
             {} is a date only that way, but {} is a date only as {}; each date that is one only that way is \
             an error (INV-MAP-VALUE), and the others are read as {}",
            clerk_format(&s.format),
            s.format,
            s.evidence,
            a.evidence,
            clerk_format(&a.format),
            clerk_format(&s.format)
        ))
    }

    /// The note of a file in which dates read both ways and none tells which (`None` for a
    /// mapping that writes one order: its order stands).
    pub fn undecided_note(&self, example: &str) -> Option<String> {
        if self.implied.is_some() {
            return None;
        }
        Some(format!(
            "no date in this file tells whether its dates are {}: each date that reads both ways ({example}) is \
             an error ({AMBIGUOUS_CODE}) and nothing with such a date is issued; set date_format in the mapping \
             (or a copy of it) to the one the ERP writes",
            self.both().replace(" and ", " or ")
        ))
    }
}

#[cfg(test)]
#[path = "dates_tests.rs"]
mod tests;

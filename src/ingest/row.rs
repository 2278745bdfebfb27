//! A row of an export and where it came from.

use crate::text::Trimmed;
use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use rust_decimal::Decimal;
use std::fmt;
use std::sync::Arc;

/// Where a row came from: the file, the sheet (spreadsheets), and the 1-based line (CSV: the
/// physical line the record starts on) or row number (spreadsheets).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceRef {
    /// The file as the user named it.
    pub file: Arc<str>,
    /// The sheet, for spreadsheets.
    pub sheet: Option<Arc<str>>,
    /// 1-based line or row number.
    pub line: u64,
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.sheet {
            Some(s) => write!(f, "{} [{}] row {}", self.file, s, self.line),
            None => write!(f, "{} line {}", self.file, self.line),
        }
    }
}

/// A cell's text: strings of up to 24 bytes (most cells of an export) are held inline, without
/// an allocation of their own.
pub type Text = compact_str::CompactString;

/// A cell. CSV cells are always text; spreadsheet cells keep their type, with numbers converted to
/// exact decimals (never `f64` near an amount) and date-formatted cells to dates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Nothing there.
    Empty,
    /// Text as written.
    Text(Text),
    /// A number from a spreadsheet, as the exact decimal the sheet shows.
    Number(Decimal),
    /// A date from a date-formatted spreadsheet cell.
    Date(NaiveDate),
    /// A date and time from a spreadsheet cell.
    DateTime(NaiveDateTime),
    /// A boolean cell.
    Bool(bool),
}

impl Cell {
    /// True when empty or only white space.
    pub fn is_blank(&self) -> bool {
        match self {
            Cell::Empty => true,
            Cell::Text(t) => t.trimmed().is_empty(),
            _ => false,
        }
    }

    /// [`Cell::to_text`], borrowed when the cell is text or empty.
    pub fn as_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Cell::Empty => std::borrow::Cow::Borrowed(""),
            Cell::Text(t) => std::borrow::Cow::Borrowed(t.as_str()),
            other => std::borrow::Cow::Owned(other.to_text()),
        }
    }

    /// The cell as text, the way a person would read it.
    pub fn to_text(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Text(t) => t.to_string(),
            Cell::Number(d) => decimal_text(d),
            Cell::Date(d) => date_text(*d),
            Cell::DateTime(d) => d.format("%Y-%m-%d %H:%M:%S").to_string(),
            Cell::Bool(b) => b.to_string(),
        }
    }
}

/// A decimal as `Decimal::normalize().to_string()` writes it (a spreadsheet cell's text is made
/// for every number of every row).
fn decimal_text(d: &Decimal) -> String {
    decimal_plain(&d.normalize())
}

/// A decimal as `to_string()` writes it (its scale kept: `12.50`), in one pass over its digits
/// when the mantissa fits a `u64`, as every amount of an export does.
pub(crate) fn decimal_plain(d: &Decimal) -> String {
    let mantissa = d.mantissa();
    let Ok(m) = u64::try_from(mantissa.unsigned_abs()) else {
        return d.to_string();
    };
    if m == 0 {
        return d.to_string();
    }
    let scale = d.scale() as usize;
    let digits = m.to_string();
    let mut out = String::with_capacity(digits.len() + scale + 3);
    if mantissa < 0 {
        out.push('-');
    }
    if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        out.push_str(int);
        if !frac.is_empty() {
            out.push('.');
            out.push_str(frac);
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(&digits);
    }
    out
}

/// A date as `%Y-%m-%d`, without parsing the format each time (years 0 to 9999; chrono's own
/// form otherwise).
pub(crate) fn date_text(d: NaiveDate) -> String {
    use chrono::Datelike;
    let y = d.year();
    if !(0..=9999).contains(&y) {
        return d.format("%Y-%m-%d").to_string();
    }
    let (m, day) = (d.month() as u8, d.day() as u8);
    let y = y as u16;
    let b = [
        b'0' + (y / 1000) as u8,
        b'0' + (y / 100 % 10) as u8,
        b'0' + (y / 10 % 10) as u8,
        b'0' + (y % 10) as u8,
        b'-',
        b'0' + m / 10,
        b'0' + m % 10,
        b'-',
        b'0' + day / 10,
        b'0' + day % 10,
    ];
    String::from_utf8_lossy(&b).into_owned()
}

/// A time as `%H:%M:%S`, without parsing the format each time (chrono's own form for a leap
/// second).
pub(crate) fn time_text(t: NaiveTime) -> String {
    use chrono::Timelike;
    if t.nanosecond() >= 1_000_000_000 {
        return t.format("%H:%M:%S").to_string();
    }
    let [h, m, s] = [t.hour(), t.minute(), t.second()].map(|v| v as u8);
    let b = [
        b'0' + h / 10,
        b'0' + h % 10,
        b':',
        b'0' + m / 10,
        b'0' + m % 10,
        b':',
        b'0' + s / 10,
        b'0' + s % 10,
    ];
    String::from_utf8_lossy(&b).into_owned()
}

/// One data row: cells in header order (a short row is padded with [`Cell::Empty`], extra cells
/// beyond the headers are kept at the end), and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Where the row came from.
    pub source: SourceRef,
    /// The cells, in the order of the headers.
    pub cells: Vec<Cell>,
}

impl Row {
    /// The cell at a column index, or [`Cell::Empty`].
    pub fn get(&self, index: usize) -> &Cell {
        static EMPTY: Cell = Cell::Empty;
        self.cells.get(index).unwrap_or(&EMPTY)
    }

    /// True when every cell is blank.
    pub fn is_blank(&self) -> bool {
        self.cells.iter().all(Cell::is_blank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The same text as `normalize().to_string()` and chrono's `%Y-%m-%d`.
        #[test]
        fn number_and_date_texts_are_the_crates(m in proptest::num::i64::ANY, wide in proptest::num::i128::ANY, scale in 0u32..29, days in -1_000_000i32..4_000_000) {
            for d in [Decimal::new(m, scale.min(20)), Decimal::from_i128_with_scale(wide >> 32, scale)] {
                proptest::prop_assert_eq!(decimal_text(&d), d.normalize().to_string());
                proptest::prop_assert_eq!(decimal_plain(&d), d.to_string());
            }
            let date = NaiveDate::from_num_days_from_ce_opt(days).unwrap_or_default();
            proptest::prop_assert_eq!(date_text(date), date.format("%Y-%m-%d").to_string());
        }

        /// The same text as chrono's `%H:%M:%S`, leap seconds included.
        #[test]
        fn time_text_is_the_crates(secs in 0u32..86_400, nano in 0u32..2_000_000_000) {
            if let Some(t) = NaiveTime::from_num_seconds_from_midnight_opt(secs, nano) {
                proptest::prop_assert_eq!(time_text(t), t.format("%H:%M:%S").to_string());
            }
        }
    }

    #[test]
    fn small_and_negative_numbers() {
        for (d, text) in [
            (Decimal::new(5, 2), "0.05"),
            (Decimal::new(-50, 2), "-0.5"),
            (Decimal::new(1200, 2), "12"),
            (Decimal::new(0, 3), "0"),
            (Decimal::new(-1, 28), "-0.0000000000000000000000000001"),
        ] {
            assert_eq!(decimal_text(&d), text);
        }
    }
}

//! Spreadsheet cells (calamine's `Data`) as [`Cell`]s: typed, exact, never `f64`.

use super::row::{Cell, Text};
use calamine::{Data, DataRef};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use rust_decimal::Decimal;
use rust_decimal::prelude::FromPrimitive;

/// **The one place where an `f64` becomes a decimal.** Spreadsheets store numbers as binary
/// floating point; calamine hands them over as `f64`. `Decimal::from_f64` gives the shortest
/// decimal that reads back as the same float (so a cell showing 0.1 gives 0.1, and 0.1+0.2
/// stored as 0.30000000000000004 gives 0.3), never the float's full binary expansion
/// (`from_f64_retain` would give 0.1000000000000000055511151231). The result is normalized, so
/// an integer-valued float becomes an integer. `None` for NaN, infinities and magnitudes beyond
/// a decimal's range.
///
/// Most cells hold whole numbers or amounts with at most four decimals: those of at most 15
/// significant digits are found directly (the float times 1, 10, ... 10,000, rounded, divided
/// back and compared): two such decimals are more than one float apart, so the one that reads
/// back as the float is the float rounded to 15 significant digits, what the general path gives
/// (a property test holds them equal).
pub(crate) fn decimal_from_sheet_float(value: f64) -> Option<Decimal> {
    for (scale, factor) in [(0u32, 1.0f64), (1, 10.0), (2, 100.0), (3, 1e3), (4, 1e4)] {
        let n = (value * factor).round();
        // |n| < 10^15 (exact in the float, at most 15 significant digits: what the general path
        // would give too).
        if n.abs() < 1e15 && n / factor == value {
            return Some(Decimal::new(n as i64, scale).normalize());
        }
    }
    decimal_from_sheet_float_slow(value)
}

/// [`decimal_from_sheet_float`] for any float: its 15 significant digits, the most a
/// spreadsheet keeps and shows (`from_f64` alone gives some floats a 16th digit that is only the
/// binary fraction's noise: -4384831009.02 became -4384831009.020001).
fn decimal_from_sheet_float_slow(value: f64) -> Option<Decimal> {
    if !value.is_finite() {
        return None;
    }
    let shown = format!("{value:.14e}");
    Decimal::from_scientific(&shown)
        .ok()
        .or_else(|| Decimal::from_f64(value))
        .map(|d| d.normalize())
}

/// Whether an Excel number format code shows a number as a percentage (`0%`, `0.00%`,
/// `#,##0.0%;[Red]-0.0%`): a `%` outside quoted text, escaped characters and brackets. Such a
/// cell stores the fraction (0.1) and shows the percentage (10%).
pub(crate) fn is_percent_format(code: &str) -> bool {
    let mut chars = code.chars();
    let (mut quoted, mut bracket) = (false, false);
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '\\' | '_' | '*' => {
                // An escaped character, a space as wide as the next one, a fill character.
                chars.next();
            }
            '[' => bracket = true,
            ']' => bracket = false,
            '%' if !bracket => return true,
            _ => {}
        }
    }
    false
}

/// `A`, `B`, ..., `Z`, `AA`, ... for a 0-based column.
pub(crate) fn column_name(mut col: u32) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'A' + (col % 26) as u8);
        if col < 26 {
            break;
        }
        col = col / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

pub(crate) fn data_is_blank(d: &Data) -> bool {
    match d {
        Data::Empty => true,
        Data::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

/// A cell as the reading thread hands it over: text already in its final form (held inline when
/// short, so most text cells cost no allocation on that thread, which bounds the reading of a
/// workbook), anything else as calamine's value, converted by [`convert_raw`] on the consuming
/// thread.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawCell {
    Text(Text),
    Data(Data),
    /// A formula saved without its computed value (calamine reads it as empty), as a
    /// spreadsheet shows it: `=B2*C2` (`=` alone when not known). No value: an error cell of
    /// that text ([`formula_without_value`](super::formula_without_value)). A row of
    /// nothing else is blank, as it was read before (what it would show is not known: most
    /// often a template's formulas below the data).
    Formula(Text),
}

impl Default for RawCell {
    fn default() -> Self {
        RawCell::Data(Data::Empty)
    }
}

impl RawCell {
    /// A cell of calamine's cell reader.
    pub(crate) fn from_ref(value: &DataRef<'_>) -> RawCell {
        match value {
            DataRef::SharedString(s) => RawCell::Text((*s).into()),
            DataRef::String(s) => RawCell::Text(s.as_str().into()),
            other => RawCell::Data(Data::from(other.clone())),
        }
    }

    /// A number cell whose number format shows it as a percentage ([`is_percent_format`]): the
    /// number as shown, `10%` for the 0.1 stored, so that a percent field reads 10 and an
    /// amount field refuses it, as it would the text; anything else as [`RawCell::from_ref`].
    pub(crate) fn percent(value: &DataRef<'_>) -> RawCell {
        let number = match value {
            DataRef::Float(f) => decimal_from_sheet_float(*f),
            DataRef::Int(i) => Some(Decimal::from(*i)),
            _ => None,
        };
        match number.and_then(|d| d.checked_mul(Decimal::ONE_HUNDRED)) {
            Some(shown) => RawCell::Text(format!("{}%", shown.normalize()).as_str().into()),
            None => RawCell::from_ref(value),
        }
    }

    pub(crate) fn is_blank(&self) -> bool {
        match self {
            RawCell::Text(t) => t.trim().is_empty(),
            RawCell::Data(d) => data_is_blank(d),
            RawCell::Formula(_) => true,
        }
    }

    /// A header cell as text.
    pub(crate) fn header_text(&self) -> String {
        match self {
            RawCell::Text(t) => t.trim().to_owned(),
            RawCell::Data(d) => header_text(d),
            RawCell::Formula(_) => String::new(),
        }
    }
}

/// [`convert`] of a handed-over cell.
pub(crate) fn convert_raw(cell: RawCell) -> (Cell, Option<Problem>) {
    match cell {
        RawCell::Text(t) if t.is_empty() => (Cell::Empty, None),
        RawCell::Text(t) => (Cell::Text(t), None),
        RawCell::Data(d) => convert(d),
        RawCell::Formula(f) => {
            let text = f.to_string();
            (Cell::Error(f), Some(Problem::Formula(text)))
        }
    }
}

/// A header cell as text.
pub(crate) fn header_text(d: &Data) -> String {
    let text = match d {
        Data::Empty => String::new(),
        Data::String(s) => s.clone(),
        Data::Float(f) => decimal_from_sheet_float(*f).map_or_else(|| f.to_string(), |d| d.to_string()),
        other => convert(other.clone()).0.to_text(),
    };
    text.trim().to_owned()
}

/// A data cell. The second value is set when the cell deserves a note (an error cell or a
/// number that has no decimal form), with the text to quote.
pub(crate) fn convert(d: Data) -> (Cell, Option<Problem>) {
    match d {
        Data::Empty => (Cell::Empty, None),
        Data::String(s) if s.is_empty() => (Cell::Empty, None),
        Data::String(s) => (Cell::Text(s.into()), None),
        Data::Int(i) => (Cell::Number(Decimal::from(i)), None),
        Data::Float(f) => match decimal_from_sheet_float(f) {
            Some(d) => (Cell::Number(d), None),
            None => (Cell::Text(f.to_string().into()), Some(Problem::Number(f.to_string()))),
        },
        Data::Bool(b) => (Cell::Bool(b), None),
        Data::DateTime(dt) => {
            let serial = dt.as_f64();
            if dt.is_duration() || (0.0..1.0).contains(&serial) {
                (Cell::Text(clock_text(serial).into()), None)
            } else {
                match dt.as_datetime() {
                    Some(t) if t.time() == NaiveTime::MIN => (Cell::Date(t.date()), None),
                    Some(t) => (Cell::DateTime(t.with_nanosecond(0).unwrap_or(t)), None),
                    None => (
                        Cell::Text(serial.to_string().into()),
                        Some(Problem::Number(serial.to_string())),
                    ),
                }
            }
        }
        Data::DateTimeIso(s) => (iso_date(&s).unwrap_or_else(|| Cell::Text(s.into())), None),
        Data::DurationIso(s) => (Cell::Text(s.into()), None),
        Data::Error(e) => {
            let text = e.to_string();
            (Cell::Error(text.as_str().into()), Some(Problem::Error(text)))
        }
    }
}

pub(crate) enum Problem {
    Error(String),
    Number(String),
    /// A formula saved without its computed value.
    Formula(String),
}

/// A time of day or duration (in days) as `H:MM:SS`.
fn clock_text(days: f64) -> String {
    let total = (days * 86_400.0).round();
    let total = if total.is_finite() { total as i64 } else { 0 };
    let sign = if total < 0 { "-" } else { "" };
    let t = total.abs();
    format!("{sign}{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
}

/// ODS dates come as ISO text.
fn iso_date(s: &str) -> Option<Cell> {
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Some(Cell::Date(d));
    }
    let t = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
    Some(if t.time() == NaiveTime::MIN {
        Cell::Date(t.date())
    } else {
        Cell::DateTime(t)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap_or_default()
    }

    #[test]
    fn floats_become_shortest_decimals() {
        let cases = [
            (0.1 + 0.2, "0.3"),
            (0.1, "0.1"),
            (46096.0, "46096"),
            (1234567.89, "1234567.89"),
            (19.99, "19.99"),
            (-2.675, "-2.675"),
            (0.07 * 3.0, "0.21"),
            (-0.0, "0"),
            // 15 significant digits, not the float's noise in a 16th.
            (-4384831009.02, "-4384831009.02"),
            (0.1234567890123456, "0.123456789012346"),
            (1e-7, "0.0000001"),
        ];
        for (f, want) in cases {
            let got = decimal_from_sheet_float(f).map(|d| d.to_string());
            assert_eq!(got.as_deref(), Some(want), "{f:?}");
        }
        assert_eq!(decimal_from_sheet_float(46096.0).map(|d| d.scale()), Some(0));
        // The general path gives the same as the direct one where both apply.
        assert_eq!(
            decimal_from_sheet_float_slow(-4384831009.02)
                .map(|d| d.to_string())
                .as_deref(),
            Some("-4384831009.02")
        );
        assert_eq!(decimal_from_sheet_float_slow(f64::INFINITY), None);
        assert_eq!(decimal_from_sheet_float(f64::NAN), None);
        assert_eq!(decimal_from_sheet_float(1e300), None);
    }

    proptest::proptest! {
        /// The direct path gives what `from_f64` gives: for cents, tenths, whole numbers and
        /// any float, small and large.
        #[test]
        fn the_direct_path_is_from_f64(cents in -10_000_000_000_000i64..10_000_000_000_000, bits in proptest::num::f64::NORMAL, div in 0..6usize) {
            let f = cents as f64 / [1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0][div];
            proptest::prop_assert_eq!(decimal_from_sheet_float(f), decimal_from_sheet_float_slow(f), "{}", f);
            proptest::prop_assert_eq!(decimal_from_sheet_float(bits), decimal_from_sheet_float_slow(bits), "{}", bits);
            let near = (cents % 1_000_000) as f64 / 100.0 + 0.001 * div as f64;
            proptest::prop_assert_eq!(decimal_from_sheet_float(near), decimal_from_sheet_float_slow(near), "{}", near);
        }
    }

    #[test]
    fn handed_over_cells_convert_as_calamines() {
        for (value, data) in [
            (DataRef::SharedString("  x "), Data::String("  x ".into())),
            (DataRef::String(String::new()), Data::String(String::new())),
            (DataRef::Float(19.99), Data::Float(19.99)),
            (DataRef::Empty, Data::Empty),
        ] {
            let raw = RawCell::from_ref(&value);
            assert_eq!(raw.is_blank(), data_is_blank(&data));
            assert_eq!(raw.header_text(), header_text(&data));
            assert_eq!(convert_raw(raw).0, convert(data).0);
        }
        // A formula saved without its value: no value, an error cell of its text, with a note;
        // blank as a row's only cell (what it would show is not known).
        let formula = RawCell::Formula("=B2*C2".into());
        assert!(formula.is_blank());
        assert_eq!(formula.header_text(), "");
        let (cell, problem) = convert_raw(formula);
        assert_eq!(cell, Cell::Error("=B2*C2".into()));
        assert!(matches!(problem, Some(Problem::Formula(t)) if t == "=B2*C2"));
    }

    #[test]
    fn cells_convert() {
        assert_eq!(convert(Data::Int(7)).0, Cell::Number(dec("7")));
        assert_eq!(convert(Data::String(String::new())).0, Cell::Empty);
        assert_eq!(convert(Data::Bool(true)).0, Cell::Bool(true));
        let (cell, problem) = convert(Data::Error(calamine::CellErrorType::NA));
        assert_eq!(cell, Cell::Error("#N/A".into()));
        assert!(problem.is_some());
        assert_eq!(
            convert(Data::DateTimeIso("2025-03-04".into())).0,
            Cell::Date(NaiveDate::from_ymd_opt(2025, 3, 4).unwrap_or_default())
        );
        assert_eq!(clock_text(0.5), "12:00:00");
        assert_eq!(clock_text(1.5), "36:00:00");
    }

    #[test]
    fn column_names() {
        assert_eq!(column_name(0), "A");
        assert_eq!(column_name(25), "Z");
        assert_eq!(column_name(26), "AA");
        assert_eq!(column_name(701), "ZZ");
        assert_eq!(column_name(702), "AAA");
    }

    #[test]
    fn percent_formats_are_those_that_scale_the_number() {
        for code in [
            "0%",
            "0.00%",
            "#,##0.0%",
            "0.0%;[Red]-0.0%",
            "[Blue]0%",
            "_(0%_)",
            "0%\" x\"",
        ] {
            assert!(is_percent_format(code), "{code}");
        }
        for code in [
            "General",
            "0.00",
            "0\\%",
            "0\"%\"",
            "[$%-409]0",
            "_%0",
            "*%0",
            "d/m/yyyy",
            "@",
            "",
        ] {
            assert!(!is_percent_format(code), "{code}");
        }
    }

    #[test]
    fn a_number_shown_as_a_percentage_reads_as_shown() {
        let text = |c: RawCell| match c {
            RawCell::Text(t) => t.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(RawCell::percent(&DataRef::Float(0.1))), "10%");
        assert_eq!(text(RawCell::percent(&DataRef::Float(0.15))), "15%");
        assert_eq!(text(RawCell::percent(&DataRef::Float(0.125))), "12.5%");
        assert_eq!(text(RawCell::percent(&DataRef::Float(0.07))), "7%");
        assert_eq!(text(RawCell::percent(&DataRef::Float(-0.05))), "-5%");
        assert_eq!(text(RawCell::percent(&DataRef::Int(1))), "100%");
        assert_eq!(text(RawCell::percent(&DataRef::Float(0.0))), "0%");
        // Not a number: as any cell.
        assert_eq!(RawCell::percent(&DataRef::Empty), RawCell::from_ref(&DataRef::Empty));
        assert_eq!(text(RawCell::percent(&DataRef::SharedString("n/a"))), "n/a");
        assert!(matches!(RawCell::percent(&DataRef::Float(f64::NAN)), RawCell::Data(Data::Float(f)) if f.is_nan()));
    }
}

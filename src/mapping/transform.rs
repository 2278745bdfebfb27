//! Turning cell text into typed values: dates and times (chrono strftime formats, Excel serial
//! numbers, typed spreadsheet cells), decimals (decimal comma, thousands separators, Arabic-Indic
//! digits, `(12.50)` negatives), percentages (`15%`), booleans.
//!
//! Every parser returns `Err(message)` with words a clerk understands; the caller adds the file,
//! row, column and value.

use crate::ingest::CellRef;
use crate::text::Trimmed;
use chrono::format::{Item, StrftimeItems};
use chrono::{Datelike, Duration, NaiveDate, NaiveTime};
use rust_decimal::Decimal;

mod currency;
use currency::strip_currency;
pub use currency::{currency_mark, mark_currency, mark_fits};

/// The pseudo-format for Excel serial day numbers (1900 date system).
pub const EXCEL: &str = "excel";

/// Check a chrono strftime format (or `excel`) when the mapping is loaded.
pub fn check_format(format: &str, want_date: bool) -> Result<(), String> {
    if format.eq_ignore_ascii_case(EXCEL) {
        return if want_date {
            Ok(())
        } else {
            Err("`excel` is a date format, not a time format".into())
        };
    }
    if format.trimmed().is_empty() {
        return Err("an empty format".into());
    }
    let mut has = (false, false, false, false);
    for item in StrftimeItems::new(format) {
        match item {
            Item::Error => {
                return Err(format!(
                    "{format:?} is not a valid strftime format (see chrono::format::strftime)"
                ));
            }
            Item::Numeric(n, _) => {
                use chrono::format::Numeric::*;
                match n {
                    Year | YearMod100 => has.0 = true,
                    Month => has.1 = true,
                    Day | Ordinal => has.2 = true,
                    Hour | Hour12 => has.3 = true,
                    _ => {}
                }
            }
            Item::Fixed(f) => {
                use chrono::format::Fixed::*;
                match f {
                    ShortMonthName | LongMonthName => has.1 = true,
                    RFC3339 | RFC2822 => has = (true, true, true, true),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if want_date && !(has.0 && has.1 && has.2) {
        return Err(format!("{format:?} needs a year, a month and a day (%Y, %m, %d)"));
    }
    if !want_date && !has.3 {
        return Err(format!("{format:?} needs an hour (%H)"));
    }
    Ok(())
}

/// A date from an Excel serial day number (1900 system; 60 is Excel's phantom 1900-02-29).
pub fn excel_serial_date(serial: Decimal) -> Option<NaiveDate> {
    let days = serial.trunc();
    if days < Decimal::ONE || days > Decimal::from(2_958_465) {
        return None;
    }
    let days: i64 = days.to_string().parse().ok()?;
    let base = NaiveDate::from_ymd_opt(1899, 12, 30)?;
    let days = if days < 60 { days + 1 } else { days };
    base.checked_add_signed(Duration::days(days))
}

/// Parse a date from a cell with the given formats.
pub fn parse_date(cell: CellRef<'_>, text: &str, formats: &[String]) -> Result<NaiveDate, String> {
    match cell {
        CellRef::Date(d) => return Ok(d),
        CellRef::DateTime(dt) => return Ok(dt.date()),
        CellRef::Number(n) => {
            // A number in a date column: YYYYMMDD (SAP) or an Excel serial.
            let digits = n.normalize().to_string();
            if digits.len() == 8
                && !digits.contains('.')
                && let Ok(d) = NaiveDate::parse_from_str(&digits, "%Y%m%d")
            {
                return Ok(d);
            }
            return excel_serial_date(n).ok_or_else(|| format!("{digits} is not an Excel date serial number"));
        }
        _ => {}
    }
    let t = text.trimmed();
    // A year of fewer than four digits read by `%Y` (`02/11/26` as the year 26): another format
    // may read it; else it is said as such.
    let mut short: Option<(NaiveDate, &str)> = None;
    // A text in a format's shape whose day does not exist (`31/11/2026`).
    let mut no_such_day: Option<&str> = None;
    for f in formats {
        if f.eq_ignore_ascii_case(EXCEL) {
            if let Ok(n) = t.parse::<Decimal>()
                && let Some(d) = excel_serial_date(n)
            {
                return Ok(d);
            }
            continue;
        }
        let parsed = fixed_date(t, f).map_or_else(|| NaiveDate::parse_and_remainder(t, f), Ok);
        if let Err(e) = &parsed
            && e.kind() == chrono::format::ParseErrorKind::OutOfRange
        {
            no_such_day.get_or_insert(f.as_str());
        }
        if let Ok((d, rest)) = parsed {
            // Accept a trailing time (`05/11/2026 00:00:00`, `2026-11-05T10:00:00`).
            let rest = rest.trim_start_matches(['T', ' ']);
            if rest.is_empty() || rest.chars().next().is_some_and(|c| c.is_ascii_digit()) && rest.contains(':') {
                if d.year() < 1000 && f.contains("%Y") {
                    short.get_or_insert((d, f));
                    continue;
                }
                return Ok(d);
            }
        }
    }
    if let Some((d, f)) = short {
        return Err(short_year(d.year(), f));
    }
    if let Some(f) = no_such_day {
        return Err(format!(
            "no such date: written as {} but there is no such day (a day after the end of its month, or a \
             month after 12); correct the day or the month",
            clerk_format(f)
        ));
    }
    Err(format!("not a date in the format {}", clerk_formats(formats)))
}

/// Formats as a clerk reads them, `DD/MM/YYYY or an Excel date number`.
fn clerk_formats(formats: &[String]) -> String {
    formats.iter().map(|f| clerk_format(f)).collect::<Vec<_>>().join(" or ")
}

/// A date read by `format` (with `%Y`) whose year, `year`, was written with fewer than four
/// digits: what to do.
fn short_year(year: i32, format: &str) -> String {
    let digits = year.unsigned_abs().to_string().len();
    let s = if digits == 1 { "" } else { "s" };
    if digits <= 2 {
        let two = format.replace("%Y", "%y");
        format!(
            "the year is written with {digits} digit{s} ({year}); write it with four ({}), or, if the export \
             writes every year with two, read them with {} (date_format = {two:?} in the mapping)",
            2000 + year,
            clerk_format(&two)
        )
    } else {
        format!("the year is written with {digits} digit{s} ({year}); write it with four")
    }
}

/// A chrono format as a clerk reads it: `%d/%m/%Y` is `DD/MM/YYYY`, `%H:%M` is `hh:mm`,
/// `excel` an Excel date number. A directive without a common form is left as written.
pub fn clerk_format(format: &str) -> String {
    if format.eq_ignore_ascii_case(EXCEL) {
        return "an Excel date number".to_string();
    }
    let mut out = String::with_capacity(format.len() + 4);
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // A padding flag (`%-d`, `%e`'s `%_d`) changes nothing a clerk sees.
        let flag = chars.next_if(|f| matches!(f, '-' | '_' | '0'));
        let Some(d) = chars.next() else {
            out.push('%');
            break;
        };
        let padded = flag.is_none();
        let word = match d {
            'd' if padded => "DD",
            'd' | 'e' => "D",
            'm' if padded => "MM",
            'm' => "M",
            'Y' => "YYYY",
            'y' => "YY",
            'b' | 'h' => "Mon",
            'B' => "Month",
            'H' | 'I' => "hh",
            'M' => "mm",
            'S' => "ss",
            'p' => "AM/PM",
            'F' => "YYYY-MM-DD",
            'T' => "hh:mm:ss",
            'R' => "hh:mm",
            '%' => "%",
            other => {
                out.push('%');
                if let Some(f) = flag {
                    out.push(f);
                }
                out.push(other);
                continue;
            }
        };
        out.push_str(word);
    }
    out
}

/// `NaiveDate::parse_and_remainder(t, f)` for the usual formats when `t` starts with the
/// format's full-width form (`05/11/2026`, `2026-11-05`): the same date and remainder, without
/// chrono interpreting the format for every cell. `None` when the format or the text is any
/// other (chrono then decides, also for a date that does not exist).
fn fixed_date<'a>(t: &'a str, f: &str) -> Option<(NaiveDate, &'a str)> {
    // Byte ranges of day, month and year, and where the two separators are.
    let (day, month, year, sep, at) = match f {
        "%d/%m/%Y" => (0..2, 3..5, 6..10, b'/', [2, 5]),
        "%m/%d/%Y" => (3..5, 0..2, 6..10, b'/', [2, 5]),
        "%d.%m.%Y" => (0..2, 3..5, 6..10, b'.', [2, 5]),
        "%d-%m-%Y" => (0..2, 3..5, 6..10, b'-', [2, 5]),
        "%Y-%m-%d" => (8..10, 5..7, 0..4, b'-', [4, 7]),
        "%Y/%m/%d" => (8..10, 5..7, 0..4, b'/', [4, 7]),
        _ => return None,
    };
    let b = t.as_bytes();
    if b.len() < 10 || at.iter().any(|&i| b[i] != sep) {
        return None;
    }
    let number = |r: std::ops::Range<usize>| {
        b[r].iter()
            .try_fold(0u32, |n, &c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
    };
    let date = NaiveDate::from_ymd_opt(number(year)? as i32, number(month)?, number(day)?)?;
    // The first ten bytes are ASCII: the rest starts on a character boundary.
    Some((date, t.get(10..)?))
}

/// The time of day written after a date in one cell (`05/11/2026 14:30`, `2026-11-05T10:00:00`,
/// `05/11/2026 2:30 PM`, `05 Nov 2026 14:30:15.250`): the first place after a space or a `T` from
/// which the rest of the text reads whole as a time. `None` when there is no time, and when the
/// time has a zone after it (`Z`, `+03:00`): it is not said in which zone the ERP's clock was.
pub fn time_after_date(text: &str) -> Option<NaiveTime> {
    let t = text.trimmed();
    // The cheap refusal first: a date alone has no ':'.
    if !t.contains(':') {
        return None;
    }
    t.match_indices([' ', 'T']).find_map(|(at, _)| {
        let rest = t[at + 1..].trim_start();
        if !rest.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        ["%H:%M:%S%.f", "%H:%M", "%I:%M:%S %p", "%I:%M %p"]
            .iter()
            .find_map(|f| NaiveTime::parse_from_str(rest, f).ok())
    })
}

/// Default time formats.
pub const TIME_FORMATS: &[&str] = &["%H:%M:%S", "%H:%M", "%I:%M:%S %p", "%I:%M %p"];

/// Parse a time of day.
pub fn parse_time(cell: CellRef<'_>, text: &str, formats: &[String]) -> Result<NaiveTime, String> {
    match cell {
        CellRef::DateTime(dt) => return Ok(dt.time()),
        CellRef::Number(n) if n >= Decimal::ZERO && n < Decimal::ONE => {
            let secs = (n * Decimal::from(86_400)).round();
            let secs: u32 = secs.to_string().parse().unwrap_or(0);
            return NaiveTime::from_num_seconds_from_midnight_opt(secs.min(86_399), 0)
                .ok_or_else(|| "not a time".to_string());
        }
        _ => {}
    }
    let t = text.trimmed();
    for f in formats {
        if let Ok(tm) = NaiveTime::parse_from_str(t, f) {
            return Ok(tm);
        }
    }
    Err(format!("not a time in the format {}", clerk_formats(formats)))
}

/// How numbers are written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NumberStyle {
    /// `,` is the decimal separator.
    pub decimal_comma: bool,
    /// The thousands separator, when one is declared.
    pub thousands: Option<char>,
}

/// Arabic-Indic and Eastern Arabic-Indic digits and separators to ASCII.
pub(crate) fn ascii_digits(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{0660}'..='\u{0669}' => char::from(b'0' + (c as u32 - 0x0660) as u8),
            '\u{06F0}'..='\u{06F9}' => char::from(b'0' + (c as u32 - 0x06F0) as u8),
            '\u{066B}' => '.', // Arabic decimal separator
            '\u{066C}' => ',', // Arabic thousands separator
            '\u{2212}' => '-',
            c => c,
        })
        .collect()
}

/// `text` with the Arabic decimal separator (U+066B, `٦٤٫٩`) and thousands separator (U+066C)
/// written as `style` writes its own: they are unambiguous, so they are read in every style (a
/// decimal comma's too).
fn arabic_separators<'a>(text: &'a str, style: &NumberStyle) -> std::borrow::Cow<'a, str> {
    if !text.contains(['\u{066B}', '\u{066C}']) {
        return text.into();
    }
    let (dec, thousands) = if style.decimal_comma { (',', '.') } else { ('.', ',') };
    let thousands = style.thousands.unwrap_or(thousands);
    text.chars()
        .map(|c| match c {
            '\u{066B}' => dec,
            '\u{066C}' => thousands,
            c => c,
        })
        .collect::<String>()
        .into()
}

/// True when `s` is digits grouped by `sep` in threes (`1,234,567`).
fn grouped(s: &str, sep: char) -> bool {
    let mut parts = s.split(sep);
    let first = parts.next().unwrap_or("");
    if first.is_empty() || first.len() > 3 || !first.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let mut any = false;
    for p in parts {
        any = true;
        if p.len() != 3 || !p.chars().all(|c| c.is_ascii_digit()) {
            return false;
        }
    }
    any
}

/// `digits[.digits]` (a sign already taken off): the common plain form, which the general
/// path of [`parse_decimal`] passes through unchanged.
fn plain_digits(digits: &str) -> bool {
    let mut dots = 0;
    digits.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && digits.bytes().all(|b| {
            dots += usize::from(b == b'.');
            b.is_ascii_digit() || b == b'.'
        })
        && dots <= 1
}

/// `digits[.digits]` with at most 18 digits (nearly every amount), read in one pass: the value
/// and scale `parse_exact` gives (a property test holds it to that). `None` for anything else,
/// which goes the general way.
fn short_plain(s: &str) -> Option<Decimal> {
    let bytes = s.as_bytes();
    if bytes.len() > 19 || !bytes.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    // 19 digits at most: below u64::MAX, no overflow.
    let (mut mantissa, mut dot) = (0u64, None);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => mantissa = mantissa * 10 + u64::from(b - b'0'),
            b'.' if dot.is_none() && i + 1 < bytes.len() => dot = Some(i),
            _ => return None,
        }
    }
    let digits = bytes.len() - usize::from(dot.is_some());
    if digits > 18 {
        return None;
    }
    let scale = dot.map_or(0, |d| bytes.len() - d - 1);
    Some(Decimal::new(i64::try_from(mantissa).ok()?, u32::try_from(scale).ok()?))
}

/// Why `plain` (digits, one dot, maybe an exponent) is not an exact decimal: too many digits or
/// too large an exponent for 28 significant digits, or not a number at all (`why`).
fn not_exact(plain: &str, why: impl FnOnce(String) -> String) -> String {
    let (mantissa, exponent) = match plain.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (plain, None),
    };
    let well_formed = plain_digits(mantissa)
        && exponent.is_none_or(|e| {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
        });
    if well_formed {
        "too large or too precise for an amount (at most 28 digits)".into()
    } else {
        why(NOT_A_NUMBER.into())
    }
}

/// What a cell that holds no number is told: what to write instead.
const NOT_A_NUMBER: &str = "not a number (write it in digits, e.g. 1234.50)";

/// Parse a decimal number written by an ERP.
pub fn parse_decimal(cell: CellRef<'_>, text: &str, style: &NumberStyle) -> Result<Decimal, String> {
    if let CellRef::Number(n) = cell {
        return Ok(n);
    }
    // The plain form `[-]digits[.digits]` with the default separators: what the general path
    // below would hand to `parse_exact`, without its allocations (and, when short, without
    // `parse_exact`).
    if !style.decimal_comma && style.thousands.is_none_or(|t| t == ',') {
        let t = text.trimmed();
        let (negative, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t),
        };
        let value = match short_plain(digits) {
            Some(v) => Some(v),
            None if plain_digits(digits) => {
                Some(crate::model::amount::parse_exact(digits).ok_or_else(|| not_exact(digits, |why| why))?)
            }
            None => None,
        };
        if let Some(v) = value {
            return Ok(if negative { -v } else { v });
        }
    }
    let t = ascii_digits(&arabic_separators(text.trimmed(), style));
    let mut s: String = t
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{a0}' && *c != '\u{202f}')
        .collect();
    strip_currency(&mut s);
    // One sign at most: `(12.50)`, `12.50-` (SAP), `-12.50` or `+12.50`. Two (`--5`, `(-5)`,
    // `-5-`) say nothing certain about the sign, so the number is not read.
    let mut signs = 0;
    let mut negative = false;
    if s.starts_with('(') && s.ends_with(')') && s.len() > 2 {
        signs += 1;
        negative = true;
        s = s[1..s.len() - 1].to_string();
    }
    if let Some(rest) = s.strip_suffix('-') {
        signs += 1;
        negative = true;
        s = rest.to_string();
    }
    if let Some(rest) = s.strip_prefix('-') {
        signs += 1;
        negative = true;
        s = rest.to_string();
    } else if let Some(rest) = s.strip_prefix('+') {
        signs += 1;
        s = rest.to_string();
    }
    // After the sign (`-$5`, `(SAR 100)`).
    strip_currency(&mut s);
    // A sign left inside is only an exponent's (`1.5E+3`).
    let stray_sign = s
        .char_indices()
        .any(|(i, c)| matches!(c, '-' | '+') && !s[..i].ends_with(['e', 'E']));
    if signs > 1 || stray_sign {
        return Err("not a number (more than one sign: write one minus sign, or the amount in brackets)".into());
    }
    let (dec_sep, default_thousands) = if style.decimal_comma { (',', '.') } else { ('.', ',') };
    // A number written with the other decimal separator (`675,50` read with a decimal point)
    // is not a number here. Most often it is one cell typed so (the file's other numbers read
    // well, and would not with the other setting), so the message says first how to write it
    // (`675.50`), and only then which setting reads an export that writes every number so.
    let other_style = |why: String| -> String {
        let other = if style.decimal_comma { '.' } else { ',' };
        match s.rsplit_once(other) {
            Some((int, frac))
                if (1..=2).contains(&frac.len())
                    && frac.bytes().all(|b| b.is_ascii_digit())
                    && !int.is_empty()
                    && int.bytes().all(|b| b.is_ascii_digit() || char::from(b) == dec_sep) =>
            {
                let sign = if negative { "-" } else { "" };
                let digits: String = int.chars().filter(|&c| c != dec_sep).collect();
                let written = format!("{sign}{digits}{dec_sep}{frac}");
                if style.decimal_comma {
                    format!(
                        "not a number (written with a decimal point: write it as {written}, with a decimal comma, \
                         as this column is read; only if the export writes every number with a decimal point, \
                         set decimal_comma = false in the mapping's [defaults] or on this field)"
                    )
                } else {
                    format!(
                        "not a number (written with a decimal comma: write it as {written}, with a decimal point, \
                         as this column is read; only if the export writes every number with a decimal comma, \
                         set decimal_comma = true in the mapping's [defaults] or on this field)"
                    )
                }
            }
            _ => why,
        }
    };
    let thousands = style.thousands.unwrap_or(default_thousands);
    let (int_part, frac_part) = match s.rfind(dec_sep) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s.as_str(), None),
    };
    let int_clean: String = if int_part.contains(thousands) {
        if !grouped(int_part, thousands) {
            return Err(other_style(format!(
                "not a number (the {thousands:?} is neither a decimal separator nor a thousands separator)"
            )));
        }
        int_part.chars().filter(|c| *c != thousands).collect()
    } else {
        int_part.to_string()
    };
    let plain = match frac_part {
        Some(f) => format!("{int_clean}.{f}"),
        None => int_clean,
    };
    let plain = if plain.starts_with('.') {
        format!("0{plain}")
    } else {
        plain
    };
    if plain.is_empty()
        || !plain
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
    {
        return Err(other_style(if style.decimal_comma {
            "not a number (decimal comma expected, e.g. 1.234,50)".into()
        } else {
            NOT_A_NUMBER.into()
        }));
    }
    let value = crate::model::amount::parse_exact(&plain).ok_or_else(|| not_exact(&plain, other_style))?;
    Ok(if negative { -value } else { value })
}

/// Parse a percentage: a cell that is just a rate, `15`, `15%`, `15 %`, `VAT 15%`, `15% VAT`
/// ([`super::rate::just_rate`]). A rate with other words (`VAT 15% (Included)`, `15%, 5%`) is
/// not a percentage: the other words may change what it means.
pub fn parse_percent(cell: CellRef<'_>, text: &str, style: &NumberStyle) -> Result<Decimal, String> {
    if let CellRef::Number(n) = cell {
        return Ok(n);
    }
    let t = text.trimmed();
    let t: std::borrow::Cow<'_, str> = if t.is_ascii() {
        t.into()
    } else {
        ascii_digits(&arabic_separators(t, style)).into()
    };
    let Some(number) = super::rate::just_rate(&t) else {
        return Err("not a percentage (like 15%)".to_string());
    };
    // A rate written with the other decimal separator says so, as a number does.
    parse_decimal(CellRef::Empty, number, style).map_err(|e| match e.strip_prefix("not a number (written with ") {
        Some(hint) => format!("not a percentage (like 15%; written with {hint}"),
        None => "not a percentage (like 15%)".to_string(),
    })
}

/// Parse a yes/no value.
pub fn parse_bool(cell: CellRef<'_>, text: &str) -> Result<bool, String> {
    if let CellRef::Bool(b) = cell {
        return Ok(b);
    }
    match text.trimmed().to_ascii_lowercase().as_str() {
        "true" | "yes" | "y" | "1" | "t" | "x" | "نعم" => Ok(true),
        "false" | "no" | "n" | "0" | "f" | "لا" => Ok(false),
        _ => Err("not true/false (or yes/no, 1/0)".into()),
    }
}

#[cfg(test)]
#[path = "transform_tests.rs"]
mod tests;

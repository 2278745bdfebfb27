//! Text helpers every layer uses; this module depends on nothing of ours.

use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;

/// `str::trim` with a shortcut for the usual case: a text that starts and ends with a visible
/// ASCII character has nothing to trim, which two byte comparisons tell (`str::trim` decodes a
/// character at each end and looks it up in the Unicode white-space table). Fields are trimmed
/// several times on their way from a row to a document and its rules, millions of times in a
/// backlog.
pub trait Trimmed {
    /// The text without leading and trailing white space, exactly as `str::trim` gives it.
    fn trimmed(&self) -> &str;
}

impl Trimmed for str {
    #[inline]
    fn trimmed(&self) -> &str {
        match (self.as_bytes().first(), self.as_bytes().last()) {
            (Some(&first), Some(&last)) if solid(first) && solid(last) => self,
            _ => self.trim(),
        }
    }
}

/// An ASCII byte that is not white space. Every other white-space character `str::trim`
/// removes is outside ASCII, so a text whose first (or last) byte is one of these has none at
/// that end.
#[inline]
fn solid(b: u8) -> bool {
    b.is_ascii() && !matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// A character that shows as nothing: a soft hyphen, a zero-width space or joiner, a direction
/// mark or control, a word joiner, a byte-order mark (U+FEFF, often left at the start of a value
/// pasted from another file). Two values that differ by one look the same.
pub fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
    )
}

/// `text` without its [`invisible`] characters.
pub fn without_invisible(text: &str) -> String {
    text.chars().filter(|&c| !invisible(c)).collect()
}

/// True when `text` holds an [`invisible`] character. None is ASCII: a text of ASCII only
/// (nearly every number and code) is passed over eight bytes at a time.
pub fn has_invisible(text: &str) -> bool {
    !text.is_ascii() && text.chars().any(invisible)
}

/// The byte offset of the first character of `text` that XML 1.0 cannot hold: a control
/// character other than tab, line feed and carriage return (U+0000 to U+001F), or one of the
/// noncharacters U+FFFE and U+FFFF (EF BF BE, EF BF BF). One pass over the bytes and no
/// allocation: every text cell of an export goes through it.
#[inline]
pub fn xml_unfit_at(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    // Eight bytes at a time while none is below 0x20 or is 0xEF (nearly every cell): a third of
    // the instructions of a byte at a time.
    let mut from = 0;
    while let Some(word) = b.get(from..from + 8) {
        let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if may_be_unfit(x) {
            break;
        }
        from += 8;
    }
    while let Some(p) = b[from..].iter().position(|&c| c < 0x20 || c == 0xEF) {
        let i = from + p;
        match b[i] {
            b'\t' | b'\n' | b'\r' => {}
            // The lead byte of U+F000 to U+FFFF (Arabic presentation forms among them).
            0xEF => {
                if b.get(i + 1) == Some(&0xBF) && matches!(b.get(i + 2), Some(0xBE | 0xBF)) {
                    return Some(i);
                }
            }
            _ => return Some(i),
        }
        from = i + 1;
    }
    None
}

/// Whether any of the eight bytes of `x` is below 0x20 or is 0xEF (the bytes
/// [`xml_unfit_at`] looks at one by one): the classic tests for a byte below n (exact for
/// n <= 0x80) and for a zero byte (of `x` XOR 0xEF in every byte), both exact as a whole.
#[inline]
fn may_be_unfit(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
    let y = x ^ (ONES * 0xEF);
    let ef = y.wrapping_sub(ONES) & !y & HIGH;
    below_space | ef != 0
}

/// Whether XML 1.0 can hold the character (what [`xml_unfit_at`] looks for, one character).
pub fn xml_fit(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// A text cut to its first `max` characters, then `…`, for a value a message or a results file
/// quotes; a text of at most `max` characters whole.
pub fn short(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// `1 row`, `2 rows`: a count and its noun, singular for one.
pub fn count_of(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A decimal as `to_string()` writes it (its scale kept: `12.50`), in one pass over its digits
/// when the mantissa fits a `u64`, as every amount of an export does.
pub fn decimal_plain(d: &Decimal) -> String {
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
pub fn date_text(d: NaiveDate) -> String {
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
pub fn time_text(t: NaiveTime) -> String {
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

/// `text` on one line: control characters (a line break in a file name) shown escaped (`\n`),
/// so that a log line about a file stays one line.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// The line and column (both from 1, the column in characters) of a byte offset of `text` (an
/// offset inside a character counts as that character's start).
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_cut_after_its_first_characters_not_bytes() {
        assert_eq!(short("", 0), "");
        assert_eq!(short("a", 0), "…");
        assert_eq!(short("abc", 3), "abc");
        assert_eq!(short("abcd", 3), "abc…");
        assert_eq!(short("قلمان", 3), "قلم…");
        assert_eq!(short("قلم", 3), "قلم");
        assert_eq!(short("a\nb", 5), "a\nb");
        // The same as counting characters and taking the first `max` of them.
        for text in ["", "x", "é", "ab", "كتاب", "é🙂a", "line\nbreak"] {
            for max in 0..8 {
                let whole = text.chars().count() <= max;
                let want = if whole {
                    text.to_string()
                } else {
                    text.chars().take(max).chain(['…']).collect()
                };
                assert_eq!(short(text, max), want, "{text:?} {max}");
            }
        }
    }

    #[test]
    fn one_line_escapes_control_characters_only() {
        assert_eq!(one_line("nightly\nexport.csv: taken"), "nightly\\nexport.csv: taken");
        assert_eq!(one_line("a\tb"), "a\\tb");
        assert_eq!(one_line("فاتورة 1.csv"), "فاتورة 1.csv");
    }

    #[test]
    fn characters_xml_cannot_hold_are_found() {
        for (text, at) in [
            ("Text\u{B}book", Some(4)),
            ("\u{0}", Some(0)),
            ("a\u{1F}", Some(1)),
            ("\u{C}", Some(0)),
            ("كتاب\u{FFFE}", Some(8)),
            ("x\u{FFFF}y", Some(1)),
            ("tab\tline\nfeed\r", None),
            ("", None),
            ("كتاب | Book 7", None),
            // Lead byte EF, but U+FEFF, U+FE8E (an Arabic presentation form), U+FFFD.
            ("\u{FEFF}\u{FE8E}\u{FFFD}", None),
            ("\u{FFFD}\u{FFFE}", Some(3)),
            ("\u{7F}\u{85}\u{D7FF}\u{E000}\u{10000}", None),
        ] {
            assert_eq!(xml_unfit_at(text), at, "{text:?}");
        }
        // Every character below U+0100 and around the noncharacters, one by one.
        for c in ('\0'..='\u{2FF}').chain('\u{FFF0}'..='\u{FFFF}') {
            let s = format!("ab{c}");
            assert_eq!(xml_unfit_at(&s).is_some(), !xml_fit(c), "{:04X}", u32::from(c));
        }
    }

    proptest::proptest! {
        #[test]
        fn eight_bytes_at_a_time_finds_what_one_character_at_a_time_finds(
            chars in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::char::range('\u{0}', '\u{7F}'),
                    proptest::char::range('\u{600}', '\u{6FF}'),
                    proptest::char::range('\u{FE70}', '\u{FFFF}'),
                    proptest::char::any(),
                ],
                0..40,
            )
        ) {
            let text: String = chars.iter().collect();
            let naive = text.char_indices().find(|&(_, c)| !xml_fit(c)).map(|(i, _)| i);
            proptest::prop_assert_eq!(xml_unfit_at(&text), naive, "{:?}", text);
        }
    }

    proptest::proptest! {
        /// The ASCII test lets through every text with a character that shows as nothing.
        #[test]
        fn has_invisible_is_any_invisible_character(
            chars in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::char::range('0', 'z'),
                    proptest::char::range('\u{A0}', '\u{AF}'),
                    proptest::char::range('\u{2000}', '\u{206F}'),
                    proptest::char::range('\u{FE70}', '\u{FFFF}'),
                    proptest::char::any(),
                ],
                0..20,
            )
        ) {
            let text: String = chars.iter().collect();
            proptest::prop_assert_eq!(has_invisible(&text), text.chars().any(invisible), "{:?}", text);
        }
    }

    #[test]
    fn characters_that_show_as_nothing() {
        for c in ['\u{AD}', '\u{200B}', '\u{200F}', '\u{202E}', '\u{2060}', '\u{FEFF}'] {
            assert!(invisible(c), "{:04X}", u32::from(c));
        }
        for c in [' ', '\u{A0}', '\u{2011}', '\u{200A}', 'ـ', '\u{FEFE}', 'ﻻ'] {
            assert!(!invisible(c), "{:04X}", u32::from(c));
        }
    }

    #[test]
    fn a_byte_of_each_kind_in_every_place_of_a_word() {
        for pos in 0..17 {
            for (bad, unfit) in [
                ("\u{B}", true),
                ("\u{FFFF}", true),
                ("\u{FE8E}", false),
                ("\t", false),
                (" ", false),
            ] {
                let text = format!("{}{bad}{}", "a".repeat(pos), "b".repeat(9));
                assert_eq!(xml_unfit_at(&text), unfit.then_some(pos), "{text:?}");
            }
        }
    }

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count_of(1, "row", "rows"), "1 row");
        assert_eq!(count_of(0, "row", "rows"), "0 rows");
        assert_eq!(count_of(2, "document", "documents"), "2 documents");
    }

    proptest::proptest! {
        /// The same text as `Decimal::to_string` and chrono's `%Y-%m-%d`.
        #[test]
        fn decimal_and_date_texts_are_the_crates(m in proptest::num::i64::ANY, wide in proptest::num::i128::ANY, scale in 0u32..29, days in -1_000_000i32..4_000_000) {
            for d in [Decimal::new(m, scale.min(20)), Decimal::from_i128_with_scale(wide >> 32, scale)] {
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

    proptest::proptest! {
        /// The same text as `str::trim`, for ASCII, Arabic, control characters and every kind
        /// of Unicode white space at either end.
        #[test]
        fn trimmed_is_str_trim(s in "[ \t\n\u{b}\u{c}\r\u{1c}\u{85}\u{a0}\u{2009}\u{3000}\u{feff}a1.,م-]{0,8}") {
            proptest::prop_assert_eq!(s.trimmed(), s.trim());
        }
    }

    #[test]
    fn trims_what_str_trim_trims() {
        for s in [
            "",
            " ",
            "a",
            " a",
            "a ",
            "\u{b}a",
            "a\u{c}",
            "\u{a0}12\u{a0}",
            "\u{3000}م",
            "a b",
            "\u{85}x",
        ] {
            assert_eq!(s.trimmed(), s.trim(), "{s:?}");
        }
    }
}

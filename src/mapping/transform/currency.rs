//! The currency words and symbols ERPs put around numbers (`SAR 1,200.00`, `$3,450.00`): taken
//! off in reading a number, and the one found compared with the document's currency.

/// The currency words and symbols ERPs put around numbers, each with the currencies it may stand
/// for (`$` is a dollar of any of them).
const MARKS: [(&str, &[&str]); 8] = [
    ("SAR", &["SAR"]),
    ("SR", &["SAR"]),
    ("ر.س", &["SAR"]),
    ("USD", &["USD"]),
    ("$", &["USD", "CAD", "AUD", "NZD", "SGD", "HKD"]),
    ("€", &["EUR"]),
    ("£", &["GBP"]),
    ("﷼", &["SAR"]),
];

/// Take off the currency words and symbols ERPs put around numbers: the last one taken off.
pub(super) fn strip_currency(s: &mut String) -> Option<&'static str> {
    let mut found = None;
    for (sym, _) in MARKS {
        if let Some(rest) = s.strip_prefix(sym) {
            *s = rest.to_string();
            found = Some(sym);
        }
        if let Some(rest) = s.strip_suffix(sym) {
            *s = rest.to_string();
            found = Some(sym);
        }
    }
    found
}

/// The currency mark written with a number that [`super::parse_decimal`] reads (`$` of
/// `-$3,450.00`, `SAR` of `(SAR 100)`), taken off as it takes it off: `None` for the usual
/// number, whose first and last characters are digits (the one test it pays, for every amount
/// read).
pub fn currency_mark(text: &str) -> Option<&'static str> {
    let b = text.as_bytes();
    let digits_from = usize::from(b.first() == Some(&b'-'));
    if b.get(digits_from).is_some_and(u8::is_ascii_digit) && b.last().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut s: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{a0}' && *c != '\u{202f}')
        .collect();
    let mut mark = strip_currency(&mut s);
    // The sign, as the number is read: brackets, a minus after, a sign before.
    if s.starts_with('(') && s.ends_with(')') && s.len() > 2 {
        s = s[1..s.len() - 1].to_string();
    }
    if let Some(rest) = s.strip_suffix('-') {
        s = rest.to_string();
    }
    if let Some(rest) = s.strip_prefix(['-', '+']) {
        s = rest.to_string();
    }
    mark = strip_currency(&mut s).or(mark);
    mark
}

/// Whether currency `mark` (one [`currency_mark`] found) may stand for currency `code`.
pub fn mark_fits(mark: &str, code: &str) -> bool {
    MARKS
        .iter()
        .any(|(sym, codes)| *sym == mark && codes.iter().any(|c| c.eq_ignore_ascii_case(code.trim())))
}

/// The currency [`MARKS`] gives for `mark`, for messages: `EUR (€)`, `SAR`, `dollars ($)`.
pub fn mark_currency(mark: &str) -> String {
    match MARKS.iter().find(|(sym, _)| *sym == mark) {
        Some((sym, [_, _, ..])) => format!("dollars ({sym})"),
        Some((sym, [code])) if sym != code => format!("{code} ({sym})"),
        _ => mark.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_taken_off_is_the_one_said() {
        let strip = |t: &str| {
            let mut s = t.to_string();
            let m = strip_currency(&mut s);
            (s, m)
        };
        assert_eq!(strip("SAR100"), ("100".into(), Some("SAR")));
        assert_eq!(strip("3450.00USD"), ("3450.00".into(), Some("USD")));
        assert_eq!(strip("$5"), ("5".into(), Some("$")));
        assert_eq!(strip("€3450"), ("3450".into(), Some("€")));
        assert_eq!(strip("100ر.س"), ("100".into(), Some("ر.س")));
        assert_eq!(strip("100"), ("100".into(), None));
    }

    #[test]
    fn the_mark_of_a_number_is_found_as_the_number_is_read() {
        for (text, mark) in [
            ("3450.00", None),
            ("-1150.00", None),
            (" 45.50 ", None),
            ("USD 3450.00", Some("USD")),
            ("-$5", Some("$")),
            ("(SAR 1,200.00)", Some("SAR")),
            ("€ 3450", Some("€")),
            ("3450 ر.س", Some("ر.س")),
            ("1,150.00 SR-", Some("SR")),
            ("+£12", Some("£")),
        ] {
            assert_eq!(currency_mark(text), mark, "{text}");
        }
    }

    #[test]
    fn a_mark_fits_its_own_currencies_only() {
        assert!(mark_fits("SAR", "SAR") && mark_fits("SR", "sar") && mark_fits("﷼", "SAR"));
        assert!(mark_fits("$", "USD") && mark_fits("$", "CAD") && mark_fits("USD", " USD "));
        assert!(!mark_fits("$", "SAR") && !mark_fits("USD", "SAR") && !mark_fits("€", "USD"));
        assert!(!mark_fits("SAR", "USD") && !mark_fits("£", "EUR"));
        assert_eq!(mark_currency("$"), "dollars ($)");
        assert_eq!(mark_currency("€"), "EUR (€)");
        assert_eq!(mark_currency("USD"), "USD");
        assert_eq!(mark_currency("SR"), "SAR (SR)");
    }
}

//! What a rate cell says: just a rate (`15%`, `VAT 15%`), read as that rate, or a rate with
//! other words (`VAT 15% (Included)`, `15%,Withholding 5%`, `Exempt (was 15%)`), which is not read
//! as a rate at all: the other words may change the tax, and only the mapping can say how.

/// Words that may stand beside the number of a cell that is just a rate (`VAT 15%`, `15% VAT`,
/// `VAT15%`, `Standard 15%`, `S 15%`), lower case, longest first where one begins another. Any
/// other word makes the cell more than a rate.
const RATE_WORDS: [&str; 5] = ["standard rate", "standard", "vat", "s", "ضريبة القيمة المضافة"];

/// The number of a cell that is just a rate, `%` removed: `15`, `15%`, `15 %`, `12.5%`,
/// `VAT 15%`, `15% VAT`, `VAT15%`, `Standard 15%`, `S 15%` give `15` (or `12.5`). `None` for
/// anything else: other words (`VAT 15% (Included)`), two rates, no number. The text has
/// ASCII digits (Arabic-Indic ones already turned into them) and is trimmed.
pub fn just_rate(t: &str) -> Option<&str> {
    let rest = strip_word(t, true).or_else(|| strip_word(t, false)).unwrap_or(t);
    let number = match rest.strip_suffix(['%', '٪']) {
        Some(n) => n.trim_end(),
        None => rest,
    };
    let digits = number.strip_prefix(['-', '+']).unwrap_or(number);
    let plain = !digits.is_empty()
        && digits.bytes().any(|b| b.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b',');
    plain.then_some(number)
}

/// `t` without one of [`RATE_WORDS`] at its start (`front`) or end, and the white space beside
/// it; `None` when it has none there, or when the word is only the start (end) of a longer one.
fn strip_word(t: &str, front: bool) -> Option<&str> {
    RATE_WORDS.iter().find_map(|w| {
        if front {
            let head = t.get(..w.len())?;
            let rest = &t[w.len()..];
            let whole = !rest.chars().next().is_some_and(char::is_alphabetic);
            (head.eq_ignore_ascii_case(w) && whole).then(|| rest.trim_start())
        } else {
            let at = t.len().checked_sub(w.len())?;
            let tail = t.get(at..)?;
            let rest = &t[..at];
            let whole = !rest.chars().next_back().is_some_and(char::is_alphabetic);
            (tail.eq_ignore_ascii_case(w) && whole).then(|| rest.trim_end())
        }
    })
}

/// Why a cell holding a rate is not just that rate, for the finding that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoreThanRate {
    /// More than one rate (`15%,Withholding 5%`): each as written, with its `%`.
    Rates(Vec<String>),
    /// The rate and words saying the tax is included in the price (`VAT 15% (Included)`).
    Included(String),
    /// The rate and a word saying it is not (or not only) the standard rate: `Exempt`, `Zero`,
    /// `Withholding`, `Out of scope` (as written in the cell).
    Contradicted(String, String),
    /// The rate and other words.
    Words(String),
}

/// Words that say a tax is included in the price (lower case, whole words).
const INCLUDED: [&str; 6] = ["included", "inclusive", "incl", "inc", "including", "شامل"];
/// Phrases that say a line is not (only) at the standard rate (lower case).
const CONTRADICTING_PHRASES: [&str; 4] = ["out of scope", "outside the scope", "not subject", "reverse charge"];
/// Words that say so (lower case; a cell's word that begins with one of them counts, so
/// `Exempted`, `Zero-rated`, `Withholding` do).
const CONTRADICTING: [&str; 9] = ["exempt", "zero", "withhold", "wht", "oos", "nil", "معف", "صفر", "خارج"];

/// The rates a cell mentions (`15%`), in order, as `15%`, and why the cell is more than a rate.
/// `None` when it mentions no rate (no number before a `%`): an unknown code, not a rate with
/// other words.
pub fn more_than_rate(t: &str) -> Option<MoreThanRate> {
    let rates = rates_in(t);
    let first = rates.first()?.clone();
    if rates.len() > 1 {
        return Some(MoreThanRate::Rates(rates));
    }
    let words = || {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().any(char::is_alphabetic))
    };
    if words().any(|w| INCLUDED.iter().any(|i| w.to_lowercase() == *i)) {
        return Some(MoreThanRate::Included(first));
    }
    let lower = t.to_ascii_lowercase();
    if let Some((i, p)) = CONTRADICTING_PHRASES
        .iter()
        .find_map(|p| lower.find(p).map(|i| (i, p.len())))
    {
        // ASCII lower case keeps every byte where it was.
        return Some(MoreThanRate::Contradicted(first, t[i..i + p].to_string()));
    }
    if let Some(w) = words().find(|w| {
        let lower = w.to_lowercase();
        CONTRADICTING.iter().any(|c| lower.starts_with(c))
    }) {
        return Some(MoreThanRate::Contradicted(first, w.to_string()));
    }
    Some(MoreThanRate::Words(first))
}

/// Each number written before a `%` in `t` (digits, `.` and `,`), with its `%`.
fn rates_in(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find(['%', '٪']) {
        let before = rest[..i].trim_end();
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_digit() || matches!(c, '.' | ','))
            .last()
            .map(|(j, _)| j);
        if let Some(j) = start {
            let number = before[j..].trim_start_matches([',', '.']);
            if number.bytes().any(|b| b.is_ascii_digit()) {
                out.push(format!("{number}%"));
            }
        }
        rest = &rest[i + rest[i..].chars().next().map_or(1, char::len_utf8)..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_that_is_just_a_rate_gives_its_number() {
        for (cell, number) in [
            ("15", "15"),
            ("15%", "15"),
            ("15 %", "15"),
            ("12.5%", "12.5"),
            ("VAT 15%", "15"),
            ("vat 15%", "15"),
            ("15% VAT", "15"),
            ("VAT15%", "15"),
            ("VAT 15", "15"),
            ("Standard 15%", "15"),
            ("Standard rate 15%", "15"),
            ("S 15%", "15"),
            ("S15", "15"),
            ("5٪", "5"),
            ("ضريبة القيمة المضافة 15%", "15"),
            ("0%", "0"),
        ] {
            assert_eq!(just_rate(cell), Some(number), "{cell:?}");
        }
    }

    #[test]
    fn a_rate_with_other_words_is_not_just_a_rate() {
        for cell in [
            "VAT 15% (Included)",
            "15%,Withholding 5%",
            "Exempt (was 15%)",
            "Exempt 15%",
            "Zero 0%",
            "15% incl",
            "VAT 15% VAT",
            "Vatican 15%",
            "Sales 15%",
            "15%%",
            "15% 5%",
            "Output VAT 15%",
            "Weird",
            "VAT",
            "%",
            "",
        ] {
            assert_eq!(just_rate(cell), None, "{cell:?}");
        }
    }

    #[test]
    fn what_is_more_than_a_rate_is_named() {
        use MoreThanRate::*;
        assert_eq!(more_than_rate("VAT 15% (Included)"), Some(Included("15%".into())));
        assert_eq!(more_than_rate("Tax incl. 15%"), Some(Included("15%".into())));
        assert_eq!(
            more_than_rate("15%,Withholding 5%"),
            Some(Rates(vec!["15%".into(), "5%".into()]))
        );
        assert_eq!(
            more_than_rate("Exempt (was 15%)"),
            Some(Contradicted("15%".into(), "Exempt".into()))
        );
        assert_eq!(
            more_than_rate("Out of scope 0%"),
            Some(Contradicted("0%".into(), "Out of scope".into()))
        );
        assert_eq!(
            more_than_rate("15% withholding"),
            Some(Contradicted("15%".into(), "withholding".into()))
        );
        assert_eq!(more_than_rate("Sales 15%"), Some(Words("15%".into())));
        assert_eq!(more_than_rate("Weird"), None);
        assert_eq!(more_than_rate("S15X"), None);
    }
}

//! Text helpers every layer uses; this module depends on nothing of ours.

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

#[cfg(test)]
mod tests {
    use super::Trimmed;

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

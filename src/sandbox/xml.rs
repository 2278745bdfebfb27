//! A small writer that emits XML already in its canonical form (C14N 1.1, inclusive, no
//! comments), so the bytes it writes are the bytes the invoice hash is computed over.
//!
//! What that takes, and what this writer does:
//! - every element is written as a start tag and an end tag, never self-closed;
//! - attributes are written in the order C14N sorts them (callers pass at most one, or several
//!   already sorted by name; debug builds check);
//! - text escapes `&`, `<`, `>` and carriage return (`&#xD;`) and nothing else (no `&quot;` or
//!   `&apos;` in text); attribute values escape `&`, `<`, `"`, tab, line feed and carriage return;
//! - characters XML 1.0 cannot carry (most control characters, U+FFFE, U+FFFF) are refused with an
//!   error naming the element, since no escaping can represent them;
//! - indentation is plain whitespace text, which C14N keeps as it is.

use super::issue::IssueError;
use rust_decimal::{Decimal, RoundingStrategy};

/// The indentation unit of the documents this writer produces.
const INDENT: &str = "    ";

/// An XML text buffer written in canonical form, with an indentation depth.
#[derive(Debug, Default)]
pub(crate) struct Xml {
    buf: String,
    depth: usize,
}

impl Xml {
    /// An empty writer with room for `capacity` bytes, at depth `depth`.
    pub(crate) fn new(capacity: usize, depth: usize) -> Self {
        Xml {
            buf: String::with_capacity(capacity),
            depth,
        }
    }

    /// The text written so far.
    #[cfg(test)]
    pub(crate) fn as_str(&self) -> &str {
        &self.buf
    }

    /// The number of bytes written so far.
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// Take the text.
    pub(crate) fn into_string(self) -> String {
        self.buf
    }

    /// Append text that is already canonical XML.
    pub(crate) fn raw(&mut self, text: &str) {
        self.buf.push_str(text);
    }

    /// A line break and the indentation of the current depth.
    pub(crate) fn newline(&mut self) {
        self.buf.push('\n');
        for _ in 0..self.depth {
            self.buf.push_str(INDENT);
        }
    }

    /// Start an element on a new line; its content goes one level deeper.
    pub(crate) fn open(&mut self, name: &str) {
        self.newline();
        self.buf.push('<');
        self.buf.push_str(name);
        self.buf.push('>');
        self.depth += 1;
    }

    /// End the element `name` on a new line.
    pub(crate) fn close(&mut self, name: &str) {
        self.depth = self.depth.saturating_sub(1);
        self.newline();
        self.buf.push_str("</");
        self.buf.push_str(name);
        self.buf.push('>');
    }

    /// An element holding only text, on a new line.
    pub(crate) fn leaf(&mut self, name: &str, text: &str) -> Result<(), IssueError> {
        self.leaf_attrs(name, &[], text)
    }

    /// An element holding only text, unless the text is blank: then nothing is written
    /// (empty elements break the authority's rules).
    pub(crate) fn leaf_opt(&mut self, name: &str, text: &str) -> Result<(), IssueError> {
        if text.trim().is_empty() {
            return Ok(());
        }
        self.leaf(name, text)
    }

    /// An element with attributes (sorted by name, as C14N orders them) and text.
    pub(crate) fn leaf_attrs(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) -> Result<(), IssueError> {
        debug_assert!(attrs.windows(2).all(|w| w[0].0 < w[1].0), "attributes must be sorted");
        self.newline();
        self.buf.push('<');
        self.buf.push_str(name);
        for (attr, value) in attrs {
            self.buf.push(' ');
            self.buf.push_str(attr);
            self.buf.push_str("=\"");
            escape_attr(&mut self.buf, value, name)?;
            self.buf.push('"');
        }
        self.buf.push('>');
        escape_text(&mut self.buf, text, name)?;
        self.buf.push_str("</");
        self.buf.push_str(name);
        self.buf.push('>');
        Ok(())
    }

    /// An amount element with `currencyID`.
    pub(crate) fn amount(&mut self, name: &str, currency: &str, text: &str) -> Result<(), IssueError> {
        self.leaf_attrs(name, &[("currencyID", currency)], text)
    }
}

/// Whether XML 1.0 can carry the character at all.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

fn bad_char(c: char, element: &str) -> IssueError {
    IssueError::InvalidCharacter {
        element: element.to_string(),
        code_point: u32::from(c),
    }
}

/// Append `text` as canonical element content.
pub(crate) fn escape_text(out: &mut String, text: &str, element: &str) -> Result<(), IssueError> {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#xD;"),
            c if is_xml_char(c) => out.push(c),
            c => return Err(bad_char(c, element)),
        }
    }
    Ok(())
}

/// Append `value` as a canonical attribute value (inside double quotes).
pub(crate) fn escape_attr(out: &mut String, value: &str, element: &str) -> Result<(), IssueError> {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            c if is_xml_char(c) => out.push(c),
            c => return Err(bad_char(c, element)),
        }
    }
    Ok(())
}

/// `text` escaped as canonical element content.
pub(crate) fn escaped(text: &str, element: &str) -> Result<String, IssueError> {
    let mut out = String::with_capacity(text.len());
    escape_text(&mut out, text, element)?;
    Ok(out)
}

/// A money amount with exactly two decimals, rounded half away from zero (a no-op for computed
/// documents, whose amounts already have two decimals); never `-0.00`.
pub(crate) fn money(value: Decimal) -> String {
    let mut v = value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    v.rescale(2);
    if v.is_zero() {
        v.set_sign_positive(true);
    }
    v.to_string()
}

/// A rate in percent with two decimals when it has at most two (`15` → `15.00`); a rate with more
/// decimals is written as given, for the authority's rules to judge.
pub(crate) fn percent(value: Decimal) -> String {
    if value.scale() <= 2 { money(value) } else { plain(value) }
}

/// A quantity, price or rate exactly as given (its own number of decimals); never `-0`.
pub(crate) fn plain(value: Decimal) -> String {
    let mut v = value;
    if v.is_zero() {
        v.set_sign_positive(true);
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn text_escaping_follows_c14n() {
        let mut out = String::new();
        escape_text(&mut out, "a&b<c>d\"e'f\rg\th\ni ش", "cbc:Note").unwrap();
        assert_eq!(out, "a&amp;b&lt;c&gt;d\"e'f&#xD;g\th\ni ش");
    }

    #[test]
    fn attribute_escaping_follows_c14n() {
        let mut out = String::new();
        escape_attr(&mut out, "a&b<c>d\"e'f\rg\th\ni", "cbc:ID").unwrap();
        assert_eq!(out, "a&amp;b&lt;c>d&quot;e'f&#xD;g&#x9;h&#xA;i");
    }

    #[test]
    fn control_characters_are_refused_with_the_element() {
        let err = escaped("a\u{1}b", "cbc:Name").unwrap_err();
        assert!(err.to_string().contains("cbc:Name"), "{err}");
        assert!(escaped("\u{FFFE}", "x").is_err());
        let mut out = String::new();
        assert!(escape_attr(&mut out, "\u{0}", "x").is_err());
    }

    #[test]
    fn elements_are_never_self_closed() {
        let mut x = Xml::new(64, 1);
        x.leaf("cbc:Note", "").unwrap();
        x.leaf_opt("cbc:Skipped", "  ").unwrap();
        x.open("cac:A");
        x.amount("cbc:Amount", "SAR", "1.00").unwrap();
        x.close("cac:A");
        assert_eq!(
            x.as_str(),
            "\n    <cbc:Note></cbc:Note>\n    <cac:A>\n        <cbc:Amount currencyID=\"SAR\">1.00</cbc:Amount>\n    </cac:A>"
        );
    }

    #[test]
    fn amounts_have_two_decimals() {
        assert_eq!(money(dec!(4)), "4.00");
        assert_eq!(money(dec!(0.6)), "0.60");
        assert_eq!(money(dec!(2.665)), "2.67");
        assert_eq!(money(-dec!(0.00)), "0.00");
        assert_eq!(money(dec!(-0.02)), "-0.02");
        assert_eq!(percent(dec!(15)), "15.00");
        assert_eq!(percent(dec!(12.345)), "12.345");
        assert_eq!(plain(dec!(2.000000)), "2.000000");
        assert_eq!(plain(dec!(3.33)), "3.33");
        assert_eq!(plain(-dec!(0)), "0");
    }
}

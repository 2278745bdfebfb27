//! Characters XML 1.0 cannot hold (U+0000 to U+001F but tab, line feed and carriage return;
//! U+FFFE, U+FFFF) in a text cell whose value goes into the issued XML: the API refuses the
//! document, naming an XML element. Some ERPs export a line break typed in a multi-line cell as a
//! vertical tab (U+000B). Said here, on the cell (`INV-MAP-CHAR`):
//!
//! - in free text (names, addresses, descriptions, notes), each such character is replaced by a
//!   space and the document is issued, with a warning;
//! - in a number, identifier or code (the document number, a VAT number, a unit or category
//!   code), nothing is changed: the value must stay the ERP's own (the ledger knows a document by
//!   its number; the authority checks a VAT number), so it is an error and the document is not
//!   issued.
//!
//! Only reached when [`crate::text::xml_unfit_at`] found one: the usual cell costs that scan and
//! nothing else.

use super::{Label, Sourced, Value};
use crate::mapping::Issue;
use crate::mapping::fields::{FIELDS, FieldId};
use crate::text::{has_invisible, invisible, without_invisible, xml_fit};

/// The code of the finding.
pub const CHAR_CODE: &str = "INV-MAP-CHAR";

/// The text fields whose characters XML cannot hold are replaced by a space (a warning); in
/// every other text field they are an error.
const FREE_TEXT: &[&str] = &[
    "note",
    "payment_note",
    "note_reason",
    "buyer.name",
    "buyer.street",
    "buyer.district",
    "buyer.city",
    "buyer.subentity",
    "line.item_name",
    "line.exemption_reason",
];

/// Whether such characters of field `f` are replaced (free text) rather than an error.
pub(super) fn replaced_in(f: FieldId) -> bool {
    FREE_TEXT.contains(&FIELDS[f].name)
}

/// Whether field `f` is a text field that is a number, identifier or code (not free text):
/// looked up for every such field read, so kept as a table.
pub(super) fn is_code(f: FieldId) -> bool {
    static CODES: std::sync::LazyLock<Vec<bool>> = std::sync::LazyLock::new(|| {
        (0..FIELDS.len())
            .map(|f| FIELDS[f].ty == crate::mapping::fields::FieldType::Text && !replaced_in(f))
            .collect()
    });
    CODES.get(f).copied().unwrap_or(false)
}

/// A character's words: `U+000B (a vertical tab)`.
fn describe(c: char) -> String {
    let what = match c {
        '\u{0}' => "a NUL",
        '\u{8}' => "a backspace",
        '\u{B}' => "a vertical tab",
        '\u{C}' => "a form feed",
        '\u{1B}' => "an escape",
        '\u{FFFE}' | '\u{FFFF}' => "a noncharacter",
        '\u{AD}' => "a soft hyphen",
        '\u{200B}' => "a zero-width space",
        '\u{200C}' => "a zero-width non-joiner",
        '\u{200D}' => "a zero-width joiner",
        '\u{200E}' => "a left-to-right mark",
        '\u{200F}' => "a right-to-left mark",
        '\u{202A}'..='\u{202E}' => "a text direction control",
        '\u{2060}'..='\u{2064}' => "an invisible joiner or operator",
        '\u{FEFF}' => "a byte-order mark",
        _ => "a control character",
    };
    format!("U+{:04X} ({what})", u32::from(c))
}

/// The field's text with each character XML cannot hold (and each [`invisible`] one) made
/// visible (`Text<U+000B>book`), for the finding's value; and the distinct such characters,
/// described.
fn shown(text: &str) -> (String, String) {
    let mut out = String::with_capacity(text.len() + 8);
    let mut found: Vec<char> = Vec::new();
    for c in text.chars() {
        if xml_fit(c) && !invisible(c) {
            out.push(c);
        } else {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
            if !found.contains(&c) {
                found.push(c);
            }
        }
    }
    let words: Vec<String> = found.iter().map(|&c| describe(c)).collect();
    let chars = match words.as_slice() {
        [one] => format!("the character {one}"),
        many => format!("the characters {}", many.join(", ")),
    };
    (out, chars)
}

/// The value of text field `f` whose `text` holds a character XML cannot hold: the text with a
/// space for each, with an `INV-MAP-CHAR` warning (free text), or an `INV-MAP-CHAR` error.
pub(super) fn unfit_text<'s>(f: FieldId, text: String, label: Option<Label<'s>>) -> Result<Sourced<'s>, Box<Issue>> {
    let (value, chars) = shown(&text);
    let column = label.map(str::to_string);
    if !replaced_in(f) {
        return Err(Box::new(Issue::error(
            CHAR_CODE,
            column,
            Some(value),
            format!(
                "{chars} cannot appear in the document's XML (the API would refuse the document), and {} is a \
                 number, identifier or code, which is issued as the ERP has it, never changed: correct it in the \
                 ERP and export again",
                FIELDS[f].name
            ),
        )));
    }
    let cleaned: String = text.chars().map(|c| if xml_fit(c) { c } else { ' ' }).collect();
    let warning = Issue::warning(
        CHAR_CODE,
        column,
        Some(value),
        format!(
            "{chars} cannot appear in the document's XML (the API would refuse the document): replaced by a space, \
             the text is issued as {cleaned:?}; clean this text in the ERP (a line break typed in a multi-line \
             cell is often exported as a vertical tab)"
        ),
    );
    Ok(Sourced {
        value: Value::Text(cleaned),
        label,
        warning: Some(Box::new(warning)),
    })
}

/// The value of number, identifier or code field `f` whose `text` holds an [`invisible`]
/// character: an `INV-MAP-CHAR` error (such a value looks like another and is not the same; a
/// number is issued as the ERP has it, never changed).
pub(super) fn invisible_text<'s>(f: FieldId, text: &str, label: Option<Label<'s>>) -> Box<Issue> {
    let (value, chars) = shown(text);
    Box::new(Issue::error(
        CHAR_CODE,
        label.map(str::to_string),
        Some(value),
        format!(
            "{chars} is in this {} but shows as nothing, so the value looks like another and is not the same (the \
             rows of one document would be read as two, a VAT number would not match); a number, identifier or code \
             is issued as the ERP has it, never changed: take the character out in the ERP and export again",
            FIELDS[f].name
        ),
    ))
}

/// When a row's cell and the cell it repeats (`there`, on `line`, as `first` names that row)
/// differ only by [`invisible`] characters: the `INV-MAP-CHAR` error of the row's cell, the
/// characters made visible in both.
pub(crate) fn invisible_difference(
    column: Option<String>,
    here: &str,
    there: &str,
    line: &str,
    first: &str,
) -> Option<Issue> {
    let in_here = has_invisible(here);
    if !(in_here || has_invisible(there)) || without_invisible(here) != without_invisible(there) {
        return None;
    }
    // Each cell with its characters made visible; they are described from the one that has them.
    let (value, chars_here) = shown(here);
    let (was, chars_there) = shown(there);
    let chars = if in_here { chars_here } else { chars_there };
    Some(Issue::error(
        CHAR_CODE,
        column,
        Some(value),
        format!(
            "this cell and {line}, {first}, which says {was:?}, differ only by {chars}, which shows as nothing: \
             the two look the same and are not; take the character out in the ERP and export again"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::fields::fid;

    #[test]
    fn free_text_is_cleaned_with_a_warning() {
        let s = unfit_text(fid!("line.item_name"), "Text\u{B}book\u{B}".into(), Some("Description")).unwrap();
        assert_eq!(s.value, Value::Text("Text book ".into()));
        let w = s.warning.unwrap();
        assert_eq!(w.code, "INV-MAP-CHAR");
        assert!(!w.is_error());
        assert_eq!(w.column.as_deref(), Some("Description"));
        assert_eq!(w.value.as_deref(), Some("Text<U+000B>book<U+000B>"));
        assert!(
            w.message.starts_with(
                "the character U+000B (a vertical tab) cannot appear in the document's XML (the API would refuse \
                 the document): replaced by a space, the text is issued as \"Text book \"; clean this text in the ERP"
            ),
            "{}",
            w.message
        );
        let s = unfit_text(fid!("buyer.name"), "A\u{0}B\u{FFFF}".into(), None).unwrap();
        assert_eq!(s.value, Value::Text("A B ".into()));
        assert!(
            s.warning.unwrap().message.starts_with(
                "the characters U+0000 (a NUL), U+FFFF (a noncharacter) cannot appear in the document's XML"
            )
        );
    }

    #[test]
    fn numbers_identifiers_and_codes_are_errors() {
        for name in [
            "number",
            "original_number",
            "buyer.vat_number",
            "buyer.id",
            "currency",
            "line.unit_code",
            "line.tax_category",
        ] {
            let f = FIELDS.iter().position(|d| d.name == name).unwrap();
            let e = unfit_text(f, "INV\u{1}7".into(), Some("Col")).unwrap_err();
            assert!(e.is_error() && e.code == "INV-MAP-CHAR", "{e:?}");
            assert_eq!(e.value.as_deref(), Some("INV<U+0001>7"));
            assert!(
                e.message
                    .contains(&format!("and {name} is a number, identifier or code")),
                "{}",
                e.message
            );
        }
        // Every free-text field is a text field.
        for name in FREE_TEXT {
            let d = FIELDS.iter().find(|d| d.name == *name).expect(name);
            assert_eq!(d.ty, crate::mapping::fields::FieldType::Text, "{name}");
        }
    }

    #[test]
    fn a_character_that_shows_as_nothing_in_a_code_is_an_error() {
        assert!(is_code(fid!("number")) && is_code(fid!("buyer.vat_number")));
        assert!(!is_code(fid!("buyer.name")) && !is_code(fid!("line.quantity")));
        let e = invisible_text(fid!("number"), "\u{FEFF}INV-1", Some("No"));
        assert_eq!((e.code.as_str(), e.is_error()), ("INV-MAP-CHAR", true));
        assert_eq!(e.value.as_deref(), Some("<U+FEFF>INV-1"));
        assert!(
            e.message
                .starts_with("the character U+FEFF (a byte-order mark) is in this number but shows as nothing"),
            "{}",
            e.message
        );
    }

    #[test]
    fn cells_that_differ_only_by_characters_that_show_as_nothing() {
        let e = invisible_difference(Some("No".into()), "INV\u{200B}1", "INV1", "line 2", "the first row").unwrap();
        assert_eq!(e.value.as_deref(), Some("INV<U+200B>1"));
        assert!(
            e.message.starts_with(
                "this cell and line 2, the first row, which says \"INV1\", differ only by the character U+200B (a \
                 zero-width space)"
            ),
            "{}",
            e.message
        );
        // The character on the other row's cell: shown there.
        let e = invisible_difference(None, "Acme", "\u{200F}Acme", "line 2", "the first row").unwrap();
        assert!(e.message.contains("which says \"<U+200F>Acme\""), "{}", e.message);
        // Other differences, or none of those characters: not this error.
        assert!(invisible_difference(None, "INV\u{200B}2", "INV1", "line 2", "x").is_none());
        assert!(invisible_difference(None, "INV2", "INV1", "line 2", "x").is_none());
    }
}

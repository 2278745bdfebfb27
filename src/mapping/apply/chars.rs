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
use crate::text::xml_fit;

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

/// A character's words: `U+000B (a vertical tab)`.
fn describe(c: char) -> String {
    let what = match c {
        '\u{0}' => "a NUL",
        '\u{8}' => "a backspace",
        '\u{B}' => "a vertical tab",
        '\u{C}' => "a form feed",
        '\u{1B}' => "an escape",
        '\u{FFFE}' | '\u{FFFF}' => "a noncharacter",
        _ => "a control character",
    };
    format!("U+{:04X} ({what})", u32::from(c))
}

/// The field's text with each character XML cannot hold made visible (`Text<U+000B>book`), for
/// the finding's value; and the distinct such characters, described.
fn shown(text: &str) -> (String, String) {
    let mut out = String::with_capacity(text.len() + 8);
    let mut found: Vec<char> = Vec::new();
    for c in text.chars() {
        if xml_fit(c) {
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
}

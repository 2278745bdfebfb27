//! A mapping's `[input]`, checked when the mapping loads: an encoding no reader knows, a
//! delimiter that is not one character, a header row 0 are the mapping's mistakes, said once
//! (naming `input.KEY`), not once for each export read with it.

use super::MappingError;
use super::compiled::Origin;
use super::headers::closest;
use super::load_toml::invalid;
use super::spec::InputSpec;

/// The encodings a mapping is most likely to name, for messages and suggestions.
const COMMON_ENCODINGS: [&str; 7] = [
    "utf-8",
    "utf-16le",
    "utf-16be",
    "windows-1256",
    "iso-8859-6",
    "windows-1252",
    "iso-8859-1",
];

/// The byte a `delimiter` names: one ASCII character, or a tab (`"\t"`, `'\t'` or `tab`).
pub fn delimiter_byte(d: &str) -> Option<u8> {
    match d {
        "\\t" | "\t" | "tab" => Some(b'\t'),
        d if d.len() == 1 => d
            .bytes()
            .next()
            .filter(|b| !b.is_ascii_alphanumeric() && !b"\"\r\n".contains(b)),
        _ => None,
    }
}

/// Check `[input]`.
pub(super) fn check(input: &InputSpec, origin: &Origin) -> Result<(), MappingError> {
    if let Some(label) = &input.encoding
        && encoding_rs::Encoding::for_label_no_replacement(label.trim().as_bytes()).is_none()
    {
        let hint = closest(label, COMMON_ENCODINGS)
            .map(|c| format!("did you mean {c:?}? "))
            .unwrap_or_default();
        return Err(invalid(
            origin,
            "input.encoding",
            format!(
                "unknown encoding {label:?}; {hint}give one such as {}, or leave encoding out to detect it",
                COMMON_ENCODINGS.join(", ")
            ),
        ));
    }
    if let Some(d) = &input.delimiter
        && delimiter_byte(d).is_none()
    {
        return Err(invalid(
            origin,
            "input.delimiter",
            format!(
                "{d:?} is not a delimiter; give one character other than a letter, a digit or a quote (\",\", \";\", \
                 \"|\"), \"tab\" for a tab, or leave delimiter out to detect it"
            ),
        ));
    }
    if input.header_row == Some(0) {
        return Err(invalid(
            origin,
            "input.header_row",
            "0 is no row: rows count from 1; give the row of the headers (1 is the first), or leave header_row out",
        ));
    }
    if input.header_rows == Some(0) {
        return Err(invalid(
            origin,
            "input.header_rows",
            "0 header rows: a file has at least one; give 1 (the default) or the number of header rows",
        ));
    }
    if input.sheet.as_ref().is_some_and(|s| s.trim().is_empty()) {
        return Err(invalid(
            origin,
            "input.sheet",
            "an empty sheet name; give the sheet's name, or leave sheet out to read the first sheet",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(input: &str) -> Result<crate::mapping::Mapping, String> {
        let text = format!(
            "[input]\n{input}\n[fields]\nnumber = \"No\"\nissue_date = {{ column = \"D\", format = \"%Y-%m-%d\" }}\n\
             line.item_name = \"I\"\nline.unit_price = \"P\"\n"
        );
        crate::mapping::Mapping::from_toml(&text, Origin::File("m.toml".into())).map_err(|e| e.to_string())
    }

    #[test]
    fn an_unknown_encoding_is_refused_naming_the_key_and_the_known_ones() {
        let e = load("encoding = \"utf8x\"").unwrap_err();
        assert_eq!(
            e,
            "mapping m.toml: input.encoding: unknown encoding \"utf8x\"; did you mean \"utf-8\"? give one such as utf-8, \
             utf-16le, utf-16be, windows-1256, iso-8859-6, windows-1252, iso-8859-1, or leave encoding out to detect it"
        );
        for ok in ["utf-8", "cp1256", " UTF-16LE ", "windows-1256"] {
            assert!(load(&format!("encoding = {ok:?}")).is_ok(), "{ok}");
        }
    }

    #[test]
    fn a_delimiter_must_be_one_character_or_tab() {
        for bad in [";;", "", "tab2", "a", "\"", "؛"] {
            let e = load(&format!("delimiter = {bad:?}")).unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "mapping m.toml: input.delimiter: {bad:?} is not a delimiter; give one"
                )),
                "{e}"
            );
        }
        for (ok, byte) in [(";", b';'), ("|", b'|'), ("\t", b'\t'), ("\\t", b'\t'), ("tab", b'\t')] {
            assert!(load(&format!("delimiter = {ok:?}")).is_ok(), "{ok}");
            assert_eq!(delimiter_byte(ok), Some(byte));
        }
    }

    #[test]
    fn header_rows_count_from_one_and_a_sheet_has_a_name() {
        let e = load("header_row = 0").unwrap_err();
        assert!(e.starts_with("mapping m.toml: input.header_row: 0 is no row"), "{e}");
        let e = load("header_rows = 0").unwrap_err();
        assert!(e.starts_with("mapping m.toml: input.header_rows: 0 header rows"), "{e}");
        let e = load("sheet = \" \"").unwrap_err();
        assert!(e.starts_with("mapping m.toml: input.sheet: an empty sheet name"), "{e}");
        assert!(load("header_row = 3\nheader_rows = 2\nsheet = \"Invoices\"").is_ok());
    }
}

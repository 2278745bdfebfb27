//! A number, identifier or code that Excel showed in scientific notation and saved so
//! (`1.23457E+11` for the document number `123456789012`, `3.00012E+14` for a VAT number): a
//! CSV opened in Excel and saved again keeps only what the cell showed, about six digits, so the
//! rest are gone and the value is another document's number. Said on the cell (`INV-MAP-VALUE`),
//! an error: it cannot be read back, and a number is issued as the ERP has it.
//!
//! Only a whole cell in that shape is one: a mantissa of one digit (with its decimals), `E` and a
//! signed exponent of one or two digits. An identifier that holds an `E` among letters
//! (`INV-2E+5`) is not.

use super::Label;
use crate::mapping::Issue;
use crate::mapping::fields::{FIELDS, FieldId};

/// Whether `text` is a number in Excel's scientific notation with a positive exponent: `d`,
/// `d.ddd…`, then `E+` (or `e+`) and one or two digits.
pub(super) fn scientific(text: &str) -> bool {
    let b = text.as_bytes();
    // A digit first, then an `E`: the usual identifier (`INV-0102`) fails the first test.
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return false;
    }
    let Some(e) = b.iter().position(|&c| c == b'E' || c == b'e') else {
        return false;
    };
    let (mantissa, exponent) = (&b[..e], &b[e + 1..]);
    let mantissa_ok = match mantissa {
        [d] => d.is_ascii_digit(),
        [d, b'.', rest @ ..] => d.is_ascii_digit() && !rest.is_empty() && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    mantissa_ok
        && matches!(exponent, [b'+', digits @ ..] if (1..=2).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit))
}

/// The `INV-MAP-VALUE` error of field `f`'s cell `text`, in scientific notation.
pub(super) fn shortened(f: FieldId, text: &str, label: Option<Label<'_>>) -> Box<Issue> {
    let (mantissa, exponent) = text.split_once(['E', 'e']).unwrap_or((text, "+0"));
    let kept = mantissa.bytes().filter(u8::is_ascii_digit).count();
    let long = exponent.trim_start_matches('+').parse::<usize>().unwrap_or(0) + 1;
    Box::new(Issue::error(
        "INV-MAP-VALUE",
        label.map(str::to_string),
        Some(text.to_string()),
        format!(
            "this {} is written in scientific notation, as Excel shows a long number and saves it when a CSV is \
             opened and saved again: it keeps {kept} of its {long} digits, so the rest are lost and it is not the \
             ERP's value; export the file again from the ERP without saving it from Excel (or format the column as \
             Text before saving)",
            FIELDS[f].name
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::fields::fid;

    #[test]
    fn scientific_notation_is_recognised_and_nothing_else() {
        for yes in ["1.23457E+11", "3.00012E+14", "1E+12", "9.9e+5", "1.2E+05"] {
            assert!(scientific(yes), "{yes}");
        }
        for no in [
            "INV-0102",
            "123456789012",
            "1.23457E11",
            "1.23457E-11",
            "E+11",
            "1.E+11",
            "12.3E+11",
            "1.2E+123",
            "INV-2E+5",
            "1.2E+",
            "",
            "E",
            "2E",
        ] {
            assert!(!scientific(no), "{no}");
        }
    }

    #[test]
    fn the_error_says_how_many_digits_are_left() {
        let e = shortened(fid!("number"), "1.23457E+11", Some("InvoiceNumber"));
        assert!(e.is_error() && e.code == "INV-MAP-VALUE");
        assert_eq!(e.column.as_deref(), Some("InvoiceNumber"));
        assert!(e.message.contains("keeps 6 of its 12 digits"), "{}", e.message);
        assert!(e.message.contains("export the file again"), "{}", e.message);
    }

    proptest::proptest! {
        /// Every long number Excel would shorten is recognised once shortened.
        #[test]
        fn excel_shortened_numbers_are_scientific(n in 100_000_000_000u64..999_999_999_999_999u64) {
            let digits = n.to_string();
            let shown = format!("{}.{}E+{}", &digits[..1], &digits[1..6], digits.len() - 1);
            proptest::prop_assert!(scientific(&shown));
            proptest::prop_assert!(!scientific(&digits));
        }
    }
}

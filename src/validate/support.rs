//! Small helpers shared by the rule files: JSON paths, text measures and exact decimal arithmetic.
//!
//! How the JSON maps onto the authority's XML: an empty string stands for an absent element
//! (the XML writer leaves empty optional elements out), except for elements the UBL schema
//! requires (a line's id), which are written even when empty. Decimal counts are those of the
//! value, not of its text: `16.480` has two decimals.

use crate::model::{Document, TaxSubtotal};
use crate::text::Trimmed;
use rust_decimal::{Decimal, RoundingStrategy};

/// The path of a field of line `i` (0-based, as in the JSON array).
pub(crate) fn line_path(i: usize, field: &str) -> String {
    format!("invoice_lines[{i}].{field}")
}

/// The path of document discount or charge `i`: `allowance_charge` when there is only one (it
/// travels as an object), `allowance_charge[i]` otherwise.
pub(crate) fn allowance_path(doc: &Document, i: usize, field: &str) -> String {
    if doc.allowance_charge.0.len() == 1 {
        format!("allowance_charge.{field}")
    } else {
        format!("allowance_charge[{i}].{field}")
    }
}

/// A JSON path kept symbolic: most paths a rule looks at never appear in a finding, so they are
/// spelled out (`Display`, `Into<String>`) only when one does. `head`, then `[index]`, then each
/// non-empty segment after a `.`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JsonPath {
    head: &'static str,
    index: Option<usize>,
    rest: [&'static str; 2],
}

impl JsonPath {
    /// `head.field` (`legal_monitory_total.payable_amount`).
    pub(crate) fn of(head: &'static str, field: &'static str) -> JsonPath {
        JsonPath {
            head,
            index: None,
            rest: [field, ""],
        }
    }

    /// A field of line `i` (0-based): `invoice_lines[i].field`, as [`line_path`].
    pub(crate) fn line(i: usize, field: &'static str) -> JsonPath {
        JsonPath {
            head: "invoice_lines",
            index: Some(i),
            rest: [field, ""],
        }
    }

    /// A field of document discount or charge `i`, as [`allowance_path`].
    pub(crate) fn allowance(doc: &Document, i: usize, field: &'static str) -> JsonPath {
        JsonPath {
            head: "allowance_charge",
            index: (doc.allowance_charge.0.len() != 1).then_some(i),
            rest: [field, ""],
        }
    }

    /// This path followed by `.field`; a path holds at most two segments after its index (every
    /// caller is a rule with its fields written out, at most two deep).
    pub(crate) fn field(self, field: &'static str) -> JsonPath {
        let mut rest = self.rest;
        match rest.iter_mut().find(|r| r.is_empty()) {
            Some(free) => *free = field,
            None => unreachable!("JsonPath built with more than two segments: {self} then {field}"),
        }
        JsonPath { rest, ..self }
    }
}

impl std::fmt::Display for JsonPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.head)?;
        if let Some(i) = self.index {
            write!(f, "[{i}]")?;
        }
        for r in self.rest.iter().filter(|r| !r.is_empty()) {
            write!(f, ".{r}")?;
        }
        Ok(())
    }
}

impl From<JsonPath> for String {
    fn from(p: JsonPath) -> String {
        p.to_string()
    }
}

/// Every VAT breakdown with the path of its object (`tax_total.tax_subtotal` or
/// `tax_total.tax_subtotals[i]`), in the order of [`crate::model::TaxTotal::subtotals`].
pub(crate) fn subtotals(doc: &Document) -> Vec<(JsonPath, &TaxSubtotal)> {
    let many = doc.tax_total.tax_subtotals.as_deref().unwrap_or_default();
    let mut all: Vec<(JsonPath, &TaxSubtotal)> =
        Vec::with_capacity(doc.tax_total.tax_subtotal.iter().len() + many.len());
    all.extend(doc.tax_total.tax_subtotal.iter().map(|s| {
        let path = JsonPath {
            head: "tax_total.tax_subtotal",
            index: None,
            rest: ["", ""],
        };
        (path, s)
    }));
    all.extend(many.iter().enumerate().map(|(i, s)| {
        let path = JsonPath {
            head: "tax_total.tax_subtotals",
            index: Some(i),
            rest: ["", ""],
        };
        (path, s)
    }));
    all
}

/// The number of characters, as XPath's `string-length` counts them.
pub(crate) fn chars(s: &str) -> usize {
    s.chars().count()
}

/// True when nothing but white space.
pub(crate) fn blank(s: &str) -> bool {
    s.trimmed().is_empty()
}

/// True for an optional text that is absent or blank.
pub(crate) fn blank_opt(s: Option<&str>) -> bool {
    s.is_none_or(blank)
}

/// A value for a finding.
pub(crate) fn val(s: &str) -> Option<String> {
    Some(s.to_string())
}

/// A number for a finding.
pub(crate) fn num(d: Decimal) -> Option<String> {
    Some(d.to_string())
}

/// Text cut to `max` characters with an ellipsis, for values in messages.
pub(crate) use crate::text::short;

/// True for a decimal digit of any script XPath's `\d` accepts here (ASCII, Arabic-Indic,
/// extended Arabic-Indic).
pub(crate) fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || ('\u{0660}'..='\u{0669}').contains(&c) || ('\u{06F0}'..='\u{06F9}').contains(&c)
}

/// True for exactly `n` ASCII digits (a building number is 4, a postal code 5, a CRN 10).
pub(crate) fn digits(s: &str, n: usize) -> bool {
    s.len() == n && ascii_digits(s)
}

/// True for a non-empty string of ASCII digits.
pub(crate) fn ascii_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The number of decimals of the value (trailing zeros do not count).
pub(crate) fn decimals(d: Decimal) -> u32 {
    d.normalize().scale()
}

/// `decimals(d) > 2`, without normalising an amount written with at most 2 decimals (trailing
/// zeros only lower the count).
pub(crate) fn over_two_decimals(d: Decimal) -> bool {
    d.scale() > 2 && decimals(d) > 2
}

/// XPath's `round(x, dp)`: half towards positive infinity.
pub(crate) fn xpath_round(d: Decimal, dp: u32) -> Decimal {
    let strategy = if d.is_sign_negative() {
        RoundingStrategy::MidpointTowardZero
    } else {
        RoundingStrategy::MidpointAwayFromZero
    };
    d.round_dp_with_strategy(dp, strategy)
}

/// XSLT's `format-number(x, '#.00')` as a value: half to even, 2 decimals.
pub(crate) fn format2(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven)
}

/// An exact sum, `None` on overflow.
pub(crate) fn sum(values: impl IntoIterator<Item = Decimal>) -> Option<Decimal> {
    values.into_iter().try_fold(Decimal::ZERO, |acc, v| acc.checked_add(v))
}

/// `|a − b|`, `None` on overflow.
pub(crate) fn diff(a: Decimal, b: Decimal) -> Option<Decimal> {
    a.checked_sub(b).map(|d| d.abs())
}

/// A rate as people write it: `15`, `5`, `0.5`.
pub(crate) fn pct(d: Decimal) -> String {
    d.normalize().to_string()
}

/// An amount as people read it: at least 2 decimals.
pub(crate) fn money(d: Decimal) -> String {
    let n = d.normalize();
    if n.scale() < 2 {
        format!("{n:.2}")
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn xpath_rounding_is_half_up() {
        assert_eq!(xpath_round(dec!(2.665), 2), dec!(2.67));
        assert_eq!(xpath_round(dec!(-2.665), 2), dec!(-2.66));
        assert_eq!(xpath_round(dec!(2.664), 2), dec!(2.66));
        assert_eq!(format2(dec!(2.665)), dec!(2.66));
        assert_eq!(format2(dec!(2.675)), dec!(2.68));
    }

    proptest::proptest! {
        /// The shortcut answers as counting the decimals does, trailing zeros included.
        #[test]
        fn over_two_decimals_counts_as_decimals_does(m in proptest::num::i64::ANY, scale in 0u32..12) {
            let d = Decimal::new(m, scale);
            proptest::prop_assert_eq!(over_two_decimals(d), decimals(d) > 2);
        }
    }

    #[test]
    fn measures() {
        assert_eq!(decimals(dec!(16.480)), 2);
        assert_eq!(decimals(dec!(16.485)), 3);
        assert_eq!(decimals(dec!(100)), 0);
        assert_eq!(chars("قلم"), 3);
        assert!(is_digit('٣') && is_digit('7') && !is_digit('a'));
        assert!(ascii_digits("0123") && !ascii_digits("") && !ascii_digits("١٢"));
        assert_eq!(money(dec!(5)), "5.00");
        assert_eq!(money(dec!(5.125)), "5.125");
        assert_eq!(pct(dec!(15.00)), "15");
        assert_eq!(short("abcdef", 3), "abc…");
        assert_eq!(sum([Decimal::MAX, Decimal::ONE]), None);
    }

    #[test]
    fn json_paths_spell_the_same_paths_as_the_text_helpers() {
        let mut doc = crate::model::example::standard_invoice("P-1");
        assert_eq!(JsonPath::line(3, "item.name").to_string(), line_path(3, "item.name"));
        assert_eq!(
            JsonPath::line(0, "price").field("currency").to_string(),
            "invoice_lines[0].price.currency"
        );
        assert_eq!(JsonPath::of("tax_total", "currency").to_string(), "tax_total.currency");
        let one = crate::model::AllowanceCharge {
            charge_indicator: false,
            reason: "Discount".into(),
            reason_code: None,
            amount: dec!(1),
            base_amount: None,
            multiplier_factor: None,
            currency: "SAR".into(),
            tax_category: crate::model::TaxCategory::new("S", dec!(15)),
        };
        for n in [1, 2] {
            doc.allowance_charge.0 = vec![one.clone(); n];
            let want = allowance_path(&doc, n - 1, "reason");
            let path: String = JsonPath::allowance(&doc, n - 1, "reason").into();
            assert_eq!(path, want);
        }
        crate::compute::compute_document(&mut doc).unwrap();
        let first = doc.tax_total.subtotals()[0].clone();
        doc.tax_total.set_subtotals(vec![first.clone()]);
        let spelled: Vec<String> = subtotals(&doc)
            .iter()
            .map(|(p, _)| p.field("tax_category").field("id").to_string())
            .collect();
        assert_eq!(spelled, ["tax_total.tax_subtotal.tax_category.id"]);
        doc.tax_total.set_subtotals(vec![first.clone(), first]);
        let spelled: Vec<String> = subtotals(&doc).iter().map(|(p, _)| p.to_string()).collect();
        assert_eq!(spelled, ["tax_total.tax_subtotals[0]", "tax_total.tax_subtotals[1]"]);
    }
}

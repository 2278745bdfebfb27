//! A tax cell into its VAT category: a code of the mapping's `[taxes]`, or a cell that is just a
//! rate (`15%`, `VAT 15%`: standard rate). Anything else is an `INV-MAP-TAX` saying what to add
//! to the mapping.

use super::Bound;
use crate::ingest::CellRef;
use crate::mapping::load::{FieldRule, NormText};
use crate::mapping::rate::{MoreThanRate, just_rate, more_than_rate};
use crate::mapping::transform;
use crate::model::TaxCategory;
use crate::text::Trimmed;
use rust_decimal::Decimal;

/// What to add to the mapping for a cell it cannot read as a VAT category.
const ADD_IT: &str = "add it to the mapping's [taxes] with its VAT category (S with its percent; Z, E or O with \
                      its reason code)";

impl Bound {
    /// The VAT category of a tax cell, or the message of its `INV-MAP-TAX`.
    pub(super) fn tax(&self, cell: CellRef<'_>, text: &str, rule: &FieldRule) -> Result<TaxCategory, String> {
        let norm = NormText::new(text);
        if let Some(t) = self.mapping.taxes.iter().find(|t| norm.matches(&t.key)) {
            return Ok(t.category.clone());
        }
        match transform::parse_percent(cell, text, &rule.style) {
            Ok(pct) if pct > Decimal::ZERO => Ok(TaxCategory::new("S", pct)),
            // A 0% rate says nothing about why: the mapping must name Z, E or O with a reason.
            Ok(_) => Err(format!(
                "a 0% rate needs a [taxes] entry saying whether it is zero-rated (Z), exempt (E) or out of \
                 scope (O): add it to the mapping's [taxes] with that category and its reason code; {}",
                self.knows()
            )),
            Err(_) => Err(self.not_a_rate(text)),
        }
    }

    /// Which codes the mapping knows, as it writes them.
    fn knows(&self) -> String {
        if self.mapping.taxes.is_empty() {
            "the mapping has no [taxes] table".into()
        } else {
            format!("the mapping knows {}", self.mapping.known_tax_codes())
        }
    }

    /// Why a tax cell is neither a code of the mapping nor just a rate, and what to do.
    fn not_a_rate(&self, text: &str) -> String {
        let t = text.trimmed();
        if just_rate(t).is_some() {
            return format!(
                "not a rate (write it like 15%), nor a tax code: {ADD_IT}; {}",
                self.knows()
            );
        }
        let Some(more) = more_than_rate(t) else {
            return if self.mapping.taxes.is_empty() {
                format!(
                    "not a tax rate (like 15%) and not a tax code: {ADD_IT}; {}",
                    self.knows()
                )
            } else {
                format!("unknown tax code: {ADD_IT}, or correct the cell; {}", self.knows())
            };
        };
        let (why, included) = match more {
            MoreThanRate::Rates(rates) => (
                format!(
                    "holds {} rates ({}) and a line has one VAT rate, so none is read",
                    rates.len(),
                    rates.join(", ")
                ),
                false,
            ),
            MoreThanRate::Included(r) => (
                format!("says the tax is included in the price, so it is not read as {r} added on top"),
                true,
            ),
            MoreThanRate::Contradicted(r, word) => {
                (format!("says {word:?} beside {r}, so it is not read as {r}"), false)
            }
            MoreThanRate::Words(r) => (
                format!("is not just a rate: the words beside {r} may change the tax, so it is not read as {r}"),
                false,
            ),
        };
        let inclusive = if included {
            ", and set prices_include_tax (true) in the mapping's [fields] so that prices are read as including VAT"
        } else {
            ""
        };
        format!("{why}; {ADD_IT}{inclusive}; {}", self.knows())
    }
}

#[cfg(test)]
mod tests {
    use crate::mapping::fields::id;
    use crate::mapping::tests::{bound, rows_from_csv};

    const WITH_TAXES: &str = r#"
[fields]
number = "No"
issue_date = { column = "Date", format = "%d/%m/%Y" }
buyer.name = "Customer"
line.item_name = "Item"
line.unit_price = "Price"
line.tax = "Tax"
[taxes]
"E0FIN" = { category = "E", reason_code = "VATEX-SA-29", reason = "Financial services" }
"S15" = { category = "S", percent = 15 }
"Zero, Exports" = { category = "Z", reason_code = "VATEX-SA-32", reason = "Export of goods" }
"#;

    /// The tax field of one row with `cell` in its Tax column: its category and percent, or the
    /// message of its finding.
    fn tax_of(mapping: &str, cell: &str) -> Result<(String, String), String> {
        let (h, rows) = rows_from_csv(
            &format!("No,Date,Customer,Item,Price,Tax\nA1,05/11/2026,X,Pen,10,\"{cell}\"\n"),
            1,
        );
        let b = bound(mapping, &h);
        match b.field(id("line.tax"), &rows[0], None) {
            Ok(Some(s)) => match s.value {
                crate::mapping::Value::Tax(t) => Ok((t.id.to_string(), t.percent.normalize().to_string())),
                other => panic!("{other:?}"),
            },
            Ok(None) => panic!("blank"),
            Err(e) => {
                assert_eq!(e.code, "INV-MAP-TAX", "{e:?}");
                Err(e.message)
            }
        }
    }

    #[test]
    fn a_cell_that_is_just_a_rate_is_the_standard_rate() {
        for cell in [
            "15",
            "15%",
            "15 %",
            "VAT 15%",
            "15% VAT",
            "VAT15%",
            "Standard 15%",
            "S 5%",
        ] {
            let want = if cell.contains('5') && !cell.contains("15") {
                "5"
            } else {
                "15"
            };
            assert_eq!(tax_of(WITH_TAXES, cell), Ok(("S".into(), want.into())), "{cell:?}");
        }
        // A code of the table wins, ignoring case.
        assert_eq!(tax_of(WITH_TAXES, "e0fin"), Ok(("E".into(), "0".into())));
    }

    #[test]
    fn a_rate_with_other_words_is_an_error_saying_what_to_add() {
        let known = "the mapping knows E0FIN, S15, \"Zero, Exports\"";
        let m = tax_of(WITH_TAXES, "VAT 15% (Included)").unwrap_err();
        assert!(m.starts_with("says the tax is included in the price, so it is not read as 15% added on top; add it to the mapping's [taxes]"), "{m}");
        assert!(m.contains("prices_include_tax") && m.ends_with(known), "{m}");
        let m = tax_of(WITH_TAXES, "15%,Withholding 5%").unwrap_err();
        assert!(
            m.starts_with("holds 2 rates (15%, 5%) and a line has one VAT rate, so none is read; add it"),
            "{m}"
        );
        assert!(!m.contains("prices_include_tax") && m.ends_with(known), "{m}");
        let m = tax_of(WITH_TAXES, "Exempt (was 15%)").unwrap_err();
        assert!(
            m.starts_with("says \"Exempt\" beside 15%, so it is not read as 15%; add it"),
            "{m}"
        );
        let m = tax_of(WITH_TAXES, "Sales 15%").unwrap_err();
        assert!(
            m.starts_with("is not just a rate: the words beside 15% may change the tax"),
            "{m}"
        );
    }

    #[test]
    fn an_unknown_code_lists_the_codes_as_the_mapping_writes_them() {
        let m = tax_of(WITH_TAXES, "S15X").unwrap_err();
        assert_eq!(
            m,
            "unknown tax code: add it to the mapping's [taxes] with its VAT category (S with its percent; Z, E or O \
             with its reason code), or correct the cell; the mapping knows E0FIN, S15, \"Zero, Exports\""
        );
        let m = tax_of(WITH_TAXES, "0%").unwrap_err();
        assert!(
            m.starts_with("a 0% rate needs a [taxes] entry") && m.ends_with("E0FIN, S15, \"Zero, Exports\""),
            "{m}"
        );
        let none = WITH_TAXES.split("[taxes]").next().unwrap_or_default();
        let m = tax_of(none, "Weird").unwrap_err();
        assert!(
            m.starts_with("not a tax rate (like 15%)") && m.ends_with("the mapping has no [taxes] table"),
            "{m}"
        );
    }
}

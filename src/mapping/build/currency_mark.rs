//! An amount written with a currency mark (`$3,450.00`, `€ 3450`, `SAR 100`): the mark is taken
//! off in reading the number, when the document's currency is not known yet, so reading notes it
//! ([`noted`]), and the document settles it ([`settle`]) once its currency is read: a mark of the
//! document's currency says nothing more (the usual `SAR 1,200.00`); another currency's is an
//! error on the cell (`USD 3450.00` on an invoice in SAR would be issued as 3450.00 SAR, a
//! quarter of what it is).

use crate::mapping::Issue;
use crate::mapping::transform::{mark_currency, mark_fits};
use rust_decimal::Decimal;

/// The code of both findings.
const CODE: &str = "INV-MAP-VALUE";

/// The start of the noted finding's message; the mark follows it, then `:`.
const NOTED: &str = "written with the currency mark ";

/// The finding of an amount cell `text` (in column `label`) written with currency `mark`, read
/// as `value`: a warning that stands as it is if its document is never built (no issue date),
/// and that [`settle`] drops or makes an error.
pub(crate) fn noted(label: Option<&str>, text: &str, mark: &str, value: Decimal) -> Issue {
    Issue::warning(
        CODE,
        label.map(str::to_string),
        Some(text.to_string()),
        format!("{NOTED}{mark}: read as {value} in the document's currency; write amounts without a currency mark"),
    )
}

/// The currency mark of a finding [`noted`] made, if it is one.
fn mark_of(issue: &Issue) -> Option<&str> {
    if issue.code != CODE || issue.is_error() {
        return None;
    }
    issue.message.strip_prefix(NOTED)?.split_once(':').map(|(mark, _)| mark)
}

/// Each finding [`noted`] made among a document's `issues`, with the document's `currency`: none
/// when its mark may stand for that currency, else an error naming both.
pub(crate) fn settle(issues: &mut Vec<(Option<usize>, Issue)>, currency: &str) {
    issues.retain_mut(|(_, issue)| {
        let Some(mark) = mark_of(issue) else {
            return true;
        };
        if mark_fits(mark, currency) {
            return false;
        }
        let written = mark_currency(mark);
        *issue = Issue::error(
            CODE,
            issue.column.take(),
            issue.value.take(),
            format!(
                "this amount is written in {written}, but the document's currency is {currency}, so it would be \
                 issued as {currency}: give the amount in {currency} without a currency mark, or the document's \
                 currency as the one its amounts are in (with its exchange rate to SAR)"
            ),
        );
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn a_mark_of_the_documents_currency_is_dropped_and_another_is_an_error() {
        let mut issues = vec![
            (Some(0), noted(Some("UnitAmount"), "SAR 100", "SAR", dec!(100))),
            (Some(1), noted(Some("UnitAmount"), "USD 3450.00", "USD", dec!(3450.00))),
            (Some(1), Issue::warning("INV-MAP-VALUE", None, None, "another warning")),
        ];
        settle(&mut issues, "SAR");
        assert_eq!(issues.len(), 2, "{issues:?}");
        let (at, e) = &issues[0];
        assert_eq!(*at, Some(1));
        assert!(e.is_error() && e.code == "INV-MAP-VALUE", "{e:?}");
        assert_eq!(
            (e.column.as_deref(), e.value.as_deref()),
            (Some("UnitAmount"), Some("USD 3450.00"))
        );
        assert!(
            e.message
                .starts_with("this amount is written in USD, but the document's currency is SAR"),
            "{}",
            e.message
        );
        assert_eq!(issues[1].1.message, "another warning");

        let mut dollars = vec![(Some(0), noted(None, "$5", "$", dec!(5)))];
        settle(&mut dollars, "USD");
        assert!(dollars.is_empty());
        let mut euros = vec![(Some(0), noted(None, "$5", "$", dec!(5)))];
        settle(&mut euros, "EUR");
        assert!(
            euros[0]
                .1
                .message
                .starts_with("this amount is written in dollars ($), but")
        );
    }
}

//! The size of the request that sends a document (`INV-DOCUMENT-TOO-LARGE`): the API takes a
//! request body of at most [`MAX_REQUEST_BYTES`] (1 MiB; the sandbox answers 413
//! `BODY-TOO-LARGE` beyond it), so a document with more lines than fit in one request is never
//! issued, whatever its content. Said before it is sent, with how many lines would fit.
//!
//! Cheap for the usual document: an upper bound of its body is made first from its count of
//! lines and the lengths of its texts (no serialisation). Only a document whose bound passes
//! the limit (some 800 lines and more) is serialised, into a byte counter, to measure it
//! exactly; and, when it is too large, its lines one by one, to say how many fit.

use super::finding::Finding;
use super::rules::INV_DOCUMENT_TOO_LARGE;
use crate::model::{Address, Document, Line, Party, TaxCategory};

/// The largest request body the API accepts, in bytes (the sandbox's limit).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

/// At most the bytes of a JSON number the wire writes for a decimal (28 digits, a point, a
/// sign and a leading `0`).
const NUMBER: usize = 32;
/// At most the bytes of a line's keys, punctuation, numbers and booleans, besides its texts.
const LINE_FIXED: usize = 1024;
/// The same for a line's discount or charge.
const LINE_CHARGE_FIXED: usize = 192;
/// The same for the document's other fields (keys, dates, totals), besides its texts, lines,
/// discounts, charges and VAT breakdowns.
const HEADER_FIXED: usize = 4096;
/// The same for one document discount or charge, or one VAT breakdown.
const PART_FIXED: usize = 512;

/// At most the bytes of a JSON string: its quotes, and each byte escaped (`\u001f`: 6 bytes).
fn text(s: &str) -> usize {
    2 + 6 * s.len()
}

fn category(c: &TaxCategory) -> usize {
    text(&c.id)
        + text(&c.tax_type)
        + c.exemption_reason_code.as_deref().map_or(0, text)
        + c.exemption_reason.as_deref().map_or(0, text)
}

fn address(a: &Address) -> usize {
    [
        &a.street_name,
        &a.building_number,
        &a.plot_identification,
        &a.city_subdivision_name,
        &a.city_name,
        &a.postal_zone,
        &a.country,
        &a.country_subentity,
    ]
    .into_iter()
    .map(|s| text(s))
    .sum()
}

fn party(p: &Party) -> usize {
    p.vat_number.as_deref().map_or(0, text)
        + text(&p.tax_type)
        + text(&p.registration_name)
        + address(&p.address)
        + p.party_identification
            .as_ref()
            .map_or(0, |i| text(&i.scheme) + text(&i.id))
}

fn line(l: &Line) -> usize {
    let price_charge = l
        .price
        .allowance_charge
        .as_ref()
        .map_or(0, |a| text(&a.reason) + text(&a.currency));
    let charges: usize = l
        .allowance_charges
        .iter()
        .map(|a| LINE_CHARGE_FIXED + text(&a.reason) + a.reason_code.as_deref().map_or(0, text))
        .sum();
    LINE_FIXED
        + text(&l.id)
        + text(&l.unit_code)
        + text(&l.tax_total.currency)
        + text(&l.item.name)
        + category(&l.item.classified_tax_category)
        + text(&l.price.currency)
        + text(&l.price.base_unit_code)
        + price_charge
        + charges
}

/// An upper bound of the bytes of `doc`'s request body, from its texts' lengths and its count of
/// lines, discounts, charges and breakdowns: never less than the body (a test holds it to that).
pub fn upper_bound(doc: &Document) -> usize {
    let charges: usize = doc
        .allowance_charge
        .0
        .iter()
        .map(|a| {
            PART_FIXED
                + text(&a.reason)
                + a.reason_code.as_deref().map_or(0, text)
                + text(&a.currency)
                + category(&a.tax_category)
        })
        .sum();
    let breakdowns: usize = doc
        .tax_total
        .subtotals()
        .iter()
        .map(|s| PART_FIXED + category(&s.tax_category))
        .sum();
    let optional = [
        doc.note.as_deref(),
        doc.payment_means.as_deref(),
        doc.payment_means_instruction_note.as_deref(),
        doc.billing_reference.as_deref(),
    ];
    HEADER_FIXED
        + NUMBER
        + text(&doc.number)
        + text(&doc.doc_currency_code)
        + text(&doc.tax_currency_code)
        + text(&doc.tax_total.currency)
        + optional.into_iter().flatten().map(text).sum::<usize>()
        + party(&doc.customer_info)
        + party(&doc.supplier_info)
        + charges
        + breakdowns
        + doc.invoice_lines.iter().map(line).sum::<usize>()
}

/// Counts the bytes written to it, keeping none.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes of a value's JSON, as the client sends it; `None` when it cannot be written.
fn json_bytes<T: serde::Serialize + ?Sized>(value: &T) -> Option<usize> {
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).ok().map(|()| counter.0)
}

/// The exact bytes of `doc`'s request body (`serde_json::to_vec(doc)`, as `submit` sends it).
pub fn request_bytes(doc: &Document) -> Option<usize> {
    json_bytes(doc)
}

/// How many lines like the largest of `doc`'s fit in one request with the rest of `doc`
/// (`total`: its body's bytes); at least 1.
fn lines_that_fit(doc: &Document, total: usize) -> usize {
    let sizes: Vec<usize> = doc.invoice_lines.iter().filter_map(json_bytes).collect();
    let lines: usize = sizes.iter().sum::<usize>() + sizes.len().saturating_sub(1);
    let rest = total.saturating_sub(lines);
    let largest = sizes.iter().copied().max().unwrap_or(1) + 1;
    let fit = MAX_REQUEST_BYTES.saturating_sub(rest) / largest;
    // A round number to split at, below the exact one.
    let round = match fit {
        0 => 1,
        1..100 => fit,
        100..1000 => fit / 10 * 10,
        _ => fit / 100 * 100,
    };
    round.max(1)
}

/// Thousands separated: `1048576` → `1,048,576`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    if upper_bound(doc) <= MAX_REQUEST_BYTES {
        return;
    }
    let Some(total) = request_bytes(doc) else { return };
    if total <= MAX_REQUEST_BYTES {
        return;
    }
    let lines = doc.invoice_lines.len();
    let fit = lines_that_fit(doc, total);
    let parts = lines.div_ceil(fit).max(2);
    out.push(INV_DOCUMENT_TOO_LARGE.at(
        doc.kind.number_key(),
        Some(doc.number.clone()),
        format!(
            "The document has {} lines: the request that sends it would be {} bytes, more than the API accepts \
             ({} bytes, 1 MiB), so it cannot be issued as one document. Split it into several documents in the \
             ERP, of at most {} lines each (here {parts} documents), and export again",
            grouped(lines),
            grouped(total),
            grouped(MAX_REQUEST_BYTES),
            grouped(fit),
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use rust_decimal::Decimal;

    /// `doc` with its first line repeated to `n` lines, each named `name`.
    fn with_lines(mut doc: Document, n: usize, name: &str) -> Document {
        let mut first = doc.invoice_lines[0].clone();
        first.item.name = name.into();
        doc.invoice_lines = (1..=n)
            .map(|i| {
                let mut l = first.clone();
                l.id = i.to_string();
                l
            })
            .collect();
        doc
    }

    #[test]
    fn the_bound_is_never_below_the_body() {
        for (name, doc) in examples() {
            let exact = request_bytes(&doc).unwrap();
            assert!(upper_bound(&doc) >= exact, "{name}");
        }
        // Texts that escape to six bytes a byte, the longest numbers, every optional part.
        let mut d = with_lines(standard(), 3, "\u{1}\u{2}\"\\");
        let most = Decimal::from_i128_with_scale(-9_999_999_999_999_999_999_999_999_999, 28);
        for l in &mut d.invoice_lines {
            (l.quantity, l.amount, l.price.price_per_unit) = (most, most, most);
            l.inclusive_amount = Some(most);
            l.price.base_quantity = Some(most);
            l.price.allowance_charge = Some(crate::model::PriceAllowanceCharge {
                charge_indicator: false,
                reason: "\u{1f}".repeat(9),
                amount: most,
                base_amount: most,
                currency: "SAR".into(),
            });
            l.allowance_charges = vec![
                crate::model::LineAllowanceCharge {
                    charge_indicator: true,
                    reason: "\u{0}".repeat(5),
                    reason_code: Some("\u{7}".into()),
                    amount: most,
                };
                3
            ];
            l.item.classified_tax_category.exemption_reason = Some("\n".repeat(7));
            l.item.classified_tax_category.exemption_reason_code = Some("VATEX-SA-29".into());
            l.item.classified_tax_category.percent = most;
        }
        d.note = Some("\u{1}".repeat(40));
        d.tax_exchange_rate = Some(most);
        let t = &mut d.legal_monitory_total;
        (
            t.total_amount,
            t.tax_exclusive_amount,
            t.tax_inclusive_amount,
            t.payable_amount,
        ) = (most, most, most, most);
        t.allowance_total_amount = Some(most);
        t.charge_total_amount = Some(most);
        t.prepaid_amount = Some(most);
        t.payable_rounding_amount = Some(most);
        d.tax_total.tax_amount = most;
        d.tax_total.tax_amount_in_tax_currency = Some(most);
        let exact = request_bytes(&d).unwrap();
        assert!(upper_bound(&d) >= exact, "{} < {exact}", upper_bound(&d));
        // Close enough to spare the usual document the exact count: a few hundred lines.
        let usual = with_lines(simplified(), 400, "Item description number 400");
        assert!(upper_bound(&usual) < MAX_REQUEST_BYTES);
    }

    #[test]
    fn a_document_over_the_limit_is_an_error_on_its_number_saying_how_many_lines_fit() {
        let ctx = ctx();
        let fits = with_lines(standard(), 2000, "Item description number 2000");
        assert!(request_bytes(&fits).unwrap() <= MAX_REQUEST_BYTES);
        assert!(validate(&fits).iter().all(|f| f.code != "INV-DOCUMENT-TOO-LARGE"));
        let mut big = with_lines(standard(), 4000, "Item description number 4000");
        crate::compute::compute_document(&mut big).unwrap();
        let total = request_bytes(&big).unwrap();
        assert!(total > MAX_REQUEST_BYTES);
        let found: Vec<_> = super::super::validate(&big, &ctx)
            .into_iter()
            .filter(|f| f.code == "INV-DOCUMENT-TOO-LARGE")
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert!(f.is_error());
        assert_eq!(
            (f.path.as_str(), f.value.as_deref()),
            ("invoice_number", Some("INV-1001"))
        );
        assert!(
            f.message.starts_with(&format!(
                "The document has 4,000 lines: the request that sends it would be {} bytes, more than the API \
                 accepts (1,048,576 bytes, 1 MiB), so it cannot be issued as one document. Split it into several \
                 documents in the ERP, of at most ",
                grouped(total)
            )),
            "{}",
            f.message
        );
        // The number said fits; the documents it makes are said too.
        let fit: usize = f
            .message
            .split("at most ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap();
        assert!((1000..4000).contains(&fit), "{fit}");
        let part = with_lines(standard(), fit, "Item description number 4000");
        assert!(request_bytes(&part).unwrap() <= MAX_REQUEST_BYTES);
        assert!(f.message.ends_with(&format!(
            "(here {} documents), and export again",
            4000usize.div_ceil(fit)
        )));
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_048_576), "1,048,576");
    }

    /// The validator's findings on `doc`, at the test clock.
    fn validate(doc: &Document) -> Vec<Finding> {
        super::super::validate(doc, &ctx())
    }
}

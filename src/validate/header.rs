//! The document as a whole: number, lines present, currencies, payment means, what notes need
//! (the device it goes through: `device.rs`).

use super::Finding;
use super::codes;
use super::rules::*;
use super::support::{JsonPath, blank, blank_opt, num, short, val, xpath_round};
use crate::model::{Document, InvoiceType};
use crate::text::Trimmed;
use chrono::NaiveDate;
use rust_decimal::Decimal;

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    let number_key = doc.kind.number_key();
    if blank(&doc.number) {
        out.push(BR_02.at(
            number_key,
            val(&doc.number),
            format!(
                "The {} has no number; give it the number from the ERP.",
                doc.kind.label()
            ),
        ));
    }
    if doc.invoice_lines.is_empty() {
        out.push(BR_16.at(
            "invoice_lines",
            None,
            format!(
                "The {} has no lines; a document needs at least one line.",
                doc.kind.label()
            ),
        ));
    }
    currencies(doc, out);
    payment_means(doc, out);
    if doc.kind.is_note() {
        note_requirements(doc, out);
    }
}

/// Every amount-carrying object's `currency`, with its path.
fn amount_currencies(doc: &Document) -> Vec<(JsonPath, &str)> {
    let mut all = Vec::with_capacity(1 + doc.allowance_charge.0.len() + 3 * doc.invoice_lines.len());
    all.push((JsonPath::of("tax_total", "currency"), doc.tax_total.currency.as_str()));
    for (i, ac) in doc.allowance_charge.0.iter().enumerate() {
        all.push((JsonPath::allowance(doc, i, "currency"), ac.currency.as_str()));
    }
    for (i, line) in doc.invoice_lines.iter().enumerate() {
        all.push((
            JsonPath::line(i, "tax_total.currency"),
            line.tax_total.currency.as_str(),
        ));
        all.push((JsonPath::line(i, "price.currency"), line.price.currency.as_str()));
        if let Some(pac) = &line.price.allowance_charge {
            all.push((
                JsonPath::line(i, "price.allowance_charge.currency"),
                pac.currency.as_str(),
            ));
        }
    }
    all
}

fn currencies(doc: &Document, out: &mut Vec<Finding>) {
    let cur = doc.doc_currency_code.trimmed();
    let cur_is_code = codes::is_currency(cur);
    if cur.is_empty() {
        out.push(BR_05.at(
            "doc_currency_code",
            val(&doc.doc_currency_code),
            "The document currency is missing; set it (SAR for Saudi riyals).",
        ));
    } else if !cur_is_code {
        let msg = format!(
            "The document currency {cur:?} is not an ISO 4217 code; use a three-letter code in capitals such as SAR or USD."
        );
        out.push(BR_KSA_CL_01.at("doc_currency_code", val(cur), msg.clone()));
        out.push(BR_CL_04.at("doc_currency_code", val(cur), msg));
    }
    let tax_cur = doc.tax_currency_code.trimmed();
    if tax_cur.is_empty() {
        out.push(BR_KSA_68.at(
            "tax_currency_code",
            val(&doc.tax_currency_code),
            "The tax currency is missing; it must be SAR.",
        ));
    } else {
        if !codes::is_currency(tax_cur) {
            out.push(BR_CL_05.at(
                "tax_currency_code",
                val(tax_cur),
                format!("The tax currency {tax_cur:?} is not an ISO 4217 code; it must be SAR."),
            ));
        }
        if !tax_cur.eq_ignore_ascii_case("SAR") {
            out.push(BR_KSA_EN16931_02.at(
                "tax_currency_code",
                val(tax_cur),
                format!("The tax currency is {tax_cur:?}; VAT is always accounted in Saudi riyals, so it must be SAR."),
            ));
        }
    }
    if !cur.is_empty() {
        for (path, c) in amount_currencies(doc) {
            let c = c.trimmed();
            if c.is_empty() {
                continue;
            }
            if c != cur {
                out.push(BR_KSA_CL_02.at(
                    path,
                    val(c),
                    format!("This amount is in {c:?} but the document is in {cur:?}; every amount must be in the document currency."),
                ));
            }
            // An amount in the document currency is covered by the document currency's own
            // rules (BR-CL-04, BR-KSA-CL-01): one finding for one wrong code, not one per amount.
            if c != cur && !codes::is_currency(c) {
                out.push(BR_CL_03.at(
                    path,
                    val(c),
                    format!("The currency {c:?} is not an ISO 4217 code; use the document currency {cur:?}."),
                ));
            }
        }
    }
    // A document currency that is not a currency at all is said once (BR-CL-04): no second
    // finding asking for its rate to SAR.
    let foreign = !cur.is_empty() && !tax_cur.is_empty() && cur != tax_cur && cur_is_code;
    let in_sar = doc.tax_total.tax_amount_in_tax_currency;
    if foreign && in_sar.is_none() {
        out.push(INV_SAR_VAT.at(
            "tax_total.tax_amount_in_tax_currency",
            None,
            format!(
                "The document is in {cur} and no exchange rate to SAR is given, so its VAT total in SAR (BT-111, \
                 BR-53) cannot be computed and the API will not issue it. Give the rate in the mapping's \
                 exchange_rate field, from a column of the export or from a table of rates by currency (a lookup); \
                 tax_exchange_rate in the API's document."
            ),
        ));
    }
    if let Some(sar) = in_sar
        && foreign
        && !cur.eq_ignore_ascii_case("SAR")
    {
        let vat = doc.tax_total.tax_amount;
        if vat > Decimal::ZERO && sar > Decimal::ZERO && xpath_round(vat, 2) == xpath_round(sar, 2) {
            out.push(BR_KSA_97.at(
                "tax_total.tax_amount_in_tax_currency",
                num(sar),
                format!(
                    "The VAT total in SAR equals the VAT total in {cur} ({sar}); convert it with the exchange \
                     rate to Saudi riyals."
                ),
            ));
        }
    }
    if let Some(rate) = doc.tax_exchange_rate {
        let text = rate.normalize().to_string();
        if text.len() >= 15 {
            out.push(BR_KSA_90.at(
                "tax_exchange_rate",
                val(&text),
                "The exchange rate has more than 14 digits; round it to at most 14 characters.",
            ));
        }
    }
}

fn payment_means(doc: &Document, out: &mut Vec<Finding>) {
    match doc.payment_means.as_deref() {
        Some(given) if !blank(given) => {
            let code = codes::payment_means_code(given);
            let is_code = code.eq_ignore_ascii_case("ZZZ")
                || (!code.is_empty() && code.len() <= 3 && code.bytes().all(|b| b.is_ascii_digit()));
            if !is_code {
                out.push(INV_PAYMENT_MEANS_UNKNOWN.at(
                    "payment_means",
                    val(given),
                    format!(
                        "The payment means {given:?} is neither a payment code nor one of the words the API accepts; \
                         map it to 10 (cash), 30 (credit), 42 (bank transfer), 48 (card) or 1 (not defined)."
                    ),
                ));
                return;
            }
            let (ksa, cl) = codes::payment_means_lists(code);
            if ksa && cl {
                return;
            }
            let msg = format!(
                "The payment means {given:?} is not a known code; use 10 (cash), 30 (credit), 42 (bank transfer), \
                 48 (card) or 1 (not defined), or the words cash, credit, bank-payment, card."
            );
            if !ksa {
                out.push(BR_KSA_16.at("payment_means", val(given), msg.clone()));
            }
            if !cl {
                out.push(BR_CL_16.at("payment_means", val(given), msg));
            }
        }
        _ if doc.invoice_type == InvoiceType::Standard => {
            out.push(INV_PAYMENT_MEANS_REQUIRED.at(
                "payment_means",
                doc.payment_means.clone(),
                format!(
                    "A standard {} needs its payment means; map the payment method column or set a default such as 10 (cash).",
                    doc.kind.label()
                ),
            ));
        }
        _ => {}
    }
}

fn note_requirements(doc: &Document, out: &mut Vec<Finding>) {
    let label = doc.kind.label();
    if blank_opt(doc.payment_means_instruction_note.as_deref()) {
        out.push(BR_KSA_17.at(
            "payment_means_instruction_note",
            doc.payment_means_instruction_note.clone(),
            format!(
                "A {label} must say why it is issued (for example \"{}\"); fill in the reason.",
                match doc.kind {
                    crate::model::DocumentKind::DebitNote => "Price increase after invoicing",
                    _ => "Returned items",
                }
            ),
        ));
    }
    match doc.billing_reference.as_deref() {
        Some(r) if !blank(r) => {
            if let Some(problem) = billing_reference_problem(r, doc.issue_date) {
                out.push(INV_BILLING_REFERENCE_FORM.at("billing_reference", val(&short(r, 200)), problem));
            }
        }
        other => out.push(BR_KSA_56.at(
            "billing_reference",
            other.map(str::to_string),
            format!(
                "A {label} must name the invoice it corrects; give its number and date \
                 (\"Invoice Number: 123; Invoice Issue Date: 2026-11-01\")."
            ),
        )),
    }
}

/// What is wrong with a billing reference compared with D10's
/// `Invoice Number: <n>; Invoice Issue Date: <YYYY-MM-DD>`, read loosely (any case and spacing).
fn billing_reference_problem(reference: &str, note_date: NaiveDate) -> Option<String> {
    let field = |name: &str| Document::billing_reference_field(reference, name);
    let number = field("invoice number").filter(|n| !n.is_empty());
    let date = field("invoice issue date").and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
    match (number, date) {
        (Some(_), Some(date)) if date > note_date => Some(format!(
            "The referenced invoice is dated {date}, after this note ({note_date}); check the invoice date."
        )),
        (Some(_), Some(_)) => None,
        _ => Some(
            "The billing reference should read \"Invoice Number: <number>; Invoice Issue Date: <YYYY-MM-DD>\"; \
             give the original invoice's number and date."
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{rule_test, *};
    use rust_decimal_macros::dec;

    rule_test!(br_02_number, "BR-02", Warning, standard(),
        pass: |d| d.number = "A".into(), fail: |d| d.number = "  ".into(), path: "invoice_number");
    rule_test!(br_16_lines, "BR-16", Error, standard(),
        pass: |d| d.invoice_lines.truncate(1), fail: |d| d.invoice_lines.clear());
    rule_test!(br_05_currency, "BR-05", Error, standard(),
        pass: |d| d.doc_currency_code = " SAR ".into(), fail: |d| d.doc_currency_code = Default::default());
    rule_test!(br_ksa_cl_01_iso_currency, "BR-KSA-CL-01", Error, standard(),
        pass: |d| { d.doc_currency_code = "USD".into(); d.tax_exchange_rate = Some(dec!(3.75)); recompute(d) },
        fail: |d| d.doc_currency_code = "RIYAL".into(), path: "doc_currency_code");
    rule_test!(br_cl_04_iso_currency, "BR-CL-04", Error, standard(),
        pass: |_| {}, fail: |d| d.doc_currency_code = "sar".into());
    rule_test!(br_ksa_68_tax_currency, "BR-KSA-68", Error, standard(),
        pass: |_| {}, fail: |d| d.tax_currency_code = Default::default());
    rule_test!(br_cl_05_tax_currency_iso, "BR-CL-05", Error, standard(),
        pass: |_| {}, fail: |d| d.tax_currency_code = "SR".into());
    rule_test!(br_ksa_en16931_02_tax_currency_sar, "BR-KSA-EN16931-02", Error, standard(),
        pass: |d| d.tax_currency_code = "sar".into(), fail: |d| d.tax_currency_code = "USD".into());
    rule_test!(br_ksa_cl_02_amount_currency, "BR-KSA-CL-02", Error, standard(),
        pass: |d| d.invoice_lines[1].price.currency = Default::default(),
        fail: |d| d.invoice_lines[1].price.currency = "USD".into(), path: "invoice_lines[1].price.currency");
    rule_test!(br_cl_03_currency_iso, "BR-CL-03", Error, standard(),
        pass: |_| {}, fail: |d| d.allowance_charge.0[0].currency = "RIY".into(), path: "allowance_charge.currency");

    #[test]
    fn a_wrong_document_currency_is_reported_once_not_on_every_amount() {
        use crate::validate::testkit::*;
        let mut d = standard();
        d.doc_currency_code = "XYZ".into();
        d.tax_total.currency = "XYZ".into();
        for l in &mut d.invoice_lines {
            l.price.currency = "XYZ".into();
            l.tax_total.currency = "XYZ".into();
            if let Some(a) = &mut l.price.allowance_charge {
                a.currency = "XYZ".into();
            }
        }
        for a in &mut d.allowance_charge.0 {
            a.currency = "XYZ".into();
        }
        let found = check(&d);
        assert_lacks(&found, "BR-CL-03");
        assert_has(&found, "BR-CL-04", crate::validate::Severity::Error);
    }
    rule_test!(inv_sar_vat, "INV-SAR-VAT", Error, standard(),
        pass: |d| { d.doc_currency_code = "USD".into(); d.tax_exchange_rate = Some(dec!(3.75)); recompute(d) },
        fail: |d| { d.doc_currency_code = "USD".into(); recompute(d) });
    rule_test!(br_ksa_97_vat_in_sar_differs, "BR-KSA-97", Warning, standard(),
        pass: |d| { d.doc_currency_code = "USD".into(); d.tax_exchange_rate = Some(dec!(3.75)); recompute(d) },
        fail: |d| { d.doc_currency_code = "USD".into(); d.tax_exchange_rate = Some(dec!(1)); recompute(d) });
    rule_test!(br_ksa_90_exchange_rate_digits, "BR-KSA-90", Error, standard(),
        pass: |d| d.tax_exchange_rate = Some(dec!(3.751234567891)),
        fail: |d| d.tax_exchange_rate = Some(dec!(3.7512345678912)));
    rule_test!(br_ksa_16_payment_means, "BR-KSA-16", Warning, standard(),
        pass: |d| d.payment_means = Some("bank-payment".into()), fail: |d| d.payment_means = Some("69".into()));
    rule_test!(br_cl_16_payment_means, "BR-CL-16", Warning, standard(),
        pass: |d| d.payment_means = Some("69".into()), fail: |d| d.payment_means = Some("99".into()));
    rule_test!(inv_payment_means_unknown, "INV-PAYMENT-MEANS-UNKNOWN", Error, standard(),
        pass: |d| d.payment_means = Some(" Card ".into()), fail: |d| d.payment_means = Some("cheque".into()));
    rule_test!(inv_payment_means_required, "INV-PAYMENT-MEANS-REQUIRED", Error, standard(),
        pass: |d| d.payment_means = Some("CASH".into()), fail: |d| d.payment_means = None);
    rule_test!(br_ksa_17_note_reason, "BR-KSA-17", Error, credit(),
        pass: |d| d.payment_means_instruction_note = Some("x".into()),
        fail: |d| d.payment_means_instruction_note = Some(" ".into()), path: "payment_means_instruction_note");
    rule_test!(br_ksa_56_billing_reference, "BR-KSA-56", Warning, debit(),
        pass: |d| d.billing_reference = Some("Invoice Number: 7; Invoice Issue Date: 2026-10-31".into()),
        fail: |d| d.billing_reference = None, path: "billing_reference");
    rule_test!(inv_billing_reference_form, "INV-BILLING-REFERENCE-FORM", Warning, credit(),
        pass: |d| d.billing_reference = Some("invoice  number:INV-9 ;invoice issue date: 2026-11-01".into()),
        fail: |d| d.billing_reference = Some("INV-9".into()));

    #[test]
    fn billing_reference_after_the_note_is_flagged() {
        let mut d = credit();
        d.billing_reference = Some("Invoice Number: 1; Invoice Issue Date: 2026-11-02".into());
        let f = assert_has(
            &check(&d),
            "INV-BILLING-REFERENCE-FORM",
            super::super::Severity::Warning,
        );
        assert!(f.message.contains("after this note"), "{}", f.message);
    }

    #[test]
    fn simplified_documents_may_omit_payment_means_and_invoices_need_no_reason() {
        let mut d = simplified();
        d.payment_means = None;
        assert!(check(&d).is_empty(), "{:?}", check(&d));
        let mut d = standard();
        d.payment_means_instruction_note = None;
        assert_lacks(&check(&d), "BR-KSA-17");
    }

    #[test]
    fn the_reason_asked_for_is_an_example_of_the_notes_kind() {
        for (mut d, example) in [
            (credit(), "Returned items"),
            (debit(), "Price increase after invoicing"),
        ] {
            d.payment_means_instruction_note = None;
            let found = check(&d);
            let f = found.iter().find(|f| f.code == "BR-KSA-17").expect("BR-KSA-17");
            assert!(f.message.contains(example), "{}", f.message);
        }
    }
}

//! The 400 checks: every missing or mistyped field of a body, found by walking the JSON before any
//! typed parsing (api.md 2.1, 2.3, 2.5, D10, D11).
//!
//! Required means present and not `null`. Amounts must be JSON numbers (not strings) that fit an
//! exact decimal, dates `YYYY-MM-DD`, times `HH:MM:SS`. Fields the model always writes are
//! required; fields marked optional (or *extension* in the model) are checked only when present.
//! Unknown fields are ignored.

use crate::model::{DocumentKind, Message, amount};
use chrono::{NaiveDate, NaiveTime};
use serde_json::{Map, Value};

/// One bad field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Path into the body: `invoice_lines[0].price.price_per_unit`.
    pub(crate) path: String,
    /// `None` when missing, otherwise what was expected and what came.
    pub(crate) invalid: Option<String>,
}

impl Problem {
    /// The problem as a D14 message: code `MISSING-FIELD` or `INVALID-FIELD`, the text starting
    /// with the path.
    pub(crate) fn message(&self) -> Message {
        match &self.invalid {
            None => Message::error("MISSING-FIELD", "request", format!("{}: missing", self.path)),
            Some(why) => Message::error("INVALID-FIELD", "request", format!("{}: {why}", self.path)),
        }
    }

    /// Every problem as a message.
    pub(crate) fn messages(problems: &[Problem]) -> Vec<Message> {
        problems.iter().map(Problem::message).collect()
    }
}

/// Check that every named field is a string (auth and onboarding bodies).
pub(crate) fn check_strings(body: &Value, names: &[&str]) -> Vec<Problem> {
    let mut w = Walk::default();
    if let Some(top) = w.root(body) {
        for name in names {
            w.string(top, "", name, true);
        }
    }
    w.problems
}

/// Check a document body for the endpoint of `kind`.
pub(crate) fn check_document(kind: DocumentKind, body: &Value) -> Vec<Problem> {
    let mut w = Walk::default();
    let Some(top) = w.root(body) else {
        return w.problems;
    };
    w.string(top, "", kind.number_key(), true);
    for other in DocumentKind::ALL.into_iter().filter(|k| *k != kind) {
        for key in [other.number_key(), other.type_key()] {
            if top.contains_key(key) {
                w.invalid(
                    key,
                    format!(
                        "not allowed on the {} endpoint, which takes `{}`",
                        kind.path_segment(),
                        kind.number_key()
                    ),
                );
            }
        }
    }
    let doc_type = w.one_of(top, "", kind.type_key(), &["standard", "simplified"], true);
    w.date(top, "", "issue_date");
    w.date(top, "", "actual_delivery_date");
    w.time(top, "", "issue_time");
    w.string(top, "", "note", false);
    w.string(top, "", "doc_currency_code", true);
    w.string(top, "", "tax_currency_code", true);
    w.party(top, "customer_info", false);
    w.party(top, "supplier_info", true);
    w.string(top, "", "payment_means", doc_type == Some("standard"));
    w.string(top, "", "payment_means_instruction_note", false);
    w.string(top, "", "billing_reference", kind.is_note());
    match top.get("allowance_charge") {
        None | Some(Value::Null) => w.missing("allowance_charge"),
        Some(Value::Object(m)) => w.document_allowance(m, "allowance_charge"),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let path = format!("allowance_charge[{i}]");
                if let Some(m) = w.expect_object(item, &path) {
                    w.document_allowance(m, &path);
                }
            }
        }
        Some(other) => w.invalid("allowance_charge", expected("an object or an array of objects", other)),
    }
    if let Some(t) = w.object(top, "", "tax_total", true) {
        w.string(t, "tax_total", "currency", true);
        w.number(t, "tax_total", "tax_amount", true);
        w.number(t, "tax_total", "tax_amount_in_tax_currency", false);
        let one = w.object(t, "tax_total", "tax_subtotal", false);
        if let Some(s) = one {
            w.subtotal(s, "tax_total.tax_subtotal");
        }
        let many = w.array(t, "tax_total", "tax_subtotals", false);
        for (i, item) in many.unwrap_or_default().iter().enumerate() {
            let path = format!("tax_total.tax_subtotals[{i}]");
            if let Some(s) = w.expect_object(item, &path) {
                w.subtotal(s, &path);
            }
        }
        if one.is_none() && many.is_none() && !present(t, "tax_subtotal") && !present(t, "tax_subtotals") {
            w.missing("tax_total.tax_subtotal");
        }
    }
    if let Some(m) = w.object(top, "", "legal_monitory_total", true) {
        let p = "legal_monitory_total";
        for key in [
            "total_amount",
            "tax_exclusive_amount",
            "tax_inclusive_amount",
            "payable_amount",
        ] {
            w.number(m, p, key, true);
        }
        for key in [
            "allowance_total_amount",
            "charge_total_amount",
            "prepaid_amount",
            "payable_rounding_amount",
        ] {
            w.number(m, p, key, false);
        }
    }
    if let Some(lines) = w.array(top, "", "invoice_lines", true) {
        for (i, line) in lines.iter().enumerate() {
            let path = format!("invoice_lines[{i}]");
            if let Some(l) = w.expect_object(line, &path) {
                w.line(l, &path);
            }
        }
    }
    w.number(top, "", "tax_exchange_rate", false);
    w.problems
}

fn present(m: &Map<String, Value>, key: &str) -> bool {
    !matches!(m.get(key), None | Some(Value::Null))
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// "expected X, found Y", where Y is the JSON type, or the text of a short string.
fn expected(what: &str, found: &Value) -> String {
    let found = match found {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
        Value::String(_) => "a long string".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    };
    format!("expected {what}, found {found}")
}

#[derive(Default)]
struct Walk {
    problems: Vec<Problem>,
}

impl Walk {
    fn missing(&mut self, path: &str) {
        self.problems.push(Problem {
            path: path.to_string(),
            invalid: None,
        });
    }

    fn invalid(&mut self, path: &str, why: String) {
        self.problems.push(Problem {
            path: path.to_string(),
            invalid: Some(why),
        });
    }

    fn root<'v>(&mut self, body: &'v Value) -> Option<&'v Map<String, Value>> {
        match body {
            Value::Object(m) => Some(m),
            other => {
                self.invalid("(body)", expected("a JSON object", other));
                None
            }
        }
    }

    /// The value of a field, or `None` after recording it as missing (when required).
    fn get<'v>(&mut self, m: &'v Map<String, Value>, path: &str, key: &str, required: bool) -> Option<&'v Value> {
        match m.get(key) {
            None | Some(Value::Null) => {
                if required {
                    self.missing(&join(path, key));
                }
                None
            }
            Some(v) => Some(v),
        }
    }

    fn expect_object<'v>(&mut self, v: &'v Value, path: &str) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(o) => Some(o),
            other => {
                self.invalid(path, expected("an object", other));
                None
            }
        }
    }

    fn object<'v>(
        &mut self,
        m: &'v Map<String, Value>,
        path: &str,
        key: &str,
        required: bool,
    ) -> Option<&'v Map<String, Value>> {
        let v = self.get(m, path, key, required)?;
        self.expect_object(v, &join(path, key))
    }

    fn array<'v>(&mut self, m: &'v Map<String, Value>, path: &str, key: &str, required: bool) -> Option<&'v [Value]> {
        match self.get(m, path, key, required)? {
            Value::Array(a) => Some(a),
            other => {
                self.invalid(&join(path, key), expected("an array", other));
                None
            }
        }
    }

    fn string<'v>(&mut self, m: &'v Map<String, Value>, path: &str, key: &str, required: bool) -> Option<&'v str> {
        match self.get(m, path, key, required)? {
            Value::String(s) => Some(s),
            other => {
                self.invalid(&join(path, key), expected("a string", other));
                None
            }
        }
    }

    /// The number at `key`, when it is one that fits an exact decimal (else the problem is noted).
    fn number(
        &mut self,
        m: &Map<String, Value>,
        path: &str,
        key: &str,
        required: bool,
    ) -> Option<rust_decimal::Decimal> {
        match self.get(m, path, key, required)? {
            Value::Number(n) => {
                let d = amount::parse_exact(&n.to_string());
                if d.is_none() {
                    self.invalid(
                        &join(path, key),
                        format!("the number {n} does not fit an exact decimal"),
                    );
                }
                d
            }
            other => {
                self.invalid(&join(path, key), expected("a JSON number", other));
                None
            }
        }
    }

    /// A quantity or unit price: a number, with at most 6 decimals (D12; trailing zeros do not
    /// count).
    fn six_places(&mut self, m: &Map<String, Value>, path: &str, key: &str, required: bool) {
        let Some(d) = self.number(m, path, key, required).map(|d| d.normalize()) else {
            return;
        };
        if d.scale() > 6 {
            self.invalid(
                &join(path, key),
                format!(
                    "{d} has {} decimals: quantities and unit prices take at most 6",
                    d.scale()
                ),
            );
        }
    }

    fn boolean(&mut self, m: &Map<String, Value>, path: &str, key: &str) {
        match self.get(m, path, key, true) {
            None | Some(Value::Bool(_)) => {}
            Some(other) => self.invalid(&join(path, key), expected("true or false", other)),
        }
    }

    fn one_of<'v>(
        &mut self,
        m: &'v Map<String, Value>,
        path: &str,
        key: &str,
        allowed: &[&str],
        required: bool,
    ) -> Option<&'v str> {
        let s = self.string(m, path, key, required)?;
        if allowed.contains(&s) {
            Some(s)
        } else {
            let list = allowed.join(", ");
            self.invalid(
                &join(path, key),
                expected(&format!("one of {list}"), &Value::String(s.into())),
            );
            None
        }
    }

    fn date(&mut self, m: &Map<String, Value>, path: &str, key: &str) {
        if let Some(s) = self.string(m, path, key, true) {
            let ok = s.len() == 10 && NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok();
            if !ok {
                self.invalid(
                    &join(path, key),
                    expected("a date YYYY-MM-DD", &Value::String(s.into())),
                );
            }
        }
    }

    fn time(&mut self, m: &Map<String, Value>, path: &str, key: &str) {
        if let Some(s) = self.string(m, path, key, true) {
            let ok = s.len() == 8 && NaiveTime::parse_from_str(s, "%H:%M:%S").is_ok();
            if !ok {
                self.invalid(&join(path, key), expected("a time HH:MM:SS", &Value::String(s.into())));
            }
        }
    }

    fn party(&mut self, top: &Map<String, Value>, key: &str, vat_required: bool) {
        let Some(p) = self.object(top, "", key, true) else {
            return;
        };
        self.string(p, key, "vat_number", vat_required);
        self.string(p, key, "tax_type", true);
        self.string(p, key, "registration_name", true);
        let address_path = join(key, "address");
        if let Some(a) = self.object(p, key, "address", true) {
            for field in [
                "street_name",
                "building_number",
                "plot_identification",
                "city_subdivision_name",
                "city_name",
                "postal_zone",
                "country",
                "country_subentity",
            ] {
                self.string(a, &address_path, field, true);
            }
        }
        let id_path = join(key, "party_identification");
        if let Some(id) = self.object(p, key, "party_identification", false) {
            self.string(id, &id_path, "scheme", true);
            self.string(id, &id_path, "id", true);
        }
    }

    fn tax_category(&mut self, m: &Map<String, Value>, path: &str, key: &str) {
        let p = join(path, key);
        if let Some(c) = self.object(m, path, key, true) {
            self.string(c, &p, "id", true);
            self.number(c, &p, "percent", true);
            self.string(c, &p, "tax_type", true);
            self.string(c, &p, "exemption_reason_code", false);
            self.string(c, &p, "exemption_reason", false);
        }
    }

    fn document_allowance(&mut self, m: &Map<String, Value>, path: &str) {
        self.boolean(m, path, "charge_indicator");
        self.string(m, path, "reason", true);
        self.string(m, path, "reason_code", false);
        self.number(m, path, "amount", true);
        self.number(m, path, "base_amount", false);
        self.number(m, path, "multiplier_factor", false);
        self.string(m, path, "currency", true);
        self.tax_category(m, path, "tax_category");
    }

    fn subtotal(&mut self, m: &Map<String, Value>, path: &str) {
        self.number(m, path, "taxable_amount", true);
        self.number(m, path, "tax_amount", true);
        self.tax_category(m, path, "tax_category");
    }

    fn line(&mut self, l: &Map<String, Value>, path: &str) {
        self.string(l, path, "id", true);
        self.string(l, path, "unit_code", true);
        self.six_places(l, path, "quantity", true);
        self.number(l, path, "amount", true);
        let tt = join(path, "tax_total");
        if let Some(t) = self.object(l, path, "tax_total", true) {
            self.string(t, &tt, "currency", true);
            self.number(t, &tt, "tax_amount", true);
            self.number(t, &tt, "rounding_amount", true);
        }
        let item = join(path, "item");
        if let Some(i) = self.object(l, path, "item", true) {
            self.string(i, &item, "name", true);
            self.tax_category(i, &item, "classified_tax_category");
        }
        let price = join(path, "price");
        if let Some(p) = self.object(l, path, "price", true) {
            self.string(p, &price, "currency", true);
            self.six_places(p, &price, "price_per_unit", true);
            self.string(p, &price, "base_unit_code", true);
            self.six_places(p, &price, "base_quantity", false);
            let pac = join(&price, "allowance_charge");
            if let Some(a) = self.object(p, &price, "allowance_charge", false) {
                self.boolean(a, &pac, "charge_indicator");
                self.string(a, &pac, "reason", true);
                self.number(a, &pac, "amount", true);
                self.number(a, &pac, "base_amount", true);
                self.string(a, &pac, "currency", true);
            }
        }
        if let Some(all) = self.array(l, path, "allowance_charges", false) {
            for (i, item) in all.iter().enumerate() {
                let p = format!("{path}.allowance_charges[{i}]");
                if let Some(a) = self.expect_object(item, &p) {
                    self.boolean(a, &p, "charge_indicator");
                    self.string(a, &p, "reason", true);
                    self.string(a, &p, "reason_code", false);
                    self.number(a, &p, "amount", true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::compute_document;
    use crate::model::example;

    fn body(doc: &crate::model::Document) -> Value {
        let mut d = doc.clone();
        compute_document(&mut d).unwrap();
        serde_json::to_value(&d).unwrap()
    }

    fn paths(problems: &[Problem]) -> Vec<&str> {
        problems.iter().map(|p| p.path.as_str()).collect()
    }

    #[test]
    fn every_example_document_passes() {
        let cases = [
            (DocumentKind::Invoice, example::standard_invoice("A-1")),
            (DocumentKind::Invoice, example::simplified_invoice("A-2")),
            (DocumentKind::CreditNote, example::credit_note("C-1", "A-1")),
            (DocumentKind::DebitNote, example::debit_note("D-1", "A-1")),
        ];
        for (kind, doc) in cases {
            assert_eq!(check_document(kind, &body(&doc)), vec![], "{}", doc.number);
        }
    }

    #[test]
    fn every_problem_is_named_at_once() {
        let mut v = body(&example::standard_invoice("A-1"));
        let top = v.as_object_mut().unwrap();
        top.remove("issue_date");
        top.remove("payment_means");
        top.insert("issue_time".into(), Value::String("10:30".into()));
        top["legal_monitory_total"]["payable_amount"] = Value::String("12.50".into());
        top["invoice_lines"][1]["quantity"] = Value::Null;
        top["invoice_lines"][2]["item"]["classified_tax_category"]["percent"] = Value::Bool(true);
        top["supplier_info"]["address"]
            .as_object_mut()
            .unwrap()
            .remove("city_name");
        let problems = check_document(DocumentKind::Invoice, &v);
        assert_eq!(
            paths(&problems),
            vec![
                "issue_date",
                "issue_time",
                "supplier_info.address.city_name",
                "payment_means",
                "legal_monitory_total.payable_amount",
                "invoice_lines[1].quantity",
                "invoice_lines[2].item.classified_tax_category.percent",
            ]
        );
        assert!(problems[0].invalid.is_none());
        assert!(problems[1].invalid.as_deref().unwrap().contains("HH:MM:SS"));
        assert!(problems[4].invalid.as_deref().unwrap().contains("JSON number"));
    }

    #[test]
    fn quantities_and_unit_prices_take_six_decimals() {
        let mut v = body(&example::standard_invoice("A-1"));
        let n = |t: &str| Value::Number(t.parse().unwrap());
        v["invoice_lines"][0]["quantity"] = n("1.2345678");
        v["invoice_lines"][1]["price"]["price_per_unit"] = n("10.1234567");
        // Six decimals, and trailing zeros, are fine.
        v["invoice_lines"][2]["quantity"] = n("1.123456");
        v["invoice_lines"][2]["price"]["price_per_unit"] = n("2.50000000");
        let problems = check_document(DocumentKind::Invoice, &v);
        assert_eq!(
            paths(&problems),
            vec!["invoice_lines[0].quantity", "invoice_lines[1].price.price_per_unit"]
        );
        let why = problems[0].invalid.as_deref().unwrap();
        assert!(
            why.contains("1.2345678 has 7 decimals") && why.contains("at most 6"),
            "{why}"
        );
    }

    #[test]
    fn the_number_key_must_match_the_endpoint() {
        let v = body(&example::credit_note("C-1", "A-1"));
        let problems = check_document(DocumentKind::Invoice, &v);
        let p = paths(&problems);
        assert!(p.contains(&"invoice_number") && p.contains(&"invoice_type"), "{p:?}");
        assert!(
            p.contains(&"creditnote_number") && p.contains(&"creditnote_type"),
            "{p:?}"
        );
    }

    #[test]
    fn notes_need_a_billing_reference_and_simplified_invoices_no_payment_means() {
        let mut note = example::credit_note("C-1", "A-1");
        note.billing_reference = None;
        assert_eq!(
            paths(&check_document(DocumentKind::CreditNote, &body(&note))),
            vec!["billing_reference"]
        );
        let mut simplified = example::simplified_invoice("A-2");
        simplified.payment_means = None;
        assert!(check_document(DocumentKind::Invoice, &body(&simplified)).is_empty());
    }

    #[test]
    fn dates_and_non_objects() {
        let mut v = body(&example::standard_invoice("A-1"));
        v["issue_date"] = Value::String("2026-1-01".into());
        v["actual_delivery_date"] = Value::String("2026-02-30".into());
        assert_eq!(
            paths(&check_document(DocumentKind::Invoice, &v)),
            vec!["issue_date", "actual_delivery_date"]
        );
        assert_eq!(
            paths(&check_document(DocumentKind::Invoice, &Value::Array(vec![]))),
            vec!["(body)"]
        );
        let auth = serde_json::json!({"vat_number": "1", "username": 5});
        assert_eq!(
            paths(&check_strings(&auth, &["vat_number", "username", "secret"])),
            vec!["username", "secret"]
        );
    }
}

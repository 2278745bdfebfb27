//! What differs between two documents: the fields of their bodies as the API gets them (the
//! content the ledger's hash covers), each with both values. Said when an issued document's
//! export changes (`INV-LEDGER-CONFLICT`), so the accountant sees what changed.

use super::Document;
use serde_json::Value;

/// The fields whose values differ between `now` and `issued`, as `field "now" (issued: "was")`,
/// the fields given in the export first and the amounts computed from them last; at most `max`,
/// and how many more there are.
pub fn differences(now: &Document, issued: &Document, max: usize) -> (Vec<String>, usize) {
    let (Ok(a), Ok(b)) = (serde_json::to_value(now), serde_json::to_value(issued)) else {
        return (Vec::new(), 0);
    };
    let mut found = Vec::new();
    walk(&a, &b, &mut String::new(), &mut found);
    // Stable: each group keeps the body's order.
    found.sort_by_key(|(path, _)| computed(path));
    let more = found.len().saturating_sub(max);
    let shown = found.into_iter().take(max).map(|(_, text)| text).collect();
    (shown, more)
}

/// An amount the tool computes (totals, VAT, a line's net amount): a consequence of a change,
/// not the change.
fn computed(path: &str) -> bool {
    path.contains("legal_monitory_total") || path.contains("tax_total") || path.ends_with("].amount")
}

fn walk(a: &Value, b: &Value, path: &mut String, out: &mut Vec<(String, String)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    path,
                    out,
                );
                path.truncate(len);
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(va, vb, path, out);
                path.truncate(len);
            }
            if x.len() != y.len() {
                let text = format!("{path}: {} entries (issued: {})", x.len(), y.len());
                out.push((path.clone(), text));
            }
        }
        _ if same_value(a, b) => {}
        _ => {
            let text = format!("{path} {} (issued: {})", shown(a), shown(b));
            out.push((path.clone(), text));
        }
    }
}

/// Whether two bodies as the API gets them say the same: equal, or equal but for how many
/// decimal places an amount is written with (`57.5` and `57.50`, `230.0` and `230.00`). Not the
/// same when either is not JSON.
pub fn same_content(a: &[u8], b: &[u8]) -> bool {
    match (serde_json::from_slice::<Value>(a), serde_json::from_slice::<Value>(b)) {
        (Ok(x), Ok(y)) => same_value(&x, &y),
        _ => false,
    }
}

/// `a` and `b` are equal, numbers compared by their decimal value.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || same_number(x, y),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_value(v, w)),
        _ => a == b,
    }
}

fn same_number(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    let value = |n: &serde_json::Number| {
        let text = n.to_string();
        rust_decimal::Decimal::from_str_exact(&text)
            .or_else(|_| rust_decimal::Decimal::from_scientific(&text))
            .ok()
    };
    matches!((value(x), value(y)), (Some(a), Some(b)) if a == b)
}

fn shown(v: &Value) -> String {
    match v {
        Value::Null => "(none)".to_string(),
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::example;
    use rust_decimal_macros::dec;

    #[test]
    fn the_same_document_has_no_differences() {
        let d = example::standard_invoice("INV-1");
        assert_eq!(differences(&d, &d.clone(), 5), (Vec::new(), 0));
    }

    #[test]
    fn a_changed_date_and_name_are_named_with_both_values() {
        let was = example::standard_invoice("INV-1");
        let mut now = was.clone();
        now.issue_date = now.issue_date.succ_opt().unwrap();
        now.customer_info.registration_name = "Other Co".into();
        let (shown, more) = differences(&now, &was, 5);
        assert_eq!(more, 0);
        assert_eq!(shown.len(), 2, "{shown:?}");
        let date = shown.iter().find(|s| s.contains("issue_date")).expect("the date");
        assert!(
            date.contains(&format!("\"{}\" (issued: \"{}\")", now.issue_date, was.issue_date)),
            "{date}"
        );
        assert!(shown.iter().any(|s| s.contains("\"Other Co\"")), "{shown:?}");
    }

    #[test]
    fn a_changed_quantity_comes_before_the_totals_it_changes_and_the_rest_is_counted() {
        let was = example::standard_invoice("INV-1");
        let mut now = was.clone();
        now.invoice_lines[0].quantity += dec!(1);
        now.invoice_lines[0].amount += dec!(1);
        now.legal_monitory_total.tax_inclusive_amount += dec!(1);
        now.legal_monitory_total.payable_amount += dec!(1);
        let (shown, more) = differences(&now, &was, 1);
        assert!(shown[0].contains("quantity"), "{shown:?}");
        assert_eq!(more, 3);
    }

    #[test]
    fn a_line_more_is_said_as_a_count() {
        let was = example::standard_invoice("INV-1");
        let mut now = was.clone();
        now.invoice_lines.push(now.invoice_lines[0].clone());
        let (shown, _) = differences(&now, &was, 5);
        assert!(
            shown.iter().any(|s| s.ends_with(&format!(
                "{} entries (issued: {})",
                now.invoice_lines.len(),
                was.invoice_lines.len()
            ))),
            "{shown:?}"
        );
    }

    #[test]
    fn amounts_written_with_other_decimal_places_are_the_same_content() {
        let a = br#"{"n":"INV-1","lines":[{"price":57.50,"qty":4}],"total":230.00}"#;
        let b = br#"{"n":"INV-1","lines":[{"price":57.5,"qty":4.0}],"total":230}"#;
        assert!(same_content(a, b));
        assert!(same_content(a, a));
        for other in [
            &br#"{"n":"INV-1","lines":[{"price":57.51,"qty":4}],"total":230.00}"#[..],
            br#"{"n":"INV-2","lines":[{"price":57.50,"qty":4}],"total":230.00}"#,
            br#"{"n":"INV-1","lines":[{"price":"57.50","qty":4}],"total":230.00}"#,
            br#"{"n":"INV-1","lines":[{"price":57.50,"qty":4}],"total":230.00,"x":null}"#,
            br#"{"n":"INV-1","lines":[],"total":230.00}"#,
            b"not json",
        ] {
            assert!(!same_content(a, other), "{}", String::from_utf8_lossy(other));
        }
        // Beyond what a float holds: told apart.
        assert!(!same_content(br#"[0.1000000000000000000001]"#, br#"[0.1]"#));
    }

    #[test]
    fn other_decimal_places_alone_are_no_difference() {
        let d = example::standard_invoice("INV-1");
        let mut e = d.clone();
        let price = &mut e.invoice_lines[0].price.price_per_unit;
        price.rescale(price.scale() + 2);
        assert_eq!(differences(&d, &e, 5), (Vec::new(), 0));
        e.invoice_lines[0].price.price_per_unit += dec!(0.01);
        let (fields, _) = differences(&d, &e, 5);
        assert!(
            fields[0].starts_with("invoice_lines[0].price.price_per_unit"),
            "{fields:?}"
        );
    }
}

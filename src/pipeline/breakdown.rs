//! A finding on a VAT breakdown's category
//! (`tax_total.tax_subtotals[1].tax_category.exemption_reason_code`) is about its lines: a
//! breakdown's category, rate and exemption reason are those of the first line of that category
//! and rate, which its tax code (or its category, rate or exemption columns) gave. So the finding is
//! located as that line's (`invoice_lines[2].item.classified_tax_category.exemption_reason_code`),
//! on the row and cell to correct, instead of on the export's VAT total or on no column at all.

use crate::model::Document;

/// The path of the first line whose category gave the breakdown's that `path` is within, or
/// `None` when `path` is not within a breakdown's category (its amounts are sums, not any
/// line's) or no line has that category.
pub(super) fn as_line_path(path: &str, doc: &Document) -> Option<String> {
    let (k, rest) = match path.strip_prefix("tax_total.tax_subtotal.tax_category") {
        Some(rest) => (0, rest),
        None => {
            let rest = path.strip_prefix("tax_total.tax_subtotals[")?;
            let close = rest.find(']')?;
            let i: usize = rest[..close].parse().ok()?;
            // `subtotals()` gives the single breakdown first (D11: never both).
            let k = i + usize::from(doc.tax_total.tax_subtotal.is_some());
            (k, rest[close + 1..].strip_prefix(".tax_category")?)
        }
    };
    if !(rest.is_empty() || rest.starts_with('.')) {
        return None;
    }
    let subtotals = doc.tax_total.subtotals();
    let cat = &subtotals.get(k)?.tax_category;
    let line = doc
        .invoice_lines
        .iter()
        .position(|l| l.item.classified_tax_category.same_breakdown(cat))?;
    Some(format!("invoice_lines[{line}].item.classified_tax_category{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::compute_document;
    use crate::model::example;

    #[test]
    fn a_breakdown_category_path_is_its_first_lines() {
        // Lines: S 15 %, S 15 % again, S 5 %, Z (an export): three breakdowns, the second and
        // third from lines 2 and 3.
        let mut doc = example::standard_invoice("A-1");
        let again = doc.invoice_lines[0].clone();
        doc.invoice_lines.insert(1, again);
        compute_document(&mut doc).unwrap();
        let ids: Vec<(String, String)> = doc
            .tax_total
            .subtotals()
            .iter()
            .map(|s| {
                (
                    s.tax_category.id.to_string(),
                    s.tax_category.percent.normalize().to_string(),
                )
            })
            .collect();
        let pair = |id: &str, p: &str| (id.to_string(), p.to_string());
        assert_eq!(ids, [pair("S", "15"), pair("S", "5"), pair("Z", "0")]);
        for (k, line) in [(0, 0), (1, 2), (2, 3)] {
            let path = format!("tax_total.tax_subtotals[{k}].tax_category.exemption_reason_code");
            assert_eq!(
                as_line_path(&path, &doc),
                Some(format!(
                    "invoice_lines[{line}].item.classified_tax_category.exemption_reason_code"
                ))
            );
        }
        assert_eq!(
            as_line_path("tax_total.tax_subtotals[2].tax_category", &doc).as_deref(),
            Some("invoice_lines[3].item.classified_tax_category")
        );
        // Its amounts are sums of lines, not a line's; paths only alike are not breakdowns.
        for path in [
            "tax_total.tax_subtotals[0].taxable_amount",
            "tax_total.tax_subtotals[0].tax_categoryx",
            "tax_total.tax_subtotals[3].tax_category.id",
            "tax_total.tax_subtotals[x].tax_category.id",
            "tax_total.tax_amount",
        ] {
            assert_eq!(as_line_path(path, &doc), None, "{path}");
        }
    }

    #[test]
    fn a_single_breakdown_is_the_object_d11_gives() {
        let mut doc = example::standard_invoice("A-1");
        compute_document(&mut doc).unwrap();
        // Only the export line's (Z) breakdown, as one breakdown travels.
        let z = doc.tax_total.subtotals()[2].clone();
        assert_eq!(z.tax_category.id, "Z");
        doc.tax_total.set_subtotals(vec![z]);
        assert!(doc.tax_total.tax_subtotal.is_some());
        assert_eq!(
            as_line_path("tax_total.tax_subtotal.tax_category.exemption_reason", &doc).as_deref(),
            Some("invoice_lines[2].item.classified_tax_category.exemption_reason")
        );
        assert_eq!(as_line_path("tax_total.tax_subtotal.taxable_amount", &doc), None);
    }
}

//! Field lengths (BR-KSA-F-06-Cnn) of the fields the API body carries, counted in characters.

use super::rules::*;
use super::support::{JsonPath, blank, chars, line_path, short, subtotals, val};
use super::{Finding, RuleInfo};
use crate::model::{Document, InvoiceType};
use crate::text::Trimmed;

/// A finding when `text` is longer than `max` characters.
fn too_long(out: &mut Vec<Finding>, rule: RuleInfo, path: impl Into<String>, text: &str, max: usize, what: &str) {
    // A text has no more characters than bytes: only a long one needs counting.
    if text.len() <= max {
        return;
    }
    let n = chars(text);
    if n > max {
        out.push(rule.at(
            path,
            val(&short(text, 60)),
            format!("The {what} has {n} characters; the limit is {max}. Shorten it."),
        ));
    }
}

/// A finding when `text` is empty.
fn empty(out: &mut Vec<Finding>, rule: RuleInfo, path: impl Into<String>, text: &str, what: &str) {
    if text.is_empty() {
        out.push(rule.at(path, val(text), format!("The {what} is missing; fill it in.")));
    }
}

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    let standard = doc.invoice_type == InvoiceType::Standard;
    too_long(
        out,
        BR_KSA_F_06_C1,
        doc.kind.number_key(),
        &doc.number,
        127,
        "document number",
    );
    if let Some(note) = &doc.note {
        too_long(out, BR_KSA_F_06_C2, "note", note, 1000, "note");
    }
    if let Some(n) = &doc.payment_means_instruction_note {
        too_long(
            out,
            BR_KSA_F_06_C13,
            "payment_means_instruction_note",
            n,
            1000,
            "payment note (reason)",
        );
    }
    if let Some(r) = &doc.billing_reference {
        too_long(out, BR_KSA_F_06_C22, "billing_reference", r, 5000, "billing reference");
    }

    let seller = &doc.supplier_info;
    let sa = &seller.address;
    empty(
        out,
        BR_KSA_F_06_C10,
        "supplier_info.registration_name",
        &seller.registration_name,
        "seller name",
    );
    too_long(
        out,
        BR_KSA_F_06_C10,
        "supplier_info.registration_name",
        &seller.registration_name,
        1000,
        "seller name",
    );
    too_long(
        out,
        BR_KSA_F_06_C4,
        "supplier_info.address.street_name",
        &sa.street_name,
        1000,
        "seller street",
    );
    too_long(
        out,
        BR_KSA_F_06_C7,
        "supplier_info.address.city_name",
        &sa.city_name,
        127,
        "seller city",
    );
    let sub = "supplier_info.address.country_subentity";
    too_long(out, BR_KSA_F_06_C8, sub, &sa.country_subentity, 127, "seller region");
    let district = "supplier_info.address.city_subdivision_name";
    too_long(
        out,
        BR_KSA_F_06_C9,
        district,
        &sa.city_subdivision_name,
        127,
        "seller district",
    );

    let buyer = &doc.customer_info;
    let ba = &buyer.address;
    let name = "customer_info.registration_name";
    if standard {
        too_long(out, BR_KSA_F_06_C12, name, &buyer.registration_name, 1000, "buyer name");
        empty(
            out,
            BR_KSA_F_06_C23,
            "customer_info.address.street_name",
            &ba.street_name,
            "buyer street",
        );
        too_long(
            out,
            BR_KSA_F_06_C23,
            "customer_info.address.street_name",
            &ba.street_name,
            1000,
            "buyer street",
        );
        empty(
            out,
            BR_KSA_F_06_C25,
            "customer_info.address.city_name",
            &ba.city_name,
            "buyer city",
        );
        if ba.country == "SA" {
            let path = "customer_info.address.city_subdivision_name";
            empty(out, BR_KSA_F_06_C28, path, &ba.city_subdivision_name, "buyer district");
        }
    }
    too_long(out, BR_KSA_F_06_C32, name, &buyer.registration_name, 1000, "buyer name");
    too_long(
        out,
        BR_KSA_F_06_C24,
        "customer_info.address.street_name",
        &ba.street_name,
        1000,
        "buyer street",
    );
    too_long(
        out,
        BR_KSA_F_06_C26,
        "customer_info.address.city_name",
        &ba.city_name,
        127,
        "buyer city",
    );
    let sub = "customer_info.address.country_subentity";
    too_long(out, BR_KSA_F_06_C27, sub, &ba.country_subentity, 127, "buyer region");
    if ba.country == "SA" {
        let path = "customer_info.address.city_subdivision_name";
        too_long(
            out,
            BR_KSA_F_06_C29,
            path,
            &ba.city_subdivision_name,
            127,
            "buyer district",
        );
    }

    for (i, ac) in doc.allowance_charge.0.iter().enumerate() {
        let (rule, what) = if ac.charge_indicator {
            (BR_KSA_F_06_C33, "charge reason")
        } else {
            (BR_KSA_F_06_C35, "discount reason")
        };
        too_long(out, rule, JsonPath::allowance(doc, i, "reason"), &ac.reason, 1000, what);
    }

    for (path, s) in subtotals(doc) {
        let cat = s.tax_category.id.trimmed();
        if matches!(cat, "Z" | "E" | "O") {
            let reason = s.tax_category.exemption_reason.as_deref().unwrap_or("");
            let path = path.field("tax_category.exemption_reason");
            if reason.is_empty() {
                out.push(BR_KSA_F_06_C16.at(
                    path,
                    None,
                    format!(
                        "The {cat} breakdown has no exemption reason text; give the reason (1 to 1000 characters)."
                    ),
                ));
            } else {
                too_long(out, BR_KSA_F_06_C16, path, reason, 1000, "exemption reason");
            }
        }
    }

    for (i, line) in doc.invoice_lines.iter().enumerate() {
        // 1 to 6 bytes are 1 to 6 characters: only other lengths need counting.
        let n = if (1..=6).contains(&line.id.len()) {
            line.id.len()
        } else {
            chars(&line.id)
        };
        if n == 0 || n > 6 {
            out.push(BR_KSA_F_06_C17.at(
                line_path(i, "id"),
                val(&line.id),
                format!(
                    "The line id {:?} must have 1 to 6 characters; number the lines 1, 2, 3, ...",
                    short(&line.id, 20)
                ),
            ));
        }
        too_long(
            out,
            BR_KSA_F_06_C18,
            JsonPath::line(i, "unit_code"),
            &line.unit_code,
            127,
            "unit code",
        );
        too_long(
            out,
            BR_KSA_F_06_C21,
            JsonPath::line(i, "price.base_unit_code"),
            &line.price.base_unit_code,
            127,
            "base unit code",
        );
        let item = &line.item.name;
        let len = chars(item);
        if !blank(item) && !(3..=1000).contains(&len) {
            out.push(BR_KSA_F_06_C19.at(
                line_path(i, "item.name"),
                val(&short(item, 60)),
                format!("The item name has {len} characters; it must have 3 to 1000. Describe the item clearly."),
            ));
        }
        for (j, ac) in line.allowance_charges.iter().enumerate() {
            let (rule, what) = if ac.charge_indicator {
                (BR_KSA_F_06_C34, "line charge reason")
            } else {
                (BR_KSA_F_06_C36, "line discount reason")
            };
            too_long(
                out,
                rule,
                line_path(i, &format!("allowance_charges[{j}].reason")),
                &ac.reason,
                1000,
                what,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::rule_test;
    use crate::model::LineAllowanceCharge;
    use rust_decimal_macros::dec;

    fn text(n: usize) -> String {
        "ب".repeat(n)
    }

    fn line_charge(charge: bool, reason: String) -> LineAllowanceCharge {
        LineAllowanceCharge {
            charge_indicator: charge,
            reason,
            reason_code: Some(if charge { "FC" } else { "95" }.into()),
            amount: dec!(1),
        }
    }

    fn reason_text(d: &mut crate::model::Document, reason: String) {
        if let Some(s) = d.tax_total.tax_subtotals.as_mut() {
            s[2].tax_category.exemption_reason = Some(reason);
        }
    }

    rule_test!(c1_number, "BR-KSA-F-06-C1", Warning, standard(),
        pass: |d| d.number = text(127), fail: |d| d.number = text(128), path: "invoice_number");
    rule_test!(c2_note, "BR-KSA-F-06-C2", Warning, standard(),
        pass: |d| d.note = Some(text(1000)), fail: |d| d.note = Some(text(1001)));
    rule_test!(c4_seller_street, "BR-KSA-F-06-C4", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.street_name = text(1000),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.street_name = text(1001));
    rule_test!(c7_seller_city, "BR-KSA-F-06-C7", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.city_name = text(127),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.city_name = text(128));
    rule_test!(c8_seller_region, "BR-KSA-F-06-C8", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.country_subentity = text(127),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.country_subentity = text(128));
    rule_test!(c9_seller_district, "BR-KSA-F-06-C9", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.city_subdivision_name = text(127),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.city_subdivision_name = text(128));
    rule_test!(c10_seller_name, "BR-KSA-F-06-C10", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).registration_name = text(1000),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).registration_name = String::new());
    rule_test!(c12_buyer_name_standard, "BR-KSA-F-06-C12", Warning, standard(),
        pass: |d| d.customer_info.registration_name = text(1000),
        fail: |d| d.customer_info.registration_name = text(1001));
    rule_test!(c32_buyer_name, "BR-KSA-F-06-C32", Warning, simplified(),
        pass: |d| d.customer_info.registration_name = text(1000),
        fail: |d| d.customer_info.registration_name = text(1001));
    rule_test!(c13_reason, "BR-KSA-F-06-C13", Warning, credit(),
        pass: |d| d.payment_means_instruction_note = Some(text(1000)),
        fail: |d| d.payment_means_instruction_note = Some(text(1001)));
    rule_test!(c16_exemption_reason_text, "BR-KSA-F-06-C16", Warning, standard(),
        pass: |d| reason_text(d, text(1000)),
        fail: |d| reason_text(d, text(1001)),
        path: "tax_total.tax_subtotals[2].tax_category.exemption_reason");
    rule_test!(c17_line_id, "BR-KSA-F-06-C17", Error, standard(),
        pass: |d| d.invoice_lines[0].id = "123456".into(), fail: |d| d.invoice_lines[2].id = "1234567".into(),
        path: "invoice_lines[2].id");
    rule_test!(c17_empty_line_id, "BR-KSA-F-06-C17", Error, standard(),
        pass: |d| d.invoice_lines[0].id = "A".into(), fail: |d| d.invoice_lines[0].id = String::new());
    rule_test!(c18_unit_code, "BR-KSA-F-06-C18", Warning, standard(),
        pass: |d| d.invoice_lines[0].unit_code = text(127).into(), fail: |d| d.invoice_lines[0].unit_code = text(128).into());
    rule_test!(c19_item_name, "BR-KSA-F-06-C19", Warning, standard(),
        pass: |d| d.invoice_lines[0].item.name = "قلم".into(), fail: |d| d.invoice_lines[0].item.name = "قل".into(),
        path: "invoice_lines[0].item.name");
    rule_test!(c19_item_name_too_long, "BR-KSA-F-06-C19", Warning, standard(),
        pass: |d| d.invoice_lines[0].item.name = text(1000), fail: |d| d.invoice_lines[0].item.name = text(1001));
    rule_test!(c21_base_unit_code, "BR-KSA-F-06-C21", Warning, standard(),
        pass: |d| d.invoice_lines[0].price.base_unit_code = text(127).into(),
        fail: |d| d.invoice_lines[0].price.base_unit_code = text(128).into());
    rule_test!(c22_billing_reference, "BR-KSA-F-06-C22", Error, credit(),
        pass: |d| d.billing_reference = Some(text(5000)), fail: |d| d.billing_reference = Some(text(5001)));
    rule_test!(c23_buyer_street, "BR-KSA-F-06-C23", Warning, standard(),
        pass: |d| d.customer_info.address.street_name = text(1000),
        fail: |d| d.customer_info.address.street_name = String::new());
    rule_test!(c24_buyer_street, "BR-KSA-F-06-C24", Warning, simplified(),
        pass: |d| d.customer_info.address.street_name = text(1000),
        fail: |d| d.customer_info.address.street_name = text(1001));
    rule_test!(c25_buyer_city, "BR-KSA-F-06-C25", Warning, standard(),
        pass: |d| d.customer_info.address.city_name = "X".into(),
        fail: |d| d.customer_info.address.city_name = String::new());
    rule_test!(c26_buyer_city, "BR-KSA-F-06-C26", Warning, simplified(),
        pass: |d| d.customer_info.address.city_name = text(127),
        fail: |d| d.customer_info.address.city_name = text(128));
    rule_test!(c27_buyer_region, "BR-KSA-F-06-C27", Warning, standard(),
        pass: |d| d.customer_info.address.country_subentity = text(127),
        fail: |d| d.customer_info.address.country_subentity = text(128));
    rule_test!(c28_saudi_buyer_district, "BR-KSA-F-06-C28", Warning, standard(),
        pass: |d| { d.customer_info.address.country = "AE".into(); d.customer_info.address.city_subdivision_name = String::new() },
        fail: |d| d.customer_info.address.city_subdivision_name = String::new());
    rule_test!(c29_saudi_buyer_district, "BR-KSA-F-06-C29", Warning, standard(),
        pass: |d| d.customer_info.address.city_subdivision_name = text(127),
        fail: |d| d.customer_info.address.city_subdivision_name = text(128));
    rule_test!(c33_charge_reason, "BR-KSA-F-06-C33", Warning, standard(),
        pass: |d| { d.allowance_charge.0[0].charge_indicator = true; d.allowance_charge.0[0].reason = text(1000) },
        fail: |d| { d.allowance_charge.0[0].charge_indicator = true; d.allowance_charge.0[0].reason = text(1001) },
        path: "allowance_charge.reason");
    rule_test!(c35_discount_reason, "BR-KSA-F-06-C35", Warning, standard(),
        pass: |d| d.allowance_charge.0[0].reason = text(1000), fail: |d| d.allowance_charge.0[0].reason = text(1001));
    rule_test!(c34_line_charge_reason, "BR-KSA-F-06-C34", Warning, standard(),
        pass: |d| d.invoice_lines[0].allowance_charges.push(line_charge(true, text(1000))),
        fail: |d| d.invoice_lines[0].allowance_charges.push(line_charge(true, text(1001))),
        path: "invoice_lines[0].allowance_charges[0].reason");
    rule_test!(c36_line_discount_reason, "BR-KSA-F-06-C36", Warning, standard(),
        pass: |d| d.invoice_lines[0].allowance_charges.push(line_charge(false, text(1000))),
        fail: |d| d.invoice_lines[0].allowance_charges.push(line_charge(false, text(1001))));
}

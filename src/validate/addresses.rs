//! Addresses: the seller's full national address, a standard document's buyer address, Saudi
//! building numbers and postal codes, country codes.

use super::Finding;
use super::codes;
use super::rules::*;
use super::support::{blank, digits, val};
use crate::model::{Address, Document, InvoiceType};
use crate::text::Trimmed;

/// The fields of `wanted` that are blank, by JSON name.
fn missing<'a>(a: &'a Address, wanted: &[&'a str]) -> Vec<&'a str> {
    wanted
        .iter()
        .copied()
        .filter(|f| {
            let v = match *f {
                "street_name" => &a.street_name,
                "building_number" => &a.building_number,
                "city_subdivision_name" => &a.city_subdivision_name,
                "city_name" => &a.city_name,
                "postal_zone" => &a.postal_zone,
                _ => &a.country,
            };
            blank(v)
        })
        .collect()
}

fn words(fields: &[&str]) -> String {
    fields
        .iter()
        .map(|f| match *f {
            "street_name" => "street",
            "building_number" => "building number",
            "city_subdivision_name" => "district",
            "city_name" => "city",
            "postal_zone" => "postal code",
            _ => "country",
        })
        .collect::<Vec<_>>()
        .join(", ")
}

const FULL: [&str; 6] = [
    "street_name",
    "building_number",
    "postal_zone",
    "city_name",
    "city_subdivision_name",
    "country",
];

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    let s = &doc.supplier_info.address;
    let gaps = missing(s, &FULL);
    if let Some(first) = gaps.first() {
        out.push(BR_KSA_09.at(
            format!("supplier_info.address.{first}"),
            None,
            format!(
                "The seller address lacks: {}. Complete the national address in the seller profile.",
                words(&gaps)
            ),
        ));
    }
    if !digits(&s.building_number, 4) {
        out.push(BR_KSA_37.at(
            "supplier_info.address.building_number",
            val(&s.building_number),
            "The seller building number must be exactly 4 digits (national address); fix the seller profile.",
        ));
    }
    if !digits(&s.postal_zone, 5) {
        out.push(BR_KSA_66.at(
            "supplier_info.address.postal_zone",
            val(&s.postal_zone),
            "The seller postal code must be exactly 5 digits; fix the seller profile.",
        ));
    }
    if blank(&s.country) {
        out.push(BR_09.at(
            "supplier_info.address.country",
            val(&s.country),
            "The seller country is missing; set it to SA in the seller profile.",
        ));
    }
    for (who, a) in [("supplier_info", s), ("customer_info", &doc.customer_info.address)] {
        let c = a.country.trimmed();
        if !c.is_empty() && !codes::is_country(c) {
            out.push(BR_CL_14.at(
                format!("{who}.address.country"),
                val(&a.country),
                format!("The country {c:?} is not a two-letter ISO code; use codes such as SA, AE or US."),
            ));
        }
    }
    if doc.invoice_type == InvoiceType::Standard {
        buyer(doc, out);
    }
}

fn buyer(doc: &Document, out: &mut Vec<Finding>) {
    let b = &doc.customer_info.address;
    let gaps = missing(b, &["street_name", "city_name", "country"]);
    if let Some(first) = gaps.first() {
        out.push(BR_KSA_10.at(
            format!("customer_info.address.{first}"),
            None,
            format!(
                "The buyer address of a standard {} lacks: {}. Complete the customer's address.",
                doc.kind.label(),
                words(&gaps)
            ),
        ));
    }
    if b.country != "SA" {
        return;
    }
    let gaps = missing(b, &FULL);
    if let Some(first) = gaps.first() {
        out.push(BR_KSA_63.at(
            format!("customer_info.address.{first}"),
            None,
            format!(
                "A Saudi buyer needs a full national address; it lacks: {}. Complete the customer's address.",
                words(&gaps)
            ),
        ));
    }
    if !digits(&b.postal_zone, 5) {
        out.push(BR_KSA_67.at(
            "customer_info.address.postal_zone",
            val(&b.postal_zone),
            "A Saudi buyer's postal code must be exactly 5 digits; correct the customer's address.",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{rule_test, *};

    rule_test!(br_ksa_09_seller_address, "BR-KSA-09", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.country_subentity = String::new(),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.city_subdivision_name = String::new(),
        path: "supplier_info.address.city_subdivision_name");
    rule_test!(br_ksa_37_building_number, "BR-KSA-37", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.building_number = "0001".into(),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.building_number = "12".into());
    rule_test!(br_ksa_66_seller_postal_code, "BR-KSA-66", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.postal_zone = "00000".into(),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.postal_zone = "1234a".into());
    rule_test!(br_09_seller_country, "BR-09", Warning, standard(),
        pass: |_| {}, fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).address.country = String::new());
    rule_test!(br_cl_14_country_code, "BR-CL-14", Warning, standard(),
        pass: |d| d.customer_info.address.country = "AE".into(),
        fail: |d| d.customer_info.address.country = "KSA".into(), path: "customer_info.address.country");
    rule_test!(br_ksa_10_buyer_address, "BR-KSA-10", Warning, standard(),
        pass: |d| { d.customer_info.address = Default::default(); d.customer_info.address.street_name = "Main St".into();
                    d.customer_info.address.city_name = "Dubai".into(); d.customer_info.address.country = "AE".into() },
        fail: |d| d.customer_info.address.city_name = String::new(), path: "customer_info.address.city_name");
    rule_test!(br_ksa_63_saudi_buyer_address, "BR-KSA-63", Warning, standard(),
        pass: |d| d.customer_info.address.plot_identification = String::new(),
        fail: |d| d.customer_info.address.building_number = String::new());
    rule_test!(br_ksa_67_saudi_buyer_postal_code, "BR-KSA-67", Warning, credit(),
        pass: |d| { d.customer_info.address.country = "AE".into(); d.customer_info.address.postal_zone = "1".into() },
        fail: |d| d.customer_info.address.postal_zone = "1222".into());

    #[test]
    fn simplified_buyer_addresses_are_free() {
        let mut d = simplified();
        d.customer_info.address.country = "SA".into();
        d.customer_info.address.postal_zone = "1".into();
        let f = check(&d);
        assert!(f.is_empty(), "{f:?}");
    }
}

//! Seller and buyer: VAT numbers, other IDs and their schemes, names, and what exemptions for
//! private education and healthcare (VATEX-SA-EDU, VATEX-SA-HEA) require of the buyer.

use super::codes::{BUYER_SCHEMES, SELLER_SCHEMES};
use super::rules::*;
use super::support::{ascii_digits, blank, subtotals, val};
use super::{Finding, RuleInfo};
use crate::model::{Document, InvoiceType, Party};
use crate::text::Trimmed;

/// `^3[0-9]{13}3$`.
fn vat_shape(v: &str) -> bool {
    v.len() == 15 && ascii_digits(v) && v.starts_with('3') && v.ends_with('3')
}

pub(super) fn check(doc: &Document, out: &mut Vec<Finding>) {
    seller_vat(doc, out);
    buyer_vat(doc, out);
    other_id(&doc.supplier_info, "supplier_info", true, out);
    other_id(&doc.customer_info, "customer_info", false, out);
    names(doc, out);
    edu_hea(doc, out);
}

fn seller_vat(doc: &Document, out: &mut Vec<Finding>) {
    let seller = &doc.supplier_info;
    let vat = seller.vat_number.as_deref().unwrap_or("");
    if vat.is_empty() {
        out.push(BR_KSA_39.at(
            "supplier_info.vat_number",
            seller.vat_number.clone(),
            "The seller VAT number is missing; fill in the 15-digit VAT number in the seller profile.",
        ));
    } else if seller.tax_type.trimmed() != "VAT" {
        out.push(BR_KSA_39.at(
            "supplier_info.tax_type",
            val(&seller.tax_type),
            "The seller's tax type must be VAT; fix the seller profile.",
        ));
    }
    if !vat.is_empty() && !vat_shape(vat) {
        out.push(BR_KSA_40.at(
            "supplier_info.vat_number",
            val(vat),
            "The seller VAT number must be 15 digits starting and ending with 3; fix the seller profile.",
        ));
    }
}

fn buyer_vat(doc: &Document, out: &mut Vec<Finding>) {
    let Some(vat) = doc.customer_info.vat_number.as_deref() else {
        return;
    };
    if blank(vat) {
        out.push(BR_KSA_99.at(
            "customer_info.vat_number",
            val(vat),
            "The buyer VAT number is empty; fill it in, or leave the field out for a buyer without VAT registration.",
        ));
        return;
    }
    if !vat_shape(vat) {
        out.push(BR_KSA_44.at(
            "customer_info.vat_number",
            val(vat),
            "The buyer VAT number must be 15 digits starting and ending with 3; correct it where it comes from (the \
             column or customer table named here), or leave it empty for a buyer without VAT registration.",
        ));
    }
    let seller = doc.supplier_info.vat_number.as_deref().unwrap_or("");
    if !seller.is_empty() && vat == seller {
        out.push(BR_CUSTOM_VALIDATION_01.at(
            "customer_info.vat_number",
            val(vat),
            "The buyer VAT number is the seller's own; check the customer record.",
        ));
    }
}

/// The sequences BR-KSA-F-13 treats as made-up IDs ([`made_up`] finds them in one pass).
#[cfg(test)]
const MADE_UP: [&str; 16] = [
    "01234567", "12345678", "23456789", "76543210", "87654321", "98765432", "00000000", "11111111", "22222222",
    "33333333", "44444444", "55555555", "66666666", "77777777", "88888888", "99999999",
];

/// True when the digits hold a made-up run (BR-KSA-F-13): 8 equal digits, or 8 digits each one
/// more, or each one less, than the one before (01234567 ... 98765432, 00000000 ... 99999999).
fn made_up(digits: &str) -> bool {
    let (mut same, mut up, mut down) = (1, 1, 1);
    for w in digits.as_bytes().windows(2) {
        let step = i16::from(w[1]) - i16::from(w[0]);
        same = if step == 0 { same + 1 } else { 1 };
        up = if step == 1 { up + 1 } else { 1 };
        down = if step == -1 { down + 1 } else { 1 };
        if same >= 8 || up >= 8 || down >= 8 {
            return true;
        }
    }
    false
}

/// Format rules of an ID under a scheme (BR-KSA-F-07..F-11): the rule and what the ID must be.
fn id_format(scheme: &str, seller: bool) -> Option<(RuleInfo, char, &'static str)> {
    match (scheme, seller) {
        ("CRN", _) => Some((BR_KSA_F_08, ' ', "a commercial registration number (CRN) is 10 digits")),
        ("700", _) => Some((BR_KSA_F_09, '7', "a 700 number is 10 digits starting with 7")),
        ("TIN", false) => Some((
            BR_KSA_F_07,
            '3',
            "a tax identification number (TIN) is 10 digits starting with 3",
        )),
        ("NAT", false) => Some((BR_KSA_F_10, '1', "a national ID (NAT) is 10 digits starting with 1")),
        ("IQA", false) => Some((BR_KSA_F_11, '2', "an iqama number (IQA) is 10 digits starting with 2")),
        _ => None,
    }
}

fn other_id(party: &Party, prefix: &str, seller: bool, out: &mut Vec<Finding>) {
    let Some(pi) = &party.party_identification else {
        return;
    };
    if pi.id.is_empty() && pi.scheme.is_empty() {
        return;
    }
    let who = if seller { "seller" } else { "buyer" };
    let scheme_path = || format!("{prefix}.party_identification.scheme");
    let id_path = || format!("{prefix}.party_identification.id");
    let (list, rule): (&[&str], RuleInfo) = if seller {
        (&SELLER_SCHEMES, BR_KSA_08)
    } else {
        (&BUYER_SCHEMES, BR_KSA_14)
    };
    let scheme = pi.scheme.trimmed();
    let id = pi.id.trimmed();
    if !list.contains(&scheme) {
        out.push(rule.at(
            scheme_path(),
            val(&pi.scheme),
            format!(
                "The {who} ID scheme {:?} is not allowed; use one of {} (in capitals).",
                pi.scheme,
                list.join(", ")
            ),
        ));
    } else if !pi.id.chars().all(|c| c.is_ascii_alphanumeric()) {
        out.push(rule.at(
            id_path(),
            val(&pi.id),
            format!(
                "The {who} {scheme} number may contain only letters and digits; remove spaces, dashes and other signs."
            ),
        ));
    }
    let upper = scheme.to_ascii_uppercase();
    if pi.scheme != scheme && list.contains(&upper.as_str()) {
        out.push(BR_KSA_F_12.at(
            scheme_path(),
            val(&pi.scheme),
            format!("The {who} ID scheme {:?} has spaces around it; remove them.", pi.scheme),
        ));
    }
    if let Some((rule, first, what)) = id_format(scheme, seller) {
        let ok = id.len() == 10 && ascii_digits(id) && (first == ' ' || id.starts_with(first));
        if !ok {
            out.push(rule.at(
                id_path(),
                val(&pi.id),
                format!(
                    "The {who} ID {:?} does not look right: {what}. Check the number.",
                    pi.id
                ),
            ));
        }
    }
    if list.contains(&upper.as_str()) && ascii_digits(id) && made_up(id) {
        out.push(BR_KSA_F_13.at(
            id_path(),
            val(&pi.id),
            format!(
                "The {who} ID {:?} looks made up (a run of repeated or consecutive digits); enter the real number.",
                pi.id
            ),
        ));
    }
}

fn names(doc: &Document, out: &mut Vec<Finding>) {
    if blank(&doc.supplier_info.registration_name) {
        out.push(BR_06.at(
            "supplier_info.registration_name",
            val(&doc.supplier_info.registration_name),
            "The seller name is missing; fill in the legal name in the seller profile.",
        ));
    }
    if doc.invoice_type != InvoiceType::Standard {
        return;
    }
    let buyer = &doc.customer_info;
    if buyer.registration_name.is_empty() {
        out.push(BR_KSA_42.at(
            "customer_info.registration_name",
            val(&buyer.registration_name),
            format!(
                "A standard {} must name the buyer; fill in the customer's legal name.",
                doc.kind.label()
            ),
        ));
    }
    let id_blank = buyer.party_identification.as_ref().is_none_or(|pi| blank(&pi.id));
    if buyer.vat_number.is_none() && id_blank {
        out.push(BR_KSA_81.at(
            "customer_info.party_identification",
            None,
            format!(
                "The buyer of a standard {} has no VAT number, so give another ID (commercial registration CRN, \
                 national ID NAT, iqama IQA, ...).",
                doc.kind.label()
            ),
        ));
    }
}

fn edu_hea(doc: &Document, out: &mut Vec<Finding>) {
    const EDU_HEA: [&str; 2] = ["VATEX-SA-EDU", "VATEX-SA-HEA"];
    let codes: Vec<&str> = subtotals(doc)
        .into_iter()
        .filter_map(|(_, s)| s.tax_category.exemption_reason_code.as_deref())
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let Some(first) = codes.iter().copied().find(|c| EDU_HEA.contains(c)) else {
        return;
    };
    let buyer = &doc.customer_info;
    let nat = buyer
        .party_identification
        .as_ref()
        .is_some_and(|pi| pi.scheme == "NAT" && !pi.id.is_empty());
    if !nat {
        out.push(BR_KSA_49.at(
            "customer_info.party_identification.scheme",
            buyer.party_identification.as_ref().map(|pi| pi.scheme.clone()),
            format!(
                "Exemption {first} (private education or healthcare for citizens) needs the buyer's national ID: \
                 set the buyer ID scheme to NAT and give the 10-digit national ID."
            ),
        ));
    }
    let all_edu_hea = codes.iter().all(|c| EDU_HEA.contains(c));
    if doc.invoice_type == InvoiceType::Simplified && all_edu_hea && buyer.registration_name.is_empty() {
        out.push(BR_KSA_25.at(
            "customer_info.registration_name",
            val(&buyer.registration_name),
            format!(
                "Exemption {first} needs the buyer's name, even on a simplified document; fill in the customer name."
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{rule_test, *};
    use crate::model::{Document, PartyIdentification, TaxCategory};
    use rust_decimal::Decimal;

    proptest::proptest! {
        /// The one-pass scan finds exactly the IDs that contain a listed sequence.
        #[test]
        fn made_up_finds_exactly_the_listed_runs(id in "[0-9]{0,12}", run in 0usize..16, at in 0usize..4) {
            proptest::prop_assert_eq!(super::made_up(&id), super::MADE_UP.iter().any(|m| id.contains(m)));
            let cut = at.min(id.len());
            let planted = format!("{}{}{}", &id[..cut], super::MADE_UP[run], &id[cut..]);
            proptest::prop_assert!(super::made_up(&planted));
        }
    }

    fn id(scheme: &str, id: &str) -> Option<PartyIdentification> {
        Some(PartyIdentification {
            scheme: scheme.into(),
            id: id.into(),
        })
    }

    /// A simplified invoice with one private-healthcare line (zero-rated, VATEX-SA-HEA).
    fn healthcare(buyer_id: Option<PartyIdentification>) -> Document {
        let mut d = simplified();
        d.allowance_charge.0.clear();
        d.invoice_lines.truncate(1);
        d.invoice_lines[0].item.classified_tax_category = TaxCategory {
            exemption_reason_code: Some("VATEX-SA-HEA".into()),
            exemption_reason: Some("Private healthcare to citizen".into()),
            ..TaxCategory::new("Z", Decimal::ZERO)
        };
        d.customer_info.party_identification = buyer_id;
        recompute(&mut d);
        d
    }

    rule_test!(br_ksa_39_seller_vat, "BR-KSA-39", Error, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).vat_number = Some("300000000000003".into()),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).vat_number = None, path: "supplier_info.vat_number");
    rule_test!(br_ksa_39_seller_tax_scheme, "BR-KSA-39", Error, standard(),
        pass: |_| {}, fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).tax_type = "GST".into(), path: "supplier_info.tax_type");
    rule_test!(br_ksa_40_seller_vat_shape, "BR-KSA-40", Error, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).vat_number = Some("312345678901233".into()),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).vat_number = Some("399999999900004".into()), path: "supplier_info.vat_number");
    rule_test!(br_ksa_44_buyer_vat_shape, "BR-KSA-44", Error, standard(),
        pass: |d| d.customer_info.vat_number = Some("310000000000003".into()),
        fail: |d| d.customer_info.vat_number = Some("31000000000003".into()), path: "customer_info.vat_number");
    rule_test!(br_ksa_99_buyer_vat_empty, "BR-KSA-99", Warning, standard(),
        pass: |d| { d.customer_info.vat_number = None; d.customer_info.party_identification = id("CRN", "1010101010") },
        fail: |d| d.customer_info.vat_number = Some(String::new()));
    rule_test!(br_custom_validation_01_same_vat, "BR-CUSTOM-VALIDATION-01", Error, standard(),
        pass: |_| {}, fail: |d| d.customer_info.vat_number = d.supplier_info.vat_number.clone());
    rule_test!(br_ksa_08_seller_scheme, "BR-KSA-08", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).party_identification = id("MLS", "A12b"),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).party_identification = id("NAT", "1010010000"),
        path: "supplier_info.party_identification.scheme");
    rule_test!(br_ksa_08_seller_id_characters, "BR-KSA-08", Warning, standard(),
        pass: |_| {}, fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).party_identification = id("OTH", "10-100"),
        path: "supplier_info.party_identification.id");
    rule_test!(br_ksa_14_buyer_scheme, "BR-KSA-14", Error, standard(),
        pass: |d| d.customer_info.party_identification = id("PAS", "X1234"),
        fail: |d| d.customer_info.party_identification = id("crn", "1010010001"));
    rule_test!(br_ksa_f_07_tin, "BR-KSA-F-07", Warning, standard(),
        pass: |d| d.customer_info.party_identification = id("TIN", "3101010101"),
        fail: |d| d.customer_info.party_identification = id("TIN", "1101010101"));
    rule_test!(br_ksa_f_08_crn, "BR-KSA-F-08", Warning, standard(),
        pass: |d| d.customer_info.party_identification = id("CRN", "4030201011"),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).party_identification = id("CRN", "101001000"),
        path: "supplier_info.party_identification.id");
    rule_test!(br_ksa_f_09_700, "BR-KSA-F-09", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).party_identification = id("700", "7001010101"),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).party_identification = id("700", "1001010101"));
    rule_test!(br_ksa_f_10_nat, "BR-KSA-F-10", Warning, standard(),
        pass: |d| d.customer_info.party_identification = id("NAT", "1010101019"),
        fail: |d| d.customer_info.party_identification = id("NAT", "2010101019"));
    rule_test!(br_ksa_f_11_iqa, "BR-KSA-F-11", Warning, standard(),
        pass: |d| d.customer_info.party_identification = id("IQA", "2010101019"),
        fail: |d| d.customer_info.party_identification = id("IQA", "201010101"));
    rule_test!(br_ksa_f_12_scheme_spaces, "BR-KSA-F-12", Warning, standard(),
        pass: |_| {}, fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).party_identification = id(" CRN", "1010010000"));
    rule_test!(br_ksa_f_13_made_up_id, "BR-KSA-F-13", Warning, standard(),
        pass: |d| d.customer_info.party_identification = id("NAT", "1098765431"),
        fail: |d| d.customer_info.party_identification = id("NAT", "1234567891"));
    rule_test!(br_06_seller_name, "BR-06", Warning, standard(),
        pass: |d| std::sync::Arc::make_mut(&mut d.supplier_info).registration_name = "X".into(),
        fail: |d| std::sync::Arc::make_mut(&mut d.supplier_info).registration_name = " ".into());
    rule_test!(br_ksa_42_buyer_name, "BR-KSA-42", Warning, standard(),
        pass: |d| d.customer_info.registration_name = "X".into(),
        fail: |d| d.customer_info.registration_name = String::new(), path: "customer_info.registration_name");
    rule_test!(br_ksa_81_buyer_other_id, "BR-KSA-81", Warning, credit(),
        pass: |d| { d.customer_info.vat_number = None; d.customer_info.party_identification = id("NAT", "1010101019") },
        fail: |d| d.customer_info.vat_number = None);
    rule_test!(br_ksa_49_edu_hea_needs_nat, "BR-KSA-49", Error, healthcare(id("NAT", "1010101019")),
        pass: |d| d.customer_info.party_identification = id("NAT", "1"),
        fail: |d| d.customer_info.party_identification = id("IQA", "2010101019"),
        path: "customer_info.party_identification.scheme");
    rule_test!(br_ksa_25_edu_hea_needs_buyer_name, "BR-KSA-25", Warning, healthcare(id("NAT", "1010101019")),
        pass: |d| d.customer_info.registration_name = "Patient".into(),
        fail: |d| d.customer_info.registration_name = String::new());

    #[test]
    fn simplified_buyers_need_no_name_nor_id() {
        let mut d = simplified();
        d.customer_info.registration_name = String::new();
        let f = check(&d);
        assert!(f.is_empty(), "{f:?}");
    }
}

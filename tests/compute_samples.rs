//! Agreement with the authority's own numbers: for every SDK sample whose name does not end in
//! `-error`, the amounts `compute` derives from the sample's lines equal those in its XML.

mod support;

use invoicedrop::compute::compute_document;
use invoicedrop::model::{self, AllowanceCharge, AllowanceCharges, Document, TaxCategory};
use rust_decimal::Decimal;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use support::xml::Node;

fn shared_dir() -> PathBuf {
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let candidate = dir.join("shared");
        if candidate.join("reference").is_dir() {
            return candidate;
        }
        let sibling = dir.join("../shared");
        if sibling.join("reference").is_dir() {
            return sibling;
        }
        assert!(
            dir.pop(),
            "the shared/ folder (with reference/zatca-sdk) was not found above the crate"
        );
    }
}

fn samples() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("samples folder") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "xml")
                && !p.file_stem().is_some_and(|s| s.to_string_lossy().ends_with("-error"))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&shared_dir().join("reference/zatca-sdk/samples"), &mut out);
    out.sort();
    out
}

fn dec(text: &str) -> Decimal {
    Decimal::from_str(text.trim()).unwrap_or_else(|_| panic!("not a decimal: {text:?}"))
}

fn category(n: &Node) -> TaxCategory {
    TaxCategory {
        exemption_reason_code: n.text_at("cbc:TaxExemptionReasonCode").map(Into::into),
        exemption_reason: n.text_at("cbc:TaxExemptionReason"),
        ..TaxCategory::new(
            &n.text_at("cbc:ID").expect("category id"),
            n.text_at("cbc:Percent").map(|p| dec(&p)).unwrap_or_default(),
        )
    }
}

/// Rebuild the API document from the sample's inputs: quantities, net prices, categories,
/// document discounts and charges, prepaid and rounding amounts. Totals are left at zero.
fn document_from_sample(root: &Node, erp_gross: bool) -> Document {
    let mut doc = model::example::standard_invoice("sample");
    doc.doc_currency_code = root.text_at("cbc:DocumentCurrencyCode").expect("currency").into();
    doc.tax_currency_code = "SAR".into();
    // USD is pegged at 3.75 SAR; the SDK's USD sample's SAR tax total uses that rate.
    doc.tax_exchange_rate = (doc.doc_currency_code == "USD").then(|| dec("3.75"));
    doc.allowance_charge = AllowanceCharges(
        root.all("cac:AllowanceCharge")
            .map(|ac| AllowanceCharge {
                charge_indicator: ac.text_at("cbc:ChargeIndicator").as_deref() == Some("true"),
                reason: ac.text_at("cbc:AllowanceChargeReason").unwrap_or_default(),
                reason_code: ac.text_at("cbc:AllowanceChargeReasonCode"),
                amount: dec(&ac.text_at("cbc:Amount").expect("amount")),
                base_amount: None,
                multiplier_factor: None,
                currency: Default::default(),
                tax_category: category(ac.at("cac:TaxCategory").expect("allowance category")),
            })
            .collect(),
    );
    let lmt = root.at("cac:LegalMonetaryTotal").expect("totals");
    doc.legal_monitory_total.prepaid_amount = lmt.text_at("cbc:PrepaidAmount").map(|t| dec(&t));
    doc.legal_monitory_total.payable_rounding_amount = lmt.text_at("cbc:PayableRoundingAmount").map(|t| dec(&t));
    doc.invoice_lines = root
        .all("cac:InvoiceLine")
        .enumerate()
        .map(|(i, l)| {
            let mut line = model::example::line(
                i + 1,
                &l.text_at("cac:Item/cbc:Name").unwrap_or_default(),
                dec(&l.text_at("cbc:InvoicedQuantity").expect("quantity")),
                dec(&l.text_at("cac:Price/cbc:PriceAmount").expect("price")),
                category(l.at("cac:Item/cac:ClassifiedTaxCategory").expect("line category")),
            );
            line.price.base_quantity = l.text_at("cac:Price/cbc:BaseQuantity").map(|t| dec(&t));
            // The ERP's gross line total is an input for tax-inclusive prices; compute keeps it only
            // when it is within a cent of net + VAT at the rate, so feeding it for every line is safe.
            if erp_gross {
                line.inclusive_amount = l.text_at("cac:TaxTotal/cbc:RoundingAmount").map(|t| dec(&t));
            }
            line.allowance_charges = l
                .all("cac:AllowanceCharge")
                .map(|ac| model::LineAllowanceCharge {
                    charge_indicator: ac.text_at("cbc:ChargeIndicator").as_deref() == Some("true"),
                    reason: String::new(),
                    reason_code: None,
                    amount: dec(&ac.text_at("cbc:Amount").expect("amount")),
                })
                .collect();
            line
        })
        .collect();
    doc
}

fn subtotal_total(root: &Node) -> &Node {
    root.all("cac:TaxTotal")
        .find(|t| t.at("cac:TaxSubtotal").is_some())
        .expect("TaxTotal with subtotals")
}

/// What compute makes of each sample's lines against the sample's own amounts: one text per
/// amount that differs. `erp_gross`: the line totals with VAT are given, as an ERP with
/// tax-inclusive prices gives them.
fn mismatches(files: &[PathBuf], erp_gross: bool) -> Vec<String> {
    let mut mismatches = Vec::new();
    for file in files {
        let name = file.file_name().expect("name").to_string_lossy().into_owned();
        let xml = std::fs::read_to_string(file).expect("sample readable");
        let root = Node::parse(&xml);
        let mut doc = document_from_sample(&root, erp_gross);
        compute_document(&mut doc).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut check = |what: String, ours: Decimal, theirs: Option<String>| {
            if let Some(t) = theirs
                && ours != dec(&t)
            {
                mismatches.push(format!("{name}: {what}: computed {ours}, sample {t}"));
            }
        };
        for (i, (line, xl)) in doc.invoice_lines.iter().zip(root.all("cac:InvoiceLine")).enumerate() {
            check(
                format!("line {i} net"),
                line.amount,
                xl.text_at("cbc:LineExtensionAmount"),
            );
            check(
                format!("line {i} VAT"),
                line.tax_total.tax_amount,
                xl.text_at("cac:TaxTotal/cbc:TaxAmount"),
            );
            check(
                format!("line {i} with VAT"),
                line.tax_total.rounding_amount,
                xl.text_at("cac:TaxTotal/cbc:RoundingAmount"),
            );
        }
        let lmt = root.at("cac:LegalMonetaryTotal").expect("totals");
        let t = &doc.legal_monitory_total;
        check("BT-106".into(), t.total_amount, lmt.text_at("cbc:LineExtensionAmount"));
        check(
            "BT-107".into(),
            t.allowance_total_amount.unwrap_or_default(),
            lmt.text_at("cbc:AllowanceTotalAmount"),
        );
        check(
            "BT-108".into(),
            t.charge_total_amount.unwrap_or_default(),
            lmt.text_at("cbc:ChargeTotalAmount"),
        );
        check(
            "BT-109".into(),
            t.tax_exclusive_amount,
            lmt.text_at("cbc:TaxExclusiveAmount"),
        );
        check(
            "BT-112".into(),
            t.tax_inclusive_amount,
            lmt.text_at("cbc:TaxInclusiveAmount"),
        );
        check("BT-115".into(), t.payable_amount, lmt.text_at("cbc:PayableAmount"));
        let tt = subtotal_total(&root);
        check("BT-110".into(), doc.tax_total.tax_amount, tt.text_at("cbc:TaxAmount"));
        let theirs: Vec<&Node> = tt.all("cac:TaxSubtotal").collect();
        let ours = doc.tax_total.subtotals();
        if ours.len() != theirs.len() {
            check(
                format!("number of breakdowns ({} vs {})", ours.len(), theirs.len()),
                Decimal::ONE,
                Some("0".into()),
            );
        }
        for (s, x) in ours.iter().zip(theirs) {
            let cat = &s.tax_category.id;
            check(
                format!("BT-116 {cat}"),
                s.taxable_amount,
                x.text_at("cbc:TaxableAmount"),
            );
            check(format!("BT-117 {cat}"), s.tax_amount, x.text_at("cbc:TaxAmount"));
        }
        if doc.doc_currency_code != "SAR" {
            let sar = root
                .all("cac:TaxTotal")
                .find(|t| t.at("cac:TaxSubtotal").is_none())
                .expect("SAR TaxTotal");
            check(
                "BT-111".into(),
                doc.tax_total.tax_amount_in_tax_currency.unwrap_or_default(),
                sar.text_at("cbc:TaxAmount"),
            );
        }
    }
    mismatches
}

/// The one sample whose line is priced tax-inclusive: its line total with VAT (1,000.00) is a
/// given, and the VAT is what is left (130.43, not 15 % of 869.57 = 130.44).
const TAX_INCLUSIVE_SAMPLE: &str = "standard-invoice-with-payable-rounding-adjustment.xml";

/// Every amount computed from quantities, prices, discounts and rates alone, nothing taken from
/// the sample's totals (except for the tax-inclusive sample, which is checked below).
#[test]
fn compute_agrees_with_every_valid_sdk_sample() {
    let files = samples();
    assert!(files.len() >= 15, "expected the SDK samples, found {}", files.len());
    let (inclusive, files): (Vec<PathBuf>, Vec<PathBuf>) =
        files.into_iter().partition(|f| f.ends_with(TAX_INCLUSIVE_SAMPLE));
    assert_eq!(inclusive.len(), 1, "the tax-inclusive sample {TAX_INCLUSIVE_SAMPLE}");
    let found = mismatches(&files, false);
    assert!(
        found.is_empty(),
        "compute disagrees with the authority's samples:\n{}",
        found.join("\n")
    );
}

/// The same with the line totals with VAT given (tax-inclusive prices): kept, and the same
/// amounts come out.
#[test]
fn compute_agrees_with_every_valid_sdk_sample_given_the_line_totals_with_vat() {
    let found = mismatches(&samples(), true);
    assert!(
        found.is_empty(),
        "compute disagrees with the authority's samples:\n{}",
        found.join("\n")
    );
}

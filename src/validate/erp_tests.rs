//! The export's own figures against the computed ones (`INV-ERP-*`).

use super::super::testkit::*;
use super::super::{Context, ErpFigures, Severity, validate};
use rust_decimal_macros::dec;

fn with(erp: ErpFigures) -> Context {
    Context {
        erp: Some(erp),
        ..ctx()
    }
}

/// What the standard invoice's export says when it agrees with compute.
fn agreeing() -> ErpFigures {
    ErpFigures {
        line_net: vec![Some(dec!(109.89)), Some(dec!(115.00)), None],
        line_vat: vec![Some(dec!(16.48)), Some(dec!(5.75)), Some(dec!(0))],
        line_gross: vec![Some(dec!(126.37)), None, Some(dec!(120))],
        tax_exclusive: Some(dec!(334.89)),
        tax_total: Some(dec!(20.73)),
        tax_inclusive: Some(dec!(355.62)),
        document_discount: false,
    }
}

fn run(change: impl FnOnce(&mut ErpFigures)) -> Vec<super::Finding> {
    let mut e = agreeing();
    change(&mut e);
    validate(&standard(), &with(e))
}

#[test]
fn agreeing_figures_and_a_cent_of_difference_pass() {
    assert!(run(|_| {}).is_empty(), "{:?}", run(|_| {}));
    let f = run(|e| {
        e.line_net[0] = Some(dec!(109.90));
        e.tax_total = Some(dec!(20.72));
        e.line_vat.truncate(1);
    });
    assert!(f.is_empty(), "{f:?}");
    assert!(validate(&standard(), &ctx()).is_empty());
}

#[test]
fn inv_erp_line_net() {
    let f = run(|e| e.line_net[0] = Some(dec!(126.37)));
    let x = assert_has(&f, "INV-ERP-LINE-NET", Severity::Error);
    assert_eq!(
        (x.path.as_str(), x.value.as_deref()),
        ("invoice_lines[0].amount", Some("126.37"))
    );
    assert!(
        x.message.contains("126.37") && x.message.contains("109.89"),
        "{}",
        x.message
    );
    assert!(x.message.contains("include 15% VAT"), "{}", x.message);
    let f = run(|e| e.line_net[1] = Some(dec!(115.02)));
    assert!(
        assert_has(&f, "INV-ERP-LINE-NET", Severity::Error)
            .message
            .contains("quantity")
    );
}

#[test]
fn a_net_price_the_erp_rounds_before_multiplying_is_said_as_the_cause() {
    // SAP: 100 × 9.99 less 7.5 % = 924.075 → 924.08; SAP rounds the price first: 100 × 9.24.
    let mut d = standard();
    d.invoice_lines.truncate(1);
    d.invoice_lines[0].quantity = dec!(100);
    d.invoice_lines[0].price.price_per_unit = dec!(9.24075);
    let e = ErpFigures {
        line_net: vec![Some(dec!(924.00))],
        ..ErpFigures::default()
    };
    let f = validate(&d, &with(e.clone()));
    let x = assert_has(&f, "INV-ERP-LINE-NET", Severity::Error);
    assert!(
        x.message
            .contains("rounds the net unit price to 2 decimals before multiplying: quantity 100 × 9.24 = 924.00")
            && !x.message.contains("missing from the mapping"),
        "{}",
        x.message
    );
    // A price with a line discount that does not give the export's net: the discount is named,
    // not said to be missing.
    let mut discounted = d.clone();
    discounted.invoice_lines[0].price.price_per_unit = dec!(9.99);
    discounted.invoice_lines[0].price.allowance_charge = Some(crate::model::PriceAllowanceCharge {
        charge_indicator: false,
        reason: String::new(),
        amount: dec!(0.75),
        base_amount: dec!(9.99),
        currency: discounted.invoice_lines[0].price.currency.clone(),
    });
    let f = validate(&discounted, &with(e));
    let m = &assert_has(&f, "INV-ERP-LINE-NET", Severity::Error).message;
    assert!(
        m.contains("check the quantity and price columns, the line discount, or"),
        "{m}"
    );
}

#[test]
fn inv_erp_line_vat() {
    let f = run(|e| e.line_vat[1] = Some(dec!(17.25)));
    let x = assert_has(&f, "INV-ERP-LINE-VAT", Severity::Error);
    assert_eq!(x.path, "invoice_lines[1].tax_total.tax_amount");
    assert!(
        x.message.contains("15%") && x.message.contains("says 5%"),
        "{}",
        x.message
    );
}

#[test]
fn inv_erp_line_gross() {
    let f = run(|e| e.line_gross[2] = Some(dec!(138)));
    let x = assert_has(&f, "INV-ERP-LINE-GROSS", Severity::Error);
    assert_eq!(x.path, "invoice_lines[2].tax_total.rounding_amount");
}

#[test]
fn inv_erp_tax_exclusive() {
    let f = run(|e| e.tax_exclusive = Some(dec!(344.89)));
    let x = assert_has(&f, "INV-ERP-TAX-EXCLUSIVE", Severity::Error);
    assert!(x.message.contains("discounts"), "{}", x.message);
}

/// `n` lines of 1 × 0.05 at 15%: VAT 0.01 per line, but round2(n × 0.0075) on the category.
fn small_lines(n: usize) -> crate::model::Document {
    let mut d = standard();
    d.allowance_charge.0.clear();
    d.invoice_lines = (1..=n)
        .map(|i| {
            crate::model::example::line(
                i,
                "Item",
                dec!(1),
                dec!(0.05),
                crate::model::TaxCategory::new("S", dec!(15)),
            )
        })
        .collect();
    recompute(&mut d);
    d
}

#[test]
fn a_vat_total_rounded_per_line_is_a_warning() {
    let d = small_lines(10);
    assert_eq!(d.tax_total.tax_amount, dec!(0.08));
    let e = ErpFigures {
        tax_total: Some(dec!(0.10)),
        ..Default::default()
    };
    let f = validate(&d, &with(e));
    assert!(of(&f, "INV-ERP-TAX-TOTAL").is_empty(), "{f:?}");
    let x = assert_has(&f, "INV-ERP-TAX-TOTAL-ROUNDING", Severity::Warning);
    assert_eq!(
        (x.path.as_str(), x.value.as_deref()),
        ("tax_total.tax_amount", Some("0.10"))
    );
    assert!(
        x.message.contains("0.10, its lines' VAT rounded one by one")
            && x.message.contains("which gives 0.08")
            && x.message.contains("(0.02)")
            && x.message.contains("0.10 here")
            && x.message.contains("issued with VAT 0.08"),
        "{}",
        x.message
    );
    // Not the lines' VAT added up: an error, as before.
    let e = ErpFigures {
        tax_total: Some(dec!(0.50)),
        ..Default::default()
    };
    let x = assert_has(
        &validate(&small_lines(3), &with(e)),
        "INV-ERP-TAX-TOTAL",
        Severity::Error,
    );
    assert!(x.message.contains("Check the VAT rates"), "{}", x.message);
    let e = ErpFigures {
        tax_total: Some(dec!(0.09)),
        ..Default::default()
    };
    assert!(validate(&d, &with(e)).is_empty(), "0.01 apart is tolerated");
}

#[test]
fn the_lines_vat_added_up_without_the_document_discount_is_no_rounding() {
    let mut d = small_lines(10);
    d.allowance_charge.0.push(crate::model::AllowanceCharge {
        charge_indicator: false,
        reason: "Discount".into(),
        reason_code: Some("95".into()),
        amount: dec!(0.30),
        base_amount: None,
        multiplier_factor: None,
        currency: "SAR".into(),
        tax_category: crate::model::TaxCategory::new("S", dec!(15)),
    });
    recompute(&mut d);
    // 0.20 net after the discount, VAT 0.03; each line's 0.02 left has no VAT of its own.
    assert_eq!(d.tax_total.tax_amount, dec!(0.03));
    let e = ErpFigures {
        tax_total: Some(dec!(0.10)),
        tax_inclusive: Some(dec!(0.50)),
        ..Default::default()
    };
    let f = validate(&d, &with(e));
    let x = assert_has(&f, "INV-ERP-TAX-TOTAL", Severity::Error);
    assert!(
        x.message
            .contains("adds up its lines' own figures (0.10) as if the document had no discount")
            && x.message.contains("(0.30 without VAT)")
            && !x.message.contains("one to send"),
        "{}",
        x.message
    );
    assert!(of(&f, "INV-ERP-TAX-TOTAL-ROUNDING").is_empty(), "{f:?}");
    assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
}

/// Three lines sold at 10.00 with 15 % VAT each, as the mapping builds tax-inclusive lines:
/// net 8.70 and VAT 1.30 per line; 26.10 net, VAT 3.92 and 30.02 with VAT on the category.
fn three_tens() -> crate::model::Document {
    let mut d = standard();
    d.allowance_charge.0.clear();
    d.invoice_lines = (1..=3)
        .map(|i| {
            let price = crate::compute::net_from_inclusive_total(dec!(1), dec!(10.00), dec!(15))
                .map(|p| p.unit_price)
                .unwrap_or_default();
            let cat = crate::model::TaxCategory::new("S", dec!(15));
            let mut l = crate::model::example::line(i, "Item", dec!(1), price, cat);
            l.inclusive_amount = Some(dec!(10.00));
            l
        })
        .collect();
    recompute(&mut d);
    d
}

fn total(v: rust_decimal::Decimal) -> Context {
    with(ErpFigures {
        tax_inclusive: Some(v),
        line_gross: vec![Some(dec!(10.00)); 3],
        line_vat: vec![Some(dec!(1.30)); 3],
        tax_total: Some(dec!(3.90)),
        ..Default::default()
    })
}

#[test]
fn a_total_of_line_totals_with_vat_is_the_amount_due_with_a_rounding_amount() {
    let mut d = three_tens();
    assert_eq!(d.legal_monitory_total.tax_inclusive_amount, dec!(30.02));
    // As the pipeline issues it: the amount due rounded to the export's total.
    let mut t = crate::compute::totals(&d).unwrap();
    let r = crate::compute::round_payable_to(&mut d, &mut t, dec!(30.00), super::ERP_TOLERANCE);
    assert_eq!(r, Ok(Some(dec!(-0.02))));
    let f = validate(&d, &total(dec!(30.00)));
    assert!(f.iter().all(|f| !f.is_error()), "{f:#?}");
    assert!(
        of(&f, "INV-ERP-TOTAL").is_empty() && of(&f, "BR-CO-16").is_empty(),
        "{f:?}"
    );
    let x = assert_has(&f, "INV-ERP-TOTAL-ROUNDING", Severity::Warning);
    assert_eq!(
        (x.path.as_str(), x.value.as_deref()),
        ("legal_monitory_total.tax_inclusive_amount", Some("30.00"))
    );
    assert!(
        x.message
            .starts_with("The export gives the total with VAT as 30.00, its lines' amounts with VAT added up")
            && x.message.contains("which gives 30.02 (VAT 3.92)")
            && x.message.contains("at most 0.01 per line with VAT, 0.03 here")
            && x.message
                .contains("the payable amount is 30.00 as the export says, with a rounding amount of -0.02 (BT-114)"),
        "{}",
        x.message
    );
    let x = assert_has(&f, "INV-ERP-TAX-TOTAL-ROUNDING", Severity::Warning);
    assert!(x.message.contains("issued with VAT 3.92"), "{}", x.message);
    // Not rounded (a caller that validates only): the message says what is issued then.
    let x = assert_has(
        &validate(&three_tens(), &total(dec!(30.00))),
        "INV-ERP-TOTAL-ROUNDING",
        Severity::Warning,
    );
    assert!(
        x.message
            .contains("issued with the computed figures: total with VAT 30.02, payable amount 30.02"),
        "{}",
        x.message
    );
}

#[test]
fn a_total_rounding_does_not_explain_stays_an_error() {
    let d = three_tens();
    // 0.03 over: not the lines' totals added up.
    let x = assert_has(&validate(&d, &total(dec!(30.05))), "INV-ERP-TOTAL", Severity::Error);
    assert!(
        x.message.contains("30.05") && x.message.contains("Check the line amounts"),
        "{}",
        x.message
    );
    assert!(!x.message.contains("one to send"), "{}", x.message);
    // Within a cent of the lines' totals added up, but not them.
    let x = assert_has(&validate(&d, &total(dec!(29.99))), "INV-ERP-TOTAL", Severity::Error);
    assert!(
        x.message.contains("adds up its lines' own figures (30.00)") && x.message.contains("0.03 here"),
        "{}",
        x.message
    );
    // Within the tolerance of the computed total: nothing said, as before.
    let f = validate(&d, &total(dec!(30.01)));
    assert!(of(&f, "INV-ERP-TOTAL").is_empty() && of(&f, "INV-ERP-TOTAL-ROUNDING").is_empty());
}

#[test]
fn inv_erp_total() {
    let f = run(|e| e.tax_inclusive = Some(dec!(334.89)));
    let x = assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
    assert_eq!(x.path, "legal_monitory_total.tax_inclusive_amount");
    assert!(x.message.contains("include VAT"), "{}", x.message);
}

/// An ERP that gives a discount before tax spreads it over the lines and prints each line's VAT
/// on what is left (Zoho Books' `Item Tax Amount`): that agrees as the line's own VAT does.
#[test]
fn a_line_vat_on_the_line_less_its_share_of_the_document_discount_agrees() {
    // The standard invoice's 10.00 discount is on S 15 %, whose one line has 109.89 net: VAT on
    // 99.89 is 14.98.
    let f = run(|e| e.line_vat[0] = Some(dec!(14.98)));
    assert!(of(&f, "INV-ERP-LINE-VAT").is_empty(), "{f:?}");
    let f = run(|e| e.line_gross[0] = Some(dec!(124.87)));
    assert!(of(&f, "INV-ERP-LINE-GROSS").is_empty(), "{f:?}");
    // Neither figure: an error, as before.
    let f = run(|e| e.line_vat[0] = Some(dec!(14.90)));
    assert_has(&f, "INV-ERP-LINE-VAT", Severity::Error);
    // The S 5 % line has no share of a discount on S 15 %.
    let f = run(|e| e.line_vat[1] = Some(dec!(5.25)));
    assert_has(&f, "INV-ERP-LINE-VAT", Severity::Error);
    // Without a document discount, a discounted figure is no cause.
    let mut d = standard();
    d.allowance_charge.0.clear();
    recompute(&mut d);
    let e = ErpFigures {
        line_vat: vec![Some(dec!(14.98)), None, None],
        ..Default::default()
    };
    assert_has(&validate(&d, &with(e)), "INV-ERP-LINE-VAT", Severity::Error);
}

/// The causes the messages give for a document figure that differs for no reason the figures
/// show say what the document's discount on the whole document is, or how one would be read.
#[test]
fn a_figure_that_differs_says_what_discount_the_document_has_or_how_to_map_one() {
    let d = small_lines(3);
    // 0.15 net, 0.02 VAT, 0.17 with VAT; the export gives less.
    let lower = |document_discount| {
        with(ErpFigures {
            tax_exclusive: Some(dec!(0.10)),
            tax_inclusive: Some(dec!(0.12)),
            document_discount,
            ..Default::default()
        })
    };
    let f = validate(&d, &lower(false));
    for code in ["INV-ERP-TAX-EXCLUSIVE", "INV-ERP-TOTAL"] {
        let x = assert_has(&f, code, Severity::Error);
        assert!(
            x.message.contains(
                "This document has no discount on the whole document, and the mapping reads none: a discount on the \
                 whole document (on the invoice's subtotal) would make the export's figure lower; if the ERP gives \
                 one, map its column as discount_amount (or discount_percent)"
            ) && !x.message.contains("document discounts and charges the mapping reads"),
            "{}",
            x.message
        );
    }
    let f = validate(&d, &lower(true));
    let x = assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
    assert!(
        x.message
            .contains("the mapping reads one, and its cell is blank or 0 here"),
        "{}",
        x.message
    );
    // Higher than computed: no discount would explain it.
    let e = ErpFigures {
        tax_inclusive: Some(dec!(0.50)),
        ..Default::default()
    };
    let x = assert_has(&validate(&d, &with(e)), "INV-ERP-TOTAL", Severity::Error);
    assert!(
        x.message.ends_with(
            "Check the line amounts and VAT rates (this document has no discount or charge on the whole document)."
        ),
        "{}",
        x.message
    );
    // A document with a discount says it.
    let f = run(|e| e.tax_inclusive = Some(dec!(300.00)));
    let x = assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
    assert!(
        x.message.ends_with(
            "Check the line amounts and VAT rates, and the discount or charge on the whole document the mapping \
             reads (discount 10.00 without VAT)."
        ),
        "{}",
        x.message
    );
}

/// Three lines of 1 × 100.00 at 15 %, no discount on the whole document; the export says the
/// first line's net is 150.00 and gives its totals.
fn hundreds() -> (crate::model::Document, ErpFigures) {
    let mut d = standard();
    d.allowance_charge.0.clear();
    d.invoice_lines = (1..=3)
        .map(|i| {
            let cat = crate::model::TaxCategory::new("S", dec!(15));
            crate::model::example::line(i, "Item", dec!(1), dec!(100.00), cat)
        })
        .collect();
    recompute(&mut d);
    let erp = ErpFigures {
        line_net: vec![Some(dec!(150.00)), Some(dec!(100.00)), Some(dec!(100.00))],
        line_vat: vec![Some(dec!(15.00)); 3],
        line_gross: vec![Some(dec!(115.00)); 3],
        tax_exclusive: Some(dec!(300.00)),
        tax_total: Some(dec!(45.00)),
        tax_inclusive: Some(dec!(345.00)),
        document_discount: false,
    };
    (d, erp)
}

#[test]
fn another_lines_mistake_leaves_a_lines_own_figures_compared() {
    type Change = fn(&mut crate::model::Line);
    let mistakes: [(&str, Change); 3] = [
        ("BR-KSA-F-04", |l| l.quantity = dec!(-1)),
        ("BR-KSA-84", |l| l.item.classified_tax_category.percent = dec!(12)),
        ("INV-ZERO-QUANTITY", |l| l.quantity = dec!(0)),
    ];
    for (code, change) in mistakes {
        let (mut d, erp) = hundreds();
        change(&mut d.invoice_lines[2]);
        recompute(&mut d);
        let f = validate(&d, &with(erp.clone()));
        let cause = assert_has(&f, code, Severity::Error);
        assert!(cause.path.starts_with("invoice_lines[2]."), "{code}: {cause:?}");
        // The first line's own net, which the third line does not touch, is said now.
        let net = assert_has(&f, "INV-ERP-LINE-NET", Severity::Error);
        assert_eq!(net.path, "invoice_lines[0].amount", "{code}");
        assert_eq!(of(&f, "INV-ERP-LINE-NET").len(), 1, "{code}: {f:#?}");
        // Nothing on the line with the mistake, nor the document's figures it throws off.
        let erp_paths: Vec<&str> = f
            .iter()
            .filter(|f| f.code.starts_with("INV-ERP-"))
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(erp_paths, ["invoice_lines[0].amount"], "{code}: {f:#?}");
        // Its net right, the first line passes.
        let right = ErpFigures {
            line_net: vec![Some(dec!(100.00)); 3],
            ..erp
        };
        let f = validate(&d, &with(right));
        assert!(f.iter().all(|f| !f.code.starts_with("INV-ERP-")), "{code}: {f:#?}");
    }
}

#[test]
fn with_a_discount_on_the_whole_document_another_lines_mistake_leaves_no_figure_compared() {
    // The discount is spread over the lines of its category in comparing a line's VAT: the
    // negative line changes every line's share.
    let (mut d, erp) = hundreds();
    d.allowance_charge = crate::model::example::standard_invoice("X").allowance_charge;
    d.invoice_lines[2].quantity = dec!(-1);
    recompute(&mut d);
    let f = validate(&d, &with(erp));
    assert_has(&f, "BR-KSA-F-04", Severity::Error);
    assert!(f.iter().all(|f| !f.code.starts_with("INV-ERP-")), "{f:#?}");
}

/// One line's VAT at another rate than its category's, the export's totals its lines' own added
/// up: said once, on the line; the document's VAT total and total with VAT, thrown off by the
/// same line, are not said again (QA14b: one mistake, one finding). A document total that its
/// lines do not add up to is still said.
#[test]
fn a_document_figure_its_lines_add_up_to_is_not_said_again_beside_a_lines_own() {
    let (d, mut erp) = hundreds();
    erp.line_net = vec![Some(dec!(100.00)); 3];
    erp.tax_exclusive = Some(dec!(300.00));
    // The first line's VAT at 5 %: 5.00, and the export's totals with it.
    erp.line_vat[0] = Some(dec!(5.00));
    erp.line_gross[0] = Some(dec!(105.00));
    erp.tax_total = Some(dec!(35.00));
    erp.tax_inclusive = Some(dec!(335.00));
    let f = validate(&d, &with(erp.clone()));
    let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["INV-ERP-LINE-VAT"], "{f:#?}");
    assert_eq!(f[0].path, "invoice_lines[0].tax_total.tax_amount");
    // Totals that are not the lines' added up: said.
    erp.tax_total = Some(dec!(36.00));
    erp.tax_inclusive = Some(dec!(336.00));
    let f = validate(&d, &with(erp));
    assert_has(&f, "INV-ERP-TAX-TOTAL", Severity::Error);
    assert_has(&f, "INV-ERP-TOTAL", Severity::Error);
}

#[test]
fn a_line_vat_that_is_the_rate_on_the_exports_own_wrong_net_is_not_said_again() {
    // Line 1 is 1 × 100.00 at 15 %: the export gives its net as 150.00 and its VAT as 22.50
    // (15 % of 150.00), with totals that add those up: one mistake, the net.
    let (d, mut erp) = hundreds();
    erp.line_net = vec![Some(dec!(150.00)), Some(dec!(100.00)), Some(dec!(100.00))];
    erp.line_vat = vec![Some(dec!(22.50)), Some(dec!(15.00)), Some(dec!(15.00))];
    erp.line_gross = vec![Some(dec!(172.50)), Some(dec!(115.00)), Some(dec!(115.00))];
    erp.tax_exclusive = Some(dec!(350.00));
    erp.tax_total = Some(dec!(52.50));
    erp.tax_inclusive = Some(dec!(402.50));
    let f = validate(&d, &with(erp.clone()));
    let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["INV-ERP-LINE-NET"], "{f:#?}");
    // A VAT that is not the rate on the export's net is a mistake of its own: said.
    erp.line_vat[0] = Some(dec!(30.00));
    erp.line_gross[0] = Some(dec!(180.00));
    erp.tax_total = Some(dec!(60.00));
    erp.tax_inclusive = Some(dec!(410.00));
    let f = validate(&d, &with(erp));
    assert_has(&f, "INV-ERP-LINE-NET", Severity::Error);
    assert_has(&f, "INV-ERP-LINE-VAT", Severity::Error);
}

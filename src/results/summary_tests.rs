//! Tests of `summary.rs`.
use super::*;
use rust_decimal_macros::dec;

fn record(n: &str, status: RowStatus, date: &str, net: Decimal) -> DocumentRecord {
    DocumentRecord {
        kind: "invoice".into(),
        invoice_type: "standard".into(),
        issue_date: date.into(),
        currency: "SAR".into(),
        net: Some(net),
        vat: Some(net * dec!(0.15)),
        gross: Some(net * dec!(1.15)),
        ..DocumentRecord::new(n, status)
    }
}

#[test]
fn every_status_is_counted_with_its_amounts() {
    let mut b = SummaryBuilder::new("x.csv", "xero", "t");
    for (i, s) in RowStatus::ALL.into_iter().enumerate() {
        let mut r = record(&format!("D{i}"), s, "2026-11-20", dec!(100.00));
        if s.is_problem() {
            r.errors.push("BR-KSA-40".into());
        }
        b.add_row(s);
        b.add_document(&r);
    }
    b.add_row(RowStatus::Invalid);
    b.add_stray_codes(&["INV-MAP-NUMBER".into()], &[]);
    let s = b.finish();
    assert_eq!(s.rows, 7);
    assert_eq!(s.rows_by_status[&RowStatus::Invalid], 2);
    for status in RowStatus::ALL {
        assert_eq!(s.count(status), 1, "{status}");
        assert_eq!(s.by_status[&status].amounts["SAR"].gross, dec!(115.0000));
    }
    assert_eq!(s.documents.amounts["SAR"].net, dec!(600.00));
    assert_eq!(s.by_kind["invoice/standard"].len(), 6);
    assert_eq!(s.by_date["2026-11-20"][&RowStatus::Accepted].documents, 1);
    let g = &s.rejections["BR-KSA-40"];
    assert_eq!(g.count(), 3);
    assert_eq!(g.examples, ["D1", "D4", "D5"]);
    assert_eq!(s.rejections["INV-MAP-NUMBER"].stray_rows, 1);
    let text = s.render("", true);
    assert!(text.contains("rejections by rule:"), "{text}");
    assert!(text.contains("SAR net 100.00  VAT 15.00  gross 115.00"), "{text}");
}

#[test]
fn merge_adds_up_and_json_round_trips() {
    let mut a = SummaryBuilder::new("a.csv", "xero", "1");
    a.add_document(&record("A", RowStatus::Accepted, "2026-11-20", dec!(10)));
    let mut b = SummaryBuilder::new("b.csv", "xero", "2");
    b.add_document(&record("B", RowStatus::Accepted, "2026-11-21", dec!(20)));
    b.add_document(&DocumentRecord::new("S", RowStatus::Skipped));
    let mut m = a.finish();
    m.merge(&b.finish());
    assert_eq!(m.files, ["a.csv", "b.csv"]);
    assert_eq!(m.count(RowStatus::Accepted), 2);
    assert_eq!(m.documents.without_amounts, 1);
    assert_eq!(m.by_date.len(), 3);
    assert_eq!(m.by_kind["(unknown)"][&RowStatus::Skipped].documents, 1);
    let json = serde_json::to_string(&m).unwrap();
    assert!(json.contains("\"net\":\"30\""), "{json}");
    let back: Summary = serde_json::from_str(&json).unwrap();
    assert_eq!(back, m);
}

#[test]
fn documents_of_another_summary_replace_the_documents_and_keep_rows_and_stray_rows() {
    let mut a = SummaryBuilder::new("a.csv", "xero", "1");
    a.add_row(RowStatus::Accepted);
    a.add_stray_codes(&["INV-MAP-NUMBER".into()], &[]);
    let mut r = record("A", RowStatus::Invalid, "2026-11-20", dec!(10));
    r.errors.push("BR-KSA-40".into());
    a.add_document(&r);
    a.add_document(&r);
    let mut all = a.finish();
    let mut once = SummaryBuilder::new("", "", "");
    once.add_document(&r);
    all.use_documents_of(&once.finish());
    assert_eq!((all.rows, all.files.clone()), (1, vec!["a.csv".to_string()]));
    assert_eq!(all.count(RowStatus::Invalid), 1);
    assert_eq!(all.documents.amounts["SAR"].net, dec!(10));
    assert_eq!(all.rejections["BR-KSA-40"].documents[&RowStatus::Invalid], 1);
    assert_eq!(all.rejections["INV-MAP-NUMBER"].stray_rows, 1);
}

#[test]
fn rows_outside_any_document_are_counted_in_words_without_an_empty_example() {
    let mut b = SummaryBuilder::new("x.csv", "xero", "t");
    b.add_stray_codes(&["INV-MAP-NUMBER".into()], &[]);
    let text = b.finish().render("", false);
    assert!(
        text.contains("  INV-MAP-NUMBER         1 row outside any document\n"),
        "{text}"
    );
    let mut b = SummaryBuilder::new("x.csv", "xero", "t");
    b.add_stray_codes(&["INV-MAP-NUMBER".into()], &[]);
    b.add_stray_codes(&["INV-MAP-NUMBER".into()], &[]);
    let mut r = record("A-1", RowStatus::Invalid, "2026-11-20", dec!(10.00));
    r.errors.push("INV-MAP-NUMBER".into());
    b.add_document(&r);
    let text = b.finish().render("", false);
    assert!(
        text.contains("INV-MAP-NUMBER         1 invalid, 2 rows outside any document (e.g. A-1)\n"),
        "{text}"
    );
}

#[test]
fn a_conflict_counts_as_accepted_with_a_conflict_and_never_as_a_rejection() {
    let mut b = SummaryBuilder::new("x.csv", "xero", "t");
    let mut r = record("C-1", RowStatus::Accepted, "2026-11-20", dec!(100.00));
    r.errors.push(crate::submit::CONFLICT_CODE.into());
    b.add_document(&r);
    b.add_document(&record("A-1", RowStatus::Accepted, "2026-11-20", dec!(10.00)));
    let mut s = b.finish();
    assert_eq!(s.count(RowStatus::Accepted), 2);
    assert!(s.rejections.is_empty(), "{:?}", s.rejections);
    assert_eq!(
        serde_json::to_value(&s).unwrap()["conflicts"],
        serde_json::json!({"documents": 1, "examples": ["C-1"]})
    );
    let text = s.render("", false);
    assert!(!text.contains("rejections by rule"), "{text}");
    assert!(
        text.contains(
            "conflicts: 1 accepted document issued earlier with other content (INV-LEDGER-CONFLICT; e.g. C-1)"
        ),
        "{text}"
    );
    // Merged (report's folder) and replaced (each document once) alike.
    let other = s.clone();
    s.merge(&other);
    assert_eq!(serde_json::to_value(&s).unwrap()["conflicts"]["documents"], 2);
    let mut kept = SummaryBuilder::new("", "", "").finish();
    kept.use_documents_of(&other);
    assert_eq!(serde_json::to_value(&kept).unwrap()["conflicts"]["documents"], 1);
}

#[test]
fn money_is_grouped_and_rounded_half_away() {
    assert_eq!(money(dec!(1234567.005)), "1,234,567.01");
    assert_eq!(money(dec!(-1000)), "-1,000.00");
    assert_eq!(money(dec!(0.5)), "0.50");
}

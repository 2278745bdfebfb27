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
    // Every amount with at least two decimals, a total of nothing too.
    assert!(json.contains("\"net\":\"30.00\""), "{json}");
    assert!(json.contains("\"vat_sar\":\"0.00\""), "{json}");
    assert!(!json.contains("\"vat_sar\":\"0\""), "{json}");
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

/// A document of `kind` in `currency`, its VAT in SAR `vat_sar`.
fn doc(n: &str, kind: &str, currency: &str, net: Decimal, vat_sar: Option<Decimal>) -> DocumentRecord {
    DocumentRecord {
        kind: kind.into(),
        currency: currency.into(),
        vat_sar,
        ..record(n, RowStatus::Accepted, "2026-11-16", net)
    }
}

#[test]
fn totals_net_credit_notes_and_add_the_vat_in_sar_of_every_currency() {
    let mut b = SummaryBuilder::new("x.csv", "xero", "t");
    b.add_document(&doc("INV-1", "invoice", "SAR", dec!(10000.00), Some(dec!(1500.00))));
    b.add_document(&doc("CN-1", "credit_note", "SAR", dec!(2500.00), Some(dec!(375.00))));
    b.add_document(&doc("DN-1", "debit_note", "SAR", dec!(100.00), Some(dec!(15.00))));
    // 1,000 dollars at 3.75: VAT 150 dollars, 562.50 riyals.
    b.add_document(&doc("INV-2", "invoice", "USD", dec!(1000.00), Some(dec!(562.50))));
    b.add_document(&doc("INV-3", "invoice", "EUR", dec!(10.00), None));
    let s = b.finish();
    let accepted = &s.by_status[&RowStatus::Accepted];
    for t in [&s.documents, accepted, &s.by_date["2026-11-16"][&RowStatus::Accepted]] {
        // As issued: every document's own, positive, amounts (the documented meaning).
        assert_eq!(t.amounts["SAR"].vat, dec!(1890.00));
        // Netted: invoices + debit notes - credit notes.
        assert_eq!(t.netted.amounts["SAR"].net, dec!(7600.00));
        assert_eq!(t.netted.amounts["SAR"].vat, dec!(1140.00));
        assert_eq!(t.netted.amounts["SAR"].gross, dec!(8740.00));
        assert_eq!(t.netted.amounts["USD"].vat, dec!(150.00));
        assert_eq!(t.netted.vat_sar, dec!(1702.50), "1,500 - 375 + 15 + 562.50");
        assert_eq!(t.netted.without_vat_sar, 1);
    }
    // By kind: as issued, a credit note's amounts positive.
    let cn = &s.by_kind["credit_note/standard"][&RowStatus::Accepted];
    assert_eq!(cn.amounts["SAR"].vat, dec!(375.00));
    let text = s.render("", true);
    assert!(
        text.contains(
            "documents (net of credit notes): 5 documents  EUR net 10.00  VAT 1.50  gross 11.50  SAR net 7,600.00  \
             VAT 1,140.00  gross 8,740.00  USD net 1,000.00  VAT 150.00  gross 1,150.00  all currencies VAT in SAR \
             1,702.50 (1 without VAT in SAR)\n"
        ),
        "{text}"
    );
    assert!(text.contains("by issue date (net of credit notes):\n"), "{text}");
    assert!(
        text.contains(
            "  credit_note/standard     accepted  1 document  SAR net 2,500.00  VAT 375.00  gross 2,875.00\n"
        ),
        "{text}"
    );
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["by_status"]["accepted"]["netted"]["vat_sar"], "1702.50");
    assert_eq!(json["by_status"]["accepted"]["amounts"]["SAR"]["vat"], "1890.0000");
}

#[test]
fn a_day_of_sar_documents_only_says_no_vat_in_sar_of_its_own() {
    let mut b = SummaryBuilder::new("x.csv", "xero", "t");
    b.add_document(&doc("INV-1", "invoice", "SAR", dec!(10000.00), Some(dec!(1500.00))));
    b.add_document(&doc("CN-1", "credit_note", "SAR", dec!(2500.00), Some(dec!(375.00))));
    let text = b.finish().render("", true);
    assert!(
        text.contains("  2026-11-16 accepted  2 documents  SAR net 7,500.00  VAT 1,125.00  gross 8,625.00\n"),
        "{text}"
    );
    assert!(!text.contains("VAT in SAR"), "{text}");
}

#[test]
fn a_summary_written_before_the_netted_totals_reads_them_as_zero() {
    let mut b = SummaryBuilder::new("x.csv", "xero", "t");
    b.add_document(&doc("INV-1", "invoice", "SAR", dec!(10.00), Some(dec!(1.50))));
    let s = b.finish();
    let mut json = serde_json::to_value(&s).unwrap();
    json["documents"].as_object_mut().unwrap().remove("netted");
    json["by_status"]["accepted"].as_object_mut().unwrap().remove("netted");
    let back: Summary = serde_json::from_value(json).unwrap();
    assert_eq!(back.documents.netted, Netted::default());
    assert_eq!(back.documents.amounts, s.documents.amounts);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn kind() -> impl Strategy<Value = &'static str> {
        prop_oneof![Just("invoice"), Just("credit_note"), Just("debit_note"), Just("")]
    }

    fn currency() -> impl Strategy<Value = &'static str> {
        prop_oneof![Just("SAR"), Just("USD"), Just("")]
    }

    /// A document: kind, currency, net in halalas, VAT in SAR in halalas (or none).
    fn docs() -> impl Strategy<Value = Vec<(&'static str, &'static str, i64, Option<i64>)>> {
        proptest::collection::vec(
            (
                kind(),
                currency(),
                0i64..10_000_000,
                proptest::option::of(0i64..2_000_000),
            ),
            0..30,
        )
    }

    /// The summary's views as they were made before documents were staged: each document
    /// added to every view at once.
    fn added_one_by_one(records: &[DocumentRecord]) -> Summary {
        let mut s = Summary::default();
        for r in records {
            s.documents.add_record(r);
            s.by_status.entry(r.status).or_default().add_record(r);
            let kind = if r.kind.is_empty() && r.invoice_type.is_empty() {
                "(unknown)".to_string()
            } else {
                format!(
                    "{}/{}",
                    unknown_if_empty(&r.kind, "?"),
                    unknown_if_empty(&r.invoice_type, "?")
                )
            };
            entry(&mut s.by_kind, &kind).entry(r.status).or_default().add_record(r);
            entry(&mut s.by_date, unknown_if_empty(&r.issue_date, "(no date)"))
                .entry(r.status)
                .or_default()
                .add_record(r);
        }
        s
    }

    fn status() -> impl Strategy<Value = RowStatus> {
        prop_oneof![
            Just(RowStatus::Valid),
            Just(RowStatus::Invalid),
            Just(RowStatus::Accepted)
        ]
    }

    proptest! {
        /// Staged documents make the same views as documents added to each view at once,
        /// whatever their kinds, types, days, statuses and currencies, and however often the
        /// summary is read in between.
        #[test]
        fn staged_documents_make_the_views_documents_added_at_once_make(
            docs in proptest::collection::vec(
                (kind(), prop_oneof![Just("standard"), Just("simplified"), Just("")],
                 prop_oneof![Just("2026-11-20"), Just("2026-11-21"), Just("")], status(), currency(),
                 -1_000_000i64..10_000_000, proptest::bool::ANY, proptest::bool::ANY),
                0..40,
            ),
        ) {
            let mut b = SummaryBuilder::new("a", "", "");
            let mut records = Vec::new();
            for (i, (kind, ty, date, status, currency, net, amounts, read)) in docs.into_iter().enumerate() {
                let mut r = DocumentRecord {
                    invoice_type: ty.into(),
                    issue_date: date.into(),
                    ..doc(&format!("D{i}"), kind, currency, Decimal::new(net, 3), Some(Decimal::new(net, 2)))
                };
                r.status = status;
                if !amounts {
                    (r.net, r.vat, r.gross, r.vat_sar) = (None, None, None, None);
                }
                b.add_document(&r);
                records.push(r);
                if read {
                    let _ = b.summary();
                }
            }
            let s = b.finish();
            let want = added_one_by_one(&records);
            prop_assert_eq!(&s.documents, &want.documents);
            prop_assert_eq!(&s.by_status, &want.by_status);
            prop_assert_eq!(&s.by_kind, &want.by_kind);
            prop_assert_eq!(&s.by_date, &want.by_date);
        }

        /// Whatever the documents, and however they are split into summaries and merged,
        /// the netted totals are the sums of the signed documents: invoices and debit notes
        /// added, credit notes subtracted; the as-issued ones the sums of their own amounts.
        #[test]
        fn netted_totals_are_the_sums_of_the_signed_documents(docs in docs(), split in 0usize..30) {
            let mut builders = [SummaryBuilder::new("a", "", ""), SummaryBuilder::new("b", "", "")];
            let mut want: BTreeMap<String, (Decimal, Decimal)> = BTreeMap::new();
            let (mut want_sar, mut want_without) = (Decimal::ZERO, 0u64);
            for (i, (kind, currency, net, vat_sar)) in docs.iter().enumerate() {
                let net = Decimal::new(*net, 2);
                let vat_sar = vat_sar.map(|v| Decimal::new(v, 2));
                let sign = if *kind == "credit_note" { -Decimal::ONE } else { Decimal::ONE };
                let c = if currency.is_empty() { "SAR" } else { currency };
                let w = want.entry(c.to_string()).or_default();
                w.0 += sign * net;
                w.1 += net;
                match vat_sar {
                    Some(v) => want_sar += sign * v,
                    None => want_without += 1,
                }
                let r = doc(&format!("D{i}"), kind, currency, net, vat_sar);
                builders[usize::from(i >= split)].add_document(&r);
            }
            let [a, b] = builders;
            let mut s = a.finish();
            s.merge(&b.finish());
            let t = &s.documents;
            prop_assert_eq!(t.netted.amounts.len(), want.len());
            for (c, (netted, issued)) in &want {
                prop_assert_eq!(t.netted.amounts[c].net, *netted);
                prop_assert_eq!(t.amounts[c].net, *issued);
                let a = t.netted.amounts[c];
                prop_assert_eq!(a.gross, a.net + a.vat);
            }
            prop_assert_eq!(t.netted.vat_sar, want_sar);
            prop_assert_eq!(t.netted.without_vat_sar, want_without);
            prop_assert_eq!(&s.by_status.get(&RowStatus::Accepted).cloned().unwrap_or_default().netted, &t.netted);
        }
    }
}

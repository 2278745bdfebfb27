//! A discount on the whole document (`discount_amount`, `discount_percent`,
//! `discount_before_tax`) into document-level allowances, and a field read only where another
//! column says so (`when`).
use super::*;
use crate::model::{AllowanceCharge, Document};
use rust_decimal::Decimal;

/// SIMPLE with the discount fields.
fn mapping() -> String {
    SIMPLE.replace(
        "[taxes]",
        "discount_amount = { column = \"Disc\", optional = true }\n\
         discount_percent = { column = \"Disc %\", optional = true }\n\
         discount_before_tax = { column = \"Before\", optional = true }\n\
         [taxes]\n\"5\" = { category = \"S\", percent = 5 }",
    )
}

/// The one document of `csv` (header line included) read with `toml`.
fn one(toml: &str, csv: &str) -> (Arc<Bound>, Vec<Unit>) {
    let (h, rows) = rows_from_csv(csv, 1);
    let b = bound(toml, &h);
    let units = group_all(&b, rows);
    (b, units)
}

fn built<'a>(b: &'a Arc<Bound>, units: &[Unit]) -> Built<'a> {
    build(docs(units)[0], b, &seller())
}

fn computed(mut d: Document) -> Document {
    crate::compute::compute_document(&mut d).unwrap();
    d
}

fn allowances(d: &Document) -> Vec<(String, Decimal, Decimal)> {
    d.allowance_charge
        .0
        .iter()
        .map(|a: &AllowanceCharge| (a.tax_category.id.to_string(), a.tax_category.percent, a.amount))
        .collect()
}

const HEAD: &str = "No,Date,Customer,VAT,Item,Qty,Price,Tax,Disc,Disc %,Before\n";

#[test]
fn an_amount_on_one_category_is_one_allowance_of_that_category() {
    let csv = format!("{HEAD}A1,05/11/2026,X,,Pen,2,100.00,,15.00,,true\nA1,05/11/2026,X,,Ink,1,50.00,,15.00,,true\n");
    let (b, units) = one(&mapping(), &csv);
    let built = built(&b, &units);
    assert!(built.issues.is_empty(), "{:?}", built.issues);
    assert!(built.erp.document_discount);
    let d = computed(built.document.unwrap());
    assert_eq!(allowances(&d), [("S".to_string(), dec!(15), dec!(15.00))]);
    let ac = &d.allowance_charge.0[0];
    assert_eq!(
        (ac.reason.as_str(), ac.reason_code.as_deref(), ac.charge_indicator),
        ("Discount", Some("95"), false)
    );
    assert_eq!((ac.base_amount, ac.multiplier_factor), (None, None));
    // 250.00 − 15.00 = 235.00, VAT 35.25.
    let t = &d.legal_monitory_total;
    assert_eq!(
        (t.total_amount, t.allowance_total_amount, t.tax_exclusive_amount),
        (dec!(250.00), Some(dec!(15.00)), dec!(235.00))
    );
    assert_eq!((d.tax_total.tax_amount, t.payable_amount), (dec!(35.25), dec!(270.25)));
    // The allowance leads back to the discount's cell.
    assert_eq!(
        built.provenance.locate("allowance_charge.amount"),
        Some((0, Some("Disc")))
    );
}

#[test]
fn an_amount_on_several_categories_is_split_in_proportion_to_their_nets() {
    // Nets: S 15 % 850.00, Z 1500.00, S 5 % 650.00 (3000.00); 100.00 off: 28.33, 50.00, 21.67.
    let csv = format!(
        "{HEAD}A1,05/11/2026,X,,Pen,10,85.00,,100.00,,\n\
         A1,05/11/2026,X,,Crate,1,1500.00,Zero,100.00,,\n\
         A1,05/11/2026,X,,Book,13,50.00,5,100.00,,\n"
    );
    let (b, units) = one(&mapping(), &csv);
    let built = built(&b, &units);
    assert!(built.issues.is_empty(), "{:?}", built.issues);
    let d = computed(built.document.unwrap());
    assert_eq!(
        allowances(&d),
        [
            ("S".to_string(), dec!(15), dec!(28.33)),
            ("Z".to_string(), dec!(0), dec!(50.00)),
            ("S".to_string(), dec!(5), dec!(21.67)),
        ]
    );
    // The zero-rated part keeps its exemption reason (BR-Z-10 asks it of the breakdown).
    assert_eq!(
        d.allowance_charge.0[1].tax_category.exemption_reason_code.as_deref(),
        Some("VATEX-SA-32")
    );
    let t = &d.legal_monitory_total;
    assert_eq!(
        (t.allowance_total_amount, t.tax_exclusive_amount),
        (Some(dec!(100.00)), dec!(2900.00))
    );
    // VAT on each category's net less its part: 821.67 × 15 % and 628.33 × 5 %.
    assert_eq!(d.tax_total.tax_amount, dec!(123.25) + dec!(31.42));
    let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
        .unwrap()
        .to_utc();
    let f = crate::validate::validate(&d, &crate::validate::Context::new(now));
    assert!(f.iter().all(|f| !f.is_error()), "{f:#?}");
}

#[test]
fn a_percent_applies_to_the_lines_net_total_with_its_base_where_it_is_exact() {
    // 10 % of 3000.00 = 300.00: 85.00, 150.00, 65.00, each 10 % of its category's net.
    let csv = format!(
        "{HEAD}A1,05/11/2026,X,,Pen,10,85.00,,,10%,\n\
         A1,05/11/2026,X,,Crate,1,1500.00,Zero,,10%,\n\
         A1,05/11/2026,X,,Book,13,50.00,5,,10%,\n"
    );
    let (b, units) = one(&mapping(), &csv);
    let built = built(&b, &units);
    assert!(built.issues.is_empty(), "{:?}", built.issues);
    let d = computed(built.document.unwrap());
    let got: Vec<_> = d
        .allowance_charge
        .0
        .iter()
        .map(|a| (a.amount, a.base_amount, a.multiplier_factor))
        .collect();
    assert_eq!(
        got,
        [
            (dec!(85.00), Some(dec!(850.00)), Some(dec!(10))),
            (dec!(150.00), Some(dec!(1500.00)), Some(dec!(10))),
            (dec!(65.00), Some(dec!(650.00)), Some(dec!(10))),
        ]
    );
    assert_eq!(d.legal_monitory_total.tax_exclusive_amount, dec!(2700.00));
    // 3.5 % of 100.01 (3.50035 → 3.50) on one category: 3.50, its base and percentage kept.
    let csv = format!("{HEAD}A2,05/11/2026,X,,Pen,1,100.01,,,3.5,\n");
    let (b, units) = one(&mapping(), &csv);
    let d = computed(built_doc(&b, &units));
    let a = &d.allowance_charge.0[0];
    assert_eq!(
        (a.amount, a.base_amount, a.multiplier_factor),
        (dec!(3.50), Some(dec!(100.01)), Some(dec!(3.5)))
    );
    // An amount wins over a percentage given beside it; the percentage is kept where exact.
    let csv = format!("{HEAD}A3,05/11/2026,X,,Pen,1,200.00,,20.00,10,\n");
    let (b, units) = one(&mapping(), &csv);
    let d = computed(built_doc(&b, &units));
    let a = &d.allowance_charge.0[0];
    assert_eq!(
        (a.amount, a.base_amount, a.multiplier_factor),
        (dec!(20.00), Some(dec!(200.00)), Some(dec!(10)))
    );
    let csv = format!("{HEAD}A4,05/11/2026,X,,Pen,1,200.00,,25.00,10,\n");
    let (b, units) = one(&mapping(), &csv);
    let d = computed(built_doc(&b, &units));
    let a = &d.allowance_charge.0[0];
    assert_eq!(
        (a.amount, a.base_amount, a.multiplier_factor),
        (dec!(25.00), None, None)
    );
}

fn built_doc(b: &Arc<Bound>, units: &[Unit]) -> Document {
    let built = built(b, units);
    assert!(built.issues.is_empty(), "{:?}", built.issues);
    built.document.unwrap()
}

#[test]
fn no_discount_makes_no_allowance() {
    for cells in [",,", "0.00,0,true", ",,false", "0,,false"] {
        let csv = format!("{HEAD}A1,05/11/2026,X,,Pen,1,100.00,,{cells}\n");
        let (b, units) = one(&mapping(), &csv);
        let d = computed(built_doc(&b, &units));
        assert!(d.allowance_charge.0.is_empty(), "{cells}");
        assert_eq!(d.legal_monitory_total.allowance_total_amount, Some(dec!(0)), "{cells}");
    }
    // Not mapped: nothing read, and the export's totals say so.
    let (b, units) = one(
        SIMPLE,
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,05/11/2026,X,,Pen,1,100.00,\n",
    );
    let built = built(&b, &units);
    assert!(!built.erp.document_discount);
    assert!(built.document.unwrap().allowance_charge.0.is_empty());
}

#[test]
fn a_discount_after_tax_is_an_error_on_its_cell_and_no_totals_are_claimed() {
    let m = mapping().replace("[taxes]", "erp.total = \"Total\"\n[taxes]");
    let csv = "No,Date,Customer,VAT,Item,Qty,Price,Tax,Disc,Disc %,Before,Total\n\
               A1,05/11/2026,X,,Pen,2,100.00,,23.00,,false,207.00\n";
    let (b, units) = one(&m, csv);
    let built = built(&b, &units);
    assert_eq!(
        issues_on(&built, 0),
        [
            "INV-MAP-DISCOUNT Before \"false\": this document's discount on the whole document (23.00) is given after tax, \
             on the total with VAT; an e-invoice cannot carry such a discount: VAT is due on the amount after the \
             discount, so the VAT and total issued would not be the ERP's. Give the discount before tax in the ERP \
             (Zoho Books: discount before tax, in the invoice's or the organisation's settings), or as discounts on \
             the lines, and export again; the document is not issued until then"
        ]
    );
    assert!(built.amounts_unread);
    // The export's total (with the discount after VAT) is not compared: the error says why.
    assert_eq!(built.erp.tax_inclusive, None);
    assert!(built.document.unwrap().allowance_charge.0.is_empty());
}

#[test]
fn a_discount_that_cannot_be_issued_is_an_error_on_its_cell() {
    for (cells, column, says) in [
        ("-5.00,,", "Disc", "is negative"),
        ("5.005,,", "Disc", "more than 2 decimals"),
        (",120,", "Disc %", "not a percentage from 0 to 100"),
        (
            "250.00,,",
            "Disc",
            "(250.00) is more than its lines' total without VAT (200.00)",
        ),
    ] {
        let csv = format!("{HEAD}A1,05/11/2026,X,,Pen,2,100.00,,{cells}\n");
        let (b, units) = one(&mapping(), &csv);
        let built = built(&b, &units);
        let issues = issues_on(&built, 0);
        assert!(
            issues.len() == 1
                && issues[0].starts_with(&format!("INV-MAP-DISCOUNT {column} "))
                && issues[0].contains(says),
            "{cells}: {issues:?}"
        );
        assert!(built.amounts_unread, "{cells}");
    }
}

#[test]
fn a_credit_note_written_negative_takes_its_discount_as_positive() {
    let m = format!("{}\n[rules]\ncredit_note_when_negative = true\n", mapping());
    let csv = format!("{HEAD}C1,05/11/2026,X,,Pen,-2,100.00,,-20.00,,\n");
    let (b, units) = one(&m, &csv);
    // (Its missing invoice is said, and beside the point here.)
    let d = computed(built(&b, &units).document.unwrap());
    assert_eq!(d.kind, DocumentKind::CreditNote);
    assert_eq!(allowances(&d), [("S".to_string(), dec!(15), dec!(20.00))]);
}

#[test]
fn with_tax_inclusive_prices_the_amount_includes_vat() {
    // Lines of 115.00 and 105.00 with VAT (100.00 net each at 15 % and 5 %); 22.00 off with VAT:
    // 11.50 and 10.50, that is 10.00 net on each.
    let m = mapping().replace("[taxes]", "prices_include_tax = { value = true }\n[taxes]");
    let csv = format!(
        "{HEAD}A1,05/11/2026,X,,Pen,1,115.00,,22.00,,\n\
         A1,05/11/2026,X,,Book,1,105.00,5,22.00,,\n"
    );
    let (b, units) = one(&m, &csv);
    let d = computed(built_doc(&b, &units));
    assert_eq!(
        allowances(&d),
        [
            ("S".to_string(), dec!(15), dec!(10.00)),
            ("S".to_string(), dec!(5), dec!(10.00)),
        ]
    );
    // 220.00 with VAT less 22.00: 198.00.
    assert_eq!(d.legal_monitory_total.tax_inclusive_amount, dec!(198.00));
}

#[test]
fn zoho_reads_an_entity_discount_given_before_tax_and_not_an_item_level_one() {
    // No customers table here: the buyers' type is given (simplified), not looked up.
    let m = format!(
        "{}\n[rules]\ninvoice_type = \"simplified\"\n",
        bundled::text("zoho-books").unwrap()
    );
    let m = m.as_str();
    let head = "Invoice Number,Invoice Date,Invoice Status,Customer Name,Is Inclusive Tax,Currency Code,Discount Type,\
                Is Discount Before Tax,Entity Discount Percent,Entity Discount Amount,Item Name,Quantity,Item Price,\
                Discount Amount,Item Tax,Item Tax Amount,Item Total,Total\n";
    // 850.00 at 15 % and 1500.00 zero-rated, 10 % off: 85.00 and 150.00; VAT on 765.00 is 114.75,
    // which Zoho prints as the first line's tax; Total 2350.00 − 235.00 + 114.75.
    let csv = format!(
        "{head}INV-1,2026-11-04,Sent,Gulf,false,SAR,entity_level,true,10.00,235.00,Syringes,10,85.00,0.00,VAT 15,114.75,850.00,2229.75\n\
         INV-1,2026-11-04,Sent,Gulf,false,SAR,entity_level,true,10.00,235.00,Insulin,25,60.00,0.00,Zero Rate,0.00,1500.00,2229.75\n\
         INV-2,2026-11-05,Sent,Gulf,false,SAR,item_level,true,0.00,10.00,Syringes,10,85.00,10.00,VAT 15,126.00,840.00,966.00\n\
         INV-3,2026-11-06,Sent,Gulf,false,SAR,entity_level,false,0.00,50.00,Syringes,10,85.00,0.00,VAT 15,127.50,850.00,927.50\n"
    );
    let (b, units) = one(m, &csv);
    let ds = docs(&units);
    let first = build(ds[0], &b, &seller());
    assert!(first.issues.iter().all(|(_, i)| !i.is_error()), "{:?}", first.issues);
    let d = computed(first.document.unwrap());
    assert_eq!(
        allowances(&d),
        [
            ("S".to_string(), dec!(15), dec!(85.00)),
            ("Z".to_string(), dec!(0), dec!(150.00))
        ]
    );
    assert_eq!(
        d.allowance_charge
            .0
            .iter()
            .map(|a| a.multiplier_factor)
            .collect::<Vec<_>>(),
        [Some(dec!(10)), Some(dec!(10))]
    );
    assert_eq!(d.legal_monitory_total.payable_amount, dec!(2229.75));
    assert_eq!(first.erp.tax_inclusive, Some(dec!(2229.75)));
    // Item level: the entity discount columns are not read (the line's own discount is).
    let second = build(ds[1], &b, &seller());
    let d = computed(second.document.unwrap());
    assert!(d.allowance_charge.0.is_empty());
    assert_eq!(d.legal_monitory_total.payable_amount, dec!(966.00));
    // After tax: an error on "Is Discount Before Tax".
    let third = build(ds[2], &b, &seller());
    let e: Vec<String> = third
        .issues
        .iter()
        .filter(|(_, i)| i.is_error())
        .map(|(_, i)| i.render())
        .collect();
    assert!(
        e.len() == 1
            && e[0].starts_with("INV-MAP-DISCOUNT Is Discount Before Tax \"false\": ")
            && e[0].contains("(50.00)"),
        "{e:?}"
    );
}

#[test]
fn a_field_with_when_is_read_only_where_its_column_says_so() {
    let m = SIMPLE.replace(
        "[taxes]",
        "note = { column = \"Note\", default = \"none\", when = { column = \"Kind\", equals = [\" Memo \", \"NOTE\"] } }\n[taxes]",
    );
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax,Kind,Note\n\
         A1,05/11/2026,X,,Pen,1,1,,memo,hello\n\
         A2,05/11/2026,X,,Pen,1,1,,other,hello\n\
         A3,05/11/2026,X,,Pen,1,1,,Note,\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let notes: Vec<Option<String>> = docs(&units)
        .iter()
        .map(|d| build(d, &b, &seller()).document.unwrap().note)
        .collect();
    // Where the condition holds the field is read as ever (its default too); elsewhere blank.
    assert_eq!(notes, [Some("hello".into()), None, Some("none".into())]);
    // Rows of one document must agree on the condition's column as on the field's.
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax,Kind,Note\n\
         A1,05/11/2026,X,,Pen,1,1,,memo,hello\n\
         A1,05/11/2026,X,,Ink,1,1,,other,hello\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    let second = issues_on(&built, 1);
    assert!(
        second.len() == 1 && second[0].starts_with("INV-MAP-CONFLICT Kind \"other\": "),
        "{second:?}"
    );
}

#[test]
fn a_when_column_missing_from_the_file_is_an_error_unless_the_field_is_optional() {
    let required = SIMPLE.replace(
        "[taxes]",
        "note = { column = \"Note\", when = { column = \"Kind\", equals = [\"memo\"] } }\n[taxes]",
    );
    let (h, _) = rows_from_csv("No,Date,Customer,VAT,Item,Qty,Price,Tax,Note\n", 1);
    let m = Mapping::from_toml(&required, Origin::File("test.toml".into())).unwrap();
    let err = Bound::new(Arc::new(m), &h, "test.csv", &[], None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("Kind") && err.contains("note"), "{err}");
    // Optional: the field is left blank, and a note says why.
    let optional = required.replace("column = \"Note\",", "column = \"Note\", optional = true,");
    let b = bound(&optional, &h);
    assert_eq!(b.notes, ["column \"Kind\" is not in the file: note is left blank"]);
    // A `when` without values is a mapping error naming the key.
    let bad = SIMPLE.replace(
        "[taxes]",
        "note = { column = \"Note\", when = { column = \"Kind\", equals = [] } }\n[taxes]",
    );
    let err = Mapping::from_toml(&bad, Origin::File("test.toml".into()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("fields.\"note\".when"), "{err}");
    // Detection counts it among the mapping's columns.
    let m = Mapping::from_toml(&required, Origin::File("test.toml".into())).unwrap();
    assert!(
        m.columns()
            .iter()
            .any(|(names, optional, key)| names == &["Kind"] && !optional && key == "fields.\"note\".when.column")
    );
}

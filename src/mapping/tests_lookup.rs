//! The buyer's fields: a buyer the lookup table does not hold, and a table that is not there (a
//! warning, or an error where its VAT number decides the type); numbers in Arabic-Indic digits.
use super::*;

#[test]
fn a_buyer_missing_from_the_lookup_table_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("customers.csv"),
        "name,vat_number\nKnown Co,310122393500003\n",
    )
    .unwrap();
    let m = SIMPLE.replace(
        "buyer.vat_number = { column = \"VAT\", optional = true }",
        "buyer.vat_number = { lookup = \"customers\", key = \"Customer\", get = \"vat_number\" }",
    ) + "\n[lookups.customers]\nfile = \"customers.csv\"\nkey_column = \"name\"\n";
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,Item,Qty,Price,Tax\nA1,05/11/2026,known co,Pen,1,1,\nA2,05/11/2026,Stranger,Pen,1,1,\n",
        1,
    );
    let mapping = Mapping::from_toml(&m, Origin::File("t.toml".into())).unwrap();
    let b = Arc::new(Bound::new(Arc::new(mapping), &h, "t.csv", &[dir.path().to_path_buf()], None).unwrap());
    let units = group_all(&b, rows);
    let ds = docs(&units);
    let known = build(ds[0], &b, &seller());
    assert_eq!(known.document.unwrap().invoice_type, InvoiceType::Standard);
    assert!(known.issues.is_empty());
    let stranger = build(ds[1], &b, &seller());
    assert_eq!(stranger.document.unwrap().invoice_type, InvoiceType::Simplified);
    let w = &stranger.issues[0].1;
    assert_eq!(w.code, "INV-MAP-LOOKUP");
    assert!(!w.is_error() && w.message.contains("customers.csv"), "{w}");
    // Named on the column its key comes from.
    assert!(
        w.render()
            .starts_with("INV-MAP-LOOKUP Customer \"Stranger\": not found in customers.csv"),
        "{w}"
    );
    // What follows, and what to do about it.
    assert!(
        w.message.contains("so this document is issued as simplified (B2C)")
            && w.message.contains(
                "correct the buyer's name in the export or add a row for \"Stranger\" to customers.csv (with its VAT \
                 number and address) before the document is issued"
            ),
        "{w}"
    );
}

#[test]
fn a_missing_table_that_decides_the_type_is_an_error_and_one_that_does_not_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let m = SIMPLE.replace(
        "buyer.vat_number = { column = \"VAT\", optional = true }",
        "buyer.vat_number = { lookup = \"customers\", key = \"Customer\", get = \"vat_number\" }\n\
         buyer.district = { lookup = \"customers\", key = \"Customer\", get = \"district\" }",
    ) + "\n[lookups.customers]\nfile = \"customers.csv\"\nkey_column = \"name\"\noptional = true\n";
    let csv = "No,Date,Customer,Item,Qty,Price,Tax\nA1,05/11/2026,Known Co,Pen,1,1,\n";
    let built = |m: &str| {
        let (h, rows) = rows_from_csv(csv, 1);
        let mapping = Mapping::from_toml(m, Origin::File("t.toml".into())).unwrap();
        let b = Arc::new(Bound::new(Arc::new(mapping), &h, "t.csv", &[dir.path().to_path_buf()], None).unwrap());
        let units = group_all(&b, rows);
        let d = build(docs(&units)[0], &b, &seller());
        (
            b.notes.clone(),
            d.issues.iter().map(|(_, i)| i.clone()).collect::<Vec<_>>(),
        )
    };
    // The type is `auto`: without the table the buyer's VAT number is unknown, so is the type.
    let (notes, issues) = built(&m);
    let e = &issues[0];
    assert_eq!(
        (e.code.as_str(), e.is_error()),
        ("INV-MAP-LOOKUP-FILE", true),
        "{issues:?}"
    );
    assert!(
        e.render()
            .starts_with("INV-MAP-LOOKUP-FILE Customer \"Known Co\": customers.csv was not found")
            && e.message
                .ends_with("a customers.csv of its header line alone (name,vat_number,district) says so"),
        "{e}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.ends_with("a customers.csv of the header line name,vat_number,district alone says so")),
        "{notes:?}"
    );
    // The mapping gives the type: the table missing only leaves the buyer's fields blank.
    let (notes, issues) = built(&format!("{m}\n[rules]\ninvoice_type = \"simplified\"\n"));
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(
        (issues[0].code.as_str(), issues[0].is_error()),
        ("INV-MAP-LOOKUP", false)
    );
    assert!(
        notes.iter().any(|n| n.ends_with("its fields are left blank")),
        "{notes:?}"
    );
}

#[test]
fn a_vat_number_typed_in_arabic_indic_digits_is_the_same_number() {
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,05/11/2026,Al Ofuq,٣١٠١٢٢٣٩٣٥٠٠٠٠٣,Pen,2,10.00,\n\
         A2,05/11/2026,Al Ofuq,۳۱۰۱۲۲۳۹۳۵۰۰۰۰۳,Pen,2,10.00,\n",
        1,
    );
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    for d in docs(&units) {
        let built = build(d, &b, &seller());
        assert!(built.issues.is_empty(), "{:?}", built.issues);
        let doc = built.document.unwrap();
        assert_eq!(doc.customer_info.vat_number.as_deref(), Some("310122393500003"));
        assert_eq!(doc.invoice_type, InvoiceType::Standard);
    }
}

#[test]
fn a_key_the_table_gives_twice_differently_is_an_error_on_its_cell_and_alike_rows_are_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("customers.csv"),
        "name,vat_number,district,notes\nKnown Co,310122393500003,Olaya,a\nSame Co,300000000000003,Malaz,\n\
         known co,300000000000003,Olaya,b\nSame Co,300000000000003,Malaz,\nOther Co,311111111111113,Nakheel,x\n\
         Other Co,311111111111113,Nakheel,y\n",
    )
    .unwrap();
    let m = SIMPLE.replace(
        "buyer.vat_number = { column = \"VAT\", optional = true }",
        "buyer.vat_number = { lookup = \"customers\", key = \"Customer\", get = \"vat_number\" }\n\
         buyer.district = { lookup = \"customers\", key = \"Customer\", get = \"district\" }",
    ) + "\n[lookups.customers]\nfile = \"customers.csv\"\nkey_column = \"name\"\n";
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,Item,Qty,Price,Tax\nA1,05/11/2026,Known Co,Pen,1,1,\nA1,05/11/2026,Known Co,Ink,1,1,\n\
         A2,05/11/2026,Same Co,Pen,1,1,\nA3,05/11/2026,Other Co,Pen,1,1,\n",
        1,
    );
    let mapping = Mapping::from_toml(&m, Origin::File("t.toml".into())).unwrap();
    let b = Arc::new(Bound::new(Arc::new(mapping), &h, "t.csv", &[dir.path().to_path_buf()], None).unwrap());
    let units = group_all(&b, rows);
    let ds = docs(&units);
    let known = build(ds[0], &b, &seller());
    // Once, on the document's first row, on the key's column.
    assert_eq!(known.issues.len(), 1, "{:?}", known.issues);
    let (at, e) = &known.issues[0];
    assert_eq!(
        (*at, e.code.as_str(), e.is_error()),
        (Some(0), LOOKUP_DUPLICATE_CODE, true)
    );
    assert!(
        e.render().starts_with(
            "INV-MAP-LOOKUP-DUPLICATE Customer \"Known Co\": customers.csv gives \"Known Co\" on more than one \
             line, with different values: vat_number \"310122393500003\" on line 2, line 4 \"300000000000003\". "
        ) && e.message.contains("Keep one line per key in customers.csv"),
        "{e}"
    );
    // Rows alike, or differing only in a column the mapping does not take: nothing to say.
    for d in [ds[1], ds[2]] {
        let built = build(d, &b, &seller());
        assert!(built.issues.is_empty(), "{:?}", built.issues);
        assert_eq!(built.document.unwrap().invoice_type, InvoiceType::Standard);
    }
}

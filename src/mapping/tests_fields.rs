//! How one field is read: text and typed cells alike, unmapped fields, a `pattern`.
use super::*;

#[test]
fn a_field_not_mapped_reads_as_nothing() {
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,05/11/2026,Al Ofuq,,Pen,x,10.00,\n",
        1,
    );
    let b = bound(SIMPLE, &h);
    let mapped: Vec<&str> = crate::mapping::fields::FIELDS
        .iter()
        .enumerate()
        .filter(|(f, _)| b.maps(*f))
        .map(|(_, d)| d.name)
        .collect();
    assert_eq!(
        mapped,
        [
            "number",
            "issue_date",
            "buyer.name",
            "buyer.vat_number",
            "line.item_name",
            "line.quantity",
            "line.unit_price",
            "line.tax"
        ]
    );
    for (f, def) in crate::mapping::fields::FIELDS.iter().enumerate() {
        let read = b.field(f, &rows[0], None);
        if !b.maps(f) {
            assert_eq!(read, Ok(None), "{}", def.name);
        }
    }
    // A mapped field is read, value or error: the quantity "x" is an error, not nothing.
    assert!(
        b.field(crate::mapping::fields::fid!("line.quantity"), &rows[0], None)
            .is_err()
    );
}

/// A field read straight from its column and one read through the general path (a default, a
/// value map, an untrimmed column, a spreadsheet's typed cell) give what the mapping says, on a
/// CSV row (text cells) and on a spreadsheet row (cells) alike.
#[test]
fn fields_read_the_same_from_text_and_from_cells() {
    let toml = r#"
[defaults]
date_format = "%d/%m/%Y"
[fields]
number = "No"
issue_date = "Date"
line.item_name = "Name"
buyer.name = "Name"
buyer.vat_number = "VAT"
buyer.city = { column = "City", trim = false }
line.quantity = { column = "Qty", default = "1" }
line.unit_price = "Price"
kind = { column = "Kind", map = { "CN" = "credit_note", "*" = "invoice" } }
"#;
    let headers = vec![
        ["No", "Name", "City", "Qty", "Price", "Kind", "Date", "VAT"]
            .map(String::from)
            .to_vec(),
    ];
    let b = bound(toml, &headers);
    let texts = [" A1 ", "  Al Ofuq ", "  ", "", " 2.50 ", "cn", "05/11/2026", ""];
    let source = SourceRef {
        file: Arc::from("test.csv"),
        sheet: None,
        line: 2,
    };
    let mut text = String::new();
    let mut ends = Vec::new();
    for t in texts {
        text.push_str(t);
        ends.push(text.len());
    }
    let csv_row = Row::from_text(source.clone(), &text, &ends, texts.len(), 0).unwrap();
    let mut cells: Vec<Cell> = texts
        .iter()
        .map(|t| {
            if t.is_empty() {
                Cell::Empty
            } else {
                Cell::Text((*t).into())
            }
        })
        .collect();
    let sheet_row = Row::new(source.clone(), cells.clone());
    cells[4] = Cell::Number(dec!(2.50));
    let typed_row = Row::new(source, cells);
    let value = |row: &Row, name: &str| {
        b.field(fields::field_id(name).unwrap(), row, None)
            .unwrap()
            .map(|s| s.value)
    };
    for row in [&csv_row, &sheet_row, &typed_row] {
        assert_eq!(value(row, "number"), Some(Value::Text("A1".into())));
        assert_eq!(value(row, "buyer.name"), Some(Value::Text("Al Ofuq".into())));
        // Not trimmed: white space is the value.
        assert_eq!(value(row, "buyer.city"), Some(Value::Text("  ".into())));
        // Blank: the default, or nothing.
        assert_eq!(value(row, "line.quantity"), Some(Value::Decimal(dec!(1))));
        assert_eq!(value(row, "buyer.vat_number"), None);
        assert_eq!(value(row, "line.unit_price"), Some(Value::Decimal(dec!(2.50))));
        assert_eq!(value(row, "kind"), Some(Value::Kind(DocumentKind::CreditNote)));
        assert_eq!(
            value(row, "issue_date"),
            Some(Value::Date(chrono::NaiveDate::from_ymd_opt(2026, 11, 5).unwrap()))
        );
    }
}

/// A field's `pattern` reads part of its text; a text it does not match is blank, so the default
/// applies. Odoo's reversal wizard writes a credit note's `ref` as `Reversal of: <invoice>,
/// <reason>`: the bundled mapping reads the invoice's number (found in the file, with its date)
/// and the reason from it, and a plain `ref` still gives the number and the default reason.
#[test]
fn a_pattern_reads_odoos_reversal_text_into_the_invoice_number_and_the_reason() {
    let csv = "name,move_type,partner_id,invoice_date,invoice_date_due,ref,currency_id,invoice_line_ids/name,invoice_line_ids/product_id,invoice_line_ids/quantity,invoice_line_ids/price_unit,invoice_line_ids/discount,invoice_line_ids/tax_ids\n\
               INV/2026/00041,out_invoice,Al Ofuq Trading Co.,2026-11-05,2026-12-05,PO-991,SAR,Router,Router,2,1500.00,0,15%\n\
               RINV/2026/00005,out_refund,Al Ofuq Trading Co.,2026-11-16,2026-11-16,\"Reversal of: INV/2026/00041, damaged router\",SAR,Router,Router,1,1500.00,0,15%\n\
               RINV/2026/00006,out_refund,Al Ofuq Trading Co.,2026-11-17,2026-11-17,INV/2026/00041,SAR,Router,Router,1,1500.00,0,15%\n";
    let (h, rows) = rows_from_csv(csv, 1);
    let m = super::bundled::get("odoo").unwrap().unwrap();
    let b = Arc::new(Bound::new(Arc::new(m), &h, "test.csv", &[], None).unwrap());
    let units = group_all(&b, rows);
    let built: Vec<_> = docs(&units)
        .into_iter()
        .map(|d| build(d, &b, &seller()).document.unwrap())
        .collect();
    let reference = "Invoice Number: INV/2026/00041; Invoice Issue Date: 2026-11-05";
    assert_eq!(built[1].billing_reference.as_deref(), Some(reference));
    assert_eq!(
        built[1].payment_means_instruction_note.as_deref(),
        Some("damaged router")
    );
    assert_eq!(built[2].billing_reference.as_deref(), Some(reference));
    assert_eq!(
        built[2].payment_means_instruction_note.as_deref(),
        Some("Refund issued in Odoo | إشعار دائن")
    );
    // An invalid pattern is a loading error naming the field.
    let bad = SIMPLE.replace("[taxes]", "note = { column = \"Item\", pattern = '(' }\n[taxes]");
    let e = Mapping::from_toml(&bad, Origin::File("m.toml".into()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("fields.\"note\".pattern") && e.contains("a regular expression"),
        "{e}"
    );
}

#[test]
fn quantities_and_prices_past_six_decimals_are_rounded_and_said() {
    // D12: the API takes quantities and unit prices with at most 6 decimals.
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
         A1,05/11/2026,X,,Pen,1.2345675,10.1234565,\n\
         A1,05/11/2026,X,,Ink,2.500000000,3.123456,\n",
        1,
    );
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    // Half away from zero; trailing zeros are no decimals.
    assert_eq!(
        issues_on(&built, 0),
        [
            "INV-MAP-DECIMALS Qty \"1.2345675\": 7 decimals where the API takes at most 6: issued as \
             1.234568; give it with 6 decimals in the export to issue it as it is",
            "INV-MAP-DECIMALS Price \"10.1234565\": 7 decimals where the API takes at most 6: issued \
             as 10.123457; give it with 6 decimals in the export to issue it as it is",
        ]
    );
    assert!(issues_on(&built, 1).is_empty(), "{:?}", built.issues);
    assert!(
        built
            .issues
            .iter()
            .all(|(_, i)| i.severity == crate::validate::Severity::Warning)
    );
    let d = built.document.expect("issued, with a warning");
    let l = &d.invoice_lines;
    assert_eq!(
        (l[0].quantity, l[0].price.price_per_unit),
        (dec!(1.234568), dec!(10.123457))
    );
    assert_eq!(
        (l[1].quantity, l[1].price.price_per_unit),
        (dec!(2.500000000), dec!(3.123456))
    );
}

#[test]
fn a_discounted_unit_price_is_issued_to_six_decimals() {
    // 10.123456 less 7 % is 9.41481408: the price issued is 9.414814, its discount the rest.
    let toml = SIMPLE.replace("[taxes]", "line.discount_percent = \"Disc\"\n[taxes]");
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax,Disc\nA1,05/11/2026,X,,Pen,3,10.123456,,7\n",
        1,
    );
    let b = bound(&toml, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    assert!(built.issues.is_empty(), "{:?}", built.issues);
    let price = &built.document.expect("issued").invoice_lines[0].price;
    assert_eq!(price.price_per_unit, dec!(9.414814));
    let ac = price.allowance_charge.as_ref().expect("the discount");
    assert_eq!((ac.base_amount, ac.amount), (dec!(10.123456), dec!(0.708642)));
}

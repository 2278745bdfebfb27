//! Zoho Books invoices with a discount on the whole invoice ("Discount Type" entity_level),
//! through the real binary: `check` finds them valid, `run` issues them to a sandbox on loopback
//! with the discount as document-level allowances (one per VAT category), the amount due is
//! Zoho's Total, and the issued XML passes the authority's validator. A discount given after tax
//! is an error on its cell, and nothing of that invoice is sent.

use super::support::*;
use chrono::{FixedOffset, Utc};
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// Zoho's columns this export carries (the real one has about 100, in any order).
const HEADER: &str = "Invoice Number,Invoice Date,Invoice Status,Customer Name,Is Inclusive Tax,Currency Code,\
                      Discount Type,Is Discount Before Tax,Entity Discount Percent,Entity Discount Amount,Item Name,\
                      Quantity,Item Price,Discount Amount,Item Tax,Item Tax Amount,Item Tax Exemption Reason,\
                      Item Total,SubTotal,Total,Billing Address,Billing City,Billing Country,Billing Code";

/// One line row: the document's number and discount columns, the line, and the document's totals.
struct Row<'a> {
    number: &'a str,
    discount: (&'a str, &'a str, &'a str, &'a str),
    line: (&'a str, &'a str, &'a str, &'a str, &'a str, &'a str, &'a str),
    totals: (&'a str, &'a str),
}

/// The export: invoices issued today (Riyadh) to a buyer of `customers.csv`, at prices without
/// VAT. Each line's Item Tax Amount is Zoho's: VAT on the line less its share of the discount.
fn zoho_export(dir: &Path, name: &str) {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let today = Utc::now().with_timezone(&riyadh).format("%Y-%m-%d").to_string();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.join("customers.csv")).unwrap();
    let entity = ("entity_level", "true", "10.00", "235.00");
    let five = ("entity_level", "true", "0.00", "5.00");
    let mut rows = vec![
        // 850.00 at 15 % and 1500.00 zero-rated, 10 % off: 85.00 and 150.00 off; VAT on 765.00.
        Row {
            number: "ZD-1",
            discount: entity,
            line: ("Syringes", "10", "85.00", "0.00", "VAT 15", "114.75", ""),
            totals: ("2350.00", "2229.75"),
        },
        Row {
            number: "ZD-1",
            discount: entity,
            line: (
                "Insulin",
                "25",
                "60.00",
                "0.00",
                "Zero Rate",
                "0.00",
                "Medicines | أدوية",
            ),
            totals: ("2350.00", "2229.75"),
        },
    ];
    // Five lines of 10.03 at 15 %, 5.00 off: Zoho's VAT is 1.35 a line (6.75), the authority's
    // 6.77 on the category: Total 51.90, issued with a rounding amount of -0.02.
    for _ in 0..5 {
        rows.push(Row {
            number: "ZD-2",
            discount: five,
            line: ("Notebook", "1", "10.03", "0.00", "VAT 15", "1.35", ""),
            totals: ("50.15", "51.90"),
        });
    }
    rows.extend([
        // A discount on the item: the entity discount columns are not read.
        Row {
            number: "ZD-3",
            discount: ("item_level", "true", "0.00", "10.00"),
            line: ("Syringes", "10", "85.00", "10.00", "VAT 15", "126.00", ""),
            totals: ("840.00", "966.00"),
        },
        // Given after tax: cannot be issued.
        Row {
            number: "ZD-4",
            discount: ("entity_level", "false", "0.00", "50.00"),
            line: ("Syringes", "10", "85.00", "0.00", "VAT 15", "127.50", ""),
            totals: ("850.00", "927.50"),
        },
    ]);
    let mut out = format!("{HEADER}\n");
    for r in rows {
        let (kind, before, percent, amount) = r.discount;
        let (item, qty, price, line_discount, tax, vat, reason) = r.line;
        let net = (qty.parse::<f64>().unwrap() * price.parse::<f64>().unwrap()) - line_discount.parse::<f64>().unwrap();
        let (sub, total) = r.totals;
        out.push_str(&format!(
            "{},{today},Sent,Gulf Medical Supplies LLC,false,SAR,{kind},{before},{percent},{amount},{item},{qty},\
             {price},{line_discount},{tax},{vat},{reason},{net:.2},{sub},{total},Prince Mohammed bin Fahd Road,\
             Dammam,Saudi Arabia,32272\n",
            r.number
        ));
    }
    std::fs::write(dir.join(name), out).unwrap();
}

/// The text of every `<cbc:name ...>` element of `xml`, in order.
fn elements<'a>(xml: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<cbc:{name}");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(at) = rest.find(&open) {
        let after = at + open.len();
        // `<cbc:Amount ` or `<cbc:Amount>`, not `<cbc:AmountOther`.
        if !rest[after..].starts_with([' ', '>']) {
            rest = &rest[after..];
            continue;
        }
        let from = after + rest[after..].find('>').unwrap() + 1;
        let to = from + rest[from..].find('<').unwrap();
        out.push(&rest[from..to]);
        rest = &rest[to..];
    }
    out
}

/// The document-level `cac:AllowanceCharge` elements of an invoice (before its lines).
fn document_allowances(xml: &str) -> Vec<&str> {
    let head = &xml[..xml.find("<cac:InvoiceLine>").expect("lines")];
    head.split("<cac:AllowanceCharge>").skip(1).collect()
}

#[test]
fn zoho_invoices_with_a_discount_on_the_whole_invoice_are_valid_and_issued_as_zoho_totals_them() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    zoho_export(d, "zoho.csv");

    // `check`: the discounted invoices are valid; the one discounted after tax is not, said on
    // its "Is Discount Before Tax" cell.
    let o = run(
        d,
        &env,
        &["check", "--mapping", "zoho-books", "zoho.csv", "--results", "checked"],
    );
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let rows = results(&d.join("checked/zoho.result.csv"));
    assert_eq!(rows.len(), 9);
    let first = |number: &str| rows.iter().find(|r| r["result_document"] == number).unwrap().clone();
    for number in ["ZD-1", "ZD-2", "ZD-3"] {
        let r = first(number);
        assert_eq!(r["result_status"], "valid", "{r:?}");
        assert!(r["result_errors"].is_empty(), "{r:?}");
    }
    assert!(first("ZD-2")["result_warnings"].starts_with("INV-ERP-TOTAL-ROUNDING Total \"51.90\": "));
    let after = first("ZD-4");
    assert_eq!(after["result_status"], "invalid");
    let e = &after["result_errors"];
    assert!(
        e.starts_with(
            "INV-MAP-DISCOUNT Is Discount Before Tax \"false\": this document's discount on the whole document \
             (50.00) is given after tax"
        ) && e.contains("Give the discount before tax in the ERP")
            && e.contains("or as discounts on the lines")
            && !e.contains("INV-ERP-TOTAL"),
        "{e}"
    );

    // `run`: the same three are accepted, the fourth is not sent.
    let o = run(d, &env, &["run", "--mapping", "zoho-books", "zoho.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(server.accepted(), 3, "{out}");
    let results_dir = d.join("results");
    let rows = results(&results_dir.join("zoho.result.csv"));
    let docs = results(&results_dir.join("zoho.documents.csv"));
    let mut files = Vec::new();
    for (number, allowances, tax_inclusive, payable) in [
        (
            "ZD-1",
            vec![("85.00", "S", "15.00"), ("150.00", "Z", "0.00")],
            "2229.75",
            "2229.75",
        ),
        ("ZD-2", vec![("5.00", "S", "15.00")], "51.92", "51.90"),
        ("ZD-3", vec![], "966.00", "966.00"),
    ] {
        let first = rows.iter().find(|r| r["result_document"] == number).unwrap();
        assert_eq!(first["result_status"], "accepted", "{first:?}");
        let doc = docs.iter().find(|r| r["document"] == number).unwrap();
        assert_eq!(doc["payable"], payable, "{doc:?}");
        let xml_path = results_dir.join(&first["result_xml_file"]);
        let xml = std::fs::read_to_string(&xml_path).unwrap();
        // The amount due is Zoho's Total.
        assert_eq!(elements(&xml, "PayableAmount"), [payable], "{number}");
        assert_eq!(elements(&xml, "TaxInclusiveAmount"), [tax_inclusive], "{number}");
        let got: Vec<(&str, &str, &str)> = document_allowances(&xml)
            .into_iter()
            .map(|ac| {
                assert_eq!(elements(ac, "AllowanceChargeReason"), ["Discount"]);
                let pct = ac
                    .split("<cbc:Percent>")
                    .nth(1)
                    .map_or("", |p| &p[..p.find('<').unwrap()]);
                let id = ac.split("<cbc:ID").nth(1).map_or("", |p| {
                    let p = &p[p.find('>').unwrap() + 1..];
                    &p[..p.find('<').unwrap()]
                });
                (elements(ac, "Amount")[0], id, pct)
            })
            .collect();
        let want: Vec<(&str, &str, &str)> = allowances.clone();
        if want.is_empty() {
            // No discount: the usual zero discount, as every document carries one.
            assert!(got.iter().all(|(a, _, _)| *a == "0.00"), "{number}: {got:?}");
        } else {
            assert_eq!(got, want, "{number}");
        }
        files.push(xml_path);
    }
    let after = rows.iter().find(|r| r["result_document"] == "ZD-4").unwrap();
    assert_eq!(after["result_status"], "invalid");
    assert!(after["result_errors"].starts_with("INV-MAP-DISCOUNT Is Discount Before Tax"));
    // The authority's schema and rules accept what was issued.
    authority_accepts(&files, true);
    // What reconciliation reads from the signed XML agrees with the result files.
    let o = run(d, &env, &["report", "results"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("everything reconciles"), "{}", text(&o));
}

//! Tax-inclusive invoices whose export adds up line totals rounded one by one, through the real
//! binary and a sandbox on loopback: issued with the computed VAT and the export's total as the
//! amount due (a rounding amount, BT-114), said in a warning; the XML passes the authority's
//! validator, its QR carries the amount due, and the result files show what was issued. A total
//! that rounding does not explain is still an error, and nothing is sent.

use super::support::*;
use base64::Engine as _;
use chrono::{FixedOffset, Utc};
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// A Zoho Books export of tax-inclusive standard invoices issued today (Riyadh) to a buyer of
/// `customers.csv`: per document its number, how many lines of 10.00 with 15 % VAT, and its Total.
fn zoho_export(dir: &Path, name: &str, docs: &[(&str, usize, &str)]) {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let today = Utc::now().with_timezone(&riyadh).format("%Y-%m-%d").to_string();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.join("customers.csv")).unwrap();
    let mut out = String::from(
        "Invoice Number,Invoice Date,Invoice Status,Customer Name,Is Inclusive Tax,Currency Code,Item Tax,Quantity,\
         Item Price,Item Name,Item Tax Amount,Item Total,Total,Billing Address,Billing City,Billing Country,Billing Code\n",
    );
    for (number, lines, total) in docs {
        for i in 1..=*lines {
            out.push_str(&format!(
                "{number},{today},Sent,Gulf Medical Supplies LLC,true,SAR,VAT 15,1,10.00,Item {i},1.30,10.00,{total},\
                 Prince Mohammed bin Fahd Road,Dammam,Saudi Arabia,32272\n"
            ));
        }
    }
    std::fs::write(dir.join(name), out).unwrap();
}

/// The value of QR tag `tag` (TLV, zatca.md §6) in a base64 payload.
fn qr_tag(payload: &str, tag: u8) -> String {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap_or_else(|e| panic!("{e}: {payload}"));
    let mut at = 0;
    while at + 2 <= bytes.len() {
        let (t, len) = (bytes[at], usize::from(bytes[at + 1]));
        let value = &bytes[at + 2..at + 2 + len];
        if t == tag {
            return String::from_utf8_lossy(value).into_owned();
        }
        at += 2 + len;
    }
    panic!("no QR tag {tag} in {payload}");
}

/// The text of the first `<cbc:name ...>` element of `xml`.
fn element<'a>(xml: &'a str, name: &str) -> &'a str {
    let open = format!("<cbc:{name} ");
    let from = xml.find(&open).unwrap_or_else(|| panic!("no {name} in the XML"));
    let from = from + xml[from..].find('>').unwrap() + 1;
    &xml[from..from + xml[from..].find('<').unwrap()]
}

#[test]
fn an_inclusive_total_rounded_per_line_is_issued_as_the_amount_due_and_other_differences_are_not() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    // 3 lines: 26.10 net, VAT 3.92 on the category, 30.02; 5 lines: 43.50, 6.53, 50.03.
    zoho_export(dir.path(), "zoho.csv", &[("Z-1", 3, "30.00"), ("Z-2", 5, "50.00")]);
    let o = run(dir.path(), &env, &["run", "--mapping", "zoho-books", "zoho.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("2 accepted") && out.contains("INV-ERP-TOTAL-ROUNDING"),
        "{out}"
    );
    assert_eq!(server.accepted(), 2);

    let results_dir = dir.path().join("results");
    let rows = results(&results_dir.join("zoho.result.csv"));
    assert_eq!(rows.len(), 8);
    for r in &rows {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
        assert!(r["result_errors"].is_empty(), "{r:?}");
    }
    let docs = results(&results_dir.join("zoho.documents.csv"));
    let mut files = Vec::new();
    for (number, gross, vat, rounding, payable) in [
        ("Z-1", "30.02", "3.92", "-0.02", "30.00"),
        ("Z-2", "50.03", "6.53", "-0.03", "50.00"),
    ] {
        let first = rows.iter().find(|r| r["result_document"] == number).unwrap();
        // Said once, on the document's first row, in words a clerk can check.
        let w = &first["result_warnings"];
        assert!(
            w.starts_with(&format!("INV-ERP-TOTAL-ROUNDING Total \"{payable}\": ")) && !w.contains(" | "),
            "{w}"
        );
        assert!(
            w.contains(&format!(
                "the payable amount is {payable} as the export says, with a rounding amount of {rounding} (BT-114)"
            )) && w.contains(&format!("which gives {gross} (VAT {vat})")),
            "{w}"
        );
        // The QR carries the amount due (tag 4) and the VAT (tag 5), as the XML does.
        assert_eq!(qr_tag(&first["result_qr"], 4), payable);
        assert_eq!(qr_tag(&first["result_qr"], 5), vat);
        let d = docs.iter().find(|d| d["document"] == number).unwrap();
        assert_eq!(
            (
                d["status"].as_str(),
                d["vat"].as_str(),
                d["gross"].as_str(),
                d["payable"].as_str()
            ),
            ("accepted", vat, gross, payable),
            "{d:?}"
        );
        assert_eq!(
            (d["errors"].as_str(), d["warnings"].as_str()),
            ("", "INV-ERP-TOTAL-ROUNDING")
        );
        let xml_path = results_dir.join(&first["result_xml_file"]);
        let xml = std::fs::read_to_string(&xml_path).unwrap();
        assert_eq!(element(&xml, "TaxInclusiveAmount"), gross);
        assert_eq!(element(&xml, "PayableRoundingAmount"), rounding);
        assert_eq!(element(&xml, "PayableAmount"), payable);
        files.push(xml_path);
    }
    // The summary counts what was issued: the computed net, VAT and total with VAT.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results_dir.join("zoho.summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["by_status"]["accepted"]["amounts"]["SAR"],
        serde_json::json!({"net": "69.60", "vat": "10.45", "gross": "80.05"}),
        "{summary:#}"
    );
    // The authority's schema and rules accept the issued XML as it is, without a warning.
    assert_eq!(files.len(), 2);
    authority_accepts(&files, true);
    // What reconciliation reads from the signed XML agrees with the result files.
    let o = run(dir.path(), &env, &["report", "results"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("everything reconciles"), "{}", text(&o));

    // A total that per-line rounding does not explain stays an error: not sent.
    zoho_export(dir.path(), "off.csv", &[("Z-3", 3, "30.05")]);
    let o = run(dir.path(), &env, &["run", "--mapping", "zoho-books", "off.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(server.accepted(), 2, "nothing more sent");
    let rows = results(&results_dir.join("off.result.csv"));
    assert_eq!(rows[0]["result_status"], "invalid");
    let e = &rows[0]["result_errors"];
    assert!(
        e.starts_with(
            "INV-ERP-TOTAL Total \"30.05\": The export gives the total with VAT as 30.05 but it computes to 30.02."
        ) && !e.contains("one to send"),
        "{e}"
    );
}

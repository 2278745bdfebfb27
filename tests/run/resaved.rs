//! An issued export saved again by a spreadsheet, which writes `10.5` for `10.50` and `11` for
//! `11.00`: the same documents, reported issued from the ledger, not in conflict with it; a
//! price that really changed still is.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;

/// Every amount of the form `10.50` or `11.00` written as a spreadsheet re-saves it.
fn trailing_zeros_dropped(csv: &str) -> String {
    let mut out = String::with_capacity(csv.len());
    for (i, line) in csv.lines().enumerate() {
        let cells: Vec<String> = line
            .split(',')
            .map(|c| {
                let amount = i > 0 && c.contains('.') && c.chars().all(|ch| ch.is_ascii_digit() || ch == '.');
                if amount {
                    c.trim_end_matches('0').trim_end_matches('.').to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[test]
fn an_issued_export_resaved_with_fewer_decimal_places_is_not_a_conflict() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let export = d.join("x.csv");
    // T-00002 at 10.50, T-00004 at 11.00.
    xero_export(&export, 4);
    let o = run(d, &env, &["run", "x.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(requests(&server).0, 4);

    let original = std::fs::read_to_string(&export).unwrap();
    let resaved = trailing_zeros_dropped(&original);
    assert!(resaved.contains(",10.5,") && resaved.contains(",11,"), "{resaved}");
    std::fs::write(&export, &resaved).unwrap();
    let o = run(d, &env, &["run", "x.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("INV-LEDGER-CONFLICT"), "{out}");
    assert_eq!(requests(&server).0, 4, "nothing sent again: {out}");
    let docs = results(&d.join("results/x.documents.csv"));
    assert!(docs.iter().all(|r| r["status"] == "accepted"), "{docs:?}");
    let t2 = docs.iter().find(|r| r["document"] == "T-00002").unwrap();
    assert_eq!(t2["net"], "10.50", "the issued figures: {t2:?}");

    // A price that changed: in conflict, and what differs names it, not the decimal places of
    // the others.
    std::fs::write(&export, resaved.replacen(",10.5,", ",10.51,", 1)).unwrap();
    let o = run(d, &env, &["run", "x.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let rows = results(&d.join("results/x.result.csv"));
    let t2 = rows.iter().find(|r| r["result_document"] == "T-00002").unwrap();
    let errors = &t2["result_errors"];
    assert!(
        errors.contains("INV-LEDGER-CONFLICT")
            && errors.contains("invoice_lines[0].price.price_per_unit 10.51 (issued: 10.50)"),
        "{errors}"
    );
    let t4 = rows.iter().find(|r| r["result_document"] == "T-00004").unwrap();
    assert_eq!(t4["result_errors"], "", "{t4:?}");
    assert_eq!(requests(&server).0, 4, "{out}");
}

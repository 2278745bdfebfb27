//! A customers table that is not there: its buyers' VAT numbers decide each document's type, so
//! `run` sends none of them (`INV-MAP-LOOKUP-FILE`, saying what to put where) instead of issuing
//! every B2B invoice as simplified; put in place, the same export is issued with its types; gone
//! again, the issued documents are reported from the ledger, not in conflict.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;

#[test]
fn without_the_customers_table_nothing_is_sent_and_with_it_b2b_invoices_are_standard() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    // In a folder of its own: the table the tests put beside their exports is not beside it.
    std::fs::create_dir(d.join("x")).unwrap();
    std::fs::copy(samples.join("xero_sales_invoices.csv"), d.join("x/xero.csv")).unwrap();

    let o = run(d, &env, &["run", "x/xero.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(requests(&server), (0, 0, 0), "nothing sent: {out}");
    assert!(
        out.contains("note: lookup file customers.csv not found beside the export or the mapping: the buyers' VAT numbers come from it, so no document whose type they decide is issued (INV-MAP-LOOKUP-FILE, on each)"),
        "{out}"
    );
    let docs = results(&d.join("results/xero.documents.csv"));
    let invalid: Vec<&str> = docs
        .iter()
        .filter(|r| r["status"] == "invalid")
        .map(|r| r["document"].as_str())
        .collect();
    assert_eq!(
        invalid,
        ["INV-0101", "INV-0102", "INV-0105", "CN-0006", "INV-0107"],
        "{out}"
    );
    assert!(
        docs.iter()
            .all(|r| r["status"] != "invalid" || r["errors"] == "INV-MAP-LOOKUP-FILE"),
        "{docs:?}"
    );
    let rows = results(&d.join("results/xero.result.csv"));
    assert!(
        rows[0]["result_errors"]
            .starts_with("INV-MAP-LOOKUP-FILE ContactName \"Al Ofuq Trading Co.\": customers.csv was not found"),
        "{:?}",
        rows[0]
    );

    // The table put beside the export: the same export is issued, its B2B invoices standard.
    std::fs::copy(samples.join("customers.csv"), d.join("x/customers.csv")).unwrap();
    let o = run(d, &env, &["run", "x/xero.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(requests(&server).0, 5, "{out}");
    // The sample's last two rows are only commas: no rows of the result file, counted in a note
    // once the rows are read, while documents were being sent.
    let blank = "2 row(s) hold only empty cells (the first at line 16): no data, so not in the result file";
    assert!(out.contains(&format!("note: {blank}")), "{out}");
    let summary = std::fs::read_to_string(d.join("results/xero.summary.json")).unwrap();
    assert!(summary.contains(blank), "{summary}");
    let docs = results(&d.join("results/xero.documents.csv"));
    let first = docs.iter().find(|r| r["document"] == "INV-0101").unwrap();
    assert_eq!(
        (first["status"].as_str(), first["type"].as_str()),
        ("accepted", "standard")
    );
    let issued: Vec<_> = docs
        .iter()
        .map(|r| (r["document"].clone(), r["status"].clone(), r["vat"].clone()))
        .collect();

    // The same export again, the table gone: reported from the ledger as issued, with the
    // issued figures; its blank buyer fields are no change to credit (no conflict), nothing sent.
    std::fs::remove_file(d.join("x/customers.csv")).unwrap();
    let o = run(d, &env, &["run", "x/xero.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("INV-LEDGER-CONFLICT"), "{out}");
    assert_eq!(requests(&server).0, 5, "nothing sent again: {out}");
    let docs = results(&d.join("results/xero.documents.csv"));
    let again: Vec<_> = docs
        .iter()
        .map(|r| (r["document"].clone(), r["status"].clone(), r["vat"].clone()))
        .collect();
    assert_eq!(again, issued);
    let rows = results(&d.join("results/xero.result.csv"));
    assert_eq!(rows[0]["result_status"], "accepted");
    assert!(
        rows[0]["result_warnings"]
            .starts_with("INV-MAP-LOOKUP-FILE ContactName \"Al Ofuq Trading Co.\": customers.csv was not found")
            && rows[0]["result_warnings"]
                .contains("it is not sent (one issued earlier stays issued, reported from the ledger)"),
        "{:?}",
        rows[0]
    );
    let o = run(d, &[], &["report", "results"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

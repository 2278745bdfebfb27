//! A customers table giving one key on two lines with different values (another VAT number):
//! the documents that look the key up are not issued (`INV-MAP-LOOKUP-DUPLICATE` on the key's
//! cell, naming the table's lines and what differs) instead of taking the first line silently;
//! the same line given twice alike is harmless.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;

#[test]
fn a_buyer_key_given_twice_differently_is_not_issued_and_alike_lines_are_harmless() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for f in ["customers.csv", "credit_notes.csv", "sage50_invoices.csv"] {
        std::fs::copy(samples.join(f), d.join(f)).unwrap();
    }
    let table = std::fs::read_to_string(samples.join("customers.csv")).unwrap();
    let ofuq = table.lines().find(|l| l.contains(",OFUQ001,")).unwrap().to_string();
    let lines = table.lines().count();
    std::fs::write(
        d.join("customers.csv"),
        format!("{table}{}\n", ofuq.replace("310122393500003", "300000000000003")),
    )
    .unwrap();

    let o = run(d, &env, &["run", "sage50_invoices.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let rows = results(&d.join("results/sage50_invoices.result.csv"));
    let first = rows.iter().find(|r| r["INVOICE_NUMBER"] == "SI-1001").unwrap();
    assert_eq!(first["result_status"], "invalid", "{first:?}");
    let said = format!(
        "INV-MAP-LOOKUP-DUPLICATE ACCOUNT_REF \"OFUQ001\": customers.csv gives \"OFUQ001\" on more than one line, \
         with different values: vat_number \"310122393500003\" on line 2, line {} \"300000000000003\"",
        lines + 1
    );
    assert!(first["result_errors"].starts_with(&said), "{first:?}");
    assert!(
        first["result_errors"].contains("Keep one line per key in customers.csv"),
        "{first:?}"
    );
    assert!(out.contains(&said), "{out}");
    // Not issued with either VAT number.
    assert!(
        !server
            .issued(&onboard_id(&d.join(".invoicedrop")))
            .iter()
            .any(|n| n == "SI-1001"),
        "{out}"
    );

    // The same line twice alike: issued, standard, with its one VAT number.
    std::fs::write(d.join("customers.csv"), format!("{table}{ofuq}\n")).unwrap();
    let o = run(d, &env, &["run", "sage50_invoices.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("INV-MAP-LOOKUP-DUPLICATE"), "{out}");
    let docs = results(&d.join("results/sage50_invoices.documents.csv"));
    let si = docs.iter().find(|r| r["document"] == "SI-1001").unwrap();
    assert_eq!(
        (si["status"].as_str(), si["type"].as_str()),
        ("accepted", "standard"),
        "{si:?}"
    );
}

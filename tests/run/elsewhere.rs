//! An export run again through another state folder, into the results of the run that issued
//! it: the documents its result set lists as accepted are not issued a second time
//! (`INV-ISSUED-ELSEWHERE`, failed, nothing sent); a document new to the export is sent; the
//! state folder that issued them reports them issued, as always.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;

#[test]
fn documents_its_results_list_as_accepted_are_not_sent_again_through_another_state_folder() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (state, device) in [("st1", "till-1"), ("st2", "till-2")] {
        let o = run(
            d,
            &env,
            &["onboard", "--otp", "123456", "--device-id", device, "--state", state],
        );
        assert!(o.status.success(), "{}", text(&o));
    }
    let export = d.join("x.csv");
    xero_export(&export, 3);
    let o = run(d, &env, &["run", "x.csv", "--state", "st1"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 3);
    let issued = results(&d.join("results/x.documents.csv"));

    // One more document in the export, and the other state folder: only the new one is sent.
    let three = std::fs::read_to_string(&export).unwrap();
    xero_export(&export, 4);
    let four = std::fs::read_to_string(&export).unwrap();
    assert!(four.starts_with(&three));
    let o = run(d, &env, &["--json", "run", "x.csv", "--state", "st2"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(server.accepted(), 4, "only T-00004 was sent: {out}");
    let rows = results(&d.join("results/x.result.csv"));
    for r in &rows[..3] {
        assert_eq!(r["result_status"], "failed", "{r:?}");
        let errors = &r["result_errors"];
        let uuid = &issued.iter().find(|i| i["document"] == r["result_document"]).unwrap()["uuid"];
        assert!(
            errors.starts_with("INV-ISSUED-ELSEWHERE: not sent: ")
                && errors.contains(&format!(
                    "x.documents.csv lists invoice {} as accepted (UUID {uuid})",
                    r["result_document"]
                ))
                && errors.contains("st2 holds nothing under that number")
                && errors.contains("Run with the state folder that issued it"),
            "{errors}"
        );
    }
    assert_eq!(rows[3]["result_status"], "accepted", "{:?}", rows[3]);
    // The issued documents stay in the set, as issued (kept from the set it replaced).
    let docs = results(&d.join("results/x.documents.csv"));
    for i in &issued {
        assert!(
            docs.iter()
                .any(|r| r["document"] == i["document"] && r["status"] == "accepted" && r["uuid"] == i["uuid"]),
            "{} kept as issued: {docs:?}",
            i["document"]
        );
    }

    // The same run again through st2: still nothing sent twice (the kept records say so).
    let o = run(d, &env, &["run", "x.csv", "--state", "st2"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(server.accepted(), 4);

    // Through the state folder that issued them: accepted from its ledger, nothing sent.
    let o = run(d, &env, &["run", "x.csv", "--state", "st1"]);
    let out = text(&o);
    assert_eq!(server.accepted(), 4, "{out}");
    let rows = results(&d.join("results/x.result.csv"));
    for r in &rows[..3] {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
    }
    // T-00004, issued through st2, is now the one st1's ledger does not know.
    assert_eq!(rows[3]["result_status"], "failed", "{:?}", rows[3]);
    assert!(rows[3]["result_errors"].contains("st1 holds nothing"), "{:?}", rows[3]);
    assert_eq!(o.status.code(), Some(1), "{out}");
}

/// A credit note whose invoice was issued through another state folder is not held back as the
/// note of an invoice "not sent": it is issued too (listed in the results) and says so.
#[test]
fn a_note_of_an_invoice_issued_elsewhere_says_it_was_issued_elsewhere_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("xero_sales_invoices.csv"), d.join("x.csv")).unwrap();
    std::fs::copy(samples.join("customers.csv"), d.join("customers.csv")).unwrap();
    let o = run(d, &[], &["run", "x.csv", "--state", "st1"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = run(d, &[], &["run", "x.csv", "--state", "st2"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let rows = results(&d.join("results/x.result.csv"));
    // Said once per document, on its first row; its other rows refer to it.
    let inv = rows
        .iter()
        .filter(|r| r["result_document"] == "INV-0101")
        .collect::<Vec<_>>();
    assert_eq!(inv.len(), 3);
    assert!(
        inv[0]["result_errors"].starts_with("INV-ISSUED-ELSEWHERE"),
        "{:?}",
        inv[0]
    );
    for r in &inv[1..] {
        assert_eq!(r["result_status"], "failed");
        assert_eq!(
            r["result_errors"], "INV-DOCUMENT: the document has errors on another row (line 2)",
            "{r:?}"
        );
    }
    let note = rows.iter().find(|r| r["result_document"] == "CN-0006").unwrap();
    assert_eq!(note["result_status"], "failed", "{note:?}");
    assert!(
        note["result_errors"].starts_with("INV-ISSUED-ELSEWHERE: not sent: ")
            && note["result_errors"].contains("lists credit note CN-0006 as accepted"),
        "{note:?}"
    );
    assert!(!out.contains("INV-SUBMIT-NOT-SENT"), "{out}");
}

//! Issued documents the export now marks not to be issued (a skip rule: Xero's `Voided`,
//! `Draft`), through the real binary and a sandbox on loopback: still issued (accepted with
//! `INV-LEDGER-CONFLICT`, the issued UUID, XML, QR and figures, nothing sent), `failed` when
//! maybe issued, `skipped` as before when never issued; a number issued both as an invoice and
//! as a credit note is told apart by the skipped document's own kind.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;
use std::path::Path;

/// The export at `path` with the Status of `number`'s rows set to `status`.
fn mark(path: &Path, number: &str, status: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            if cells.get(18) == Some(&number) {
                let mut cells: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
                let last = cells.len() - 1;
                cells[last] = status.into();
                cells.join(",")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(path, out.join("\n") + "\n").unwrap();
}

fn rows_of(
    rows: &[std::collections::BTreeMap<String, String>],
    number: &str,
) -> Vec<std::collections::BTreeMap<String, String>> {
    rows.iter()
        .filter(|r| r["result_document"] == number)
        .cloned()
        .collect()
}

#[test]
fn an_issued_invoice_marked_voided_or_draft_is_reported_issued_and_not_dropped() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let a = dir.path().join("a.csv");
    xero_export_lines(&a, 4, 2);
    // T-00004 is a draft from the start: never issued.
    mark(&a, "T-00004", "Draft");
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = results(&dir.path().join("results/a.result.csv"));
    let first_docs = results(&dir.path().join("results/a.documents.csv"));
    let before = requests(&server);

    mark(&a, "T-00001", "Voided");
    mark(&a, "T-00002", "DRAFT");
    let o = run(dir.path(), &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "conflicts: {}", text(&o));
    assert_eq!(requests(&server), before, "nothing was sent");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        v["documents"],
        serde_json::json!({"valid": 0, "invalid": 0, "skipped": 1, "accepted": 3, "rejected": 0, "failed": 0,
            "conflicts": 2, "issued_before": 3, "kept": 0}),
        "{v:#}"
    );

    let now = results(&dir.path().join("results/a.result.csv"));
    let docs = results(&dir.path().join("results/a.documents.csv"));
    for (number, value) in [("T-00001", "Voided"), ("T-00002", "DRAFT")] {
        let was = rows_of(&first, number);
        let rows = rows_of(&now, number);
        assert_eq!(rows.len(), 2);
        for r in &rows {
            assert_eq!(r["result_status"], "accepted", "{r:?}");
            assert_eq!(r["result_uuid"], was[0]["result_uuid"]);
            assert!(!r["result_qr"].is_empty());
            let xml = dir.path().join("results").join(&r["result_xml_file"]);
            assert!(xml.is_file(), "{xml:?} {r:?}");
            assert!(r["result_warnings"].contains("INV-SKIP"), "{r:?}");
        }
        let e = &rows[0]["result_errors"];
        assert!(
            e.starts_with(&format!(
                "INV-LEDGER-CONFLICT: the export now marks invoice {number} as not to be issued"
            )),
            "{e}"
        );
        assert!(
            e.contains(&format!("column Status, value \"{value}\""))
                && e.contains(&was[0]["result_uuid"])
                && e.contains("to cancel it, issue a credit note"),
            "{e}"
        );
        assert!(rows[1]["result_errors"].starts_with("INV-DOCUMENT: issued earlier with other content: see"));
        let d = docs.iter().find(|d| d["document"] == number).unwrap();
        let w = first_docs.iter().find(|d| d["document"] == number).unwrap();
        assert_eq!(
            (d["status"].as_str(), d["errors"].as_str()),
            ("accepted", "INV-LEDGER-CONFLICT")
        );
        for col in ["kind", "net", "vat", "gross", "payable", "uuid"] {
            assert_eq!(d[col], w[col], "{col}");
        }
    }
    // Never issued: skipped, as before (only the time of the run differs).
    let untimed = |rows: Vec<std::collections::BTreeMap<String, String>>| {
        rows.into_iter()
            .map(|mut r| {
                r.remove("result_time");
                r
            })
            .collect::<Vec<_>>()
    };
    let t4 = rows_of(&now, "T-00004");
    assert!(t4.iter().all(|r| r["result_status"] == "skipped"), "{t4:?}");
    assert_eq!(untimed(t4), untimed(rows_of(&first, "T-00004")));
    assert_eq!(untimed(rows_of(&now, "T-00003")), untimed(rows_of(&first, "T-00003")));
}

#[test]
fn a_number_maybe_issued_then_marked_voided_is_failed_with_how_to_settle_it() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(".invoicedrop");
    let till = |id: &str| {
        onboard_as(dir.path(), &env, id);
    };
    till("till-1");
    let earlier = onboard_id(&state);
    let a = dir.path().join("a.csv");
    xero_export(&a, 2);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // As if the earlier device's answer for T-00001 had been lost: sent, outcome unknown (this
    // device cannot settle it at the start of a run).
    lose_answer(&state, "T-00001");
    till("till-2");
    let before = requests(&server);
    mark(&a, "T-00001", "Voided");
    let o = run(dir.path(), &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        (v["documents"]["failed"].as_u64(), v["documents"]["skipped"].as_u64()),
        (Some(1), Some(0)),
        "{v:#}"
    );
    let now = results(&dir.path().join("results/a.result.csv"));
    let r = &rows_of(&now, "T-00001")[0];
    assert_eq!(r["result_status"], "failed");
    let e = &r["result_errors"];
    assert!(
        e.starts_with(&format!(
            "INV-SUBMIT-UNKNOWN: not sent: invoice T-00001 was sent through the earlier device {earlier}"
        )) && e.contains(&format!("INVOICEDROP_ONBOARD_ID={earlier}"))
            && e.contains("The export now marks it as not to be issued (")
            && e.contains("cancel it with a credit note"),
        "{e}"
    );
    assert_eq!(requests(&server), before, "nothing was sent");
}

#[test]
fn a_voided_credit_note_is_told_from_the_invoice_of_the_same_number() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let a = dir.path().join("a.csv");
    xero_export(&a, 2);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // A credit note numbered T-00001 too (numbered apart from the invoices), correcting T-00002.
    let b = dir.path().join("b.csv");
    let text_a = std::fs::read_to_string(&a).unwrap();
    let mut lines = text_a.lines();
    let header = lines.next().unwrap();
    let mut cells: Vec<String> = lines.nth(1).unwrap().split(',').map(str::to_string).collect();
    cells[18] = "T-00001".into();
    cells[19] = "T-00002".into();
    cells[41] = "Sales Credit Note".into();
    std::fs::write(&b, format!("{header}\n{}\n", cells.join(","))).unwrap();
    let o = run(dir.path(), &env, &["run", "b.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let note = results(&dir.path().join("results/b.result.csv"));
    let invoice = results(&dir.path().join("results/a.result.csv"));
    assert_ne!(note[0]["result_uuid"], invoice[0]["result_uuid"]);
    let before = requests(&server);

    mark(&b, "T-00001", "Voided");
    let o = run(dir.path(), &env, &["run", "b.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(requests(&server), before, "nothing was sent");
    let now = results(&dir.path().join("results/b.result.csv"));
    assert_eq!(now[0]["result_status"], "accepted");
    assert_eq!(
        now[0]["result_uuid"], note[0]["result_uuid"],
        "the credit note's, not the invoice's"
    );
    assert!(
        now[0]["result_errors"].contains("marks credit note T-00001 as not to be issued"),
        "{:?}",
        now[0]
    );
}

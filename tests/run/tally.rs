//! A Tally register numbers each voucher type from 1: Sales 1 and Credit Note 1 are two
//! documents, whether their rows are next to each other or apart, through the real binary and a
//! sandbox on loopback. Each is issued once (the sandbox's journal holds invoice 1, invoice 2
//! and credit note 1), a rerun sends nothing and reports each from the ledger, and `report`
//! reconciles the set.

use super::support::*;
use chrono::{FixedOffset, Utc};
use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Tally's header (the bundled mapping's columns).
const HEADER: [&str; 9] = [
    "Date",
    "Voucher Number",
    "Voucher Type",
    "Party Name",
    "Item Name",
    "Quantity",
    "Rate",
    "Amount",
    "Narration",
];

/// A register of `vouchers` (number, voucher type, item, quantity, rate) issued today (Riyadh),
/// with the lookup tables beside it: the buyers, and credit note 1 correcting invoice 1.
fn register(dir: &Path, vouchers: &[(&str, &str, &str, u32, u32)]) {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let today = Utc::now().with_timezone(&riyadh);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::copy(samples.join("customers.csv"), dir.join("customers.csv")).unwrap();
    std::fs::write(
        dir.join("credit_notes.csv"),
        format!(
            "number,original_number,original_date,reason\n1,1,{},Returned goods\n",
            today.format("%Y-%m-%d")
        ),
    )
    .unwrap();
    let date = today.format("%d-%m-%Y").to_string();
    let mut rows = vec![HEADER.map(str::to_string).to_vec()];
    for &(number, kind, item, quantity, rate) in vouchers {
        let amount = (quantity * rate).to_string();
        let cells = [
            &date,
            number,
            kind,
            "Walk-in Customer",
            item,
            &quantity.to_string(),
            &rate.to_string(),
            &amount,
            "",
        ];
        rows.push(cells.map(str::to_string).to_vec());
    }
    write_xlsx(&dir.join("tally.xlsx"), &rows);
}

/// The records of `r/tally.documents.csv`: (number, kind, status, rows) → UUID.
fn documents(dir: &Path) -> BTreeMap<(String, String, String, String), String> {
    results(&dir.join("r/tally.documents.csv"))
        .into_iter()
        .map(|d| {
            let key = (
                d["document"].clone(),
                d["kind"].clone(),
                d["status"].clone(),
                d["rows"].clone(),
            );
            (key, d["uuid"].clone())
        })
        .collect()
}

/// Run the register in `dir` against `server` twice: each document issued once, then nothing sent.
fn issued_once_and_rerun_sends_nothing(dir: &Path, server: &Server, rows: usize) {
    let env = server.env();
    onboard(dir, &env);
    let args = ["run", "tally.xlsx", "--results", "r"];
    let o = run(dir, &env, &args);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        !out.contains("INV-MAP-SPLIT") && !out.contains("INV-MAP-CONFLICT"),
        "{out}"
    );
    assert_eq!(requests(server), (3, 0, 0), "three documents sent: {out}");
    // The sandbox's journal: each document once, known by its kind and number.
    let journal = server.kinds_and_numbers(dir);
    assert_eq!(journal, ["credit_note 1", "invoice 1", "invoice 2"]);
    let first = documents(dir);
    let keys: Vec<(&str, &str, &str)> = first
        .keys()
        .map(|(n, k, s, _)| (n.as_str(), k.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("1", "credit_note", "accepted"),
            ("1", "invoice", "accepted"),
            ("2", "invoice", "accepted")
        ]
    );
    let result_rows = results(&dir.join("r/tally.result.csv"));
    assert_eq!(result_rows.len(), rows);
    assert!(
        result_rows
            .iter()
            .all(|r| r["result_status"] == "accepted" && r["result_errors"].is_empty()),
        "{result_rows:?}"
    );

    // A rerun: nothing sent, each document reported accepted from the ledger, same UUIDs.
    let o = run(dir, &env, &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(requests(server), (3, 0, 0), "nothing sent again");
    assert_eq!(documents(dir), first);

    // `report`: one set, every accepted row naming its own document's XML (two share "1").
    let o = run(dir, &[], &["--json", "report", "r"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(v["differences"], serde_json::json!([]), "{v:#}");
    assert_eq!((o.status.code(), v["reconciled"].as_bool()), (Some(0), Some(true)));
}

#[test]
fn sales_1_and_credit_note_1_apart_are_two_documents_each_issued_once() {
    let server = Server::start(SandboxConfig::default());
    let dir = tempfile::tempdir().unwrap();
    register(
        dir.path(),
        &[
            ("1", "Sales", "Safety helmets", 2, 40),
            ("1", "Sales", "Gloves", 3, 10),
            ("2", "Sales", "Boots", 1, 120),
            ("1", "Credit Note", "Safety helmets", 1, 40),
        ],
    );
    issued_once_and_rerun_sends_nothing(dir.path(), &server, 4);
}

#[test]
fn sales_1_and_credit_note_1_next_to_each_other_are_two_documents_each_issued_once() {
    let server = Server::start(SandboxConfig::default());
    let dir = tempfile::tempdir().unwrap();
    register(
        dir.path(),
        &[
            ("1", "Sales", "Safety helmets", 2, 40),
            ("1", "Sales", "Gloves", 3, 10),
            ("1", "Credit Note", "Safety helmets", 1, 40),
            ("2", "Sales", "Boots", 1, 120),
        ],
    );
    issued_once_and_rerun_sends_nothing(dir.path(), &server, 4);
}

#[test]
fn an_issued_sales_1_whose_rows_are_now_around_credit_note_1_is_reported_from_the_ledger_once() {
    let server = Server::start(SandboxConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let helmets = ("1", "Sales", "Safety helmets", 2, 40);
    let gloves = ("1", "Sales", "Gloves", 3, 10);
    let boots = ("2", "Sales", "Boots", 1, 120);
    let note = ("1", "Credit Note", "Safety helmets", 1, 40);
    register(dir.path(), &[helmets, gloves, boots, note]);
    issued_once_and_rerun_sends_nothing(dir.path(), &server, 4);
    let issued = documents(dir.path());

    // Sales 1's rows now around Credit Note 1's: Sales 1 is in parts, read together and found
    // issued (asked of the ledger as invoice 1); Credit Note 1 is whole; nothing is sent.
    register(dir.path(), &[helmets, note, gloves, boots]);
    let o = run(dir.path(), &server.env(), &["run", "tally.xlsx", "--results", "r"]);
    let out = text(&o);
    assert_eq!(requests(&server), (3, 0, 0), "nothing sent: {out}");
    assert_eq!(o.status.code(), Some(0), "{out}");
    let uuids = |docs: &BTreeMap<(String, String, String, String), String>| -> Vec<(String, String, String)> {
        docs.iter()
            .map(|((n, k, s, _), u)| (format!("{k} {n}"), s.clone(), u.clone()))
            .collect()
    };
    assert_eq!(uuids(&documents(dir.path())), uuids(&issued));
    let rows = results(&dir.path().join("r/tally.result.csv"));
    let first_rows: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["result_status"].as_str(), r["result_warnings"].as_str()))
        .collect();
    assert!(first_rows.iter().all(|(s, _)| *s == "accepted"), "{rows:?}");
    // Sales 1's two parts say so; the credit note's row does not.
    assert!(first_rows[0].1.contains("INV-MAP-SPLIT"), "{rows:?}");
    assert!(!first_rows[1].1.contains("INV-MAP-SPLIT"), "{rows:?}");
    assert!(first_rows[2].1.contains("INV-MAP-SPLIT"), "{rows:?}");
}

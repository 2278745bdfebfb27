//! What accountants reconcile after reruns, through the real binary and the built-in sandbox:
//! an export issued once and reported again under another name counts once in `report`'s
//! folder totals; an issued invoice whose export changed keeps its UUID, signed XML and QR,
//! says so once, exits 1, and `report` counts it once with a `conflict`; a conflict counts as
//! the set written last says, and an export given back its issued content settles it.

use super::support::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn samples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// The Sage 50 sample's text, its lookup files copied into `dir`.
fn sage50(dir: &Path) -> String {
    for side in ["customers.csv", "credit_notes.csv"] {
        std::fs::copy(samples().join(side), dir.join(side)).unwrap();
    }
    std::fs::read_to_string(samples().join("sage50_invoices.csv")).unwrap()
}

/// `invoicedrop run FILE --state st --results r` in `dir`.
fn run_file(dir: &Path, file: &str) -> std::process::Output {
    run(dir, &[], &["run", file, "--state", "st", "--results", "r"])
}

fn report_json(dir: &Path) -> (i32, Value) {
    let o = run(dir, &[], &["--json", "report", "r"]);
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (o.status.code().unwrap_or(-1), v)
}

/// The accepted documents of a set: number → (uuid, vat).
fn accepted(dir: &Path, set: &str) -> BTreeMap<String, (String, String)> {
    results(&dir.join(format!("r/{set}.documents.csv")))
        .into_iter()
        .filter(|d| d["status"] == "accepted")
        .map(|d| (d["document"].clone(), (d["uuid"].clone(), d["vat"].clone())))
        .collect()
}

#[test]
fn an_export_reported_again_under_another_name_counts_once_in_the_folder_totals() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.csv"), sage50(dir.path())).unwrap();
    let o = run_file(dir.path(), "a.csv");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = text(&o);
    // The same documents again, as a second drop of the file gets them: from the ledger.
    std::fs::copy(dir.path().join("a.csv"), dir.path().join("b.csv")).unwrap();
    let o = run_file(dir.path(), "b.csv");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let a = accepted(dir.path(), "a");
    // The run says they were issued before, not sent again: its total against the authority's.
    let again = format!(
        "{n} accepted ({n} issued before, from the ledger: not sent again)",
        n = a.len()
    );
    assert!(text(&o).contains(&format!("documents: {again}")), "{}", text(&o));
    assert!(
        first.contains(&format!("documents: {} accepted, 0 rejected", a.len())),
        "the first run sent them: {first}"
    );
    let o = run(
        dir.path(),
        &[],
        &["--json", "run", "b.csv", "--state", "st", "--results", "r"],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["documents"]["issued_before"], a.len() as u64, "{v}");
    assert_eq!(v["documents"]["accepted"], a.len() as u64, "{v}");
    assert!(a.len() >= 2, "{a:?}");
    assert_eq!(
        a,
        accepted(dir.path(), "b"),
        "b was reported from the ledger: the same UUIDs"
    );
    let vat: rust_decimal::Decimal = a
        .values()
        .map(|(_, v)| v.parse::<rust_decimal::Decimal>().unwrap())
        .sum();

    let (code, v) = report_json(dir.path());
    assert_eq!(code, 0, "{v:#}");
    let n = a.len() as u64;
    assert_eq!(v["overall"]["SAR"]["documents"], n, "{:#}", v["overall"]);
    assert_eq!(v["overall"]["SAR"]["xml_documents"], n);
    assert_eq!(
        v["overall"]["SAR"]["input"]["vat"]
            .as_str()
            .unwrap()
            .parse::<rust_decimal::Decimal>()
            .unwrap(),
        vat,
        "the VAT of each issued document once"
    );
    assert_eq!(v["summary"]["by_status"]["accepted"]["documents"], n);
    for set in v["sets"].as_array().unwrap() {
        assert_eq!(
            set["summary"]["by_status"]["accepted"]["documents"], n,
            "each set's own figures"
        );
    }
    let d = &v["duplicates"];
    let all_docs = results(&dir.path().join("r/a.documents.csv")).len() as u64;
    assert_eq!(d["documents"], all_docs, "every document of b: {d:#}");
    assert_eq!(d["records_left_out"], all_docs);
    assert_eq!(v["summary"]["documents"]["documents"], all_docs);
    let groups = d["by_sets"].as_array().unwrap();
    assert!(
        groups
            .iter()
            .any(|g| g["counted_in"] == "b" && g["left_out_in"] == serde_json::json!(["a"]) && g["documents"] == n),
        "{groups:#?}"
    );
    let listed: BTreeSet<&str> = d["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["uuid"].as_str())
        .collect();
    assert!(a.values().all(|(u, _)| listed.contains(u.as_str())), "{listed:?}");

    let o = run(dir.path(), &[], &["report", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains(&format!(
            "duplicates: {all_docs} documents are held by more than one record"
        )) && out.contains(&format!("{n} counted in b, left out in a"))
            && out.contains(&format!("overall    SAR input {n} docs")),
        "{out}"
    );
}

#[test]
fn an_issued_invoice_whose_export_changed_keeps_its_artefacts_and_counts_once() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.csv");
    let sample = sage50(dir.path());
    std::fs::write(&x, &sample).unwrap();
    let o = run_file(dir.path(), "x.csv");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let row_of = |number: &str| -> BTreeMap<String, String> {
        results(&dir.path().join("r/x.result.csv"))
            .into_iter()
            .find(|r| r["result_document"] == number)
            .unwrap()
    };
    let doc_of = |number: &str| -> BTreeMap<String, String> {
        results(&dir.path().join("r/x.documents.csv"))
            .into_iter()
            .find(|r| r["document"] == number)
            .unwrap()
    };
    let first = row_of("SI-1001");
    let first_doc = doc_of("SI-1001");
    assert_eq!(first["result_status"], "accepted");
    let xml = std::fs::read(dir.path().join("r").join(&first["result_xml_file"])).unwrap();
    let png = std::fs::read(dir.path().join("r").join(&first["result_qr_file"])).unwrap();
    let (_, before) = report_json(dir.path());

    std::fs::write(&x, sample.replace("Laser printer,", "Laser printer X,")).unwrap();
    let o = run_file(dir.path(), "x.csv");
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "a conflict needs attention: {out}");
    assert!(out.contains("INV-LEDGER-CONFLICT"), "{out}");
    // Counted as an accepted document with a conflict, never as a rejection.
    let rejections = out
        .split("rejections by rule:")
        .nth(1)
        .map(|r| r.split("warnings by rule:").next().unwrap_or(r));
    assert!(
        rejections.is_none_or(|r| !r.contains("INV-LEDGER-CONFLICT")),
        "listed as a rejection: {out}"
    );
    assert!(
        out.contains(
            "conflicts: 1 accepted document issued earlier with other content (INV-LEDGER-CONFLICT; e.g. SI-1001)"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "3 accepted (1 in conflict with its export: INV-LEDGER-CONFLICT; 3 issued before, from the ledger: not \
             sent again), 0 rejected"
        ),
        "{out}"
    );

    // The rows: issued, with the issued UUID, XML and QR, and the conflict said once.
    let again = row_of("SI-1001");
    assert_eq!(again["result_status"], "accepted");
    for col in ["result_uuid", "result_qr", "result_xml_file", "result_qr_file"] {
        assert_eq!(again[col], first[col], "{col}");
    }
    assert_eq!(
        std::fs::read(dir.path().join("r").join(&again["result_xml_file"])).unwrap(),
        xml
    );
    assert_eq!(
        std::fs::read(dir.path().join("r").join(&again["result_qr_file"])).unwrap(),
        png
    );
    let errors = &again["result_errors"];
    assert_eq!(errors.matches("INV-LEDGER-CONFLICT").count(), 1, "{errors}");
    assert!(
        errors.contains("is issued") && errors.contains("credit note") && errors.contains(&first["result_uuid"]),
        "{errors}"
    );
    // The document: the issued figures, the conflict among its errors.
    let doc = doc_of("SI-1001");
    for col in [
        "status",
        "net",
        "vat",
        "gross",
        "payable",
        "uuid",
        "xml_file",
        "qr_file",
        "issue_date",
    ] {
        assert_eq!(doc[col], first_doc[col], "{col}");
    }
    assert_eq!(doc["errors"], "INV-LEDGER-CONFLICT");
    let summary: Value = serde_json::from_slice(&std::fs::read(dir.path().join("r/x.summary.json")).unwrap()).unwrap();
    assert!(
        summary["rejections"].get("INV-LEDGER-CONFLICT").is_none(),
        "a conflict is not a rejection: {:#}",
        summary["rejections"]
    );
    assert_eq!(
        summary["conflicts"],
        serde_json::json!({"documents": 1, "examples": ["SI-1001"]}),
        "{summary:#}"
    );
    assert_eq!(
        summary["by_status"], before["sets"][0]["summary"]["by_status"],
        "the same documents issued"
    );
    let o = run(
        dir.path(),
        &[],
        &["--json", "run", "x.csv", "--state", "st", "--results", "r"],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        (v["documents"]["conflicts"].as_u64(), v["exit_code"].as_u64()),
        (Some(1), Some(1)),
        "{v:#}"
    );
    let file = &v["files"][0];
    assert_eq!(file["documents"]["conflicts"], 1, "{file:#}");
    assert_eq!(file["summary"]["conflicts"]["documents"], 1, "{file:#}");
    assert!(
        file["summary"]["rejections"].get("INV-LEDGER-CONFLICT").is_none(),
        "{file:#}"
    );

    // The report: every issued document once, the issued amounts reconciled, the conflict listed.
    let (code, v) = report_json(dir.path());
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["overall"], before["overall"], "the same issued documents and amounts");
    let diffs = v["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{diffs:#?}");
    assert_eq!(
        (diffs[0]["kind"].as_str(), diffs[0]["document"].as_str()),
        (Some("conflict"), Some("SI-1001"))
    );
    assert!(
        diffs[0]["message"].as_str().unwrap().contains("credit or debit note"),
        "{diffs:#?}"
    );
    assert_eq!(v["summary"]["conflicts"]["documents"], 1, "{:#}", v["summary"]);
    assert!(v["summary"]["rejections"].get("INV-LEDGER-CONFLICT").is_none());
    let o = run(dir.path(), &[], &["report", "r"]);
    let out = text(&o);
    assert!(
        out.contains("conflicts: 1 accepted document") && !out.contains("rejections by rule:"),
        "{out}"
    );
}

/// `generate --layout xero --rows 30 --seed 3` as `a.csv` in `dir` (with its `customers.csv`),
/// and `b.csv`, the same export with INV-0000001 (zero-rated: its issued VAT is zero) sold to
/// another customer and a quantity of INV-0000002 changed: both issued, so in conflict.
fn xero_and_an_edited_copy(dir: &Path) {
    let o = run(
        dir,
        &[],
        &[
            "generate", "--layout", "xero", "--rows", "30", "--seed", "3", "--out", "a.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let mut r = csv::Reader::from_path(dir.join("a.csv")).unwrap();
    let headers = r.headers().unwrap().clone();
    let at = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}') == name)
            .unwrap()
    };
    let (number, contact, quantity, tax_type) = (at("InvoiceNumber"), at("ContactName"), at("Quantity"), at("TaxType"));
    let mut w = csv::Writer::from_path(dir.join("b.csv")).unwrap();
    w.write_record(&headers).unwrap();
    let mut edited = BTreeSet::new();
    for rec in r.records() {
        let mut rec: Vec<String> = rec.unwrap().iter().map(str::to_string).collect();
        if rec[number] == "INV-0000001" {
            assert!(
                rec[tax_type].starts_with("Zero Rated"),
                "the generator changed: {rec:?}"
            );
            rec[contact] = "محمد العتيبي".into();
            edited.insert(rec[number].clone());
        }
        if rec[number] == "INV-0000002" && edited.insert(rec[number].clone()) {
            rec[quantity] = (rec[quantity].parse::<u32>().unwrap() + 1).to_string();
        }
        w.write_record(&rec).unwrap();
    }
    w.flush().unwrap();
    assert_eq!(edited.len(), 2, "{edited:?}");
}

/// The `conflict` differences of a report, as (set, document).
fn conflicts(v: &Value) -> Vec<(String, String)> {
    v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "conflict")
        .map(|d| {
            (
                d["set"].as_str().unwrap().to_string(),
                d["document"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_conflict_counts_once_as_the_set_written_last_says_and_an_export_given_back_its_content_settles_it() {
    let dir = tempfile::tempdir().unwrap();
    xero_and_an_edited_copy(dir.path());
    let o = run_file(dir.path(), "a.csv");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = run(
        dir.path(),
        &[],
        &["--json", "run", "b.csv", "--state", "st", "--results", "r"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let list = v["files"][0]["document_list"].as_array().unwrap();
    let first = list.iter().find(|d| d["number"] == "INV-0000001").unwrap();
    assert_eq!(first["conflict"], true, "{first:#}");
    // Money as everywhere in --json and in b.documents.csv: at least two decimals.
    assert_eq!(first["issued"]["vat"], "0.00", "{first:#}");
    let docs = results(&dir.path().join("r/b.documents.csv"));
    let doc = docs.iter().find(|d| d["document"] == "INV-0000001").unwrap();
    for field in ["net", "vat", "gross", "payable"] {
        assert_eq!(
            first["issued"][field].as_str(),
            Some(doc[field].as_str()),
            "{field}: {first:#}"
        );
    }

    // The edited export written last: its two conflicts are counted and listed once each.
    let (code, v) = report_json(dir.path());
    let listed = conflicts(&v);
    assert_eq!(
        listed,
        [
            ("b".to_string(), "INV-0000001".to_string()),
            ("b".into(), "INV-0000002".into())
        ],
        "{:#}",
        v["differences"]
    );
    assert_eq!(
        v["summary"]["conflicts"]["documents"], 2,
        "all sets: {:#}",
        v["summary"]["conflicts"]
    );
    assert_eq!((code, v["reconciled"].as_bool()), (1, Some(false)));

    // The issued content given back (the original dropped again, written last): nothing in
    // conflict now; b's conflicts are settled, said, and not differences.
    std::fs::copy(dir.path().join("a.csv"), dir.path().join("c.csv")).unwrap();
    let o = run_file(dir.path(), "c.csv");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let (code, v) = report_json(dir.path());
    assert_eq!(conflicts(&v), [], "{:#}", v["differences"]);
    assert_eq!(
        v["summary"]["conflicts"]["documents"], 0,
        "{:#}",
        v["summary"]["conflicts"]
    );
    assert_eq!(
        (code, v["reconciled"].as_bool(), v["exit_code"].as_u64()),
        (0, Some(true), Some(0)),
        "{:#}",
        v["differences"]
    );
    let settled: Vec<(&str, &str, &str)> = v["conflicts_settled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["set"].as_str().unwrap(),
                c["document"].as_str().unwrap(),
                c["settled_in"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(settled, [("b", "INV-0000001", "c"), ("b", "INV-0000002", "c")]);
    let b = v["sets"].as_array().unwrap().iter().find(|s| s["name"] == "b").unwrap();
    assert_eq!(
        b["summary"]["conflicts"]["documents"], 2,
        "b's own figures say what its files hold"
    );
    let o = run(dir.path(), &[], &["report", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("conflicts settled: 2 documents in conflict with their export (INV-LEDGER-CONFLICT)")
            && out.contains("  2 in b, settled in c (e.g. INV-0000001, INV-0000002)")
            && out.contains("everything reconciles"),
        "{out}"
    );
}

/// One export run through two state folders of one seller (two devices that do not know each
/// other's ledgers) against one API is issued twice; `report` over their results says so, on
/// every copy, naming both UUIDs, and does not call the folder reconciled.
#[test]
fn a_number_issued_twice_through_two_state_folders_is_a_difference_in_report() {
    let server = Server::start(invoicedrop::sandbox::SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    for (state, device) in [("st1", "till-1"), ("st2", "till-2")] {
        let o = run(
            dir.path(),
            &env,
            &["onboard", "--otp", "123456", "--device-id", device, "--state", state],
        );
        assert!(o.status.success(), "{}", text(&o));
    }
    let export = sage50(dir.path());
    std::fs::write(dir.path().join("nightly.csv"), &export).unwrap();
    std::fs::write(dir.path().join("backlog.csv"), &export).unwrap();
    for (file, state) in [("nightly.csv", "st1"), ("backlog.csv", "st2")] {
        let o = run(dir.path(), &env, &["run", file, "--state", state, "--results", "r"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    let (nightly, backlog) = (accepted(dir.path(), "nightly"), accepted(dir.path(), "backlog"));
    assert!(nightly.len() >= 2, "{nightly:?}");
    assert_eq!(server.accepted(), 2 * nightly.len() as u64);

    let (code, v) = report_json(dir.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["reconciled"], false);
    let twice: Vec<&Value> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "twice")
        .collect();
    assert_eq!(twice.len(), 2 * nightly.len(), "{v}");
    for (number, (uuid, _)) in &nightly {
        let said: Vec<&&Value> = twice.iter().filter(|d| d["document"] == number.as_str()).collect();
        assert_eq!(said.len(), 2, "{number}: {twice:?}");
        let message = said[0]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{number} ("))
                && message.contains("was issued 2 times, under ")
                && message.contains(uuid.as_str())
                && message.contains(backlog[number].0.as_str())
                && message.contains("keep one state folder per seller"),
            "{message}"
        );
    }
    // The text says it too.
    let o = run(dir.path(), &[], &["report", "r"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("was issued 2 times"), "{}", text(&o));
}

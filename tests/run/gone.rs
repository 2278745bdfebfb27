//! An issued document whose row leaves the export (cancelled in the ERP after it was issued, or
//! a narrower export), run again under the same name into the same results folder: it stays in
//! the results as issued (its signed XML and QR, its accepted record with the issued figures,
//! warning `INV-NOT-IN-EXPORT`), run says so, `report` counts it and reconciles; a `check` of the
//! export into that folder keeps every issued document too; the export given it back, it is
//! reported from the ledger as before.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// `number`'s record in `results/a.documents.csv` (the accepted one when there are several).
fn record(dir: &Path, number: &str) -> BTreeMap<String, String> {
    let docs = results(&dir.join("results/a.documents.csv"));
    let mine: Vec<_> = docs.into_iter().filter(|r| r["document"] == number).collect();
    mine.iter()
        .find(|r| r["status"] == "accepted")
        .or(mine.first())
        .cloned()
        .unwrap_or_else(|| panic!("no record of {number}"))
}

/// The signed XML and QR files in `results/a/`, by name.
fn artefacts(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir.join("results/a"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// `report --json results`: exit code, documents and VAT of the overall SAR line, differences.
fn report(dir: &Path) -> (i32, Value) {
    let o = run(dir, &[], &["--json", "report", "results"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (o.status.code().unwrap_or(-1), v)
}

fn overall(v: &Value) -> (Value, Value) {
    let sar = &v["overall"]["SAR"];
    (sar["documents"].clone(), sar["input"]["vat"].clone())
}

#[test]
fn an_issued_document_gone_from_the_export_stays_in_its_results_and_is_said() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let a = d.join("a.csv");
    xero_export(&a, 3);
    let full = std::fs::read_to_string(&a).unwrap();
    let o = run(d, &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let issued = record(d, "T-00002");
    let files = artefacts(d);
    assert_eq!(files.len(), 6, "{:?}", files.keys());
    let (code, v) = report(d);
    assert_eq!(code, 0, "{v:#}");
    let totals = overall(&v);
    assert_eq!(totals.0, 3, "{v:#}");
    let sent = requests(&server);

    // The ERP exports the day again without T-00002.
    let without: String = full
        .lines()
        .filter(|l| !l.contains(",T-00002,"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&a, &without).unwrap();
    let o = run(d, &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(requests(&server), sent, "nothing sent");
    for said in [
        "  warning: INV-NOT-IN-EXPORT: T-00002 issued earlier (accepted by the authority) is no longer in this export, \
         and kept in its results as issued: signed XML and QR in a/, accepted in a.documents.csv",
        "a document cancelled in the ERP after it was issued needs a credit note against it",
        "INV-NOT-IN-EXPORT      1 accepted (e.g. T-00002)",
        // The counts printed are the result set's, as its summary's: T-00002 is one of them.
        "a.csv: mapping xero, 2 rows, 3 documents: 3 accepted (1 issued earlier and no longer in this export, \
         kept as issued: INV-NOT-IN-EXPORT; 2 issued before, from the ledger: not sent again), 0 rejected",
        "documents (net of credit notes): 3 documents",
    ] {
        assert!(out.contains(said), "{said:?} in {out}");
    }
    let o = run(d, &env, &["--json", "run", "a.csv"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        (&v["documents"]["accepted"], &v["documents"]["kept"]),
        (&serde_json::json!(3), &serde_json::json!(1)),
        "{v:#}"
    );
    assert_eq!(artefacts(d), files, "every signed XML and QR kept, byte for byte");
    let kept = record(d, "T-00002");
    for field in [
        "status",
        "uuid",
        "issue_date",
        "issue_time",
        "net",
        "vat",
        "vat_sar",
        "gross",
        "xml_file",
        "qr_file",
    ] {
        assert_eq!(kept[field], issued[field], "{field}");
    }
    assert_eq!((kept["rows"].as_str(), kept["first_line"].as_str()), ("0", ""));
    assert!(
        kept["warnings"].split(' ').any(|c| c == "INV-NOT-IN-EXPORT"),
        "{kept:?}"
    );
    let rows = results(&d.join("results/a.result.csv"));
    assert!(rows.iter().all(|r| r["result_document"] != "T-00002"), "no row of it");
    let summary: Value = serde_json::from_slice(&std::fs::read(d.join("results/a.summary.json")).unwrap()).unwrap();
    assert_eq!(summary["by_status"]["accepted"]["documents"], 3, "{summary:#}");
    assert_eq!(
        summary["warnings"]["INV-NOT-IN-EXPORT"]["examples"],
        serde_json::json!(["T-00002"])
    );
    assert!(
        summary["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("INV-NOT-IN-EXPORT: T-00002 issued earlier")),
        "{summary:#}"
    );
    let (code, v) = report(d);
    assert_eq!((code, v["reconciled"].as_bool()), (0, Some(true)), "{v:#}");
    assert_eq!(overall(&v), totals, "the VAT total keeps it");
    assert_eq!(
        v["summary"]["warnings"]["INV-NOT-IN-EXPORT"]["examples"],
        serde_json::json!(["T-00002"])
    );
    let o = run(d, &[], &["report", "results"]);
    assert!(
        text(&o).contains("  warning: INV-NOT-IN-EXPORT: T-00002 issued earlier"),
        "{}",
        text(&o)
    );

    // A check of the export into the same folder issues nothing and removes nothing issued.
    let o = run(d, &env, &["check", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("warning: INV-NOT-IN-EXPORT: T-00002"), "{out}");
    // The check's own verdict on the two it holds, and the one kept: the summary's 3 documents.
    assert!(
        out.contains(
            "a.csv: mapping xero, 2 rows, 3 documents: 2 valid, 1 accepted (1 issued earlier and no longer in this \
             export, kept as issued: INV-NOT-IN-EXPORT), 0 rejected, 0 failed, 0 invalid, 0 skipped"
        ),
        "{out}"
    );
    assert!(
        out.contains("2 documents (T-00001, T-00003) issued earlier and still in this export, not accepted in these results, are kept as issued"),
        "{out}"
    );
    assert_eq!(artefacts(d), files, "check keeps every signed XML and QR");
    assert_eq!(record(d, "T-00001")["status"], "accepted");
    // Its own figures count each issued document once, as accepted (not valid as well).
    let summary: Value = serde_json::from_slice(&std::fs::read(d.join("results/a.summary.json")).unwrap()).unwrap();
    let once = |s: &Value| {
        (
            s["documents"]["documents"].clone(),
            s["documents"]["amounts"]["SAR"]["vat"].clone(),
            s["by_status"]["accepted"]["documents"].clone(),
            s["by_status"].get("valid").cloned(),
        )
    };
    let expected = (totals.0.clone(), totals.1.clone(), serde_json::json!(3), None);
    assert_eq!(once(&summary), expected, "{summary:#}");
    assert!(
        out.contains("documents (net of credit notes): 3 documents") && !out.contains("    valid "),
        "{out}"
    );
    let (code, v) = report(d);
    assert_eq!((code, v["reconciled"].as_bool()), (0, Some(true)), "{v:#}");
    assert_eq!(overall(&v), totals);
    assert_eq!(
        once(&v["sets"][0]["summary"]),
        expected,
        "the set's figures in report too"
    );
    // A summary written by the build before counted both records: still consistent.
    let mut older = summary.clone();
    let mut valid = older["by_status"]["accepted"].clone();
    valid["documents"] = serde_json::json!(2);
    older["by_status"]["valid"] = valid;
    std::fs::write(d.join("results/a.summary.json"), serde_json::to_vec(&older).unwrap()).unwrap();
    let (code, v) = report(d);
    assert_eq!((code, v["reconciled"].as_bool()), (0, Some(true)), "{v:#}");
    std::fs::write(d.join("results/a.summary.json"), serde_json::to_vec(&summary).unwrap()).unwrap();

    // The export given T-00002 back: reported from the ledger, nothing kept aside any more.
    std::fs::write(&a, &full).unwrap();
    let o = run(d, &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        !out.contains("INV-NOT-IN-EXPORT") && !out.contains("kept as issued"),
        "{out}"
    );
    assert_eq!(requests(&server), sent, "nothing sent");
    let back = record(d, "T-00002");
    assert_eq!(
        (back["uuid"].as_str(), back["rows"].as_str()),
        (issued["uuid"].as_str(), "1")
    );
    assert_eq!(results(&d.join("results/a.documents.csv")).len(), 3);
    assert_eq!(artefacts(d), files);
    let (code, v) = report(d);
    assert_eq!((code, overall(&v)), (0, totals), "{v:#}");
}

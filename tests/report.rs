//! `invoicedrop report`: a results folder built from documents really issued by the sandbox
//! authority (over HTTP, in-process), written with the result writer as `run` will; the report's
//! totals equal the sums of the signed XML amounts; a tampered XML amount (or type code) is a listed difference
//! with exit 1; usage errors exit 2.

#[path = "results_files/common.rs"]
#[allow(dead_code)]
mod common;

use chrono::{DateTime, Duration as TimeDelta, FixedOffset, Timelike, Utc};
use common::read_csv;
use invoicedrop::compute::compute_document;
use invoicedrop::model::{Document, SubmissionResponse, example};
use invoicedrop::results::report;
use invoicedrop::results::summary::Amounts;
use invoicedrop::results::{DocumentRecord, ResultRow, ResultWriter, RowStatus};
use invoicedrop::sandbox::{self, SandboxConfig};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const T: &str = "2026-11-21T09:00:00Z";

struct Api {
    base: String,
    http: reqwest::Client,
    token: String,
    device: String,
}

impl Api {
    async fn new(base: String) -> Api {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let auth = json!({"vat_number": "399999999900003", "username": "sandbox", "secret": "sandbox-secret"});
        let v: Value = http
            .post(format!("{base}/v1/e-invoicing/auth"))
            .json(&auth)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let token = v["token"].as_str().unwrap().to_string();
        let onboarding = json!({
            "otp": "123456", "vat_number": "399999999900003", "device_id": "report-till",
            "invoice_type": "both", "org_name": "Maximum Speed Tech Supply LTD", "org_unit": "Riyadh",
            "business_category": "IT", "registered_address": "2322 Prince Sultan, Riyadh",
            "country_code": "SA", "email_id": "it@example.sa"
        });
        let v: Value = http
            .post(format!("{base}/v1/e-invoicing/onboardings"))
            .bearer_auth(&token)
            .json(&onboarding)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let device = v["onboard_id"].as_str().unwrap().to_string();
        Api {
            base,
            http,
            token,
            device,
        }
    }

    async fn submit(&self, doc: &Document) -> SubmissionResponse {
        let url = format!(
            "{}/v1/e-invoicing/{}/{}",
            self.base,
            self.device,
            doc.kind.path_segment()
        );
        let r = self
            .http
            .post(url)
            .bearer_auth(&self.token)
            .json(doc)
            .send()
            .await
            .unwrap();
        SubmissionResponse::parse(&r.bytes().await.unwrap()).expect("a JSON answer")
    }
}

/// A document issued `hours_ago` hours before [`anchor`] (Riyadh time), computed.
fn issued(mut doc: Document, hours_ago: i64) -> Document {
    let t = anchor() - TimeDelta::hours(hours_ago);
    doc.issue_date = t.date_naive();
    doc.actual_delivery_date = t.date_naive();
    doc.issue_time = t.time().with_nanosecond(0).unwrap();
    compute_document(&mut doc).unwrap();
    doc
}

/// Now in Riyadh, or, between midnight and 03:00 there, 23:xx of the day before: documents
/// issued up to two hours before it then fall on one day whatever the time the test runs at.
fn anchor() -> DateTime<FixedOffset> {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    anchor_at(Utc::now().with_timezone(&riyadh))
}

fn anchor_at(now: DateTime<FixedOffset>) -> DateTime<FixedOffset> {
    if now.hour() < 3 {
        now - TimeDelta::hours(i64::from(now.hour()) + 1)
    } else {
        now
    }
}

#[test]
fn the_anchor_keeps_the_recent_documents_on_one_day_at_any_time_of_day() {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let start = DateTime::parse_from_rfc3339("2026-11-23T00:00:00+03:00").unwrap();
    for minute in 0..24 * 60 {
        let now = start + TimeDelta::minutes(minute);
        let a = anchor_at(now.with_timezone(&riyadh));
        let days: Vec<_> = [0, 1, 2].map(|h| (a - TimeDelta::hours(h)).date_naive()).into();
        assert!(days.iter().all(|d| *d == days[0]), "at {now}: {days:?}");
        assert_ne!((a - TimeDelta::hours(50)).date_naive(), days[0], "at {now}");
        assert!(a <= now && now - a < TimeDelta::hours(4), "at {now}: {a}");
    }
}

/// Issue a few documents through the sandbox and write the result set `sales` into `dir`:
/// four accepted (two days, a standard, a simplified and a credit note, one number with `/`
/// and `:`), one rejected, one failed.
async fn build_results(dir: &Path) -> Vec<(Document, SubmissionResponse)> {
    let handle = sandbox::start(SandboxConfig {
        port: 0,
        ..Default::default()
    })
    .await
    .expect("the sandbox starts");
    let api = Api::new(handle.base_url()).await;
    let mut bad = issued(example::standard_invoice("BAD-5"), 1);
    std::sync::Arc::make_mut(&mut bad.supplier_info).vat_number = Some("311111111100003".into());
    let docs = vec![
        issued(example::standard_invoice("INV/2026:1"), 1),
        issued(example::standard_invoice("INV-2"), 50),
        issued(example::simplified_invoice("S-3"), 2),
        issued(example::credit_note("CN-4", "INV-2"), 1),
        bad,
    ];
    let mut answers = Vec::new();
    for d in docs {
        let r = api.submit(&d).await;
        answers.push((d, r));
    }
    let mut w = ResultWriter::create(dir, Path::new("sales.csv"), &["No".to_string()]).unwrap();
    for (i, (doc, resp)) in answers.iter().enumerate() {
        let (row, record) = if resp.is_success() {
            let files = w
                .write_accepted(example::SELLER_VAT, &doc.number, doc.issue_date, doc.issue_time, resp)
                .unwrap();
            let mut rec = DocumentRecord::from_document(doc, RowStatus::Accepted).with_artefacts(&files);
            rec.uuid = resp.id.clone().unwrap_or_default();
            (ResultRow::accepted(T, &doc.number, resp, &files, 1), rec)
        } else {
            let row = ResultRow::rejected(T, &doc.number, resp, 1);
            let mut rec = DocumentRecord::from_document(doc, RowStatus::Rejected);
            rec.add_codes(&row.findings());
            (row, rec)
        };
        w.write_row(std::slice::from_ref(&doc.number), &row, Some(i as u64 + 2))
            .unwrap();
        w.document(&record).unwrap();
    }
    let failed = issued(example::standard_invoice("F-6"), 1);
    let row = ResultRow::failed(T, "F-6", "no answer after 5 attempts", 5);
    let mut rec = DocumentRecord::from_document(&failed, RowStatus::Failed);
    rec.add_codes(&row.findings());
    w.write_row(&["F-6"], &row, Some(7)).unwrap();
    w.document(&rec).unwrap();
    w.finish().unwrap();
    handle.shutdown().await;
    answers
}

/// The text of the first `<name ...>text</name>` after `after` (a plain search, independent of
/// the report's XML reader).
fn amount_after(xml: &str, after: &str, name: &str) -> Decimal {
    let rest = &xml[xml.find(after).unwrap()..];
    let open = format!("<cbc:{name} ");
    let rest = &rest[rest.find(&open).unwrap()..];
    let rest = &rest[rest.find('>').unwrap() + 1..];
    rest[..rest.find('<').unwrap()].parse().unwrap()
}

/// Every amount of a `--json` output (a string value under an amount's key) has at least two
/// decimals, as the README promises (`"0.00"`, never `"0"`).
fn every_amount_has_two_decimals(v: &Value, key: &str) {
    const AMOUNTS: [&str; 6] = ["net", "vat", "gross", "vat_sar", "input", "xml"];
    match v {
        Value::Object(m) => m.iter().for_each(|(k, v)| every_amount_has_two_decimals(v, k)),
        Value::Array(a) => a.iter().for_each(|v| every_amount_has_two_decimals(v, key)),
        Value::String(s) if (AMOUNTS.contains(&key) || key == "difference") && s.parse::<Decimal>().is_ok() => {
            let decimals = s.split_once('.').map_or(0, |(_, d)| d.len());
            assert!(decimals >= 2, "{key}: {s:?}");
        }
        _ => {}
    }
}

fn bin(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_totals_equal_the_signed_xml_and_a_tampered_amount_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let answers = build_results(dir.path()).await;
    let accepted: Vec<&(Document, SubmissionResponse)> = answers.iter().filter(|(_, r)| r.is_success()).collect();
    assert_eq!(
        accepted.len(),
        4,
        "{:?}",
        answers.iter().map(|a| &a.1.errors).collect::<Vec<_>>()
    );

    // Artefacts: the authority's file names, the QR image reads as result_qr.
    let rows = read_csv(&dir.path().join("sales.result.csv"));
    let col = |n: &str| rows[0].iter().position(|h| h == n).unwrap();
    for (doc, resp) in &accepted {
        let row = rows.iter().find(|r| r[col("result_document")] == doc.number).unwrap();
        let expected = invoicedrop::sandbox::issue::file_name(example::SELLER_VAT, doc);
        assert_eq!(row[col("result_xml_file")], format!("sales/{expected}"));
        assert_eq!(row[col("result_qr")], resp.qr_code.clone().unwrap());
        let png = std::fs::read(dir.path().join(&row[col("result_qr_file")])).unwrap();
        assert_eq!(common::decode_png(&png), row[col("result_qr")], "{}", doc.number);
    }

    // The report's XML totals are the sums of the amounts in the XML files.
    let mut sums = Amounts::default();
    for f in std::fs::read_dir(dir.path().join("sales")).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "xml") {
            let xml = std::fs::read_to_string(&p).unwrap();
            let subtotal = xml.find("<cac:TaxSubtotal>").unwrap();
            let vat_start = xml[..subtotal].rfind("<cac:TaxTotal>").unwrap();
            sums.add(&Amounts {
                net: amount_after(&xml, "<cac:LegalMonetaryTotal>", "TaxExclusiveAmount"),
                vat: amount_after(&xml[vat_start..], "<cac:TaxTotal>", "TaxAmount"),
                gross: amount_after(&xml, "<cac:LegalMonetaryTotal>", "TaxInclusiveAmount"),
            });
        }
    }
    let r = report::build(dir.path()).unwrap();
    assert!(r.reconciled, "{:#?}", r.differences);
    let overall = &r.overall["SAR"];
    assert_eq!((overall.documents, overall.xml_documents), (4, 4));
    assert_eq!(overall.xml, sums);
    assert_eq!(overall.input, sums);
    assert!(overall.difference.is_zero());
    assert_eq!(r.by_day.len(), 2, "documents of two days: {:?}", r.by_day.keys());
    let by_day_xml: u64 = r.by_day.values().map(|m| m["SAR"].xml_documents).sum();
    assert_eq!(by_day_xml, 4);
    assert_eq!(r.summary.count(RowStatus::Accepted), 4);
    assert_eq!(r.summary.count(RowStatus::Rejected), 1);
    assert_eq!(r.summary.count(RowStatus::Failed), 1);
    assert!(r.summary.rejections.contains_key("INV-SUBMIT-FAILED"));
    let (code, out) = bin(&["report", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("everything reconciles") && out.contains("rejections by rule"),
        "{out}"
    );

    // Tamper with one document's gross amount in its signed XML.
    let (doc, _) = accepted[1];
    let name = invoicedrop::sandbox::issue::file_name(example::SELLER_VAT, doc);
    let path = dir.path().join("sales").join(&name);
    let xml = std::fs::read_to_string(&path).unwrap();
    let gross = amount_after(&xml, "<cac:LegalMonetaryTotal>", "TaxInclusiveAmount");
    let tampered = format!("{:.2}", gross + Decimal::ONE);
    let needle = format!(">{gross:.2}</cbc:TaxInclusiveAmount>");
    assert!(xml.contains(&needle));
    std::fs::write(
        &path,
        xml.replace(&needle, &format!(">{tampered}</cbc:TaxInclusiveAmount>")),
    )
    .unwrap();

    let (code, out) = bin(&["--json", "report", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["reconciled"], false);
    every_amount_has_two_decimals(&v, "");
    let diffs = v["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{diffs:#?}");
    let d = &diffs[0];
    assert_eq!(
        (d["document"].as_str(), d["kind"].as_str(), d["field"].as_str()),
        (Some("INV-2"), Some("amount"), Some("gross"))
    );
    assert_eq!(d["input"], format!("{gross:.2}"));
    assert_eq!(d["xml"], tampered);
    let day = doc.issue_date.format("%Y-%m-%d").to_string();
    assert_eq!(v["by_day"][&day]["SAR"]["difference"]["gross"], "-1.00");
    assert_eq!(v["overall"]["SAR"]["difference"]["gross"], "-1.00");
    let (code, out) = bin(&["report", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("DIFFERENCE") && out.contains("INV-2") && out.contains("[amount]"),
        "{out}"
    );

    // The credit note's XML made an invoice (type code 388): the netted totals would subtract
    // it on one side only, so its kind is a difference of its own.
    let (cn, _) = accepted.iter().find(|(d, _)| d.number == "CN-4").unwrap();
    let path = dir
        .path()
        .join("sales")
        .join(invoicedrop::sandbox::issue::file_name(example::SELLER_VAT, cn));
    let xml = std::fs::read_to_string(&path).unwrap();
    let code381 = xml
        .find(">381</cbc:InvoiceTypeCode>")
        .expect("a credit note's type code");
    std::fs::write(&path, format!("{}>388{}", &xml[..code381], &xml[code381 + 4..])).unwrap();
    let (code, out) = bin(&["--json", "report", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let kinds: Vec<(&str, &str, &str, &str)> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or("");
            (s("document"), s("kind"), s("input"), s("xml"))
        })
        .collect();
    assert!(kinds.contains(&("CN-4", "kind", "credit_note", "invoice")), "{kinds:?}");
}

#[test]
fn a_missing_xml_an_orphan_and_an_interrupted_set_are_differences() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(build_results(dir.path()));
    let sales = dir.path().join("sales");
    let mut xmls: Vec<_> = std::fs::read_dir(&sales)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    xmls.sort();
    std::fs::rename(&xmls[0], sales.join("stray.xml")).unwrap();
    let summary = dir.path().join("sales.summary.json");
    let mut s: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    s["by_status"]["accepted"]["documents"] = json!(3);
    std::fs::write(&summary, serde_json::to_vec(&s).unwrap()).unwrap();
    let r = report::build(dir.path()).unwrap();
    let mut kinds: Vec<&str> = r.differences.iter().map(|d| d.kind.as_str()).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        ["inconsistent", "xml_missing", "xml_orphan"],
        "{:#?}",
        r.differences
    );
    assert!(!r.reconciled);
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = bin(&["report", dir.path().join("nope").to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    let (code, out) = bin(&["report", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "an empty folder: {out}");
    assert!(out.contains("no result files"), "{out}");
    let (code, _) = bin(&["report"]);
    assert_eq!(code, 2);
}

#[test]
fn check_results_report_with_nothing_to_reconcile() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let sample = common::samples().join("quickbooks_invoices.xlsx");
    let out = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .current_dir(dir.path())
        .args(["check", "--now", common::NOW, sample.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (code, out) = bin(&["report", results.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("nothing to reconcile") && out.contains("3 valid"), "{out}");
}

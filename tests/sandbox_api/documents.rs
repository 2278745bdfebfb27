//! The document endpoints: 200, 400, 401, 404, 409 and replays, 413, 422.

use super::common::*;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use invoicedrop::model::{DeviceType, DocumentKind, InvoiceType, example};
use invoicedrop::sandbox::SandboxConfig;
use invoicedrop::sandbox::issue::GENESIS_PIH;
use invoicedrop::validate::{Context, DeviceContext, Finding, validate};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeSet;

// ---------------------------------------------------------------------------------------------
// Documents: 200 (api.md 2.6, D10, D14)

#[tokio::test]
async fn each_kind_is_issued_with_the_next_icv_and_the_previous_hash() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut simplified_note = example::debit_note("D-2", "S-1");
    simplified_note.invoice_type = InvoiceType::Simplified;
    simplified_note.customer_info = example::simplified_invoice("x").customer_info;
    let simplified_note = issued_hours_ago(simplified_note, 1);
    let docs = [
        (
            ready(example::standard_invoice("INV-1")),
            "Standard invoice INV-1 cleared",
        ),
        (
            simplified_issued_hours_ago("S-1", 1),
            "Simplified invoice S-1 reported successfully",
        ),
        (
            ready(example::credit_note("C-1", "INV-1")),
            "Standard credit note C-1 cleared",
        ),
        (
            ready(example::debit_note("D-1", "INV-1")),
            "Standard debit note D-1 cleared",
        ),
        (simplified_note, "Simplified debit note D-2 reported successfully"),
    ];
    let mut previous_hash = GENESIS_PIH.to_string();
    for (i, (doc, text)) in docs.iter().enumerate() {
        let (status, bytes) = api.submit(&token, &id, doc, None).await;
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&bytes));
        let v = raw(&bytes);
        assert_eq!(v["status"], "Success");
        assert_eq!(v["invoice_number"], doc.number.as_str());
        assert_eq!(v["message"], *text);
        assert!(v["errors"].is_null() && v["warnings"].is_null(), "{v}");
        assert!(uuid::Uuid::parse_str(v["id"].as_str().unwrap()).is_ok());
        assert!(!v["qr_code"].as_str().unwrap().is_empty());
        let r = parse(&bytes);
        let (icv, pih) = icv_pih(&xml_of(&r));
        assert_eq!(icv, i as u64 + 1);
        assert_eq!(pih, previous_hash);
        let summary = api.documents(&id).await;
        let last = summary.last().unwrap();
        assert_eq!((last.icv, &last.pih, &last.uuid), (icv, &pih, r.id.as_ref().unwrap()));
        previous_hash = last.invoice_hash.clone();
    }
    let stats = api.stats().await;
    let d = stats.device(&id).unwrap();
    assert_eq!((d.accepted, d.icv, d.replays, d.rejections), (5, 5, 0, 0));
}

#[tokio::test]
async fn a_simplified_document_older_than_24_hours_is_accepted_with_br_ksa_98() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let (status, bytes) = api
        .submit(&token, &id, &simplified_issued_hours_ago("OLD-1", 30), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let v = raw(&bytes);
    assert!(v["errors"].is_null());
    let w = &v["warnings"][0];
    assert_eq!(
        (&w["type"], &w["code"], &w["category"], &w["status"]),
        (&json!("WARNING"), &json!("BR-KSA-98"), &json!("KSA"), &json!("WARNING"))
    );
    assert!(w["message"].as_str().unwrap().contains("24 hours"));
}

// ---------------------------------------------------------------------------------------------
// Documents: 400, 401, 404, 413 (api.md §7, D16)

#[tokio::test]
async fn submit_400_names_every_missing_or_mistyped_field() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut v = body(&ready(example::standard_invoice("BAD-1")));
    let top = v.as_object_mut().unwrap();
    top.remove("issue_date");
    top.remove("payment_means");
    top.insert("issue_time".into(), json!("10:30"));
    top["legal_monitory_total"]["payable_amount"] = json!("100.00");
    top["invoice_lines"][0]["quantity"] = json!(null);
    top["invoice_lines"][1]["id"] = json!(2);
    top.insert("creditnote_number".into(), json!("C-1"));
    let r = api.send(&token, &id, DocumentKind::Invoice, &v, None).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "Failure");
    assert_eq!(v["invoice_number"], "BAD-1");
    let fields: Vec<String> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].as_str().unwrap().split(':').next().unwrap().to_string())
        .collect();
    for want in [
        "creditnote_number",
        "issue_date",
        "issue_time",
        "payment_means",
        "legal_monitory_total.payable_amount",
        "invoice_lines[0].quantity",
        "invoice_lines[1].id",
    ] {
        assert!(fields.iter().any(|f| f == want), "{want} not in {fields:?}");
    }
    assert_eq!(fields.len(), 7, "{fields:?}");
    for m in v["errors"].as_array().unwrap() {
        assert_eq!(m["type"], "ERROR");
        assert!(["MISSING-FIELD", "INVALID-FIELD"].contains(&m["code"].as_str().unwrap()));
    }
    // A body that is not JSON, or a credit note sent to the invoice endpoint.
    let r = api
        .http
        .post(api.doc_url(&id, DocumentKind::Invoice))
        .bearer_auth(&token)
        .body("{\"invoice_number\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let note = body(&ready(example::credit_note("C-1", "A-1")));
    let r = api.send(&token, &id, DocumentKind::Invoice, &note, None).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let stats = api.stats().await;
    assert_eq!(
        (stats.device(&id).unwrap().rejections, stats.device(&id).unwrap().icv),
        (3, 0)
    );
}

#[tokio::test]
async fn submit_401_without_a_token_with_a_bad_one_or_after_expiry() {
    let s = start(SandboxConfig {
        token_ttl: 60,
        ..SandboxConfig::default()
    })
    .await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let doc = body(&ready(example::standard_invoice("INV-1")));
    let r = api
        .http
        .post(api.doc_url(&id, DocumentKind::Invoice))
        .json(&doc)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "Failure");
    assert!(
        v.as_object().unwrap().contains_key("invoice"),
        "the api.md 2.6 shape: {v}"
    );
    let r = api.send("not-a-token", &id, DocumentKind::Invoice, &doc, None).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    // Valid until its 60 s have passed, by the sandbox's clock.
    s.advance_clock(59);
    let r = api.send(&token, &id, DocumentKind::Invoice, &doc, None).await;
    assert_eq!(r.status(), StatusCode::OK);
    s.advance_clock(2);
    let r = api.send(&token, &id, DocumentKind::Invoice, &doc, None).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    // A shorter lifetime set at runtime applies to new tokens.
    assert_eq!(api.faults(json!({"token_ttl": 1})).await.token_ttl, 1);
    let fresh = api.token().await;
    let r = api.send(&fresh, &id, DocumentKind::Invoice, &doc, None).await;
    assert_eq!(r.status(), StatusCode::OK);
    let clock: Value = api
        .post("/sandbox/clock", None, &json!({"advance_seconds": 1}))
        .await
        .json()
        .await
        .unwrap();
    assert!(clock["now"].is_string());
    let r = api.send(&fresh, &id, DocumentKind::Invoice, &doc, None).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn submit_404_for_an_unknown_onboard_id() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let doc = body(&ready(example::standard_invoice("INV-1")));
    let unknown = STANDARD.encode("9:399999999900003:nobody");
    let r = api.send(&token, &unknown, DocumentKind::Invoice, &doc, None).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let v: Value = r.json().await.unwrap();
    assert_eq!(codes(&v, "errors"), vec!["UNKNOWN-DEVICE"]);
    // The id unencoded: its `/` or `=` make it another path, which is not found either.
    let r = api
        .http
        .post(format!("{}/v1/e-invoicing/{id}x/invoices", api.base))
        .bearer_auth(&token)
        .json(&doc)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn submit_413_for_a_body_over_1_mib() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut v = body(&ready(example::standard_invoice("BIG-1")));
    v["note"] = json!("x".repeat(1 << 20));
    let r = api.send(&token, &id, DocumentKind::Invoice, &v, None).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let v: Value = r.json().await.unwrap();
    assert_eq!(codes(&v, "errors"), vec!["BODY-TOO-LARGE"]);
    // Just under the limit is fine.
    let mut ok = body(&ready(example::standard_invoice("BIG-2")));
    ok["note"] = json!("x".repeat((1 << 20) - 20_000));
    let r = api.send(&token, &id, DocumentKind::Invoice, &ok, None).await;
    assert_eq!(r.status(), StatusCode::OK);
}

// ---------------------------------------------------------------------------------------------
// Documents: 409 and replays (D17)

#[tokio::test]
async fn a_replay_with_the_same_key_returns_the_first_answer_byte_for_byte() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let doc = ready(example::standard_invoice("INV-1"));
    let (s1, first) = api.submit(&token, &id, &doc, Some("key-1")).await;
    assert_eq!(s1, StatusCode::OK);
    let (s2, again) = api.submit(&token, &id, &doc, Some("key-1")).await;
    assert_eq!(s2, StatusCode::OK);
    assert_eq!(first, again);
    // Without the key, or with another, the same body is still the same document.
    let (_, no_key) = api.submit(&token, &id, &doc, None).await;
    let (_, other_key) = api.submit(&token, &id, &doc, Some("key-2")).await;
    assert_eq!(first, no_key);
    assert_eq!(first, other_key);
    // The body re-serialised with another key order is the same content.
    let reordered: serde_json::Map<String, Value> = body(&doc).as_object().unwrap().clone().into_iter().rev().collect();
    let r = api
        .send(
            &token,
            &id,
            DocumentKind::Invoice,
            &Value::Object(reordered),
            Some("key-1"),
        )
        .await;
    assert_eq!(r.bytes().await.unwrap().to_vec(), first);
    let d = s.stats().device(&id).unwrap().clone();
    assert_eq!((d.accepted, d.icv, d.replays), (1, 1, 4));
    // The next document still gets ICV 2.
    let (_, next) = api
        .submit(&token, &id, &ready(example::standard_invoice("INV-2")), None)
        .await;
    assert_eq!(icv_pih(&xml_of(&parse(&next))).0, 2);
}

#[tokio::test]
async fn the_same_number_with_another_body_is_409_duplicate_document() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let doc = ready(example::standard_invoice("INV-1"));
    assert_eq!(api.submit(&token, &id, &doc, Some("k")).await.0, StatusCode::OK);
    let mut changed = example::standard_invoice("INV-1");
    changed.invoice_lines[0].quantity = rust_decimal::Decimal::from(34);
    let changed = ready(changed);
    for key in [Some("k"), None] {
        let (status, bytes) = api.submit(&token, &id, &changed, key).await;
        assert_eq!(status, StatusCode::CONFLICT);
        let v = raw(&bytes);
        assert_eq!(v["status"], "Failure");
        assert_eq!(codes(&v, "errors"), vec!["DUPLICATE-DOCUMENT"]);
    }
    // The same number is another document at another endpoint.
    let note = ready(example::credit_note("INV-1", "INV-0"));
    assert_eq!(api.submit(&token, &id, &note, None).await.0, StatusCode::OK);
    let d = s.stats().device(&id).unwrap().clone();
    assert_eq!((d.accepted, d.rejections), (2, 2));
}

// ---------------------------------------------------------------------------------------------
// Documents: 422 (api.md §7, D14, D7, D21)

#[tokio::test]
async fn submit_422_carries_every_error_as_a_message_object() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut doc = ready(example::standard_invoice("BAD-1"));
    std::sync::Arc::make_mut(&mut doc.supplier_info).vat_number = Some("311111111100003".into());
    doc.legal_monitory_total.tax_inclusive_amount += rust_decimal::Decimal::ONE;
    let (status, bytes) = api.submit(&token, &id, &doc, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let v = raw(&bytes);
    assert_eq!(v["status"], "Failure");
    assert_eq!(v["invoice_number"], "BAD-1");
    assert!(v["invoice"].is_null() && v["id"].is_null());
    // The same rules, run here on the same document, at the sandbox's time, for the same device
    // (src/sandbox/documents.rs): the 422 carries exactly their errors, and their warnings.
    let clock: Value = api
        .post("/sandbox/clock", None, &json!({"advance_seconds": 0}))
        .await
        .json()
        .await
        .unwrap();
    let now = serde_json::from_value(clock["now"].clone()).expect("the sandbox's time");
    let mut ctx = Context::new(now);
    ctx.device = Some(DeviceContext {
        vat_number: "399999999900003".into(),
        device_type: DeviceType::Both,
    });
    let findings = validate(&doc, &ctx);
    let (errors, warnings): (Vec<&Finding>, Vec<&Finding>) = findings.iter().partition(|f| f.is_error());
    let expected: BTreeSet<&str> = errors.iter().map(|f| f.code.as_str()).collect();
    assert!(
        expected.contains("BR-CO-15") && expected.contains("certificate-permissions"),
        "the two broken rules are found locally: {expected:?}"
    );
    let got = codes(&v, "errors");
    assert_eq!(got.iter().map(String::as_str).collect::<BTreeSet<_>>(), expected, "{v}");
    assert_eq!(got.len(), errors.len(), "one message per error: {v}");
    let expected_warnings: BTreeSet<&str> = warnings.iter().map(|f| f.code.as_str()).collect();
    let got_warnings = codes(&v, "warnings");
    assert_eq!(
        got_warnings.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        expected_warnings,
        "{v}"
    );
    for m in v["errors"].as_array().unwrap() {
        for key in ["type", "code", "category", "message", "status"] {
            assert!(m[key].is_string(), "{key} in {m}");
        }
        assert_eq!((&m["type"], &m["status"]), (&json!("ERROR"), &json!("ERROR")));
    }
    // Nothing was issued: the next good document is ICV 1.
    let (_, ok) = api
        .submit(&token, &id, &ready(example::standard_invoice("OK-1")), None)
        .await;
    assert_eq!(icv_pih(&xml_of(&parse(&ok))).0, 1);
}

#[tokio::test]
async fn a_document_of_a_type_the_device_was_not_onboarded_for_is_422() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let token = api.token().await;
    let b2c = api.onboard(&token, "till-b2c", "simplified").await;
    let b2b = api.onboard(&token, "till-b2b", "standard").await;
    let standard = ready(example::standard_invoice("INV-1"));
    let simplified = simplified_issued_hours_ago("S-1", 1);
    let (status, bytes) = api.submit(&token, &b2c, &standard, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(codes(&raw(&bytes), "errors"), vec!["DEVICE-TYPE-NOT-ALLOWED"]);
    let (status, _) = api.submit(&token, &b2b, &simplified, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(api.submit(&token, &b2c, &simplified, None).await.0, StatusCode::OK);
    assert_eq!(api.submit(&token, &b2b, &standard, None).await.0, StatusCode::OK);
}

// ---------------------------------------------------------------------------------------------
// No request data makes the server fail

/// JSON pointers of every leaf (string, number, boolean, null) of a value.
fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| leaves(x, format!("{at}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, format!("{at}/{i}"), out)),
        _ => out.push(at),
    }
}

#[tokio::test]
async fn every_field_replaced_by_a_wrong_value_gives_an_answer_never_a_5xx() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let good = body(&ready(example::standard_invoice("M")));
    let mut paths = Vec::new();
    leaves(&good, String::new(), &mut paths);
    let max_decimal: Value = serde_json::from_str("79228162514264337593543950335").unwrap();
    let mut n = 0;
    let mut seen = std::collections::BTreeSet::new();
    for path in &paths {
        for wrong in [json!(null), json!("x"), json!(-1), json!(true), max_decimal.clone()] {
            n += 1;
            let mut v = good.clone();
            v["invoice_number"] = json!(format!("M-{n}"));
            *v.pointer_mut(path).unwrap() = wrong.clone();
            let r = api.send(&token, &id, DocumentKind::Invoice, &v, None).await;
            let status = r.status();
            let answer: Value = r.json().await.expect("a JSON answer");
            assert!(!status.is_server_error(), "{path} = {wrong}: {status} {answer}");
            assert!(answer["status"].is_string(), "{path} = {wrong}: {answer}");
            seen.insert(status.as_u16());
        }
    }
    assert!(seen.contains(&400) && seen.contains(&200), "{seen:?}");
}

#[tokio::test]
async fn a_document_that_cannot_be_made_into_xml_is_a_final_422_not_a_5xx() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut doc = example::standard_invoice("CTRL-1");
    doc.note = Some("bell \u{7} in a note".into());
    let (status, bytes) = api.submit(&token, &id, &ready(doc), None).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    let v = raw(&bytes);
    assert_eq!(v["status"], "Failure");
    assert!(!codes(&v, "errors").is_empty(), "{v}");
    let (_, ok) = api
        .submit(&token, &id, &ready(example::standard_invoice("OK-1")), None)
        .await;
    assert_eq!(icv_pih(&xml_of(&parse(&ok))).0, 1, "nothing was consumed");
}

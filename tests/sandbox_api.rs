//! The sandbox authority over real HTTP: every status code of api.md §7 and D16, replays, the hash
//! chain under concurrency, restarts with a state folder, faults, and the `invoicedrop sandbox`
//! binary (its help and its logs).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{Duration as TimeDelta, FixedOffset, Timelike, Utc};
use invoicedrop::compute::compute_document;
use invoicedrop::model::{Document, DocumentKind, InvoiceType, SubmissionResponse, example};
use invoicedrop::sandbox::issue::GENESIS_PIH;
use invoicedrop::sandbox::{self, DocumentSummary, Faults, SandboxConfig, SandboxHandle, Stats};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// Helpers

fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("a client")
}

async fn start(config: SandboxConfig) -> SandboxHandle {
    sandbox::start(SandboxConfig { port: 0, ..config })
        .await
        .expect("the sandbox starts")
}

async fn sandbox() -> SandboxHandle {
    start(SandboxConfig::default()).await
}

/// Percent-encode one path segment (everything but the unreserved characters).
fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn ready(mut doc: Document) -> Document {
    compute_document(&mut doc).expect("totals");
    doc
}

fn body(doc: &Document) -> Value {
    serde_json::to_value(doc).expect("a JSON document")
}

/// A document issued `hours_ago` hours ago, Riyadh time, with its totals.
fn issued_hours_ago(mut doc: Document, hours_ago: i64) -> Document {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let t = (Utc::now() - TimeDelta::hours(hours_ago)).with_timezone(&riyadh);
    doc.issue_date = t.date_naive();
    doc.actual_delivery_date = t.date_naive();
    doc.issue_time = t.time().with_nanosecond(0).unwrap();
    ready(doc)
}

/// A simplified invoice issued `hours_ago` hours ago.
fn simplified_issued_hours_ago(number: &str, hours_ago: i64) -> Document {
    issued_hours_ago(example::simplified_invoice(number), hours_ago)
}

/// The text of the element after `marker` in `xml`: `<cbc:ID>ICV</cbc:ID>` then `<cbc:UUID>`.
fn after(xml: &str, marker: &str, open: &str, close: &str) -> Option<String> {
    let rest = &xml[xml.find(marker)? + marker.len()..];
    let rest = &rest[rest.find(open)? + open.len()..];
    let rest = &rest[rest.find('>')? + 1..];
    Some(rest[..rest.find(close)?].trim().to_string())
}

/// ICV and PIH read from a signed XML.
fn icv_pih(xml: &str) -> (u64, String) {
    let icv = after(xml, "<cbc:ID>ICV</cbc:ID>", "<cbc:UUID", "</cbc:UUID>").expect("an ICV");
    let pih = after(
        xml,
        "<cbc:ID>PIH</cbc:ID>",
        "<cbc:EmbeddedDocumentBinaryObject",
        "</cbc:EmbeddedDocumentBinaryObject>",
    )
    .expect("a PIH");
    (icv.parse().expect("ICV digits"), pih)
}

fn xml_of(r: &SubmissionResponse) -> String {
    let b64 = r.invoice.as_deref().expect("a signed invoice");
    String::from_utf8(STANDARD.decode(b64).expect("base64")).expect("UTF-8 XML")
}

struct Api {
    base: String,
    http: reqwest::Client,
}

impl Api {
    fn new(handle: &SandboxHandle) -> Api {
        Api {
            base: handle.base_url(),
            http: client(),
        }
    }

    async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> reqwest::Response {
        let mut req = self.http.post(format!("{}{path}", self.base)).json(body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send().await.expect("an answer")
    }

    async fn token(&self) -> String {
        let r = self
            .post(
                "/v1/e-invoicing/auth",
                None,
                &json!({"vat_number": "399999999900003", "username": "sandbox", "secret": "sandbox-secret"}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        let v: Value = r.json().await.unwrap();
        v["token"].as_str().unwrap().to_string()
    }

    fn onboarding(device_id: &str, invoice_type: &str) -> Value {
        json!({
            "otp": "123456", "vat_number": "399999999900003", "device_id": device_id,
            "invoice_type": invoice_type, "org_name": "Maximum Speed Tech Supply LTD", "org_unit": "Riyadh",
            "business_category": "IT", "registered_address": "2322 Prince Sultan, Riyadh",
            "country_code": "SA", "email_id": "it@example.sa"
        })
    }

    async fn onboard(&self, token: &str, device_id: &str, invoice_type: &str) -> String {
        let r = self
            .post(
                "/v1/e-invoicing/onboardings",
                Some(token),
                &Api::onboarding(device_id, invoice_type),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["status"], "success");
        v["onboard_id"].as_str().unwrap().to_string()
    }

    /// A token and a device that may issue both types.
    async fn device(&self, device_id: &str) -> (String, String) {
        let token = self.token().await;
        let id = self.onboard(&token, device_id, "both").await;
        (token, id)
    }

    fn doc_url(&self, onboard_id: &str, kind: DocumentKind) -> String {
        format!(
            "{}/v1/e-invoicing/{}/{}",
            self.base,
            segment(onboard_id),
            kind.path_segment()
        )
    }

    async fn send(
        &self,
        token: &str,
        onboard_id: &str,
        kind: DocumentKind,
        body: &Value,
        key: Option<&str>,
    ) -> reqwest::Response {
        let mut req = self
            .http
            .post(self.doc_url(onboard_id, kind))
            .bearer_auth(token)
            .json(body);
        if let Some(k) = key {
            req = req.header("Idempotency-Key", k);
        }
        req.send().await.expect("an answer")
    }

    async fn submit(&self, token: &str, onboard_id: &str, doc: &Document, key: Option<&str>) -> (StatusCode, Vec<u8>) {
        let r = self.send(token, onboard_id, doc.kind, &body(doc), key).await;
        let status = r.status();
        (status, r.bytes().await.unwrap().to_vec())
    }

    async fn stats(&self) -> Stats {
        let r = self
            .http
            .get(format!("{}/sandbox/stats", self.base))
            .send()
            .await
            .unwrap();
        r.json().await.unwrap()
    }

    async fn documents(&self, onboard_id: &str) -> Vec<DocumentSummary> {
        let url = format!("{}/sandbox/devices/{}/documents", self.base, segment(onboard_id));
        self.http.get(url).send().await.unwrap().json().await.unwrap()
    }

    async fn faults(&self, update: Value) -> Faults {
        let r = self.post("/sandbox/faults", None, &update).await;
        assert_eq!(r.status(), StatusCode::OK);
        r.json().await.unwrap()
    }
}

fn parse(bytes: &[u8]) -> SubmissionResponse {
    SubmissionResponse::parse(bytes).expect("a JSON answer")
}

fn raw(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("a JSON answer")
}

fn codes(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| m["code"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Authentication (api.md 4.1)

#[tokio::test]
async fn auth_gives_a_random_token_with_its_lifetime_in_seconds() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let creds = json!({"vat_number": "399999999900003", "username": "sandbox", "secret": "sandbox-secret"});
    let a: Value = api
        .post("/v1/e-invoicing/auth", None, &creds)
        .await
        .json()
        .await
        .unwrap();
    let b: Value = api
        .post("/v1/e-invoicing/auth", None, &creds)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(a["expires_in"], 3600);
    let (ta, tb) = (a["token"].as_str().unwrap(), b["token"].as_str().unwrap());
    assert_ne!(ta, tb);
    assert!(ta.len() >= 22, "at least 128 bits: {ta}");
}

#[tokio::test]
async fn auth_400_names_the_missing_field() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let r = api
        .post(
            "/v1/e-invoicing/auth",
            None,
            &json!({"vat_number": "399999999900003", "username": 7}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "Failure");
    let texts: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].as_str().unwrap())
        .collect();
    assert!(texts.iter().any(|t| t.starts_with("secret: missing")), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.starts_with("username: expected a string")),
        "{texts:?}"
    );
    let r = s_post_raw(&api, "/v1/e-invoicing/auth", "not json").await;
    assert_eq!(r, StatusCode::BAD_REQUEST);
}

async fn s_post_raw(api: &Api, path: &str, text: &'static str) -> StatusCode {
    api.http
        .post(format!("{}{path}", api.base))
        .body(text)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn auth_401_for_a_wrong_vat_number_username_or_secret() {
    let s = sandbox().await;
    let api = Api::new(&s);
    for (vat, user, secret) in [
        ("399999999900004", "sandbox", "sandbox-secret"),
        ("399999999900003", "sandbo", "sandbox-secret"),
        ("399999999900003", "sandbox", "sandbox-secreT"),
        ("399999999900003", "sandbox", ""),
    ] {
        let r = api
            .post(
                "/v1/e-invoicing/auth",
                None,
                &json!({"vat_number": vat, "username": user, "secret": secret}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{vat} {user} {secret}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["status"], "Failure");
        assert!(v.get("token").is_none());
    }
}

// ---------------------------------------------------------------------------------------------
// Onboarding (api.md 4.2, D2, D7, D8)

#[tokio::test]
async fn onboarding_401_without_or_with_a_bad_or_expired_token() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let body = Api::onboarding("till-1", "both");
    assert_eq!(
        api.post("/v1/e-invoicing/onboardings", None, &body).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api.post("/v1/e-invoicing/onboardings", Some("made-up"), &body)
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    let token = api.token().await;
    s.advance_clock(3601);
    let r = api.post("/v1/e-invoicing/onboardings", Some(&token), &body).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "Failure");
}

#[tokio::test]
async fn onboarding_400_for_missing_fields_and_a_wrong_otp() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let token = api.token().await;
    let mut body = Api::onboarding("till-1", "both");
    body.as_object_mut().unwrap().remove("email_id");
    body["invoice_type"] = json!("b2b");
    let r = api.post("/v1/e-invoicing/onboardings", Some(&token), &body).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    let text = v["errors"].to_string();
    assert!(
        text.contains("email_id: missing") && text.contains("invoice_type"),
        "{text}"
    );

    let mut wrong = Api::onboarding("till-1", "both");
    wrong["otp"] = json!("654321");
    let r = api.post("/v1/e-invoicing/onboardings", Some(&token), &wrong).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert_eq!(codes(&v, "errors"), vec!["INVALID-OTP"]);
    // Nothing was onboarded by the failures: the right OTP still works.
    api.onboard(&token, "till-1", "both").await;
}

#[tokio::test]
async fn onboarding_409_for_the_same_device_twice() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let token = api.token().await;
    let first = api.onboard(&token, "till-1", "standard").await;
    let r = api
        .post(
            "/v1/e-invoicing/onboardings",
            Some(&token),
            &Api::onboarding("till-1", "simplified"),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let v: Value = r.json().await.unwrap();
    assert_eq!(codes(&v, "errors"), vec!["DEVICE-ALREADY-ONBOARDED"]);
    let second = api.onboard(&token, "till-2", "standard").await;
    assert_ne!(first, second);
}

#[tokio::test]
async fn onboard_ids_are_opaque_and_work_percent_encoded() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let token = api.token().await;
    let mut slashed = None;
    for device in ["pos?~", "pos??~", "pos???~"] {
        let id = api.onboard(&token, device, "both").await;
        assert!(id.contains(['=', '/', '+']), "{id}");
        let text = String::from_utf8(STANDARD.decode(&id).unwrap()).unwrap();
        assert!(text.ends_with(&format!(":399999999900003:{device}")), "{text}");
        if id.contains(['/', '+']) {
            slashed = Some(id);
        }
    }
    let id = slashed.expect("one of the ids has a / or a +");
    let doc = ready(example::standard_invoice("ENC-1"));
    let (status, bytes) = api.submit(&token, &id, &doc, None).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&bytes));
}

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
    doc.supplier_info.vat_number = Some("311111111100003".into());
    doc.legal_monitory_total.tax_inclusive_amount += rust_decimal::Decimal::ONE;
    let (status, bytes) = api.submit(&token, &id, &doc, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let v = raw(&bytes);
    assert_eq!(v["status"], "Failure");
    assert_eq!(v["invoice_number"], "BAD-1");
    assert!(v["invoice"].is_null() && v["id"].is_null());
    let mut got = codes(&v, "errors");
    got.sort();
    assert!(got.contains(&"BR-CO-15".to_string()), "{got:?}");
    assert!(got.contains(&"certificate-permissions".to_string()), "{got:?}");
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
// Faults (D16, D19)

#[tokio::test]
async fn beyond_the_rate_the_answer_is_429_with_retry_after() {
    let s = start(SandboxConfig {
        rate: 2,
        ..SandboxConfig::default()
    })
    .await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut statuses = Vec::new();
    let mut retry_after = Vec::new();
    for i in 0..6 {
        let doc = body(&ready(example::standard_invoice(&format!("R-{i}"))));
        let r = api.send(&token, &id, DocumentKind::Invoice, &doc, None).await;
        statuses.push(r.status());
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            let secs: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
            retry_after.push(secs);
            let v: Value = r.json().await.unwrap();
            assert_eq!(v["status"], "Failure");
        }
    }
    assert!(
        statuses.iter().filter(|s| **s == StatusCode::OK).count() >= 2,
        "{statuses:?}"
    );
    assert!(!retry_after.is_empty(), "{statuses:?}");
    assert!(retry_after.iter().all(|s| *s >= 1));
    assert_eq!(s.stats().rate_limited, retry_after.len() as u64);
    // Switched off at runtime.
    api.faults(json!({"rate": 0})).await;
    let doc = body(&ready(example::standard_invoice("R-x")));
    for _ in 0..5 {
        assert_eq!(
            api.send(&token, &id, DocumentKind::Invoice, &doc, None).await.status(),
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn injected_failures_answer_500_or_503_and_do_nothing() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    api.faults(json!({"fail_rate": 1.0})).await;
    let doc = ready(example::standard_invoice("F-1"));
    for _ in 0..6 {
        let (status, bytes) = api.submit(&token, &id, &doc, Some("k")).await;
        assert!(
            status == StatusCode::INTERNAL_SERVER_ERROR || status == StatusCode::SERVICE_UNAVAILABLE,
            "{status}"
        );
        assert_eq!(raw(&bytes)["status"], "Failure");
    }
    let stats = s.stats();
    assert_eq!((stats.injected_failures, stats.device(&id).unwrap().icv), (6, 0));
    // The repeat after the failures is issued once.
    api.faults(json!({"fail_rate": 0.0})).await;
    assert_eq!(api.submit(&token, &id, &doc, Some("k")).await.0, StatusCode::OK);
    assert_eq!(s.stats().device(&id).unwrap().accepted, 1);
    let bad = api.post("/sandbox/faults", None, &json!({"fail_rate": 2.0})).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_dropped_connection_leaves_the_document_accepted_and_the_repeat_gets_its_answer() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    api.faults(json!({"drop_rate": 1.0})).await;
    let doc = ready(example::standard_invoice("DROP-1"));
    let outcome = api
        .http
        .post(api.doc_url(&id, DocumentKind::Invoice))
        .bearer_auth(&token)
        .header("Idempotency-Key", "drop-key")
        .json(&body(&doc))
        .send()
        .await;
    let err = outcome.expect_err("no answer: the connection was dropped");
    assert!(!err.is_status() && !err.is_timeout(), "{err:?}");
    let stats = s.stats();
    assert_eq!((stats.dropped, stats.device(&id).unwrap().accepted), (1, 1));
    api.faults(json!({"drop_rate": 0.0})).await;
    let (status, bytes) = api.submit(&token, &id, &doc, Some("drop-key")).await;
    assert_eq!(status, StatusCode::OK);
    let r = parse(&bytes);
    assert_eq!(icv_pih(&xml_of(&r)).0, 1);
    assert_eq!(api.documents(&id).await[0].uuid, r.id.unwrap());
    let d = s.stats().device(&id).unwrap().clone();
    assert_eq!((d.accepted, d.replays), (1, 1));
}

#[tokio::test]
async fn the_delay_fault_slows_document_answers() {
    let s = start(SandboxConfig {
        delay_ms: 400,
        ..SandboxConfig::default()
    })
    .await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let started = Instant::now();
    let (status, _) = api
        .submit(&token, &id, &ready(example::standard_invoice("SLOW-1")), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(s.faults().delay_ms, 400);
}

// ---------------------------------------------------------------------------------------------
// State (D20)

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_documents_make_one_unbroken_chain() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..200 {
        let (http, url, token) = (api.http.clone(), api.doc_url(&id, DocumentKind::Invoice), token.clone());
        tasks.spawn(async move {
            let doc = ready(example::standard_invoice(&format!("C-{i:03}")));
            let r = http
                .post(url)
                .bearer_auth(token)
                .json(&body(&doc))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            parse(&r.bytes().await.unwrap())
        });
    }
    let mut chain: Vec<(u64, String, String)> = Vec::new();
    while let Some(r) = tasks.join_next().await {
        let r = r.unwrap();
        let (icv, pih) = icv_pih(&xml_of(&r));
        chain.push((icv, pih, r.id.unwrap()));
    }
    chain.sort();
    let hashes: HashMap<String, DocumentSummary> = api
        .documents(&id)
        .await
        .into_iter()
        .map(|d| (d.uuid.clone(), d))
        .collect();
    assert_eq!(hashes.len(), 200);
    let mut previous = GENESIS_PIH.to_string();
    for (n, (icv, pih, uuid)) in chain.iter().enumerate() {
        assert_eq!(*icv, n as u64 + 1, "ICVs run 1..=200 without gaps or repeats");
        assert_eq!(*pih, previous, "PIH of ICV {icv} is the hash of ICV {}", icv - 1);
        previous = hashes[uuid].invoice_hash.clone();
    }
    let d = s.stats().device(&id).unwrap().clone();
    assert_eq!((d.accepted, d.icv), (200, 200));
}

#[tokio::test]
async fn state_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = SandboxConfig {
        state: Some(dir.path().to_path_buf()),
        ..SandboxConfig::default()
    };
    let s = start(config.clone()).await;
    let api = Api::new(&s);
    let (token, id) = api.device("till-1").await;
    let kept = ready(example::standard_invoice("INV-1"));
    let (_, first) = api.submit(&token, &id, &kept, Some("k-1")).await;
    for n in 2..=3 {
        let (status, _) = api
            .submit(
                &token,
                &id,
                &ready(example::standard_invoice(&format!("INV-{n}"))),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let before = api.documents(&id).await;
    s.shutdown().await;

    let s = start(config).await;
    let api = Api::new(&s);
    let token = api.token().await;
    assert_eq!(s.stats().device(&id).unwrap().icv, 3);
    assert_eq!(api.documents(&id).await, before);
    let (status, again) = api.submit(&token, &id, &kept, Some("k-1")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again, first, "the replay after a restart is byte-identical");
    let (_, next) = api
        .submit(&token, &id, &ready(example::standard_invoice("INV-4")), None)
        .await;
    let (icv, pih) = icv_pih(&xml_of(&parse(&next)));
    assert_eq!((icv, pih), (4, before[2].invoice_hash.clone()));
    // The device is still onboarded.
    let r = api
        .post(
            "/v1/e-invoicing/onboardings",
            Some(&token),
            &Api::onboarding("till-1", "both"),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    s.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// The `invoicedrop sandbox` binary

#[test]
fn sandbox_help_documents_every_flag() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(["sandbox", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "--bind",
        "--port",
        "--state",
        "--rate",
        "--fail-rate",
        "--drop-rate",
        "--delay-ms",
        "--token-ttl",
        "--vat-number",
        "--username",
        "--otp",
        "INVOICEDROP_SANDBOX_SECRET",
    ] {
        assert!(text.contains(flag), "{flag} is not in the help:\n{text}");
    }
}

#[test]
fn the_binary_logs_each_request_without_tokens_or_secrets_and_stops_on_sigterm() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;

    let secret = "env-secret-5be1c9";
    let otp = "otp-77e04a";
    let mut child = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(["-v", "sandbox", "--port", "0", "--otp", otp])
        .env(sandbox::SECRET_ENV, secret)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines_tx, lines) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let first = lines.recv_timeout(Duration::from_secs(60)).expect("the banner");
    let url = first.split_whitespace().last().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{first}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let token = runtime.block_on(async {
        let http = client();
        let auth = |secret: &str| {
            http.post(format!("{url}/v1/e-invoicing/auth"))
                .json(&json!({"vat_number": "399999999900003", "username": "sandbox", "secret": secret}))
                .send()
        };
        assert_eq!(auth("sandbox-secret").await.unwrap().status(), StatusCode::UNAUTHORIZED);
        let v: Value = auth(secret).await.unwrap().json().await.unwrap();
        let token = v["token"].as_str().unwrap().to_string();
        let mut onboarding = Api::onboarding("till-1", "both");
        onboarding["otp"] = json!(otp);
        let r = http
            .post(format!("{url}/v1/e-invoicing/onboardings"))
            .bearer_auth(&token)
            .json(&onboarding)
            .send()
            .await
            .unwrap();
        let v: Value = r.json().await.unwrap();
        let id = v["onboard_id"].as_str().unwrap().to_string();
        let r = http
            .post(format!("{url}/v1/e-invoicing/{}/invoices", segment(&id)))
            .bearer_auth(&token)
            .json(&body(&ready(example::standard_invoice("LOG-1"))))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        token
    });

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let (done_tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(child.wait());
    });
    let status = done
        .recv_timeout(Duration::from_secs(30))
        .expect("the sandbox stops on SIGTERM")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let stdout: Vec<String> = std::iter::once(first).chain(lines.try_iter()).collect();
    let stdout = stdout.join("\n");
    let log = log.join().unwrap();

    for line in [
        "POST /v1/e-invoicing/auth 401",
        "POST /v1/e-invoicing/auth 200",
        "POST /v1/e-invoicing/onboardings 200",
        "/invoices 200",
    ] {
        assert!(log.contains(line), "{line:?} not logged:\n{log}");
    }
    assert!(
        log.lines().any(|l| l.contains("/invoices 200") && l.contains("ms")),
        "{log}"
    );
    for hidden in [token.as_str(), secret, otp, "Bearer"] {
        assert!(!log.contains(hidden), "{hidden:?} in the log:\n{log}");
    }
    assert!(
        !stdout.contains(secret),
        "the secret from the environment is not printed:\n{stdout}"
    );
    assert!(stdout.contains(sandbox::SECRET_ENV), "{stdout}");
}

//! Helpers: start a sandbox in-process, talk to it, read what it answered.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{Duration as TimeDelta, FixedOffset, Timelike, Utc};
use invoicedrop::compute::compute_document;
use invoicedrop::model::{Document, DocumentKind, SubmissionResponse, example};
use invoicedrop::sandbox::{self, DocumentSummary, Faults, SandboxConfig, SandboxHandle, Stats};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::Duration;

pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("a client")
}

pub async fn start(config: SandboxConfig) -> SandboxHandle {
    sandbox::start(SandboxConfig { port: 0, ..config })
        .await
        .expect("the sandbox starts")
}

pub async fn sandbox() -> SandboxHandle {
    start(SandboxConfig::default()).await
}

/// Percent-encode one path segment (everything but the unreserved characters).
pub fn segment(text: &str) -> String {
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

pub fn ready(mut doc: Document) -> Document {
    compute_document(&mut doc).expect("totals");
    doc
}

pub fn body(doc: &Document) -> Value {
    serde_json::to_value(doc).expect("a JSON document")
}

/// A document issued `hours_ago` hours ago, Riyadh time, with its totals.
pub fn issued_hours_ago(mut doc: Document, hours_ago: i64) -> Document {
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let t = (Utc::now() - TimeDelta::hours(hours_ago)).with_timezone(&riyadh);
    doc.issue_date = t.date_naive();
    doc.actual_delivery_date = t.date_naive();
    doc.issue_time = t.time().with_nanosecond(0).unwrap();
    ready(doc)
}

/// A simplified invoice issued `hours_ago` hours ago.
pub fn simplified_issued_hours_ago(number: &str, hours_ago: i64) -> Document {
    issued_hours_ago(example::simplified_invoice(number), hours_ago)
}

/// The text of the element after `marker` in `xml`: `<cbc:ID>ICV</cbc:ID>` then `<cbc:UUID>`.
pub fn after(xml: &str, marker: &str, open: &str, close: &str) -> Option<String> {
    let rest = &xml[xml.find(marker)? + marker.len()..];
    let rest = &rest[rest.find(open)? + open.len()..];
    let rest = &rest[rest.find('>')? + 1..];
    Some(rest[..rest.find(close)?].trim().to_string())
}

/// ICV and PIH read from a signed XML.
pub fn icv_pih(xml: &str) -> (u64, String) {
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

pub fn xml_of(r: &SubmissionResponse) -> String {
    let b64 = r.invoice.as_deref().expect("a signed invoice");
    String::from_utf8(STANDARD.decode(b64).expect("base64")).expect("UTF-8 XML")
}

pub struct Api {
    pub base: String,
    pub http: reqwest::Client,
}

impl Api {
    pub fn new(handle: &SandboxHandle) -> Api {
        Api {
            base: handle.base_url(),
            http: client(),
        }
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> reqwest::Response {
        let mut req = self.http.post(format!("{}{path}", self.base)).json(body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send().await.expect("an answer")
    }

    pub async fn token(&self) -> String {
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

    pub fn onboarding(device_id: &str, invoice_type: &str) -> Value {
        json!({
            "otp": "123456", "vat_number": "399999999900003", "device_id": device_id,
            "invoice_type": invoice_type, "org_name": "Maximum Speed Tech Supply LTD", "org_unit": "Riyadh",
            "business_category": "IT", "registered_address": "2322 Prince Sultan, Riyadh",
            "country_code": "SA", "email_id": "it@example.sa"
        })
    }

    pub async fn onboard(&self, token: &str, device_id: &str, invoice_type: &str) -> String {
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
    pub async fn device(&self, device_id: &str) -> (String, String) {
        let token = self.token().await;
        let id = self.onboard(&token, device_id, "both").await;
        (token, id)
    }

    pub fn doc_url(&self, onboard_id: &str, kind: DocumentKind) -> String {
        format!(
            "{}/v1/e-invoicing/{}/{}",
            self.base,
            segment(onboard_id),
            kind.path_segment()
        )
    }

    pub async fn send(
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

    pub async fn submit(
        &self,
        token: &str,
        onboard_id: &str,
        doc: &Document,
        key: Option<&str>,
    ) -> (StatusCode, Vec<u8>) {
        let r = self.send(token, onboard_id, doc.kind, &body(doc), key).await;
        let status = r.status();
        (status, r.bytes().await.unwrap().to_vec())
    }

    pub async fn stats(&self) -> Stats {
        let r = self
            .http
            .get(format!("{}/sandbox/stats", self.base))
            .send()
            .await
            .unwrap();
        r.json().await.unwrap()
    }

    pub async fn documents(&self, onboard_id: &str) -> Vec<DocumentSummary> {
        let url = format!("{}/sandbox/devices/{}/documents", self.base, segment(onboard_id));
        self.http.get(url).send().await.unwrap().json().await.unwrap()
    }

    pub async fn faults(&self, update: Value) -> Faults {
        let r = self.post("/sandbox/faults", None, &update).await;
        assert_eq!(r.status(), StatusCode::OK);
        r.json().await.unwrap()
    }
}

pub fn parse(bytes: &[u8]) -> SubmissionResponse {
    SubmissionResponse::parse(bytes).expect("a JSON answer")
}

pub fn raw(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("a JSON answer")
}

pub fn codes(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| m["code"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

//! `POST /v1/e-invoicing/{onboard_id}/invoices`, `/credit-notes` and `/debit-notes` (api.md 4.3,
//! D10, D14 to D21).
//!
//! In order: the fault gate (429, injected 500/503), the token (401), the device (404), the body
//! (413, 400 naming every bad field), then under the device's lock: a repeat (the stored answer,
//! byte for byte), a changed document under an accepted number (409), the authority's rules (422),
//! and finally the issue: next ICV and PIH, XML, hash, QR, journal, answer. The delay fault is
//! added before the answer; the drop fault cuts the connection of an accepted document instead of
//! answering.

use super::conn::Connection;
use super::faults::Gate;
use super::issue::{self, Issued};
use super::journal::{Durable, JournalError};
use super::replay::{Lookup, Record, body_hash};
use super::respond;
use super::server::Shared;
use super::state::Device;
use super::{auth, body, fields};
use crate::model::{Document, DocumentKind, InvoiceType, Message, Messages, SubmissionResponse};
use crate::validate::{self, Context, DeviceContext, Finding, Severity};
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, FixedOffset, Utc};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Marks an answer that was not sent because the connection was cut (for the request log).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dropped;

/// The endpoint of a path segment.
fn kind_of(segment: &str) -> Option<DocumentKind> {
    DocumentKind::ALL.into_iter().find(|k| k.path_segment() == segment)
}

/// The D14 category of a rule code.
fn category(code: &str) -> &'static str {
    if code.starts_with("BR-KSA") || code.starts_with("BR-CL-KSA") {
        "KSA"
    } else if code.starts_with("BR-") {
        "EN_16931"
    } else if code == "certificate-permissions" || code == "DEVICE-TYPE-NOT-ALLOWED" {
        "CERTIFICATE_ERRORS"
    } else {
        "INVOICEDROP"
    }
}

/// A finding as a D14 message; the text names the field.
fn message(f: &Finding) -> Message {
    let text = format!("[{}] - {}: {}", f.code, f.path, f.message);
    match f.severity {
        Severity::Error => Message::error(&f.code, category(&f.code), text),
        Severity::Warning => Message::warning(&f.code, category(&f.code), text),
    }
}

/// "Standard invoice INV-1 cleared", "Simplified debit note D-1 reported successfully".
fn success_text(doc: &Document) -> String {
    let t = match doc.invoice_type {
        InvoiceType::Standard => "Standard",
        InvoiceType::Simplified => "Simplified",
    };
    let outcome = match doc.invoice_type {
        InvoiceType::Standard => "cleared",
        InvoiceType::Simplified => "reported successfully",
    };
    format!("{t} {} {} {outcome}", doc.kind.label(), doc.number)
}

/// The handler of the three document endpoints.
pub(crate) async fn submit(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(conn): ConnectInfo<Connection>,
    Path((onboard_id, segment)): Path<(String, String)>,
    headers: HeaderMap,
    request_body: Body,
) -> Response {
    let Some(kind) = kind_of(&segment) else {
        return respond::submission_failure(
            StatusCode::NOT_FOUND,
            None,
            format!("no endpoint `{segment}`: use invoices, credit-notes or debit-notes"),
            Vec::new(),
            Vec::new(),
        );
    };
    match shared.faults.gate() {
        Gate::Pass => {}
        Gate::RateLimited(secs) => {
            let mut r = respond::submission_failure(
                StatusCode::TOO_MANY_REQUESTS,
                None,
                "too many requests",
                vec![Message::error(
                    "RATE-LIMITED",
                    "HTTP-Errors",
                    format!("retry after {secs} s"),
                )],
                Vec::new(),
            );
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
            return r;
        }
        Gate::Fail(code) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut r = respond::submission_failure(
                status,
                None,
                "sandbox fault: the authority failed (injected)",
                vec![Message::error(
                    "INJECTED-FAILURE",
                    "HTTP-Errors",
                    "repeat the same request later",
                )],
                Vec::new(),
            );
            if status == StatusCode::SERVICE_UNAVAILABLE {
                r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(1u32));
            }
            return r;
        }
    }
    let (mut response, accepted) = handle(&shared, kind, &onboard_id, &headers, request_body).await;
    let delay = shared.faults.delay();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    if accepted && shared.faults.drop_now() {
        conn.kill();
        response.extensions_mut().insert(Dropped);
    }
    response
}

/// Everything after the fault gate; the flag says whether the answer is a 200.
async fn handle(
    shared: &Arc<Shared>,
    kind: DocumentKind,
    onboard_id: &str,
    headers: &HeaderMap,
    request_body: Body,
) -> (Response, bool) {
    if !auth::authorised(shared, headers) {
        return (auth_failure(), false);
    }
    let Some(device) = shared.devices.get(onboard_id) else {
        let r = respond::submission_failure(
            StatusCode::NOT_FOUND,
            None,
            "unknown onboard_id",
            vec![Message::error(
                "UNKNOWN-DEVICE",
                "request",
                "no device is onboarded under this onboard_id",
            )],
            Vec::new(),
        );
        return (r, false);
    };
    let reject = |r: Response| {
        device.rejections.fetch_add(1, Ordering::Relaxed);
        (r, false)
    };
    let value = match body::read_json(request_body).await {
        Ok(v) => v,
        Err(e) => return reject(e.submission()),
    };
    let number = value.get(kind.number_key()).and_then(Value::as_str).map(str::to_string);
    let problems = fields::check_document(kind, &value);
    if !problems.is_empty() {
        return reject(respond::submission_failure(
            StatusCode::BAD_REQUEST,
            number,
            format!("{} missing or invalid field(s)", problems.len()),
            fields::Problem::messages(&problems),
            Vec::new(),
        ));
    }
    let hash = body_hash(&value);
    let doc: Document = match serde_json::from_value(value) {
        Ok(d) => d,
        Err(e) => {
            return reject(respond::submission_failure(
                StatusCode::BAD_REQUEST,
                number,
                "invalid document",
                vec![Message::error("INVALID-FIELD", "request", e.to_string())],
                Vec::new(),
            ));
        }
    };
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let job = Job {
        doc,
        body_hash: hash,
        key,
        now: shared.clock.now(),
    };
    let dev = device.clone();
    match tokio::task::spawn_blocking(move || job.run(&dev)).await {
        Ok((status, bytes)) => {
            if status == StatusCode::OK {
                (respond::bytes(status, bytes), true)
            } else if status.is_client_error() {
                reject(respond::bytes(status, bytes))
            } else {
                (respond::bytes(status, bytes), false)
            }
        }
        Err(e) => {
            tracing::error!("sandbox: the issuing task failed: {e}");
            (internal("the document could not be issued"), false)
        }
    }
}

fn auth_failure() -> Response {
    respond::submission_failure(
        StatusCode::UNAUTHORIZED,
        None,
        auth::UNAUTHORISED,
        vec![auth::token_message()],
        Vec::new(),
    )
}

fn internal(message: &str) -> Response {
    respond::submission_failure(
        StatusCode::INTERNAL_SERVER_ERROR,
        None,
        message,
        vec![Message::error(
            "INTERNAL",
            "HTTP-Errors",
            "repeat the same request later",
        )],
        Vec::new(),
    )
}

/// The rules, then the part under the device's lock, on a blocking thread.
struct Job {
    doc: Document,
    body_hash: String,
    key: Option<String>,
    now: DateTime<Utc>,
}

impl Job {
    fn run(self, device: &Device) -> (StatusCode, Vec<u8>) {
        let mut ctx = Context::new(self.now);
        ctx.device = Some(DeviceContext {
            vat_number: device.info.registration.vat_number.clone(),
            device_type: device.info.registration.invoice_type,
        });
        let findings = validate::validate(&self.doc, &ctx);
        let mut durable = None;
        let (status, bytes) = self.under_lock(device, findings, &mut durable);
        // The journal line is synced outside the device's lock, together with those of the
        // documents issued meanwhile; the answer waits for it.
        match durable.map(|d| d.wait()) {
            Some(Err(e)) => {
                tracing::error!("sandbox: {e}");
                not_stored(&self.doc.number, &e)
            }
            _ => (status, bytes),
        }
    }

    /// The part under the device's lock: a replay, a refusal, or the next position issued and
    /// journalled. `durable` is set to what must be on the disk before a 200 is sent.
    fn under_lock(
        &self,
        device: &Device,
        findings: Vec<Finding>,
        durable: &mut Option<Durable>,
    ) -> (StatusCode, Vec<u8>) {
        let doc = &self.doc;
        let mut ledger = device.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match ledger.lookup(doc.kind, &doc.number, &self.body_hash, self.key.as_deref()) {
            Lookup::New => {}
            Lookup::Replay(entry) => {
                return match ledger.answer(entry) {
                    Ok(bytes) => {
                        *durable = ledger.durable(entry);
                        device.replays.fetch_add(1, Ordering::Relaxed);
                        if ledger.rekeyed(entry, self.key.as_deref()) {
                            tracing::warn!(
                                "sandbox: {} {} repeated under another idempotency key",
                                doc.kind.label(),
                                doc.number
                            );
                            device.rekeyed_replays.fetch_add(1, Ordering::Relaxed);
                        }
                        (StatusCode::OK, bytes)
                    }
                    Err(e) => {
                        tracing::error!("sandbox: cannot replay {} {}: {e}", doc.kind.label(), doc.number);
                        let body = respond::failure_body(
                            Some(doc.number.clone()),
                            "the sandbox could not read the stored answer",
                            vec![Message::error(
                                "STATE-READ-FAILED",
                                "HTTP-Errors",
                                format!("the stored answer of ICV {} could not be read back", entry.icv),
                            )],
                            Vec::new(),
                        );
                        json(StatusCode::INTERNAL_SERVER_ERROR, &body)
                    }
                };
            }
            Lookup::Duplicate => {
                let text = format!(
                    "{} {} was already accepted with different content",
                    doc.kind.label(),
                    doc.number
                );
                let m = Message::error("DUPLICATE-DOCUMENT", "KSA", text.clone());
                return json(
                    StatusCode::CONFLICT,
                    &respond::failure_body(Some(doc.number.clone()), text, vec![m], Vec::new()),
                );
            }
            Lookup::KeyReused => {
                let text = "this Idempotency-Key was already used for another document".to_string();
                let m = Message::error("IDEMPOTENCY-KEY-REUSED", "request", text.clone());
                return json(
                    StatusCode::CONFLICT,
                    &respond::failure_body(Some(doc.number.clone()), text, vec![m], Vec::new()),
                );
            }
        }
        let (errors, warnings): (Vec<&Finding>, Vec<&Finding>) = findings.iter().partition(|f| f.is_error());
        let warnings: Vec<Message> = warnings.into_iter().map(message).collect();
        if !errors.is_empty() {
            let text = format!(
                "{} {} rejected: {} error(s)",
                doc.kind.label(),
                doc.number,
                errors.len()
            );
            let errors = errors.into_iter().map(message).collect();
            return json(
                StatusCode::UNPROCESSABLE_ENTITY,
                &respond::failure_body(Some(doc.number.clone()), text, errors, warnings),
            );
        }
        let position = ledger.position();
        let riyadh = FixedOffset::east_opt(3 * 3600).expect("+03:00 is a valid offset");
        let signing_time = self.now.with_timezone(&riyadh).naive_local();
        let issued: Issued = match issue::issue(doc, uuid::Uuid::new_v4(), &position, &device.identity, signing_time) {
            Ok(i) => i,
            Err(e) => {
                // What stops issue() is nearly always the document (a character XML cannot carry,
                // an unknown payment means, a QR field too long): a final rejection, so that the
                // client does not repeat it forever as it would a 5xx. Nothing was consumed.
                tracing::warn!("sandbox: could not issue {}: {e}", doc.number);
                let text = format!("{} {} rejected: it cannot be issued: {e}", doc.kind.label(), doc.number);
                let body = respond::failure_body(
                    Some(doc.number.clone()),
                    text,
                    vec![Message::error("INVALID-DOCUMENT", "KSA", e.to_string())],
                    warnings,
                );
                return json(StatusCode::UNPROCESSABLE_ENTITY, &body);
            }
        };
        let answer = SubmissionResponse {
            status: "Success".into(),
            invoice_number: Some(doc.number.clone()),
            invoice: Some(STANDARD.encode(&issued.xml)),
            id: Some(issued.uuid.to_string()),
            qr_code: Some(issued.qr.clone()),
            message: Some(success_text(doc)),
            warnings: Messages(warnings),
            errors: Messages::default(),
        };
        let (status, bytes) = json(StatusCode::OK, &answer);
        if status != StatusCode::OK {
            return (status, bytes);
        }
        let record = Record {
            icv: position.icv,
            pih: position.pih,
            invoice_hash: issued.invoice_hash,
            kind: doc.kind,
            number: doc.number.clone(),
            uuid: issued.uuid.to_string(),
            body_hash: self.body_hash.clone(),
            idempotency_key: self.key.clone(),
            response: String::from_utf8_lossy(&bytes).into_owned(),
        };
        match ledger.accept(record) {
            Ok(d) => *durable = d,
            Err(e) => {
                tracing::error!("sandbox: could not write the journal: {e}");
                return not_stored(&doc.number, &e);
            }
        }
        (StatusCode::OK, bytes)
    }
}

/// The 500 of a document whose journal line could not be written or synced.
fn not_stored(number: &str, e: &JournalError) -> (StatusCode, Vec<u8>) {
    let body = respond::failure_body(
        Some(number.to_string()),
        "the sandbox could not store the document",
        vec![Message::error("STATE-WRITE-FAILED", "HTTP-Errors", e.to_string())],
        Vec::new(),
    );
    json(StatusCode::INTERNAL_SERVER_ERROR, &body)
}

/// A body as JSON with its status; a 500 if it cannot be written.
fn json(status: StatusCode, body: &SubmissionResponse) -> (StatusCode, Vec<u8>) {
    match serde_json::to_vec(body) {
        Ok(b) => (status, b),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, b"{\"status\":\"Failure\"}".to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::state::{Devices, Registration};
    use super::*;
    use crate::model::{DeviceType, example};

    /// A device of a sandbox without a state folder.
    fn device() -> Arc<Device> {
        let registration = Registration {
            vat_number: example::SELLER_VAT.into(),
            device_id: "unit-tests".into(),
            invoice_type: DeviceType::Both,
            org_name: "Maximum Speed Tech Supply LTD".into(),
            org_unit: "Riyadh Branch".into(),
            business_category: "Supply activities".into(),
            registered_address: "Riyadh".into(),
            country_code: "SA".into(),
            email_id: "tests@example.com".into(),
        };
        let devices = Devices::open(None).unwrap();
        devices
            .onboard(registration, Utc::now())
            .map_err(|e| format!("{e:?}"))
            .unwrap()
    }

    /// Submit `doc` under `key` straight to the part under the device's lock.
    fn submit(device: &Device, doc: &Document, key: Option<&str>) -> StatusCode {
        let job = Job {
            doc: doc.clone(),
            body_hash: body_hash(&serde_json::to_value(doc).unwrap()),
            key: key.map(str::to_string),
            now: Utc::now(),
        };
        job.run(device).0
    }

    #[test]
    fn a_repeat_under_another_idempotency_key_is_counted_apart() {
        let device = device();
        let mut doc = example::simplified_invoice("S-1");
        crate::compute::compute_document(&mut doc).unwrap();
        let counts = |d: &Device| {
            (
                d.ledger.lock().unwrap().icv(),
                d.replays.load(Ordering::Relaxed),
                d.rekeyed_replays.load(Ordering::Relaxed),
            )
        };
        assert_eq!(submit(&device, &doc, Some("key-1")), StatusCode::OK);
        assert_eq!(counts(&device), (1, 0, 0));
        // The same body under the same key: a replay, not a re-key.
        assert_eq!(submit(&device, &doc, Some("key-1")), StatusCode::OK);
        assert_eq!(counts(&device), (1, 1, 0));
        // The same body under a new key: still answered as a replay, but counted as re-keyed.
        assert_eq!(submit(&device, &doc, Some("key-2")), StatusCode::OK);
        assert_eq!(counts(&device), (1, 2, 1));
        // And without its key.
        assert_eq!(submit(&device, &doc, None), StatusCode::OK);
        assert_eq!(counts(&device), (1, 3, 2));
        assert_eq!(submit(&device, &doc, Some("key-1")), StatusCode::OK);
        assert_eq!(counts(&device), (1, 4, 2));
    }

    #[test]
    fn success_texts_name_type_kind_and_number() {
        assert_eq!(
            success_text(&example::simplified_invoice("S-1")),
            "Simplified invoice S-1 reported successfully"
        );
        assert_eq!(
            success_text(&example::standard_invoice("A-1")),
            "Standard invoice A-1 cleared"
        );
        assert_eq!(
            success_text(&example::credit_note("C-1", "A-1")),
            "Standard credit note C-1 cleared"
        );
        let mut d = example::debit_note("D-1", "A-1");
        d.invoice_type = InvoiceType::Simplified;
        assert_eq!(success_text(&d), "Simplified debit note D-1 reported successfully");
    }

    #[test]
    fn categories_follow_the_authority() {
        assert_eq!(category("BR-KSA-98"), "KSA");
        assert_eq!(category("BR-CO-15"), "EN_16931");
        assert_eq!(category("certificate-permissions"), "CERTIFICATE_ERRORS");
        assert_eq!(category("INV-1"), "INVOICEDROP");
    }
}

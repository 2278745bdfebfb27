//! The sandbox's test API (not part of the authority's API): fault settings, per-device counts,
//! the chain of a device, and the clock.
//!
//! ```text
//! GET  /sandbox/faults                          the fault settings (Faults)
//! POST /sandbox/faults                          change some of them (FaultsUpdate); answers the new settings
//! GET  /sandbox/stats                           counts per device (Stats)
//! GET  /sandbox/devices/{onboard_id}/documents  the accepted documents in ICV order (DocumentSummary)
//! POST /sandbox/clock  {"advance_seconds": N}   move the sandbox's clock (token expiry, BR-KSA-98)
//! ```

use super::faults::{Faults, FaultsUpdate};
use super::respond;
use super::server::Shared;
use crate::model::{DeviceType, DocumentKind, Message};
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Counts of one device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceStats {
    /// The device's opaque id.
    pub onboard_id: String,
    /// The caller's id of the device.
    pub device_id: String,
    /// The VAT number it was onboarded under.
    pub vat_number: String,
    /// Which documents it may issue.
    pub invoice_type: DeviceType,
    /// Documents accepted (each once, whatever the repeats), kept across restarts with a state
    /// folder.
    pub accepted: u64,
    /// Repeats answered with a stored answer since the start.
    pub replays: u64,
    /// Of `replays`, those whose idempotency key differed from the key the document was accepted
    /// with (or came without the key it was accepted with): a client re-keying a document it had
    /// sent. A correct client keeps this at 0.
    #[serde(default)]
    pub rekeyed_replays: u64,
    /// Answers 400, 409, 413 and 422 since the start.
    pub rejections: u64,
    /// The last ICV given (0 before the first document).
    pub icv: u64,
}

/// What the sandbox has done: `GET /sandbox/stats` and [`super::SandboxHandle::stats`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Every device, in onboarding order.
    pub devices: Vec<DeviceStats>,
    /// Document requests answered 429 since the start.
    pub rate_limited: u64,
    /// Document requests answered with an injected 500 or 503 since the start.
    pub injected_failures: u64,
    /// Accepted documents whose connection was dropped instead of answered since the start.
    pub dropped: u64,
}

impl Stats {
    /// The counts of one device.
    pub fn device(&self, onboard_id: &str) -> Option<&DeviceStats> {
        self.devices.iter().find(|d| d.onboard_id == onboard_id)
    }
}

/// One accepted document as the chain sees it: `GET /sandbox/devices/{onboard_id}/documents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentSummary {
    /// Its counter value.
    pub icv: u64,
    /// The previous invoice hash it carries.
    pub pih: String,
    /// Its own hash (the next document's PIH).
    pub invoice_hash: String,
    /// Invoice, credit note or debit note.
    pub kind: DocumentKind,
    /// The caller's number.
    pub number: String,
    /// The UUID it was given.
    pub uuid: String,
}

/// The body of `POST /sandbox/clock`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockChange {
    /// Seconds to move the clock forward (negative: back).
    pub advance_seconds: i64,
}

/// The answer of `POST /sandbox/clock`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClockNow {
    /// The sandbox's time after the change.
    pub now: DateTime<Utc>,
}

pub(crate) fn stats(shared: &Shared) -> Stats {
    let devices = shared
        .devices
        .all()
        .iter()
        .map(|d| {
            let icv = d.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner).icv();
            DeviceStats {
                onboard_id: d.info.onboard_id.clone(),
                device_id: d.info.registration.device_id.clone(),
                vat_number: d.info.registration.vat_number.clone(),
                invoice_type: d.info.registration.invoice_type,
                accepted: icv,
                replays: d.replays.load(Ordering::Relaxed),
                rekeyed_replays: d.rekeyed_replays.load(Ordering::Relaxed),
                rejections: d.rejections.load(Ordering::Relaxed),
                icv,
            }
        })
        .collect();
    Stats {
        devices,
        rate_limited: shared.faults.rate_limited.load(Ordering::Relaxed),
        injected_failures: shared.faults.injected_failures.load(Ordering::Relaxed),
        dropped: shared.faults.dropped.load(Ordering::Relaxed),
    }
}

pub(crate) fn documents(shared: &Shared, onboard_id: &str) -> Option<Vec<DocumentSummary>> {
    let device = shared.devices.get(onboard_id)?;
    let ledger = device.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    Some(
        ledger
            .entries()
            .map(|(e, pih)| DocumentSummary {
                icv: e.icv,
                pih: pih.to_string(),
                invoice_hash: e.invoice_hash.to_string(),
                kind: e.kind,
                number: e.number.to_string(),
                uuid: e.uuid.to_string(),
            })
            .collect(),
    )
}

fn bad_request(message: String) -> Response {
    respond::failure(
        StatusCode::BAD_REQUEST,
        "invalid request",
        vec![Message::error("INVALID-FIELD", "request", message)],
    )
}

pub(crate) async fn get_faults(State(shared): State<Arc<Shared>>) -> Response {
    respond::json(StatusCode::OK, &shared.faults.get())
}

pub(crate) async fn set_faults(
    State(shared): State<Arc<Shared>>,
    update: Result<Json<FaultsUpdate>, JsonRejection>,
) -> Response {
    let update = match update {
        Ok(Json(u)) => u,
        Err(e) => return bad_request(e.body_text()),
    };
    let new: Faults = shared.faults.get().updated(&update);
    match shared.faults.set(new) {
        Ok(f) => {
            tracing::info!("sandbox: faults now {f:?}");
            respond::json(StatusCode::OK, &f)
        }
        Err(e) => bad_request(e),
    }
}

pub(crate) async fn get_stats(State(shared): State<Arc<Shared>>) -> Response {
    respond::json(StatusCode::OK, &stats(&shared))
}

pub(crate) async fn get_documents(State(shared): State<Arc<Shared>>, Path(onboard_id): Path<String>) -> Response {
    match documents(&shared, &onboard_id) {
        Some(docs) => respond::json(StatusCode::OK, &docs),
        None => respond::failure(StatusCode::NOT_FOUND, "unknown onboard_id", Vec::new()),
    }
}

pub(crate) async fn move_clock(
    State(shared): State<Arc<Shared>>,
    change: Result<Json<ClockChange>, JsonRejection>,
) -> Response {
    match change {
        Ok(Json(c)) => {
            shared.clock.advance(c.advance_seconds);
            respond::json(
                StatusCode::OK,
                &ClockNow {
                    now: shared.clock.now(),
                },
            )
        }
        Err(e) => bad_request(e.body_text()),
    }
}

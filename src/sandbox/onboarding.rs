//! `POST /v1/e-invoicing/onboardings` (api.md 4.2, D2, D7, D8): 401 without a live token, 400 for
//! a missing or mistyped field, a wrong OTP or another VAT number than the account's, 409 for a
//! device id already onboarded under the VAT number, else the opaque `onboard_id`.

use super::fields::{self, Problem};
use super::respond;
use super::server::Shared;
use super::state::{OnboardError, Registration};
use super::{auth, body};
use crate::model::{DeviceType, Message, OnboardingResponse};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;

const FIELDS: [&str; 10] = [
    "otp",
    "vat_number",
    "device_id",
    "invoice_type",
    "org_name",
    "org_unit",
    "business_category",
    "registered_address",
    "country_code",
    "email_id",
];

/// `POST /v1/e-invoicing/onboardings`.
pub(crate) async fn onboard(State(shared): State<Arc<Shared>>, headers: HeaderMap, request_body: Body) -> Response {
    if !auth::authorised(&shared, &headers) {
        return auth::unauthorised();
    }
    let value = match body::read_json(request_body).await {
        Ok(v) => v,
        Err(e) => return e.failure(),
    };
    let mut problems = fields::check_strings(&value, &FIELDS);
    let text = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let invoice_type = match text("invoice_type").as_str() {
        "standard" => Some(DeviceType::Standard),
        "simplified" => Some(DeviceType::Simplified),
        "both" => Some(DeviceType::Both),
        _ => None,
    };
    if invoice_type.is_none() && value.get("invoice_type").is_some_and(Value::is_string) {
        problems.push(Problem {
            path: "invoice_type".into(),
            invalid: Some(format!(
                "expected one of standard, simplified, both, found {:?}",
                text("invoice_type")
            )),
        });
    }
    if let Some(id) = value.get("device_id").and_then(Value::as_str)
        && id.trim().is_empty()
    {
        problems.push(Problem {
            path: "device_id".into(),
            invalid: Some("expected a non-empty string".into()),
        });
    }
    let Some(invoice_type) = invoice_type.filter(|_| problems.is_empty()) else {
        return respond::failure(
            StatusCode::BAD_REQUEST,
            "missing or invalid fields",
            Problem::messages(&problems),
        );
    };
    if !auth::same(&text("otp"), shared.account.otp.expose()) {
        return respond::failure(
            StatusCode::BAD_REQUEST,
            "invalid or expired OTP",
            vec![Message::error(
                "INVALID-OTP",
                "onboarding",
                "the OTP is wrong or was already used",
            )],
        );
    }
    if text("vat_number") != shared.account.vat_number {
        return respond::failure(
            StatusCode::BAD_REQUEST,
            "the VAT number is not the account's",
            vec![Message::error(
                "INVALID-FIELD",
                "request",
                format!(
                    "vat_number: this account onboards devices for {} only",
                    shared.account.vat_number
                ),
            )],
        );
    }
    let new = Registration {
        vat_number: text("vat_number"),
        device_id: text("device_id"),
        invoice_type,
        org_name: text("org_name"),
        org_unit: text("org_unit"),
        business_category: text("business_category"),
        registered_address: text("registered_address"),
        country_code: text("country_code"),
        email_id: text("email_id"),
    };
    let now = shared.clock.now();
    let devices = shared.clone();
    let outcome = tokio::task::spawn_blocking(move || devices.devices.onboard(new, now)).await;
    match outcome {
        Ok(Ok(device)) => respond::json(
            StatusCode::OK,
            &OnboardingResponse {
                onboard_id: device.info.onboard_id.clone(),
                status: "success".into(),
            },
        ),
        Ok(Err(OnboardError::AlreadyOnboarded)) => respond::failure(
            StatusCode::CONFLICT,
            "device already onboarded",
            vec![Message::error(
                "DEVICE-ALREADY-ONBOARDED",
                "onboarding",
                format!(
                    "device_id {:?} is already onboarded under this VAT number",
                    text("device_id")
                ),
            )],
        ),
        Ok(Err(OnboardError::Internal(e))) => {
            tracing::error!("sandbox: onboarding failed: {e}");
            respond::failure(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the device could not be onboarded",
                vec![Message::error("INTERNAL", "HTTP-Errors", e)],
            )
        }
        Err(e) => {
            tracing::error!("sandbox: the onboarding task failed: {e}");
            respond::failure(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the device could not be onboarded",
                Vec::new(),
            )
        }
    }
}

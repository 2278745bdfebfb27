//! JSON answers: the D15 failure body of auth and onboarding, and the api.md 2.6 shape of every
//! answer of the document endpoints (D14).

use crate::model::{FailureBody, Message, Messages, SubmissionResponse};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// An answer with JSON bytes as they are.
pub(crate) fn bytes(status: StatusCode, body: Vec<u8>) -> Response {
    let mut r = (status, body).into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// An answer with a value serialised as JSON.
pub(crate) fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(b) => bytes(status, b),
        Err(e) => {
            tracing::error!("sandbox: could not serialise an answer: {e}");
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response()
        }
    }
}

/// `{"status": "Failure", "message": ..., "errors": [...]}` (D15).
pub(crate) fn failure(status: StatusCode, message: impl Into<String>, errors: Vec<Message>) -> Response {
    json(status, &FailureBody::new(message, errors))
}

/// A `Failure` in the shape of api.md 2.6, with `errors` and `warnings` as message objects (D14).
pub(crate) fn submission_failure(
    status: StatusCode,
    number: Option<String>,
    message: impl Into<String>,
    errors: Vec<Message>,
    warnings: Vec<Message>,
) -> Response {
    json(status, &failure_body(number, message, errors, warnings))
}

/// The body of [`submission_failure`].
pub(crate) fn failure_body(
    number: Option<String>,
    message: impl Into<String>,
    errors: Vec<Message>,
    warnings: Vec<Message>,
) -> SubmissionResponse {
    SubmissionResponse {
        status: "Failure".into(),
        invoice_number: number,
        invoice: None,
        id: None,
        qr_code: None,
        message: Some(message.into()),
        warnings: Messages(warnings),
        errors: Messages(errors),
    }
}

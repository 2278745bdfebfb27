//! Request bodies: at most 1 MiB (413 beyond), JSON (400 otherwise).
//!
//! A body over the limit is still read and thrown away up to 16 MiB before the 413 is sent, so that
//! a client still writing its body receives the answer instead of a reset connection.

use super::respond;
use crate::model::Message;
use axum::body::{Body, HttpBody};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use std::pin::Pin;

/// The largest body accepted.
pub(crate) const MAX_BODY: usize = crate::validate::MAX_REQUEST_BYTES;
/// Beyond this, the connection is closed without reading the rest.
const DRAIN_LIMIT: u64 = 16 << 20;

/// Why a body could not be used.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// Over [`MAX_BODY`].
    TooLarge,
    /// The connection failed while reading.
    Unreadable(String),
    /// Not JSON.
    NotJson(String),
}

impl BodyError {
    fn parts(&self) -> (StatusCode, String, Message) {
        match self {
            BodyError::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body is larger than {MAX_BODY} bytes"),
                Message::error("BODY-TOO-LARGE", "request", format!("send at most {MAX_BODY} bytes")),
            ),
            BodyError::Unreadable(e) => (
                StatusCode::BAD_REQUEST,
                "the body could not be read".into(),
                Message::error("BODY-UNREADABLE", "request", e.clone()),
            ),
            BodyError::NotJson(e) => (
                StatusCode::BAD_REQUEST,
                "the body is not JSON".into(),
                Message::error("INVALID-JSON", "request", e.clone()),
            ),
        }
    }

    /// The answer for auth and onboarding (D15).
    pub(crate) fn failure(&self) -> Response {
        let (status, message, detail) = self.parts();
        respond::failure(status, message, vec![detail])
    }

    /// The answer for the document endpoints (D14).
    pub(crate) fn submission(&self) -> Response {
        let (status, message, detail) = self.parts();
        respond::submission_failure(status, None, message, vec![detail], Vec::new())
    }
}

/// Read the whole body, at most [`MAX_BODY`] bytes.
pub(crate) async fn read(mut body: Body) -> Result<Vec<u8>, BodyError> {
    if body.size_hint().lower() > DRAIN_LIMIT {
        return Err(BodyError::TooLarge);
    }
    let mut buf = Vec::new();
    let mut seen: u64 = 0;
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(|e| BodyError::Unreadable(e.to_string()))?;
        let Ok(data) = frame.into_data() else { continue };
        seen = seen.saturating_add(data.len() as u64);
        if seen > DRAIN_LIMIT {
            return Err(BodyError::TooLarge);
        }
        if seen <= MAX_BODY as u64 {
            buf.extend_from_slice(&data);
        }
    }
    if seen > MAX_BODY as u64 {
        return Err(BodyError::TooLarge);
    }
    Ok(buf)
}

/// Read the body and parse it as JSON.
pub(crate) async fn read_json(body: Body) -> Result<Value, BodyError> {
    let bytes = read(body).await?;
    serde_json::from_slice(&bytes).map_err(|e| BodyError::NotJson(e.to_string()))
}

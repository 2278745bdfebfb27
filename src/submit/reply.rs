//! What a document answer means (D16): accepted, rejected (with the errors that say why),
//! a new login, an unknown device, a wait, or an unknown outcome. Never panics on whatever the
//! server sent.

use super::{BODY_TOO_LARGE_CODE, DUPLICATE_CODE};
use crate::model::{FailureBody, Message, Messages, SubmissionResponse};
use reqwest::StatusCode;
use serde_json::Value;
use std::time::Duration;

/// The answer to a document request, classified (D16).
#[derive(Debug)]
pub(crate) enum Reply {
    /// 2xx: issued.
    Accepted {
        status: u16,
        response: SubmissionResponse,
        raw: Vec<u8>,
    },
    /// 400, 409, 422 or another final 4xx; `response.errors` is never empty.
    Rejected {
        status: u16,
        response: SubmissionResponse,
        raw: Vec<u8>,
    },
    /// 401: re-authenticate once and repeat (D4).
    Unauthorized,
    /// 404: the device is unknown; stop the run.
    UnknownDevice,
    /// 429: wait, then repeat the identical request.
    RateLimited { retry_after: Option<Duration> },
    /// 5xx, timeout, reset, unreadable answer: the outcome is unknown. `not_sent` when the
    /// connection could not even be opened, so the request surely never left.
    Unknown {
        reason: String,
        status: Option<u16>,
        raw: Option<Vec<u8>>,
        not_sent: bool,
    },
}

/// Classify a document answer (D16). Never panics on whatever the server sent.
pub(crate) fn classify(status: u16, retry_after: Option<Duration>, raw: Vec<u8>) -> Reply {
    match status {
        200..=299 => match SubmissionResponse::parse(&raw) {
            Some(response) if response.status.eq_ignore_ascii_case("failure") => {
                let response = with_errors(status, response, &raw);
                Reply::Rejected { status, response, raw }
            }
            Some(response) => Reply::Accepted { status, response, raw },
            None => Reply::Unknown {
                reason: format!("HTTP {status} with an answer that is not JSON"),
                status: Some(status),
                raw: Some(raw),
                not_sent: false,
            },
        },
        401 => Reply::Unauthorized,
        404 => Reply::UnknownDevice,
        429 => Reply::RateLimited { retry_after },
        408 | 500..=599 => Reply::Unknown {
            reason: format!(
                "HTTP {status} {}",
                StatusCode::from_u16(status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("")
            )
            .trim_end()
            .to_string(),
            status: Some(status),
            raw: Some(raw),
            not_sent: false,
        },
        _ => {
            let response = SubmissionResponse::parse(&raw).unwrap_or_else(|| {
                let failure = FailureBody::parse(&raw);
                let mut r = SubmissionResponse::from_value(&Value::Null);
                r.status = "Failure".into();
                r.message = Some(failure.message).filter(|m| !m.is_empty());
                r.errors = failure.errors;
                r
            });
            let response = with_errors(status, response, &raw);
            Reply::Rejected { status, response, raw }
        }
    }
}

/// What a `DUPLICATE-DOCUMENT` rejection means for the document, and what to do: the number is
/// issued (with the content first accepted), though this state folder's ledger does not hold it.
const DUPLICATE_ADVICE: &str = ". The number is issued, with the content the API accepted first, but this state \
    folder's ledger does not hold it (it was issued through another state folder or tool): run with the state folder \
    that issued it to have its UUID, signed XML and QR in the results; to change it, issue a credit or debit note \
    against it; a new document needs a new number";

/// The words of [`DUPLICATE_ADVICE`] that show it is said already.
const DUPLICATE_ADVICE_MARK: &str = "this state folder's ledger does not hold it";

/// Make sure a rejection says what is wrong: a 409 carries `DUPLICATE-DOCUMENT`, and an answer
/// without any error gets one from its message or status.
fn with_errors(status: u16, mut response: SubmissionResponse, raw: &[u8]) -> SubmissionResponse {
    if status == 409
        && !response
            .errors
            .0
            .iter()
            .any(|m| m.code.as_deref() == Some(DUPLICATE_CODE))
    {
        response.errors.0.insert(
            0,
            Message::error(
                DUPLICATE_CODE,
                "API",
                "the API already accepted this document number with different content",
            ),
        );
    }
    // A body over the API's limit: what that means for the document and what to do, not only
    // the limit in bytes (`send at most 1048576 bytes`).
    if status == 413
        && !response
            .errors
            .0
            .iter()
            .any(|m| m.code.as_deref() == Some(BODY_TOO_LARGE_CODE))
    {
        let said = response.message.clone().unwrap_or_default();
        response
            .errors
            .0
            .insert(0, Message::error(BODY_TOO_LARGE_CODE, "request", said));
    }
    for m in &mut response.errors.0 {
        if m.code.as_deref() == Some(BODY_TOO_LARGE_CODE) {
            m.message = too_large(status, &m.message);
        }
        if m.code.as_deref() == Some(DUPLICATE_CODE) && !m.message.contains(DUPLICATE_ADVICE_MARK) {
            m.message = format!("{}{DUPLICATE_ADVICE}", m.message.trim_end_matches(['.', ' ']));
        }
    }
    if response.errors.is_empty() {
        let text = response
            .message
            .clone()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| failure_text(status, raw));
        response.errors = Messages(vec![Message::error(
            &format!("HTTP-{status}"),
            "API",
            format!("the API refused the document (HTTP {status}): {text}"),
        )]);
    }
    if response.status.is_empty() {
        response.status = "Failure".into();
    }
    response
}

/// What a `BODY-TOO-LARGE` answer means (`said`: the API's own words).
fn too_large(status: u16, said: &str) -> String {
    let said = said.trim();
    let said = if said.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {said}")
    };
    format!(
        "the API refused the request that sends this document as too large ({said}): the document has too many \
         lines (or too long texts) for one request, so it is not issued. Split it into several documents in the \
         ERP and export again; `check` says how many lines fit (INV-DOCUMENT-TOO-LARGE)"
    )
}

/// A short text for an error answer: its message and errors, or the start of a non-JSON body.
pub(crate) fn failure_text(status: u16, raw: &[u8]) -> String {
    let f = FailureBody::parse(raw);
    let mut parts: Vec<String> = Vec::new();
    if !f.message.trim().is_empty() {
        parts.push(f.message.trim().to_string());
    }
    parts.extend(f.errors.0.iter().map(|m| match &m.code {
        Some(c) => format!("{c}: {}", m.message),
        None => m.message.clone(),
    }));
    if parts.is_empty() {
        format!("HTTP {status} with an empty answer")
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejection(raw: &[u8]) -> SubmissionResponse {
        match classify(409, None, raw.to_vec()) {
            Reply::Rejected { response, .. } => response,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_duplicate_says_the_number_is_issued_and_what_to_do_once() {
        let api = br#"{"status":"Failure","errors":[{"type":"ERROR","code":"DUPLICATE-DOCUMENT","message":"invoice INV-23 was already accepted with different content."}]}"#;
        let r = rejection(api);
        let m = &r.errors.0[0].message;
        assert!(
            m.starts_with("invoice INV-23 was already accepted with different content. The number is issued")
                && m.contains("run with the state folder that issued it")
                && m.contains("issue a credit or debit note against it"),
            "{m}"
        );
        assert_eq!(m.matches(DUPLICATE_ADVICE_MARK).count(), 1);
        // A 409 without the code gets it, said the same way.
        let r = rejection(br#"{"status":"Failure"}"#);
        assert_eq!(r.errors.0[0].code.as_deref(), Some(DUPLICATE_CODE));
        assert!(r.errors.0[0].message.contains(DUPLICATE_ADVICE_MARK), "{:?}", r.errors);
    }
}

//! What the ledger says about an earlier sending of a number: its stored answer and issued
//! document, and the messages for a number issued with other content or sent elsewhere.

use super::ledger::LedgerEntry;
use crate::model::{Document, DocumentKind, SubmissionResponse};
use serde_json::Value;

/// A stored answer, parsed; an empty response when it is missing or not JSON.
pub(crate) fn parse_response(raw: &[u8]) -> SubmissionResponse {
    SubmissionResponse::parse(raw).unwrap_or_else(|| SubmissionResponse::from_value(&Value::Null))
}

/// The document a ledger body holds (the exact bytes the API accepted).
pub(super) fn issued_document(body: &[u8]) -> Option<Box<Document>> {
    serde_json::from_slice(body).ok().map(Box::new)
}

/// What a conflict means and what to do; without the code ([`CONFLICT_CODE`](super::CONFLICT_CODE)), which the
/// result files put in front once.
/// `device`: the earlier device it was issued through, when not this one.
pub(super) fn conflict_message(
    kind: DocumentKind,
    number: &str,
    uuid: Option<&str>,
    when: &str,
    device: Option<&str>,
) -> String {
    issued_message(
        (kind, number, uuid, when, device),
        "the export now gives it different content, which was not sent. Its UUID, signed XML and QR",
    )
}

/// A number issued whose export now has values that cannot be read (a formula without its
/// value, `abc` for a price, a kind or date no mapping reads), so what it gives cannot be told to
/// be what was issued, nor how it differs.
pub(super) fn unread_message(
    kind: DocumentKind,
    number: &str,
    uuid: Option<&str>,
    when: &str,
    device: Option<&str>,
) -> String {
    issued_message(
        (kind, number, uuid, when, device),
        "the export now has values of it that cannot be read, so it cannot be told to be what was issued. Its \
         UUID, signed XML, QR and figures",
    )
}

/// `{kind} {number} is issued: ... and {export_now} in the results are the issued ones`, and what
/// to do.
fn issued_message(
    (kind, number, uuid, when, device): (DocumentKind, &str, Option<&str>, &str, Option<&str>),
    export_now: &str,
) -> String {
    let uuid = uuid.map(|u| format!(", UUID {u}")).unwrap_or_default();
    let device = device
        .map(|d| format!(" through the earlier device {d}"))
        .unwrap_or_default();
    format!(
        "{kind} {number} is issued: the API accepted it earlier{device} ({when}{uuid}), and {export_now} in the \
         results are the issued ones. To change an issued document, issue a credit note or debit note against it; \
         if this is a different document, give it a new number"
    )
}

/// A number sent through another device of the state folder with no final answer recorded.
pub(super) fn elsewhere_message(kind: DocumentKind, number: &str, sent: &LedgerEntry) -> String {
    let when = sent.last_sent_at.as_deref().unwrap_or(&sent.updated_at);
    format!(
        "not sent: {kind} {number} was sent through the earlier device {id} ({when}) and no final answer was \
         recorded, so it may be issued; sending it through this device could issue it twice. Settle it with \
         that device first (INVOICEDROP_ONBOARD_ID={id} invoicedrop run with the same --state), then run again",
        id = sent.key.onboard_id
    )
}

#[cfg(test)]
#[path = "earlier_tests.rs"]
mod tests;

//! Documents that are not sent (they fail the checks made before sending) looked up in the
//! ledger: a number already issued stays issued whatever its export says now.

use super::earlier::{conflict_message, elsewhere_message, issued_document, parse_response, unread_message};
use super::later::Later;
use super::ledger::{BeginItem, LedgerEntry, LedgerState, content_hash, idempotency_key};
use super::{Outcome, Outgoing, SubmitError, Submitter};
use crate::model::DocumentKind;

impl Submitter {
    /// What the ledger says of documents that are not to be sent: the outcome of each whose
    /// number is issued or maybe issued, by its tag; nothing for the others (never issued).
    /// Nothing is sent and nothing is registered.
    ///
    /// - accepted earlier with this very content: [`Outcome::Accepted`], from the ledger;
    /// - accepted earlier with other content: [`Outcome::Conflict`], with the issued answer;
    /// - sent earlier without a final answer (maybe issued): [`Outcome::Failed`], saying how it
    ///   is settled (this device's next run repeats the earlier request; another device's must
    ///   settle it first).
    ///
    /// Each document comes with whether a value of its export could not be read (`unread`):
    /// then even the very content issued is a conflict, saying so (what was built is not all
    /// the export says).
    ///
    /// `Err` only when the ledger cannot be read.
    pub async fn issued_before(&self, docs: Vec<(Outgoing, bool)>) -> Result<Vec<Outcome>, SubmitError> {
        let mut items = Vec::with_capacity(docs.len());
        let mut tags = Vec::with_capacity(docs.len());
        let mut exported = Vec::with_capacity(docs.len());
        let mut unread = Vec::with_capacity(docs.len());
        for (o, o_unread) in docs {
            // A document that cannot be encoded has no content to compare: it stays as it is.
            let Ok(body) = serde_json::to_vec(&o.document) else {
                continue;
            };
            let key = self.key_of(&o.document);
            exported.push(super::exported::as_exported_hash(&o.document));
            items.push(BeginItem {
                idempotency_key: idempotency_key(&key),
                content_hash: content_hash(&body),
                key,
                body,
                seller_vat: o.document.supplier_info.vat_number.clone(),
            });
            tags.push(o.tag);
            unread.push(o_unread);
        }
        if items.is_empty() {
            return Ok(Vec::new());
        }
        // The bodies move here: a look-up reads the ledger by key, never the body.
        let wanted: Vec<(u64, DocumentKind, String, String, Vec<u8>)> = items
            .iter_mut()
            .zip(&tags)
            .map(|(i, &tag)| {
                (
                    tag,
                    i.key.kind,
                    i.key.number.clone(),
                    i.content_hash.clone(),
                    std::mem::take(&mut i.body),
                )
            })
            .collect();
        let found = self.ledger().peek(items).await?;
        Ok(wanted
            .into_iter()
            .zip(exported)
            .zip(unread)
            .zip(found)
            .filter_map(|((((tag, kind, number, hash, body), exported), unread), e)| {
                e.map(|e| {
                    let resumed = self.resumed_here(kind, &number);
                    // Issued as the note's own rows give its reference: the same note (see
                    // `as_exported_hash`).
                    // Or with an amount written with other decimal places (`same_content`).
                    let same = exported.is_some_and(|h| h == e.content_hash)
                        || hash == e.content_hash
                        || crate::model::same_content(&e.body, &body);
                    let asked = Asked {
                        tag,
                        kind,
                        number: &number,
                        same,
                        unread,
                    };
                    standing(asked, e, self.onboard_id(), resumed, self.later())
                })
            })
            .collect())
    }
}

/// A document not sent, as it is looked up: its tag, kind and number, whether what the export
/// gives now is the content the ledger holds (or that but for an amount's decimal places), and
/// whether a value of it could not be read.
struct Asked<'a> {
    tag: u64,
    kind: DocumentKind,
    number: &'a str,
    same: bool,
    unread: bool,
}

/// The outcome of a document not sent whose number the ledger holds (`e`); `own` is this
/// device's onboard_id; `resumed` when this run's resume sent it (not accepted in an earlier
/// run, then); `later` who settles it when it has no final answer.
fn standing(asked: Asked<'_>, e: LedgerEntry, own: &str, resumed: bool, later: Later) -> Outcome {
    let Asked {
        tag,
        kind,
        number,
        same,
        unread,
    } = asked;
    let other_device = (e.key.onboard_id != own).then_some(e.key.onboard_id.as_str());
    match e.state {
        LedgerState::Accepted if same && !unread => {
            let raw = e.response.clone().unwrap_or_default();
            Outcome::Accepted {
                tag,
                response: parse_response(&raw),
                raw,
                attempts: e.attempts,
                from_ledger: !resumed,
                accepted_at: Some(e.updated_at),
            }
        }
        LedgerState::Accepted => {
            let raw = e.response.clone().unwrap_or_default();
            let uuid = e.uuid.as_deref();
            // The very content issued, but a value of the export unread: a conflict, saying so.
            let message = if same {
                unread_message(kind, number, uuid, &e.updated_at, other_device)
            } else {
                conflict_message(kind, number, uuid, &e.updated_at, other_device)
            };
            Outcome::Conflict {
                tag,
                message,
                response: parse_response(&raw),
                raw,
                issued: issued_document(&e.body),
                attempts: e.attempts,
                accepted_at: Some(e.updated_at.clone()),
                from_ledger: true,
            }
        }
        _ if other_device.is_some() => Outcome::Failed {
            tag,
            reason: elsewhere_message(kind, number, &e),
            attempts: 0,
            sent: true,
            halted: false,
        },
        _ => Outcome::Failed {
            tag,
            reason: unsettled_message(kind, number, &e, later),
            attempts: e.attempts,
            sent: true,
            halted: false,
        },
    }
}

/// A number this device sent without a final answer, and that the start of this run could not
/// settle either.
pub(super) fn unsettled_message(kind: DocumentKind, number: &str, sent: &LedgerEntry, later: Later) -> String {
    let when = sent.last_sent_at.as_deref().unwrap_or(&sent.updated_at);
    format!(
        "not sent: {kind} {number} was sent earlier ({when}) and no final answer was recorded, so it may be \
         issued; {}",
        later.repeats_that_request()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(onboard_id: &str, state: LedgerState, hash: &str) -> LedgerEntry {
        LedgerEntry {
            idempotency_key: String::new(),
            key: crate::submit::DocumentKey {
                onboard_id: onboard_id.into(),
                kind: DocumentKind::Invoice,
                number: "INV-9".into(),
            },
            content_hash: hash.into(),
            body: Vec::new(),
            state,
            attempts: 2,
            last_status: Some(200),
            response: None,
            uuid: Some("u-9".into()),
            created_at: "2026-11-01T09:00:00Z".into(),
            updated_at: "2026-11-01T10:00:01Z".into(),
            last_sent_at: Some("2026-11-01T10:00:00Z".into()),
        }
    }

    fn of(e: LedgerEntry) -> Outcome {
        let asked = Asked {
            tag: 7,
            kind: DocumentKind::Invoice,
            number: "INV-9",
            same: e.content_hash == "now",
            unread: false,
        };
        standing(asked, e, "mine", false, Later::Run)
    }

    #[test]
    fn an_issued_number_is_reported_issued_and_a_maybe_issued_one_failed() {
        assert!(matches!(
            of(entry("mine", LedgerState::Accepted, "now")),
            Outcome::Accepted {
                tag: 7,
                from_ledger: true,
                attempts: 2,
                ..
            }
        ));
        match of(entry("mine", LedgerState::Accepted, "then")) {
            Outcome::Conflict { message, .. } => {
                assert!(
                    message.contains("INV-9 is issued") && message.contains("u-9"),
                    "{message}"
                );
                assert!(!message.contains("device"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        match of(entry("theirs", LedgerState::Accepted, "then")) {
            Outcome::Conflict { message, .. } => assert!(message.contains("earlier device theirs"), "{message}"),
            other => panic!("{other:?}"),
        }
        match of(entry("mine", LedgerState::Unknown, "then")) {
            Outcome::Failed { reason, attempts, .. } => {
                assert_eq!(attempts, 2);
                assert!(
                    reason.contains("sent earlier (2026-11-01T10:00:00Z)")
                        && reason.contains("the next run repeats that request"),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
        match of(entry("theirs", LedgerState::InFlight, "now")) {
            Outcome::Failed { reason, .. } => assert!(reason.contains("INVOICEDROP_ONBOARD_ID=theirs"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
}

//! Documents the export says not to issue (a skip rule: `Voided`, `Draft`...) looked up in the
//! ledger: a number already issued cannot be withdrawn by marking it in the ERP; it stays issued
//! until a credit note cancels it.

use super::earlier::{elsewhere_message, issued_document, parse_response, unread_message};
use super::issued::unsettled_message;
use super::later::Later;
use super::ledger::{BeginItem, LedgerEntry, LedgerState, content_hash, idempotency_key};
use super::{DocumentKey, Outcome, SubmitError, Submitter};
use crate::model::DocumentKind;

/// A document a skip rule keeps from being issued, whose number is looked up.
#[derive(Debug, Clone)]
pub struct Withdrawn {
    /// Given back with its standing.
    pub tag: u64,
    /// Its number.
    pub number: String,
    /// Its kind, when its rows make a document; otherwise the number is looked up under every
    /// kind.
    pub kind: Option<DocumentKind>,
    /// The seller's VAT number (another device of the same seller holds its numbers too).
    pub seller_vat: Option<String>,
    /// What the export now says of it, for the message: `Status "Voided" (Xero status Voided:
    /// not issued)`.
    pub marked: String,
    /// Not marked: a document that fails the checks whose rows make no document, or one whose
    /// kind is not known (a date or kind that cannot be read): issued, it is a conflict saying
    /// that the export's values cannot be read (`marked` is not said).
    pub unread: bool,
}

/// What the ledger holds under the number of a [`Withdrawn`] document it has.
#[derive(Debug)]
pub enum Standing {
    /// Issued ([`Outcome::Conflict`], with the issued answer and document) or maybe issued
    /// ([`Outcome::Failed`], saying how it is settled).
    Known(Box<Outcome>),
    /// Its kind is not known (its rows make no document) and the number is issued, or maybe
    /// issued, under more than one kind: nothing is claimed.
    Ambiguous {
        /// The tag of the document.
        tag: u64,
        /// Each kind the number is held under, with its state.
        held: Vec<(DocumentKind, LedgerState)>,
    },
}

impl Standing {
    /// The tag of the document it is the standing of.
    pub fn tag(&self) -> u64 {
        match self {
            Standing::Known(o) => o.tag(),
            Standing::Ambiguous { tag, .. } => *tag,
        }
    }
}

impl Submitter {
    /// What the ledger says of documents the export says not to issue: the standing of each
    /// whose number is issued or maybe issued (through this device or another of the same
    /// seller), by its tag; nothing for the others (never issued). Nothing is sent and nothing
    /// is registered. Issued, even with the very content sent: a conflict (the export no
    /// longer says to issue it).
    ///
    /// `Err` only when the ledger cannot be read.
    pub async fn withdrawn_before(&self, docs: Vec<Withdrawn>) -> Result<Vec<Standing>, SubmitError> {
        let asked = docs
            .iter()
            .map(|w| (w.number.as_str(), w.kind, w.seller_vat.as_deref()));
        let held = self.held_under(asked, docs.len()).await?;
        Ok(docs
            .into_iter()
            .zip(held)
            .filter_map(|(w, mut held)| match held.len() {
                0 => None,
                1 => held
                    .pop()
                    .map(|e| Standing::Known(Box::new(standing(&w, e, self.onboard_id(), self.later())))),
                _ => Some(Standing::Ambiguous {
                    tag: w.tag,
                    held: held.iter().map(|e| (e.key.kind, e.state)).collect(),
                }),
            })
            .collect())
    }

    /// Which of these numbers the ledger holds issued or maybe issued, each under its kind when
    /// given, else under any kind (through this device or another of the same seller,
    /// `seller_vat`), in their order. Nothing is sent and nothing is registered. `Err` only when
    /// the ledger cannot be read.
    pub async fn holds(
        &self,
        numbers: &[(String, Option<DocumentKind>)],
        seller_vat: Option<&str>,
    ) -> Result<Vec<bool>, SubmitError> {
        let asked = numbers.iter().map(|(n, kind)| (n.as_str(), *kind, seller_vat));
        let held = self.held_under(asked, numbers.len()).await?;
        Ok(held.iter().map(|h| !h.is_empty()).collect())
    }

    /// What the ledger holds (issued or maybe issued) under each of `n` numbers, each asked as
    /// (number, kind, seller VAT number): under that kind, or every kind when it is not known.
    async fn held_under<'a>(
        &self,
        asked: impl Iterator<Item = (&'a str, Option<DocumentKind>, Option<&'a str>)>,
        n: usize,
    ) -> Result<Vec<Vec<LedgerEntry>>, SubmitError> {
        let mut items = Vec::new();
        // For each item, the number it is asked for (by index).
        let mut of = Vec::new();
        for (i, (number, kind, seller_vat)) in asked.enumerate() {
            if number.trim().is_empty() {
                continue;
            }
            let kinds = kind.map_or(DocumentKind::ALL.to_vec(), |k| vec![k]);
            for kind in kinds {
                let key = DocumentKey {
                    onboard_id: self.onboard_id().to_string(),
                    kind,
                    number: number.to_string(),
                };
                items.push(BeginItem {
                    idempotency_key: idempotency_key(&key),
                    content_hash: content_hash(b""),
                    key,
                    body: Vec::new(),
                    seller_vat: seller_vat.map(str::to_string),
                });
                of.push(i);
            }
        }
        let mut held: Vec<Vec<LedgerEntry>> = vec![Vec::new(); n];
        if items.is_empty() {
            return Ok(held);
        }
        let found = self.ledger().peek(items).await?;
        for (i, e) in of.into_iter().zip(found) {
            if let Some(e) = e
                && let Some(h) = held.get_mut(i)
            {
                h.push(e);
            }
        }
        Ok(held)
    }
}

/// The standing of a withdrawn document whose number the ledger holds (`e`); `own` is this
/// device's onboard_id; `later` who settles it when it has no final answer.
fn standing(w: &Withdrawn, e: LedgerEntry, own: &str, later: Later) -> Outcome {
    let kind = e.key.kind;
    let number = &w.number;
    let device = (e.key.onboard_id != own).then(|| format!(" through the earlier device {}", e.key.onboard_id));
    let device = device.unwrap_or_default();
    let marked = &w.marked;
    match e.state {
        LedgerState::Accepted if w.unread => {
            let raw = e.response.clone().unwrap_or_default();
            let other = (e.key.onboard_id != own).then_some(e.key.onboard_id.as_str());
            Outcome::Conflict {
                tag: w.tag,
                message: unread_message(kind, number, e.uuid.as_deref(), &e.updated_at, other),
                response: parse_response(&raw),
                raw,
                issued: issued_document(&e.body),
                attempts: e.attempts,
                accepted_at: Some(e.updated_at.clone()),
                from_ledger: true,
            }
        }
        LedgerState::Accepted => {
            let raw = e.response.clone().unwrap_or_default();
            let uuid = e.uuid.as_deref().map(|u| format!(", UUID {u}")).unwrap_or_default();
            let when = &e.updated_at;
            Outcome::Conflict {
                tag: w.tag,
                message: format!(
                    "the export now marks {kind} {number} as not to be issued ({marked}), but it is issued: the API \
                     accepted it earlier{device} ({when}{uuid}). Nothing was sent; its UUID, signed XML and QR in \
                     the results are the issued ones, and it counts as issued. An issued {kind} cannot be voided \
                     or made a draft again: to cancel it, issue a credit note against it"
                ),
                response: parse_response(&raw),
                raw,
                issued: issued_document(&e.body),
                attempts: e.attempts,
                accepted_at: Some(e.updated_at.clone()),
                from_ledger: true,
            }
        }
        // Maybe issued: settled as any document sent without a final answer (through this device
        // or the earlier one), whatever the export says of it now.
        _ => {
            let (settle, attempts) = if device.is_empty() {
                (unsettled_message(kind, number, &e, later), e.attempts)
            } else {
                (elsewhere_message(kind, number, &e), 0)
            };
            let reason = if w.unread {
                settle
            } else {
                format!(
                    "{settle}. The export now marks it as not to be issued ({marked}): if it turns out issued, it \
                     cannot be voided; cancel it with a credit note"
                )
            };
            Outcome::Failed {
                tag: w.tag,
                reason,
                attempts,
                sent: true,
                halted: false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(onboard_id: &str, state: LedgerState) -> LedgerEntry {
        LedgerEntry {
            idempotency_key: String::new(),
            key: DocumentKey {
                onboard_id: onboard_id.into(),
                kind: DocumentKind::Invoice,
                number: "INV-9".into(),
            },
            content_hash: "h".into(),
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

    fn withdrawn() -> Withdrawn {
        Withdrawn {
            tag: 4,
            number: "INV-9".into(),
            kind: None,
            seller_vat: None,
            marked: "Status \"Voided\": Xero status Voided: not issued".into(),
            unread: false,
        }
    }

    #[test]
    fn an_issued_number_whose_rows_cannot_be_read_is_a_conflict_saying_so() {
        let w = Withdrawn {
            unread: true,
            ..withdrawn()
        };
        match standing(&w, entry("mine", LedgerState::Accepted), "mine", Later::Run) {
            Outcome::Conflict { message, issued, .. } => {
                assert!(
                    message.contains("invoice INV-9 is issued") && message.contains("cannot be read"),
                    "{message}"
                );
                assert!(!message.contains("Voided"), "{message}");
                assert!(issued.is_none(), "the entry has no body");
            }
            other => panic!("{other:?}"),
        }
        match standing(&w, entry("mine", LedgerState::Unknown), "mine", Later::Run) {
            Outcome::Failed { reason, .. } => assert!(!reason.contains("Voided"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_issued_number_is_a_conflict_even_with_the_content_sent_and_a_maybe_issued_one_failed() {
        match standing(&withdrawn(), entry("mine", LedgerState::Accepted), "mine", Later::Run) {
            Outcome::Conflict { tag, message, .. } => {
                assert_eq!(tag, 4);
                assert!(
                    message.contains("marks invoice INV-9 as not to be issued (Status \"Voided\"")
                        && message.contains("UUID u-9")
                        && message.contains("issue a credit note"),
                    "{message}"
                );
                assert!(!message.contains("device"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        match standing(&withdrawn(), entry("mine", LedgerState::Unknown), "mine", Later::Run) {
            Outcome::Failed { reason, attempts, .. } => {
                assert_eq!(attempts, 2);
                assert!(
                    reason.contains("sent earlier (2026-11-01T10:00:00Z)")
                        && reason.contains("the next run repeats")
                        && reason.contains("The export now marks it as not to be issued (Status \"Voided\""),
                    "{reason}"
                );
            }
            other => panic!("{other:?}"),
        }
        match standing(&withdrawn(), entry("theirs", LedgerState::InFlight), "mine", Later::Run) {
            Outcome::Failed { reason, .. } => assert!(reason.contains("INVOICEDROP_ONBOARD_ID=theirs"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
}

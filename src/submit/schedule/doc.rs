//! A document being sent: what it says when it ends without a final answer, and what the ledger
//! records of a request the API did not read.

use super::super::Outcome;
use super::super::later::Later;
use super::super::ledger::LedgerState;
use super::super::url::ApiUrl;
use crate::model::DocumentKind;

/// A document being sent.
pub(super) struct Doc {
    pub(super) tag: u64,
    pub(super) kind: DocumentKind,
    pub(super) number: String,
    pub(super) idempotency_key: String,
    pub(super) url: ApiUrl,
    /// Who settles it if it gets no final answer.
    pub(super) later: Later,
}

impl Doc {
    /// No final answer in this run (`cause` says why): the ledger keeps the document, and the next
    /// run repeats it under its idempotency key (`sent`: a request for it may have reached the
    /// API, so it may be issued) or, nothing of it having reached the API, sends it.
    pub(super) fn failed(&self, cause: &str, attempts: u32, sent: bool) -> Outcome {
        // One warning for the batch instead ([`Unsettled`]).
        tracing::debug!(kind = %self.kind, number = %self.number, reason = cause, sent, "no final answer");
        Outcome::Failed {
            tag: self.tag,
            reason: failed_reason(cause, sent, self.later),
            attempts,
            sent,
            halted: false,
        }
    }

    /// Left because a stop was asked for: not sent, or sent (`sent`: in this run, the last time
    /// for `last_reason`, or in an earlier one) without a final answer and not repeated.
    /// Its ledger row stays as it is: the next run sends it, or repeats it with its key.
    pub(super) fn halted(&self, attempts: u32, last_reason: &str, sent: bool) -> Outcome {
        tracing::debug!(kind = %self.kind, number = %self.number, attempts, sent, "left: asked to stop");
        let reason = match (sent, last_reason) {
            (false, _) => "not sent: asked to stop".to_string(),
            (true, "") => "sent earlier without a final answer; not repeated: asked to stop".to_string(),
            (true, last) => format!("sent without a final answer (last: {last}); not repeated: asked to stop"),
        };
        Outcome::Failed {
            tag: self.tag,
            reason,
            attempts,
            sent,
            halted: true,
        }
    }
}

/// `cause`, and what the next run (or the watcher) does: repeat the request (it may have reached
/// the API: its outcome is unknown) or, nothing of it having reached the API, send it; for the
/// latter, plainly that it is not issued, and what to do if the API stays down.
fn failed_reason(cause: &str, sent: bool, later: Later) -> String {
    if sent {
        format!("{cause}; {}", later.repeats())
    } else {
        format!(
            "not issued: nothing of it reached the API ({cause}); {}; {}",
            later.sends(),
            later.if_down()
        )
    }
}

/// The documents of a batch left without a final answer (not those left by a stop), for one
/// warning in place of one per document.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Unsettled {
    /// Sent: maybe issued.
    sent: usize,
    /// Nothing of them reached the API: not issued.
    not_sent: usize,
}

impl Unsettled {
    /// `None` when every outcome is final (or left by a stop, said elsewhere).
    pub(super) fn of<'o>(outcomes: impl Iterator<Item = &'o Outcome>) -> Option<Unsettled> {
        let mut left = Unsettled { sent: 0, not_sent: 0 };
        for o in outcomes {
            if let Outcome::Failed {
                halted: false, sent, ..
            } = o
            {
                if *sent {
                    left.sent += 1;
                } else {
                    left.not_sent += 1;
                }
            }
        }
        (left.sent + left.not_sent > 0).then_some(left)
    }

    /// The warning: `down` how long the API has been silent when it was given up on.
    pub(super) fn message(&self, down: Option<std::time::Duration>, later: Later) -> String {
        let why = match down {
            Some(d) => format!(
                "the API stopped answering ({} s without an answer): given up waiting; the documents still \
                 waiting are failed at once unless a probe gets an answer; ",
                d.as_secs()
            ),
            None => String::new(),
        };
        let then = match later {
            Later::Run => "the next run repeats those sent with the same idempotency key and sends the others",
            Later::Watch => {
                "the watcher repeats those sent with the same idempotency key and sends the others once the API \
                 answers again"
            }
        };
        format!(
            "{why}{} document(s) of this batch without a final answer: {} sent (maybe issued), {} not sent (not \
             issued); {then}; each one's reason is in its result row (-vv logs each; -v the later batches of an \
             outage)",
            self.sent + self.not_sent,
            self.sent,
            self.not_sent
        )
    }
}

/// The ledger state of a request the API did not read (401, 404, 429, a connection that could
/// not be opened): `pending` (not at the API) while nothing of the document may have reached it;
/// once something may have (`sent`: an earlier request, in this run or an earlier one, got no
/// final answer), `unknown`, so that the next run (or the watcher) settles that request with its
/// stored body before new content may go, and does not say it is not issued.
pub(super) fn unread(sent: bool) -> LedgerState {
    if sent {
        LedgerState::Unknown
    } else {
        LedgerState::Pending
    }
}

/// Why a document was given up on when the API stopped answering (`down` says so): nothing of it
/// reached the API, or it was sent in an earlier run only, or in this one (`last_reason`: what
/// its last request got).
pub(super) fn gave_up_on(down: &str, sent: bool, last_reason: &str) -> String {
    match (sent, last_reason) {
        (false, _) => down.to_string(),
        (true, "") => format!("{down}; sent earlier, outcome unknown; not repeated in this run"),
        (true, last) => format!("{down}; outcome unknown (last: {last})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_left_without_answers_is_one_warning_counting_sent_and_not_sent() {
        let failed = |tag, sent, halted| Outcome::Failed {
            tag,
            reason: "r".into(),
            attempts: 0,
            sent,
            halted,
        };
        let outcomes = [
            failed(0, true, false),
            failed(1, false, false),
            failed(2, false, true),
            failed(3, false, false),
        ];
        let left = Unsettled::of(outcomes.iter()).unwrap();
        assert_eq!(left, Unsettled { sent: 1, not_sent: 2 });
        let m = left.message(Some(std::time::Duration::from_secs(7)), Later::Run);
        assert!(
            m.starts_with("the API stopped answering (7 s without an answer): given up waiting;")
                && m.contains("3 document(s) of this batch without a final answer: 1 sent (maybe issued), 2 not sent (not issued); the next run"),
            "{m}"
        );
        assert!(left.message(None, Later::Watch).starts_with("3 document(s)"));
        assert_eq!(
            Unsettled::of([failed(0, false, true)].iter()),
            None,
            "a stop is said elsewhere"
        );
    }

    #[test]
    fn a_document_left_by_a_halt_says_whether_it_went_out() {
        let doc = Doc {
            tag: 4,
            kind: DocumentKind::Invoice,
            number: "INV-1".into(),
            idempotency_key: "k".into(),
            url: ApiUrl::new("http://127.0.0.1:1/invoices"),
            later: Later::Run,
        };
        let reason = |o: Outcome| match o {
            Outcome::Failed {
                tag: 4,
                reason,
                halted: true,
                ..
            } => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(reason(doc.halted(0, "", false)), "not sent: asked to stop");
        // Tries whose connection could not be opened: still not sent.
        assert_eq!(
            reason(doc.halted(2, "connection refused", false)),
            "not sent: asked to stop"
        );
        assert_eq!(
            reason(doc.halted(2, "timeout", true)),
            "sent without a final answer (last: timeout); not repeated: asked to stop"
        );
        assert!(reason(doc.halted(1, "", true)).starts_with("sent earlier without a final answer"));
        assert!(matches!(
            doc.failed("x", 0, false),
            Outcome::Failed { halted: false, .. }
        ));
    }

    #[test]
    fn a_document_never_sent_says_it_is_not_issued_and_what_follows_and_one_sent_that_it_is_repeated() {
        let doc = |later| Doc {
            tag: 1,
            kind: DocumentKind::Invoice,
            number: "INV-1".into(),
            idempotency_key: "k".into(),
            url: ApiUrl::new("http://127.0.0.1:1/invoices"),
            later,
        };
        // Tried twice, the connection refused each time: nothing reached the API.
        let never = doc(Later::Run).failed("the API at x stopped answering", 2, false);
        let Outcome::Failed {
            reason,
            attempts: 2,
            sent: false,
            ..
        } = &never
        else {
            panic!("{never:?}")
        };
        assert_eq!(
            reason,
            "not issued: nothing of it reached the API (the API at x stopped answering); the next run sends it; if \
             the API stays down, check the network, INVOICEDROP_API_URL and the authority's status, then run again \
             (nothing is sent twice)"
        );
        assert_eq!(never.errors()[0].code.as_deref(), Some("INV-SUBMIT-NOT-SENT"));
        let maybe = doc(Later::Run).failed("no final answer after 8 tries (last: timeout)", 8, true);
        let Outcome::Failed { reason, sent: true, .. } = &maybe else {
            panic!("{maybe:?}")
        };
        assert_eq!(
            reason,
            "no final answer after 8 tries (last: timeout); the next run repeats it with the same idempotency key"
        );
        assert_eq!(maybe.errors()[0].code.as_deref(), Some("INV-SUBMIT-UNKNOWN"));
        // The watcher's words: it sends it itself, and status.json lists it as not sent.
        let Outcome::Failed { reason, .. } = doc(Later::Watch).failed("the API at x stopped answering", 0, false)
        else {
            unreachable!()
        };
        assert!(
            reason.starts_with(
                "not issued: nothing of it reached the API (the API at x stopped answering); the \
                                watcher sends it once the API answers again (status.json lists it under `not_sent`"
            ) && !reason.contains("next run"),
            "{reason}"
        );
    }

    #[test]
    fn a_document_given_up_on_says_whether_and_when_it_went_out() {
        // Nothing reached the API, even after tries whose connection could not be opened.
        assert_eq!(gave_up_on("down", false, "connection refused"), "down");
        // Sent by an earlier run; this one never got to repeat it: no empty "(last: )".
        assert_eq!(
            gave_up_on("down", true, ""),
            "down; sent earlier, outcome unknown; not repeated in this run"
        );
        assert_eq!(
            gave_up_on("down", true, "timeout"),
            "down; outcome unknown (last: timeout)"
        );
    }

    #[test]
    fn a_request_the_api_did_not_read_keeps_a_document_maybe_at_the_api_so() {
        assert_eq!(unread(false), LedgerState::Pending);
        assert_eq!(unread(true), LedgerState::Unknown);
    }
}

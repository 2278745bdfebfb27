//! A document being sent, and what it says when it ends without a final answer.

use super::super::Outcome;
use super::super::submitter::Later;
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
    /// No final answer in this run: the ledger keeps the document, and the next run repeats it
    /// under its idempotency key (or, never sent, sends it), which the reason is followed by.
    pub(super) fn failed(&self, reason: &str, attempts: u32) -> Outcome {
        tracing::warn!(kind = %self.kind, number = %self.number, reason, "no final answer");
        Outcome::Failed {
            tag: self.tag,
            reason: failed_reason(reason, attempts, self.later),
            attempts,
            halted: false,
        }
    }

    /// Left because a stop was asked for: not sent (`attempts` 0), or sent (in this run, the last
    /// time for `last_reason`, or in an earlier one) without a final answer and not repeated.
    /// Its ledger row stays as it is: the next run sends it, or repeats it with its key.
    pub(super) fn halted(&self, attempts: u32, last_reason: &str) -> Outcome {
        tracing::debug!(kind = %self.kind, number = %self.number, attempts, "left: asked to stop");
        let reason = match (attempts, last_reason) {
            (0, _) => "not sent: asked to stop".to_string(),
            (_, "") => "sent earlier without a final answer; not repeated: asked to stop".to_string(),
            (_, last) => format!("sent without a final answer (last: {last}); not repeated: asked to stop"),
        };
        Outcome::Failed {
            tag: self.tag,
            reason,
            attempts,
            halted: true,
        }
    }
}

/// `reason`, and what the next run (or the watcher) does: repeat the request (it was sent at
/// least once, its outcome unknown) or send it (never sent).
fn failed_reason(reason: &str, attempts: u32, later: Later) -> String {
    if attempts == 0 {
        format!("{reason}; {}", later.sends())
    } else {
        format!("{reason}; {}", later.repeats())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(reason(doc.halted(0, "")), "not sent: asked to stop");
        assert_eq!(
            reason(doc.halted(2, "timeout")),
            "sent without a final answer (last: timeout); not repeated: asked to stop"
        );
        assert!(reason(doc.halted(1, "")).starts_with("sent earlier without a final answer"));
        assert!(matches!(doc.failed("x", 0), Outcome::Failed { halted: false, .. }));
    }
}

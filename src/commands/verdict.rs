//! What `run` reports of each document: the verdict of each outcome of the submitter (or of
//! a run that stopped), for the result files.

use crate::model::{Document, Message};
use crate::pipeline::Verdict;
use crate::results::RowStatus;
use crate::submit::{LedgerState, Outcome, Standing, UNKNOWN_CODE, failed_code};

/// `CODE: message`, the code said once (the authority's text may start with `[CODE] - `).
pub(super) fn render(m: &Message) -> String {
    match &m.code {
        Some(code) if !code.is_empty() => {
            format!("{code}: {}", crate::results::without_code(&m.message, code))
        }
        _ => m.message.clone(),
    }
}

pub(super) fn codes(ms: &[Message]) -> Vec<String> {
    ms.iter()
        .filter_map(|m| m.code.clone())
        .filter(|c| !c.is_empty())
        .collect()
}

/// A document's net, VAT and gross.
pub(super) type Totals = [rust_decimal::Decimal; 3];

/// The document as the export gives it now, to say how a conflict's content differs from the
/// issued one: its fields, and its totals when they could be computed (`amounts_known`).
#[derive(Clone, Copy)]
pub(super) struct Export<'a> {
    pub(super) document: &'a Document,
    pub(super) amounts_known: bool,
}

/// Fields of a conflict's difference said at most.
const DIFFERENCES_SHOWN: usize = 5;

pub(super) fn totals(d: &Document) -> Totals {
    let t = &d.legal_monitory_total;
    [t.tax_exclusive_amount, d.tax_total.tax_amount, t.tax_inclusive_amount]
}

/// `net 100.00, VAT 15.00, gross 115.00`.
pub(super) fn totals_text([net, vat, gross]: Totals) -> String {
    let money = crate::results::summary::money;
    format!("net {}, VAT {}, gross {}", money(net), money(vat), money(gross))
}

/// A ledger time (RFC 3339 with milliseconds) as a `result_time` (to the second, `Z`).
pub(super) fn result_time(at: &str) -> Option<String> {
    let t = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    Some(
        t.with_timezone(&chrono::Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    )
}

/// The verdict of an accepted document (also of a conflict: issued, with other content).
pub(super) fn accepted_verdict(response: crate::model::SubmissionResponse, attempts: u32) -> Verdict {
    Verdict {
        status: Some(RowStatus::Accepted),
        uuid: response.id.clone().unwrap_or_default(),
        qr: response.qr_code.clone().unwrap_or_default(),
        warnings: response.warnings.0.iter().map(render).collect(),
        codes: codes(&response.warnings.0),
        attempts,
        response: Some(response),
        ..Verdict::default()
    }
}

/// The verdict of one outcome; `export` is the document as the export gives it now.
pub(super) fn verdict(outcome: Outcome, export: Option<Export<'_>>) -> Verdict {
    match outcome {
        Outcome::Accepted {
            response,
            attempts,
            accepted_at,
            from_ledger,
            ..
        } => Verdict {
            accepted_at: accepted_at.as_deref().and_then(result_time),
            issued_before: from_ledger,
            ..accepted_verdict(response, attempts)
        },
        Outcome::Rejected {
            http_status,
            response,
            attempts,
            ..
        } => {
            let mut errors: Vec<String> = response.errors.0.iter().map(render).collect();
            if errors.is_empty() {
                errors.push(format!(
                    "HTTP {http_status}: {}",
                    response.message.clone().unwrap_or_default()
                ));
            }
            let mut c = codes(&response.errors.0);
            c.extend(codes(&response.warnings.0));
            Verdict {
                status: Some(RowStatus::Rejected),
                errors,
                warnings: response.warnings.0.iter().map(render).collect(),
                codes: c,
                attempts,
                ..Verdict::default()
            }
        }
        // Issued, with the content the API accepted earlier: accepted, with the conflict as an
        // error, and the issued document's UUID, XML, QR and figures.
        Outcome::Conflict {
            message,
            response,
            issued,
            attempts,
            accepted_at,
            from_ledger,
            ..
        } => {
            let code = crate::submit::CONFLICT_CODE;
            let mut error = format!("{code}: {message}");
            if let (Some(now), Some(issued)) = (export, issued.as_deref()) {
                let was = totals(issued);
                let (fields, more) = crate::model::differences(now.document, issued, DIFFERENCES_SHOWN);
                if now.amounts_known {
                    let now = totals(now.document);
                    if now == was {
                        error.push_str(". Its totals are unchanged");
                        if fields.is_empty() {
                            error.push_str(": the change is in other fields");
                        }
                    } else {
                        error.push_str(&format!(
                            ". The export now says {}; the issued document says {}",
                            totals_text(now),
                            totals_text(was)
                        ));
                    }
                }
                if !fields.is_empty() {
                    let more = if more > 0 {
                        format!("; and {more} more")
                    } else {
                        String::new()
                    };
                    error.push_str(&format!(
                        ". What differs from the issued document: {}{more}",
                        fields.join("; ")
                    ));
                }
            }
            let mut v = accepted_verdict(response, attempts);
            v.accepted_at = accepted_at.as_deref().and_then(result_time);
            v.errors = vec![error];
            v.codes.insert(0, code.to_string());
            v.issued = issued;
            v.conflict = true;
            // Issued before this run, unless its repeat of a request left without an answer is
            // what issued it (sent by this run: counted accepted, not issued before).
            v.issued_before = from_ledger;
            v
        }
        // Maybe issued (sent, `INV-SUBMIT-UNKNOWN`), or certainly not (nothing of it reached the
        // API, `INV-SUBMIT-NOT-SENT`): what an accountant filters on.
        Outcome::Failed {
            reason, attempts, sent, ..
        } => {
            let code = failed_code(sent);
            Verdict {
                status: Some(RowStatus::Failed),
                errors: vec![format!("{code}: {reason}")],
                codes: vec![code.into()],
                attempts,
                ..Verdict::default()
            }
        }
    }
}

/// What stopped the sending of the documents not sent: the watch asked to stop, or a `run`
/// interrupted (SIGINT, SIGTERM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Halted {
    Watch,
    Run,
}

/// The code of a document a `run` interrupted by a signal did not send.
pub(super) const INTERRUPTED_CODE: &str = "INV-RUN-INTERRUPTED";

pub(super) fn halted_verdict(by: Halted) -> Verdict {
    let (code, text) = match by {
        Halted::Watch => (
            "INV-WATCH-STOPPED",
            "INV-WATCH-STOPPED: not sent, the watch was asked to stop; the file stays in .processing/ and the next start sends it",
        ),
        Halted::Run => (
            INTERRUPTED_CODE,
            "INV-RUN-INTERRUPTED: not sent, the run was interrupted (SIGINT or SIGTERM); run again to send it (documents already accepted are not sent twice)",
        ),
    };
    Verdict {
        status: Some(RowStatus::Failed),
        errors: vec![text.into()],
        codes: vec![code.into()],
        ..Verdict::default()
    }
}

/// The verdict of a document the watch's stop left without a final answer: not sent (nothing of
/// it reached the API, whatever its attempts), as [`halted_verdict`], or sent without an answer
/// and not repeated (maybe issued: the next start repeats it with its idempotency key).
pub(super) fn halted_outcome_verdict(reason: &str, attempts: u32, sent: bool, by: Halted) -> Verdict {
    if !sent {
        return Verdict {
            attempts,
            ..halted_verdict(by)
        };
    }
    let next = match by {
        Halted::Watch => {
            "the watch got SIGTERM or SIGINT); it may or may not be issued: the file stays in .processing/ and the \
             next start repeats it with the same idempotency key"
        }
        Halted::Run => {
            "the run got SIGTERM or SIGINT); it may or may not be issued: the next run repeats it with the same \
             idempotency key"
        }
    };
    Verdict {
        status: Some(RowStatus::Failed),
        errors: vec![format!("{UNKNOWN_CODE}: {reason} ({next}")],
        codes: vec![UNKNOWN_CODE.into()],
        attempts,
        ..Verdict::default()
    }
}

pub(super) fn stopped_verdict(reason: &str) -> Verdict {
    Verdict {
        status: Some(RowStatus::Failed),
        errors: vec![format!(
            "INV-RUN-STOPPED: not sent, the run stopped: {reason}. Fix that and run again; documents already accepted are not sent twice"
        )],
        codes: vec!["INV-RUN-STOPPED".into()],
        ..Verdict::default()
    }
}

/// The verdict of an invalid document (not sent) whose number the ledger holds: the outcome's,
/// saying that the export's content also fails the checks (`failing`) and what that means.
///
/// With nothing `failing` (a document that passes the checks but is not sent all the same: its
/// rows apart in the export), the outcome's verdict as a rerun gives it for a document sent
/// again: accepted from the ledger, a conflict, or `failed` (maybe issued).
pub(super) fn held_verdict(outcome: Outcome, export: Option<Export<'_>>, failing: &[String]) -> Verdict {
    let listed = failing.join(", ");
    let table_missing = failing
        .iter()
        .any(|f| f.split_whitespace().next() == Some(crate::mapping::TABLE_MISSING_CODE));
    let mut v = match &outcome {
        _ if failing.is_empty() => verdict(outcome, export),
        // Its buyer's fields would come from a lookup table that is not there: the export's
        // content is not known, so it is not compared (its blank fields are no change to credit).
        Outcome::Conflict { .. } if table_missing => {
            let mut v = verdict(outcome, None);
            v.errors.clear();
            v.codes.retain(|c| c != crate::submit::CONFLICT_CODE);
            v.conflict = false;
            v
        }
        Outcome::Conflict { .. } => {
            let mut v = verdict(outcome, export);
            if let Some(e) = v.errors.first_mut() {
                e.push_str(&format!(
                    ". The export's content also fails the checks made before sending ({listed}; said as warnings on \
                     its rows): nothing was sent, and nothing is when the export is corrected: the issued document \
                     stands"
                ));
            }
            v
        }
        Outcome::Failed { .. } => {
            let mut v = verdict(outcome, None);
            if let Some(e) = v.errors.first_mut() {
                e.push_str(&format!(
                    ". The export now gives it other content, which fails the checks made before sending ({listed}) \
                     and is not sent: once the earlier request is settled, an issued document is changed with a \
                     credit or debit note, not sent again; one that was not issued is sent once the export is \
                     corrected"
                ));
            }
            v
        }
        _ => verdict(outcome, None),
    };
    v.status.get_or_insert(RowStatus::Failed);
    v
}

/// The code of a skipped document whose rows make no document and whose number the ledger
/// holds under more than one kind: which one it is, if any, is not known.
pub const SKIP_LEDGER_CODE: &str = "INV-SKIP-LEDGER";

/// The verdict of a document a skip rule keeps from being issued whose number the ledger holds:
/// issued (a conflict) or maybe issued (`failed`); when its kind is not known and the number is
/// held under several kinds, it stays skipped, with a warning that claims nothing.
pub(super) fn withdrawn_verdict(standing: Standing, number: &str) -> Verdict {
    match standing {
        Standing::Known(o) => {
            let mut v = verdict(*o, None);
            v.status.get_or_insert(RowStatus::Failed);
            v
        }
        Standing::Ambiguous { held, .. } => {
            let list: Vec<String> = held
                .iter()
                .map(|(kind, state)| match state {
                    LedgerState::Accepted => format!("{kind} {number} issued"),
                    _ => format!("{kind} {number} sent without a final answer"),
                })
                .collect();
            Verdict {
                status: Some(RowStatus::Skipped),
                warnings: vec![format!(
                    "{SKIP_LEDGER_CODE}: its rows do not make a document, so whether it is an invoice or a note is \
                     not known, and the ledger holds this number under more than one kind ({}). Nothing is claimed \
                     and nothing was sent: if this document is one of those, it stays issued (a skip rule cannot \
                     withdraw it): cancel it with a credit note",
                    list.join(", ")
                )],
                codes: vec![SKIP_LEDGER_CODE.into()],
                ..Verdict::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SubmissionResponse;

    #[test]
    fn a_document_the_watch_s_stop_left_says_whether_it_may_be_issued() {
        let not_sent = halted_outcome_verdict("not sent: asked to stop", 0, false, Halted::Watch);
        assert_eq!(not_sent.codes, vec!["INV-WATCH-STOPPED"]);
        assert_eq!(not_sent.errors, halted_verdict(Halted::Watch).errors);
        let interrupted = halted_outcome_verdict("not sent: asked to stop", 0, false, Halted::Run);
        assert_eq!(interrupted.codes, vec![INTERRUPTED_CODE]);
        assert!(interrupted.errors[0].contains("run again to send it"));
        // Tried, the connection refused: not sent all the same.
        let refused = halted_outcome_verdict("not sent: asked to stop", 2, false, Halted::Watch);
        assert_eq!(
            (refused.codes, refused.attempts),
            (vec!["INV-WATCH-STOPPED".to_string()], 2)
        );
        let sent = halted_outcome_verdict(
            "sent without a final answer (last: timeout); not repeated: asked to stop",
            2,
            true,
            Halted::Watch,
        );
        assert_eq!((sent.status, sent.attempts), (Some(RowStatus::Failed), 2));
        assert_eq!(sent.codes, vec!["INV-SUBMIT-UNKNOWN"]);
        assert!(
            sent.errors[0].starts_with("INV-SUBMIT-UNKNOWN: sent without a final answer (last: timeout)")
                && sent.errors[0].contains("may or may not be issued")
                && sent.errors[0].ends_with("the next start repeats it with the same idempotency key"),
            "{}",
            sent.errors[0]
        );
    }

    #[test]
    fn a_failed_document_is_maybe_issued_when_sent_and_not_issued_when_nothing_of_it_reached_the_api() {
        let failed = |sent, attempts| {
            verdict(
                Outcome::Failed {
                    tag: 0,
                    reason: "why".into(),
                    attempts,
                    sent,
                    halted: false,
                },
                None,
            )
        };
        // Sent (maybe issued): the code an accountant reads as "maybe issued".
        let maybe = failed(true, 0);
        assert_eq!(maybe.status, Some(RowStatus::Failed));
        assert_eq!(
            (maybe.codes, maybe.errors),
            (
                vec!["INV-SUBMIT-UNKNOWN".to_string()],
                vec!["INV-SUBMIT-UNKNOWN: why".to_string()]
            )
        );
        // Nothing of it reached the API (even after attempts whose connection was refused).
        let not_sent = failed(false, 3);
        assert_eq!((not_sent.status, not_sent.attempts), (Some(RowStatus::Failed), 3));
        assert_eq!(
            (not_sent.codes, not_sent.errors),
            (
                vec!["INV-SUBMIT-NOT-SENT".to_string()],
                vec!["INV-SUBMIT-NOT-SENT: why".to_string()]
            )
        );
    }

    #[test]
    fn an_issued_document_whose_customers_table_is_missing_is_reported_issued_without_a_conflict() {
        let issued = Box::new(crate::model::example::standard_invoice("T-2"));
        let conflict = Outcome::Conflict {
            tag: 0,
            message: "invoice T-2 is issued".into(),
            response: SubmissionResponse::from_value(&serde_json::Value::Null),
            raw: Vec::new(),
            issued: Some(issued.clone()),
            attempts: 1,
            accepted_at: None,
            from_ledger: true,
        };
        let failing = [format!("{} on line 2", crate::mapping::TABLE_MISSING_CODE)];
        let v = held_verdict(conflict, None, &failing);
        assert_eq!(
            (v.status, v.conflict, v.issued_before),
            (Some(RowStatus::Accepted), false, true)
        );
        assert!(
            v.errors.is_empty() && !v.codes.iter().any(|c| c == crate::submit::CONFLICT_CODE),
            "{v:?}"
        );
        assert_eq!(v.issued.as_deref(), Some(&*issued), "the issued figures");
    }

    #[test]
    fn an_invalid_document_found_in_the_ledger_says_what_it_fails_and_what_to_do() {
        let failing = ["BR-KSA-F-04 on line 5".to_string(), "BR-CO-15".to_string()];
        let conflict = Outcome::Conflict {
            tag: 0,
            message: "invoice T-2 is issued".into(),
            response: SubmissionResponse::from_value(&serde_json::Value::Null),
            raw: Vec::new(),
            issued: None,
            attempts: 1,
            accepted_at: None,
            from_ledger: true,
        };
        let v = held_verdict(conflict, None, &failing);
        assert_eq!(v.status, Some(RowStatus::Accepted));
        assert!(v.conflict);
        assert_eq!(
            v.errors,
            vec![
                "INV-LEDGER-CONFLICT: invoice T-2 is issued. The export's content also fails the checks made before \
                 sending (BR-KSA-F-04 on line 5, BR-CO-15; said as warnings on its rows): nothing was sent, and \
                 nothing is when the export is corrected: the issued document stands"
            ]
        );
        let failed = Outcome::Failed {
            tag: 0,
            reason: "not sent: invoice T-2 was sent earlier".into(),
            attempts: 3,
            sent: true,
            halted: false,
        };
        let v = held_verdict(failed, None, &failing);
        assert_eq!((v.status, v.attempts, v.conflict), (Some(RowStatus::Failed), 3, false));
        assert!(
            v.errors[0].starts_with("INV-SUBMIT-UNKNOWN: not sent: invoice T-2 was sent earlier. The export now gives")
                && v.errors[0].contains("(BR-KSA-F-04 on line 5, BR-CO-15)")
                && v.errors[0].contains("credit or debit note"),
            "{}",
            v.errors[0]
        );
    }

    #[test]
    fn a_document_that_passes_the_checks_found_in_the_ledger_is_what_a_rerun_says() {
        // Not sent all the same (its rows apart in the export): nothing said of failing checks.
        let conflict = Outcome::Conflict {
            tag: 0,
            message: "invoice T-2 is issued".into(),
            response: SubmissionResponse::from_value(&serde_json::Value::Null),
            raw: Vec::new(),
            issued: None,
            attempts: 1,
            accepted_at: None,
            from_ledger: true,
        };
        let v = held_verdict(conflict, None, &[]);
        assert_eq!((v.status, v.conflict), (Some(RowStatus::Accepted), true));
        assert!(v.issued_before);
        // A conflict this run's repeat of an unanswered request issued: sent by this run.
        let repeated = Outcome::Conflict {
            tag: 0,
            message: "invoice T-2 is issued".into(),
            response: SubmissionResponse::from_value(&serde_json::Value::Null),
            raw: Vec::new(),
            issued: None,
            attempts: 2,
            accepted_at: None,
            from_ledger: false,
        };
        let v = verdict(repeated, None);
        assert_eq!(
            (v.status, v.conflict, v.issued_before),
            (Some(RowStatus::Accepted), true, false)
        );
        assert_eq!(v.errors, vec!["INV-LEDGER-CONFLICT: invoice T-2 is issued"]);
        let failed = Outcome::Failed {
            tag: 0,
            reason: "not sent: invoice T-2 was sent earlier".into(),
            attempts: 3,
            sent: true,
            halted: false,
        };
        let v = held_verdict(failed, None, &[]);
        assert_eq!(v.status, Some(RowStatus::Failed));
        assert_eq!(
            v.errors,
            vec!["INV-SUBMIT-UNKNOWN: not sent: invoice T-2 was sent earlier"]
        );
        let accepted = Outcome::Accepted {
            tag: 0,
            response: SubmissionResponse::from_value(&serde_json::json!({"id": "u-2"})),
            raw: Vec::new(),
            attempts: 1,
            from_ledger: true,
            accepted_at: Some("2026-11-01T10:00:01.123Z".into()),
        };
        let v = held_verdict(accepted, None, &[]);
        assert_eq!((v.status, v.errors.len()), (Some(RowStatus::Accepted), 0));
        assert_eq!(v.accepted_at.as_deref(), Some("2026-11-01T10:00:01Z"));
    }

    #[test]
    fn a_skipped_number_held_under_several_kinds_claims_nothing() {
        let v = withdrawn_verdict(
            Standing::Ambiguous {
                tag: 0,
                held: vec![
                    (crate::model::DocumentKind::Invoice, LedgerState::Accepted),
                    (crate::model::DocumentKind::CreditNote, LedgerState::Unknown),
                ],
            },
            "7",
        );
        assert_eq!(v.status, Some(RowStatus::Skipped));
        assert!(v.uuid.is_empty() && v.errors.is_empty() && !v.conflict);
        assert!(
            v.warnings[0].starts_with("INV-SKIP-LEDGER: ")
                && v.warnings[0].contains("(invoice 7 issued, credit note 7 sent without a final answer)"),
            "{:?}",
            v.warnings
        );
    }
}

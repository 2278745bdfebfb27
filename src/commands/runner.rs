//! The sending side shared by `run` and `watch`: a [`Runner`] holds the runtime, the connection
//! (the configured API or the built-in sandbox), the ledger and the [`Submitter`]; its
//! [`RunDispatch`] sends each batch's valid documents and turns the answers into verdicts.

use super::api::{self, DeviceChecksSkipped};
use super::json::ErrorDoc;
use super::progress::Progress;
use super::verdict::{
    Export, Halted, halted_outcome_verdict, halted_verdict, held_verdict, stopped_verdict, verdict, withdrawn_verdict,
};
use crate::cli::*;
use crate::config::Config;
use crate::mapping::OriginalDates;
use crate::model::{Document, DocumentKind, InvoiceType};
use crate::pipeline::{Dispatch, Held, Originals, Skipped, Unsent, Verdict};
use crate::sandbox::SandboxHandle;
use crate::submit::{
    DocumentKey, Halt, Ledger, LedgerState, Outcome, Outgoing, Standing, SubmitEvent, Submitter, Withdrawn,
};
use crate::validate::DeviceContext;
use crate::watch::Tracked;
use anyhow::Context as _;
use chrono::{NaiveDate, NaiveTime, TimeZone as _, Utc};
use chrono_tz::Asia::Riyadh;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tokio::runtime::Runtime;

mod unsent;

/// Counters for the progress line.
#[derive(Default)]
struct Tally {
    rows: AtomicU64,
    checked: AtomicU64,
    invalid: AtomicU64,
    sent: AtomicU64,
    /// Accepted, conflicts included (as in the summary's counts).
    accepted: AtomicU64,
    /// Of the accepted, those issued earlier with other content (`INV-LEDGER-CONFLICT`).
    conflicts: AtomicU64,
    rejected: AtomicU64,
    retrying: AtomicU64,
}

impl Tally {
    /// Count a document's final event; whether it was one (the bar then moves on).
    fn answered(&self, e: &SubmitEvent) -> bool {
        let add = |a: &AtomicU64| {
            a.fetch_add(1, Ordering::Relaxed);
        };
        match e {
            SubmitEvent::Accepted => add(&self.accepted),
            // Issued: an accepted document, with a conflict; never a rejection.
            SubmitEvent::Conflict => {
                add(&self.accepted);
                add(&self.conflicts);
            }
            SubmitEvent::Rejected => add(&self.rejected),
            SubmitEvent::Failed => {}
            SubmitEvent::Sent => {
                add(&self.sent);
                return false;
            }
            SubmitEvent::Retrying { .. } => {
                add(&self.retrying);
                return false;
            }
            SubmitEvent::Paused { .. } | SubmitEvent::Resumed => return false,
        }
        true
    }

    /// The progress line's message: rows and documents so far, and what became of them.
    fn message(&self) -> String {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let conflicts = match n(&self.conflicts) {
            0 => String::new(),
            c => format!(" ({c} in conflict with its export)"),
        };
        format!(
            "rows read {}, documents checked {} ({} invalid), sent {}, accepted {}{conflicts}, rejected {}, repeats {}",
            n(&self.rows),
            n(&self.checked),
            n(&self.invalid),
            n(&self.sent),
            n(&self.accepted),
            n(&self.rejected),
            n(&self.retrying)
        )
    }
}

/// The invoices the ledger holds as issued: where a note whose corrected invoice is not in its
/// file finds that invoice's issue date (issued in an earlier run, or from a file of this run
/// read before the note's: each file's documents are answered before the next file is read).
struct IssuedInvoices(Ledger);

impl OriginalDates for IssuedInvoices {
    fn invoice_date(&self, number: &str, seller_vat: Option<&str>) -> Option<NaiveDate> {
        self.0.invoice_date(number, seller_vat).unwrap_or_else(|e| {
            // The note goes with the invoice's number only, and says so (INV-MAP-REFERENCE).
            tracing::warn!(error = %e, "the ledger could not be read for a note's corrected invoice");
            None
        })
    }

    fn note_kind(&self, number: &str, seller_vat: Option<&str>) -> Option<crate::model::DocumentKind> {
        // The note goes as before, with the invoice's number only (INV-MAP-REFERENCE).
        self.0.note_kind(number, seller_vat).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the ledger could not be read for a note's corrected invoice");
            None
        })
    }

    fn invoice_total(&self, number: &str, seller_vat: Option<&str>) -> Option<crate::model::IssuedTotal> {
        // Without it the note is not compared with its invoice: nothing else changes.
        self.0.invoice_total(number, seller_vat).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the ledger could not be read for a credit note's corrected invoice");
            None
        })
    }

    fn credited(
        &self,
        number: &str,
        seller_vat: Option<&str>,
        currency: &str,
        except: &str,
    ) -> crate::model::CreditedBefore {
        // Without them the note is compared with its invoice alone.
        self.0
            .credited(number, seller_vat, currency, except)
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "the ledger could not be read for a credit note's earlier notes");
                crate::model::CreditedBefore::default()
            })
    }
}

/// Why a simplified document is not accepted, for the watch's alert: its verdict's first error
/// (none once accepted).
fn why(v: &Verdict) -> String {
    match v.status {
        Some(crate::results::RowStatus::Accepted) => String::new(),
        _ => v.errors.first().map(|e| crate::watch::why_of(e)).unwrap_or_default(),
    }
}

/// Sends each batch's valid documents and turns the answers into verdicts.
pub(super) struct RunDispatch<'a> {
    rt: &'a Runtime,
    submitter: &'a Submitter,
    /// Set when the run had to stop (credentials rejected, unknown device): nothing more is sent.
    pub(super) stopped: Option<ErrorDoc>,
    progress: Progress,
    tally: Tally,
    /// Raised by a signal (watch, or a `run` interrupted): batches not yet sent are left for the
    /// next start (or run).
    halt: Option<&'a AtomicBool>,
    /// Whose stop `halt` is (what the documents not sent say).
    halted_by: Halted,
    /// Set when `halt` (or the submitter's [`Halt`], raised by the same signal) kept documents
    /// from being sent or settled.
    pub(super) halted: bool,
    /// The answers of simplified documents, for the watch's 24-hour alert.
    pub(super) simplified: Vec<Tracked>,
    /// The device's VAT number and type, when known: every document is checked against them.
    device: Option<&'a DeviceContext>,
    /// The state folder (its ledger): named when a document is not sent for want of it.
    state: &'a std::path::Path,
    /// What the result set of the export being read lists as accepted ([`super::elsewhere`]).
    accepted_before: crate::results::AcceptedBefore,
    /// When this dispatch started: a document the ledger says was accepted since was issued by
    /// this run, not before it.
    started: chrono::DateTime<Utc>,
}

impl<'a> RunDispatch<'a> {
    /// For a `run` that `halt` interrupts (a signal): the batches not yet sent are not sent,
    /// saying `INV-RUN-INTERRUPTED` (run again), not the watch's stop.
    pub(super) fn interrupted_by(mut self, halt: &'a AtomicBool) -> Self {
        self.halt = Some(halt);
        self.halted_by = Halted::Run;
        self
    }
}

impl RunDispatch<'_> {
    /// What the watch's alert needs of a simplified document.
    fn simplified_of(d: &Document) -> Option<Tracked> {
        if d.invoice_type != InvoiceType::Simplified {
            return None;
        }
        Some(Self::tracked(d.kind, d.number.clone(), d.issue_date, d.issue_time))
    }

    /// A simplified document to follow, issued at `date` `time` in Riyadh.
    fn tracked(kind: DocumentKind, number: String, date: NaiveDate, time: NaiveTime) -> Tracked {
        let local = date.and_time(time);
        let issued_at = Riyadh
            .from_local_datetime(&local)
            .earliest()
            .map_or_else(|| local.and_utc(), |t| t.with_timezone(&Utc));
        Tracked {
            number,
            kind,
            issued_at,
            status: String::new(),
            file: String::new(),
            why: String::new(),
        }
    }

    fn on_event(&self, e: SubmitEvent) {
        if self.tally.answered(&e) {
            self.progress.bar.inc(1);
        }
        match e {
            SubmitEvent::Paused { reason, .. } => self.progress.bar.println(format!("paused: {reason}")),
            SubmitEvent::Resumed => self.progress.bar.println("resumed"),
            _ => {}
        }
        self.show_tally();
    }

    /// The progress line's message: rows and documents so far, and what became of them.
    fn show_tally(&self) {
        self.progress.bar.set_message(self.tally.message());
    }
}

impl Dispatch for RunDispatch<'_> {
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        let tracked: Vec<Option<Tracked>> = docs.iter().map(Self::simplified_of).collect();
        let verdicts: Vec<Verdict> = if let Some(stop) = &self.stopped {
            let reason = stop.message.clone();
            self.stopped_verdicts(&docs, &reason)
        } else if self.halt.is_some_and(|h| h.load(Ordering::SeqCst)) {
            self.halted = true;
            self.halted_verdicts(&docs)
        } else {
            self.send_unless_elsewhere(docs)
        };
        for (t, v) in tracked.into_iter().zip(&verdicts) {
            if let Some(mut t) = t {
                t.status = v.status.map_or_else(|| "valid".to_string(), |s| s.as_str().to_string());
                t.why = why(v);
                self.simplified.push(t);
            }
        }
        verdicts
    }

    fn checked(&mut self, rows: u64, documents: u64, invalid: u64) {
        let t = &self.tally;
        t.rows.fetch_add(rows, Ordering::Relaxed);
        t.checked.fetch_add(documents, Ordering::Relaxed);
        t.invalid.fetch_add(invalid, Ordering::Relaxed);
        self.progress.rows_read(t.rows.load(Ordering::Relaxed));
        self.show_tally();
    }

    fn device(&self) -> Option<DeviceContext> {
        self.device.cloned()
    }

    fn inputs(&mut self, files: &[PathBuf]) {
        self.progress.count_rows_of(files);
    }

    fn writing(&mut self, file: &str) {
        // The line would otherwise say "0s left" while the results are written.
        self.progress.bar.set_message(format!(
            "{}; writing the results of {file} (signed XML, QR images, result files)",
            self.tally.message()
        ));
    }

    fn originals(&self) -> Option<Originals> {
        Some(Originals(std::sync::Arc::new(IssuedInvoices(
            self.submitter.ledger().clone(),
        ))))
    }

    fn issued(&mut self, invalid: Vec<Held>) -> Vec<Option<Verdict>> {
        self.look_up(invalid)
    }

    fn withdrawn(&mut self, skipped: Vec<Skipped>) -> Vec<Option<Verdict>> {
        self.look_up_withdrawn(skipped)
    }

    fn holds(&mut self, numbers: &[(String, Option<DocumentKind>)], seller_vat: Option<&str>) -> Vec<bool> {
        match self.rt.block_on(self.submitter.holds(numbers, seller_vat)) {
            Ok(held) => held,
            Err(e) => {
                // None held: such documents stay invalid (sending stops on the same ledger).
                tracing::warn!(error = %e, "the ledger could not be read for the documents whose rows are apart");
                Vec::new()
            }
        }
    }

    fn accepted_before(&mut self, before: crate::results::AcceptedBefore) {
        self.accepted_before = before;
    }

    fn not_sent(&mut self, invalid_simplified: Vec<Unsent>) {
        for u in invalid_simplified {
            self.simplified.push(Tracked {
                status: "invalid".into(),
                why: crate::watch::why_of(&u.why),
                ..Self::tracked(u.kind, u.number, u.issue_date, u.issue_time)
            });
        }
    }
}

impl RunDispatch<'_> {
    fn send(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        let n = docs.len();
        self.progress.add(n as u64);
        // Kept to tell a conflict's content in the export from the issued one.
        let exported: Vec<Document> = docs.clone();
        let outgoing: Vec<Outgoing> = docs
            .into_iter()
            .enumerate()
            .map(|(i, document)| Outgoing {
                document,
                tag: i as u64,
            })
            .collect();
        let result = self
            .rt
            .block_on(self.submitter.submit_all(outgoing, |e| self.on_event(e)));
        match result {
            Ok(outcomes) => {
                let mut verdicts: Vec<Option<Verdict>> = vec![None; n];
                for o in outcomes {
                    let tag = o.tag() as usize;
                    let v = match o {
                        // The watch's stop came in the middle of the batch.
                        Outcome::Failed {
                            halted: true,
                            reason,
                            attempts,
                            sent,
                            ..
                        } => {
                            self.halted = true;
                            halted_outcome_verdict(&reason, attempts, sent, self.halted_by)
                        }
                        o => verdict(
                            o,
                            exported.get(tag).map(|document| Export {
                                document,
                                amounts_known: true,
                            }),
                        ),
                    };
                    if let Some(slot) = verdicts.get_mut(tag) {
                        *slot = Some(v);
                    }
                }
                verdicts
                    .into_iter()
                    .map(|v| v.unwrap_or_else(|| stopped_verdict("no answer was recorded for this document")))
                    .collect()
            }
            Err(e) => {
                let reason = e.to_string();
                self.progress.bar.println(format!("error: {reason}"));
                self.stopped = Some(ErrorDoc::new(super::json::submit_kind(&e), reason.clone()));
                // Some of the batch may have been accepted (or sent) before the stop.
                self.stopped_verdicts(&exported, &reason)
            }
        }
    }
}

/// Everything needed to send documents: one per `run`, one per `watch` for its whole life.
pub(super) struct Runner {
    rt: Runtime,
    submitter: Submitter,
    sandbox: Option<SandboxHandle>,
    /// The state folder the ledger is in.
    state: PathBuf,
    /// The configuration (seller profile).
    pub(super) config: Config,
    /// What documents are checked against before sending (D7, D21), or why they cannot be: the
    /// caller says that once.
    pub(super) device: Result<DeviceContext, DeviceChecksSkipped>,
}

impl Runner {
    /// Load the configuration, reach the API (or start the built-in sandbox), open the ledger
    /// and find the device.
    pub(super) fn start(input: &InputArgs, api_args: &ApiArgs) -> anyhow::Result<Runner> {
        let config = Config::load(input.config.as_deref())?;
        let (seller, _) = config.seller();
        let rt = api::runtime()?;
        let conn = api::connect(&rt, api_args, &seller)?;
        let ledger = conn.ledger()?;
        let state = conn.ledger_dir.clone();
        let device = api::device(&rt, &conn, &ledger, &seller)?;
        let submitter = rt
            .block_on(Submitter::connect(conn.settings.clone(), device.onboard_id, ledger))
            .context("cannot start sending")?;
        Ok(Runner {
            rt,
            submitter,
            sandbox: conn.sandbox,
            state,
            config,
            device: device.checks,
        })
    }

    /// The runtime the requests run on.
    pub(super) fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// The handle that stops sending ([`Halt::raise`], from a signal): no request starts after
    /// it, and a batch in flight ends as soon as its requests on the wire are answered or time out.
    pub(super) fn halt(&self) -> Halt {
        self.submitter.halt()
    }

    /// The ledger of every document sent.
    pub(super) fn ledger(&self) -> &Ledger {
        self.submitter.ledger()
    }

    /// What sends the documents (the watcher looks whether the API answers through it).
    pub(super) fn submitter(&self) -> &Submitter {
        &self.submitter
    }

    /// A dispatch for one `run` or one watched file; `halt`, when raised, keeps later batches
    /// from being sent.
    pub(super) fn dispatch<'a>(&'a self, show_progress: bool, halt: Option<&'a AtomicBool>) -> RunDispatch<'a> {
        RunDispatch {
            rt: &self.rt,
            submitter: &self.submitter,
            stopped: None,
            progress: Progress::new(show_progress),
            tally: Tally::default(),
            halt,
            halted_by: Halted::Watch,
            halted: false,
            simplified: Vec::new(),
            device: self.device.as_ref().ok(),
            state: &self.state,
            accepted_before: crate::results::AcceptedBefore::default(),
            started: Utc::now(),
        }
    }

    /// Repeat, with their original idempotency keys, the documents an earlier run left without a
    /// final answer; how many there were.
    pub(super) fn resume(&self, dispatch: &RunDispatch<'_>) -> anyhow::Result<usize> {
        let resumed = self
            .rt
            .block_on(self.submitter.resume_unresolved(|e| dispatch.on_event(e)))
            .context("cannot finish the documents an earlier run left unanswered")?;
        Ok(resumed.len())
    }

    /// Whether the ledger holds this document of this device as accepted.
    pub(super) fn is_accepted(&self, kind: DocumentKind, number: &str) -> bool {
        let key = DocumentKey {
            onboard_id: self.submitter.onboard_id().to_string(),
            kind,
            number: number.to_string(),
        };
        matches!(self.ledger().get(&key), Ok(Some(e)) if e.state == LedgerState::Accepted)
    }

    /// The simplified documents the ledger holds without a final answer (sent, outcome unknown),
    /// for the watch's 24-hour alert.
    pub(super) fn unresolved_simplified(&self) -> Vec<Tracked> {
        let entries = self
            .ledger()
            .unresolved(self.submitter.onboard_id())
            .unwrap_or_default();
        entries
            .into_iter()
            .filter_map(|e| {
                let doc: Document = serde_json::from_slice(&e.body).ok()?;
                let mut t = RunDispatch::simplified_of(&doc)?;
                t.status = e.state.as_str().to_string();
                Some(t)
            })
            .collect()
    }

    /// Whether documents go to the built-in sandbox (no API configured).
    pub(super) fn sandbox(&self) -> bool {
        self.sandbox.is_some()
    }

    /// Stop the built-in sandbox, if one runs.
    pub(super) fn shutdown(self) {
        if let Some(sandbox) = self.sandbox {
            self.rt.block_on(sandbox.shutdown());
        }
    }
}

impl RunDispatch<'_> {
    /// Clear the progress line.
    pub(super) fn finish(&self) {
        self.progress.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_counts_a_conflict_as_accepted_with_a_conflict_not_as_rejected() {
        let t = Tally::default();
        for e in [
            SubmitEvent::Sent,
            SubmitEvent::Accepted,
            SubmitEvent::Conflict,
            SubmitEvent::Sent,
            SubmitEvent::Rejected,
            SubmitEvent::Failed,
        ] {
            t.answered(&e);
        }
        let m = t.message();
        assert!(
            m.contains("sent 2, accepted 2 (1 in conflict with its export), rejected 1"),
            "{m}"
        );
        assert!(!Tally::default().message().contains("conflict"));
    }

    #[test]
    fn a_ledger_body_gives_back_the_simplified_document_and_its_issue_time_in_utc() {
        let doc = crate::model::example::simplified_invoice("SIM-1");
        let body = serde_json::to_vec(&doc).unwrap();
        let back: Document = serde_json::from_slice(&body).unwrap();
        let t = RunDispatch::simplified_of(&back).unwrap();
        assert_eq!(t.number, "SIM-1");
        let local = doc.issue_date.and_time(doc.issue_time);
        assert_eq!(
            t.issued_at,
            local.and_utc() - chrono::Duration::hours(3),
            "Riyadh is UTC+3"
        );
        let standard = crate::model::example::standard_invoice("STD-1");
        assert!(RunDispatch::simplified_of(&standard).is_none());
    }
}

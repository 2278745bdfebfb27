//! The sending side shared by `run` and `watch`: a [`Runner`] holds the runtime, the connection
//! (the configured API or the built-in sandbox), the ledger and the [`Submitter`]; its
//! [`RunDispatch`] sends each batch's valid documents and turns the answers into verdicts.

use super::api::{self, DeviceChecksSkipped};
use super::json::ErrorDoc;
use crate::cli::*;
use crate::config::Config;
use crate::model::{Document, DocumentKind, InvoiceType, Message};
use crate::pipeline::{Dispatch, Unsent, Verdict};
use crate::results::RowStatus;
use crate::sandbox::SandboxHandle;
use crate::submit::{DocumentKey, Ledger, LedgerState, Outcome, Outgoing, SubmitEvent, Submitter};
use crate::validate::DeviceContext;
use crate::watch::Tracked;
use anyhow::Context as _;
use chrono::{NaiveDate, NaiveTime, TimeZone as _, Utc};
use chrono_tz::Asia::Riyadh;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::runtime::Runtime;

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

/// Sends each batch's valid documents and turns the answers into verdicts.
pub(super) struct RunDispatch<'a> {
    rt: &'a Runtime,
    submitter: &'a Submitter,
    /// Set when the run had to stop (credentials rejected, unknown device): nothing more is sent.
    pub(super) stopped: Option<ErrorDoc>,
    bar: ProgressBar,
    tally: Tally,
    /// Raised by a signal (watch): batches not yet sent are left for the next start.
    halt: Option<&'a AtomicBool>,
    /// Set when `halt` kept a batch from being sent.
    pub(super) halted: bool,
    /// The answers of simplified documents, for the watch's 24-hour alert.
    pub(super) simplified: Vec<Tracked>,
    /// The device's VAT number and type, when known: every document is checked against them.
    device: Option<&'a DeviceContext>,
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
        }
    }

    fn on_event(&self, e: SubmitEvent) {
        if self.tally.answered(&e) {
            self.bar.inc(1);
        }
        match e {
            SubmitEvent::Paused { reason, .. } => self.bar.println(format!("paused: {reason}")),
            SubmitEvent::Resumed => self.bar.println("resumed"),
            _ => {}
        }
        self.show_tally();
    }

    /// The progress line's message: rows and documents so far, and what became of them.
    fn show_tally(&self) {
        self.bar.set_message(self.tally.message());
    }
}

/// `CODE: message`, the code said once (the authority's text may start with `[CODE] - `).
fn render(m: &Message) -> String {
    match &m.code {
        Some(code) if !code.is_empty() => {
            format!("{code}: {}", crate::results::without_code(&m.message, code))
        }
        _ => m.message.clone(),
    }
}

fn codes(ms: &[Message]) -> Vec<String> {
    ms.iter()
        .filter_map(|m| m.code.clone())
        .filter(|c| !c.is_empty())
        .collect()
}

/// A document's net, VAT and gross.
type Totals = [rust_decimal::Decimal; 3];

fn totals(d: &Document) -> Totals {
    let t = &d.legal_monitory_total;
    [t.tax_exclusive_amount, d.tax_total.tax_amount, t.tax_inclusive_amount]
}

/// `net 100.00, VAT 15.00, gross 115.00`.
fn totals_text([net, vat, gross]: Totals) -> String {
    let money = crate::results::summary::money;
    format!("net {}, VAT {}, gross {}", money(net), money(vat), money(gross))
}

/// A ledger time (RFC 3339 with milliseconds) as a `result_time` (to the second, `Z`).
fn result_time(at: &str) -> Option<String> {
    let t = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    Some(
        t.with_timezone(&chrono::Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    )
}

/// The verdict of an accepted document (also of a conflict: issued, with other content).
fn accepted_verdict(response: crate::model::SubmissionResponse, attempts: u32) -> Verdict {
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
fn verdict(outcome: Outcome, export: Option<&Totals>) -> Verdict {
    match outcome {
        Outcome::Accepted {
            response,
            attempts,
            accepted_at,
            ..
        } => Verdict {
            accepted_at: accepted_at.as_deref().and_then(result_time),
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
            ..
        } => {
            let code = crate::submit::CONFLICT_CODE;
            let mut error = format!("{code}: {message}");
            if let (Some(now), Some(was)) = (export, issued.as_deref()) {
                let was = totals(was);
                if *now == was {
                    error.push_str(". Its totals are unchanged: the change is in other fields");
                } else {
                    error.push_str(&format!(
                        ". The export now says {}; the issued document says {}",
                        totals_text(*now),
                        totals_text(was)
                    ));
                }
            }
            let mut v = accepted_verdict(response, attempts);
            v.errors = vec![error];
            v.codes.insert(0, code.to_string());
            v.issued = issued;
            v
        }
        Outcome::Failed { reason, attempts, .. } => Verdict {
            status: Some(RowStatus::Failed),
            errors: vec![format!("INV-SUBMIT-UNKNOWN: {reason}")],
            codes: vec!["INV-SUBMIT-UNKNOWN".into()],
            attempts,
            ..Verdict::default()
        },
    }
}

fn halted_verdict() -> Verdict {
    Verdict {
        status: Some(RowStatus::Failed),
        errors: vec![
            "INV-WATCH-STOPPED: not sent, the watch was asked to stop; the file stays in .processing/ and the next start sends it".into(),
        ],
        codes: vec!["INV-WATCH-STOPPED".into()],
        ..Verdict::default()
    }
}

fn stopped_verdict(reason: &str) -> Verdict {
    Verdict {
        status: Some(RowStatus::Failed),
        errors: vec![format!(
            "INV-RUN-STOPPED: not sent, the run stopped: {reason}. Fix that and run again; documents already accepted are not sent twice"
        )],
        codes: vec!["INV-RUN-STOPPED".into()],
        ..Verdict::default()
    }
}

impl Dispatch for RunDispatch<'_> {
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        let tracked: Vec<Option<Tracked>> = docs.iter().map(Self::simplified_of).collect();
        let verdicts: Vec<Verdict> = if let Some(stop) = &self.stopped {
            docs.iter().map(|_| stopped_verdict(&stop.message)).collect()
        } else if self.halt.is_some_and(|h| h.load(Ordering::SeqCst)) {
            self.halted = true;
            docs.iter().map(|_| halted_verdict()).collect()
        } else {
            self.send(docs)
        };
        for (t, v) in tracked.into_iter().zip(&verdicts) {
            if let Some(mut t) = t {
                t.status = v.status.map_or_else(|| "valid".to_string(), |s| s.as_str().to_string());
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
        self.show_tally();
    }

    fn device(&self) -> Option<DeviceContext> {
        self.device.cloned()
    }

    fn not_sent(&mut self, invalid_simplified: Vec<Unsent>) {
        for u in invalid_simplified {
            self.simplified.push(Tracked {
                status: "invalid".into(),
                ..Self::tracked(u.kind, u.number, u.issue_date, u.issue_time)
            });
        }
    }
}

impl RunDispatch<'_> {
    /// Send one batch and turn the outcomes into verdicts, in the batch's order.
    fn send(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        let n = docs.len();
        self.bar.inc_length(n as u64);
        // Kept to tell a conflict's figures in the export from the issued ones.
        let exported: Vec<Totals> = docs.iter().map(totals).collect();
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
                    if let Some(slot) = verdicts.get_mut(tag) {
                        *slot = Some(verdict(o, exported.get(tag)));
                    }
                }
                verdicts
                    .into_iter()
                    .map(|v| v.unwrap_or_else(|| stopped_verdict("no answer was recorded for this document")))
                    .collect()
            }
            Err(e) => {
                let reason = e.to_string();
                self.bar.println(format!("error: {reason}"));
                self.stopped = Some(ErrorDoc::new(super::json::submit_kind(&e), reason.clone()));
                (0..n).map(|_| stopped_verdict(&reason)).collect()
            }
        }
    }
}

fn progress_bar(show: bool) -> ProgressBar {
    let bar = ProgressBar::new(0);
    if !show || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    } else {
        bar.set_style(
            ProgressStyle::with_template(
                // `per_sec:0`: a whole number of documents a second (1,235/s), not 1234.5678/s.
                "{spinner} {pos}/{len} documents answered [{elapsed_precise}, {per_sec:0}, {eta} left] {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar
}

/// Everything needed to send documents: one per `run`, one per `watch` for its whole life.
pub(super) struct Runner {
    rt: Runtime,
    submitter: Submitter,
    sandbox: Option<SandboxHandle>,
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
        let ledger = Ledger::open(&conn.ledger_dir)?;
        let device = api::device(&rt, &conn, &ledger, &seller)?;
        let submitter = rt
            .block_on(Submitter::connect(conn.settings.clone(), device.onboard_id, ledger))
            .context("cannot start sending")?;
        Ok(Runner {
            rt,
            submitter,
            sandbox: conn.sandbox,
            config,
            device: device.checks,
        })
    }

    /// The runtime the requests run on.
    pub(super) fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// The ledger of every document sent.
    pub(super) fn ledger(&self) -> &Ledger {
        self.submitter.ledger()
    }

    /// A dispatch for one `run` or one watched file; `halt`, when raised, keeps later batches
    /// from being sent.
    pub(super) fn dispatch<'a>(&'a self, show_progress: bool, halt: Option<&'a AtomicBool>) -> RunDispatch<'a> {
        RunDispatch {
            rt: &self.rt,
            submitter: &self.submitter,
            stopped: None,
            bar: progress_bar(show_progress),
            tally: Tally::default(),
            halt,
            halted: false,
            simplified: Vec::new(),
            device: self.device.as_ref().ok(),
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
        self.bar.finish_and_clear();
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

//! `invoicedrop run PATH...`: the whole pipeline. Every export is checked as by `check`; each
//! batch's valid documents are sent through the [`Submitter`] (rate limit, retries with the same
//! idempotency key, the ledger), and the authority's answers become the rows' statuses.

use super::Status;
use super::api;
use super::check;
use crate::cli::*;
use crate::config::Config;
use crate::model::{Document, Message};
use crate::pipeline::{Dispatch, Verdict};
use crate::results::RowStatus;
use crate::submit::{Ledger, Outcome, Outgoing, SubmitEvent, Submitter};
use anyhow::Context as _;
use chrono::Utc;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::runtime::Runtime;

/// Counters for the progress line.
#[derive(Default)]
struct Tally {
    sent: AtomicU64,
    accepted: AtomicU64,
    rejected: AtomicU64,
    retrying: AtomicU64,
}

/// Sends each batch's valid documents and turns the answers into verdicts.
struct RunDispatch<'a> {
    rt: &'a Runtime,
    submitter: &'a Submitter,
    /// Set when the run had to stop (credentials rejected, unknown device): nothing more is sent.
    stopped: Option<String>,
    bar: ProgressBar,
    tally: Tally,
}

impl RunDispatch<'_> {
    fn on_event(&self, e: SubmitEvent) {
        let t = &self.tally;
        match e {
            SubmitEvent::Sent => {
                t.sent.fetch_add(1, Ordering::Relaxed);
            }
            SubmitEvent::Accepted => {
                t.accepted.fetch_add(1, Ordering::Relaxed);
                self.bar.inc(1);
            }
            SubmitEvent::Rejected => {
                t.rejected.fetch_add(1, Ordering::Relaxed);
                self.bar.inc(1);
            }
            SubmitEvent::Retrying { .. } => {
                t.retrying.fetch_add(1, Ordering::Relaxed);
            }
            SubmitEvent::Paused { reason, .. } => self.bar.println(format!("paused: {reason}")),
            SubmitEvent::Resumed => self.bar.println("resumed"),
            SubmitEvent::Failed => self.bar.inc(1),
        }
        self.bar.set_message(format!(
            "sent {}, accepted {}, rejected {}, repeats {}",
            t.sent.load(Ordering::Relaxed),
            t.accepted.load(Ordering::Relaxed),
            t.rejected.load(Ordering::Relaxed),
            t.retrying.load(Ordering::Relaxed)
        ));
    }
}

fn render(m: &Message) -> String {
    match &m.code {
        Some(code) if !code.is_empty() => format!("{code}: {}", m.message),
        _ => m.message.clone(),
    }
}

fn codes(ms: &[Message]) -> Vec<String> {
    ms.iter()
        .filter_map(|m| m.code.clone())
        .filter(|c| !c.is_empty())
        .collect()
}

/// The verdict of one outcome.
fn verdict(outcome: Outcome) -> Verdict {
    match outcome {
        Outcome::Accepted { response, attempts, .. } => Verdict {
            status: Some(RowStatus::Accepted),
            uuid: response.id.clone().unwrap_or_default(),
            qr: response.qr_code.clone().unwrap_or_default(),
            warnings: response.warnings.0.iter().map(render).collect(),
            codes: codes(&response.warnings.0),
            attempts,
            response: Some(response),
            ..Verdict::default()
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
        Outcome::Conflict { message, .. } => Verdict {
            status: Some(RowStatus::Rejected),
            errors: vec![format!("{}: {message}", crate::submit::CONFLICT_CODE)],
            codes: vec![crate::submit::CONFLICT_CODE.to_string()],
            ..Verdict::default()
        },
        Outcome::Failed { reason, attempts, .. } => Verdict {
            status: Some(RowStatus::Failed),
            errors: vec![format!(
                "INV-SUBMIT-UNKNOWN: {reason}; the next run repeats it with the same idempotency key"
            )],
            codes: vec!["INV-SUBMIT-UNKNOWN".into()],
            attempts,
            ..Verdict::default()
        },
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
        if let Some(reason) = &self.stopped {
            return docs.iter().map(|_| stopped_verdict(reason)).collect();
        }
        let n = docs.len();
        self.bar.inc_length(n as u64);
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
                        *slot = Some(verdict(o));
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
                self.stopped = Some(reason.clone());
                (0..n).map(|_| stopped_verdict(&reason)).collect()
            }
        }
    }
}

fn progress_bar(cli: &Cli) -> ProgressBar {
    let bar = ProgressBar::new(0);
    if cli.quiet || cli.json || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    } else {
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {pos}/{len} documents answered [{elapsed_precise}, {per_sec}, {eta} left] {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar
}

/// Run `invoicedrop run`.
pub fn run(args: RunArgs, cli: &Cli) -> anyhow::Result<Status> {
    let config = Config::load(args.input.config.as_deref())?;
    let (seller, _) = config.seller();
    let rt = api::runtime()?;
    let conn = api::connect(&rt, &args.api, &seller)?;
    let ledger = Ledger::open(&conn.ledger_dir)?;
    let onboard_id = api::device(&rt, &conn, &ledger, &seller)?;
    let submitter = rt
        .block_on(Submitter::connect(conn.settings.clone(), onboard_id, ledger))
        .context("cannot start sending")?;
    let bar = progress_bar(cli);
    let mut dispatch = RunDispatch {
        rt: &rt,
        submitter: &submitter,
        stopped: None,
        bar,
        tally: Tally::default(),
    };
    let resumed = rt
        .block_on(submitter.resume_unresolved(|e| dispatch.on_event(e)))
        .context("cannot finish the documents an earlier run left unanswered")?;
    if !resumed.is_empty() && !cli.quiet {
        eprintln!(
            "note: {} document(s) left without a final answer by an earlier run were repeated with their original idempotency key",
            resumed.len()
        );
    }
    let mut status = check::process(&args.paths, &args.input, &config, Utc::now(), cli, Some(&mut dispatch))?;
    dispatch.bar.finish_and_clear();
    if let Some(reason) = &dispatch.stopped {
        eprintln!("error: the run stopped: {reason}");
        status = Status::Error;
    }
    if let Some(sandbox) = conn.sandbox {
        rt.block_on(sandbox.shutdown());
    }
    Ok(status)
}

//! The life of one document: admission (pause, breaker, rate limit), token, ledger
//! `in_flight`, request, answer, ledger record, and what comes next (the order of sending is
//! [`order`](super::order)).

use super::client::{AuthFailure, Reply};
use super::earlier::{conflict_message, elsewhere_message, issued_document, parse_response};
use super::ledger::{Decision, LedgerState, RecordAck, Replacement};
use super::retry::{self, Probe, Transition};
use super::submitter::Shared;
use super::{Outcome, SubmitError, SubmitEvent};
use crate::model::DocumentKind;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::Poll;

mod doc;

use doc::{Doc, gave_up_on, unread};

/// 429 answers one document may get in a run before it is given up (for this run).
const MAX_THROTTLED: u32 = 50;

/// One document to settle.
pub(crate) struct Job {
    pub(crate) slot: usize,
    pub(crate) tag: u64,
    pub(crate) kind: DocumentKind,
    pub(crate) number: String,
    pub(crate) idempotency_key: String,
    pub(crate) decision: Decision,
}

/// Run futures side by side on the current task until all are done.
pub(crate) async fn join_all<F: Future<Output = ()>>(futures: Vec<F>) {
    let mut slots: Vec<Option<Pin<Box<F>>>> = futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for slot in slots.iter_mut() {
            if let Some(f) = slot {
                if f.as_mut().poll(cx).is_ready() {
                    *slot = None;
                } else {
                    pending = true;
                }
            }
        }
        if pending { Poll::Pending } else { Poll::Ready(()) }
    })
    .await
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

enum Admission<'a> {
    Go(Option<Probe<'a>>),
    GaveUp,
    Stopped,
    /// A stop was asked for ([`Halt`](super::Halt)): nothing more is sent.
    Halted,
}

/// One batch of jobs worked by `concurrency` workers.
pub(crate) struct Run<'a> {
    shared: &'a Shared,
    on_event: &'a (dyn Fn(SubmitEvent) + Send + Sync),
    queue: Mutex<VecDeque<Job>>,
    done: Mutex<Vec<(usize, Outcome)>>,
    acks: Mutex<Vec<RecordAck>>,
    stop: Mutex<Option<SubmitError>>,
    paused: AtomicBool,
}

impl<'a> Run<'a> {
    pub(crate) fn new(
        shared: &'a Shared,
        on_event: &'a (dyn Fn(SubmitEvent) + Send + Sync),
        jobs: Vec<Job>,
    ) -> Run<'a> {
        Run {
            shared,
            on_event,
            queue: Mutex::new(jobs.into()),
            done: Mutex::new(Vec::new()),
            acks: Mutex::new(Vec::new()),
            stop: Mutex::new(None),
            paused: AtomicBool::new(false),
        }
    }

    /// Work every job; the outcomes by slot, or the error that stopped the run. Returns only
    /// after every recorded answer is committed.
    pub(crate) async fn execute(self) -> Result<Vec<(usize, Outcome)>, SubmitError> {
        let workers = self.shared.concurrency.min(lock(&self.queue).len()).max(1);
        join_all((0..workers).map(|_| self.worker()).collect()).await;
        let acks = std::mem::take(&mut *lock(&self.acks));
        let mut ledger_error = None;
        for ack in acks {
            if let Err(e) = ack.committed().await {
                ledger_error.get_or_insert(e);
            }
        }
        if let Some(e) = lock(&self.stop).take() {
            return Err(e);
        }
        if let Some(e) = ledger_error {
            return Err(SubmitError::Ledger(e));
        }
        let done = std::mem::take(&mut *lock(&self.done));
        self.warn_unsettled(&done);
        Ok(done)
    }

    /// One warning for the documents of this batch left without a final answer (each one's
    /// reason is in the results, and in the log at `-vv`); while the API is given up on, one per
    /// outage, not one per batch.
    fn warn_unsettled(&self, done: &[(usize, Outcome)]) {
        let Some(left) = doc::Unsettled::of(done.iter().map(|(_, o)| o)) else {
            return;
        };
        let breaker = &self.shared.breaker;
        let message = left.message(breaker.gave_up().then(|| breaker.down_for()), self.shared.later());
        if breaker.gave_up() {
            let outage = breaker.outage();
            if self.shared.warned_outage.swap(outage, Ordering::SeqCst) == outage {
                tracing::info!("{message}");
                return;
            }
        }
        tracing::warn!("{message}");
    }

    fn emit(&self, event: SubmitEvent) {
        (self.on_event)(event);
    }

    fn stopped(&self) -> bool {
        lock(&self.stop).is_some()
    }

    fn halt(&self, error: SubmitError) {
        tracing::error!(error = %error, "stopping the run");
        lock(&self.stop).get_or_insert(error);
    }

    async fn worker(&self) {
        loop {
            if self.stopped() {
                return;
            }
            let Some(job) = lock(&self.queue).pop_front() else {
                return;
            };
            let slot = job.slot;
            let outcome = self.settle(job).await;
            self.emit(match &outcome {
                Outcome::Accepted { .. } => SubmitEvent::Accepted,
                Outcome::Conflict { .. } => SubmitEvent::Conflict,
                Outcome::Rejected { .. } => SubmitEvent::Rejected,
                Outcome::Failed { .. } => SubmitEvent::Failed,
            });
            lock(&self.done).push((slot, outcome));
        }
    }

    async fn settle(&self, job: Job) -> Outcome {
        match job.decision {
            Decision::Done(e) => {
                let raw = e.response.clone().unwrap_or_default();
                Outcome::Accepted {
                    tag: job.tag,
                    response: parse_response(&raw),
                    raw,
                    attempts: e.attempts,
                    // Accepted earlier, unless this run's resume is what sent it.
                    from_ledger: !self.shared.resumed_here(job.kind, &job.number),
                    accepted_at: Some(e.updated_at.clone()),
                }
            }
            Decision::Conflict(e) => {
                let raw = e.response.clone().unwrap_or_default();
                Outcome::Conflict {
                    tag: job.tag,
                    message: conflict_message(
                        job.kind,
                        &job.number,
                        e.uuid.as_deref(),
                        &e.updated_at,
                        (e.key.onboard_id != self.shared.onboard_id).then_some(e.key.onboard_id.as_str()),
                    ),
                    response: parse_response(&raw),
                    raw,
                    issued: issued_document(&e.body),
                    attempts: e.attempts,
                    accepted_at: Some(e.updated_at.clone()),
                    // Issued earlier, unless this run's resume is what sent it.
                    from_ledger: !self.shared.resumed_here(job.kind, &job.number),
                }
            }
            // Maybe issued through the other device.
            Decision::Elsewhere(e) => Outcome::Failed {
                tag: job.tag,
                reason: elsewhere_message(job.kind, &job.number, &e),
                attempts: 0,
                sent: true,
                halted: false,
            },
            Decision::Send {
                body,
                attempts,
                replacement,
                sent,
            } => {
                let Job {
                    tag,
                    kind,
                    number,
                    idempotency_key,
                    ..
                } = job;
                let doc = Doc {
                    tag,
                    kind,
                    number,
                    idempotency_key,
                    url: self.shared.client.document_url(&self.shared.onboard_id, kind),
                    later: self.shared.later(),
                };
                self.send(&doc, body, attempts, replacement, sent).await
            }
        }
    }

    /// Wait until a request may go: the breaker's probe slot and time while the API is down,
    /// a 429's pause, the rate limit. Every wait ends at once when a stop is asked for.
    async fn admit(&self) -> Admission<'a> {
        let breaker = &self.shared.breaker;
        let halt = &self.shared.halt;
        loop {
            if self.stopped() {
                return Admission::Stopped;
            }
            if halt.is_raised() {
                return Admission::Halted;
            }
            if breaker.is_down() {
                if breaker.gave_up() {
                    return Admission::GaveUp;
                }
                match halt.unless_raised(breaker.probe()).await {
                    None => return Admission::Halted,
                    Some(Some(probe)) => {
                        if halt.unless_raised(self.shared.rate.admit()).await.is_none() {
                            return Admission::Halted;
                        }
                        return Admission::Go(Some(probe));
                    }
                    Some(None) => continue,
                }
            }
            if halt.unless_raised(self.shared.rate.admit()).await.is_none() {
                return Admission::Halted;
            }
            if breaker.is_down() {
                continue;
            }
            if self.paused.swap(false, Ordering::Relaxed) {
                self.emit(SubmitEvent::Resumed);
            }
            return Admission::Go(None);
        }
    }

    fn breaker_event(&self, transition: Transition) {
        match transition {
            Transition::None => {}
            Transition::Down(until) => {
                self.paused.store(true, Ordering::Relaxed);
                self.emit(SubmitEvent::Paused {
                    until,
                    reason: format!(
                        "the API does not answer; probing one request at a time ({} probes failed so far)",
                        self.shared.breaker.failed_probes()
                    ),
                });
            }
            Transition::Up => {
                self.paused.store(false, Ordering::Relaxed);
                self.emit(SubmitEvent::Resumed);
            }
        }
    }

    /// Handle an authentication failure in the middle of a run: `Err` when the run must stop.
    fn auth_failed(&self, failure: AuthFailure) -> Result<String, ()> {
        let url = self.shared.client.auth_url();
        match failure {
            AuthFailure::Rejected { detail } => {
                self.halt(SubmitError::CredentialsRejected { url, detail });
                Err(())
            }
            AuthFailure::Refused { status, message } => {
                self.halt(SubmitError::Api {
                    url,
                    what: "auth",
                    status,
                    message,
                });
                Err(())
            }
            AuthFailure::Transient { reason } | AuthFailure::Unreachable { reason } => {
                Ok(format!("getting a new token failed: {reason}"))
            }
        }
    }

    /// Send one document until it has a final answer, the run stops, or the tries run out. `sent`:
    /// whether a request for it may have reached the API before (an earlier run's, left without a
    /// final answer); kept up to date with each request, it says whether the document may be
    /// issued when it ends without a final answer.
    async fn send(
        &self,
        doc: &Doc,
        mut body: Vec<u8>,
        mut attempts: u32,
        mut replacement: Option<Replacement>,
        mut sent: bool,
    ) -> Outcome {
        let shared = self.shared;
        let max_attempts = shared.client.settings().max_attempts.max(1);
        let mut delays = retry::delays(shared.client.settings().backoff);
        let mut unknowns = 0u32;
        let mut throttled = 0u32;
        let mut unauthorized_in_a_row = 0u32;
        let mut store_replacement: Option<Replacement> = None;
        let mut last_reason = String::new();
        loop {
            let probe = match self.admit().await {
                Admission::Go(p) => p,
                Admission::Stopped => return doc.failed("the run stopped", attempts, sent),
                Admission::Halted => return doc.halted(attempts, &last_reason, sent),
                Admission::GaveUp => {
                    let down = format!(
                        "the API at {} stopped answering ({} s without an answer, {} probes failed)",
                        shared.client.settings().base_url,
                        shared.breaker.down_for().as_secs(),
                        shared.breaker.failed_probes(),
                    );
                    return doc.failed(&gave_up_on(&down, sent, &last_reason), attempts, sent);
                }
            };
            let was_probe = probe.is_some();
            // Asked after every wait (backoff, pause, limiter), so it is never about to expire.
            // An authentication left unfinished by a stop has no effect at the API.
            let b = match shared.halt.unless_raised(shared.tokens.bearer()).await {
                None => return doc.halted(attempts, &last_reason, sent),
                Some(Ok(b)) => b,
                Some(Err(f)) => {
                    let refused = matches!(f, AuthFailure::Unreachable { .. });
                    let Ok(reason) = self.auth_failed(f) else {
                        return doc.failed("the run stopped", attempts, sent);
                    };
                    self.breaker_event(shared.breaker.unanswered(refused, was_probe));
                    drop(probe);
                    unknowns += 1;
                    if unknowns >= max_attempts {
                        return doc.failed(&reason, attempts, sent);
                    }
                    self.emit(SubmitEvent::Retrying { reason: reason.clone() });
                    last_reason = reason;
                    // Ended by a stop: the next admission says so.
                    shared
                        .halt
                        .unless_raised(tokio::time::sleep(delays.next().unwrap_or_default()))
                        .await;
                    continue;
                }
            };
            if shared.halt.is_raised() {
                return doc.halted(attempts, &last_reason, sent);
            }
            attempts = match shared
                .ledger
                .mark_sending(&doc.idempotency_key, store_replacement.take())
                .await
            {
                Ok(n) => n,
                Err(e) => {
                    self.halt(SubmitError::Ledger(e));
                    return doc.failed("the ledger could not be written", attempts, sent);
                }
            };
            self.emit(SubmitEvent::Sent);
            tracing::debug!(kind = %doc.kind, number = %doc.number, attempt = attempts, "sending");
            let reply = shared
                .client
                .post_document(&doc.url, &b.header, &doc.idempotency_key, body.clone())
                .await;
            if !matches!(reply, Reply::Unknown { .. }) {
                self.breaker_event(shared.breaker.answered());
            }
            if !matches!(reply, Reply::Unauthorized) {
                unauthorized_in_a_row = 0;
            }
            match reply {
                Reply::Accepted { status, response, raw } => {
                    shared.rate.succeeded();
                    tracing::debug!(number = %doc.number, status, attempt = attempts, "accepted");
                    let accepted_at = self.record(
                        doc,
                        LedgerState::Accepted,
                        Some(status),
                        Some(raw.clone()),
                        response.id.clone(),
                    );
                    if replacement.is_some() {
                        // The interrupted earlier request was issued: the new content is a conflict.
                        return Outcome::Conflict {
                            tag: doc.tag,
                            message: conflict_message(
                                doc.kind,
                                &doc.number,
                                response.id.as_deref(),
                                "in this run",
                                None,
                            ),
                            response,
                            raw,
                            issued: issued_document(&body),
                            attempts,
                            accepted_at: Some(accepted_at),
                            from_ledger: false,
                        };
                    }
                    return Outcome::Accepted {
                        tag: doc.tag,
                        response,
                        raw,
                        attempts,
                        from_ledger: false,
                        // The time the ledger keeps: a rerun reports the same `result_time`.
                        accepted_at: Some(accepted_at),
                    };
                }
                Reply::Rejected { status, response, raw } => {
                    shared.rate.succeeded();
                    tracing::debug!(number = %doc.number, status, attempt = attempts, "rejected");
                    self.record(doc, LedgerState::Rejected, Some(status), Some(raw.clone()), None);
                    if let Some(r) = replacement.take() {
                        // The earlier content was refused: now send the new content, which is
                        // not at the API yet.
                        body = r.body.clone();
                        store_replacement = Some(r);
                        unknowns = 0;
                        sent = false;
                        continue;
                    }
                    return Outcome::Rejected {
                        tag: doc.tag,
                        http_status: status,
                        response,
                        raw,
                        attempts,
                    };
                }
                Reply::Unauthorized => {
                    self.record(doc, unread(sent), Some(401), None, None);
                    unauthorized_in_a_row += 1;
                    if unauthorized_in_a_row >= 2 {
                        self.halt(SubmitError::CredentialsRejected {
                            url: shared.client.auth_url(),
                            detail: "a document request was refused with 401 twice in a row, the second time with a \
                                     fresh token"
                                .into(),
                        });
                        return doc.failed("credentials rejected", attempts, sent);
                    }
                    tracing::debug!(number = %doc.number, "401: new token, then repeat once");
                    // The next round's `bearer()` hands out the new token.
                    // A stop in the meantime: the next admission says so.
                    if let Some(Err(f)) = shared.halt.unless_raised(shared.tokens.after_unauthorized(&b)).await
                        && self.auth_failed(f).is_err()
                    {
                        return doc.failed("the run stopped", attempts, sent);
                    }
                }
                Reply::UnknownDevice => {
                    self.record(doc, unread(sent), Some(404), None, None);
                    self.halt(SubmitError::UnknownDevice {
                        onboard_id: shared.onboard_id.clone(),
                        url: doc.url.clone(),
                    });
                    return doc.failed("the API does not know this device", attempts, sent);
                }
                Reply::RateLimited { retry_after } => {
                    self.record(doc, unread(sent), Some(429), None, None);
                    let t = shared.rate.throttled(retry_after);
                    if let Some(rate) = t.lowered_to {
                        tracing::info!(rate, "429 from the API: rate limit lowered");
                    }
                    if t.extended {
                        self.paused.store(true, Ordering::Relaxed);
                        self.emit(SubmitEvent::Paused {
                            until: t.until,
                            reason: "the API asked to slow down (429)".into(),
                        });
                    }
                    throttled += 1;
                    last_reason = "HTTP 429 Too Many Requests".into();
                    if throttled > MAX_THROTTLED {
                        let cause = format!("the API turned it away with 429 Too Many Requests {throttled} times");
                        return doc.failed(&cause, attempts, sent);
                    }
                }
                Reply::Unknown {
                    reason,
                    status,
                    raw,
                    not_sent,
                } => {
                    self.breaker_event(shared.breaker.unanswered(not_sent, was_probe));
                    sent |= !not_sent;
                    self.record(doc, unread(sent), status, raw, None);
                    tracing::debug!(number = %doc.number, attempt = attempts, reason = %reason, "no final answer");
                    unknowns += 1;
                    if unknowns >= max_attempts {
                        let cause = if sent {
                            format!("no final answer after {unknowns} tries (last: {reason}); the outcome is unknown")
                        } else {
                            format!(
                                "no request for it got through in {}, the last: {reason}",
                                crate::text::count_of(u64::from(unknowns), "try", "tries")
                            )
                        };
                        return doc.failed(&cause, attempts, sent);
                    }
                    self.emit(SubmitEvent::Retrying { reason: reason.clone() });
                    last_reason = reason;
                    drop(probe);
                    // Ended by a stop: the next admission says so.
                    shared
                        .halt
                        .unless_raised(tokio::time::sleep(delays.next().unwrap_or_default()))
                        .await;
                }
            }
        }
    }

    /// Record an answer; returns when it came, as the ledger keeps it.
    fn record(
        &self,
        doc: &Doc,
        state: LedgerState,
        status: Option<u16>,
        raw: Option<Vec<u8>>,
        uuid: Option<String>,
    ) -> String {
        let (ack, at) = self
            .shared
            .ledger
            .record(&doc.idempotency_key, state, status, raw, uuid);
        lock(&self.acks).push(ack);
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn join_all_runs_side_by_side() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let waits = async move {
            rx.await.unwrap();
        };
        let sends = async move {
            tx.send(()).unwrap();
        };
        // The first future can only finish because the second runs alongside it.
        let futures: Vec<Pin<Box<dyn Future<Output = ()> + Send>>> = vec![Box::pin(waits), Box::pin(sends)];
        join_all(futures).await;
    }
}

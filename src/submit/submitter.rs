//! The public face: [`Submitter`] (connect once, then submit batches) and [`onboard`].

use super::client::{ApiClient, AuthFailure, failure_text};
use super::exported::{as_exported_hash, same_as_exported};
use super::halt::Halt;
use super::later::Later;
use super::ledger::{BeginItem, Decision, DocumentKey, Ledger, content_hash, idempotency_key};
use super::limit::RateControl;
use super::order::{PassKey, SortKey, dispatch_order, passes, referenced_number};
use super::retry::{self, Breaker};
use super::schedule::{Job, Run};
use super::token::{Bearer, TokenManager};
use super::{ApiSettings, Outcome, Outgoing, SubmitError, SubmitEvent};
use crate::model::{OnboardingRequest, OnboardingResponse};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Tries of the first authentication when the API answers 5xx/429 or times out.
const CONNECT_TRIES: u32 = 3;

/// What every run of one submitter shares.
pub(crate) struct Shared {
    pub(crate) client: Arc<ApiClient>,
    pub(crate) tokens: TokenManager,
    pub(crate) rate: RateControl,
    pub(crate) breaker: Breaker,
    pub(crate) ledger: Ledger,
    pub(crate) onboard_id: String,
    pub(crate) concurrency: usize,
    /// Raised to stop sending (the watcher's SIGTERM): no request starts after it.
    pub(crate) halt: Halt,
    /// The documents (kind, number) an earlier run left without a final answer that this
    /// submitter repeated and saw accepted ([`Submitter::resume_unresolved`]): sent by this
    /// run, so not "issued before" when the export's document is then found accepted.
    pub(crate) resumed: std::sync::Mutex<std::collections::HashSet<(crate::model::DocumentKind, String)>>,
    /// Set by [`Submitter::only_one_probe`]: batches do not wait again for an API given up on.
    pub(crate) probe_once: AtomicBool,
    /// Set by [`Submitter::for_watch`]: documents left without a final answer say what the
    /// watcher does with them, not what the next run does.
    pub(crate) watching: AtomicBool,
    /// The last outage ([`Breaker::outage`]) whose documents given up on were warned about: one
    /// warning per outage, not one per batch.
    pub(crate) warned_outage: AtomicU64,
}

impl Shared {
    /// Who settles a document left without a final answer.
    pub(crate) fn later(&self) -> Later {
        if self.watching.load(Ordering::SeqCst) {
            Later::Watch
        } else {
            Later::Run
        }
    }

    /// Whether this submitter's resume sent and settled the document (see `resumed`), asked
    /// once: the export's first document of that number is the one the resume sent; another of
    /// the same number later (a file dropped again) was issued before it.
    pub(crate) fn resumed_here(&self, kind: crate::model::DocumentKind, number: &str) -> bool {
        let mut resumed = self.resumed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        !resumed.is_empty() && resumed.remove(&(kind, number.to_string()))
    }
}

/// Sends documents of one device to the API, exactly once. Create it with
/// [`Submitter::connect`]; it can run many batches (watch mode) and keeps one token, one rate
/// limit and one ledger for all of them.
pub struct Submitter {
    shared: Shared,
}

impl fmt::Debug for Submitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Submitter")
            .field("settings", self.shared.client.settings())
            .field("onboard_id", &self.shared.onboard_id)
            .field("ledger", &self.shared.ledger)
            .finish_non_exhaustive()
    }
}

/// Authenticate for the first time, turning each failure into an error that says what to check.
async fn first_token(client: &ApiClient, tokens: &TokenManager) -> Result<Bearer, SubmitError> {
    let settings = client.settings();
    let mut delays = retry::delays(settings.backoff);
    let mut tries = 0;
    loop {
        tries += 1;
        match tokens.bearer().await {
            Ok(b) => return Ok(b),
            Err(AuthFailure::Rejected { detail }) => {
                return Err(SubmitError::CredentialsRejected {
                    url: client.auth_url(),
                    detail,
                });
            }
            Err(AuthFailure::Refused { status, message }) => {
                return Err(SubmitError::Api {
                    url: client.auth_url(),
                    what: "auth",
                    status,
                    message: format!(
                        "{message}. Check INVOICEDROP_API_URL and the auth path, INVOICEDROP_VAT_NUMBER (15 digits) \
                         and INVOICEDROP_USERNAME"
                    ),
                });
            }
            Err(AuthFailure::Unreachable { reason }) => {
                return Err(SubmitError::Unreachable {
                    url: client.auth_url(),
                    detail: reason,
                });
            }
            Err(AuthFailure::Transient { reason }) if tries >= CONNECT_TRIES => {
                return Err(SubmitError::Unreachable {
                    url: client.auth_url(),
                    detail: format!("the auth request failed {tries} times (last: {reason})"),
                });
            }
            Err(AuthFailure::Transient { reason }) => {
                tracing::warn!(reason = %reason, "authentication failed; trying again");
                tokio::time::sleep(delays.next().unwrap_or_default()).await;
            }
        }
    }
}

impl Submitter {
    /// Check the settings and authenticate once, so that a wrong secret or an unreachable API
    /// is reported now rather than in the middle of a run. `onboard_id` is the device's id from
    /// onboarding (D2, D9).
    pub async fn connect(settings: ApiSettings, onboard_id: String, ledger: Ledger) -> Result<Submitter, SubmitError> {
        if onboard_id.trim().is_empty() {
            return Err(SubmitError::Config(
                "no onboard_id: set INVOICEDROP_ONBOARD_ID, or run `invoicedrop onboard` once for this device".into(),
            ));
        }
        let client = Arc::new(ApiClient::new(&settings)?);
        let tokens = TokenManager::new(client.clone());
        first_token(&client, &tokens).await?;
        tracing::info!(
            rate = ?settings.rate(),
            concurrency = settings.concurrency,
            "connected to the API"
        );
        Ok(Submitter {
            shared: Shared {
                rate: RateControl::new(settings.rate()),
                breaker: Breaker::new(settings.backoff),
                concurrency: settings.concurrency.max(1),
                client,
                tokens,
                ledger,
                onboard_id,
                halt: Halt::default(),
                resumed: Default::default(),
                probe_once: AtomicBool::new(false),
                watching: AtomicBool::new(false),
                warned_outage: AtomicU64::new(0),
            },
        })
    }

    /// The handle that stops this submitter's sending ([`Halt::raise`], from a signal handler):
    /// no request starts after it, the waits between requests end at once, and the documents
    /// not settled come back [`Outcome::Failed`] with `halted` set (their ledger rows stay as
    /// they are: the next run sends them, or repeats them with their idempotency key).
    pub fn halt(&self) -> Halt {
        self.shared.halt.clone()
    }

    /// The ledger this submitter writes.
    pub fn ledger(&self) -> &Ledger {
        &self.shared.ledger
    }

    /// The device's onboard_id.
    pub fn onboard_id(&self) -> &str {
        &self.shared.onboard_id
    }

    /// While `on`, batches ([`Submitter::submit_all`], [`Submitter::resume_unresolved`]) do not
    /// wait again for an API given up on: when the last batch gave up waiting, one probe may go
    /// (the first request), and once that fails too every request gives up at once instead of
    /// probing for `give_up_after` again. How the watcher looks whether the API answers again
    /// without holding up its inbox; off again, a batch probes with the usual patience.
    pub fn only_one_probe(&self, on: bool) {
        if on {
            self.shared.breaker.probe_once();
        }
        self.shared.probe_once.store(on, Ordering::SeqCst);
    }

    /// Whether the API stopped answering and the last batch gave up waiting for it (until a
    /// request gets an answer again).
    pub fn gave_up(&self) -> bool {
        self.shared.breaker.gave_up()
    }

    /// Documents left without a final answer say that the watcher settles them (see [`Later`]).
    pub fn for_watch(&self) {
        self.shared.watching.store(true, Ordering::SeqCst);
    }

    /// Start a new give-up scope (the watcher's next file): an API the batches before gave up
    /// waiting for gets the usual `give_up_after` of patience again. Without it, given up lasts
    /// for this submitter's life (a `run`): see [`Submitter::submit_all`].
    pub fn patience_again(&self) {
        self.shared.breaker.rearm();
    }

    /// The breaker at the start of a batch: when an earlier batch gave up waiting, this one's
    /// documents fail at once, unless one probe, when the probes' pace says one is due, gets an
    /// answer. See also [`Submitter::only_one_probe`].
    fn arm(&self) {
        if !self.shared.probe_once.load(Ordering::SeqCst) {
            self.shared.breaker.next_batch();
        }
    }

    /// Who settles a document left without a final answer.
    pub(crate) fn later(&self) -> Later {
        self.shared.later()
    }

    /// Whether this submitter's resume sent the document and saw it accepted.
    pub(crate) fn resumed_here(&self, kind: crate::model::DocumentKind, number: &str) -> bool {
        self.shared.resumed_here(kind, number)
    }

    /// The ledger key of a document of this device.
    pub fn key_of(&self, document: &crate::model::Document) -> DocumentKey {
        DocumentKey {
            onboard_id: self.shared.onboard_id.clone(),
            kind: document.kind,
            number: document.number.clone(),
        }
    }

    /// Submit documents and return one outcome per document, in input order. Documents already
    /// accepted (earlier runs) come back from the ledger without being sent; a number accepted
    /// with other content is a conflict and is not sent. Simplified documents go first, oldest
    /// first (D18).
    ///
    /// Once the API stopped answering for `give_up_after` (see [`Submitter::patience_again`]),
    /// the documents of later batches fail at once (not sent), but for one probe now and then.
    ///
    /// `Err` only for conditions that stop the run: credentials rejected, unknown device, a
    /// ledger that cannot be written. Documents not settled by then stay in the ledger for the
    /// next run.
    pub async fn submit_all(
        &self,
        docs: Vec<Outgoing>,
        on_event: impl Fn(SubmitEvent) + Send + Sync,
    ) -> Result<Vec<Outcome>, SubmitError> {
        let shared = &self.shared;
        self.arm();
        let count = docs.len();
        let mut outcomes: Vec<Option<Outcome>> = (0..count).map(|_| None).collect();
        let tags: Vec<u64> = docs.iter().map(|o| o.tag).collect();
        let mut sort_keys = Vec::with_capacity(count);
        let mut prepared: Vec<Option<(BeginItem, u64)>> = Vec::with_capacity(count);
        let references: Vec<Option<String>> = docs
            .iter()
            .map(|o| {
                o.document
                    .billing_reference
                    .as_deref()
                    .map(|r| referenced_number(r).to_owned())
            })
            .collect();
        // A note's content as its own rows give its billing reference: what was issued with it
        // is this note (see [`as_exported_hash`]).
        let exported: Vec<Option<String>> = docs.iter().map(|o| as_exported_hash(&o.document)).collect();
        for (slot, o) in docs.into_iter().enumerate() {
            let key = self.key_of(&o.document);
            match serde_json::to_vec(&o.document) {
                Ok(body) => {
                    sort_keys.push(Some(SortKey {
                        invoice_type: o.document.invoice_type,
                        issued: (o.document.issue_date, o.document.issue_time),
                    }));
                    prepared.push(Some((
                        BeginItem {
                            idempotency_key: idempotency_key(&key),
                            content_hash: content_hash(&body),
                            key,
                            body,
                            seller_vat: o.document.supplier_info.vat_number.clone(),
                        },
                        o.tag,
                    )));
                }
                Err(e) => {
                    sort_keys.push(None);
                    prepared.push(None);
                    outcomes[slot] = Some(Outcome::Failed {
                        tag: o.tag,
                        reason: format!("not issued: the document cannot be encoded as JSON ({e}), so it was not sent"),
                        attempts: 0,
                        sent: false,
                        halted: false,
                    });
                }
            }
        }
        let pass_keys: Vec<Option<PassKey>> = prepared
            .iter()
            .zip(&references)
            .map(|(p, corrects)| {
                p.as_ref().map(|(item, _)| PassKey {
                    idempotency_key: item.idempotency_key.clone(),
                    kind: item.key.kind,
                    number: item.key.number.clone(),
                    corrects: corrects.clone(),
                })
            })
            .collect();
        for pass in passes(&dispatch_order(&sort_keys), &pass_keys) {
            let mut items = Vec::with_capacity(pass.len());
            let mut meta = Vec::with_capacity(pass.len());
            for &slot in &pass {
                if let Some((item, tag)) = prepared[slot].take() {
                    meta.push((
                        slot,
                        tag,
                        item.key.kind,
                        item.key.number.clone(),
                        item.idempotency_key.clone(),
                    ));
                    items.push(item);
                }
            }
            let decisions = shared.ledger.begin(items).await?;
            let jobs = meta
                .into_iter()
                .zip(decisions)
                .map(|((slot, tag, kind, number, idempotency_key), decision)| Job {
                    slot,
                    tag,
                    kind,
                    number,
                    idempotency_key,
                    decision: same_as_exported(decision, exported[slot].as_deref()),
                })
                .collect();
            for (slot, outcome) in Run::new(shared, &on_event, jobs).execute().await? {
                outcomes[slot] = Some(outcome);
            }
        }
        Ok(outcomes
            .into_iter()
            .enumerate()
            .map(|(slot, o)| {
                // Every slot is filled above; this only guards against a bug. Whether a request
                // for it left is not known: maybe issued.
                o.unwrap_or_else(|| Outcome::Failed {
                    tag: tags[slot],
                    reason: "not settled in this run (internal error); the next run settles it".into(),
                    attempts: 0,
                    sent: true,
                    halted: false,
                })
            })
            .collect())
    }

    /// Settle documents of this device that an earlier run left without a final answer
    /// (`in_flight` or `unknown`): each is repeated with its original idempotency key and stored
    /// body. Call it at start, before new batches; the outcomes carry the position in the returned
    /// list as their tag.
    pub async fn resume_unresolved(
        &self,
        on_event: impl Fn(SubmitEvent) + Send + Sync,
    ) -> Result<Vec<(DocumentKey, Outcome)>, SubmitError> {
        self.resume_up_to(usize::MAX, on_event).await
    }

    /// [`Submitter::resume_unresolved`] for the oldest such document only: how the watcher looks
    /// whether an API given up on answers again, at the cost of one request (and one line in the
    /// log) while it does not, however many documents wait.
    pub async fn resume_oldest(
        &self,
        on_event: impl Fn(SubmitEvent) + Send + Sync,
    ) -> Result<Vec<(DocumentKey, Outcome)>, SubmitError> {
        self.resume_up_to(1, on_event).await
    }

    async fn resume_up_to(
        &self,
        limit: usize,
        on_event: impl Fn(SubmitEvent) + Send + Sync,
    ) -> Result<Vec<(DocumentKey, Outcome)>, SubmitError> {
        let shared = &self.shared;
        self.arm();
        let mut entries = shared.ledger.unresolved_async(&shared.onboard_id).await?;
        entries.truncate(limit);
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        tracing::info!(count = entries.len(), "repeating documents left without a final answer");
        let keys: Vec<DocumentKey> = entries.iter().map(|e| e.key.clone()).collect();
        let jobs = entries
            .into_iter()
            .enumerate()
            .map(|(slot, e)| Job {
                slot,
                tag: slot as u64,
                kind: e.key.kind,
                number: e.key.number.clone(),
                idempotency_key: e.idempotency_key,
                decision: Decision::Send {
                    body: e.body,
                    attempts: e.attempts,
                    replacement: None,
                    // `in_flight` or `unknown`: maybe at the API.
                    sent: true,
                },
            })
            .collect();
        let mut outcomes: Vec<Option<Outcome>> = keys.iter().map(|_| None).collect();
        for (slot, outcome) in Run::new(shared, &on_event, jobs).execute().await? {
            if let (Outcome::Accepted { .. }, Some(k)) = (&outcome, keys.get(slot)) {
                let mut resumed = shared.resumed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                resumed.insert((k.kind, k.number.clone()));
            }
            outcomes[slot] = Some(outcome.with_tag(slot as u64));
        }
        Ok(keys
            .into_iter()
            .zip(outcomes)
            .filter_map(|(k, o)| o.map(|o| (k, o)))
            .collect())
    }
}

/// Onboard a device (api.md 4.2): authenticate, then register it. The returned onboard_id is for
/// [`Ledger::remember_device`] (D9). The request is not repeated on a network failure: an
/// onboarding whose answer was lost may have been registered (a second try then answers 409).
pub async fn onboard(settings: &ApiSettings, request: OnboardingRequest) -> Result<OnboardingResponse, SubmitError> {
    let client = Arc::new(ApiClient::new(settings)?);
    let tokens = TokenManager::new(client.clone());
    let mut bearer = first_token(&client, &tokens).await?;
    let url = client.onboarding_url();
    let body = serde_json::to_vec(&request)
        .map_err(|e| SubmitError::Config(format!("cannot encode the onboarding request: {e}")))?;
    let api = |status: u16, message: String| SubmitError::Api {
        url: url.clone(),
        what: "onboarding",
        status,
        message,
    };
    for attempt in 0..2 {
        let (status, raw) = client
            .post_raw(&url, &bearer.header, body.clone())
            .await
            .map_err(|reason| SubmitError::Unreachable {
                url: url.clone(),
                detail: format!(
                    "{reason} (the device may or may not be onboarded now; if onboarding again answers 409, it is)"
                ),
            })?;
        let text = || failure_text(status, &raw);
        return match status {
            200..=299 => parse_onboarding(&raw).ok_or_else(|| {
                api(
                    status,
                    "the answer carried no onboard_id; check the onboarding path".into(),
                )
            }),
            401 if attempt == 0 => {
                bearer = tokens.after_unauthorized(&bearer).await.map_err(|f| match f {
                    AuthFailure::Rejected { detail } => SubmitError::CredentialsRejected {
                        url: client.auth_url(),
                        detail,
                    },
                    other => api(401, format!("re-authentication failed: {other:?}")),
                })?;
                continue;
            }
            401 => Err(SubmitError::CredentialsRejected {
                url: url.clone(),
                detail: "the onboarding request was refused with 401 twice in a row".into(),
            }),
            400 => Err(api(
                status,
                format!(
                    "{}. The OTP is invalid or expired: get a new OTP and onboard again",
                    text()
                ),
            )),
            409 => Err(api(
                status,
                format!(
                    "{}. This device_id is already onboarded for this VAT number: use the onboard_id of its first \
                     onboarding (INVOICEDROP_ONBOARD_ID or the state folder), or onboard with another device id",
                    text()
                ),
            )),
            404 => Err(api(
                status,
                format!("{}. Check the API URL and the onboarding path", text()),
            )),
            _ => Err(api(status, text())),
        };
    }
    Err(api(
        401,
        "the onboarding request was refused with 401 twice in a row".into(),
    ))
}

/// Read an onboarding answer tolerantly: `onboard_id` (or `onboardId`), `status` default `success`.
fn parse_onboarding(raw: &[u8]) -> Option<OnboardingResponse> {
    let v: Value = serde_json::from_slice(raw).ok()?;
    let id = v
        .get("onboard_id")
        .or_else(|| v.get("onboardId"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())?;
    Some(OnboardingResponse {
        onboard_id: id.to_string(),
        status: v.get("status").and_then(Value::as_str).unwrap_or("success").to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onboarding_answers_are_read_tolerantly() {
        let r = parse_onboarding(br#"{"onboard_id":"YWJj+/=","status":"success"}"#).unwrap();
        assert_eq!(r.onboard_id, "YWJj+/=");
        assert_eq!(parse_onboarding(br#"{"onboardId":"x"}"#).unwrap().status, "success");
        assert!(parse_onboarding(br#"{"status":"success"}"#).is_none());
        assert!(parse_onboarding(b"<html>").is_none());
    }
}

//! The crash-safe ledger: `<state>/ledger.sqlite`, one row per document (onboard_id, kind,
//! number) with its idempotency key, the exact body bytes and their hash, its state, attempts,
//! last HTTP status, raw answer and UUID.
//!
//! A request is recorded as `in_flight` (attempts + 1, committed) before it leaves and with its
//! answer after it returns. On a later run an accepted document is never sent again; one left
//! `in_flight` or `unknown` is repeated with its original key and stored body. The folder is
//! locked (`<state>/lock`) for as long as the ledger is open, so two processes never share it.

mod error;
mod issued;
mod peek;
mod store;

pub use error::LedgerError;

use crate::model::{DeviceType, DocumentKind};
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Sender, channel, sync_channel};
use std::thread::JoinHandle;
use store::{Answer, Op, ReplyTo, Request, Store};

/// Identifies a document at the API: device, kind and number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocumentKey {
    /// The device's onboard_id.
    pub onboard_id: String,
    /// Invoice, credit note or debit note.
    pub kind: DocumentKind,
    /// The document number.
    pub number: String,
}

/// The `Idempotency-Key` of a document (D17): hex SHA-256 of
/// `<onboard_id>\n<kind>\n<number>` (kind `invoice`, `credit_note` or `debit_note`). It depends
/// on nothing else, so every repeat of a document carries the same key.
pub fn idempotency_key(key: &DocumentKey) -> String {
    let mut h = Sha256::new();
    h.update(key.onboard_id.as_bytes());
    h.update(b"\n");
    h.update(store::kind_name(key.kind).as_bytes());
    h.update(b"\n");
    h.update(key.number.as_bytes());
    hex::encode(h.finalize())
}

/// Hex SHA-256 of a body.
pub(crate) fn content_hash(body: &[u8]) -> String {
    hex::encode(Sha256::digest(body))
}

/// Where a document stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LedgerState {
    /// Registered, not sent (or refused with 429/401, so not processed).
    Pending,
    /// A request left and no answer was recorded: maybe processed.
    InFlight,
    /// Issued.
    Accepted,
    /// Refused by the API; new content may be sent under the same number.
    Rejected,
    /// Sent, and no final answer came (5xx, timeout, reset): maybe processed.
    Unknown,
}

impl LedgerState {
    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            LedgerState::Pending => "pending",
            LedgerState::InFlight => "in_flight",
            LedgerState::Accepted => "accepted",
            LedgerState::Rejected => "rejected",
            LedgerState::Unknown => "unknown",
        }
    }

    /// No final answer yet: registered and not sent, or sent and maybe processed.
    pub fn is_open(self) -> bool {
        matches!(
            self,
            LedgerState::Pending | LedgerState::InFlight | LedgerState::Unknown
        )
    }

    /// The state of its stored text.
    pub fn parse(text: &str) -> Option<LedgerState> {
        [
            LedgerState::Pending,
            LedgerState::InFlight,
            LedgerState::Accepted,
            LedgerState::Rejected,
            LedgerState::Unknown,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// One document's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    /// Device, kind, number.
    pub key: DocumentKey,
    /// The key sent with every request for it.
    pub idempotency_key: String,
    /// Hex SHA-256 of `body`.
    pub content_hash: String,
    /// The exact bytes sent (or to send).
    pub body: Vec<u8>,
    /// Where it stands.
    pub state: LedgerState,
    /// Requests sent, over all runs.
    pub attempts: u32,
    /// The HTTP status of the last answer.
    pub last_status: Option<u16>,
    /// The raw bytes of the last answer.
    pub response: Option<Vec<u8>>,
    /// The UUID the API assigned (accepted documents).
    pub uuid: Option<String>,
    /// When first registered (RFC 3339, UTC).
    pub created_at: String,
    /// When last changed.
    pub updated_at: String,
    /// When the last request left.
    pub last_sent_at: Option<String>,
}

/// The meta key of the remembered onboard_id (the only one earlier versions wrote).
const META_ONBOARD_ID: &str = "onboard_id";
/// The meta key of the remembered device: [`DeviceRecord`] as JSON.
const META_DEVICE: &str = "device";

/// A device as onboarding registered it: what the state folder remembers (D9), and what each
/// document is checked against before it is sent (D7, D21).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnboardedDevice {
    /// The onboard_id the API returned (opaque, D2).
    pub onboard_id: String,
    /// The VAT number it was onboarded under.
    pub vat_number: String,
    /// The documents it may issue.
    pub invoice_type: DeviceType,
}

/// What a state folder remembers of its device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RememberedDevice {
    /// The device, with its VAT number and invoice type.
    Known(OnboardedDevice),
    /// Only the onboard_id: the device was onboarded by a version that kept nothing else.
    OnboardIdOnly(String),
}

impl RememberedDevice {
    /// The onboard_id.
    pub fn onboard_id(&self) -> &str {
        match self {
            RememberedDevice::Known(d) => &d.onboard_id,
            RememberedDevice::OnboardIdOnly(id) => id,
        }
    }
}

/// The stored form of an [`OnboardedDevice`].
#[derive(serde::Serialize, serde::Deserialize)]
struct DeviceRecord {
    onboard_id: String,
    vat_number: String,
    invoice_type: DeviceType,
}

/// The device a stored [`DeviceRecord`] describes, when it is `onboard_id`'s.
fn device_of(json: &str, onboard_id: &str) -> Option<OnboardedDevice> {
    let r = serde_json::from_str::<DeviceRecord>(json).ok()?;
    (r.onboard_id == onboard_id).then_some(OnboardedDevice {
        onboard_id: r.onboard_id,
        vat_number: r.vat_number,
        invoice_type: r.invoice_type,
    })
}

/// Counts of documents per state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LedgerStats {
    /// Registered, not sent.
    pub pending: u64,
    /// Sent, no answer recorded.
    pub in_flight: u64,
    /// Issued.
    pub accepted: u64,
    /// Refused.
    pub rejected: u64,
    /// No final answer.
    pub unknown: u64,
}

/// A document being registered for submission.
pub(crate) struct BeginItem {
    pub(crate) key: DocumentKey,
    pub(crate) idempotency_key: String,
    pub(crate) content_hash: String,
    pub(crate) body: Vec<u8>,
    /// The document's seller VAT number: a number another device of the same seller issued (or
    /// maybe issued) is not sent again.
    pub(crate) seller_vat: Option<String>,
}

/// Content to send once an unresolved earlier request is settled as rejected.
#[derive(Debug, Clone)]
pub(crate) struct Replacement {
    pub(crate) content_hash: String,
    pub(crate) body: Vec<u8>,
}

/// What to do with a registered document.
#[derive(Debug)]
pub(crate) enum Decision {
    /// Accepted earlier with this content: report it.
    Done(Box<LedgerEntry>),
    /// Accepted earlier with other content: do not send.
    Conflict(Box<LedgerEntry>),
    /// Sent earlier through another device of this state folder, with no final answer recorded:
    /// maybe issued, so not sent through this one.
    Elsewhere(Box<LedgerEntry>),
    /// Send `body`; for a document that was maybe processed, `body` is the stored one and
    /// `replacement` the new content, to send only if the stored one turns out rejected.
    Send {
        body: Vec<u8>,
        attempts: u32,
        replacement: Option<Replacement>,
        /// Whether a request for this document may have reached the API already (`in_flight` or
        /// `unknown`): it may be issued. Not so for a document new to the ledger, `pending` (never
        /// at the API, or refused unread) or `rejected` (its new content never sent).
        sent: bool,
    },
}

/// The ledger of one state folder. Cheap to clone; the folder stays locked until the last clone
/// is dropped.
#[derive(Clone)]
pub struct Ledger {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    tx: Option<Sender<Op>>,
    thread: Option<JoinHandle<()>>,
    // Dropped last: the lock outlives the connection.
    _lock: File,
}

impl Drop for Inner {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How long a lock held by someone else is waited for before the folder is said to be busy. A
/// process that has just let go of it may still hold it for a moment through a child another
/// thread is starting (the lock belongs to the open file, which a child shares until it runs its
/// program); a run that really holds it holds it for far longer.
const LOCK_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// `lock.try_lock()`, tried again for up to [`LOCK_GRACE`] while it is held elsewhere.
fn try_lock_briefly(lock: &File) -> Result<(), TryLockError> {
    let start = std::time::Instant::now();
    loop {
        match lock.try_lock() {
            Err(TryLockError::WouldBlock) if start.elapsed() < LOCK_GRACE => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("dir", &self.inner.dir).finish()
    }
}

impl Ledger {
    /// Open the ledger in `state_dir` (created if missing) and lock the folder for the life of
    /// this process. A second open of the same folder, from this or another process, fails with
    /// [`LedgerError::Busy`].
    pub fn open(state_dir: &Path) -> Result<Ledger, LedgerError> {
        let folder_err = |e: std::io::Error| LedgerError::Folder {
            dir: state_dir.to_path_buf(),
            message: e.to_string(),
        };
        std::fs::create_dir_all(state_dir).map_err(folder_err)?;
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(state_dir.join("lock"))
            .map_err(folder_err)?;
        match try_lock_briefly(&lock) {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = lock.read_to_string(&mut text);
                let holder = text
                    .trim()
                    .parse::<u32>()
                    .map(|pid| format!("process {pid} "))
                    .unwrap_or_default();
                return Err(LedgerError::Busy {
                    dir: state_dir.to_path_buf(),
                    holder,
                });
            }
            Err(TryLockError::Error(e)) => return Err(folder_err(e)),
        }
        // Informative only: the lock is what counts.
        let _ = lock.set_len(0);
        let _ = lock.rewind();
        let _ = writeln!(lock, "{}", std::process::id());
        let store = Store::open(&state_dir.join("ledger.sqlite"))?;
        let (tx, rx) = channel();
        let thread = std::thread::Builder::new()
            .name("invoicedrop-ledger".into())
            .spawn(move || store.run(rx))
            .map_err(folder_err)?;
        Ok(Ledger {
            inner: Arc::new(Inner {
                dir: state_dir.to_path_buf(),
                tx: Some(tx),
                thread: Some(thread),
                _lock: lock,
            }),
        })
    }

    /// The device the ledger of `state_dir` records, if any, read without opening the ledger (no
    /// lock is taken, nothing is created or written): its onboard_id. A state folder whose ledger
    /// records a device belongs to the API that device was onboarded with (the built-in sandbox
    /// keeps its own ledger in `<state>/sandbox/`).
    pub fn recorded_device(state_dir: &Path) -> Result<Option<String>, LedgerError> {
        peek::recorded_device(&state_dir.join("ledger.sqlite"))
    }

    /// The state folder.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    fn queue(&self, request: Request, reply: ReplyTo) -> Result<(), LedgerError> {
        self.inner
            .tx
            .as_ref()
            .ok_or(LedgerError::Closed)?
            .send(Op { request, reply })
            .map_err(|_| LedgerError::Closed)
    }

    /// Queue a request; the receiver resolves after its commit.
    fn request(&self, request: Request) -> tokio::sync::oneshot::Receiver<Result<Answer, LedgerError>> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        // When the queue is closed the sender is dropped and the receiver reports Closed.
        let _ = self.queue(request, ReplyTo::Async(tx));
        rx
    }

    async fn ask(&self, request: Request) -> Result<Answer, LedgerError> {
        self.request(request).await.map_err(|_| LedgerError::Closed)?
    }

    fn ask_blocking(&self, request: Request) -> Result<Answer, LedgerError> {
        let (tx, rx) = sync_channel(1);
        self.queue(request, ReplyTo::Blocking(tx))?;
        rx.recv().map_err(|_| LedgerError::Closed)?
    }

    /// A document's row. Blocks briefly (one ledger round trip).
    pub fn get(&self, key: &DocumentKey) -> Result<Option<LedgerEntry>, LedgerError> {
        match self.ask_blocking(Request::Get(key.clone()))? {
            Answer::Entry(e) => Ok(e.map(|b| *b)),
            _ => Err(LedgerError::Closed),
        }
    }

    /// Counts per state. Blocks briefly.
    pub fn stats(&self) -> Result<LedgerStats, LedgerError> {
        match self.ask_blocking(Request::Stats)? {
            Answer::Stats(s) => Ok(s),
            _ => Err(LedgerError::Closed),
        }
    }

    /// Documents of a device whose outcome is not known (`in_flight` or `unknown`), oldest first.
    /// Blocks briefly.
    pub fn unresolved(&self, onboard_id: &str) -> Result<Vec<LedgerEntry>, LedgerError> {
        match self.ask_blocking(Request::Unresolved(onboard_id.to_string()))? {
            Answer::Entries(e) => Ok(e),
            _ => Err(LedgerError::Closed),
        }
    }

    /// [`Ledger::unresolved`] for async callers.
    pub(crate) async fn unresolved_async(&self, onboard_id: &str) -> Result<Vec<LedgerEntry>, LedgerError> {
        match self.ask(Request::Unresolved(onboard_id.to_string())).await? {
            Answer::Entries(e) => Ok(e),
            _ => Err(LedgerError::Closed),
        }
    }

    /// Store the device onboarding returned (D9): its onboard_id, so later runs need no flag, and
    /// the VAT number and invoice type it was onboarded with, so that they can check each document
    /// before sending it (D7, D21). One transaction. Blocks briefly.
    ///
    /// The onboard_id stays under its own key, as earlier versions stored it; the VAT number and
    /// type are kept with the onboard_id they belong to, so an onboard_id stored alone later (by
    /// an earlier version) is never paired with another device's.
    pub fn remember_device(&self, device: &OnboardedDevice) -> Result<(), LedgerError> {
        let record = DeviceRecord {
            onboard_id: device.onboard_id.clone(),
            vat_number: device.vat_number.clone(),
            invoice_type: device.invoice_type,
        };
        let json = serde_json::to_string(&record).map_err(|e| LedgerError::Write {
            path: self.inner.dir.join("ledger.sqlite"),
            message: e.to_string(),
        })?;
        let meta = vec![
            (META_ONBOARD_ID.to_string(), device.onboard_id.clone()),
            (META_DEVICE.to_string(), json.clone()),
        ];
        match self.ask_blocking(Request::AddDevice {
            onboard_id: device.onboard_id.clone(),
            vat_number: device.vat_number.clone(),
            record: json.clone(),
            meta,
        })? {
            Answer::Done => Ok(()),
            _ => Err(LedgerError::Closed),
        }
    }

    /// The device stored by [`Ledger::remember_device`] (or only its onboard_id, stored by an
    /// earlier version). Blocks briefly.
    pub fn remembered_device(&self) -> Result<Option<RememberedDevice>, LedgerError> {
        let Some(onboard_id) = self.meta(META_ONBOARD_ID)? else {
            return Ok(None);
        };
        let known = self.meta(META_DEVICE)?.and_then(|json| device_of(&json, &onboard_id));
        Ok(Some(match known {
            Some(device) => RememberedDevice::Known(device),
            None => RememberedDevice::OnboardIdOnly(onboard_id),
        }))
    }

    /// A device onboarded into this state folder, the current one or an earlier one, with its VAT
    /// number and invoice type (`None` when this folder never recorded them). Blocks briefly.
    pub fn device(&self, onboard_id: &str) -> Result<Option<OnboardedDevice>, LedgerError> {
        let json = match self.ask_blocking(Request::GetDevice(onboard_id.to_string()))? {
            Answer::Meta(v) => v,
            _ => return Err(LedgerError::Closed),
        };
        Ok(json.and_then(|json| device_of(&json, onboard_id)))
    }

    fn meta(&self, key: &str) -> Result<Option<String>, LedgerError> {
        match self.ask_blocking(Request::GetMeta(key.to_string()))? {
            Answer::Meta(v) => Ok(v),
            _ => Err(LedgerError::Closed),
        }
    }

    /// Register documents (one transaction) and decide, for each, what to do.
    pub(crate) async fn begin(&self, items: Vec<BeginItem>) -> Result<Vec<Decision>, LedgerError> {
        match self.ask(Request::Begin(items)).await? {
            Answer::Decisions(d) => Ok(d),
            _ => Err(LedgerError::Closed),
        }
    }

    /// What the ledger holds under each document's number, registering nothing: the row of a
    /// document issued (accepted) or maybe issued (sent without a final answer), through this
    /// device or, when this device has none, through another of the same seller; `None` for a
    /// number never issued (unknown, pending or rejected). For documents that are not sent.
    pub(crate) async fn peek(&self, items: Vec<BeginItem>) -> Result<Vec<Option<LedgerEntry>>, LedgerError> {
        match self.ask(Request::Peek(items)).await? {
            Answer::Found(f) => Ok(f),
            _ => Err(LedgerError::Closed),
        }
    }

    /// Record that a request is about to leave (in_flight, attempts + 1), durably; returns the
    /// attempt count. With a replacement, the stored body becomes the new content first.
    pub(crate) async fn mark_sending(
        &self,
        idempotency_key: &str,
        replacement: Option<Replacement>,
    ) -> Result<u32, LedgerError> {
        match self
            .ask(Request::Mark {
                idempotency_key: idempotency_key.to_string(),
                replacement,
            })
            .await?
        {
            Answer::Attempts(n) => Ok(n),
            _ => Err(LedgerError::Closed),
        }
    }

    /// Record an answer, and when it came (RFC 3339, milliseconds: the time the ledger keeps,
    /// which a rerun reports an accepted document's `result_time` from). The returned receiver
    /// resolves once it is committed; callers that go on to other work await it later.
    pub(crate) fn record(
        &self,
        idempotency_key: &str,
        state: LedgerState,
        status: Option<u16>,
        response: Option<Vec<u8>>,
        uuid: Option<String>,
    ) -> (RecordAck, String) {
        let at = store::now();
        let ack = RecordAck(self.request(Request::Record {
            idempotency_key: idempotency_key.to_string(),
            state,
            status,
            response,
            uuid,
            at: at.clone(),
        }));
        (ack, at)
    }
}

/// Resolves when a recorded answer is committed.
pub(crate) struct RecordAck(tokio::sync::oneshot::Receiver<Result<Answer, LedgerError>>);

impl RecordAck {
    pub(crate) async fn committed(self) -> Result<(), LedgerError> {
        self.0.await.map_err(|_| LedgerError::Closed)?.map(|_| ())
    }
}

#[cfg(test)]
mod tests;

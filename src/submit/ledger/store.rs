//! The SQLite side of the ledger. One thread owns the connection; it takes every operation
//! queued on its channel, applies them in one transaction and acknowledges each only after the
//! commit (group commit), so many workers share one fsync.

use super::{BeginItem, Decision, DocumentKey, LedgerEntry, LedgerError, LedgerState, LedgerStats, Replacement};
use crate::model::{CreditedBefore, DocumentKind, IssuedTotal};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::Duration;

pub(super) mod invoices;
use invoices::{credited, credited_index, invoice_date, invoice_total, note_kind};

/// The schema version this code writes.
const SCHEMA_VERSION: i64 = 1;
/// The most operations applied in one transaction.
const MAX_BATCH: usize = 4096;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS documents (
    idempotency_key TEXT PRIMARY KEY NOT NULL,
    onboard_id      TEXT NOT NULL,
    kind            TEXT NOT NULL,
    number          TEXT NOT NULL,
    content_hash    TEXT NOT NULL,
    body            BLOB NOT NULL,
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_status     INTEGER,
    response        BLOB,
    uuid            TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    last_sent_at    TEXT,
    UNIQUE (onboard_id, kind, number)
);
CREATE INDEX IF NOT EXISTS documents_state ON documents (state);
CREATE INDEX IF NOT EXISTS documents_number ON documents (number, kind);
CREATE TABLE IF NOT EXISTS devices (
    onboard_id   TEXT PRIMARY KEY NOT NULL,
    vat_number   TEXT NOT NULL,
    record       TEXT NOT NULL,
    onboarded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
";

const COLUMNS: &str = "idempotency_key, onboard_id, kind, number, content_hash, body, state, attempts, last_status, \
                       response, uuid, created_at, updated_at, last_sent_at";

/// What the ledger thread is asked to do.
pub(super) enum Request {
    Begin(Vec<BeginItem>),
    /// What the ledger holds of documents that are not sent (nothing is registered).
    Peek(Vec<BeginItem>),
    Mark {
        idempotency_key: String,
        replacement: Option<Replacement>,
    },
    Record {
        idempotency_key: String,
        state: LedgerState,
        status: Option<u16>,
        response: Option<Vec<u8>>,
        uuid: Option<String>,
        /// When the answer came ([`now`]).
        at: String,
    },
    Get(DocumentKey),
    Stats,
    Unresolved(String),
    /// Remember a device (onboard_id, VAT number) among the state folder's devices, and set these
    /// keys, in one transaction.
    AddDevice {
        onboard_id: String,
        vat_number: String,
        record: String,
        meta: Vec<(String, String)>,
    },
    /// The stored record of a device of this state folder.
    GetDevice(String),
    GetMeta(String),
    /// The issue date of an invoice issued (accepted) under a number, of a seller when given.
    InvoiceDate {
        number: String,
        seller_vat: Option<String>,
    },
    /// The kind of the note accepted under a number no invoice of that seller is accepted under.
    NoteKind {
        number: String,
        seller_vat: Option<String>,
    },
    /// The total with VAT and the currency of that invoice.
    InvoiceTotal {
        number: String,
        seller_vat: Option<String>,
    },
    /// The credit notes accepted against that invoice in a currency before one note.
    Credited {
        number: String,
        seller_vat: Option<String>,
        currency: String,
        except: String,
    },
}

/// Its answer.
pub(super) enum Answer {
    Decisions(Vec<Decision>),
    Found(Vec<Option<LedgerEntry>>),
    Attempts(u32),
    Done,
    Entry(Option<Box<LedgerEntry>>),
    Stats(LedgerStats),
    Entries(Vec<LedgerEntry>),
    Meta(Option<String>),
    Date(Option<chrono::NaiveDate>),
    Kind(Option<DocumentKind>),
    Total(Option<IssuedTotal>),
    Credited(CreditedBefore),
}

/// Where an answer goes: an async caller or a blocking one.
pub(super) enum ReplyTo {
    Async(tokio::sync::oneshot::Sender<Result<Answer, LedgerError>>),
    Blocking(std::sync::mpsc::SyncSender<Result<Answer, LedgerError>>),
}

impl ReplyTo {
    fn send(self, answer: Result<Answer, LedgerError>) {
        // A caller that went away (a cancelled run) does not need its answer.
        match self {
            ReplyTo::Async(tx) => {
                let _ = tx.send(answer);
            }
            ReplyTo::Blocking(tx) => {
                let _ = tx.send(answer);
            }
        }
    }
}

/// One queued operation.
pub(super) struct Op {
    pub(super) request: Request,
    pub(super) reply: ReplyTo,
}

/// The connection and its file.
pub(super) struct Store {
    conn: Connection,
    path: PathBuf,
}

pub(super) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

pub(super) fn kind_name(kind: DocumentKind) -> &'static str {
    match kind {
        DocumentKind::Invoice => "invoice",
        DocumentKind::CreditNote => "credit_note",
        DocumentKind::DebitNote => "debit_note",
    }
}

fn kind_from(name: &str) -> Option<DocumentKind> {
    DocumentKind::ALL.into_iter().find(|k| kind_name(*k) == name)
}

fn entry(row: &Row<'_>) -> rusqlite::Result<LedgerEntry> {
    let kind: String = row.get(2)?;
    let state: String = row.get(6)?;
    let status: Option<i64> = row.get(8)?;
    let attempts: i64 = row.get(7)?;
    Ok(LedgerEntry {
        idempotency_key: row.get(0)?,
        key: DocumentKey {
            onboard_id: row.get(1)?,
            kind: kind_from(&kind).unwrap_or(DocumentKind::Invoice),
            number: row.get(3)?,
        },
        content_hash: row.get(4)?,
        body: row.get(5)?,
        state: LedgerState::parse(&state).unwrap_or(LedgerState::Unknown),
        attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
        last_status: status.and_then(|s| u16::try_from(s).ok()),
        response: row.get(9)?,
        uuid: row.get(10)?,
        created_at: row.get(11)?,
        updated_at: row.get(12)?,
        last_sent_at: row.get(13)?,
    })
}

impl Store {
    /// Open (or create) the ledger file: WAL, synchronous=FULL, schema checked.
    pub(super) fn open(path: &Path) -> Result<Store, LedgerError> {
        let open_err = |e: rusqlite::Error| LedgerError::Open {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(open_err)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(open_err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(LedgerError::Open {
                path: path.to_path_buf(),
                message: format!("the file system refused write-ahead logging (journal mode is {mode})"),
            });
        }
        conn.execute_batch("PRAGMA synchronous=FULL;").map_err(open_err)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(open_err)?;
        if version > SCHEMA_VERSION {
            return Err(LedgerError::Newer {
                path: path.to_path_buf(),
                found: version,
                known: SCHEMA_VERSION,
            });
        }
        conn.execute_batch(SCHEMA).map_err(open_err)?;
        conn.execute_batch(&credited_index()).map_err(open_err)?;
        adopt_remembered_device(&conn).map_err(open_err)?;
        conn.execute_batch(&format!("PRAGMA user_version={SCHEMA_VERSION};"))
            .map_err(open_err)?;
        conn.set_prepared_statement_cache_capacity(32);
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn write_err(&self, e: rusqlite::Error) -> LedgerError {
        LedgerError::Write {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// Serve the channel until every sender is gone.
    pub(super) fn run(mut self, rx: Receiver<Op>) {
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(op) => batch.push(op),
                    Err(_) => break,
                }
            }
            self.apply(batch);
        }
    }

    fn apply(&mut self, batch: Vec<Op>) {
        let path = self.path.clone();
        let tx = match self.conn.transaction() {
            Ok(tx) => tx,
            Err(e) => {
                let err = LedgerError::Write {
                    path,
                    message: e.to_string(),
                };
                for op in batch {
                    op.reply.send(Err(err.clone()));
                }
                return;
            }
        };
        let mut answers = Vec::with_capacity(batch.len());
        for op in batch {
            let answer = execute(&tx, op.request).map_err(|e| LedgerError::Write {
                path: path.clone(),
                message: e.to_string(),
            });
            answers.push((op.reply, answer));
        }
        match tx.commit() {
            Ok(()) => {
                for (reply, answer) in answers {
                    reply.send(answer);
                }
            }
            Err(e) => {
                let err = self.write_err(e);
                tracing::error!(error = %err, "ledger commit failed");
                for (reply, _) in answers {
                    reply.send(Err(err.clone()));
                }
            }
        }
    }
}

fn execute(tx: &Transaction<'_>, request: Request) -> rusqlite::Result<Answer> {
    match request {
        Request::Begin(items) => {
            let mut decisions = Vec::with_capacity(items.len());
            for item in items {
                decisions.push(begin(tx, item)?);
            }
            Ok(Answer::Decisions(decisions))
        }
        Request::Peek(items) => {
            let mut found = Vec::with_capacity(items.len());
            for item in &items {
                found.push(peek(tx, item)?);
            }
            Ok(Answer::Found(found))
        }
        Request::Mark {
            idempotency_key,
            replacement,
        } => {
            let now = now();
            let attempts: i64 = match replacement {
                None => tx
                    .prepare_cached(
                        "UPDATE documents SET state = 'in_flight', attempts = attempts + 1, last_sent_at = ?1, \
                         updated_at = ?1 WHERE idempotency_key = ?2 RETURNING attempts",
                    )?
                    .query_row(params![now, idempotency_key], |r| r.get(0))?,
                Some(r) => tx
                    .prepare_cached(
                        "UPDATE documents SET state = 'in_flight', attempts = attempts + 1, last_sent_at = ?1, \
                         updated_at = ?1, body = ?3, content_hash = ?4, response = NULL, uuid = NULL, \
                         last_status = NULL WHERE idempotency_key = ?2 RETURNING attempts",
                    )?
                    .query_row(params![now, idempotency_key, r.body, r.content_hash], |r| r.get(0))?,
            };
            Ok(Answer::Attempts(u32::try_from(attempts).unwrap_or(u32::MAX)))
        }
        Request::Record {
            idempotency_key,
            state,
            status,
            response,
            uuid,
            at,
        } => {
            tx.prepare_cached(
                "UPDATE documents SET state = ?1, last_status = ?2, response = ?3, uuid = COALESCE(?4, uuid), \
                 updated_at = ?5 WHERE idempotency_key = ?6",
            )?
            .execute(params![state.as_str(), status, response, uuid, at, idempotency_key])?;
            Ok(Answer::Done)
        }
        Request::Get(key) => {
            let found = tx
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM documents WHERE onboard_id = ?1 AND kind = ?2 AND number = ?3"
                ))?
                .query_row(params![key.onboard_id, kind_name(key.kind), key.number], entry)
                .optional()?;
            Ok(Answer::Entry(found.map(Box::new)))
        }
        Request::Stats => {
            let mut stats = LedgerStats::default();
            let mut stmt = tx.prepare_cached("SELECT state, COUNT(*) FROM documents GROUP BY state")?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
            for row in rows {
                let (state, n) = row?;
                let n = u64::try_from(n).unwrap_or(0);
                match LedgerState::parse(&state) {
                    Some(LedgerState::Pending) => stats.pending += n,
                    Some(LedgerState::InFlight) => stats.in_flight += n,
                    Some(LedgerState::Accepted) => stats.accepted += n,
                    Some(LedgerState::Rejected) => stats.rejected += n,
                    Some(LedgerState::Unknown) | None => stats.unknown += n,
                }
            }
            Ok(Answer::Stats(stats))
        }
        Request::Unresolved(onboard_id) => {
            let mut stmt = tx.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM documents WHERE onboard_id = ?1 AND state IN ('in_flight', 'unknown') \
                 ORDER BY created_at, rowid"
            ))?;
            let rows = stmt.query_map(params![onboard_id], entry)?;
            Ok(Answer::Entries(rows.collect::<rusqlite::Result<Vec<_>>>()?))
        }
        Request::AddDevice {
            onboard_id,
            vat_number,
            record,
            meta,
        } => {
            add_device(tx, &onboard_id, &vat_number, &record)?;
            set_meta(tx, meta)?;
            Ok(Answer::Done)
        }
        Request::GetDevice(onboard_id) => {
            let value = tx
                .prepare_cached("SELECT record FROM devices WHERE onboard_id = ?1")?
                .query_row(params![onboard_id], |r| r.get(0))
                .optional()?;
            Ok(Answer::Meta(value))
        }
        Request::InvoiceDate { number, seller_vat } => Ok(Answer::Date(invoice_date(tx, &number, seller_vat)?)),
        Request::NoteKind { number, seller_vat } => Ok(Answer::Kind(note_kind(tx, &number, seller_vat)?)),
        Request::InvoiceTotal { number, seller_vat } => Ok(Answer::Total(invoice_total(tx, &number, seller_vat)?)),
        Request::Credited {
            number,
            seller_vat,
            currency,
            except,
        } => Ok(Answer::Credited(credited(tx, &number, seller_vat, &currency, &except)?)),
        Request::GetMeta(key) => {
            let value = tx
                .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
                .query_row(params![key], |r| r.get(0))
                .optional()?;
            Ok(Answer::Meta(value))
        }
    }
}

fn set_meta(tx: &Transaction<'_>, pairs: Vec<(String, String)>) -> rusqlite::Result<()> {
    let mut stmt =
        tx.prepare_cached("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2")?;
    for (key, value) in pairs {
        stmt.execute(params![key, value])?;
    }
    Ok(())
}

fn add_device(conn: &Connection, onboard_id: &str, vat_number: &str, record: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO devices (onboard_id, vat_number, record, onboarded_at) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT(onboard_id) DO UPDATE SET vat_number = ?2, record = ?3",
    )?
    .execute(params![onboard_id, vat_number, record, now()])?;
    Ok(())
}

/// A state folder written before the devices table kept its device only in `meta`: list it
/// there, so that its documents are matched by VAT number like any other device's.
fn adopt_remembered_device(conn: &Connection) -> rusqlite::Result<()> {
    let json: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'device'", [], |r| r.get(0))
        .optional()?;
    let Some(json) = json else { return Ok(()) };
    let Ok(record) = serde_json::from_str::<serde_json::Value>(&json) else {
        return Ok(());
    };
    if let (Some(id), Some(vat)) = (record["onboard_id"].as_str(), record["vat_number"].as_str()) {
        conn.execute(
            "INSERT OR IGNORE INTO devices (onboard_id, vat_number, record, onboarded_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, vat, json, now()],
        )?;
    }
    Ok(())
}

/// The same number, issued or maybe issued through another device of this state folder for the
/// same seller: accepted first, then sent without a final answer. The seller is the one of the
/// body sent (its `supplier_info.vat_number`); for a body that does not say, the VAT number the
/// device was onboarded with; when neither is known, the same seller's.
fn issued_elsewhere(tx: &Transaction<'_>, item: &BeginItem) -> rusqlite::Result<Option<LedgerEntry>> {
    let columns = COLUMNS
        .split(", ")
        .map(|c| format!("d.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    tx.prepare_cached(&format!(
        "SELECT {columns} FROM documents d LEFT JOIN devices v ON v.onboard_id = d.onboard_id \
         WHERE d.number = ?1 AND d.kind = ?2 AND d.onboard_id <> ?3 \
         AND d.state IN ('accepted', 'in_flight', 'unknown') \
         AND (?4 IS NULL OR COALESCE(CASE WHEN json_valid(CAST(d.body AS TEXT)) \
              THEN json_extract(CAST(d.body AS TEXT), '$.supplier_info.vat_number') END, v.vat_number, ?4) = ?4) \
         ORDER BY d.state <> 'accepted', d.updated_at DESC LIMIT 1"
    ))?
    .query_row(
        params![
            item.key.number,
            kind_name(item.key.kind),
            item.key.onboard_id,
            item.seller_vat
        ],
        entry,
    )
    .optional()
}

/// The row of a document that is issued or maybe issued under its number, without registering
/// anything: this device's own row when it is accepted or was sent without a final answer
/// (`None` when it is pending or rejected: never issued); when this device has none, the row
/// of another device of the same seller, as [`begin`] finds it.
fn peek(tx: &Transaction<'_>, item: &BeginItem) -> rusqlite::Result<Option<LedgerEntry>> {
    let own = tx
        .prepare_cached(&format!("SELECT {COLUMNS} FROM documents WHERE idempotency_key = ?1"))?
        .query_row(params![item.idempotency_key], entry)
        .optional()?;
    match own {
        Some(e) => Ok(matches!(
            e.state,
            LedgerState::Accepted | LedgerState::InFlight | LedgerState::Unknown
        )
        .then_some(e)),
        None => issued_elsewhere(tx, item),
    }
}

/// Whether `item` is the document `e` holds: the same content, or the same but for how many
/// decimal places an amount is written with (an export re-saved by a spreadsheet writes `57.5`
/// for `57.50`: not a change of the issued document, [`crate::model::same_content`]).
fn issued_as(e: &LedgerEntry, item: &BeginItem) -> bool {
    e.content_hash == item.content_hash || crate::model::same_content(&e.body, &item.body)
}

/// Register a document about to be submitted and decide what to do with it.
fn begin(tx: &Transaction<'_>, item: BeginItem) -> rusqlite::Result<Decision> {
    let existing = tx
        .prepare_cached(&format!("SELECT {COLUMNS} FROM documents WHERE idempotency_key = ?1"))?
        .query_row(params![item.idempotency_key], entry)
        .optional()?;
    let Some(e) = existing else {
        if let Some(e) = issued_elsewhere(tx, &item)? {
            let same = issued_as(&e, &item);
            return Ok(match e.state {
                LedgerState::Accepted if same => Decision::Done(Box::new(e)),
                LedgerState::Accepted => Decision::Conflict(Box::new(e)),
                _ => Decision::Elsewhere(Box::new(e)),
            });
        }
        let now = now();
        tx.prepare_cached(
            "INSERT INTO documents (idempotency_key, onboard_id, kind, number, content_hash, body, state, attempts, \
             created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, ?7, ?7)",
        )?
        .execute(params![
            item.idempotency_key,
            item.key.onboard_id,
            kind_name(item.key.kind),
            item.key.number,
            item.content_hash,
            item.body,
            now
        ])?;
        return Ok(Decision::Send {
            body: item.body,
            attempts: 0,
            replacement: None,
            sent: false,
        });
    };
    let same = e.content_hash == item.content_hash;
    Ok(match e.state {
        LedgerState::Accepted if issued_as(&e, &item) => Decision::Done(Box::new(e)),
        LedgerState::Accepted => Decision::Conflict(Box::new(e)),
        // Not at the API (pending) or refused by it (rejected): the new content may go.
        LedgerState::Pending | LedgerState::Rejected => {
            if !same {
                tx.prepare_cached(
                    "UPDATE documents SET body = ?1, content_hash = ?2, updated_at = ?3 WHERE idempotency_key = ?4",
                )?
                .execute(params![item.body, item.content_hash, now(), item.idempotency_key])?;
            }
            Decision::Send {
                body: item.body,
                attempts: e.attempts,
                replacement: None,
                sent: false,
            }
        }
        // Maybe at the API: settle it with the stored body first.
        LedgerState::InFlight | LedgerState::Unknown => Decision::Send {
            body: e.body,
            attempts: e.attempts,
            replacement: (!same).then_some(Replacement {
                content_hash: item.content_hash,
                body: item.body,
            }),
            sent: true,
        },
    })
}

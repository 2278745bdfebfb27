//! A device's ledger (D17, D20): its chain (ICV, last hash) and every accepted document, so that
//! a repeat is answered byte for byte and a changed document under an accepted number is refused.
//!
//! In memory a document is its keys and hashes and where its answer is: a line of the device's
//! journal ([`Span`]) when there is a state folder, read back on a replay, or the answer itself
//! when the sandbox keeps no state. The body of an answer (the signed XML, ~20 KB) is never held
//! for a journalled document.

use super::issue::{ChainPosition, GENESIS_PIH};
use super::journal::{Durable, Journal, JournalError, Span};
use crate::model::DocumentKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// One accepted document as a journal line keeps it; `A` is its answer (`String`), or a marker
/// when a journal is loaded without keeping the answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record<A = String> {
    /// Its counter value.
    pub(crate) icv: u64,
    /// The previous document's hash it was chained to.
    pub(crate) pih: String,
    /// Its own hash: the next document's PIH.
    pub(crate) invoice_hash: String,
    /// Invoice, credit note or debit note.
    pub(crate) kind: DocumentKind,
    /// The caller's number.
    pub(crate) number: String,
    /// The UUID it was given.
    pub(crate) uuid: String,
    /// SHA-256 (hex) of the canonical JSON of the body.
    pub(crate) body_hash: String,
    /// The `Idempotency-Key` it came with, if any.
    pub(crate) idempotency_key: Option<String>,
    /// The exact body of the 200 answer.
    pub(crate) response: A,
}

/// Where the exact body of a document's 200 answer is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Held in memory: a sandbox without a state folder.
    Memory(Box<str>),
    /// The `response` of a line of the device's journal.
    Journal(Span),
}

/// One accepted document as the ledger holds it in memory. Its PIH is the previous entry's hash
/// (checked on load, given by [`Ledger::position`] when issued), and its idempotency key lives
/// only in the ledger's index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Its counter value.
    pub(crate) icv: u64,
    /// Its own hash: the next document's PIH.
    pub(crate) invoice_hash: Box<str>,
    /// Invoice, credit note or debit note.
    pub(crate) kind: DocumentKind,
    /// The caller's number.
    pub(crate) number: Box<str>,
    /// The UUID it was given.
    pub(crate) uuid: Box<str>,
    /// SHA-256 (hex) of the canonical JSON of the body.
    pub(crate) body_hash: Box<str>,
    /// Where its answer is.
    pub(crate) answer: Answer,
    /// Whether it was accepted with an `Idempotency-Key` (the key itself is in the ledger's index).
    pub(crate) keyed: bool,
}

/// What to do with a submission, judged against the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup<'a> {
    /// Not seen: issue it.
    New,
    /// Seen with the same body: answer this document's stored bytes again ([`Ledger::answer`]).
    Replay(&'a Entry),
    /// The number was accepted with another body: 409 `DUPLICATE-DOCUMENT`.
    Duplicate,
    /// The idempotency key belongs to another accepted document: 409 `IDEMPOTENCY-KEY-REUSED`.
    KeyReused,
}

/// The chain and the accepted documents of one device, and its journal when it has one.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    entries: Vec<Entry>,
    by_number: HashMap<(DocumentKind, Box<str>), usize>,
    by_key: HashMap<Box<str>, usize>,
    journal: Option<Journal>,
}

impl Ledger {
    /// An empty ledger; with a journal, accepted documents are appended to it and their answers
    /// read back from it.
    pub(crate) fn new(journal: Option<Journal>) -> Ledger {
        Ledger {
            journal,
            ..Ledger::default()
        }
    }

    /// Give the ledger the journal its entries were loaded from.
    pub(crate) fn set_journal(&mut self, journal: Journal) {
        self.journal = Some(journal);
    }

    /// The position of the next document.
    pub(crate) fn position(&self) -> ChainPosition {
        ChainPosition {
            icv: self.icv() + 1,
            pih: self.last_hash().to_string(),
        }
    }

    /// The last counter value given (0 before the first document).
    pub(crate) fn icv(&self) -> u64 {
        self.entries.last().map_or(0, |e| e.icv)
    }

    fn last_hash(&self) -> &str {
        self.entries.last().map_or(GENESIS_PIH, |e| &e.invoice_hash)
    }

    /// Every accepted document in counter order, with its PIH.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&Entry, &str)> + '_ {
        let pihs = std::iter::once(GENESIS_PIH).chain(self.entries.iter().map(|e| &*e.invoice_hash));
        self.entries.iter().zip(pihs)
    }

    /// Judge a submission: by idempotency key first, then by number (a repeat without the key, or
    /// with another key, is still a repeat when the body is the same).
    pub(crate) fn lookup(&self, kind: DocumentKind, number: &str, body_hash: &str, key: Option<&str>) -> Lookup<'_> {
        if let Some(&i) = key.and_then(|k| self.by_key.get(k)) {
            let e = &self.entries[i];
            if &*e.body_hash == body_hash {
                return Lookup::Replay(e);
            }
            if e.kind != kind || &*e.number != number {
                return Lookup::KeyReused;
            }
        }
        match self.by_number.get(&(kind, Box::from(number))) {
            Some(&i) if &*self.entries[i].body_hash == body_hash => Lookup::Replay(&self.entries[i]),
            Some(_) => Lookup::Duplicate,
            None => Lookup::New,
        }
    }

    /// Whether a replay of `entry` came with another idempotency key than the one the document
    /// was accepted with (or with a key when it was accepted without one, or the reverse): a
    /// client that re-keyed a document it had already sent.
    pub(crate) fn rekeyed(&self, entry: &Entry, key: Option<&str>) -> bool {
        match key {
            Some(k) => self.by_key.get(k).is_none_or(|&i| self.entries[i].icv != entry.icv),
            None => entry.keyed,
        }
    }

    /// The exact bytes a document was answered with: from memory, or read back from the journal.
    pub(crate) fn answer(&self, entry: &Entry) -> Result<Vec<u8>, JournalError> {
        match &entry.answer {
            Answer::Memory(text) => Ok(text.as_bytes().to_vec()),
            Answer::Journal(span) => match &self.journal {
                Some(journal) => journal.read_answer(*span, entry.icv),
                None => Err(JournalError::NoJournal(entry.icv)),
            },
        }
    }

    /// What to wait on before `entry`'s answer is sent (again): its journal line on the disk.
    /// `None` when the answer is held in memory.
    pub(crate) fn durable(&self, entry: &Entry) -> Option<Durable> {
        match (&entry.answer, &self.journal) {
            (Answer::Journal(span), Some(journal)) => Some(journal.durable(*span)),
            _ => None,
        }
    }

    /// Keep a document just issued at [`Ledger::position`]: appended to the journal first when
    /// there is one, its answer then left there; otherwise its answer kept in memory. Nothing is
    /// kept when the journal cannot be written. With a journal, what is returned must be waited
    /// on (outside the device's lock) before the answer is sent.
    pub(crate) fn accept(&mut self, mut record: Record) -> Result<Option<Durable>, JournalError> {
        debug_assert_eq!(
            (record.icv, record.pih.as_str()),
            (self.icv() + 1, self.last_hash()),
            "a document is accepted at the ledger's position"
        );
        let (answer, durable) = match &mut self.journal {
            Some(journal) => {
                let span = journal.append(&record)?;
                (Answer::Journal(span), Some(journal.durable(span)))
            }
            None => (
                Answer::Memory(std::mem::take(&mut record.response).into_boxed_str()),
                None,
            ),
        };
        self.push(record, answer);
        Ok(durable)
    }

    /// Add a document loaded from the journal, checking that the counter runs 1, 2, 3... and that
    /// its PIH is the previous hash.
    pub(crate) fn load<A>(&mut self, record: Record<A>, span: Span) -> Result<(), String> {
        let want = self.icv() + 1;
        if record.icv != want || record.pih != self.last_hash() {
            return Err(format!(
                "document {} has ICV {} and PIH {}, but the chain expects ICV {} and PIH {}",
                record.number,
                record.icv,
                record.pih,
                want,
                self.last_hash()
            ));
        }
        self.push(record, Answer::Journal(span));
        Ok(())
    }

    fn push<A>(&mut self, r: Record<A>, answer: Answer) {
        let i = self.entries.len();
        let number: Box<str> = r.number.into_boxed_str();
        self.by_number.insert((r.kind, number.clone()), i);
        let keyed = r.idempotency_key.is_some();
        if let Some(k) = r.idempotency_key {
            self.by_key.entry(k.into_boxed_str()).or_insert(i);
        }
        self.entries.push(Entry {
            icv: r.icv,
            invoice_hash: r.invoice_hash.into_boxed_str(),
            kind: r.kind,
            number,
            uuid: r.uuid.into_boxed_str(),
            body_hash: r.body_hash.into_boxed_str(),
            answer,
            keyed,
        });
    }
}

/// SHA-256 (hex) of a JSON value written canonically: object keys sorted, no spaces, numbers and
/// strings exactly as they came. The same document sent twice hashes the same whatever the key
/// order or the white space.
pub(crate) fn body_hash(value: &Value) -> String {
    let mut out = Vec::new();
    canonical(value, &mut out);
    hex::encode(Sha256::digest(&out))
}

fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(Value::String(k.clone()).to_string().as_bytes());
                out.push(b':');
                canonical(&m[k], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        scalar => out.extend_from_slice(scalar.to_string().as_bytes()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn record(icv: u64, pih: &str, number: &str, body: &str, key: Option<&str>) -> Record {
        Record {
            icv,
            pih: pih.into(),
            invoice_hash: format!("hash-{icv}"),
            kind: DocumentKind::Invoice,
            number: number.into(),
            uuid: format!("uuid-{icv}"),
            body_hash: body.into(),
            idempotency_key: key.map(str::to_string),
            response: format!("answer-{icv}"),
        }
    }

    /// The bytes a lookup replays, if it is a replay.
    fn replayed(l: &Ledger, lookup: Lookup<'_>) -> Option<Vec<u8>> {
        match lookup {
            Lookup::Replay(e) => Some(l.answer(e).unwrap()),
            _ => None,
        }
    }

    #[test]
    fn replays_duplicates_and_reused_keys() {
        let mut l = Ledger::default();
        assert_eq!(l.position().pih, GENESIS_PIH);
        l.accept(record(1, GENESIS_PIH, "A-1", "b1", Some("k1"))).unwrap();
        let k = DocumentKind::Invoice;
        let answer = Some(b"answer-1".to_vec());
        assert_eq!(replayed(&l, l.lookup(k, "A-1", "b1", Some("k1"))), answer);
        assert_eq!(replayed(&l, l.lookup(k, "A-1", "b1", None)), answer);
        assert_eq!(replayed(&l, l.lookup(k, "A-1", "b1", Some("other"))), answer);
        assert_eq!(l.lookup(k, "A-1", "b2", Some("k1")), Lookup::Duplicate);
        assert_eq!(l.lookup(k, "A-1", "b2", None), Lookup::Duplicate);
        assert_eq!(l.lookup(k, "A-2", "b3", Some("k1")), Lookup::KeyReused);
        assert_eq!(l.lookup(DocumentKind::CreditNote, "A-1", "b1", None), Lookup::New);
        assert_eq!(l.lookup(k, "A-2", "b3", None), Lookup::New);
        assert_eq!(
            l.position(),
            ChainPosition {
                icv: 2,
                pih: "hash-1".into()
            }
        );
        l.accept(record(2, "hash-1", "A-2", "b3", None)).unwrap();
        let pihs: Vec<(u64, &str)> = l.entries().map(|(e, pih)| (e.icv, pih)).collect();
        assert_eq!(pihs, vec![(1, GENESIS_PIH), (2, "hash-1")]);
    }

    #[test]
    fn a_replay_under_another_key_is_told_from_a_same_key_replay() {
        let mut l = Ledger::default();
        l.accept(record(1, GENESIS_PIH, "A-1", "b1", Some("k1"))).unwrap();
        l.accept(record(2, "hash-1", "A-2", "b2", None)).unwrap();
        let k = DocumentKind::Invoice;
        let rekeyed = |number: &str, body: &str, key: Option<&str>| match l.lookup(k, number, body, key) {
            Lookup::Replay(e) => l.rekeyed(e, key),
            other => panic!("{number} under {key:?} is not a replay: {other:?}"),
        };
        assert!(!rekeyed("A-1", "b1", Some("k1")), "the same key");
        assert!(rekeyed("A-1", "b1", Some("k2")), "a new key");
        assert!(rekeyed("A-1", "b1", None), "the key left out");
        assert!(
            !rekeyed("A-2", "b2", None),
            "accepted without a key, repeated without one"
        );
        assert!(
            rekeyed("A-2", "b2", Some("k2")),
            "accepted without a key, repeated with one"
        );
    }

    #[test]
    fn a_broken_chain_is_refused_on_load() {
        let span = Span { offset: 0, len: 1 };
        let load = |records: Vec<Record>| {
            let mut l = Ledger::default();
            records.into_iter().try_for_each(|r| l.load(r, span)).map(|()| l.icv())
        };
        let good = vec![
            record(1, GENESIS_PIH, "A-1", "b1", None),
            record(2, "hash-1", "A-2", "b2", None),
        ];
        assert_eq!(load(good.clone()), Ok(2));
        let mut skipped = good.clone();
        skipped[1].icv = 3;
        assert!(load(skipped).is_err());
        let mut unchained = good;
        unchained[1].pih = "other".into();
        assert!(
            load(unchained)
                .unwrap_err()
                .contains("PIH other, but the chain expects ICV 2 and PIH hash-1")
        );
    }

    #[test]
    fn the_body_hash_ignores_key_order_and_spaces_but_not_values() {
        let a: Value = serde_json::from_str(r#"{"b": 1.50, "a": ["x", {"d": null, "c": true}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":["x",{"c":true,"d":null}],"b":1.50}"#).unwrap();
        let c: Value = serde_json::from_str(r#"{"a":["x",{"c":true,"d":null}],"b":1.51}"#).unwrap();
        assert_eq!(body_hash(&a), body_hash(&b));
        assert_ne!(body_hash(&a), body_hash(&c));
    }
}

//! A device's ledger (D17, D20): its chain (ICV, last hash) and every accepted document with the
//! exact answer it got, so that a repeat is answered byte for byte and a changed document under an
//! accepted number is refused.

use super::issue::{ChainPosition, GENESIS_PIH};
use crate::model::DocumentKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// One accepted document, as kept in memory and in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
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
    pub(crate) response: String,
}

/// What to do with a submission, judged against the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Not seen: issue it.
    New,
    /// Seen with the same body: answer the stored bytes again.
    Replay(Vec<u8>),
    /// The number was accepted with another body: 409 `DUPLICATE-DOCUMENT`.
    Duplicate,
    /// The idempotency key belongs to another accepted document: 409 `IDEMPOTENCY-KEY-REUSED`.
    KeyReused,
}

/// The chain and the accepted documents of one device.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    records: Vec<Record>,
    by_number: HashMap<(DocumentKind, String), usize>,
    by_key: HashMap<String, usize>,
}

impl Ledger {
    /// Rebuild from journal records, checking that the counter runs 1, 2, 3... and that every PIH
    /// is the previous hash.
    pub(crate) fn from_records(records: Vec<Record>) -> Result<Ledger, String> {
        let mut ledger = Ledger::default();
        for r in records {
            let want = ledger.position();
            if r.icv != want.icv || r.pih != want.pih {
                return Err(format!(
                    "document {} has ICV {} and PIH {}, but the chain expects ICV {} and PIH {}",
                    r.number, r.icv, r.pih, want.icv, want.pih
                ));
            }
            ledger.push(r);
        }
        Ok(ledger)
    }

    /// The position of the next document.
    pub(crate) fn position(&self) -> ChainPosition {
        match self.records.last() {
            None => ChainPosition {
                icv: 1,
                pih: GENESIS_PIH.to_string(),
            },
            Some(r) => ChainPosition {
                icv: r.icv + 1,
                pih: r.invoice_hash.clone(),
            },
        }
    }

    /// The last counter value given (0 before the first document).
    pub(crate) fn icv(&self) -> u64 {
        self.records.last().map_or(0, |r| r.icv)
    }

    /// Every accepted document, in counter order.
    pub(crate) fn records(&self) -> &[Record] {
        &self.records
    }

    /// Judge a submission: by idempotency key first, then by number (a repeat without the key, or
    /// with another key, is still a repeat when the body is the same).
    pub(crate) fn lookup(&self, kind: DocumentKind, number: &str, body_hash: &str, key: Option<&str>) -> Lookup {
        if let Some(&i) = key.and_then(|k| self.by_key.get(k)) {
            let r = &self.records[i];
            if r.body_hash == body_hash {
                return Lookup::Replay(r.response.clone().into_bytes());
            }
            if r.kind != kind || r.number != number {
                return Lookup::KeyReused;
            }
        }
        match self.by_number.get(&(kind, number.to_string())) {
            Some(&i) if self.records[i].body_hash == body_hash => {
                Lookup::Replay(self.records[i].response.clone().into_bytes())
            }
            Some(_) => Lookup::Duplicate,
            None => Lookup::New,
        }
    }

    /// Add an accepted document; its ICV must be [`Ledger::position`]'s.
    pub(crate) fn push(&mut self, r: Record) {
        let i = self.records.len();
        self.by_number.insert((r.kind, r.number.clone()), i);
        if let Some(k) = &r.idempotency_key {
            self.by_key.entry(k.clone()).or_insert(i);
        }
        self.records.push(r);
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
mod tests {
    use super::*;

    fn record(icv: u64, pih: &str, number: &str, body: &str, key: Option<&str>) -> Record {
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

    #[test]
    fn replays_duplicates_and_reused_keys() {
        let mut l = Ledger::default();
        assert_eq!(l.position().pih, GENESIS_PIH);
        l.push(record(1, GENESIS_PIH, "A-1", "b1", Some("k1")));
        let k = DocumentKind::Invoice;
        assert_eq!(
            l.lookup(k, "A-1", "b1", Some("k1")),
            Lookup::Replay(b"answer-1".to_vec())
        );
        assert_eq!(l.lookup(k, "A-1", "b1", None), Lookup::Replay(b"answer-1".to_vec()));
        assert_eq!(
            l.lookup(k, "A-1", "b1", Some("other")),
            Lookup::Replay(b"answer-1".to_vec())
        );
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
    }

    #[test]
    fn a_broken_chain_is_refused_on_load() {
        let good = vec![
            record(1, GENESIS_PIH, "A-1", "b1", None),
            record(2, "hash-1", "A-2", "b2", None),
        ];
        assert_eq!(Ledger::from_records(good.clone()).unwrap().icv(), 2);
        let mut skipped = good.clone();
        skipped[1].icv = 3;
        assert!(Ledger::from_records(skipped).is_err());
        let mut unchained = good;
        unchained[1].pih = "other".into();
        assert!(Ledger::from_records(unchained).is_err());
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

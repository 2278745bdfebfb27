//! One accepted document against its signed XML, for `report`: [`Ctx`] gathers the
//! differences and the per-day, per-currency totals of the input rows and of the XML.

use super::super::documents::DocumentRecord;
use super::super::summary::Amounts;
use super::super::xml_totals::{XmlTotals, read_xml_totals};
use super::totals::{VatSar, xml_kind};
use super::{Difference, Reconciled};
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// What the reconciliation of a folder gathers as it reads its sets.
pub(super) struct Ctx<'a> {
    pub(super) dir: &'a Path,
    pub(super) differences: Vec<Difference>,
    pub(super) by_day: BTreeMap<String, BTreeMap<String, Reconciled>>,
    /// Per issue date, the VAT in SAR of every currency.
    pub(super) vat_sar_by_day: BTreeMap<String, VatSar>,
    /// UUIDs of the signed XML counted so far: each issued document counts once.
    pub(super) xml_uuids: HashSet<String>,
    /// Signed XML no accepted document claims, counted once every set is read.
    pub(super) orphans: Vec<XmlTotals>,
}

impl Ctx<'_> {
    pub(super) fn diff(&mut self, set: &str, doc: &str, date: &str, kind: &str, message: String) -> &mut Difference {
        self.differences.push(Difference {
            set: set.to_string(),
            document: doc.to_string(),
            issue_date: date.to_string(),
            kind: kind.to_string(),
            field: String::new(),
            input: String::new(),
            xml: String::new(),
            message,
        });
        let last = self.differences.len() - 1;
        &mut self.differences[last]
    }

    /// The totals of a day: in `currency`, and the VAT in SAR of every currency.
    fn day(&mut self, date: &str, currency: &str) -> (&mut Reconciled, &mut VatSar) {
        let date = if date.is_empty() { "(no date)" } else { date };
        let currency = if currency.is_empty() { "SAR" } else { currency };
        let r = self
            .by_day
            .entry(date.to_string())
            .or_default()
            .entry(currency.to_string())
            .or_default();
        (r, self.vat_sar_by_day.entry(date.to_string()).or_default())
    }

    /// Compare one accepted document with its XML; `counted`: its amounts count in the totals,
    /// and its conflict, if any, is a difference (false for a duplicate of a document counted
    /// elsewhere: the record that counts says whether the export is in conflict now).
    pub(super) fn reconcile(&mut self, set: &str, r: &DocumentRecord, counted: bool) -> Option<String> {
        let (doc, date) = (r.document.as_str(), r.issue_date.as_str());
        if counted && is_conflict(r) {
            let as_uuid = if r.uuid.is_empty() { "" } else { " as UUID " };
            self.diff(
                set,
                doc,
                date,
                "conflict",
                format!(
                    "issued{as_uuid}{} with other content than the export now gives ({}): the figures here are the \
                     issued document's. Issue a credit or debit note against it, or give the export back its issued \
                     content",
                    r.uuid,
                    crate::submit::CONFLICT_CODE
                ),
            );
        }
        if let (Some(net), Some(vat), Some(gross)) = (r.net, r.vat, r.gross) {
            if counted {
                let (day, vat_sar) = self.day(date, &r.currency);
                day.add_input(Amounts { net, vat, gross }, &r.kind);
                vat_sar.add_input(r.vat_sar, &r.kind);
            }
        } else {
            self.diff(
                set,
                doc,
                date,
                "inconsistent",
                "an accepted document without amounts in X.documents.csv".into(),
            );
        }
        if r.xml_file.is_empty() {
            self.diff(
                set,
                doc,
                date,
                "xml_missing",
                "accepted, but no signed XML file is recorded".into(),
            );
            return None;
        }
        let path = self.dir.join(&r.xml_file);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                let m = format!("accepted, but its signed XML {} cannot be read: {e}", r.xml_file);
                self.diff(set, doc, date, "xml_missing", m);
                return Some(r.xml_file.clone());
            }
        };
        match read_xml_totals(&bytes) {
            Ok(x) => {
                if counted {
                    self.add_xml(&x);
                }
                self.compare(set, r, &x);
            }
            Err(e) => {
                let m = format!("its signed XML {} does not read: {e}", r.xml_file);
                self.diff(set, doc, date, "xml_unreadable", m);
            }
        }
        Some(r.xml_file.clone())
    }

    /// Count a signed XML's amounts, once per UUID.
    pub(super) fn add_xml(&mut self, x: &XmlTotals) {
        if let Some(u) = x.uuid.as_deref().filter(|u| !u.is_empty())
            && !self.xml_uuids.insert(u.to_string())
        {
            return;
        }
        let kind = xml_kind(x.type_code.as_deref());
        let (day, vat_sar) = self.day(
            x.issue_date.as_deref().unwrap_or(""),
            x.currency.as_deref().unwrap_or(""),
        );
        let amounts = Amounts {
            net: x.net.unwrap_or_default(),
            vat: x.vat.unwrap_or_default(),
            gross: x.gross.unwrap_or_default(),
        };
        day.add_xml(amounts, kind);
        vat_sar.add_xml(x.vat_tax_currency, kind);
    }

    fn compare(&mut self, set: &str, r: &DocumentRecord, x: &XmlTotals) {
        let (doc, date) = (r.document.as_str(), r.issue_date.as_str());
        let amounts: [(&str, Option<Decimal>, Option<Decimal>); 5] = [
            ("net", r.net, x.net),
            ("vat", r.vat, x.vat),
            ("vat_sar", r.vat_sar, x.vat_tax_currency),
            ("gross", r.gross, x.gross),
            ("payable", r.payable, x.payable),
        ];
        for (field, mine, theirs) in amounts {
            if mine.is_none() && field == "vat_sar" {
                continue;
            }
            if mine != theirs {
                let show = |d: Option<Decimal>| d.map_or("(none)".to_string(), |d| d.to_string());
                let d = self.diff(
                    set,
                    doc,
                    date,
                    "amount",
                    format!(
                        "{field}: the result files say {}, the signed XML {} says {}",
                        show(mine),
                        r.xml_file,
                        show(theirs)
                    ),
                );
                d.field = field.to_string();
                d.input = show(mine);
                d.xml = show(theirs);
            }
        }
        let texts = [
            ("number", r.document.as_str(), x.number.as_deref()),
            ("issue_date", r.issue_date.as_str(), x.issue_date.as_deref()),
            ("uuid", r.uuid.as_str(), x.uuid.as_deref()),
            ("currency", r.currency.as_str(), x.currency.as_deref()),
            // By its type code (BT-3): the netted totals subtract what the XML calls a credit note.
            (
                "kind",
                r.kind.as_str(),
                x.type_code.as_deref().map(|c| xml_kind(Some(c))),
            ),
        ];
        for (kind, mine, theirs) in texts {
            if mine.is_empty() && (kind == "uuid" || kind == "kind") {
                continue;
            }
            if Some(mine) != theirs {
                let theirs = theirs.unwrap_or("(none)").to_string();
                let d = self.diff(
                    set,
                    doc,
                    date,
                    kind,
                    format!("{kind}: the result files say {mine:?}, the signed XML says {theirs:?}"),
                );
                d.field = kind.to_string();
                d.input = mine.to_string();
                d.xml = theirs;
            }
        }
    }
}

/// Accepted with a conflict (`INV-LEDGER-CONFLICT`).
pub(super) fn is_conflict(r: &DocumentRecord) -> bool {
    r.errors.iter().any(|c| c == crate::submit::CONFLICT_CODE)
}

//! `X.summary.json` and the printed summary: rows and documents by status; documents and
//! amounts (net, VAT, gross, per currency) by status, by kind and type, and by issue date;
//! findings grouped by rule code (`rejections` for errors, `warnings`).
//!
//! [`SummaryBuilder`] takes any status, so `check` (valid, invalid, skipped) and `run`
//! (accepted, rejected, failed) build the same summary; [`Summary::merge`] adds summaries up
//! (`report`). Amounts are exact decimals, written as JSON strings (`"1150.00"`).
//!
//! Each [`Totals`] adds its documents up twice: `amounts`, each document with its own, positive,
//! amounts (a credit note too: as issued), and `netted`, credit notes subtracted (invoices +
//! debit notes - credit notes, per currency, and the VAT in SAR of every currency together): the
//! figures of the VAT return and of the ERP's ledger. The printed summary shows `netted`, except
//! by kind and type (as issued).

use super::window::Unreported;
use super::{DocumentRecord, RowStatus};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the summary layout.
pub const SUMMARY_FORMAT: u32 = 1;
/// Document numbers kept per rule code as examples.
pub const EXAMPLES_PER_CODE: usize = 10;

/// Net, VAT and gross.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Amounts {
    /// Total without VAT (BT-109).
    #[serde(serialize_with = "two_places")]
    pub net: Decimal,
    /// VAT (BT-110).
    #[serde(serialize_with = "two_places")]
    pub vat: Decimal,
    /// Total with VAT (BT-112).
    #[serde(serialize_with = "two_places")]
    pub gross: Decimal,
}

/// An amount as a JSON string with its exact digits and at least two decimals (`"0.00"`, not
/// `"0"`, for a total of nothing), as in the result files.
pub(crate) fn two_places<S: serde::Serializer>(value: &Decimal, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&super::documents::at_least_cents(*value).to_string())
}

impl Amounts {
    /// Add, saturating instead of overflowing (an amount beyond 7.9e28 is not a real total).
    pub fn add(&mut self, other: &Amounts) {
        self.net = saturating_add(self.net, other.net);
        self.vat = saturating_add(self.vat, other.vat);
        self.gross = saturating_add(self.gross, other.gross);
    }

    /// `self - other`, field by field (saturating).
    pub fn minus(&self, other: &Amounts) -> Amounts {
        let sub = |a: Decimal, b: Decimal| a.checked_sub(b).unwrap_or(Decimal::MAX);
        Amounts {
            net: sub(self.net, other.net),
            vat: sub(self.vat, other.vat),
            gross: sub(self.gross, other.gross),
        }
    }

    /// True when every field is zero.
    pub fn is_zero(&self) -> bool {
        self.net.is_zero() && self.vat.is_zero() && self.gross.is_zero()
    }

    /// The amounts as they count in a netted total: negated for a credit note (`kind`
    /// `credit_note`), as they are for any other document.
    pub fn signed(self, kind: &str) -> Amounts {
        if !is_credit_note(kind) {
            return self;
        }
        Amounts {
            net: -self.net,
            vat: -self.vat,
            gross: -self.gross,
        }
    }
}

/// True for the kind of a credit note (`credit_note`, as `X.documents.csv` writes it).
pub fn is_credit_note(kind: &str) -> bool {
    kind == "credit_note"
}

/// `a + b`, saturating instead of overflowing.
pub(crate) fn saturating_add(a: Decimal, b: Decimal) -> Decimal {
    a.checked_add(b).unwrap_or(if b.is_sign_negative() {
        Decimal::MIN
    } else {
        Decimal::MAX
    })
}

/// Documents added up with credit notes subtracted: what the VAT return and the ERP's ledger
/// show.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Netted {
    /// By document currency: invoices and debit notes added, credit notes subtracted.
    pub amounts: BTreeMap<String, Amounts>,
    /// VAT in SAR (BT-111, `vat_sar` of `X.documents.csv`) of every currency together, credit
    /// notes subtracted.
    #[serde(serialize_with = "two_places")]
    pub vat_sar: Decimal,
    /// Documents with amounts but no VAT in SAR (another currency without its exchange rate),
    /// which `vat_sar` leaves out.
    pub without_vat_sar: u64,
}

impl Netted {
    fn add_record(&mut self, currency: &str, amounts: Amounts, r: &DocumentRecord) {
        let signed = amounts.signed(&r.kind);
        match self.amounts.get_mut(currency) {
            Some(a) => a.add(&signed),
            None => self.amounts.entry(currency.to_string()).or_default().add(&signed),
        }
        match r.vat_sar {
            Some(v) => {
                let v = if is_credit_note(&r.kind) { -v } else { v };
                self.vat_sar = saturating_add(self.vat_sar, v);
            }
            None => self.without_vat_sar += 1,
        }
    }

    fn merge(&mut self, other: &Netted) {
        for (c, a) in &other.amounts {
            self.amounts.entry(c.clone()).or_default().add(a);
        }
        self.vat_sar = saturating_add(self.vat_sar, other.vat_sar);
        self.without_vat_sar += other.without_vat_sar;
    }

    /// True when `vat_sar` says more than the SAR amounts: a document in another currency, or
    /// one without its VAT in SAR.
    pub fn has_other_currencies(&self) -> bool {
        self.without_vat_sar > 0 || self.amounts.keys().any(|c| c != "SAR")
    }
}

/// Documents and their amounts, by currency.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// How many documents.
    pub documents: u64,
    /// Of those, how many have no amounts (not computed: skipped, or broken rows).
    pub without_amounts: u64,
    /// Their amounts, by document currency, each document's as issued (a credit note's
    /// positive).
    pub amounts: BTreeMap<String, Amounts>,
    /// Their amounts with credit notes subtracted, and the VAT in SAR of every currency. Absent
    /// from summaries written before it (read as zero).
    #[serde(default)]
    pub netted: Netted,
}

impl Totals {
    fn add_record(&mut self, r: &DocumentRecord) {
        self.documents += 1;
        match (r.net, r.vat, r.gross) {
            (Some(net), Some(vat), Some(gross)) => {
                let currency = if r.currency.is_empty() {
                    "SAR"
                } else {
                    r.currency.as_str()
                };
                let amounts = Amounts { net, vat, gross };
                // Looked up before a key is made: the currency is nearly always there already.
                match self.amounts.get_mut(currency) {
                    Some(a) => a.add(&amounts),
                    None => self.amounts.entry(currency.to_string()).or_default().add(&amounts),
                }
                self.netted.add_record(currency, amounts, r);
            }
            _ => self.without_amounts += 1,
        }
    }

    fn merge(&mut self, other: &Totals) {
        self.documents += other.documents;
        self.without_amounts += other.without_amounts;
        for (c, a) in &other.amounts {
            self.amounts.entry(c.clone()).or_default().add(a);
        }
        self.netted.merge(&other.netted);
    }
}

/// The documents (and stray rows) a rule code was found in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeGroup {
    /// Documents, by their status.
    pub documents: BTreeMap<RowStatus, u64>,
    /// Rows outside any document (unreadable records, rows without a number).
    pub stray_rows: u64,
    /// The first document numbers.
    pub examples: Vec<String>,
}

impl CodeGroup {
    /// Documents and stray rows together.
    pub fn count(&self) -> u64 {
        self.documents.values().sum::<u64>() + self.stray_rows
    }
}

/// Accepted documents issued earlier with content their export no longer gives
/// (`INV-LEDGER-CONFLICT`): issued, so counted as accepted with the issued figures, and to be
/// corrected with a credit or debit note. Never a rejection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflicts {
    /// How many documents.
    pub documents: u64,
    /// The first document numbers.
    pub examples: Vec<String>,
}

impl Conflicts {
    fn add(&mut self, number: &str) {
        self.documents += 1;
        if self.examples.len() < EXAMPLES_PER_CODE && !number.is_empty() {
            self.examples.push(number.to_string());
        }
    }

    fn merge(&mut self, other: &Conflicts) {
        self.documents += other.documents;
        for e in &other.examples {
            if self.examples.len() < EXAMPLES_PER_CODE {
                self.examples.push(e.clone());
            }
        }
    }
}

/// The summary of one result set (or, merged, of a folder).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Layout version ([`SUMMARY_FORMAT`]).
    pub format: u32,
    /// The input file(s), each as given on the command line.
    pub files: Vec<String>,
    /// The same input file(s), each as an absolute path with links resolved: whose result set
    /// this is, however the input was given (see `owner`). Absent from summaries written
    /// before it (read as none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_paths: Vec<String>,
    /// The mapping used (empty when several).
    pub mapping: String,
    /// When the results were written (RFC 3339).
    pub time: String,
    /// Input rows, each once in the result file.
    pub rows: u64,
    /// Rows by status.
    pub rows_by_status: BTreeMap<RowStatus, u64>,
    /// Every document.
    pub documents: Totals,
    /// Documents by status.
    pub by_status: BTreeMap<RowStatus, Totals>,
    /// Documents by `kind/type` (`invoice/standard`), then status.
    pub by_kind: BTreeMap<String, BTreeMap<RowStatus, Totals>>,
    /// Documents by issue date (`YYYY-MM-DD`), then status.
    pub by_date: BTreeMap<String, BTreeMap<RowStatus, Totals>>,
    /// Error codes: what kept documents from being valid or accepted.
    pub rejections: BTreeMap<String, CodeGroup>,
    /// Accepted documents in conflict with their export (`INV-LEDGER-CONFLICT`), which
    /// `rejections` does not list. Absent from summaries written before it (read as none).
    #[serde(default)]
    pub conflicts: Conflicts,
    /// Simplified documents not issued (invalid, rejected, failed), due within 24 hours of
    /// their issue. Absent when there is none, and from summaries written before it.
    #[serde(default, skip_serializing_if = "Unreported::is_empty")]
    pub unreported_simplified: Unreported,
    /// Warning codes.
    pub warnings: BTreeMap<String, CodeGroup>,
    /// Things to know (a spreadsheet result cut short, ...).
    pub notes: Vec<String>,
}

/// Builds a [`Summary`] from rows and documents of any status.
#[derive(Debug, Clone)]
pub struct SummaryBuilder {
    summary: Summary,
    /// Documents' amounts not yet in `summary`'s four views ([`Staged`]).
    staged: Staged,
}

fn unknown_if_empty<'a>(s: &'a str, unknown: &'a str) -> &'a str {
    if s.is_empty() { unknown } else { s }
}

/// The entry of `key` in `map`, made (and the key copied) only when it is not there yet: a
/// summary has few keys and is added to for every document.
pub(crate) fn entry<'m, V: Default>(map: &'m mut BTreeMap<String, V>, key: &str) -> &'m mut V {
    if !map.contains_key(key) {
        map.insert(key.to_string(), V::default());
    }
    map.get_mut(key).expect("inserted above")
}

impl SummaryBuilder {
    /// A summary of `file`, checked with `mapping`, at `time`.
    pub fn new(file: &str, mapping: &str, time: &str) -> SummaryBuilder {
        SummaryBuilder {
            summary: Summary {
                format: SUMMARY_FORMAT,
                files: vec![file.to_string()],
                mapping: mapping.to_string(),
                time: time.to_string(),
                ..Summary::default()
            },
            staged: Staged::default(),
        }
    }

    /// Record the input as an absolute path with links resolved ([`Summary::input_paths`]).
    pub fn set_input_path(&mut self, path: &str) {
        self.summary.input_paths = vec![path.to_string()];
    }

    /// Set the mapping.
    pub fn set_mapping(&mut self, mapping: &str) {
        self.summary.mapping = mapping.to_string();
    }

    /// Count one result row.
    pub fn add_row(&mut self, status: RowStatus) {
        self.summary.rows += 1;
        *self.summary.rows_by_status.entry(status).or_default() += 1;
    }

    /// Count the error and warning codes of a row outside any document.
    pub fn add_stray_codes(&mut self, errors: &[String], warnings: &[String]) {
        for (codes, map) in [
            (errors, &mut self.summary.rejections),
            (warnings, &mut self.summary.warnings),
        ] {
            for c in codes {
                map.entry(c.clone()).or_default().stray_rows += 1;
            }
        }
    }

    /// Count one document: its amounts by status, kind and date, and its codes.
    pub fn add_document(&mut self, r: &DocumentRecord) {
        let s = &mut self.summary;
        s.unreported_simplified.add(r);
        self.staged.add_record(r);
        for (codes, map) in [(&r.errors, &mut s.rejections), (&r.warnings, &mut s.warnings)] {
            for c in codes {
                if c == crate::submit::CONFLICT_CODE {
                    // Issued, with a conflict: its own count, not a rejection.
                    s.conflicts.add(&r.document);
                    continue;
                }
                let g = entry(map, c);
                *g.documents.entry(r.status).or_default() += 1;
                if g.examples.len() < EXAMPLES_PER_CODE && !r.document.is_empty() {
                    g.examples.push(r.document.clone());
                }
            }
        }
    }

    /// Take the documents' figures of `from`, keeping the rows, notes and stray rows
    /// ([`Summary::use_documents_of`]).
    pub fn use_documents_of(&mut self, from: &Summary) {
        // Replaced, as the figures already in the views are.
        self.staged = Staged::default();
        self.summary.use_documents_of(from);
    }

    /// Add a note.
    pub fn note(&mut self, note: impl Into<String>) {
        self.summary.notes.push(note.into());
    }

    /// The summary so far.
    pub fn summary(&mut self) -> &Summary {
        self.staged.put_into(&mut self.summary);
        &self.summary
    }

    /// The summary.
    pub fn finish(mut self) -> Summary {
        self.staged.put_into(&mut self.summary);
        self.summary
    }
}

fn merge_by_status(into: &mut BTreeMap<RowStatus, Totals>, from: &BTreeMap<RowStatus, Totals>) {
    for (status, t) in from {
        into.entry(*status).or_default().merge(t);
    }
}

fn merge_codes(into: &mut BTreeMap<String, CodeGroup>, from: &BTreeMap<String, CodeGroup>) {
    for (code, g) in from {
        let mine = into.entry(code.clone()).or_default();
        for (s, n) in &g.documents {
            *mine.documents.entry(*s).or_default() += n;
        }
        mine.stray_rows += g.stray_rows;
        for e in &g.examples {
            if mine.examples.len() < EXAMPLES_PER_CODE {
                mine.examples.push(e.clone());
            }
        }
    }
}

impl Summary {
    /// Add another summary to this one (`report` over a folder).
    pub fn merge(&mut self, other: &Summary) {
        self.format = SUMMARY_FORMAT;
        self.files.extend(other.files.iter().cloned());
        self.input_paths.extend(other.input_paths.iter().cloned());
        if self.mapping != other.mapping {
            self.mapping = if self.mapping.is_empty() && self.rows == 0 {
                other.mapping.clone()
            } else {
                String::new()
            };
        }
        self.time = self.time.clone().max(other.time.clone());
        self.rows += other.rows;
        for (s, n) in &other.rows_by_status {
            *self.rows_by_status.entry(*s).or_default() += n;
        }
        self.documents.merge(&other.documents);
        merge_by_status(&mut self.by_status, &other.by_status);
        for (k, m) in &other.by_kind {
            merge_by_status(self.by_kind.entry(k.clone()).or_default(), m);
        }
        for (d, m) in &other.by_date {
            merge_by_status(self.by_date.entry(d.clone()).or_default(), m);
        }
        merge_codes(&mut self.rejections, &other.rejections);
        merge_codes(&mut self.warnings, &other.warnings);
        self.conflicts.merge(&other.conflicts);
        self.unreported_simplified.merge(&other.unreported_simplified);
        // Over a folder, a note says which file it is about.
        match other.files.as_slice() {
            [file] => self.notes.extend(other.notes.iter().map(|n| format!("{file}: {n}"))),
            _ => self.notes.extend(other.notes.iter().cloned()),
        }
    }

    /// Take the documents' figures of `from` (documents by status, kind and type, issue date,
    /// and by rule code), keeping this summary's files, rows, notes and stray rows: `report`'s
    /// folder summary counts each document once (see `duplicates`).
    pub fn use_documents_of(&mut self, from: &Summary) {
        self.documents = from.documents.clone();
        self.by_status = from.by_status.clone();
        self.by_kind = from.by_kind.clone();
        self.by_date = from.by_date.clone();
        self.conflicts = from.conflicts.clone();
        self.unreported_simplified = from.unreported_simplified.clone();
        for (mine, theirs) in [
            (&mut self.rejections, &from.rejections),
            (&mut self.warnings, &from.warnings),
        ] {
            let stray: Vec<(String, u64)> = mine
                .iter()
                .filter(|(_, g)| g.stray_rows > 0)
                .map(|(c, g)| (c.clone(), g.stray_rows))
                .collect();
            *mine = theirs.clone();
            for g in mine.values_mut() {
                g.stray_rows = 0;
            }
            for (c, n) in stray {
                mine.entry(c).or_default().stray_rows = n;
            }
        }
    }

    /// Documents of one status.
    pub fn count(&self, status: RowStatus) -> u64 {
        self.by_status.get(&status).map_or(0, |t| t.documents)
    }
}

#[path = "summary_stage.rs"]
mod stage;
use stage::Staged;

#[path = "summary_text.rs"]
mod text;
pub use text::{issued_line, money, note_label, totals_line};

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;

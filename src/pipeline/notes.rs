//! A credit or debit note and the invoice it corrects, settled in input order, once the
//! invoice's fate is known: when a batch is written (`check`) or sent (`run`, `watch`).
//!
//! - The invoice is issued (the ledger holds it: `run`): the note's billing reference gives the
//!   date it was issued with, whatever the export says (`INV-REFERENCE-DATE`, a warning, when
//!   the export says another).
//! - The invoice is in this input and was not issued (invalid, skipped, rejected), and is not in
//!   the ledger: the note is held back (`INV-REFERENCE-NOT-ISSUED`, an error naming the invoice,
//!   its line, its status and what to do). Without a final answer (maybe issued, or not sent):
//!   the note is not sent (`INV-SUBMIT-NOT-SENT`), and the next run sends it once the invoice is
//!   settled.
//! - The invoice is sent in the same batch (above or below the note): the note waits for its
//!   answer, then is settled as above (`run`).
//! - Otherwise (an invoice of no file of this input, or one further below the note than its
//!   batch): as the build made it (the date from the note's rows, or `INV-MAP-REFERENCE`).
//!
//! Only the invoices that were not issued are remembered ([`Unissued`], a few dozen bytes each),
//! never the issued ones: the ledger knows those.

use super::outcome::Outcome;
use super::*;
use crate::mapping::{NoteReference, REFERENCE_CODE};
use crate::model::DocumentKind;
use crate::results::ResultIssue;
use chrono::NaiveDate;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// The code of a note held back because the invoice it corrects was not issued.
pub const NOT_ISSUED_CODE: &str = "INV-REFERENCE-NOT-ISSUED";

/// The code of a billing reference whose form or date is not as it should be (the checks' rule,
/// said again when the date becomes the issued one).
pub(super) const FORM_CODE: &str = "INV-BILLING-REFERENCE-FORM";

/// The code of a note whose export gives its invoice another date than the one it was issued
/// with (a warning: the issued date is the one referenced).
pub const DATE_CODE: &str = "INV-REFERENCE-DATE";

/// What a document of a batch is to the notes.
#[derive(Debug, Clone, Default)]
pub(super) enum Link {
    /// Neither an invoice nor a note naming one (or its kind is not known).
    #[default]
    None,
    /// An invoice (or a skipped document whose kind is not known, which may be one).
    Invoice,
    /// A note naming the invoice it corrects.
    Note(Box<NoteLink>),
}

/// A note's billing reference as its own rows give it, and where findings on it go.
#[derive(Debug, Clone)]
pub(super) struct NoteLink {
    pub(super) kind: DocumentKind,
    pub(super) reference: NoteReference,
    /// The index of its first line row in the outcome's rows.
    pub(super) row: usize,
}

/// Why an invoice of the input was not issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Invalid,
    Skipped,
    Rejected,
    /// No final answer: maybe issued (`sent`), or certainly not.
    Unanswered {
        sent: bool,
    },
}

#[derive(Debug, Clone)]
struct NotIssued {
    file: Arc<str>,
    line: u64,
    fate: Fate,
    /// Its first errors (`BR-KSA-84 on line 2`), the skip rule's cell (`Status "Voided"`), the
    /// authority's codes, or the code of its missing answer.
    why: Box<str>,
}

/// The invoices of the input (over every file of a `check` or `run`) that were not issued, by
/// number: a later document of that number that is issued, or valid, takes it out again.
#[derive(Debug, Default)]
pub struct Unissued {
    by_number: HashMap<Box<str>, NotIssued>,
}

impl Unissued {
    /// Forget the invoices of `file`, read again from its start (`check` reads a file twice when
    /// its first reading found numbers apart).
    pub(super) fn forget_file(&mut self, file: &str) {
        if !self.by_number.is_empty() {
            self.by_number.retain(|_, n| &*n.file != file);
        }
    }

    fn issued(&mut self, number: &str) {
        if !self.by_number.is_empty() {
            self.by_number.remove(number);
        }
    }

    /// An invoice not issued: a document of that number not issued earlier in the same file (the
    /// first part of a document in parts) stays the one named.
    fn not_issued(&mut self, number: &str, n: NotIssued) {
        match self.by_number.get_mut(number) {
            Some(was) if was.file == n.file => {}
            Some(was) => *was = n,
            None => {
                self.by_number.insert(number.into(), n);
            }
        }
    }
}

/// Where the notes of one file are settled: the invoices not issued, and the file.
pub(super) struct Settling<'a> {
    unissued: &'a Mutex<Unissued>,
    file: Arc<str>,
    /// The seller's VAT number (the ledger is asked under it).
    seller_vat: Option<&'a str>,
}

impl<'a> Settling<'a> {
    pub(super) fn new(opts: &'a CheckOptions, file: &str) -> Self {
        let s = Settling {
            unissued: &opts.unissued,
            file: file.into(),
            seller_vat: opts.seller.vat_number.as_deref(),
        };
        s.lock().forget_file(file);
        s
    }

    fn lock(&self) -> std::sync::MutexGuard<'a, Unissued> {
        self.unissued.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `check`: a batch before it is written (in input order). Its invoices that are invalid or
    /// skipped are remembered (valid ones forgotten), then its valid notes whose invoice is
    /// remembered are held back. No ledger: an invoice issued in an earlier run is not known.
    pub(super) fn checked(&self, batch: &mut [Outcome]) {
        if batch.iter().all(|o| matches!(o.link, Link::None)) {
            return;
        }
        let mut unissued = self.lock();
        for o in batch.iter() {
            self.remember(&mut unissued, o, None);
        }
        if unissued.by_number.is_empty() {
            return;
        }
        for o in batch.iter_mut() {
            let Some(link) = valid_note(o) else { continue };
            if let Some(n) = unissued.by_number.get(link.reference.invoice.as_str()) {
                let issue = self.not_issued_issue(&link, n);
                // Where its date might be found no longer matters.
                o.withdraw_warning(REFERENCE_CODE);
                o.hold_back(link.row, issue);
            }
        }
    }

    /// `run`: remember the invoices of a batch that are not sent, by their status and the verdict
    /// (if any) of their number issued before (`reopened`, by outcome).
    pub(super) fn before_sending(&self, outcomes: &[Outcome], reopened: &[(usize, Verdict)]) {
        if outcomes.iter().all(|o| !matches!(o.link, Link::Invoice)) {
            return;
        }
        let verdicts: HashMap<usize, &Verdict> = reopened.iter().map(|(i, v)| (*i, v)).collect();
        let mut unissued = self.lock();
        for (i, o) in outcomes.iter().enumerate() {
            self.remember(&mut unissued, o, verdicts.get(&i).copied());
        }
    }

    /// `run`: remember the fate of the invoices just sent (`at[k]` is the outcome of `verdicts[k]`).
    pub(super) fn after_sending(&self, outcomes: &[Outcome], at: &[usize], verdicts: &[Verdict]) {
        if at.iter().all(|&i| !matches!(outcomes[i].link, Link::Invoice)) {
            return;
        }
        let mut unissued = self.lock();
        for (&i, v) in at.iter().zip(verdicts) {
            self.remember(&mut unissued, &outcomes[i], Some(v));
        }
    }

    /// Remember an invoice not issued, or forget one issued (or valid: about to be sent, or, for
    /// `check`, one that would be): its status, or `verdict`'s when it has one.
    fn remember(&self, unissued: &mut Unissued, o: &Outcome, verdict: Option<&Verdict>) {
        if !matches!(o.link, Link::Invoice) {
            return;
        }
        let Some(b) = &o.brief else { return };
        let status = verdict.and_then(|v| v.status).unwrap_or(b.status);
        let (fate, why) = match status {
            RowStatus::Valid | RowStatus::Accepted => return unissued.issued(&b.number),
            RowStatus::Invalid => (Fate::Invalid, first_errors(o)),
            RowStatus::Skipped => (Fate::Skipped, skip_cell(o)),
            RowStatus::Rejected => (Fate::Rejected, codes(verdict)),
            // Issued, through another state folder (`run` did not send it again): its notes go
            // (each not sent either when the export's results list it as issued).
            RowStatus::Failed
                if verdict.is_some_and(|v| v.codes.iter().any(|c| c == crate::results::ISSUED_ELSEWHERE_CODE)) =>
            {
                return unissued.issued(&b.number);
            }
            RowStatus::Failed => {
                let sent = verdict.is_some_and(|v| v.codes.iter().any(|c| c == crate::submit::UNKNOWN_CODE));
                (Fate::Unanswered { sent }, codes(verdict))
            }
        };
        let n = NotIssued {
            file: self.file.clone(),
            line: b.first_line,
            fate,
            why: why.into(),
        };
        unissued.not_issued(&b.number, n);
    }

    /// `run`: settle the valid notes of a batch before it is sent (`only`: these outcomes; all
    /// when `None`), with `lookup` (the ledger's issued invoices). A note whose invoice is issued
    /// gets the issued date; one whose invoice was not issued is held back (it is then among
    /// the batch's invalid documents, asked about as they are) or given a `failed` verdict
    /// (returned, by outcome); one whose invoice is sent in this batch waits for it (returned:
    /// send it once the others are answered). Documents not settled are left as they are.
    pub(super) fn settle(
        &self,
        outcomes: &mut [Outcome],
        only: Option<&[usize]>,
        lookup: Option<&Originals>,
    ) -> (Vec<(usize, Verdict)>, Vec<usize>) {
        let mut verdicts = Vec::new();
        let mut waiting = Vec::new();
        let mut hold = Vec::new();
        // The credit notes settled so far, added to the later ones of the same invoice.
        let mut credits = super::over_credit::Credits::default();
        let indices: Vec<usize> = match only {
            Some(only) => only.to_vec(),
            None => (0..outcomes.len())
                .filter(|&i| valid_note(&outcomes[i]).is_some() && outcomes[i].document.is_some())
                .collect(),
        };
        if indices.is_empty() {
            return (verdicts, waiting);
        }
        // The invoices this batch sends (their answers come before a note that waits).
        let sent_now: HashSet<String> = match only {
            Some(_) => HashSet::new(),
            None => outcomes
                .iter()
                .filter(|o| matches!(o.link, Link::Invoice) && o.document.is_some())
                .filter_map(|o| o.brief.as_ref().map(|b| b.number.clone()))
                .collect(),
        };
        for &i in &indices {
            let Some(link) = valid_note(&outcomes[i]) else { continue };
            let invoice = link.reference.invoice.as_str();
            if let Some(date) = lookup.and_then(|l| l.0.invoice_date(invoice, self.seller_vat)) {
                settle_date(&mut outcomes[i], &link, date);
                if link.kind == DocumentKind::CreditNote
                    && let Some(l) = lookup
                    && let Some(total) = l.0.invoice_total(invoice, self.seller_vat)
                {
                    credits.compare(&mut outcomes[i], &link, &total, |currency, note| {
                        l.0.credited(invoice, self.seller_vat, currency, note)
                    });
                }
                continue;
            }
            let unissued = self.lock();
            match unissued.by_number.get(invoice) {
                Some(n) => hold.push((i, link, n.clone())),
                None if sent_now.contains(invoice) => waiting.push(i),
                None => {}
            }
        }
        for (i, link, n) in hold {
            match n.fate {
                Fate::Unanswered { sent } => {
                    outcomes[i].document = None;
                    outcomes[i].withdraw_warning(REFERENCE_CODE);
                    verdicts.push((i, self.unanswered_verdict(&link, &n, sent)));
                }
                _ => {
                    let issue = self.not_issued_issue(&link, &n);
                    outcomes[i].withdraw_warning(REFERENCE_CODE);
                    outcomes[i].hold_back(link.row, issue);
                }
            }
        }
        (verdicts, waiting)
    }

    /// `invoice INV-7 (line 2 of this file)`.
    fn invoice_at(&self, invoice: &str, n: &NotIssued) -> String {
        if n.file == self.file {
            format!("invoice {invoice} (line {} of this file)", n.line)
        } else {
            format!("invoice {invoice} (line {} of {})", n.line, n.file)
        }
    }

    /// `INV-REFERENCE-NOT-ISSUED Reference "INV-7": ...`, on the note's number of its invoice.
    fn not_issued_issue(&self, link: &NoteLink, n: &NotIssued) -> ResultIssue {
        let invoice = link.reference.invoice.as_str();
        let note = link.kind.label();
        let (status, todo) = match n.fate {
            Fate::Invalid => (
                format!("it is invalid: {}", n.why),
                "Correct the invoice and run the export again: the invoice is issued first, then this note".to_string(),
            ),
            Fate::Rejected => (
                format!("the authority rejected it: {}", n.why),
                "Correct the invoice and run the export again: the invoice is issued first, then this note".to_string(),
            ),
            Fate::Skipped => (
                format!("it is skipped: {}", n.why),
                format!(
                    "If the invoice is to be issued, correct its row ({}) and run the export again: the invoice is \
                     issued first, then this note; if it is not, this note corrects nothing: take it out of the export",
                    n.why
                ),
            ),
            // Not held back so (see `unanswered_verdict`).
            Fate::Unanswered { .. } => (
                format!("it has no final answer: {}", n.why),
                "Run again: the invoice is settled first, then this note".to_string(),
            ),
        };
        ResultIssue {
            code: NOT_ISSUED_CODE.into(),
            severity: crate::validate::Severity::Error,
            column: link.reference.column.clone(),
            value: Some(invoice.to_string()),
            message: format!(
                "this {note} corrects {}, which is not issued ({status}), so this {note} is not issued either: a note \
                 may correct only an issued invoice. {todo}",
                self.invoice_at(invoice, n)
            ),
        }
    }

    /// The verdict of a note not sent because its invoice has no final answer.
    fn unanswered_verdict(&self, link: &NoteLink, n: &NotIssued, sent: bool) -> Verdict {
        let code = crate::submit::NOT_SENT_CODE;
        let maybe = if sent {
            "was sent without a final answer (it may be issued)"
        } else {
            "was not sent"
        };
        Verdict {
            status: Some(RowStatus::Failed),
            errors: vec![format!(
                "{code}: not sent: the {} it corrects, {}, {maybe}, and a note is sent only once its invoice is \
                 issued: run again: the invoice is settled (or sent) first, then this {}",
                DocumentKind::Invoice.label(),
                self.invoice_at(&link.reference.invoice, n),
                link.kind.label()
            )],
            codes: vec![code.into()],
            ..Verdict::default()
        }
    }
}

/// The outcome's note link when it is a valid note (not yet sent, nor held back).
fn valid_note(o: &Outcome) -> Option<NoteLink> {
    match &o.link {
        Link::Note(l) if o.brief.as_ref().is_some_and(|b| b.status == RowStatus::Valid) => Some((**l).clone()),
        _ => None,
    }
}

/// The date a billing reference gives its invoice.
fn reference_date(reference: &str) -> Option<NaiveDate> {
    let d = Document::billing_reference_field(reference, "invoice issue date")?;
    NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()
}

/// A note whose invoice is issued: its billing reference gives the issued date. One that had
/// none no longer says it is unknown (`INV-MAP-REFERENCE`); one whose export gave another says
/// so (`INV-REFERENCE-DATE`).
fn settle_date(o: &mut Outcome, link: &NoteLink, issued: NaiveDate) {
    let Some(doc) = o.document.as_mut() else { return };
    let invoice = link.reference.invoice.as_str();
    let before = doc.billing_reference.as_deref().and_then(reference_date);
    let note_date = doc.issue_date;
    doc.billing_reference = Some(Document::billing_reference_for(invoice, issued));
    if before != Some(issued) {
        // What the checks said of the date the export gave no longer holds: said of the issued one.
        o.withdraw_warning(FORM_CODE);
        if issued > note_date {
            let issue = ResultIssue {
                code: FORM_CODE.into(),
                severity: crate::validate::Severity::Warning,
                column: link.reference.column.clone(),
                value: Some(invoice.to_string()),
                message: format!(
                    "invoice {invoice} was issued dated {issued} (as the ledger holds it), after this note \
                     ({note_date}): a note corrects an invoice issued before it; check this note's date, or the \
                     invoice it names"
                ),
            };
            o.add_finding(link.row, issue);
        }
    }
    match before {
        None => o.withdraw_warning(REFERENCE_CODE),
        Some(b) if b != issued => {
            let whose = if link.reference.own_date == Some(b) {
                "on this note's row"
            } else {
                "on the invoice's row"
            };
            let issue = ResultIssue {
                code: DATE_CODE.into(),
                severity: crate::validate::Severity::Warning,
                column: link.reference.column.clone(),
                value: Some(invoice.to_string()),
                message: format!(
                    "invoice {invoice} was issued dated {issued} (as the ledger holds it), but the export gives it \
                     {b} ({whose}): this note's billing reference gives {issued}, the date the authority has; \
                     correct the date in the export"
                ),
            };
            o.add_finding(link.row, issue);
        }
        Some(_) => {}
    }
}

/// An invalid document's first errors: `BR-KSA-84 on line 2` (up to three, then how many more).
fn first_errors(o: &Outcome) -> String {
    let mut named: Vec<String> = Vec::new();
    for r in &o.rows {
        for i in r
            .result
            .issues
            .iter()
            .filter(|i| i.is_error() && i.code != "INV-DOCUMENT")
        {
            let one = match r.line {
                Some(line) => format!("{} on line {line}", i.code),
                None => i.code.clone(),
            };
            if !named.contains(&one) {
                named.push(one);
            }
        }
    }
    let more = named.len().saturating_sub(3);
    named.truncate(3);
    if more > 0 {
        named.push(format!("{more} more"));
    }
    named.join(", ")
}

/// A skipped document's skip rule cell: `Status "Voided"`.
fn skip_cell(o: &Outcome) -> String {
    o.rows
        .iter()
        .flat_map(|r| &r.result.issues)
        .find(|i| i.code == "INV-SKIP")
        .map(|i| match (&i.column, &i.value) {
            (Some(c), Some(v)) => format!("{c} {v:?}"),
            _ => i.message.clone(),
        })
        .unwrap_or_else(|| "a skip rule".into())
}

/// A verdict's codes, `BR-KSA-05, BR-KSA-06`.
fn codes(verdict: Option<&Verdict>) -> String {
    verdict.map(|v| v.codes.join(", ")).unwrap_or_default()
}

impl Outcome {
    /// Hold back a valid document: its rows invalid, `issue` on row `at`, the others pointing to
    /// it; its document kept to ask whether its number was issued before (`run`).
    pub(super) fn hold_back(&mut self, at: usize, issue: ResultIssue) {
        let line = self.rows.get(at).and_then(|r| r.line);
        let pointer = ResultIssue::error("INV-DOCUMENT", evaluate::other_rows_message(line.into_iter()));
        let failing = match line {
            Some(line) => format!("{} on line {line}", issue.code),
            None => issue.code.clone(),
        };
        let why = issue.render();
        for (i, r) in self.rows.iter_mut().enumerate() {
            if r.result.status != RowStatus::Valid {
                continue;
            }
            r.result.status = RowStatus::Invalid;
            if i == at {
                r.result.push_issue(issue.clone());
            } else if r.result.errors.is_empty() {
                r.result.push_issue(pointer.clone());
            }
        }
        if let Some(r) = &mut self.record {
            r.status = RowStatus::Invalid;
            r.add_codes([&issue]);
        }
        if let Some(b) = &mut self.brief {
            b.status = RowStatus::Invalid;
        }
        self.codes.push(issue.code);
        self.codes.sort();
        self.codes.dedup();
        if let Some(document) = self.document.take() {
            if document.invoice_type == crate::model::InvoiceType::Simplified {
                self.unsent = Some(Unsent {
                    kind: document.kind,
                    number: document.number.clone(),
                    issue_date: document.issue_date,
                    issue_time: document.issue_time,
                    why,
                });
            }
            self.held = Some(Box::new(Held {
                document: *document,
                failing: vec![failing],
                amounts_known: self.brief.as_ref().is_some_and(|b| b.payable.is_some()),
                unread: false,
            }));
        }
    }

    /// Add a finding to row `at` (and to the document's codes).
    pub(super) fn add_finding(&mut self, at: usize, issue: ResultIssue) {
        if let Some(r) = &mut self.record {
            r.add_codes([&issue]);
        }
        if !self.codes.contains(&issue.code) {
            self.codes.push(issue.code.clone());
            self.codes.sort();
        }
        if let Some(r) = self.rows.get_mut(at) {
            r.result.push_issue(issue);
        }
    }

    /// Take back the warnings of `code` the document's rows were given.
    fn withdraw_warning(&mut self, code: &str) {
        if !self.codes.iter().any(|c| c == code) {
            return;
        }
        for r in &mut self.rows {
            r.result.issues.retain(|i| i.code != code || i.is_error());
            r.result.warnings.retain(|w| finding_code(w) != code);
        }
        if let Some(r) = &mut self.record {
            r.warnings.retain(|c| c != code);
        }
        let still = self.rows.iter().any(|r| r.result.issues.iter().any(|i| i.code == code));
        if !still {
            self.codes.retain(|c| c != code);
        }
    }
}

#[cfg(test)]
#[path = "notes_tests.rs"]
mod tests;

//! One unit's outcome (a document's rows, record and brief, or a row that makes no document),
//! and what a dispatch verdict does to it.

use super::*;

/// One input row's part of an [`Outcome`].
pub(super) struct RowOutcome {
    /// The row (`None` for a record that could not be read), for the result files.
    pub(super) row: Option<Row>,
    /// Its status and findings.
    pub(super) result: ResultRow,
    /// Its line (or sheet row) in the input.
    pub(super) line: Option<u64>,
}

pub(super) struct Outcome {
    pub(super) rows: Vec<RowOutcome>,
    pub(super) brief: Option<DocBrief>,
    pub(super) codes: Vec<String>,
    pub(super) record: Option<DocumentRecord>,
    /// The document, when it is valid (and so may be dispatched).
    pub(super) document: Option<Box<Document>>,
    /// What names its artefacts: seller VAT, number, issue date and time.
    pub(super) artefact_key: Option<(String, String, chrono::NaiveDate, chrono::NaiveTime)>,
    /// An invalid simplified document (not sent, its window running).
    pub(super) unsent: Option<Unsent>,
}

impl Outcome {
    /// Apply a dispatch verdict to the document's rows, record and brief.
    pub(super) fn apply(&mut self, v: Verdict) {
        let Some(status) = v.status else { return };
        // The authority's answer repeats what the local check already said (BR-KSA-98...), on
        // whichever row of the document said it: keep one finding per rule code and document.
        let said: Vec<String> = self
            .rows
            .iter()
            .flat_map(|r| r.result.errors.iter().chain(&r.result.warnings))
            .map(|f| finding_code(f).to_string())
            .collect();
        for RowOutcome { result: rr, .. } in &mut self.rows {
            if rr.status != RowStatus::Valid {
                continue;
            }
            rr.status = status;
            rr.uuid.clone_from(&v.uuid);
            rr.qr.clone_from(&v.qr);
            rr.xml_file.clone_from(&v.xml_file);
            rr.qr_file.clone_from(&v.qr_file);
            rr.attempts = v.attempts;
            if let Some(at) = &v.accepted_at {
                rr.time = at.as_str().into();
            }
            for (list, more) in [(&mut rr.errors, &v.errors), (&mut rr.warnings, &v.warnings)] {
                for m in more {
                    let code = finding_code(m);
                    if !said.iter().any(|c| c == code) && !list.iter().any(|l| finding_code(l) == code) {
                        list.push(m.clone());
                    }
                }
            }
        }
        if let Some(r) = &mut self.record {
            if let Some(issued) = &v.issued {
                // What is issued is what the accountant reconciles: the issued figures, with the
                // export's rows and findings.
                let was = DocumentRecord::from_document(issued, status);
                r.kind = was.kind;
                r.invoice_type = was.invoice_type;
                r.issue_date = was.issue_date;
                r.issue_time = was.issue_time;
                r.currency = was.currency;
                (r.net, r.vat, r.vat_sar, r.gross, r.payable) = (was.net, was.vat, was.vat_sar, was.gross, was.payable);
            }
            r.status = status;
            r.uuid.clone_from(&v.uuid);
            r.xml_file.clone_from(&v.xml_file);
            r.qr_file.clone_from(&v.qr_file);
            for e in &v.errors {
                let code = finding_code(e).to_string();
                if !r.errors.contains(&code) {
                    r.errors.push(code);
                }
            }
            for w in &v.warnings {
                let code = finding_code(w).to_string();
                if !r.warnings.contains(&code) {
                    r.warnings.push(code);
                }
            }
        }
        if let Some(b) = &mut self.brief {
            b.status = status;
        }
        self.codes.extend(v.codes);
        self.codes.sort();
        self.codes.dedup();
    }
}

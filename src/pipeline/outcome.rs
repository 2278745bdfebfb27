//! One unit's outcome (a document's rows, record and brief, or a row that makes no document),
//! and what a dispatch verdict does to it.

use super::notes::FORM_CODE as REFERENCE_FORM_CODE;
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
    /// The document, when it is invalid and `run` is to ask whether its number was issued
    /// before ([`Dispatch::issued`]); never sent.
    pub(super) held: Option<Box<Held>>,
    /// The document, when a skip rule keeps it from being issued and `run` is to ask whether
    /// its number was issued before ([`Dispatch::withdrawn`]); never sent.
    pub(super) skipped: Option<Box<Skipped>>,
    /// What names its artefacts: seller VAT, number, issue date and time.
    pub(super) artefact_key: Option<(String, String, chrono::NaiveDate, chrono::NaiveTime)>,
    /// An invalid simplified document (not sent, its window running).
    pub(super) unsent: Option<Unsent>,
    /// An invoice, or a note naming the invoice it corrects (`notes.rs`).
    pub(super) link: super::notes::Link,
}

impl Outcome {
    /// Apply a dispatch verdict to the document's rows, record and brief: a valid document's,
    /// or an invalid one's whose number was issued (or maybe issued) before.
    pub(super) fn apply(&mut self, v: Verdict) {
        let Some(status) = v.status else { return };
        if self.is_invalid() {
            self.reopen(status == RowStatus::Accepted);
        }
        if self.brief.as_ref().is_some_and(|b| b.status == RowStatus::Skipped) {
            // Its rows take the verdict; `INV-SKIP` stays, a warning.
            for RowOutcome { result: rr, .. } in &mut self.rows {
                // (Not a header line repeated among them: no row of the document.)
                if rr.status == RowStatus::Skipped && !rr.document.is_empty() {
                    rr.status = RowStatus::Valid;
                }
            }
        }
        // The authority's answer repeats what the local check already said (BR-KSA-98...), on
        // whichever row of the document said it: keep one finding per rule code and document.
        let mut said: Vec<String> = self
            .rows
            .iter()
            .flat_map(|r| r.result.errors.iter().chain(&r.result.warnings))
            .map(|f| finding_code(f).to_string())
            .collect();
        // A note's billing reference without its invoice's date: the authority's warning of its
        // form (on its field, `billing_reference`) repeats what the mapping said on the note's
        // reference cell, and why (`INV-MAP-REFERENCE`), as the local rules' warning does.
        if said.iter().any(|c| c == crate::mapping::REFERENCE_CODE) {
            said.push(REFERENCE_FORM_CODE.to_string());
        }
        // A conflict is said on the document's first row; its other rows refer to that row. So is
        // a body the API refused as too large (the whole document's, not a row's).
        let too_large = v
            .errors
            .iter()
            .any(|e| finding_code(e) == crate::submit::BODY_TOO_LARGE_CODE);
        // And a document not sent because its result set lists it as issued elsewhere.
        let elsewhere = v.codes.iter().any(|c| c == crate::results::ISSUED_ELSEWHERE_CODE);
        let once = v.conflict || too_large || elsewhere;
        let mut first: Option<Option<u64>> = None;
        for RowOutcome { result: rr, line, .. } in &mut self.rows {
            if rr.status != RowStatus::Valid {
                continue;
            }
            let said_above = if once { first } else { None };
            first.get_or_insert(*line);
            rr.status = status;
            rr.uuid.clone_from(&v.uuid);
            rr.qr.clone_from(&v.qr);
            rr.xml_file.clone_from(&v.xml_file);
            rr.qr_file.clone_from(&v.qr_file);
            rr.attempts = v.attempts;
            if let Some(at) = &v.accepted_at {
                rr.time = at.as_str().into();
            }
            if let Some(at) = said_above {
                let text = if v.conflict {
                    conflict_said_on(at)
                } else {
                    super::evaluate::other_rows_message(at.into_iter())
                };
                rr.push_issue(ResultIssue::error("INV-DOCUMENT", text));
            }
            let errors: &[String] = if said_above.is_some() { &[] } else { &v.errors };
            for (list, more) in [(&mut rr.errors, errors), (&mut rr.warnings, &v.warnings)] {
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
                if code == REFERENCE_FORM_CODE && said.iter().any(|c| c == crate::mapping::REFERENCE_CODE) {
                    continue;
                }
                if !r.warnings.contains(&code) {
                    r.warnings.push(code);
                }
            }
        }
        if let Some(b) = &mut self.brief {
            b.status = status;
            b.issued_before = status == RowStatus::Accepted && v.issued_before;
            if v.conflict {
                b.conflict = true;
                let was = v.issued.as_deref();
                // A skipped document's rows were not read as a document, and those of one whose
                // kind could not be read were built as an invoice: it is what was issued.
                if let Some(was) = was.filter(|w| b.kind != kind_name(w.kind)) {
                    b.kind = kind_name(was.kind).to_string();
                    b.invoice_type = was.invoice_type.to_string();
                }
                let money = |f: fn(&Document) -> Decimal| was.map(f);
                b.issued = Some(Box::new(IssuedBrief {
                    uuid: v.uuid.clone(),
                    net: money(|d| d.legal_monitory_total.tax_exclusive_amount),
                    vat: money(|d| d.tax_total.tax_amount),
                    gross: money(|d| d.legal_monitory_total.tax_inclusive_amount),
                    payable: money(|d| d.legal_monitory_total.payable_amount),
                }));
            }
        }
        // Counted as the rows say them: not the authority's warning of a reference's form the
        // mapping's said first.
        let form_said = said.iter().any(|c| c == crate::mapping::REFERENCE_CODE);
        self.codes
            .extend(v.codes.into_iter().filter(|c| !(form_said && c == REFERENCE_FORM_CODE)));
        self.codes.sort();
        self.codes.dedup();
    }

    /// True for a document that failed the checks (before any verdict).
    pub(super) fn is_invalid(&self) -> bool {
        self.brief.as_ref().is_some_and(|b| b.status == RowStatus::Invalid)
    }

    /// Make an invalid document's rows ready for the verdict of its number, issued (or maybe
    /// issued) before. `issued`: it is (accepted, with or without a conflict), so the export's
    /// errors are no longer why it has its status: they stay on their rows as warnings, and the
    /// rows that only pointed at them (`INV-DOCUMENT`) no longer do. Otherwise (maybe issued,
    /// `failed`) they stay errors.
    fn reopen(&mut self, issued: bool) {
        for RowOutcome { result: rr, .. } in &mut self.rows {
            if rr.status != RowStatus::Invalid {
                continue;
            }
            rr.status = RowStatus::Valid;
            if !issued {
                continue;
            }
            rr.issues.retain(|i| i.code != "INV-DOCUMENT");
            rr.errors.retain(|e| finding_code(e) != "INV-DOCUMENT");
            for i in &mut rr.issues {
                i.severity = crate::validate::Severity::Warning;
            }
            let errors = std::mem::take(&mut rr.errors);
            rr.warnings.splice(0..0, errors);
        }
        if issued && let Some(r) = &mut self.record {
            let errors = std::mem::take(&mut r.errors);
            for code in errors.into_iter().rev() {
                if !r.warnings.contains(&code) {
                    r.warnings.insert(0, code);
                }
            }
        }
    }
}

/// What a conflict's other rows say: where it is said.
fn conflict_said_on(line: Option<u64>) -> String {
    let code = crate::submit::CONFLICT_CODE;
    match line {
        Some(line) => format!("issued earlier with other content: see {code} on line {line}, the document's first row"),
        None => format!("issued earlier with other content: see {code} on the document's first row"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An outcome of `n` rows (lines 2, 3, ...) of status `status`, the second row with `finding`.
    fn outcome(n: usize, status: RowStatus, finding: Option<ResultIssue>) -> Outcome {
        let rows = (0..n)
            .map(|i| {
                let mut result = ResultRow::new(status, "t");
                if i == 1
                    && let Some(f) = &finding
                {
                    result.push_issue(f.clone());
                } else if status == RowStatus::Invalid {
                    result.push_issue(ResultIssue::error(
                        "INV-DOCUMENT",
                        "the document has errors on another row (line 3)",
                    ));
                }
                RowOutcome {
                    row: None,
                    result,
                    line: Some(2 + i as u64),
                }
            })
            .collect();
        let mut record = DocumentRecord::new("INV-1", status);
        if let Some(f) = &finding {
            record.add_codes([f]);
        }
        Outcome {
            rows,
            brief: Some(DocBrief {
                number: "INV-1".into(),
                kind: "invoice".into(),
                invoice_type: "standard".into(),
                status,
                payable: None,
                lines: n,
                first_line: 2,
                conflict: false,
                issued: None,
                issued_before: false,
            }),
            codes: Vec::new(),
            record: Some(record),
            document: None,
            held: None,
            skipped: None,
            artefact_key: None,
            unsent: None,
            link: Default::default(),
        }
    }

    fn conflict() -> Verdict {
        Verdict {
            status: Some(RowStatus::Accepted),
            uuid: "u-1".into(),
            errors: vec!["INV-LEDGER-CONFLICT: invoice INV-1 is issued".into()],
            codes: vec!["INV-LEDGER-CONFLICT".into()],
            conflict: true,
            ..Verdict::default()
        }
    }

    fn errors(o: &Outcome) -> Vec<Vec<String>> {
        o.rows.iter().map(|r| r.result.errors.clone()).collect()
    }

    #[test]
    fn a_conflict_is_said_on_the_first_row_and_the_others_refer_to_it() {
        let mut o = outcome(3, RowStatus::Valid, None);
        o.apply(conflict());
        let refer = "INV-DOCUMENT: issued earlier with other content: see INV-LEDGER-CONFLICT on line 2, the \
                     document's first row";
        assert_eq!(
            errors(&o),
            vec![
                vec!["INV-LEDGER-CONFLICT: invoice INV-1 is issued".to_string()],
                vec![refer.to_string()],
                vec![refer.to_string()],
            ]
        );
        assert!(
            o.rows
                .iter()
                .all(|r| r.result.status == RowStatus::Accepted && r.result.uuid == "u-1")
        );
        let b = o.brief.as_ref().unwrap();
        assert!(
            b.conflict
                && b.issued
                    .as_ref()
                    .is_some_and(|i| i.uuid == "u-1" && i.payable.is_none())
        );
        assert_eq!(o.record.as_ref().unwrap().errors, vec!["INV-LEDGER-CONFLICT"]);
        // Any other verdict: on every row, as before.
        let mut o = outcome(2, RowStatus::Valid, None);
        o.apply(Verdict {
            status: Some(RowStatus::Rejected),
            errors: vec!["BR-KSA-05: no".into()],
            ..Verdict::default()
        });
        assert_eq!(errors(&o), vec![vec!["BR-KSA-05: no".to_string()]; 2]);
        assert!(!o.brief.as_ref().unwrap().conflict);
    }

    #[test]
    fn a_body_the_api_refused_as_too_large_is_said_on_the_first_row_only() {
        let mut o = outcome(3, RowStatus::Valid, None);
        let said = "BODY-TOO-LARGE: the API refused the request that sends this document as too large";
        o.apply(Verdict {
            status: Some(RowStatus::Rejected),
            errors: vec![said.into()],
            ..Verdict::default()
        });
        let refer = "INV-DOCUMENT: the document has errors on another row (line 2)".to_string();
        assert_eq!(
            errors(&o),
            vec![vec![said.to_string()], vec![refer.clone()], vec![refer]]
        );
        assert!(o.rows.iter().all(|r| r.result.status == RowStatus::Rejected));
        assert!(!o.brief.as_ref().unwrap().conflict);
    }

    #[test]
    fn an_invalid_document_found_issued_keeps_its_findings_as_warnings() {
        let finding = ResultIssue {
            code: "BR-KSA-F-04".into(),
            severity: crate::validate::Severity::Error,
            column: Some("Quantity".into()),
            value: Some("-1".into()),
            message: "negative".into(),
        };
        let mut o = outcome(2, RowStatus::Invalid, Some(finding.clone()));
        o.apply(conflict());
        assert!(o.rows.iter().all(|r| r.result.status == RowStatus::Accepted));
        assert_eq!(
            o.rows[0].result.errors,
            vec!["INV-LEDGER-CONFLICT: invoice INV-1 is issued"]
        );
        assert!(o.rows[0].result.warnings.is_empty(), "its INV-DOCUMENT is gone");
        assert!(o.rows[1].result.errors[0].starts_with("INV-DOCUMENT: issued earlier"));
        assert_eq!(o.rows[1].result.warnings, vec![finding.render()]);
        assert!(
            o.rows[1]
                .result
                .issues
                .iter()
                .any(|i| i.code == "BR-KSA-F-04" && !i.is_error())
        );
        let r = o.record.as_ref().unwrap();
        assert_eq!(
            (r.errors.clone(), r.warnings.clone()),
            (vec!["INV-LEDGER-CONFLICT".to_string()], vec!["BR-KSA-F-04".to_string()])
        );
        assert_eq!(o.brief.as_ref().unwrap().status, RowStatus::Accepted);

        // Maybe issued (failed): the findings stay errors.
        let mut o = outcome(2, RowStatus::Invalid, Some(finding.clone()));
        o.apply(Verdict {
            status: Some(RowStatus::Failed),
            errors: vec!["INV-SUBMIT-UNKNOWN: not sent".into()],
            ..Verdict::default()
        });
        assert!(o.rows.iter().all(|r| r.result.status == RowStatus::Failed));
        assert_eq!(
            o.rows[1].result.errors,
            vec![finding.render(), "INV-SUBMIT-UNKNOWN: not sent".to_string()]
        );
        assert_eq!(
            o.record.as_ref().unwrap().errors,
            vec!["BR-KSA-F-04", "INV-SUBMIT-UNKNOWN"]
        );
    }
}

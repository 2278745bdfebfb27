//! A document a skip rule keeps from being issued (`INV-SKIP`: `Voided`, `Draft`...): its rows
//! are `skipped`; in `run`, its number is kept to ask whether it was issued before (an issued
//! document cannot be withdrawn by marking it in the ERP).

use super::evaluate::row_outcome;
use super::*;

/// The outcome of a skipped document; `keep` (`run`, `watch`): its number and kind are kept
/// for [`Dispatch::withdrawn`]. Its kind is only known from its rows built as a document (a
/// kind column, or negative amounts making a credit note), so it is built for that, in `run`
/// only; when its rows make no document, its number is looked up under every kind.
pub(super) fn skipped(draft: DocDraft, bound: &Bound, opts: &CheckOptions, time: &str, keep: bool) -> Outcome {
    let first_line = draft.rows.first().and_then(DraftRow::source).map_or(0, |s| s.line);
    let (reason, column, value) = draft.skip.clone().unwrap_or_default();
    // Its number, when its rows make no document (a SAP document is grouped by ParentKey).
    let number = draft.number(bound);
    // Not looked up here: a document whose rows are apart in the export (each part would count
    // the issued document again); `run` looks its parts up read together (`parts.rs`).
    let kept = (keep && !draft.split && !draft.key.trim().is_empty()).then(|| {
        let built = build(&draft, bound, &opts.seller);
        let doc = built.document.as_ref();
        Box::new(Skipped {
            number: doc.map_or_else(|| number.clone(), |d| d.number.clone()),
            kind: doc.map(|d| d.kind),
            seller_vat: doc
                .and_then(|d| d.supplier_info.vat_number.clone())
                .or_else(|| opts.seller.vat_number.clone()),
            reason: reason.clone(),
            column: column.clone(),
            value: value.clone(),
            unread: None,
        })
    });
    // An invoice, or a document whose kind is not known (its rows were not built), which may be
    // one: a note correcting it is held back (`notes.rs`).
    let kind = kept.as_ref().and_then(|k| k.kind).or(draft.kind);
    let link = match kind {
        None | Some(crate::model::DocumentKind::Invoice) => super::notes::Link::Invoice,
        Some(_) => super::notes::Link::None,
    };
    let issue = ResultIssue::from(&Issue::warning("INV-SKIP", Some(column), Some(value), reason));
    let text = issue.render();
    let row_count = draft.rows.iter().filter(|r| !r.outside_document()).count() as u64;
    let rows = draft
        .rows
        .into_iter()
        .map(|r| {
            let mut rr = ResultRow::new(RowStatus::Skipped, time);
            if r.outside_document() {
                // A header line repeated inside the document's rows (or a row of no data) is no
                // row of it.
                for i in &r.issues {
                    rr.push_issue(ResultIssue::from(i));
                }
            } else {
                rr.document = number.as_str().into();
                rr.push_rendered(issue.clone(), text.clone());
            }
            row_outcome(r, rr)
        })
        .collect();
    let mut record = DocumentRecord::new(&number, RowStatus::Skipped);
    record.first_line = Some(first_line);
    record.rows = row_count;
    record.add_codes(&[issue]);
    Outcome {
        rows,
        record: Some(record),
        brief: Some(DocBrief {
            number,
            kind: String::new(),
            invoice_type: String::new(),
            status: RowStatus::Skipped,
            payable: None,
            lines: 0,
            first_line,
            conflict: false,
            issued: None,
            issued_before: false,
        }),
        codes: vec!["INV-SKIP".into()],
        document: None,
        held: None,
        skipped: kept,
        artefact_key: None,
        unsent: None,
        link,
    }
}

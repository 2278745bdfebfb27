//! Documents an export's result set lists as accepted while this state folder's ledger holds
//! nothing under their numbers: issued through another state folder (another `--state`, another
//! working folder, a state folder deleted). Sending them would issue each a second time under a
//! new UUID; they are not sent (`INV-ISSUED-ELSEWHERE`, `failed`), and the run says which state
//! folder to use instead.

use crate::model::{Document, DocumentKind};
use crate::pipeline::{Verdict, kind_name};
use crate::results::{AcceptedBefore, ISSUED_ELSEWHERE_CODE, RowStatus};
use std::path::Path;

/// The documents of `docs` that `before` lists as accepted (by index), with the UUID it gives.
pub(super) fn listed<'a>(before: &'a AcceptedBefore, docs: &[Document]) -> Vec<(usize, &'a str)> {
    if before.is_empty() {
        return Vec::new();
    }
    docs.iter()
        .enumerate()
        .filter_map(|(i, d)| before.uuid(kind_name(d.kind), &d.number).map(|u| (i, u)))
        .collect()
}

/// The numbers of `listed` to ask the ledger about, each under its kind.
pub(super) fn asked(docs: &[Document], listed: &[(usize, &str)]) -> Vec<(String, Option<DocumentKind>)> {
    listed
        .iter()
        .map(|&(i, _)| (docs[i].number.clone(), Some(docs[i].kind)))
        .collect()
}

/// The verdict of a document `before` lists as accepted (`uuid`) that the ledger of `state`
/// does not hold: not sent.
pub(super) fn verdict(before: &AcceptedBefore, doc: &Document, uuid: &str, state: &Path) -> Verdict {
    Verdict {
        status: Some(RowStatus::Failed),
        errors: vec![format!(
            "{ISSUED_ELSEWHERE_CODE}: not sent: {} lists {} {} as accepted (UUID {uuid}), but the ledger of the \
             state folder {} holds nothing under that number, so it was issued through another state folder; \
             sending it would issue it twice. Run with the state folder that issued it (--state, or the \
             working folder of that run); if it was never issued (those results came from a trial), move \
             that result set away and run again",
            before.file().display(),
            kind_name(doc.kind).replace('_', " "),
            doc.number,
            state.display()
        )],
        codes: vec![ISSUED_ELSEWHERE_CODE.to_string()],
        ..Verdict::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::example;

    #[test]
    fn only_the_documents_listed_as_accepted_are_asked_about_and_the_verdict_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("x.documents.csv"),
            "document,kind,status,uuid\nINV-2,invoice,accepted,u-2\nINV-3,credit_note,accepted,u-3\n",
        )
        .unwrap();
        let before = AcceptedBefore::read(dir.path(), Path::new("x.csv"));
        let docs: Vec<Document> = ["INV-1", "INV-2", "INV-3"]
            .into_iter()
            .map(example::standard_invoice)
            .collect();
        let l = listed(&before, &docs);
        assert_eq!(l, [(1, "u-2")], "INV-3 is listed as a credit note, not an invoice");
        assert_eq!(asked(&docs, &l), [("INV-2".to_string(), Some(DocumentKind::Invoice))]);
        let v = verdict(&before, &docs[1], "u-2", Path::new(".invoicedrop"));
        assert_eq!(v.status, Some(RowStatus::Failed));
        assert_eq!(v.codes, [ISSUED_ELSEWHERE_CODE]);
        assert!(
            v.errors[0].contains("x.documents.csv lists invoice INV-2 as accepted (UUID u-2)")
                && v.errors[0].contains("the state folder .invoicedrop holds nothing"),
            "{}",
            v.errors[0]
        );
        assert!(listed(&AcceptedBefore::default(), &docs).is_empty());
    }
}

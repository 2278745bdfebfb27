//! A note as its export gives it, compared with what was issued under its number: a date the
//! tool added to its billing reference is not a change of the note.

use super::ledger::{Decision, content_hash};

/// The content hash of a note as its own rows give its billing reference, when the reference it
/// goes with differs (a date found elsewhere: the invoice's row in the export, or the issued
/// invoice in the ledger): `None` for any other document.
///
/// The rule: a date the tool adds to a note's billing reference is not a change of the note. A
/// note issued without its invoice's date (its invoice not yet issued when the note was sent,
/// or sent by a build that did not wait for it) is the note its export still gives, once the
/// ledger knows the date: the same export dropped again is reported issued before, not
/// `INV-LEDGER-CONFLICT`. What the note's own rows give (its number, a date of its own) and every
/// other field are compared as always.
pub(crate) fn as_exported_hash(document: &crate::model::Document) -> Option<String> {
    let exported = document.exported_reference.as_ref()?;
    if document.billing_reference.as_ref() == Some(exported) {
        return None;
    }
    let mut own = document.clone();
    own.billing_reference = Some(exported.clone());
    serde_json::to_vec(&own).ok().map(|body| content_hash(&body))
}

/// A ledger decision, a conflict turned into what it is when what was issued is the note as its
/// own rows give its reference (`exported`: that content's hash, [`as_exported_hash`]): issued
/// before, not a conflict.
pub(super) fn same_as_exported(decision: Decision, exported: Option<&str>) -> Decision {
    match decision {
        Decision::Conflict(e) if exported == Some(e.content_hash.as_str()) => Decision::Done(e),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submit::DocumentKey;

    fn entry(body: &[u8], state: crate::submit::LedgerState) -> Box<crate::submit::LedgerEntry> {
        Box::new(crate::submit::LedgerEntry {
            key: DocumentKey {
                onboard_id: "d".into(),
                kind: crate::model::DocumentKind::CreditNote,
                number: "CN-1".into(),
            },
            idempotency_key: "k".into(),
            content_hash: content_hash(body),
            body: body.to_vec(),
            state,
            attempts: 1,
            last_status: Some(200),
            response: None,
            uuid: Some("u".into()),
            created_at: String::new(),
            updated_at: String::new(),
            last_sent_at: None,
        })
    }

    #[test]
    fn a_note_issued_without_the_date_found_for_it_since_is_the_same_note() {
        use crate::model::Document;
        let mut note = crate::model::example::credit_note("CN-1", "INV-1");
        // Issued without its invoice's date: what the export's own rows give.
        note.billing_reference = Some(Document::number_only_reference("INV-1"));
        let issued = serde_json::to_vec(&note).unwrap();
        // The export unchanged; the date now found in the ledger.
        note.exported_reference = note.billing_reference.clone();
        assert_eq!(as_exported_hash(&note), None, "nothing added: compared as always");
        note.billing_reference = Some(Document::billing_reference_for(
            "INV-1",
            chrono::NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
        ));
        let exported = as_exported_hash(&note);
        assert_eq!(exported.as_deref(), Some(content_hash(&issued).as_str()));
        let accepted = crate::submit::LedgerState::Accepted;
        let d = same_as_exported(Decision::Conflict(entry(&issued, accepted)), exported.as_deref());
        assert!(matches!(d, Decision::Done(_)), "{d:?}");
        // Another change (the reason) is a conflict still.
        note.payment_means_instruction_note = Some("Other".into());
        let d = same_as_exported(
            Decision::Conflict(entry(&issued, accepted)),
            as_exported_hash(&note).as_deref(),
        );
        assert!(matches!(d, Decision::Conflict(_)), "{d:?}");
    }
}

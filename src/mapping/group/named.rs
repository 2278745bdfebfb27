//! A note's corrected "invoice" that is a credit or debit note: found among the documents the
//! grouper closed before the note, or those of a file checked before its own.

use super::super::build::{NamedNote, NoteAt};
use super::{Grouper, hash};
use crate::model::DocumentKind;

impl Grouper {
    /// The credit or debit note `number` closed before in this file, or of a file checked
    /// before, when no invoice of that number is there either.
    pub(super) fn named_note(&self, number: &str) -> Option<NamedNote> {
        if self.seen.contains_key(&hash(number, Some(DocumentKind::Invoice))) {
            return None;
        }
        let here = [DocumentKind::CreditNote, DocumentKind::DebitNote]
            .into_iter()
            .find_map(|k| Some((k, self.seen.get(&hash(number, Some(k)))?.line)));
        match here {
            Some((kind, line)) => Some(NamedNote {
                kind,
                at: NoteAt::Above(line),
            }),
            None => {
                let u = self.used.as_ref()?;
                let (kind, file, line) = u.used.named_note(number, u.file)?;
                Some(NamedNote {
                    kind,
                    at: NoteAt::Earlier(file.to_string(), line),
                })
            }
        }
    }
}

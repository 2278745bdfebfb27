//! What a reader says only once it has read rows (counts of blank rows, of replaced
//! characters, of spreadsheet error cells...), after the rows were handed on (boxed in an
//! iterator, moved to another thread): through a [`LateNotes`] handle taken before, and read once
//! the rows have run out.

use std::sync::{Arc, Mutex, PoisonError};

/// The notes a reader adds while its rows are read, shared with whoever reads them at the end.
#[derive(Debug, Clone, Default)]
pub struct LateNotes(Arc<Mutex<Vec<String>>>);

impl LateNotes {
    /// The notes added so far, in the order they were added; each is handed out once.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    pub(crate) fn extend(&self, notes: &[String]) {
        if !notes.is_empty() {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(notes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_handed_out_once_in_order_through_any_clone() {
        let notes = LateNotes::default();
        let other = notes.clone();
        notes.extend(&["a".to_string(), "b".to_string()]);
        notes.extend(&[]);
        other.extend(&["c".to_string()]);
        assert_eq!(other.take(), ["a", "b", "c"]);
        assert!(notes.take().is_empty());
    }
}

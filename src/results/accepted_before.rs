//! The documents an export's result set says were accepted, read before `run` writes the set
//! again.
//!
//! A ledger is what knows which numbers were issued, and it lives in the state folder. A `run`
//! whose state folder is not the one that issued an export (another `--state`, another working
//! folder, a state folder deleted) finds nothing in its ledger and would issue every document a
//! second time, under new UUIDs. The result set it is about to replace knows better: what it
//! lists as accepted, with a UUID, was issued. `run` asks [`AcceptedBefore`] before sending a
//! number its ledger does not hold, and does not send it.

use super::documents::{documents_path, visit_documents_where};
use super::kept::number_key;
use super::writer::input_stem;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The code of a document `run` does not send because the export's result set lists it as
/// accepted while the ledger holds nothing under its number: issued, through another state
/// folder.
pub const ISSUED_ELSEWHERE_CODE: &str = "INV-ISSUED-ELSEWHERE";

/// The accepted documents of an export's result set: kind and number, with the UUID.
#[derive(Debug, Default)]
pub struct AcceptedBefore {
    uuids: HashMap<u64, Box<str>>,
    file: PathBuf,
}

impl AcceptedBefore {
    /// The accepted documents (with a UUID) that `X.documents.csv` of `input` in `results_dir`
    /// lists; none when there is no such file or it cannot be read (nothing is known then).
    pub fn read(results_dir: &Path, input: &Path) -> AcceptedBefore {
        let file = documents_path(results_dir, &input_stem(input));
        let mut uuids = HashMap::new();
        let read = visit_documents_where(
            &file,
            |p| p.status == "accepted" && !p.uuid.trim().is_empty(),
            |r| {
                uuids.insert(
                    number_key(r.kind.trim().as_bytes(), r.document.trim().as_bytes()),
                    r.uuid.trim().into(),
                );
            },
        );
        if read.is_err() {
            uuids.clear();
        }
        AcceptedBefore { uuids, file }
    }

    /// No document is known to be accepted.
    pub fn is_empty(&self) -> bool {
        self.uuids.is_empty()
    }

    /// The UUID the set gives the document of this kind (`invoice`, `credit_note`...) and
    /// number, when it lists it as accepted.
    pub fn uuid(&self, kind: &str, number: &str) -> Option<&str> {
        self.uuids
            .get(&number_key(kind.trim().as_bytes(), number.trim().as_bytes()))
            .map(|u| &**u)
    }

    /// The `X.documents.csv` read.
    pub fn file(&self) -> &Path {
        &self.file
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_accepted_documents_with_a_uuid_are_known() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("x.documents.csv"),
            "\u{feff}document,kind,status,uuid\nINV-1,invoice,accepted,u-1\nINV-2,invoice,rejected,u-2\n\
             INV-3,invoice,accepted,\nCN-1,credit_note,accepted,u-3\n",
        )
        .unwrap();
        let a = AcceptedBefore::read(dir.path(), Path::new("in/x.csv"));
        assert_eq!(a.uuid("invoice", "INV-1"), Some("u-1"));
        assert_eq!(a.uuid("credit_note", "CN-1"), Some("u-3"));
        for (kind, number) in [
            ("invoice", "INV-2"),
            ("invoice", "INV-3"),
            ("invoice", "CN-1"),
            ("debit_note", "INV-1"),
        ] {
            assert_eq!(a.uuid(kind, number), None, "{kind} {number}");
        }
        assert_eq!(a.file(), dir.path().join("x.documents.csv"));
        assert!(AcceptedBefore::read(dir.path(), Path::new("y.csv")).is_empty());
        std::fs::write(dir.path().join("z.documents.csv"), "nothing,here\n").unwrap();
        assert!(AcceptedBefore::read(dir.path(), Path::new("z.csv")).is_empty());
    }
}

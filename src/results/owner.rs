//! Whose result set `X.*` of a results folder is: the input its `X.summary.json` names.
//!
//! Two exports with one file name (Zoho names every export `Invoice.csv`; `2024/Invoice.csv` and
//! `2025/Invoice.csv`) have one result set name, and [`ResultWriter::finish`] replaces a set as
//! a whole, the signed XML and QR files of the documents already issued included. So `check` and
//! `run` ask [`owner`] before they read an input and refuse it when the set is another input's.
//!
//! [`ResultWriter::finish`]: super::ResultWriter::finish

use super::RowStatus;
use super::summary::Summary;
use std::path::{Path, PathBuf};

/// Whose the result set of an input's name is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// There is no such set, or no summary of it that can be read (nothing says whose it is).
    Free,
    /// The set is this input's, however the input is given now (another relative path, a link).
    Same,
    /// The set is another input's.
    Other(OtherSet),
}

/// A result set of another input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherSet {
    /// The other input: as an absolute path when the summary has it, else as that run was given
    /// it (summaries written before `input_paths`).
    pub input: String,
    /// When the set was written (RFC 3339).
    pub time: String,
    /// Its accepted documents, each with its signed XML and QR image in the set.
    pub accepted: u64,
}

/// `input` as an absolute path with links resolved; when it cannot be resolved (it is not
/// there), as an absolute path.
pub fn resolved(input: &Path) -> PathBuf {
    input
        .canonicalize()
        .or_else(|_| std::path::absolute(input))
        .unwrap_or_else(|_| input.to_path_buf())
}

/// Whose the result set that `input`'s results would replace in `results_dir` is.
///
/// A summary that records the input's absolute path ([`Summary::input_paths`]) is this input's
/// when that path is this input's. A summary written before that records only the path as given
/// to that run, relative to wherever it ran: it is this input's when that text is this input's
/// as given now, or names this input from here; anything else is taken as another input's (it
/// cannot be told, and replacing another input's issued documents is what this guards against).
pub fn owner(results_dir: &Path, input: &Path) -> Owner {
    let path = results_dir.join(format!("{}.summary.json", super::input_stem(input)));
    let Some(summary) = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Summary>(&bytes).ok())
    else {
        return Owner::Free;
    };
    let this = resolved(input);
    let names_this =
        |recorded: &str| Path::new(recorded) == this || Path::new(recorded).canonicalize().is_ok_and(|p| p == this);
    let (other, same) = match (summary.input_paths.first(), summary.files.first()) {
        (Some(absolute), _) => (absolute, names_this(absolute)),
        (None, Some(given)) => (given, *given == input.display().to_string() || names_this(given)),
        (None, None) => return Owner::Free,
    };
    if same {
        return Owner::Same;
    }
    Owner::Other(OtherSet {
        input: other.clone(),
        time: summary.time.clone(),
        accepted: summary.count(RowStatus::Accepted),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ResultWriter;

    /// Write `input`'s result set into `results` (with no rows), then forget the absolute path
    /// when `old` (a summary of a version before `input_paths`).
    fn set_of(results: &Path, input: &Path, old: bool) {
        ResultWriter::create(results, input, &["a".to_string()])
            .unwrap()
            .finish()
            .unwrap();
        if old {
            let path = results.join(format!("{}.summary.json", super::super::input_stem(input)));
            let mut s: Summary = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            assert_eq!(s.input_paths, [resolved(input).display().to_string()]);
            s.input_paths.clear();
            std::fs::write(&path, serde_json::to_vec(&s).unwrap()).unwrap();
        }
    }

    #[test]
    fn a_set_is_its_inputs_by_whatever_path_and_another_inputs_of_the_same_name_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        for y in ["2024", "2025"] {
            std::fs::create_dir(dir.path().join(y)).unwrap();
            std::fs::write(dir.path().join(y).join("Invoice.csv"), "a\n1\n").unwrap();
        }
        let first = dir.path().join("2024/Invoice.csv");
        let second = dir.path().join("2025/Invoice.csv");
        assert_eq!(owner(&results, &first), Owner::Free);
        set_of(&results, &first, false);
        assert_eq!(owner(&results, &first), Owner::Same);
        assert_eq!(
            owner(&results, &dir.path().join("2025/../2024/./Invoice.csv")),
            Owner::Same
        );
        #[cfg(unix)]
        {
            let link = dir.path().join("link.csv");
            std::os::unix::fs::symlink(&first, &link).unwrap();
            // Another stem: no set of its name.
            assert_eq!(owner(&results, &link), Owner::Free);
            let linked = dir.path().join("linked");
            std::os::unix::fs::symlink(dir.path().join("2024"), &linked).unwrap();
            assert_eq!(owner(&results, &linked.join("Invoice.csv")), Owner::Same);
        }
        let Owner::Other(other) = owner(&results, &second) else {
            panic!("2025's export replaces 2024's set")
        };
        assert_eq!(other.input, resolved(&first).display().to_string());
        assert_eq!(other.accepted, 0);
        // Another extension, the same stem: another input.
        let xlsx = dir.path().join("2024/Invoice.xlsx");
        assert!(matches!(owner(&results, &xlsx), Owner::Other(_)));
        // The export moved away: its set is still another input's (nothing tells it was this one).
        std::fs::rename(&first, dir.path().join("2024/Invoice.old")).unwrap();
        assert!(matches!(owner(&results, &second), Owner::Other(_)));
        // A summary that cannot be read says nothing.
        std::fs::write(results.join("Invoice.summary.json"), "{").unwrap();
        assert_eq!(owner(&results, &second), Owner::Free);
    }

    #[test]
    fn a_set_written_before_the_absolute_path_is_known_by_the_path_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        std::fs::create_dir(dir.path().join("2024")).unwrap();
        std::fs::create_dir(dir.path().join("2025")).unwrap();
        let first = dir.path().join("2024/Invoice.csv");
        let second = dir.path().join("2025/Invoice.csv");
        std::fs::write(&first, "a\n1\n").unwrap();
        std::fs::write(&second, "a\n2\n").unwrap();
        set_of(&results, &first, true);
        // The same text, or a path that names the same file from here.
        assert_eq!(owner(&results, &first), Owner::Same);
        assert_eq!(
            owner(&results, &dir.path().join("2024/../2024/Invoice.csv")),
            Owner::Same
        );
        let Owner::Other(other) = owner(&results, &second) else {
            panic!("2025's export replaces 2024's set")
        };
        assert_eq!(other.input, first.display().to_string());
        // A relative path that names nothing from here (given where that run ran): another's.
        let path = results.join("Invoice.summary.json");
        let mut s: Summary = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        s.files = vec!["elsewhere/Invoice.csv".into()];
        std::fs::write(&path, serde_json::to_vec(&s).unwrap()).unwrap();
        assert!(matches!(owner(&results, &first), Owner::Other(_)));
    }
}

//! Whose result set `X.*` of a results folder is: the input its `X.summary.json` names.
//!
//! Two exports with one file name (Zoho names every export `Invoice.csv`; `2024/Invoice.csv` and
//! `2025/Invoice.csv`) have one result set name, and [`ResultWriter::finish`] replaces a set as
//! a whole, the signed XML and QR files of the documents already issued included. So `check` and
//! `run` ask [`owner`] before they read an input and refuse it when the set is another input's.
//!
//! Two sets of different names can share an artefacts folder too: the folder is the set's name
//! made safe ([`folder_name`]), so `a:b` and `a-b` both have `a-b/`, and finishing either set
//! replaces the other's signed XML. [`Folders`] lists the sets of a results folder by their
//! artefacts folder, and [`folder_owner`] names another input's set whose folder an input's
//! results would replace.
//!
//! [`ResultWriter::finish`]: super::ResultWriter::finish

use super::RowStatus;
use super::artefacts::folder_name;
use super::summary::Summary;
use std::collections::BTreeMap;
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
    owner_of_set(results_dir, &super::input_stem(input), input)
}

/// Whose the set `stem` of `results_dir` is, as seen from `input` (see [`owner`]).
fn owner_of_set(results_dir: &Path, stem: &str, input: &Path) -> Owner {
    let path = results_dir.join(format!("{stem}.summary.json"));
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

/// The result sets of a results folder (the names `X` of its `X.result.csv` and
/// `X.summary.json`) by their artefacts folder, as they were when it was read.
#[derive(Debug, Clone, Default)]
pub struct Folders {
    sets: BTreeMap<String, Vec<String>>,
}

impl Folders {
    /// The sets of `results_dir` (none when it cannot be listed: it is not there yet).
    pub fn read(results_dir: &Path) -> Folders {
        let mut folders = Folders::default();
        let Ok(entries) = std::fs::read_dir(results_dir) else {
            return folders;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(set) = [".result.csv", ".summary.json"]
                .iter()
                .find_map(|suffix| name.strip_suffix(suffix))
            else {
                continue;
            };
            let sets = folders.sets.entry(folder_name(set)).or_default();
            if !sets.iter().any(|s| s == set) {
                sets.push(set.to_string());
            }
        }
        for sets in folders.sets.values_mut() {
            sets.sort();
        }
        folders
    }

    /// The sets other than `stem` whose artefacts folder is `stem`'s, in name order.
    pub fn others<'a>(&'a self, stem: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.sets
            .get(&folder_name(stem))
            .into_iter()
            .flatten()
            .map(String::as_str)
            .filter(move |s| *s != stem)
    }
}

/// A result set of another name and another input whose artefacts folder is an input's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedFolder {
    /// The artefacts folder (`a-b`).
    pub folder: String,
    /// The other set's name (`a:b`, of `a:b.summary.json`).
    pub set: String,
    /// Whose that set is.
    pub other: OtherSet,
}

/// Another input's result set of another name whose artefacts folder `input`'s results would
/// replace (`a:b.csv`'s `a-b/`, for `a-b.csv`), among `folders` of `results_dir`. A set whose
/// summary says it is this input's (given by a link of another name) is not another input's; a
/// set without a summary that can be read says nothing, as for [`owner`].
pub fn folder_owner(folders: &Folders, results_dir: &Path, input: &Path) -> Option<SharedFolder> {
    let stem = super::input_stem(input);
    folders
        .others(&stem)
        .find_map(|set| match owner_of_set(results_dir, set, input) {
            Owner::Other(other) => Some(SharedFolder {
                folder: folder_name(&stem),
                set: set.to_string(),
                other,
            }),
            Owner::Same | Owner::Free => None,
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

    #[test]
    fn sets_of_other_names_with_one_artefacts_folder_are_found_and_told_apart_by_their_input() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        assert_eq!(Folders::read(&results).others("a-b").count(), 0, "no folder yet");
        for name in ["a:b.csv", "a-b.csv", "a?b.csv", "c.csv"] {
            std::fs::write(dir.path().join(name), "a\n1\n").unwrap();
        }
        let colon = dir.path().join("a:b.csv");
        let dash = dir.path().join("a-b.csv");
        set_of(&results, &colon, false);
        set_of(&results, &dir.path().join("c.csv"), false);
        // A result file without its summary names a set too (an interrupted write).
        std::fs::write(results.join("a?b.result.csv"), "").unwrap();
        let folders = Folders::read(&results);
        assert_eq!(folders.others("a-b").collect::<Vec<_>>(), ["a:b", "a?b"]);
        assert_eq!(folders.others("a:b").collect::<Vec<_>>(), ["a?b"]);
        assert_eq!(folders.others("c").count(), 0);
        let shared = folder_owner(&folders, &results, &dash).expect("a:b's a-b/ is in the way");
        assert_eq!((shared.folder.as_str(), shared.set.as_str()), ("a-b", "a:b"));
        assert_eq!(shared.other.input, resolved(&colon).display().to_string());
        // Its own set, and a set without a summary, are nobody else's.
        assert_eq!(folder_owner(&folders, &results, &colon), None);
        assert_eq!(folder_owner(&folders, &results, &dir.path().join("c.csv")), None);
        #[cfg(unix)]
        {
            // The same export by a link of the other name: its own folder.
            let linked = dir.path().join("linked");
            std::fs::create_dir(&linked).unwrap();
            std::os::unix::fs::symlink(&colon, linked.join("a-b.csv")).unwrap();
            assert_eq!(folder_owner(&folders, &results, &linked.join("a-b.csv")), None);
        }
    }
}

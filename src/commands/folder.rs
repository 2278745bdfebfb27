//! The results folder given with `--results` (and the state folder, `--state`), looked at before
//! any work starts: a path that is
//! a file (or runs through one) is refused by name with what to do, not with the system's bare
//! "File exists (os error 17)" on every input file.

use super::json::Fatal;
use std::path::{Path, PathBuf};

/// The nearest part of `path` (itself or a parent) that exists and is not a folder, if any.
pub(super) fn blocker(path: &Path) -> Option<PathBuf> {
    for part in path.ancestors() {
        if part.as_os_str().is_empty() {
            return None;
        }
        match std::fs::metadata(part) {
            Ok(m) if m.is_dir() => return None,
            Ok(_) => return Some(part.to_path_buf()),
            Err(_) => continue,
        }
    }
    None
}

/// Refuse a results folder `path` that is a file or runs through one, by name, with what to do.
/// Nothing is created (`check` makes the folder when it writes the first result file).
pub(super) fn no_file_in_the_way(path: &Path) -> anyhow::Result<()> {
    if let Some(file) = blocker(path) {
        return Err(Fatal::usage(format!(
            "--results {}: {} is a file, not a folder: give --results a folder for the result files \
             (it is created when missing), or move {} out of the way",
            path.display(),
            file.display(),
            file.display()
        ))
        .into());
    }
    Ok(())
}

/// Create the results folder `path` (and its parents) if missing, before anything is sent
/// (`run`, `watch`). A file in the way is said by name, with what to do.
pub(super) fn results_folder(path: &Path) -> anyhow::Result<()> {
    no_file_in_the_way(path)?;
    std::fs::create_dir_all(path).map_err(|e| -> anyhow::Error {
        Fatal::usage(format!(
            "--results {}: cannot create this folder ({e}); give --results a folder you may write to",
            path.display()
        ))
        .into()
    })?;
    writable(path)
}

/// Refuse a results folder in which no file can be made (another owner, a read-only mount):
/// found now by making (and removing) an empty hidden file there, not after the first file's
/// documents were sent, nor by a watcher that would move every export to `failed/`.
fn writable(path: &Path) -> anyhow::Result<()> {
    let probe = tempfile::Builder::new()
        .prefix(".invoicedrop-write-test.")
        .suffix(".tmp")
        .tempfile_in(path);
    match probe {
        Ok(file) => {
            // Removed here; one a kill leaves behind is an empty hidden file, passed over.
            let _ = file.close();
            Ok(())
        }
        Err(e) => Err(Fatal::usage(format!(
            "--results {}: cannot write in this folder ({}); the result files and status.json are written there: \
             give --results a folder this user may write to, or fix its owner or permissions (or its read-only \
             mount)",
            path.display(),
            e.kind()
        ))
        .into()),
    }
}

/// Refuse a state folder `path` (`--state`) that is a file or runs through one (a typo in a unit
/// file), by name, before its ledger is looked for: not "cannot open the ledger ... restore it
/// from a backup", which sends the user after a ledger that does not exist.
pub(super) fn state_folder(path: &Path) -> anyhow::Result<()> {
    if let Some(file) = blocker(path) {
        return Err(Fatal::usage(format!(
            "--state {}: {} is a file, not a folder: give --state the state folder (the ledger of the documents \
             sent, kept from run to run; it is created when missing), or move {} out of the way",
            path.display(),
            file.display(),
            file.display()
        ))
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_the_way_is_named_and_a_missing_folder_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.csv");
        std::fs::write(&file, "x").unwrap();
        for p in [file.clone(), file.join("day"), file.join("day/night")] {
            assert_eq!(blocker(&p), Some(file.clone()), "{}", p.display());
            let e = results_folder(&p).unwrap_err().to_string();
            assert!(
                e.contains(&format!("{} is a file, not a folder", file.display())) && !e.contains("os error"),
                "{e}"
            );
        }
        let made = dir.path().join("a/b");
        assert_eq!(blocker(&made), None);
        results_folder(&made).unwrap();
        assert!(made.is_dir());
        results_folder(&made).unwrap();
        assert_eq!(blocker(Path::new("")), None);
    }

    #[test]
    fn a_state_folder_that_is_a_file_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("env");
        std::fs::write(&file, "INVOICEDROP_API_URL=https://api.example.com\n").unwrap();
        for p in [file.clone(), file.join("state")] {
            let e = state_folder(&p).unwrap_err().to_string();
            assert!(
                e.contains(&format!("{} is a file, not a folder: give --state", file.display())),
                "{e}"
            );
        }
        state_folder(&dir.path().join("state")).unwrap();
        state_folder(dir.path()).unwrap();
    }
}

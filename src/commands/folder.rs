//! The results folder given with `--results`, made ready before any work starts: a path that is
//! a file (or runs through one) is refused by name with what to do, not with the system's bare
//! "File exists (os error 17)" on every input file.

use super::json::Fatal;
use std::path::{Path, PathBuf};

/// The nearest part of `path` (itself or a parent) that exists and is not a folder, if any.
fn blocker(path: &Path) -> Option<PathBuf> {
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
    std::fs::create_dir_all(path).map_err(|e| {
        Fatal::usage(format!(
            "--results {}: cannot create this folder ({e}); give --results a folder you may write to",
            path.display()
        ))
        .into()
    })
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
}

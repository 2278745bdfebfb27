//! What a killed process left aside in a results folder, and removing it.
//!
//! A writer puts everything aside under hidden names made by [`aside`](super::atomic::aside),
//! `.NAME.PID.N.SUFFIX`: temporary files (`.tmp`), the artefacts' staging folder (`.staging`)
//! and the replaced artefacts folder (`.old`). A writer that ends (even with an error or a
//! panic) removes them; a process killed with SIGKILL, or a machine that stops, leaves them
//! behind, and nothing else ever would: a staging folder holds a whole run's signed XML and QR
//! images, a temporary result file up to hundreds of megabytes.
//!
//! [`clean`] removes such a leftover only when no live process can own it:
//!
//! - **its process is gone**: the `PID` in its name is not a process on this machine (and is not
//!   this process). Where that cannot be told (no `/proc`), nothing is removed;
//! - **and its lock is free**: the writer holds an exclusive lock, for as long as it writes, on
//!   each temporary file and on the `.lock` file inside its staging folder ([`hold`],
//!   [`StagingLock`]). The lock is what counts when the folder is shared with other machines,
//!   where a process id says nothing. A lock that cannot be tried (a file system without locks)
//!   keeps the leftover.
//!
//! So a `watch` or a `run` writing into the same folder at the same time keeps what it writes,
//! and a process id that was reused only delays the cleaning.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The lock file inside a staging folder.
pub const STAGING_LOCK: &str = ".lock";

/// What a hidden name of [`aside`](super::atomic::aside) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aside {
    /// `.NAME.PID.N.tmp`: a file being written.
    Tmp,
    /// `.NAME.PID.N.staging`: the folder a run's artefacts are written into.
    Staging,
    /// `.NAME.PID.N.old`: the artefacts folder being replaced.
    Old,
}

/// The owner's process id and the kind of a name made by `aside`; `None` for any other name.
fn parse(name: &str) -> Option<(u32, Aside)> {
    let rest = name.strip_prefix('.')?;
    let mut parts = rest.rsplitn(4, '.');
    let kind = match parts.next()? {
        "tmp" => Aside::Tmp,
        "staging" => Aside::Staging,
        "old" => Aside::Old,
        _ => return None,
    };
    let n = parts.next()?;
    let pid = parts.next()?;
    let stem = parts.next()?;
    if stem.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((pid.parse().ok()?, kind))
}

/// Whether a process of this id runs on this machine; `None` when that cannot be told.
fn alive(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

/// Whether nobody holds the lock of `path`: the file itself, or a folder's [`STAGING_LOCK`]
/// (absent in a folder written without one, or after its writer put it in place).
fn lock_free(path: &Path, kind: Aside) -> bool {
    let lock = match kind {
        Aside::Tmp => path.to_path_buf(),
        Aside::Staging | Aside::Old => path.join(STAGING_LOCK),
    };
    let file = match OpenOptions::new().read(true).write(true).open(&lock) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return kind != Aside::Tmp,
        Err(_) => return false,
    };
    match file.try_lock() {
        Ok(()) => true,
        Err(TryLockError::WouldBlock | TryLockError::Error(_)) => false,
    }
}

/// Remove from `dir` what processes that no longer run left aside (see the module
/// documentation); the paths removed. Nothing is removed that a live process may own; a
/// leftover that cannot be removed is logged and left.
pub fn clean(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((pid, kind)) = name.to_str().and_then(parse) else {
            continue;
        };
        let Ok(file_type) = entry.file_type() else { continue };
        if file_type.is_dir() == (kind == Aside::Tmp) || file_type.is_symlink() {
            continue;
        }
        let path = entry.path();
        if alive(pid) != Some(false) || !lock_free(&path, kind) {
            continue;
        }
        let gone = if kind == Aside::Tmp {
            std::fs::remove_file(&path)
        } else {
            std::fs::remove_dir_all(&path)
        };
        match gone {
            Ok(()) => removed.push(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(
                "cannot remove {}, left by process {pid} that no longer runs: {e}; remove it by hand",
                path.display()
            ),
        }
    }
    removed.sort();
    removed
}

/// Take the lock of a temporary file this process writes (best effort: a file system without
/// locks leaves it unlocked, and [`clean`] then never removes it).
pub(crate) fn hold(file: &File) {
    let _ = file.try_lock();
}

/// The lock a writer holds on its staging folder while it writes into it.
#[derive(Debug)]
pub(crate) struct StagingLock {
    path: PathBuf,
    _file: Option<File>,
}

impl StagingLock {
    /// Create and lock `dir/.lock` (best effort, as [`hold`]).
    pub(crate) fn take(dir: &Path) -> StagingLock {
        let path = dir.join(STAGING_LOCK);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .ok();
        if let Some(f) = &file {
            hold(f);
        }
        StagingLock { path, _file: file }
    }

    /// Remove the lock file before the folder is put in place (it is not an artefact), keeping
    /// the lock itself until this is dropped, after the rename.
    pub(crate) fn unlink(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Remove what processes that no longer run left aside in the results folder (a killed run's
/// staging folder and temporary files; never what a live process writes, see
/// `results/stale.rs`); a note saying what was removed, if anything.
pub fn clean_note(results: &Path) -> Option<String> {
    let removed = clean(results);
    let names: Vec<String> = removed
        .iter()
        .take(5)
        .map(|p| p.file_name().unwrap_or_default().to_string_lossy().into_owned())
        .collect();
    let more = removed.len().saturating_sub(names.len());
    (!removed.is_empty()).then(|| {
        format!(
            "removed from {} {} hidden file(s) or folder(s) left by a process that no longer runs (a killed run's \
             staging folder or temporary files): {}{}",
            results.display(),
            removed.len(),
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id of a process that has ended.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn names_made_aside_give_their_owner_and_kind() {
        assert_eq!(parse(".x.result.csv.123.4.tmp"), Some((123, Aside::Tmp)));
        assert_eq!(parse(".Jan 2026.77.0.staging"), Some((77, Aside::Staging)));
        assert_eq!(parse(".x.9.12.old"), Some((9, Aside::Old)));
        for other in [
            "x.123.4.tmp",
            ".status.json.tmp",
            "..1.2.tmp",
            ".x.abc.1.tmp",
            ".x.1.b.tmp",
            ".x.1.2.part",
            ".invoicedrop-artefacts",
        ] {
            assert_eq!(parse(other), None, "{other}");
        }
        let pid = std::process::id();
        assert_eq!(alive(pid), Some(true));
        assert_eq!(alive(dead_pid()), Some(false));
    }

    #[test]
    fn leftovers_of_ended_processes_go_and_anything_a_live_one_may_own_stays() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead = dead_pid();
        let me = std::process::id();
        // Left by a process that was killed.
        let staging = d.join(format!(".x.{dead}.0.staging"));
        std::fs::create_dir(&staging).unwrap();
        std::fs::write(staging.join("a.xml"), "<a/>").unwrap();
        std::fs::write(staging.join(STAGING_LOCK), "").unwrap();
        std::fs::create_dir(d.join(format!(".x.{dead}.1.old"))).unwrap();
        std::fs::write(d.join(format!(".x.result.csv.{dead}.2.tmp")), "a,b").unwrap();
        // Staging without a lock file: an earlier invoicedrop's.
        std::fs::create_dir(d.join(format!(".y.{dead}.3.staging"))).unwrap();
        // This process's own, unlocked.
        std::fs::create_dir(d.join(format!(".z.{me}.0.staging"))).unwrap();
        std::fs::write(d.join(format!(".z.result.csv.{me}.1.tmp")), "").unwrap();
        // A dead process id, but a lock held (a process of another machine on a shared folder).
        let held = d.join(format!(".w.{dead}.4.staging"));
        std::fs::create_dir(&held).unwrap();
        let lock = StagingLock::take(&held);
        let held_tmp = d.join(format!(".w.result.csv.{dead}.5.tmp"));
        let f = File::create(&held_tmp).unwrap();
        hold(&f);
        // Not ours at all.
        std::fs::write(d.join("a.result.csv"), "").unwrap();
        std::fs::write(d.join(".status.json.tmp"), "").unwrap();
        std::fs::create_dir(d.join(format!(".q.{dead}.6.tmp"))).unwrap();

        let removed = clean(d);
        assert_eq!(removed.len(), 4, "{removed:?}");
        assert_eq!(
            names(d),
            [
                format!(".q.{dead}.6.tmp"),
                ".status.json.tmp".to_string(),
                format!(".w.{dead}.4.staging"),
                format!(".w.result.csv.{dead}.5.tmp"),
                format!(".z.{me}.0.staging"),
                format!(".z.result.csv.{me}.1.tmp"),
                "a.result.csv".to_string(),
            ]
        );
        // Released: the next cleaning takes them.
        drop(lock);
        drop(f);
        assert_eq!(clean(d).len(), 2);
        assert!(clean(&d.join("no-such-folder")).is_empty());
    }

    #[test]
    fn a_staging_lock_leaves_no_file_in_the_folder_put_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let staging = dir.path().join(".x.1.0.staging");
        std::fs::create_dir(&staging).unwrap();
        let lock = StagingLock::take(&staging);
        assert!(!lock_free(&staging, Aside::Staging), "held");
        lock.unlink();
        assert_eq!(names(&staging), Vec::<String>::new());
        drop(lock);
    }
}

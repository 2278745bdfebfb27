//! The inbox's layout, which files are candidates, claiming by rename, moving on without
//! overwriting, and the one-watcher lock.

use super::WatchError;
use chrono::Utc;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

/// Names the watcher never takes: hidden files, Office lock files and the temporary names of
/// copies and downloads still under way.
pub fn is_candidate(name: &str) -> bool {
    let lower = name.to_lowercase();
    !(name.is_empty()
        || name.starts_with('.')
        || name.starts_with("~$")
        || name.ends_with('~')
        || [".part", ".partial", ".tmp", ".temp", ".crdownload", ".download", ".swp"]
            .iter()
            .any(|s| lower.ends_with(s)))
}

/// The folders of an inbox: files are dropped in `root`, claimed into `.processing/`, then moved
/// to `done/` or `failed/`.
#[derive(Debug, Clone)]
pub struct Inbox {
    /// Where exports are dropped.
    pub root: PathBuf,
    /// Files being processed (and, after a crash, to finish).
    pub processing: PathBuf,
    /// Names of lookup tables (`customers.csv`), lower case: read from the inbox by the
    /// exports' mappings, never taken as exports themselves.
    tables: Vec<String>,
    /// Files processed (their documents may still have been rejected: see their result files).
    pub done: PathBuf,
    /// Files that could not be processed as a whole, each with `<name>.error.txt`.
    pub failed: PathBuf,
}

impl Inbox {
    /// The layout of `root`; nothing is created.
    pub fn new(root: &Path) -> Inbox {
        Inbox {
            root: root.to_path_buf(),
            processing: root.join(".processing"),
            done: root.join("done"),
            failed: root.join("failed"),
            tables: Vec::new(),
        }
    }

    /// Leave the files of these names (lookup tables) in the inbox: they are not exports.
    pub fn with_tables(mut self, names: impl IntoIterator<Item = String>) -> Inbox {
        self.tables = names.into_iter().map(|n| n.to_lowercase()).collect();
        self.tables.sort();
        self.tables.dedup();
        self
    }

    /// True when `path` is one of the lookup tables left in the inbox.
    pub fn is_table(&self, path: &Path) -> bool {
        self.tables.contains(&file_name(path).to_lowercase())
    }

    /// Create the sub-folders.
    pub fn create_dirs(&self) -> Result<(), WatchError> {
        for d in [&self.processing, &self.done, &self.failed] {
            std::fs::create_dir_all(d).map_err(|e| WatchError::io("cannot create", d, e))?;
        }
        Ok(())
    }

    /// The candidate files directly in the inbox (sorted by name; sub-folders are not read).
    pub fn scan(&self) -> Result<Vec<PathBuf>, WatchError> {
        let mut found = candidates(&self.root)?;
        found.retain(|p| !self.is_table(p));
        Ok(found)
    }

    /// The symbolic links directly in the inbox under a candidate name, other than to a folder
    /// (sorted by name): never taken as exports ([`link_error`] says why), but moved to `failed/`
    /// so that they are seen. A link to a folder is left alone, as sub-folders are.
    pub fn links(&self) -> Result<Vec<PathBuf>, WatchError> {
        let rd = std::fs::read_dir(&self.root).map_err(|e| WatchError::io("cannot list", &self.root, e))?;
        let mut out: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
            .filter(|e| is_candidate(&e.file_name().to_string_lossy()))
            .map(|e| e.path())
            .filter(|p| !self.is_table(p) && !std::fs::metadata(p).is_ok_and(|m| m.is_dir()))
            .collect();
        out.sort();
        Ok(out)
    }

    /// The files a crash left in `.processing/`.
    pub fn leftovers(&self) -> Result<Vec<PathBuf>, WatchError> {
        candidates(&self.processing)
    }

    /// Claim a file by renaming it into `.processing/`; `None` when it vanished meanwhile.
    pub fn claim(&self, path: &Path) -> Result<Option<PathBuf>, WatchError> {
        let name = file_name(path);
        let target = free_name(&self.processing, &name);
        match std::fs::rename(path, &target) {
            Ok(()) => Ok(Some(target)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(WatchError::io("cannot move into .processing/", path, e)),
        }
    }

    /// Move a processed file to `done/` (a timestamp suffix on a name clash).
    pub fn to_done(&self, path: &Path) -> Result<PathBuf, WatchError> {
        move_into(path, &self.done)
    }

    /// Move a file that could not be processed to `failed/`, with `<name>.error.txt` beside it.
    /// Returns where it is now and the message written, in which a file moved from
    /// `.processing/` (where it was read, so the pipeline's errors name it there) is named where
    /// it is now, in `failed/`.
    pub fn to_failed(&self, path: &Path, message: &str) -> Result<(PathBuf, String), WatchError> {
        let target = move_into(path, &self.failed)?;
        let message = if path.starts_with(&self.processing) {
            message.replace(&path.display().to_string(), &target.display().to_string())
        } else {
            message.to_string()
        };
        let note = self.failed.join(format!("{}.error.txt", file_name(&target)));
        let text = format!(
            "{}\nfailed at {}: {message}\n",
            file_name(&target),
            Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
        // Written aside and renamed: whoever sees the note (a person, a script polling
        // `failed/`) sees it whole.
        let tmp = self.failed.join(format!(".{}.error.txt.tmp", file_name(&target)));
        std::fs::write(&tmp, text).map_err(|e| WatchError::io("cannot write", &tmp, e))?;
        std::fs::rename(&tmp, &note).map_err(|e| WatchError::io("cannot write", note, e))?;
        Ok((target, message))
    }
}

/// Why the symbolic link `link` in the inbox is not taken, with what to do. Moving the link
/// (claiming it) would not stop its producer writing the file it points to, and that file, outside
/// the inbox, is never moved or deleted: only the link goes to `failed/`.
pub fn link_error(link: &Path) -> String {
    let name = file_name(link);
    let target = match std::fs::read_link(link) {
        Ok(t) => format!(" to {}", t.display()),
        Err(_) => String::new(),
    };
    let dangling = if std::fs::metadata(link).is_err() {
        ", which does not exist"
    } else {
        ""
    };
    format!(
        "{name} is a symbolic link{target}{dangling}: the watcher takes only files put into the inbox itself, not \
         the file a link points to (that file was left where it is, untouched; only the link goes to failed/); \
         copy the export into the inbox instead (as {name}.part, then renamed to {name})"
    )
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into())
}

fn candidates(dir: &Path) -> Result<Vec<PathBuf>, WatchError> {
    let rd = std::fs::read_dir(dir).map_err(|e| WatchError::io("cannot list", dir, e))?;
    let mut out: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| is_candidate(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    out.sort();
    Ok(out)
}

/// `dir/name`, or, when taken, `dir/<stem>.<UTC timestamp>[-n].<ext>`: never an overwrite.
pub(crate) fn free_name(dir: &Path, name: &str) -> PathBuf {
    // A link (even one to nothing) is a name taken too.
    let taken = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let first = dir.join(name);
    if !taken(&first) {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.to_string(), String::new()),
    };
    let stamp = Utc::now().format("%Y%m%dT%H%M%S");
    (0..)
        .map(|n| {
            let n = if n == 0 { String::new() } else { format!("-{n}") };
            dir.join(format!("{stem}.{stamp}{n}{ext}"))
        })
        .find(|p| !taken(p))
        .unwrap_or(first)
}

fn move_into(path: &Path, dir: &Path) -> Result<PathBuf, WatchError> {
    std::fs::create_dir_all(dir).map_err(|e| WatchError::io("cannot create", dir, e))?;
    let target = free_name(dir, &file_name(path));
    std::fs::rename(path, &target).map_err(|e| WatchError::io("cannot move", path, e))?;
    Ok(target)
}

/// The exclusive lock of an inbox (`.processing/.lock`, holding the watcher's pid), released when
/// dropped or when the process ends, however it ends.
#[derive(Debug)]
pub struct InboxLock {
    _file: File,
}

impl InboxLock {
    /// Take the inbox's lock, or say who holds it.
    pub fn acquire(inbox: &Inbox) -> Result<InboxLock, WatchError> {
        let path = inbox.processing.join(".lock");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| WatchError::io("cannot open", &path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let pid = pid.trim();
                return Err(WatchError::Locked {
                    inbox: inbox.root.display().to_string(),
                    pid: if pid.is_empty() { "?".into() } else { pid.to_string() },
                });
            }
            Err(TryLockError::Error(e)) => return Err(WatchError::io("cannot lock", &path, e)),
        }
        let written = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "{}", std::process::id()))
            .and_then(|()| file.flush());
        written.map_err(|e| WatchError::io("cannot write", &path, e))?;
        Ok(InboxLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_and_hidden_names_are_not_candidates() {
        for n in [
            "~$book.xlsx",
            "a.csv.part",
            "x.tmp",
            ".hidden.csv",
            "b.csv~",
            "c.CRDOWNLOAD",
        ] {
            assert!(!is_candidate(n), "{n}");
        }
        for n in ["export.csv", "Sales 2026.xlsx", "noext"] {
            assert!(is_candidate(n), "{n}");
        }
    }

    #[test]
    fn clashing_names_get_a_suffix_and_nothing_is_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::new(dir.path());
        inbox.create_dirs().unwrap();
        for body in ["one", "two", "three"] {
            let p = dir.path().join("a.csv");
            std::fs::write(&p, body).unwrap();
            inbox.to_done(&p).unwrap();
        }
        let mut bodies: Vec<String> = std::fs::read_dir(&inbox.done)
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        bodies.sort();
        assert_eq!(bodies, ["one", "three", "two"]);
        assert!(inbox.done.join("a.csv").exists());
    }

    #[test]
    fn a_failed_file_gets_its_note_whole_and_no_temporary_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::new(dir.path());
        inbox.create_dirs().unwrap();
        let p = dir.path().join("bad.csv");
        std::fs::write(&p, "x").unwrap();
        inbox.to_failed(&p, "no bundled mapping fits").unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&inbox.failed)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["bad.csv", "bad.csv.error.txt"]);
        let note = std::fs::read_to_string(inbox.failed.join("bad.csv.error.txt")).unwrap();
        assert!(
            note.starts_with("bad.csv\nfailed at ") && note.ends_with(": no bundled mapping fits\n"),
            "{note}"
        );
    }

    #[test]
    fn a_failed_file_read_in_processing_is_named_where_it_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::new(dir.path());
        inbox.create_dirs().unwrap();
        let p = inbox.processing.join("night.csv");
        std::fs::write(&p, "").unwrap();
        let said = format!("{} is empty (the file has 0 bytes)", p.display());
        let (to, message) = inbox.to_failed(&p, &said).unwrap();
        assert_eq!(to, inbox.failed.join("night.csv"));
        assert_eq!(message, format!("{} is empty (the file has 0 bytes)", to.display()));
        let note = std::fs::read_to_string(inbox.failed.join("night.csv.error.txt")).unwrap();
        assert!(note.contains(&message) && !note.contains(".processing"), "{note}");
    }

    #[test]
    fn a_second_lock_names_the_first_holder() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::new(dir.path());
        inbox.create_dirs().unwrap();
        let _first = InboxLock::acquire(&inbox).unwrap();
        let second = InboxLock::acquire(&inbox).unwrap_err().to_string();
        assert!(second.contains(&format!("(pid {})", std::process::id())), "{second}");
    }
}

//! Files that appear whole or not at all: written to a hidden temporary file beside the target
//! (same folder, so the same file system), flushed and synced, then renamed over the target.
//! A writer dropped before [`AtomicFile::commit`] (an error, a panic) removes its temporary file
//! and leaves any earlier target untouched. A killed process can leave a hidden
//! `.NAME.PID.N.tmp` file behind, never a partial target; such files start with a dot and are
//! ignored by `check` and `report`, and the next `check`, `run` or `watch` on the folder removes
//! them once their process is gone (`stale.rs`; the writer locks its file meanwhile).
//!
//! A large file is synced in the background while it is written (every [`SYNC_EVERY`] bytes,
//! on a thread of its own), so that the sync on commit has only the last stretch left to wait
//! for: a million-row result CSV (300 MB) spent 0.6 s in that final `fsync`, with every core
//! idle. A failed background sync fails the commit.

use super::ResultsError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};

/// Bytes written between background syncs of an [`AtomicFile`].
pub const SYNC_EVERY: u64 = 32 << 20;

/// The thread that syncs a file being written, when asked; it ends with the error of a failed
/// sync, if any.
#[derive(Debug)]
struct Syncer {
    kick: SyncSender<()>,
    thread: std::thread::JoinHandle<Option<std::io::Error>>,
}

impl Syncer {
    fn start(file: File) -> std::io::Result<Syncer> {
        // One request waiting at most: a request made while a sync runs is covered by the next.
        let (kick, requests) = sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("sync".into())
            .spawn(move || requests.into_iter().find_map(|()| file.sync_data().err()))?;
        Ok(Syncer { kick, thread })
    }

    /// Wait for the thread; the error of a failed sync.
    fn finish(self) -> Option<std::io::Error> {
        drop(self.kick);
        self.thread
            .join()
            .unwrap_or_else(|_| Some(std::io::Error::other("the background sync thread panicked")))
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A hidden path beside `target`, unique in this process: `.NAME.PID.N.SUFFIX`.
pub fn aside(target: &Path, suffix: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "result".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    target.with_file_name(format!(".{name}.{}.{n}.{suffix}", std::process::id()))
}

/// Make a rename durable: sync the folder that holds `path` (best effort; not every platform
/// can open a folder).
pub fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = File::open(if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        })
    {
        let _ = d.sync_all();
    }
}

/// A file being written aside; [`AtomicFile::commit`] renames it into place.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    unsynced: u64,
    sync_every: u64,
    syncer: Option<Syncer>,
}

impl AtomicFile {
    /// Start writing `target` (its folder must exist).
    pub fn create(target: &Path) -> Result<AtomicFile, ResultsError> {
        let tmp = aside(target, "tmp");
        let file = File::create(&tmp).map_err(|e| ResultsError::io(&tmp, e))?;
        // Held while it is written: a later run's cleaning (stale.rs) leaves it alone.
        super::stale::hold(&file);
        Ok(AtomicFile {
            target: target.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 16, file)),
            unsynced: 0,
            sync_every: SYNC_EVERY,
            syncer: None,
        })
    }

    /// Ask for a background sync of what is written so far (the thread started on the first
    /// request). Best effort: without a thread, the sync on commit does it all.
    fn sync_in_background(&mut self) {
        if self.syncer.is_none() {
            let Some(out) = &self.out else { return };
            let Ok(file) = out.get_ref().try_clone() else { return };
            let Ok(syncer) = Syncer::start(file) else { return };
            self.syncer = Some(syncer);
        }
        if let Some(s) = &self.syncer {
            let _ = s.kick.try_send(());
        }
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flush what is written so far to the hidden file aside, and give its path (to read it
    /// back before it is committed).
    pub fn flushed_aside(&mut self) -> std::io::Result<&Path> {
        self.flush()?;
        Ok(&self.tmp)
    }

    /// Flush, sync and rename into place; returns the final path.
    pub fn commit(mut self) -> Result<PathBuf, ResultsError> {
        let Some(out) = self.out.take() else {
            return Err(ResultsError::malformed(&self.target, "already committed"));
        };
        let background = self.syncer.take().and_then(Syncer::finish);
        let result = (|| {
            let file = out.into_inner().map_err(|e| e.into_error())?;
            if let Some(e) = background {
                return Err(e);
            }
            file.sync_all()?;
            drop(file);
            std::fs::rename(&self.tmp, &self.target)
        })();
        if let Err(e) = result {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(ResultsError::io(&self.target, e));
        }
        sync_parent(&self.target);
        Ok(self.target.clone())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = match self.out.as_mut() {
            Some(out) => out.write(buf)?,
            None => return Err(std::io::Error::other("the file is already committed")),
        };
        self.unsynced += n as u64;
        if self.unsynced >= self.sync_every {
            self.unsynced = 0;
            self.sync_in_background();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.out.as_mut() {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Write `bytes` to `target` atomically.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    let mut f = AtomicFile::create(target)?;
    f.write_all(bytes).map_err(|e| ResultsError::io(target, e))?;
    f.commit().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.csv");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"half").unwrap();
        assert!(!target.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"half");
        assert_eq!(names(dir.path()), ["a.csv"]);
    }

    #[test]
    fn a_large_file_is_synced_while_it_is_written() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("big.csv");
        let mut f = AtomicFile::create(&target)?;
        f.sync_every = 1000;
        let line = [b'x'; 999];
        for _ in 0..10 {
            f.write_all(&line)?;
            f.write_all(b"\n")?;
        }
        assert!(f.syncer.is_some(), "a sync thread runs once enough is written");
        assert!(!target.exists());
        f.commit()?;
        assert_eq!(std::fs::read(&target)?.len(), 10_000);
        assert_eq!(names(dir.path()), ["big.csv"]);
        // A small file never starts one.
        let mut small = AtomicFile::create(&dir.path().join("small.csv"))?;
        small.write_all(b"a,b\n")?;
        assert!(small.syncer.is_none());
        small.commit()?;
        Ok(())
    }

    #[test]
    fn an_interrupted_writer_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.csv");
        write_atomic(&target, b"old complete").unwrap();
        let outcome = std::panic::catch_unwind(|| {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(&vec![b'x'; 200_000]).unwrap();
            panic!("interrupted mid-write");
        });
        assert!(outcome.is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"old complete");
        assert_eq!(names(dir.path()), ["a.csv"]);
    }

    #[test]
    fn a_failed_rename_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("busy");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), b"x").unwrap();
        let err = write_atomic(&target, b"data").unwrap_err();
        assert!(matches!(err, ResultsError::Io { .. }), "{err}");
        assert_eq!(names(dir.path()), ["busy"]);
    }
}

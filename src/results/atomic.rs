//! Files that appear whole or not at all: written to a hidden temporary file beside the target
//! (same folder, so the same file system), flushed and synced, then renamed over the target.
//! A writer dropped before [`AtomicFile::commit`] (an error, a panic) removes its temporary file
//! and leaves any earlier target untouched. A killed process can leave a hidden
//! `.NAME.PID.N.tmp` file behind, never a partial target; such files start with a dot and are
//! ignored by `check` and `report`.

use super::ResultsError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
}

impl AtomicFile {
    /// Start writing `target` (its folder must exist).
    pub fn create(target: &Path) -> Result<AtomicFile, ResultsError> {
        let tmp = aside(target, "tmp");
        let file = File::create(&tmp).map_err(|e| ResultsError::io(&tmp, e))?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flush, sync and rename into place; returns the final path.
    pub fn commit(mut self) -> Result<PathBuf, ResultsError> {
        let Some(out) = self.out.take() else {
            return Err(ResultsError::malformed(&self.target, "already committed"));
        };
        let result = (|| {
            let file = out.into_inner().map_err(|e| e.into_error())?;
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
        match self.out.as_mut() {
            Some(out) => out.write(buf),
            None => Err(std::io::Error::other("the file is already committed")),
        }
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

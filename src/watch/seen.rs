//! The SHA-256 of every file done, kept in the state folder (`watch-seen.tsv`: hash, time, name),
//! so that the same content dropped again is recognised as a repeat.

use super::WatchError;
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// Hex SHA-256 of a file's bytes.
pub fn sha256_file(path: &Path) -> Result<String, WatchError> {
    let mut f = std::fs::File::open(path).map_err(|e| WatchError::io("cannot read", path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf).map_err(|e| WatchError::io("cannot read", path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// The hashes of the files already done, with the name each first came under.
#[derive(Debug)]
pub struct Seen {
    path: PathBuf,
    hashes: HashMap<String, String>,
}

impl Seen {
    /// Load `<state>/watch-seen.tsv` (empty when absent).
    pub fn open(state_dir: &Path) -> Result<Seen, WatchError> {
        std::fs::create_dir_all(state_dir).map_err(|e| WatchError::io("cannot create", state_dir, e))?;
        let path = state_dir.join("watch-seen.tsv");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(WatchError::io("cannot read", path, e)),
        };
        let hashes = text
            .lines()
            .filter_map(|l| {
                let mut parts = l.splitn(3, '\t');
                let hash = parts.next()?;
                let _time = parts.next()?;
                let name = parts.next()?;
                (hash.len() == 64).then(|| (hash.to_string(), name.to_string()))
            })
            .collect();
        Ok(Seen { path, hashes })
    }

    /// The name a file with this hash was first done under.
    pub fn first_name(&self, hash: &str) -> Option<&str> {
        self.hashes.get(hash).map(String::as_str)
    }

    /// Remember a file done (appended and flushed to disk).
    pub fn record(&mut self, hash: &str, name: &str) -> Result<(), WatchError> {
        if self.hashes.contains_key(hash) {
            return Ok(());
        }
        let name = name.replace(['\t', '\n', '\r'], " ");
        let line = format!(
            "{hash}\t{}\t{name}\n",
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| WatchError::io("cannot open", &self.path, e))?;
        f.write_all(line.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| WatchError::io("cannot write", &self.path, e))?;
        self.hashes.insert(hash.to_string(), name);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.csv");
        std::fs::write(&f, "abc").unwrap();
        let h = sha256_file(&f).unwrap();
        assert_eq!(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let mut seen = Seen::open(dir.path()).unwrap();
        assert!(seen.first_name(&h).is_none());
        seen.record(&h, "a.csv").unwrap();
        let seen = Seen::open(dir.path()).unwrap();
        assert_eq!(seen.first_name(&h), Some("a.csv"));
    }
}

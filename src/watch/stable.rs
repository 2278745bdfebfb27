//! A file is complete when its size and modification time have not changed for a quiet period:
//! no file system has a portable "finished writing" event, so the watcher looks twice.

use super::status::Queued;
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

#[derive(Debug, Clone)]
struct Look {
    size: u64,
    modified: Option<SystemTime>,
    /// Since when size and time have been what they are.
    since: Instant,
    first_seen: DateTime<Utc>,
}

/// The files seen in the inbox and how long each has stayed unchanged.
#[derive(Debug)]
pub struct Stability {
    quiet: Duration,
    files: BTreeMap<PathBuf, Look>,
}

impl Stability {
    /// Files must stay unchanged for `quiet`.
    pub fn new(quiet: Duration) -> Stability {
        Stability {
            quiet,
            files: BTreeMap::new(),
        }
    }

    /// Look at the inbox's current candidates at `now`; the ones unchanged for the quiet period,
    /// oldest first. Files gone from `present` are forgotten.
    pub fn observe(&mut self, present: &[PathBuf], now: Instant) -> Vec<PathBuf> {
        self.files.retain(|p, _| present.contains(p));
        let mut ready = Vec::new();
        for p in present {
            let Ok(meta) = std::fs::metadata(p) else {
                self.files.remove(p);
                continue;
            };
            let (size, modified) = (meta.len(), meta.modified().ok());
            match self.files.get_mut(p) {
                Some(look) if look.size == size && look.modified == modified => {
                    if now.duration_since(look.since) >= self.quiet {
                        ready.push((look.first_seen, p.clone()));
                    }
                }
                Some(look) => {
                    look.size = size;
                    look.modified = modified;
                    look.since = now;
                }
                None => {
                    self.files.insert(
                        p.clone(),
                        Look {
                            size,
                            modified,
                            since: now,
                            first_seen: Utc::now(),
                        },
                    );
                }
            }
        }
        ready.sort();
        ready.into_iter().map(|(_, p)| p).collect()
    }

    /// Stop tracking a file (claimed).
    pub fn forget(&mut self, path: &Path) {
        self.files.remove(path);
    }

    /// Whether files are waiting to become quiet.
    pub fn is_waiting(&self) -> bool {
        !self.files.is_empty()
    }

    /// The queue, for the status file.
    pub fn queue(&self) -> Vec<Queued> {
        self.files
            .iter()
            .map(|(p, l)| Queued {
                name: p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                size: l.size,
                first_seen: l.first_seen,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_ready_only_after_staying_unchanged_for_the_quiet_period() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        std::fs::write(&p, "x").unwrap();
        let files = vec![p.clone()];
        let mut s = Stability::new(Duration::from_secs(5));
        let t0 = Instant::now();
        assert!(s.observe(&files, t0).is_empty());
        assert!(s.observe(&files, t0 + Duration::from_secs(4)).is_empty());
        std::fs::write(&p, "xy").unwrap();
        assert!(s.observe(&files, t0 + Duration::from_secs(6)).is_empty(), "grew");
        assert!(s.observe(&files, t0 + Duration::from_secs(10)).is_empty());
        assert_eq!(s.observe(&files, t0 + Duration::from_secs(11)), files);
        assert_eq!(s.queue().len(), 1);
        s.forget(&p);
        assert!(!s.is_waiting());
    }
}

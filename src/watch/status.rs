//! `results/status.json`: what the watcher did last, what waits, and the simplified documents not
//! yet accepted close to the end of their 24-hour reporting window. Written atomically (aside,
//! then renamed) after every file and every scan.

use super::WatchError;
use crate::model::DocumentKind;
use crate::pipeline::Counts;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A simplified document and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tracked {
    /// Its number.
    pub number: String,
    /// invoice, credit_note, debit_note.
    pub kind: DocumentKind,
    /// Its issue date and time (Riyadh time in the document), in UTC.
    pub issued_at: DateTime<Utc>,
    /// Its last status: failed (outcome unknown or not sent), rejected, pending...
    pub status: String,
    /// The file it came in.
    #[serde(default)]
    pub file: String,
}

/// A file waiting to become quiet.
#[derive(Debug, Clone, Serialize)]
pub struct Queued {
    /// Its name in the inbox.
    pub name: String,
    /// Its size at the last look.
    pub size: u64,
    /// When the watcher first saw it.
    pub first_seen: DateTime<Utc>,
}

/// The last file processed.
#[derive(Debug, Clone, Serialize)]
pub struct LastFile {
    /// Its name as dropped.
    pub name: String,
    /// When it was finished.
    pub finished_at: DateTime<Utc>,
    /// `done`, `failed`, or `interrupted` (left in `.processing/` for the next start).
    pub outcome: String,
    /// The same content was done before.
    pub repeat: bool,
    /// Input rows.
    pub rows: u64,
    /// Documents by status.
    pub documents: Counts,
    /// Its result file.
    pub result_file: Option<String>,
    /// Why it failed as a whole.
    pub error: Option<String>,
}

/// The content of `status.json`.
#[derive(Debug, Clone, Serialize)]
pub struct WatchStatus {
    /// The inbox watched.
    pub inbox: String,
    /// The watcher's process id.
    pub pid: u32,
    /// `watching`, `stopping` (SIGTERM received, finishing the batch in flight) or `stopped`
    /// (the watcher has exited cleanly).
    pub state: String,
    /// When this was written.
    pub updated_at: DateTime<Utc>,
    /// The file being processed now.
    pub processing: Option<String>,
    /// The last file processed.
    pub last_file: Option<LastFile>,
    /// Files seen and waiting to become quiet.
    pub queue: Vec<Queued>,
    /// Hours after its issue time at which a simplified document not yet accepted is an alert.
    pub alert_hours: f64,
    /// Simplified documents not accepted `alert_hours` after their issue time: the 24-hour
    /// reporting window is about to close (or has).
    pub alerts: Vec<Tracked>,
    /// Every simplified document the watcher sent that is not accepted yet.
    pub unsettled: Vec<Tracked>,
}

/// The documents of `unsettled` issued more than `hours` before `now`.
pub fn overdue(unsettled: &[Tracked], hours: f64, now: DateTime<Utc>) -> Vec<Tracked> {
    let limit = chrono::Duration::milliseconds((hours * 3_600_000.0) as i64);
    unsettled
        .iter()
        .filter(|t| t.issued_at + limit < now)
        .cloned()
        .collect()
}

#[derive(Deserialize)]
struct Previous {
    #[serde(default)]
    unsettled: Vec<Tracked>,
}

impl WatchStatus {
    /// Write `dir/status.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<(), WatchError> {
        std::fs::create_dir_all(dir).map_err(|e| WatchError::io("cannot create", dir, e))?;
        let target = dir.join("status.json");
        let tmp = dir.join(".status.json.tmp");
        let text = serde_json::to_vec_pretty(self).unwrap_or_default();
        std::fs::write(&tmp, text).map_err(|e| WatchError::io("cannot write", &tmp, e))?;
        std::fs::rename(&tmp, &target).map_err(|e| WatchError::io("cannot write", &target, e))
    }

    /// The unsettled documents of the `status.json` a previous watcher left in `dir`.
    pub fn previous_unsettled(dir: &Path) -> Vec<Tracked> {
        std::fs::read(dir.join("status.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Previous>(&b).ok())
            .map(|p| p.unsettled)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(number: &str, hours_ago: i64) -> Tracked {
        Tracked {
            number: number.into(),
            kind: DocumentKind::Invoice,
            issued_at: Utc::now() - chrono::Duration::hours(hours_ago),
            status: "failed".into(),
            file: "a.csv".into(),
        }
    }

    #[test]
    fn documents_older_than_the_alert_hours_are_alerts_and_survive_a_restart() {
        let all = vec![doc("OLD", 21), doc("NEW", 2)];
        let alerts = overdue(&all, 20.0, Utc::now());
        assert_eq!(alerts.len(), 1);
        assert_eq!(alerts[0].number, "OLD");
        let dir = tempfile::tempdir().unwrap();
        let status = WatchStatus {
            inbox: "in".into(),
            pid: 1,
            state: "watching".into(),
            updated_at: Utc::now(),
            processing: None,
            last_file: None,
            queue: vec![],
            alert_hours: 20.0,
            alerts,
            unsettled: all.clone(),
        };
        status.write(dir.path()).unwrap();
        assert_eq!(WatchStatus::previous_unsettled(dir.path()), all);
    }
}

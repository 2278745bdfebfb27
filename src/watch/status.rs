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
    /// Why it is not accepted: its first error (a finding of the checks, the authority's
    /// rejection, or why its answer is missing). Empty once accepted.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

/// A reason as `why` keeps it: at most this many characters (then `…`).
const WHY_CHARS: usize = 400;

/// `text` cut to [`WHY_CHARS`] characters.
pub fn why_of(text: &str) -> String {
    crate::text::short(text, WHY_CHARS)
}

/// A document of any kind left without a final answer: sent, and no answer came (its outcome is
/// unknown: it may be issued; status.json's `unanswered`), or not sent because the API stopped
/// answering (nothing of it reached the API: it is not issued; `not_sent`). The watcher repeats
/// it with the same idempotency key (or sends it) once the API answers again, then writes the
/// results of its file again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unanswered {
    /// Its number.
    pub number: String,
    /// invoice, credit_note, debit_note.
    pub kind: DocumentKind,
    /// `standard` or `simplified` (empty when not known).
    #[serde(default)]
    pub invoice_type: String,
    /// Where the ledger has it: `unknown` (sent, no final answer), `in_flight` (a request left
    /// and no answer was recorded) or `pending` (not sent); `accepted` or `rejected` once
    /// answered, until its file's results are written again.
    pub state: String,
    /// The file it came in, as its results are named (`a.csv`: `a.result.csv`); empty when not
    /// known (left by a `run`, or by a watcher whose status.json is gone).
    #[serde(default)]
    pub file: String,
    /// Where that file is now, relative to the inbox (`done/a.csv`): read again to write its
    /// results once its documents are answered.
    #[serde(default)]
    pub done: String,
    /// When the watcher first found it without an answer.
    pub since: DateTime<Utc>,
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
    /// `watching`, `stopping` (SIGTERM received, finishing the requests in flight) or `stopped`
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
    /// Every document (any kind) sent and left without a final answer (maybe issued,
    /// `INV-SUBMIT-UNKNOWN`): the watcher repeats it with the same idempotency key once the API
    /// answers again, then writes its file's results again.
    pub unanswered: Vec<Unanswered>,
    /// Every document (any kind) of a file in done/ that was not sent because the API stopped
    /// answering (nothing of it reached the API: not issued, `INV-SUBMIT-NOT-SENT`; its ledger
    /// state is `pending`): the watcher sends it once the API answers again, then writes its
    /// file's results again.
    pub not_sent: Vec<Unanswered>,
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

/// The warnings for `alerts` (simplified documents not accepted `hours` after their issue time):
/// those whose 24-hour reporting window is closing, and those past it (late already: the sooner
/// they are reported the better). At most ten numbers each.
pub fn alert_warnings(alerts: &[Tracked], hours: f64, now: DateTime<Utc>) -> Vec<String> {
    let window = chrono::Duration::hours(24);
    let (late, closing): (Vec<&Tracked>, Vec<&Tracked>) = alerts.iter().partition(|t| t.issued_at + window < now);
    let numbers = |list: &[&Tracked]| {
        let mut text = list
            .iter()
            .take(10)
            .map(|t| t.number.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        if list.len() > 10 {
            text.push_str(&format!(" and {} more", list.len() - 10));
        }
        text
    };
    let mut out = Vec::new();
    if !closing.is_empty() {
        out.push(format!(
            "{} simplified document(s) not accepted {hours} hours after their issue time: their 24-hour reporting \
             window closes soon; fix and drop them again now (status.json `alerts` says why each is not accepted): {}",
            closing.len(),
            numbers(&closing)
        ));
    }
    if !late.is_empty() {
        out.push(format!(
            "{} simplified document(s) not accepted more than 24 hours after their issue time: their reporting \
             window has closed, so they are late (the authority still accepts them, with warning BR-KSA-98); \
             report them as soon as possible (status.json `alerts` says why each is not accepted): {}",
            late.len(),
            numbers(&late)
        ));
    }
    out
}

#[derive(Deserialize)]
struct Previous {
    #[serde(default)]
    unsettled: Vec<Tracked>,
    #[serde(default)]
    unanswered: Vec<Unanswered>,
    #[serde(default)]
    not_sent: Vec<Unanswered>,
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

    /// The unsettled documents of the `status.json` a previous watcher left in `dir`, and those
    /// it left without a final answer (`unanswered` and `not_sent` together).
    pub fn previous(dir: &Path) -> (Vec<Tracked>, Vec<Unanswered>) {
        std::fs::read(dir.join("status.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Previous>(&b).ok())
            .map(|p| (p.unsettled, p.unanswered.into_iter().chain(p.not_sent).collect()))
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
            why: String::new(),
        }
    }

    #[test]
    fn a_reason_is_kept_whole_up_to_its_limit_and_cut_after() {
        assert_eq!(why_of("BR-KSA-40: no"), "BR-KSA-40: no");
        let long = "é".repeat(WHY_CHARS + 5);
        let cut = why_of(&long);
        assert_eq!(cut.chars().count(), WHY_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn alerts_say_whether_the_window_is_closing_or_closed() {
        let now = Utc::now();
        let alerts = overdue(&[doc("LATE", 30), doc("SOON", 21), doc("NEW", 2)], 20.0, now);
        let w = alert_warnings(&alerts, 20.0, now);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("1 simplified document(s) not accepted 20 hours") && w[0].ends_with(": SOON"));
        assert!(w[0].contains("closes soon"), "{}", w[0]);
        assert!(w[1].contains("window has closed, so they are late") && w[1].ends_with(": LATE"));
        let many: Vec<Tracked> = (0..12).map(|i| doc(&format!("L{i}"), 30)).collect();
        let w = alert_warnings(&many, 20.0, now);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("12 ") && w[0].ends_with("L9 and 2 more"), "{}", w[0]);
        assert!(alert_warnings(&[], 20.0, now).is_empty());
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
            unanswered: vec![Unanswered {
                number: "STD-1".into(),
                kind: DocumentKind::Invoice,
                invoice_type: "standard".into(),
                state: "unknown".into(),
                file: "a.csv".into(),
                done: "done/a.csv".into(),
                since: Utc::now(),
            }],
            not_sent: vec![Unanswered {
                number: "STD-2".into(),
                kind: DocumentKind::Invoice,
                invoice_type: "standard".into(),
                state: "pending".into(),
                file: "a.csv".into(),
                done: "done/a.csv".into(),
                since: Utc::now(),
            }],
        };
        status.write(dir.path()).unwrap();
        let followed = [status.unanswered.clone(), status.not_sent.clone()].concat();
        assert_eq!(WatchStatus::previous(dir.path()), (all, followed));
    }
}

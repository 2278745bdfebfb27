//! Documents a file left without a final answer (sent and no answer came, or not sent because the
//! API stopped answering), settled by the running watcher: a watcher runs for weeks, and there is
//! no "next run" to repeat them.
//!
//! After each file that goes to `done/`, its documents `failed` whose ledger state is still open
//! (`unknown`, `in_flight`, `pending`) are followed, with the file they came in (status.json
//! `unanswered` for those sent, maybe issued; `not_sent` for the `pending` ones, which nothing of
//! reached the API; a restart follows both). A file that goes to `failed/` is not run again (it
//! changed while it was read, was cut short or damaged, or its results could not be written):
//! its documents sent without a final answer are repeated all the same, found in the ledger and
//! followed without a file; its documents not sent wait in the ledger as `pending` for the file
//! to be dropped into the inbox again, which sends them once and writes its results, as its
//! `.error.txt` says. Before a file is taken, and when idle, once it
//! is time: the ledger's open requests are repeated with their original idempotency key (never
//! another: exactly once), and each file whose documents got answers (or that holds documents
//! not sent) is run again from `done/` as a file dropped again is: what the ledger holds as
//! accepted is reported from it, nothing accepted is sent again, and its result set is written
//! again in place, so that its result files, its summary and `report` say what the authority
//! holds. While the API still does not answer, a look is one request (one probe), and looks come
//! further apart, from `--rescan` seconds doubling to five minutes, so the API is not hammered
//! and new files and SIGTERM are not held up.

use super::Watcher;
use crate::commands::check;
use crate::commands::json::{ErrorDoc, submit_kind};
use crate::commands::runner::RunDispatch;
use crate::model::DocumentKind;
use crate::results::RowStatus;
use crate::results::documents::{documents_path, read_documents};
use crate::submit::{DocumentKey, LedgerState, SubmitError};
use crate::watch::Unanswered;
use chrono::Utc;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tracing::{info, warn};

/// The longest wait between two looks whether the API answers again (unless `--rescan` is longer).
const MAX_DELAY: Duration = Duration::from_secs(300);

/// A followed document: its file (as its results are named), kind and number.
type Key = (String, DocumentKind, String);

/// The documents left without a final answer, and when to look at them again.
pub(super) struct Settling {
    docs: BTreeMap<Key, Unanswered>,
    /// Where a file whose `done/` name differs from its results' is copied to be run again.
    scratch: PathBuf,
    base: Duration,
    delay: Duration,
    next_at: Instant,
}

impl Settling {
    /// Following what a previous watcher followed (its status.json), looking first at once.
    pub(super) fn new(previous: Vec<Unanswered>, state_dir: &Path, rescan: Duration) -> Settling {
        Settling {
            docs: previous
                .into_iter()
                .map(|u| ((u.file.clone(), u.kind, u.number.clone()), u))
                .collect(),
            scratch: state_dir.join("watch-rewrite"),
            base: rescan,
            delay: rescan,
            next_at: Instant::now(),
        }
    }

    /// For status.json: the documents sent without a final answer (`unanswered`: maybe issued),
    /// and those not sent (`not_sent`: ledger state `pending`, not issued).
    pub(super) fn lists(&self) -> (Vec<Unanswered>, Vec<Unanswered>) {
        self.docs
            .values()
            .cloned()
            .partition(|u| u.state != LedgerState::Pending.as_str())
    }

    /// The look after this one: soon after progress, further apart while nothing moves.
    fn schedule(&mut self, progress: bool) {
        if progress {
            self.delay = self.base;
        }
        self.next_at = Instant::now() + self.delay;
        if !progress {
            self.delay = (self.delay * 2).min(MAX_DELAY.max(self.base));
        }
    }

    /// After a file: look at once when the API answered it, at the usual pace when it was given up on.
    fn after_file(&mut self, gave_up: bool) {
        self.next_at = if gave_up {
            self.next_at.max(Instant::now() + self.delay)
        } else {
            Instant::now()
        };
    }
}

fn kind_of(text: &str) -> Option<DocumentKind> {
    serde_json::from_value(serde_json::Value::String(text.to_string())).ok()
}

impl Watcher<'_> {
    /// Where the ledger has a document of this device (`None` when it cannot be read or holds
    /// nothing under this device).
    fn ledger_state(&self, kind: DocumentKind, number: &str) -> Option<LedgerState> {
        let key = DocumentKey {
            onboard_id: self.runner.submitter().onboard_id().to_string(),
            kind,
            number: number.to_string(),
        };
        self.runner.ledger().get(&key).ok().flatten().map(|e| e.state)
    }

    /// Follow the documents of `file` (its results' name, `done` where it is now) that its result
    /// set says `failed` and the ledger holds without a final answer, in place of what was
    /// followed of it before.
    fn follow_file(&mut self, file: &str, done: &Path) {
        let mut since = BTreeMap::new();
        self.settling.docs.retain(|(f, kind, number), u| {
            if f == file {
                since.insert((*kind, number.clone()), u.since);
            }
            f != file
        });
        let stem = crate::results::input_stem(Path::new(file));
        let path = documents_path(&self.input.results, &stem);
        let records = match read_documents(&path) {
            Ok(r) => r,
            Err(e) => {
                warn!(
                    "{file}: its documents left without an answer cannot be followed ({e}); once the API answers, drop \
                     {file} into the inbox again to write its results"
                );
                return;
            }
        };
        let done = done
            .strip_prefix(&self.inbox.root)
            .unwrap_or(done)
            .display()
            .to_string();
        for r in records.iter().filter(|r| r.status == RowStatus::Failed) {
            let Some(kind) = kind_of(&r.kind) else { continue };
            let Some(state) = self.ledger_state(kind, &r.document).filter(|s| s.is_open()) else {
                continue;
            };
            let key = (kind, r.document.clone());
            self.settling.docs.insert(
                (file.to_string(), kind, r.document.clone()),
                Unanswered {
                    number: r.document.clone(),
                    kind,
                    invoice_type: r.invoice_type.clone(),
                    state: state.as_str().to_string(),
                    file: file.to_string(),
                    done: done.clone(),
                    since: since.get(&key).copied().unwrap_or_else(Utc::now),
                },
            );
        }
    }

    /// After `file` went to `done` (as `done_path`): follow what it left without an answer; the
    /// next look at once if the API answered it, at the usual pace if it was given up on.
    pub(super) fn file_done(&mut self, file: &str, done_path: &Path) {
        self.follow_file(file, done_path);
        let (mut sent, mut not_sent) = (0, 0);
        for (_, u) in self.settling.docs.iter().filter(|(k, _)| k.0 == file) {
            if u.state == LedgerState::Pending.as_str() {
                not_sent += 1;
            } else {
                sent += 1;
            }
        }
        if sent > 0 {
            info!(
                "{file}: {sent} document(s) sent without a final answer (maybe issued); the watcher repeats them (the \
                 same idempotency key) once the API answers again, then writes the results of {file} again \
                 (status.json `unanswered`)"
            );
        }
        if not_sent > 0 {
            info!(
                "{file}: {not_sent} document(s) not sent (not issued: the API stopped answering); the watcher sends \
                 them once the API answers again, then writes the results of {file} again (status.json `not_sent`)"
            );
        }
        self.settling.after_file(self.runner.submitter().gave_up());
    }

    /// Documents the ledger holds without a final answer that no file followed (a `run` before
    /// the watcher, a status.json gone): followed without a file, so that they are repeated and
    /// shown.
    fn follow_the_ledger(&mut self) -> usize {
        let submitter = self.runner.submitter();
        let entries = match self.runner.ledger().unresolved(submitter.onboard_id()) {
            Ok(e) => e,
            Err(e) => {
                warn!("the ledger could not be read for the documents left without an answer: {e}");
                return 0;
            }
        };
        let n = entries.len();
        let followed: std::collections::HashSet<(DocumentKind, String)> =
            self.settling.docs.keys().map(|(_, k, nr)| (*k, nr.clone())).collect();
        for e in entries {
            let (kind, number) = (e.key.kind, e.key.number.clone());
            if followed.contains(&(kind, number.clone())) {
                continue;
            }
            let invoice_type = serde_json::from_slice::<crate::model::Document>(&e.body)
                .map(|d| d.invoice_type.as_str().to_string())
                .unwrap_or_default();
            self.settling.docs.insert(
                (String::new(), kind, number.clone()),
                Unanswered {
                    number,
                    kind,
                    invoice_type,
                    state: e.state.as_str().to_string(),
                    file: String::new(),
                    done: String::new(),
                    since: Utc::now(),
                },
            );
        }
        n
    }

    /// When it is time: repeat the documents left without an answer, then write again the
    /// results of the files whose documents got answers (or hold documents not sent).
    pub(super) fn settle(&mut self) {
        if self.stopping() || Instant::now() < self.settling.next_at {
            return;
        }
        let open_requests = self.follow_the_ledger();
        if self.settling.docs.is_empty() {
            self.settling.schedule(true);
            return;
        }
        let submitter = self.runner.submitter();
        submitter.only_one_probe(true);
        let progress = self.settle_now(open_requests);
        submitter.only_one_probe(false);
        self.settling.schedule(progress);
    }

    /// [`Self::settle`]'s work; whether anything moved.
    fn settle_now(&mut self, open_requests: usize) -> bool {
        if open_requests > 0 && self.runner.submitter().gave_up() {
            // The oldest one looks whether the API answers again; the others wait for it, so
            // that a silent API costs one request (and one line in the log) per look.
            let probed =
                self.with_heartbeat(|runner, _| runner.runtime().block_on(runner.submitter().resume_oldest(|_| {})));
            if let Err(e) = probed {
                self.stop_on(Some(&e), &e.to_string());
                return false;
            }
        }
        if open_requests > 0 && !self.runner.submitter().gave_up() {
            let dispatch = self.runner.dispatch(false, Some(self.halt));
            let repeated = self.with_heartbeat(|runner, _| runner.resume(&dispatch));
            drop(dispatch);
            if let Err(e) = repeated {
                self.stop_on(e.downcast_ref::<SubmitError>(), &format!("{e:#}"));
                return false;
            }
        }
        let mut progress = self.refresh();
        if open_requests > 0 && self.runner.submitter().gave_up() {
            // Still silent: the files wait for the next look.
            return progress;
        }
        let mut files: Vec<(String, String)> = Vec::new();
        for u in self.settling.docs.values() {
            let write = !u.file.is_empty() && (!open_text(&u.state) || u.state == LedgerState::Pending.as_str());
            if write && !files.iter().any(|(f, _)| *f == u.file) {
                files.push((u.file.clone(), u.done.clone()));
            }
        }
        for (file, done) in files {
            if self.stopping() {
                break;
            }
            let written = self.rewrite(&file, &done);
            if self.runner.submitter().gave_up() {
                // Its documents not sent found the API still silent: the next look, later.
                break;
            }
            progress |= written;
        }
        progress
    }

    /// Where each followed document stands now; whether any got an answer (said in the log).
    /// One answered whose file has no result set to write again is followed no longer.
    fn refresh(&mut self) -> bool {
        let (mut accepted, mut rejected, mut open_now) = (0u64, 0u64, 0u64);
        let keys: Vec<Key> = self.settling.docs.keys().cloned().collect();
        for key in keys {
            let state = self.ledger_state(key.1, &key.2);
            let Some(u) = self.settling.docs.get_mut(&key) else {
                continue;
            };
            let was_open = open_text(&u.state);
            match state {
                Some(s) if s.is_open() => {
                    open_now += 1;
                    u.state = s.as_str().to_string();
                }
                Some(s) => {
                    if was_open {
                        match s {
                            LedgerState::Accepted => accepted += 1,
                            _ => rejected += 1,
                        }
                    }
                    u.state = s.as_str().to_string();
                    if key.0.is_empty() {
                        self.settling.docs.remove(&key);
                    }
                }
                None => {
                    self.settling.docs.remove(&key);
                }
            }
        }
        if accepted + rejected > 0 {
            info!(
                "{} document(s) left without a final answer have one now (repeated with their original idempotency \
                 key): {accepted} accepted, {rejected} rejected; {open_now} still without one",
                accepted + rejected
            );
        }
        accepted + rejected > 0
    }

    /// Run `file` again from `done` (relative to the inbox) as a file dropped again is, writing
    /// its result set again in place; whether that was done.
    fn rewrite(&mut self, file: &str, done: &str) -> bool {
        let done_path = self.inbox.root.join(done);
        if done.is_empty() || !done_path.is_file() {
            warn!(
                "{file}: its results cannot be written again from the ledger: {} is gone. Its documents left without \
                 an answer are still repeated; for its results, drop the export into the inbox again",
                if done.is_empty() { "its file in done/" } else { done }
            );
            self.forget_file(file);
            return false;
        }
        // Under the name its results have (done/ may hold it under another, after a clash).
        let path = if super::name_of(&done_path) == file {
            done_path.clone()
        } else {
            let copy = self.settling.scratch.join(file);
            let copied =
                std::fs::create_dir_all(&self.settling.scratch).and_then(|()| std::fs::copy(&done_path, &copy));
            if let Err(e) = copied {
                warn!(
                    "{file}: cannot copy {} to {} to write its results again: {e}",
                    done_path.display(),
                    copy.display()
                );
                return false;
            }
            copy
        };
        self.write_status(Some(file));
        let mut dispatch = self.runner.dispatch(false, Some(self.halt));
        let evaluated = self.evaluate_file(&path, &mut dispatch);
        if path != done_path {
            let _ = std::fs::remove_file(&path);
        }
        self.track_simplified(&mut dispatch, file);
        let (halted, stopped) = (dispatch.halted, dispatch.stopped.clone());
        drop(dispatch);
        if let Some(stop) = stopped {
            self.fatal = Some(stop);
        }
        let summary = match evaluated {
            Ok((report, _)) => match report.files.into_iter().next() {
                Some(s) => match (&s.error, &s.changed) {
                    (None, None) => Ok(s),
                    (Some(e), _) => Err(e.clone()),
                    (None, Some(_)) => Err(format!("{done} changed while it was read")),
                },
                None => Err(report
                    .skipped_files
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "nothing to read".into())),
            },
            Err(e) => Err(format!("{e:#}")),
        };
        let summary = match summary {
            Ok(s) => s,
            Err(e) => {
                warn!(
                    "{file}: its results could not be written again from the ledger ({e}); the watcher tries again later"
                );
                return false;
            }
        };
        if halted || self.fatal.is_some() {
            // Stopped before all of it was looked at: its documents stay followed (status.json),
            // and the next start writes its results again.
            return false;
        }
        info!(
            "{file}: results written again from the ledger ({}, {} rejected, {} failed, {} invalid, {} skipped) -> {}",
            check::accepted_text(&summary.documents),
            summary.documents.rejected,
            summary.documents.failed,
            summary.documents.invalid,
            summary.documents.skipped,
            summary.result_file.as_deref().unwrap_or("-")
        );
        self.follow_file(file, &done_path);
        true
    }

    /// Follow the documents of `file` no longer as its own: those still without an answer stay,
    /// without a file.
    fn forget_file(&mut self, file: &str) {
        let keys: Vec<Key> = self.settling.docs.keys().filter(|k| k.0 == file).cloned().collect();
        for key in keys {
            if let Some(mut u) = self.settling.docs.remove(&key)
                && open_text(&u.state)
            {
                u.file.clear();
                u.done.clear();
                self.settling.docs.insert((String::new(), key.1, key.2), u);
            }
        }
    }

    /// Stop the watch when sending had to stop for good (credentials rejected, unknown device),
    /// as a file does; otherwise say the error and look again later.
    fn stop_on(&mut self, error: Option<&SubmitError>, text: &str) {
        match error {
            Some(e @ (SubmitError::CredentialsRejected { .. } | SubmitError::UnknownDevice { .. })) => {
                self.fatal = Some(ErrorDoc::new(submit_kind(e), e.to_string()));
            }
            _ => warn!("repeating the documents left without an answer: {text}"),
        }
    }

    /// What became of the simplified documents a dispatch sent for `file`, for the 24-hour alert.
    pub(super) fn track_simplified(&mut self, dispatch: &mut RunDispatch<'_>, file: &str) {
        for mut t in std::mem::take(&mut dispatch.simplified) {
            let key = (t.kind, t.number.clone());
            if t.status == "accepted" {
                self.unsettled.remove(&key);
            } else {
                t.file = file.to_string();
                self.unsettled.insert(key, t);
            }
        }
    }
}

/// The text of a state that is not a final answer.
fn open_text(state: &str) -> bool {
    LedgerState::parse(state).is_some_and(LedgerState::is_open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_come_further_apart_while_nothing_moves_and_soon_again_after_progress() {
        let rescan = Duration::from_secs(30);
        let mut s = Settling::new(Vec::new(), Path::new("state"), rescan);
        assert!(s.next_at <= Instant::now(), "the first look at once");
        let waits: Vec<Duration> = (0..6)
            .map(|_| {
                s.schedule(false);
                s.next_at.saturating_duration_since(Instant::now())
            })
            .collect();
        let secs: Vec<u64> = waits.iter().map(|w| (w.as_secs_f64().round()) as u64).collect();
        assert_eq!(secs, [30, 60, 120, 240, 300, 300]);
        s.schedule(true);
        let w = s.next_at.saturating_duration_since(Instant::now());
        assert!(w <= rescan && w > rescan / 2, "{w:?}");
        s.after_file(false);
        assert!(s.next_at <= Instant::now(), "the API answered the file: look at once");
        s.after_file(true);
        assert!(s.next_at > Instant::now() + rescan / 2, "given up on: not at once");
        // A --rescan longer than five minutes is the pace.
        let mut slow = Settling::new(Vec::new(), Path::new("state"), Duration::from_secs(600));
        slow.schedule(false);
        slow.schedule(false);
        let w = slow.next_at.saturating_duration_since(Instant::now());
        assert!(w > Duration::from_secs(590) && w <= Duration::from_secs(600), "{w:?}");
    }

    #[test]
    fn open_states_and_kinds_read_back() {
        assert!(open_text("unknown") && open_text("in_flight") && open_text("pending"));
        assert!(!open_text("accepted") && !open_text("rejected"));
        assert_eq!(kind_of("credit_note"), Some(DocumentKind::CreditNote));
        assert_eq!(kind_of(""), None);
    }
}

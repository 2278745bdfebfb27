//! `invoicedrop watch INBOX`: the drop-folder daemon. Files dropped into the inbox are taken once
//! quiet (size and time unchanged for `--quiet-period`), claimed into `.processing/`, run through
//! the same pipeline as `run` (one [`Runner`] for the watcher's whole life), then moved to `done/`
//! or, when the file as a whole could not be processed, to `failed/` with `<name>.error.txt`.
//!
//! File system events (notify, debounced) only wake the loop: every wake-up, and every `--rescan`
//! seconds regardless, scans the inbox, so a missed event or a queue overflow loses nothing. On
//! SIGINT/SIGTERM no new file is taken and no new request is sent (the waits between requests
//! end at once); the requests on the wire finish, the result file is written, and a file not
//! fully sent stays in `.processing/`, which the next start finishes first (the ledger makes that
//! safe).

use super::Status;
use super::check;
use super::json::{self, ErrorDoc, Fatal};
use super::runner::Runner;
use crate::cli::*;
use crate::model::DocumentKind;
use crate::text::one_line;
use crate::watch::{
    Inbox, InboxLock, LastFile, Seen, Stability, Tracked, WatchStatus, alert_warnings, overdue, sha256_file,
};
use anyhow::Context as _;
use chrono::Utc;
use notify_debouncer_full::notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tracing::{error, info, warn};

mod file;
mod heartbeat;
mod settle;
mod unclash;

use settle::Settling;

/// Documents per batch (a stop waits only for the requests on the wire).
const WATCH_BATCH: usize = 100;

/// Why the loop woke up.
enum Wake {
    /// Something changed in the inbox (or the watcher lost events and asks for a rescan).
    Changed,
    /// SIGINT or SIGTERM.
    Stop,
}

fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|_| value.is_finite())
        .ok_or_else(|| Fatal::usage(format!("{flag} {value}: expected a number of seconds, 0 or more")).into())
}

/// The watcher's state between files.
struct Watcher<'a> {
    inbox: Inbox,
    input: InputArgs,
    runner: &'a Runner,
    halt: &'a AtomicBool,
    seen: Seen,
    stability: Stability,
    alert_hours: f64,
    /// Simplified documents sent and not accepted yet, by kind and number.
    unsettled: BTreeMap<(DocumentKind, String), Tracked>,
    last: Option<LastFile>,
    /// Set when sending had to stop for good (credentials rejected, unknown device).
    fatal: Option<ErrorDoc>,
    alerted: usize,
    /// The last error writing status.json, said once until it is written again.
    status_error: Option<String>,
    /// The loop has ended: status.json says `stopped`.
    stopped: bool,
    /// The status last made (and written, when it could be): `--json`'s document at the end.
    last_status: Option<WatchStatus>,
    /// How often status.json is rewritten while a file is processed (`--rescan`).
    rescan: Duration,
    /// Documents left without a final answer, repeated once the API answers again.
    settling: Settling,
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl<'a> Watcher<'a> {
    /// `body`, with status.json rewritten every `--rescan` meanwhile ([`heartbeat`]).
    fn with_heartbeat<T>(&mut self, body: impl FnOnce(&'a Runner, &InputArgs) -> T) -> T {
        let (runner, input) = (self.runner, &self.input);
        heartbeat::while_running(
            self.last_status.clone(),
            &input.results,
            &self.inbox,
            &mut self.stability,
            self.rescan,
            self.halt,
            || body(runner, input),
        )
    }

    /// Run `path` through the pipeline, its documents sent through `dispatch`.
    fn evaluate_file(
        &mut self,
        path: &Path,
        dispatch: &mut super::runner::RunDispatch<'_>,
    ) -> anyhow::Result<(check::Report, Status)> {
        let path = path.to_path_buf();
        self.with_heartbeat(|runner, input| {
            check::evaluate(
                std::slice::from_ref(&path),
                input,
                &runner.config,
                Utc::now(),
                Some(WATCH_BATCH),
                // The watch lists no documents (status.json counts them).
                Some(0),
                false,
                Some(dispatch),
            )
        })
    }

    fn write_status(&mut self, processing: Option<&str>) {
        let ledger_settled: Vec<_> = self
            .unsettled
            .keys()
            .filter(|(kind, number)| self.runner.is_accepted(*kind, number))
            .cloned()
            .collect();
        for k in ledger_settled {
            self.unsettled.remove(&k);
        }
        let unsettled: Vec<Tracked> = self.unsettled.values().cloned().collect();
        let now = Utc::now();
        let alerts = overdue(&unsettled, self.alert_hours, now);
        if alerts.len() > self.alerted {
            for line in alert_warnings(&alerts, self.alert_hours, now) {
                warn!("{line}");
            }
        }
        self.alerted = alerts.len();
        let (unanswered, not_sent) = self.settling.lists();
        let status = WatchStatus {
            inbox: self.inbox.root.display().to_string(),
            pid: std::process::id(),
            state: if self.stopped {
                "stopped"
            } else if self.halt.load(Ordering::SeqCst) {
                "stopping"
            } else {
                "watching"
            }
            .into(),
            updated_at: Utc::now(),
            processing: processing.map(str::to_string),
            last_file: self.last.clone(),
            queue: self.stability.queue(),
            alert_hours: self.alert_hours,
            alerts,
            unsettled,
            unanswered,
            not_sent,
        };
        // Written after every scan: a failure is said once (and again when it changes), not
        // every few hundred milliseconds.
        let written = status.write(&self.input.results);
        self.last_status = Some(status);
        match written {
            Err(e) => {
                let e = e.to_string();
                if self.status_error.as_deref() != Some(e.as_str()) {
                    warn!("cannot write status.json: {e}");
                    self.status_error = Some(e);
                }
            }
            Ok(()) => {
                if self.status_error.take().is_some() {
                    info!("status.json is written again");
                }
            }
        }
    }

    fn stopping(&self) -> bool {
        self.halt.load(Ordering::SeqCst) || self.fatal.is_some()
    }

    /// Scan the inbox and take the oldest file that has become quiet (one per scan, so the others
    /// are looked at again after it: a file rewritten meanwhile waits again). Whether one was
    /// taken.
    fn scan(&mut self) -> anyhow::Result<bool> {
        // Before a file is taken, and when idle: documents left without an answer, when it is time.
        self.settle();
        // A symbolic link is never taken: it goes to failed/ at once, so that it is seen.
        for link in self.inbox.links()? {
            let why = crate::watch::link_error(&link);
            self.fail(&link, &name_of(&link), &why)?;
        }
        let present = self.inbox.scan()?;
        let ready = self.stability.observe(&present, Instant::now());
        let mut took = false;
        if let Some(path) = ready.into_iter().next()
            && !self.stopping()
        {
            self.stability.forget(&path);
            if let Some(claimed) = self.inbox.claim(&path)? {
                self.process(claimed, false)?;
                took = true;
            }
        }
        self.write_status(None);
        Ok(took)
    }
}

/// The file names of the lookup tables the mapping reads (`--mapping`), or any bundled
/// mapping reads when the mapping is detected per file.
fn lookup_tables(mapping: Option<&crate::mapping::Mapping>) -> Vec<String> {
    let mappings = match mapping {
        Some(m) => vec![m.clone()],
        None => crate::mapping::bundled::all().unwrap_or_default(),
    };
    let mut names: Vec<String> = mappings
        .iter()
        .flat_map(|m| m.lookups.iter())
        .filter_map(|(_, spec)| {
            Path::new(&spec.file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Run `invoicedrop watch`.
pub fn watch(args: WatchArgs, cli: &Cli) -> anyhow::Result<Status> {
    let quiet = seconds("--quiet-period", args.quiet_period)?;
    let rescan = seconds("--rescan", args.rescan)?.max(Duration::from_millis(100));
    if !(args.alert_hours.is_finite() && args.alert_hours >= 0.0) {
        return Err(Fatal::usage(format!(
            "--alert-hours {}: expected a number of hours, 0 or more",
            args.alert_hours
        ))
        .into());
    }
    if args.inbox.is_file() {
        let file = args.inbox.display();
        return Err(Fatal::usage(format!(
            "{file} is a file, not a folder: watch takes the folder the ERPs drop their exports into; to send this \
             one file, use `invoicedrop run {file}` (with the --state, --mapping and --config the watcher uses, so \
             that it is sent through the same ledger)"
        ))
        .into());
    }
    if !args.inbox.is_dir() {
        return Err(Fatal::usage(format!(
            "{}: no such folder (the inbox to watch): create it, or give the folder the ERPs drop their exports into",
            args.inbox.display()
        ))
        .into());
    }
    // Before the inbox's folders are made: a state folder of an API is never watched through the
    // built-in sandbox.
    super::api::no_sandbox_for_an_api_state(&args.api.state)?;
    let mapping = match &args.mapping {
        Some(spec) => Some(crate::pipeline::load_mapping(spec)?),
        None => None,
    };
    let tables = lookup_tables(mapping.as_ref());
    let inbox = Inbox::new(&args.inbox).with_tables(tables.iter().cloned());
    inbox.create_dirs()?;
    let _lock = InboxLock::acquire(&inbox)?;
    let input = InputArgs {
        mapping: args.mapping.clone(),
        config: args.config.clone(),
        results: args.results.clone().unwrap_or_else(|| inbox.root.join("results")),
    };
    // A results folder that cannot be made stops the watch now, not one warning per scan.
    super::folder::results_folder(&input.results)?;
    let mut runner = Runner::start(&input, &args.api)?;
    // A watcher repeats what is left without an answer itself: there is no next run to say.
    runner.submitter().for_watch();
    // Lookup tables dropped into the inbox are read from there (the export itself is read from
    // .processing/), and left in place.
    runner.config.extra_lookup_dirs.push(inbox.root.clone());
    info!(
        "lookup tables ({}) are read from {} and left there",
        tables.join(", "),
        inbox.root.display()
    );
    let runner = runner;
    if let Err(skipped) = &runner.device {
        warn!("{skipped}");
    }
    let halt = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<Wake>();
    {
        let (halt, tx, sending) = (halt.clone(), tx.clone(), runner.halt());
        let _in_runtime = runner.runtime().enter();
        // Both registered now, before any file is taken: from here on a signal only raises `halt`.
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
        runner.runtime().spawn(async move {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            halt.store(true, Ordering::SeqCst);
            // Also ends the waits between requests (backoff, probes of an API that is down).
            sending.raise();
            let _ = tx.send(Wake::Stop);
        });
    }
    // Kept alive for the watcher's life; none with --no-events.
    let debouncer = if args.no_events {
        info!(
            "change events off (--no-events): scanning {} every {} s",
            inbox.root.display(),
            rescan.as_secs_f64()
        );
        None
    } else {
        let events = tx.clone();
        let mut debouncer = new_debouncer(Duration::from_millis(200), None, move |_: DebounceEventResult| {
            let _ = events.send(Wake::Changed);
        })
        .context("cannot watch the inbox for changes")?;
        if let Err(e) = debouncer.watch(&inbox.root, RecursiveMode::NonRecursive) {
            warn!(
                "cannot get change events for {} ({e}); scanning every {} s instead",
                inbox.root.display(),
                rescan.as_secs_f64()
            );
        }
        Some(debouncer)
    };
    let dispatch = runner.dispatch(false, None);
    let resumed = runner.resume(&dispatch)?;
    drop(dispatch);
    if resumed > 0 {
        info!("{resumed} document(s) left without a final answer were repeated with their original idempotency key");
    }
    let (unsettled, unanswered) = WatchStatus::previous(&input.results);
    let mut w = Watcher {
        inbox: inbox.clone(),
        seen: Seen::open(&args.api.state)?,
        stability: Stability::new(quiet),
        alert_hours: args.alert_hours,
        unsettled: unsettled.into_iter().map(|t| ((t.kind, t.number.clone()), t)).collect(),
        input,
        runner: &runner,
        halt: &halt,
        last: None,
        fatal: None,
        alerted: 0,
        status_error: None,
        stopped: false,
        last_status: None,
        rescan,
        settling: Settling::new(unanswered, &args.api.state, rescan),
    };
    for t in runner.unresolved_simplified() {
        w.unsettled.insert((t.kind, t.number.clone()), t);
    }
    for leftover in inbox.leftovers()? {
        if w.stopping() {
            break;
        }
        w.process(leftover, true)?;
    }
    let poll = (quiet / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
    while !w.stopping() {
        if w.scan()? {
            continue;
        }
        if w.stopping() {
            break;
        }
        let wait = if w.stability.is_waiting() { poll } else { rescan };
        match rx.recv_timeout(wait) {
            Ok(Wake::Stop) => break,
            Ok(Wake::Changed) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        // Several events make one scan.
        while let Ok(wake) = rx.try_recv() {
            if matches!(wake, Wake::Stop) {
                break;
            }
        }
    }
    w.stopped = true;
    w.write_status(None);
    let fatal = w.fatal.take();
    let last_status = w.last_status.take();
    drop(w);
    drop(debouncer);
    let sandbox = runner.sandbox();
    runner.shutdown();
    let error = fatal.map(|f| ErrorDoc::new(f.kind, format!("the watch stopped: {}", f.message)));
    match &error {
        Some(e) => eprintln!("error: {}", e.message),
        None => info!("stopped"),
    }
    let status = if error.is_some() {
        Status::Error
    } else {
        Status::Success
    };
    if cli.json {
        // One document, at the end: the last status.json, and why the watch stopped.
        json::emit(&serde_json::json!({
            "exit_code": status.code(),
            "error": error,
            // As `run --json`: whether the documents went to the built-in sandbox.
            "sandbox": sandbox,
            "status": last_status,
        }))?;
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_flags_refuse_negative_and_non_numbers() {
        assert!(seconds("--rescan", -1.0).is_err());
        assert!(seconds("--rescan", f64::NAN).is_err());
        assert_eq!(seconds("--rescan", 0.5).unwrap(), Duration::from_millis(500));
    }
}

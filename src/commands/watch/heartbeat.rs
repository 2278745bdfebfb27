//! `status.json` kept fresh while a file is processed. A file can take hours at a real API's
//! rate (100,000 documents at 5 per second: five and a half); without this, `updated_at` would
//! stay at the moment the file was taken, which is what a stalled watcher looks like, and files
//! dropped meanwhile would not be in `queue`.

use crate::watch::{Inbox, Stability, WatchStatus};
use chrono::Utc;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tracing::debug;

/// Rewrite `status` (the status written when the file was taken) into `results/status.json`
/// every `every` while `body` runs: with the time, `stopping` once `halt` is raised, and the
/// inbox's files (observed by `stability`, so their quiet period counts meanwhile) as `queue`.
/// Returns what `body` returns; `stability` has seen what the heartbeat saw.
pub(super) fn while_running<T>(
    status: Option<WatchStatus>,
    results: &Path,
    inbox: &Inbox,
    stability: &mut Stability,
    every: Duration,
    halt: &AtomicBool,
    body: impl FnOnce() -> T,
) -> T {
    let Some(mut status) = status else {
        return body();
    };
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            // Until `stop` is dropped (the body has returned).
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                beat(&mut status, results, inbox, stability, halt);
            }
        });
        let out = body();
        drop(stop);
        out
    })
}

/// One rewrite of `status`.
fn beat(status: &mut WatchStatus, results: &Path, inbox: &Inbox, stability: &mut Stability, halt: &AtomicBool) {
    if let Ok(present) = inbox.scan() {
        // Only observed: the loop takes the files that became quiet once this file is done.
        let _ready = stability.observe(&present, Instant::now());
        status.queue = stability.queue();
    }
    if halt.load(Ordering::SeqCst) {
        status.state = "stopping".into();
    }
    status.updated_at = Utc::now();
    // A failure to write is said by the loop's own writes, once; here it would repeat.
    if let Err(e) = status.write(results) {
        debug!("cannot write status.json while processing: {e}");
    }
}

//! `check`'s pipeline (nothing is sent): every thread reads a batch, evaluates it and, when its
//! turn comes, writes it, so a batch's rows are read, checked and written on one core while
//! they are in its caches, and freed on the thread that allocated them.
//!
//! Reading stays in input order: the rows and the grouper are behind a lock, and a thread holds
//! it for one batch at a time, numbering the batches as it reads them. Writing stays in input
//! order too: a thread hands its evaluated batch in, and whichever thread finds no one writing
//! writes every batch whose turn has come (usually its own). While [`AHEAD`] batches wait for an
//! earlier one, a thread waits before reading more, so memory holds a few batches whatever the
//! file's size.
//!
//! The three stages `run` uses (one reading thread, rayon evaluating, one writing thread) hand
//! every row from core to core twice; on 1,000,000 rows this layout took 13.6 % less CPU and
//! 21.8 % less wall time (medians of 16 alternating runs; BENCHMARKS.md, "2026-11-25
//! afternoon").

use super::*;
use crate::mapping::Grouper;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Batches handed in and waiting for an earlier one before a thread stops reading more.
const AHEAD: usize = 4;

/// The rows still to read and the grouper that makes them into units, in input order: the
/// batches of both layouts (`run`'s reading thread takes them too).
pub(super) struct Reading {
    rows: Box<dyn Iterator<Item = Result<Row, RowError>> + Send>,
    grouper: Grouper,
    /// The number of the next batch read.
    next: u64,
    /// The last batch's length (the next one starts with room for as many units).
    room: usize,
    done: bool,
}

impl Reading {
    /// The rows of `input`, grouped for `bound` (knowing its split keys, when found), the first batch with room for `per_batch` units.
    pub(super) fn new(
        rows: Box<dyn Iterator<Item = Result<Row, RowError>> + Send>,
        splits: Option<Arc<crate::mapping::SplitKeys>>,
        bound: Arc<Bound>,
        per_batch: usize,
    ) -> Self {
        Reading {
            rows,
            grouper: Grouper::with_splits(bound, splits),
            next: 0,
            room: per_batch.max(1),
            done: false,
        }
    }

    /// The next batch and its number: units up to `per_batch` documents (with the rows outside
    /// any document among them), the last one with whatever the grouper still holds.
    pub(super) fn batch(&mut self, per_batch: usize) -> Option<(u64, Vec<Unit>)> {
        if self.done {
            return None;
        }
        let mut batch = Vec::with_capacity(self.room);
        let mut docs = 0usize;
        while docs < per_batch {
            let Some(item) = self.rows.next() else {
                batch.extend(self.grouper.finish());
                self.done = true;
                break;
            };
            let units = match item {
                Ok(row) => self.grouper.push(row),
                Err(e) => self.grouper.push_error(e.source, e.message),
            };
            for u in units {
                docs += usize::from(matches!(u, Unit::Document(_)));
                batch.push(u);
            }
        }
        self.room = batch.len().max(1);
        let n = self.next;
        self.next += 1;
        Some((n, batch))
    }
}

/// Evaluated batches waiting for their turn, and who writes.
struct Writing {
    /// The number of the next batch to write.
    next: u64,
    waiting: BTreeMap<u64, Vec<Outcome>>,
    /// A thread is writing (it writes every batch whose turn comes before it stops).
    busy: bool,
    /// A write failed, or a thread panicked: every thread stops.
    stop: bool,
    error: Option<std::io::Error>,
}

/// Where the batches are written; only the thread that is writing locks it.
struct Sink<'w> {
    writer: &'w mut ResultWriter,
    summary: &'w mut FileSummary,
}

struct Shared<'w> {
    reading: Mutex<Reading>,
    writing: Mutex<Writing>,
    turn: Condvar,
    sink: Mutex<Sink<'w>>,
}

/// A lock whose holder may have panicked: the panic is passed on when the threads are joined,
/// and until then the others only need the data to stop.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Stops every thread when the one holding it unwinds (a panic), so none waits for a batch that
/// will never come.
struct StopOnPanic<'a, 'w>(&'a Shared<'w>);

impl Drop for StopOnPanic<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            lock(&self.0.writing).stop = true;
            self.0.turn.notify_all();
        }
    }
}

impl Shared<'_> {
    /// Wait while this thread would be too far ahead of the writing; false when stopping.
    fn may_read(&self) -> bool {
        let mut w = lock(&self.writing);
        while !w.stop && w.waiting.len() >= AHEAD {
            w = self.turn.wait(w).unwrap_or_else(PoisonError::into_inner);
        }
        !w.stop
    }

    /// Hand in batch `n`, and write every batch whose turn has come unless a thread already is.
    fn hand_in(&self, n: u64, outcomes: Vec<Outcome>, file: &str, opts: &CheckOptions) {
        let mut w = lock(&self.writing);
        if w.stop {
            return;
        }
        w.waiting.insert(n, outcomes);
        if w.busy {
            return;
        }
        w.busy = true;
        loop {
            let next = w.next;
            let Some(batch) = w.waiting.remove(&next) else {
                w.busy = false;
                return;
            };
            w.next += 1;
            self.turn.notify_all();
            drop(w);
            let written = {
                let mut sink = lock(&self.sink);
                let Sink { writer, summary } = &mut *sink;
                record(batch, file, opts, writer, summary)
            };
            w = lock(&self.writing);
            if let Err(e) = written {
                w.error = Some(e);
                w.stop = true;
                w.busy = false;
                self.turn.notify_all();
                return;
            }
        }
    }

    /// One thread's work: read a batch, evaluate it, hand it in, until the rows run out.
    fn work(&self, bound: &Bound, opts: &CheckOptions, file: &str, time: &str) {
        let _stop = StopOnPanic(self);
        let per_batch = opts.batch.max(1);
        while self.may_read() {
            let Some((n, units)) = lock(&self.reading).batch(per_batch) else {
                return;
            };
            let outcomes: Vec<Outcome> = units
                .into_iter()
                // Nothing is sent: the document is dropped where it was built.
                .map(|u| evaluate(u, bound, opts, time, false))
                .collect();
            self.hand_in(n, outcomes, file, opts);
        }
    }
}

/// As many threads as rayon's pool would have (`RAYON_NUM_THREADS` when it is a positive number,
/// else one per core), without starting that pool: these threads do all the work, and asking
/// rayon its size would start its threads only for them to wait.
fn threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// [`check_stream`] without a dispatcher: the same result files, rows and counts, with each
/// batch read, evaluated and written by one thread (as many threads as [`threads`] says).
pub(super) fn check_local(
    input: Input,
    bound: Arc<Bound>,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
) -> std::io::Result<()> {
    let time = opts.now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let file = input.path.display().to_string();
    let shared = Shared {
        reading: Mutex::new(Reading::new(input.rows, input.splits, bound.clone(), opts.batch)),
        writing: Mutex::new(Writing {
            next: 0,
            waiting: BTreeMap::new(),
            busy: false,
            stop: false,
            error: None,
        }),
        turn: Condvar::new(),
        sink: Mutex::new(Sink { writer, summary }),
    };
    let threads = threads();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|_| scope.spawn(|| shared.work(&bound, opts, &file, &time)))
            .collect();
        shared.work(&bound, opts, &file, &time);
        for h in helpers {
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
    let w = shared.writing.into_inner().unwrap_or_else(PoisonError::into_inner);
    if let Some(e) = w.error {
        return Err(e);
    }
    debug_assert!(w.waiting.is_empty(), "every batch handed in is written");
    Ok(())
}

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

use super::notes::Settling;
use super::stamp::{SideWatch, Watched, cut_at_end, damaged_at_end, hold_all, with_side};
use super::*;
use crate::ingest::LastLine;
use crate::mapping::Grouper;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Batches handed in and waiting for an earlier one before a thread stops reading more.
const AHEAD: usize = 4;

/// The most rows outside any document a batch holds after its last document: past them, the
/// batch goes whole (those rows are complete, so is the document before them), and a file of
/// rows without numbers is read in batches like any other, not held whole.
const STRAYS_PER_BATCH: usize = 1024;

/// The rows still to read and the grouper that makes them into units, in input order: the
/// batches of both layouts (`run`'s reading thread takes them too).
///
/// A document is released (put in a batch that is handed on, to be evaluated and maybe sent)
/// only once the document after it has been closed too, or the rows have run out with the file
/// unchanged: the row that closes a document may be the first of a file still being written,
/// cut in its number cell (`INV-00` for `INV-0001`), so the document it closes may yet get more
/// rows. A batch ends when the document after its last one is closed; that document, and the
/// rows outside any document after it, start the next batch. When the file changed, the
/// documents still unreleased at the end are those that may be incomplete: they are held back
/// ([`Watched::at_end`]); so are they when the file's last line was cut short before it was read
/// ([`cut_at_end`]); and the document open where the reader could not read the file further (a
/// damaged workbook) is ([`damaged_at_end`]). The units are moved, never copied: one document more is held, per file,
/// whatever its size.
///
/// When documents are sent, the file is looked at again each time a batch is cut, after its rows
/// were read and before it is handed on (one `stat` a batch, the last one's at the end of the
/// rows): a file rewritten in place while it is read (truncated and written again) gives rows
/// read after the rewrite from the new version, at the old one's offset, so a document may mix
/// the two. Once a change is seen, every document of that batch and after it is held back
/// ([`hold_all`]), and the reading goes on, so that every row still has its result. The batches
/// before were read before the change (the file was unchanged after their rows were read), and
/// go on. A file that grows or is truncated while it is read looks the same, and is held back
/// the same way. `check` sends nothing and does not look but at the end (its batches are small,
/// and the change is seen there all the same).
pub(super) struct Reading {
    rows: Box<dyn Iterator<Item = Result<Row, RowError>> + Send>,
    grouper: Grouper,
    /// The number of the next batch read.
    next: u64,
    /// The last batch's length (the next one starts with room for as many units).
    room: usize,
    /// The last document closed, and the rows outside any document read after it: the start of
    /// the next batch, not released before the next document is closed.
    held: Vec<Unit>,
    done: bool,
    /// The file as it was when opened, looked at again when the rows run out (and, when
    /// `sending`, after each batch's rows are read).
    watched: Option<Watched>,
    /// Whether the file's last line was cut short, looked at when the rows run out.
    last_line: LastLine,
    /// What the reader said when it could not read the file further (no row follows it).
    damaged: Option<String>,
    /// The valid documents are sent (`run`, `watch`), not only checked.
    sending: bool,
    /// Set when the file changed meanwhile, at the end of the rows (its last documents were
    /// held back) or, when sending, once a batch's rows were read (that batch's documents and
    /// every later one are held back, [`FileChanged::midway`]); or when its last line was cut.
    pub(super) changed: Option<FileChanged>,
    /// Where the numbers of the files checked so far are kept between files: the grouper holds
    /// them while this file is read, and they are put back when the reading ends.
    numbers: Option<Arc<Mutex<crate::mapping::NumbersUsed>>>,
}

impl Drop for Reading {
    fn drop(&mut self) {
        if let (Some(home), Some(used)) = (&self.numbers, self.grouper.take_numbers_used()) {
            *lock(home) = used;
        }
    }
}

impl Reading {
    /// The rows of `input`, grouped for `bound` (knowing its split keys, when found), the first
    /// batch with room for `per_batch` units. `sending`: its valid documents are sent (what the
    /// finding on a document held back says). `numbers`: the numbers of the files checked
    /// before, when a number used again is looked for.
    pub(super) fn new(
        input: Input,
        bound: Arc<Bound>,
        per_batch: usize,
        sending: bool,
        numbers: Option<&Arc<Mutex<crate::mapping::NumbersUsed>>>,
    ) -> Self {
        let Input {
            path,
            rows,
            opened,
            last_line,
            splits,
            ..
        } = input;
        let mut grouper = Grouper::with_splits(bound, splits);
        if let Some(home) = numbers {
            let used = std::mem::take(&mut *lock(home));
            grouper = grouper.with_numbers_used(used, &path.display().to_string());
        }
        Reading {
            numbers: numbers.cloned(),
            rows,
            grouper,
            next: 0,
            room: per_batch.max(1),
            held: Vec::new(),
            done: false,
            watched: opened.map(|o| Watched::new(path, o, sending)),
            last_line,
            damaged: None,
            sending,
            changed: None,
        }
    }

    /// The end of the rows, before the last documents are evaluated: `read`, the units not yet
    /// released, and `last`, the unit the grouper closed at the end.
    ///
    /// When documents are sent, this is the last batch's look at the file: changed, the whole
    /// batch is held back as any other (by the caller). When they are only checked, a file that
    /// changed while it was read may have cut the document open at the end, and the row that
    /// closed the one before: those two are held back ([`Watched::at_end`]). So are they, in
    /// both, when the file did not change but its last line was cut short before it was read.
    fn at_end(&mut self, read: &mut [Unit], last: &mut Option<Unit>) {
        if self.changed.is_some() {
            // Seen changed at an earlier batch: every document from there on is held back.
            return;
        }
        self.changed = match &self.watched {
            Some(w) if self.sending => w.midway(),
            Some(w) => w.at_end(read, last),
            None => None,
        };
        if self.changed.is_none()
            && let Some(cut) = self.last_line.cut()
        {
            self.changed = Some(cut_at_end(cut.clone(), self.sending, read, last));
        }
        if self.changed.is_none()
            && let Some(reason) = self.damaged.take()
        {
            self.changed = Some(damaged_at_end(reason, self.sending, last));
        }
    }

    /// The next batch and its number: units up to `per_batch` documents (with the rows outside
    /// any document among them), each released only once the next document is closed; the last
    /// batch with whatever is left.
    pub(super) fn batch(&mut self, per_batch: usize) -> Option<(u64, Vec<Unit>)> {
        if self.done {
            return None;
        }
        let per_batch = per_batch.max(1);
        let mut batch = Vec::with_capacity(self.room.max(self.held.len()));
        // The document kept from the last batch (its first unit), and the rows after it.
        batch.append(&mut self.held);
        let mut last_doc = batch.first().and_then(|u| matches!(u, Unit::Document(_)).then_some(0));
        let mut docs = usize::from(last_doc.is_some());
        loop {
            let Some(item) = self.rows.next() else {
                let mut last = self.grouper.finish();
                self.at_end(&mut batch, &mut last);
                batch.extend(last);
                self.done = true;
                break;
            };
            let units = match item {
                Ok(row) => self.grouper.push(row),
                // The file cannot be read further: no row of it is left to report, and the
                // document open here is held back at the end, with the file's error.
                Err(e) if e.ends_file => {
                    self.damaged = Some(e.message);
                    Vec::new()
                }
                Err(e) => self.grouper.push_error(e.source, e.message),
            };
            for u in units {
                if matches!(u, Unit::Document(_)) {
                    docs += 1;
                    last_doc = Some(batch.len());
                }
                batch.push(u);
            }
            if docs > per_batch
                && let Some(at) = last_doc
            {
                // `per_batch` documents, each followed by a closed one: released. The last one
                // closed waits for the next.
                self.held.extend(batch.drain(at..));
                break;
            }
            if batch.len() - last_doc.map_or(0, |at| at + 1) >= STRAYS_PER_BATCH {
                // Rows outside any document, read past the last document: it and they are
                // complete (a row came after each), so the batch goes whole.
                break;
            }
        }
        if self.sending && !self.done && self.changed.is_none() {
            // Before the batch is handed on to be sent: its rows were read from the file as it
            // was opened only if it is still so now (the last batch looks in `at_end`).
            self.changed = self.watched.as_ref().and_then(Watched::midway);
        }
        if let Some(changed) = &mut self.changed
            && changed.midway.is_some()
        {
            hold_all(changed, &mut batch);
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
    /// The files read with the export (header file, lookup tables), watched.
    side: SideWatch,
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

    /// Hand in batch `n`, and write every batch whose turn has come unless a thread already is
    /// (its notes settled first, in input order: `notes.rs`).
    fn hand_in(&self, n: u64, outcomes: Vec<Outcome>, file: &str, opts: &CheckOptions, settling: &Settling<'_>) {
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
            let Some(mut batch) = w.waiting.remove(&next) else {
                w.busy = false;
                return;
            };
            w.next += 1;
            self.turn.notify_all();
            drop(w);
            let written = {
                settling.checked(&mut batch);
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
    fn work(&self, bound: &Bound, opts: &CheckOptions, file: &str, time: &str, settling: &Settling<'_>) {
        let _stop = StopOnPanic(self);
        let per_batch = opts.batch.max(1);
        while self.may_read() {
            let Some((n, units)) = lock(&self.reading).batch(per_batch) else {
                return;
            };
            let outcomes: Vec<Outcome> = units
                .into_iter()
                // Nothing is sent: the document is dropped where it was built.
                .map(|u| evaluate(u, bound, opts, time, false, &self.side))
                .collect();
            self.hand_in(n, outcomes, file, opts, settling);
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

/// The threads to evaluate and write with, of `threads` in all: one fewer when the rows are read
/// on a thread of their own (an xlsx sheet), so that the reading, which is the slowest stage
/// there, keeps a core (with two cores and two evaluating threads beside it, the reading got
/// about two thirds of one and `check` of 200,000 xlsx rows took 10–15 % longer).
fn workers(threads: usize, reader_thread: bool) -> usize {
    if reader_thread {
        threads.saturating_sub(1).max(1)
    } else {
        threads.max(1)
    }
}

/// [`check_stream`] without a dispatcher: the same result files, rows and counts, with each
/// batch read, evaluated and written by one thread (as many threads as [`threads`] says).
pub(super) fn check_local(
    input: Input,
    bound: Arc<Bound>,
    opts: &CheckOptions,
    writer: &mut ResultWriter,
    summary: &mut FileSummary,
    settling: &Settling<'_>,
) -> std::io::Result<()> {
    let time = opts.now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let file = input.path.display().to_string();
    let threads = workers(threads(), input.reader_thread);
    let shared = Shared {
        reading: Mutex::new(Reading::new(
            input,
            bound.clone(),
            opts.batch,
            false,
            opts.numbers.as_ref(),
        )),
        side: SideWatch::new(&bound, false),
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
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|_| scope.spawn(|| shared.work(&bound, opts, &file, &time, settling)))
            .collect();
        shared.work(&bound, opts, &file, &time, settling);
        for h in helpers {
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
    let changed = shared
        .reading
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .changed
        .take();
    let changed = with_side(changed, shared.side.finish());
    let w = shared.writing.into_inner().unwrap_or_else(PoisonError::into_inner);
    summary.changed = changed;
    if let Some(e) = w.error {
        return Err(e);
    }
    debug_assert!(w.waiting.is_empty(), "every batch handed in is written");
    Ok(())
}

#[cfg(test)]
#[path = "local_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "local_tests_cuts.rs"]
mod tests_cuts;

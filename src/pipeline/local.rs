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

use super::stamp::Watched;
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
    /// The file as it was when opened, looked at again when the rows run out.
    watched: Option<Watched>,
    /// Set at the end of the rows when the file changed meanwhile (its last document was held
    /// back).
    pub(super) changed: Option<FileChanged>,
}

impl Reading {
    /// The rows of `input`, grouped for `bound` (knowing its split keys, when found), the first
    /// batch with room for `per_batch` units. `sending`: its valid documents are sent (what the
    /// finding on a last document held back says).
    pub(super) fn new(input: Input, bound: Arc<Bound>, per_batch: usize, sending: bool) -> Self {
        let Input {
            path,
            rows,
            opened,
            splits,
            ..
        } = input;
        Reading {
            rows,
            grouper: Grouper::with_splits(bound, splits),
            next: 0,
            room: per_batch.max(1),
            done: false,
            watched: opened.map(|o| Watched::new(path, o, sending)),
            changed: None,
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
                let mut last = self.grouper.finish();
                // Before the last document is evaluated: a file that changed while it was read
                // may have cut it (the documents before it were closed by a row after them).
                if let Some(w) = &self.watched {
                    self.changed = w.at_end(&mut last);
                }
                batch.extend(last);
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
        reading: Mutex::new(Reading::new(input, bound.clone(), opts.batch, false)),
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
    let changed = shared
        .reading
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .changed;
    let w = shared.writing.into_inner().unwrap_or_else(PoisonError::into_inner);
    summary.changed = changed;
    if let Some(e) = w.error {
        return Err(e);
    }
    debug_assert!(w.waiting.is_empty(), "every batch handed in is written");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled Xero sample's first `docs` documents (its rows up to the next document's).
    fn xero_head(docs: usize) -> String {
        let sample =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/xero_sales_invoices.csv")).unwrap();
        let mut out = String::new();
        let mut numbers: Vec<String> = Vec::new();
        for (i, line) in sample.lines().enumerate() {
            if i > 0 {
                let number = line.split(',').nth(18).unwrap_or_default().to_string();
                if !numbers.contains(&number) {
                    if numbers.len() == docs {
                        break;
                    }
                    numbers.push(number);
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        assert_eq!(numbers.len(), docs, "the sample has {docs} documents");
        out
    }

    /// Every unit of `path`, read as `run` reads it, with what changed; `between` runs after the
    /// file is opened and before its rows are read.
    fn read_all(path: &std::path::Path, between: impl FnOnce()) -> (Vec<Unit>, Option<FileChanged>) {
        let mapping = crate::mapping::bundled::get("xero").unwrap().unwrap();
        let prepared = prepare(path, Arc::new(mapping), &crate::config::Config::default()).unwrap();
        between();
        let mut reading = Reading::new(prepared.input, prepared.bound, 1000, true);
        let mut units = Vec::new();
        while let Some((_, batch)) = reading.batch(1000) {
            units.extend(batch);
        }
        (units, reading.changed.take())
    }

    fn file_changed_issues(u: &Unit) -> Vec<(usize, String)> {
        let Unit::Document(d) = u else { return Vec::new() };
        d.rows
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.issues.iter().map(move |is| (i, is)))
            .filter(|(_, is)| is.code == FILE_CHANGED_CODE)
            .map(|(i, is)| (i, is.message.clone()))
            .collect()
    }

    #[test]
    fn a_file_that_grows_while_read_has_its_last_document_held_back_and_only_that_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        // The fifth document, INV-0105, has four lines (the third, INV-0103, is voided: skipped).
        let head = xero_head(5);
        std::fs::write(&path, &head).unwrap();
        let (units, changed) = read_all(&path, || {});
        assert_eq!(changed, None, "an unchanged file");
        assert!(units.iter().all(|u| file_changed_issues(u).is_empty()));

        let (units, changed) = read_all(&path, || {
            let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
            std::io::Write::write_all(&mut f, head.lines().last().unwrap().as_bytes()).unwrap();
        });
        let changed = changed.expect("the file grew while it was read");
        assert_eq!(changed.opened, head.len() as u64);
        assert!(matches!(changed.now, Ok(n) if n > head.len() as u64), "{changed:?}");
        let docs: Vec<&Unit> = units.iter().filter(|u| matches!(u, Unit::Document(_))).collect();
        assert_eq!(docs.len(), 5);
        let Unit::Document(last) = docs[4] else { unreachable!() };
        assert_eq!(last.key, "INV-0105");
        let held = changed.held_back.clone().expect("the last document is held back");
        assert_eq!(held.0, last.key);
        assert_eq!(Some(held.1), last.rows[0].source().map(|s| s.line));
        // One finding, on the last document's first row; the documents before it untouched.
        let found = file_changed_issues(docs[4]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 0);
        assert!(
            found[0].1.contains("bytes when opened") && found[0].1.contains("is not sent"),
            "{found:?}"
        );
        assert!(docs[..4].iter().all(|u| file_changed_issues(u).is_empty()));
    }

    #[test]
    fn a_file_replaced_or_removed_while_read_is_seen_at_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        let head = xero_head(2);
        std::fs::write(&path, &head).unwrap();
        // Replaced by a shorter file (renamed over it): the rows read are the old file's.
        let (_, changed) = read_all(&path, || {
            let other = dir.path().join("other.csv");
            std::fs::write(&other, xero_head(1)).unwrap();
            std::fs::rename(&other, &path).unwrap();
        });
        let changed = changed.expect("replaced");
        assert!(matches!(changed.now, Ok(n) if n < head.len() as u64), "{changed:?}");
        assert!(changed.held_back.is_some());
        std::fs::write(&path, &head).unwrap();
        let (_, changed) = read_all(&path, || std::fs::remove_file(&path).unwrap());
        assert!(changed.expect("removed").now.is_err());
    }
}

//! A device's journal, `DIR/devices/<n>/journal.jsonl` (D17, D20): one JSON line per accepted
//! document ([`Record`]), appended and synced before the answer is sent. The ledger keeps where
//! each line lies ([`Span`]), not the answer in it; a replay reads the line back.
//!
//! Lines are appended under the device's lock and synced outside it, in groups ([`Syncer`]):
//! whoever needs a line on the disk either syncs the file itself, covering every line appended so
//! far, or waits for the sync already running and then, if that one started before its line was
//! written, for the next. An answer (first or replayed) is sent only once its line is synced.
//!
//! A journal line cut short by a crash was never answered, so it is dropped on load; any other
//! damage (a broken chain, a bad line in the middle) stops the start with a message naming the
//! file. Loading reads the file line by line: neither the file nor its answers are held.

use super::replay::{Ledger, Record};
use serde::Deserialize;
use serde::de::{Deserializer, Visitor};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// Where a record's line lies in its journal: its first byte and its length, newline included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// The line's first byte.
    pub(crate) offset: u64,
    /// Its length, newline included.
    pub(crate) len: u32,
}

/// Why a journal could not be loaded, written or read back.
#[derive(Debug, thiserror::Error)]
pub(crate) enum JournalError {
    /// The file could not be opened, read or written.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// On load: a line in the middle is not a record, or the chain is broken.
    #[error("{0}")]
    Damaged(String),
    /// On a replay: the line could not be read back, or is not the record the ledger expects.
    #[error(
        "{}: cannot read back the answer of ICV {icv} ({} bytes at byte {}): {reason}",
        path.display(), span.len, span.offset
    )]
    Unreadable {
        /// The journal.
        path: PathBuf,
        /// The document's counter value.
        icv: u64,
        /// Where its line should be.
        span: Span,
        /// What went wrong.
        reason: String,
    },
    /// A ledger entry's answer is in a journal the ledger does not have.
    #[error("the answer of ICV {0} is in a journal this device does not have")]
    NoJournal(u64),
    /// Syncing the journal failed: nothing written since can be answered until a restart.
    #[error("{}: the journal could not be synced ({reason}); restart the sandbox", path.display())]
    SyncFailed {
        /// The journal.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
}

/// Group commit of a journal: one `fsync` covers every line appended before it started.
#[derive(Debug)]
pub(crate) struct Syncer {
    path: PathBuf,
    /// A handle of the journal to sync.
    file: File,
    /// The journal's length after the last line appended (set under the device's lock).
    written: AtomicU64,
    state: Mutex<SyncState>,
    /// Signalled whenever a sync ends.
    ended: Condvar,
    /// `fsync` calls made, for tests and logs.
    syncs: AtomicU64,
}

#[derive(Debug)]
struct SyncState {
    /// Every byte before this one is on the disk.
    synced: u64,
    /// A sync is under way (by some waiter).
    running: bool,
    /// A sync failed: what the system said. Final: after a failed `fsync` the system may have
    /// dropped the pages, so a later successful one proves nothing.
    failed: Option<String>,
}

impl Syncer {
    /// The syncer of a journal whose first `len` bytes are on the disk.
    fn new(path: &Path, file: &File, len: u64) -> io::Result<Syncer> {
        Ok(Syncer {
            path: path.to_path_buf(),
            file: file.try_clone()?,
            written: AtomicU64::new(len),
            state: Mutex::new(SyncState {
                synced: len,
                running: false,
                failed: None,
            }),
            ended: Condvar::new(),
            syncs: AtomicU64::new(0),
        })
    }

    /// Return once the journal's first `end` bytes are on the disk: sync it (with every line
    /// appended so far), or wait for the sync under way. Blocks: call it without the device's
    /// lock, so that others append meanwhile.
    pub(crate) fn wait(&self, end: u64) -> Result<(), JournalError> {
        let lock = || self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut state = lock();
        loop {
            if let Some(reason) = &state.failed {
                return Err(JournalError::SyncFailed {
                    path: self.path.clone(),
                    reason: reason.clone(),
                });
            }
            if state.synced >= end {
                return Ok(());
            }
            if state.running {
                state = self.ended.wait(state).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            state.running = true;
            // Everything appended before this load is covered by the sync that follows it.
            let upto = self.written.load(Ordering::Acquire);
            drop(state);
            let result = self.file.sync_data();
            self.syncs.fetch_add(1, Ordering::Relaxed);
            state = lock();
            state.running = false;
            match result {
                Ok(()) => state.synced = state.synced.max(upto),
                Err(e) => state.failed = Some(e.to_string()),
            }
            self.ended.notify_all();
        }
    }

    /// `fsync` calls made so far, and how many bytes they covered.
    #[cfg(test)]
    fn progress(&self) -> (u64, u64) {
        let synced = self.state.lock().unwrap().synced;
        (self.syncs.load(Ordering::Relaxed), synced)
    }
}

/// A line appended but perhaps not yet on the disk: [`Durable::wait`] before answering.
#[derive(Debug, Clone)]
pub(crate) struct Durable {
    syncer: Arc<Syncer>,
    end: u64,
}

impl Durable {
    /// Return once the line is on the disk.
    pub(crate) fn wait(&self) -> Result<(), JournalError> {
        self.syncer.wait(self.end)
    }
}

/// A device's open journal. It lives in the device's ledger, so it is written and read under the
/// device's lock.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    /// Opened for appending.
    append: File,
    /// Opened for reading: answers are read back at their offsets.
    read: File,
    /// Syncs what was appended, outside the device's lock.
    syncer: Arc<Syncer>,
}

/// A record's answer on load: checked to be a string, not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unread;

impl<'de> Deserialize<'de> for Unread {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Unread, D::Error> {
        struct Skip;
        impl Visitor<'_> for Skip {
            type Value = Unread;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Unread, E> {
                Ok(Unread)
            }
        }
        d.deserialize_str(Skip)
    }
}

/// What a replay reads of a line: the counter value to check it is the right line, and the answer.
#[derive(Deserialize)]
struct Answered {
    icv: u64,
    response: String,
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::Read;
    // Under the device's lock: nothing moves this handle between the seek and the read.
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

impl Journal {
    /// Open a device's journal, creating it empty when there is none.
    pub(crate) fn open(path: &Path) -> io::Result<Journal> {
        let append = OpenOptions::new().create(true).append(true).open(path)?;
        let read = File::open(path)?;
        // What is there already counts as on the disk from here on.
        append.sync_data()?;
        let syncer = Arc::new(Syncer::new(path, &append, append.metadata()?.len())?);
        Ok(Journal {
            path: path.to_path_buf(),
            append,
            read,
            syncer,
        })
    }

    /// Append a record's line, not yet synced: where the line lies. Answer it only after
    /// [`Journal::durable`]'s `wait`.
    pub(crate) fn append(&mut self, record: &Record) -> Result<Span, JournalError> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        let len = u32::try_from(line.len())
            .map_err(|_| io::Error::other(format!("a journal line of {} bytes is too long", line.len())))?;
        // Appended lines go at the end whatever the position, so the end is where this one starts
        // (asked each time: a write that failed half way may have left bytes behind).
        let offset = self.append.seek(SeekFrom::End(0))?;
        self.append.write_all(&line)?;
        self.syncer.written.store(offset + u64::from(len), Ordering::Release);
        Ok(Span { offset, len })
    }

    /// What to wait on before the line at `span` may be answered.
    pub(crate) fn durable(&self, span: Span) -> Durable {
        Durable {
            syncer: self.syncer.clone(),
            end: span.offset + u64::from(span.len),
        }
    }

    /// The `response` of the line at `span`, which must be the record of ICV `icv`.
    pub(crate) fn read_answer(&self, span: Span, icv: u64) -> Result<Vec<u8>, JournalError> {
        let unreadable = |reason: String| JournalError::Unreadable {
            path: self.path.clone(),
            icv,
            span,
            reason,
        };
        let mut line = vec![0; span.len as usize];
        read_at(&self.read, &mut line, span.offset).map_err(|e| unreadable(e.to_string()))?;
        if !line.ends_with(b"\n") {
            return Err(unreadable("the bytes there are not a whole line".into()));
        }
        let back: Answered =
            serde_json::from_slice(&line).map_err(|e| unreadable(format!("not a journal line: {e}")))?;
        if back.icv != icv {
            return Err(unreadable(format!("the line there is the record of ICV {}", back.icv)));
        }
        Ok(back.response.into_bytes())
    }
}

/// Load a device's journal into a ledger that keeps it open: every line parsed and chained, in
/// one pass; a last line without its newline (a write cut by a crash) cut off the file.
pub(crate) fn load(path: &Path) -> Result<Ledger, JournalError> {
    let mut journal = Journal::open(path)?;
    let mut ledger = Ledger::new(None);
    // A bad line anywhere is reported before a broken chain, as when the lines were all parsed
    // before the chain was checked.
    let mut broken: Option<String> = None;
    let mut reader = BufReader::with_capacity(1 << 16, &journal.read);
    let mut line = Vec::new();
    let (mut offset, mut n) = (0u64, 0usize);
    let torn = loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break 0;
        }
        if !line.ends_with(b"\n") {
            break line.len();
        }
        n += 1;
        let damaged = |e: &dyn fmt::Display| JournalError::Damaged(format!("line {n}: {e}; the journal is damaged"));
        let record: Record<Unread> = serde_json::from_slice(&line).map_err(|e| damaged(&e))?;
        let len = u32::try_from(line.len()).map_err(|_| damaged(&format!("{} bytes is too long", line.len())))?;
        if broken.is_none()
            && let Err(e) = ledger.load(record, Span { offset, len })
        {
            broken = Some(e);
        }
        offset += u64::from(len);
    };
    drop(reader);
    if torn > 0 {
        tracing::warn!(
            "sandbox: {}: dropping {torn} bytes of an unfinished last line",
            path.display()
        );
        journal.append.set_len(offset)?;
        journal.append.sync_data()?;
        journal.syncer = Arc::new(Syncer::new(path, &journal.append, offset)?);
    }
    if let Some(e) = broken {
        return Err(JournalError::Damaged(e));
    }
    ledger.set_journal(journal);
    Ok(ledger)
}

#[cfg(test)]
mod tests {
    use super::super::issue::GENESIS_PIH;
    use super::super::replay::tests::record;
    use super::super::replay::{Answer, Lookup};
    use super::*;
    use crate::model::DocumentKind;
    use std::fs;

    /// An answer like the sandbox's: JSON with quotes, escapes and non-ASCII text, ~20 KB.
    fn answer(icv: u64) -> String {
        let xml = "PD94bWwgdmVyc2lvbj0iMS4wIj8+".repeat(700);
        format!(r#"{{"status":"Success","invoice_number":"A-{icv}","invoice":"{xml}","message":"فاتورة \"{icv}\"\n"}}"#)
    }

    fn doc(icv: u64, pih: &str, key: Option<&str>) -> Record {
        let mut r = record(icv, pih, &format!("A-{icv}"), &format!("b{icv}"), key);
        r.response = answer(icv);
        r
    }

    /// The bytes replayed for document `A-<icv>`.
    fn replay(l: &Ledger, icv: u64) -> Result<Vec<u8>, JournalError> {
        match l.lookup(DocumentKind::Invoice, &format!("A-{icv}"), &format!("b{icv}"), None) {
            Lookup::Replay(e) => l.answer(e),
            other => panic!("A-{icv} is not a replay: {other:?}"),
        }
    }

    /// A journal of three documents, written through a ledger.
    fn three(path: &Path) -> Ledger {
        let mut l = Ledger::new(Some(Journal::open(path).unwrap()));
        l.accept(doc(1, GENESIS_PIH, Some("k1"))).unwrap();
        l.accept(doc(2, "hash-1", None)).unwrap();
        l.accept(doc(3, "hash-2", Some("k3"))).unwrap();
        l
    }

    #[test]
    fn a_journalled_document_keeps_where_its_line_is_not_its_answer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let l = three(&path);
        let text = fs::read(&path).unwrap();
        let mut start = 0;
        for (e, _) in l.entries() {
            let Answer::Journal(span) = e.answer else {
                panic!("ICV {} holds its answer in memory", e.icv)
            };
            let end = start + span.len as usize;
            assert_eq!((span.offset, text[end - 1]), (start as u64, b'\n'));
            start = end;
            let held = e.invoice_hash.len() + e.number.len() + e.uuid.len() + e.body_hash.len();
            assert!(held < 100, "ICV {} holds {held} bytes of text", e.icv);
        }
        assert_eq!(start, text.len());
        // Replays read the answer back, byte for byte, before and after a restart.
        for icv in 1..=3 {
            assert_eq!(replay(&l, icv).unwrap(), answer(icv).into_bytes());
        }
        drop(l);
        let l = load(&path).unwrap();
        assert_eq!(l.position().icv, 4);
        for icv in 1..=3 {
            assert_eq!(replay(&l, icv).unwrap(), answer(icv).into_bytes());
        }
        assert!(matches!(
            l.lookup(DocumentKind::Invoice, "A-9", "b2", Some("k3")),
            Lookup::KeyReused
        ));
    }

    #[test]
    fn a_replay_reads_the_answer_from_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut l = three(&path);
        drop(l);
        l = load(&path).unwrap();
        // The same length, another text: the replay answers what the file says.
        let text = String::from_utf8(fs::read(&path).unwrap()).unwrap();
        fs::write(&path, text.replace("Success", "SUCCESS")).unwrap();
        let again = String::from_utf8(replay(&l, 2).unwrap()).unwrap();
        assert_eq!(again, answer(2).replace("Success", "SUCCESS"));
        // A file cut under a running sandbox: an error naming the file and the line, no panic.
        let first = text.find('\n').unwrap() + 1;
        fs::write(&path, &text[..first + 10]).unwrap();
        assert_eq!(replay(&l, 1).unwrap(), answer(1).into_bytes());
        let e = replay(&l, 2).unwrap_err().to_string();
        assert!(e.contains("journal.jsonl: cannot read back the answer of ICV 2"), "{e}");
        // Another document's line in its place (the file rewritten): refused, not answered.
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        assert_eq!(lines[1].len(), lines[2].len());
        fs::write(&path, format!("{}{}{}", lines[0], lines[2], lines[2])).unwrap();
        let e = replay(&l, 2).unwrap_err().to_string();
        assert!(e.contains("the line there is the record of ICV 3"), "{e}");
    }

    #[test]
    fn an_answer_waits_until_its_line_and_those_appended_meanwhile_are_synced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let journal = Mutex::new(Journal::open(&path).unwrap());
        let syncer = journal.lock().unwrap().syncer.clone();
        assert_eq!(syncer.progress(), (0, 0));
        // Eight "requests" append under the device's lock and wait outside it.
        let ends: Vec<u64> = std::thread::scope(|s| {
            let handles: Vec<_> = (1..=8u64)
                .map(|i| {
                    let (journal, syncer) = (&journal, &syncer);
                    s.spawn(move || {
                        let durable = {
                            let mut j = journal.lock().unwrap();
                            let span = j.append(&doc(i, "any", None)).unwrap();
                            j.durable(span)
                        };
                        durable.wait().unwrap();
                        // Not a byte of its line is left unsynced when the wait returns.
                        assert!(syncer.progress().1 >= durable.end);
                        durable.end
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let len = fs::metadata(&path).unwrap().len();
        assert_eq!(ends.iter().max(), Some(&len));
        let (syncs, synced) = syncer.progress();
        assert_eq!(synced, len);
        assert!((1..=8).contains(&syncs), "{syncs} syncs for 8 lines");
        // A line already synced is not synced again (a replay of it costs no fsync).
        journal
            .lock()
            .unwrap()
            .durable(Span { offset: 0, len: 10 })
            .wait()
            .unwrap();
        assert_eq!(syncer.progress().0, syncs);
    }

    #[test]
    fn a_torn_last_journal_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        drop(three(&path));
        let whole = fs::read(&path).unwrap();
        let mut text = whole.clone();
        text.extend_from_slice(br#"{"icv":4,"pih":"hash-3","#);
        fs::write(&path, &text).unwrap();
        let mut l = load(&path).unwrap();
        assert_eq!(l.icv(), 3);
        assert_eq!(fs::read(&path).unwrap(), whole);
        // The next line goes where the torn one was, is synced, and reads back.
        let durable = l.accept(doc(4, "hash-3", None)).unwrap().unwrap();
        assert_eq!(durable.syncer.progress(), (0, whole.len() as u64));
        durable.wait().unwrap();
        assert_eq!(durable.syncer.progress(), (1, fs::metadata(&path).unwrap().len()));
        drop(l);
        let l = load(&path).unwrap();
        assert_eq!(replay(&l, 4).unwrap(), answer(4).into_bytes());
        assert_eq!(replay(&l, 3).unwrap(), answer(3).into_bytes());
    }

    #[test]
    fn a_damaged_journal_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        drop(three(&path));
        let text = String::from_utf8(fs::read(&path).unwrap()).unwrap();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let refused = |content: String| {
            fs::write(&path, content).unwrap();
            load(&path).unwrap_err().to_string()
        };
        assert!(refused("garbage\n".into()).starts_with("line 1: expected value"));
        let e = refused(format!("{}garbage\n{}", lines[0], lines[1]));
        assert!(
            e.starts_with("line 2: ") && e.ends_with("; the journal is damaged"),
            "{e}"
        );
        // A line without its answer is damaged too.
        let e = refused(format!(
            "{}{}",
            lines[0],
            lines[1].replace(r#""response":"#, r#""other":"#)
        ));
        assert!(e.contains("line 2: missing field `response`"), "{e}");
        // A broken chain, and a bad line after it: the bad line is reported.
        let e = refused(format!("{}{}", lines[0], lines[2]));
        assert!(
            e.contains("document A-3 has ICV 3 and PIH hash-2, but the chain expects ICV 2"),
            "{e}"
        );
        let e = refused(format!("{}{}garbage\n", lines[0], lines[2]));
        assert!(e.starts_with("line 3: "), "{e}");
    }
}

//! The progress line of `run` and `watch` (on a terminal only), and the estimate of how many
//! documents a run will answer in all, so that its time left is the whole run's.
//!
//! Documents become known batch by batch, as the exports are read, so the documents answered so
//! far are counted against those read so far. On a terminal, `run` also counts the rows of its
//! exports on a thread of its own when it starts (line ends of a text file, `<row` tags of a
//! workbook's largest sheet: a read of each file, about a tenth of a second for 200 MB), and
//! from then on the total is the documents read so far scaled up by the rows still to read
//! (`~2,150` while it is an estimate). Without a terminal nothing is counted.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

const EXACT: &str = "{spinner} {pos}/{len} documents answered [{elapsed_precise}, {per_sec:0}, {eta} left] {msg}";
const ESTIMATED: &str = "{spinner} {pos}/~{len} documents answered [{elapsed_precise}, {per_sec:0}, ~{eta} left] {msg}";

fn style(template: &str) -> ProgressStyle {
    // `per_sec:0`: a whole number of documents a second (1,235/s), not 1234.5678/s.
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// The progress line, with the documents to answer: those read so far, or an estimate of all.
pub(super) struct Progress {
    pub(super) bar: ProgressBar,
    shown: bool,
    /// Documents handed to the bar so far (sent, or answered from the ledger).
    known: u64,
    /// Rows read so far, in all.
    read: u64,
    /// Whether the length shown is an estimate.
    estimated: bool,
    rows: Arc<ExpectedRows>,
}

/// The rows of a run's exports, once counted.
#[derive(Default)]
struct ExpectedRows {
    rows: AtomicU64,
    counted: AtomicBool,
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.shown {
            crate::logging::show_bar(None);
        }
    }
}

impl Progress {
    /// A progress line shown when `show` and stderr is a terminal, hidden otherwise.
    pub(super) fn new(show: bool) -> Progress {
        let bar = ProgressBar::new(0);
        let shown = show && std::io::stderr().is_terminal();
        if shown {
            bar.set_style(style(EXACT));
            bar.enable_steady_tick(Duration::from_millis(200));
            // Notes and logs written meanwhile clear the line first.
            crate::logging::show_bar(Some(bar.clone()));
        } else {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        Progress {
            bar,
            shown,
            known: 0,
            read: 0,
            estimated: false,
            rows: Arc::default(),
        }
    }

    /// Counts the rows of `files` on a thread of its own, when the line is shown and each file
    /// can be counted (a text file or an xlsx workbook).
    pub(super) fn count_rows_of(&self, files: &[PathBuf]) {
        if !self.shown || files.is_empty() {
            return;
        }
        let files = files.to_vec();
        let expected = Arc::clone(&self.rows);
        let _ = std::thread::Builder::new().name("count-rows".into()).spawn(move || {
            let mut all = 0u64;
            for f in &files {
                match count_rows(f) {
                    // The header row is no document's.
                    Some(n) => all += n.saturating_sub(1),
                    None => return,
                }
            }
            expected.rows.store(all, Ordering::Relaxed);
            expected.counted.store(true, Ordering::Release);
        });
    }

    /// `n` more documents to answer.
    pub(super) fn add(&mut self, n: u64) {
        self.known += n;
        self.show_length();
    }

    /// `rows_read` rows have been read in all.
    pub(super) fn rows_read(&mut self, rows_read: u64) {
        self.read = rows_read;
        self.show_length();
    }

    /// The documents to answer: those known, or, when the exports' rows are counted and not all
    /// read, the estimate.
    fn show_length(&mut self) {
        if !self.shown || !self.rows.counted.load(Ordering::Acquire) {
            self.bar.set_length(self.known.max(self.bar.position()));
            return;
        }
        let expected = self.rows.rows.load(Ordering::Relaxed);
        let total = estimate(self.known, self.read, expected);
        let estimated = total > self.known;
        if estimated != self.estimated {
            self.bar.set_style(style(if estimated { ESTIMATED } else { EXACT }));
            self.estimated = estimated;
        }
        self.bar.set_length(total.max(self.bar.position()));
    }
}

/// The documents to answer in all: `known` so far, from `rows_read` rows of the `expected`,
/// scaled up by the rows still to read; `known` once every row is read (or none yet).
pub(super) fn estimate(known: u64, rows_read: u64, expected: u64) -> u64 {
    if rows_read == 0 || rows_read >= expected {
        return known;
    }
    let scaled = u128::from(known) * u128::from(expected) / u128::from(rows_read);
    u64::try_from(scaled).unwrap_or(u64::MAX).max(known)
}

/// The rows of an export, counted roughly (a quoted line end counts as a row; a workbook's rows
/// are its largest sheet's): `None` for a file that cannot be counted so (xls, xlsb, ods).
pub(super) fn count_rows(path: &Path) -> Option<u64> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut head = [0u8; 4];
    let n = file.read(&mut head).ok()?;
    if head[..n].starts_with(b"PK\x03\x04") {
        return workbook_rows(path);
    }
    if head[..n].starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
                last = buf[n - 1];
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(lines + u64::from(last != b'\n'))
}

/// The `<row` tags of the largest worksheet of an xlsx workbook.
fn workbook_rows(path: &Path) -> Option<u64> {
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(std::fs::File::open(path).ok()?)).ok()?;
    let mut largest: Option<(u64, String)> = None;
    for i in 0..zip.len() {
        let entry = zip.by_index(i).ok()?;
        let Ok(name) = entry.name() else { continue };
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("xl/worksheets/")
            && lower.ends_with(".xml")
            && largest.as_ref().is_none_or(|(size, _)| entry.size() > *size)
        {
            largest = Some((entry.size(), name.into_owned()));
        }
    }
    let (_, name) = largest?;
    let mut sheet = zip.by_name(&name).ok()?;
    let finder = memchr::memmem::Finder::new(b"<row");
    let mut buf = vec![0u8; 1 << 20];
    // A tag cut by the end of a read is found in the next: the last bytes are kept.
    let keep = 3;
    let (mut len, mut rows) = (0usize, 0u64);
    loop {
        let n = match sheet.read(&mut buf[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        let end = len + n;
        if n == 0 {
            return Some(rows + finder.find_iter(&buf[..end]).count() as u64);
        }
        let searched = end.saturating_sub(keep);
        rows += finder.find_iter(&buf[..end]).filter(|&i| i < searched).count() as u64;
        buf.copy_within(searched..end, 0);
        len = end - searched;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_scaled_up_by_the_rows_still_to_read() {
        // 200 documents from 1,000 of 10,000 rows: about 2,000 in all.
        assert_eq!(estimate(200, 1_000, 10_000), 2_000);
        // Nothing read yet, or everything: what is known.
        assert_eq!(estimate(0, 0, 10_000), 0);
        assert_eq!(estimate(1_950, 10_000, 10_000), 1_950);
        // More rows than counted (a count that fell short): what is known.
        assert_eq!(estimate(2_100, 10_400, 10_000), 2_100);
        // Never below what is known, and no overflow.
        assert_eq!(estimate(u64::MAX, 1, u64::MAX), u64::MAX);
    }

    #[test]
    fn rows_of_text_files_and_workbooks_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("a.csv");
        std::fs::write(&csv, "h\n1\n2\r\n3").unwrap();
        assert_eq!(count_rows(&csv), Some(4));
        std::fs::write(&csv, "h\n1\n").unwrap();
        assert_eq!(count_rows(&csv), Some(2));
        std::fs::write(&csv, "").unwrap();
        assert_eq!(count_rows(&csv), Some(0));
        let xlsx = dir.path().join("b.xlsx");
        let mut book = rust_xlsxwriter::Workbook::new();
        let small = book.add_worksheet();
        small.write_string(0, 0, "cover").unwrap();
        let data = book.add_worksheet();
        for r in 0..30_001u32 {
            data.write_string(r, 0, format!("row {r}")).unwrap();
            data.write_number(r, 1, f64::from(r)).unwrap();
        }
        book.save(&xlsx).unwrap();
        assert_eq!(count_rows(&xlsx), Some(30_001));
        let xls = dir.path().join("c.xls");
        std::fs::write(&xls, [0xD0, 0xCF, 0x11, 0xE0, 0, 0]).unwrap();
        assert_eq!(count_rows(&xls), None);
        assert_eq!(count_rows(&dir.path().join("gone.csv")), None);
    }
}

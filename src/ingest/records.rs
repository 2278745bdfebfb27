//! Delimited records with the physical line each one starts on.
//!
//! A thin loop over `csv_core` (the parser inside the `csv` crate). We drive it ourselves for one
//! reason: the `csv` crate's record position is taken *before* the blank lines and the `\n` of a
//! CRLF that precede a record, so its line number is off for CRLF files and after blank lines.
//! Here the line terminators between records are skipped (and counted) by us, so the parser
//! always starts on the record's first byte and the start line is exact. Lines are counted over
//! every byte read, ended by `\n`, `\r\n` or a lone `\r` (the parser counts only `\n`, so
//! every record of a file saved with old Mac line ends would be on line 1).
//!
//! One [`Record`] buffer is reused for every record: reading allocates nothing once the buffer
//! has grown to the longest record.
//!
//! Most records of a `,`-separated export are one line with no quote. Such a record, when its
//! whole line is in the read buffer, is split here at each `,` (eight bytes at a time) instead of
//! going through the parser byte by byte: without a quote, the parser's fields are exactly the
//! pieces between the delimiters up to the first `\r` or `\n`. Its fields then stay in the line
//! as written ([`Record::text`] gives them with a gap of one byte between them).

use csv_core::{ReadRecordResult, Reader as CoreReader, ReaderBuilder as CoreReaderBuilder};
use std::io::{self, BufRead};

/// A record longer than this is dropped with an error (almost always an unclosed quote that
/// swallows the rest of the file); memory stays bounded.
pub(crate) const MAX_RECORD_BYTES: usize = 32 * 1024 * 1024;
/// Same bound for the number of fields (a line of a million delimiters).
pub(crate) const MAX_RECORD_FIELDS: usize = 1 << 20;

/// One record's fields, reused between reads: stored back to back by the parser, or left in the
/// record's line as written (`gap`).
#[derive(Debug, Default)]
pub(crate) struct Record {
    bytes: Vec<u8>,
    /// Where each field ends, in the fields stored back to back (with `gap`, field `i` ends at
    /// `ends[i] + i` in the line).
    ends: Vec<usize>,
    /// The fields are in [`Record::raw`], one delimiter between each two (the plain line path).
    gap: bool,
    len: usize,
    line: u64,
    /// The record's bytes as they were in the file (kept by a reader for `,`-separated text),
    /// its line end included.
    raw: Vec<u8>,
    /// True when [`Record::raw`] holds a quote, or was not kept.
    quoted: bool,
    /// The record ran to the end of the input inside a quoted field: a quote never closed.
    unclosed: bool,
}

impl Record {
    /// Number of fields.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The 1-based physical line where the record starts.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// True when the record's last field opened a quote that the input never closed: the
    /// field holds everything from its quote to the end of the input.
    pub(crate) fn unclosed(&self) -> bool {
        self.unclosed
    }

    /// Field `i` (which must be `< len()`), as raw bytes without quotes.
    pub(crate) fn field(&self, i: usize) -> &[u8] {
        let gap = usize::from(self.gap);
        let start = if i == 0 { 0 } else { self.ends[i - 1] + i * gap };
        let end = self.ends[i] + i * gap;
        if self.gap {
            &self.raw[start..end]
        } else {
            &self.bytes[start..end]
        }
    }

    /// All fields as one text, for validating the record's UTF-8 at once: (bytes, ends, gap).
    /// Field `i` ends at `ends[i] + i * gap` in the bytes, and the next one starts `gap` bytes
    /// later (the gap is 0, or 1 for a delimiter).
    pub(crate) fn text(&self) -> (&[u8], &[usize], usize) {
        let ends = &self.ends[..self.len];
        if self.gap {
            return (&self.raw, ends, 1);
        }
        let bytes = match ends.last() {
            None => &[][..],
            Some(&end) => &self.bytes[..end],
        };
        (bytes, ends, 0)
    }

    /// The fields' end offsets, as in [`Record::text`].
    pub(crate) fn ends(&self) -> &[usize] {
        &self.ends[..self.len]
    }

    /// True when every field is empty or white space.
    pub(crate) fn is_blank(&self) -> bool {
        (0..self.len).all(|i| self.field(i).iter().all(u8::is_ascii_whitespace))
    }

    /// The record as it was in the file, without its line end, when that is simply its fields
    /// joined by `,`: a `,`-separated record with no quote in it (no field was quoted, so none
    /// holds a `,`, a quote or a line break). `None` otherwise.
    pub(crate) fn joined(&self) -> Option<&[u8]> {
        if self.quoted || self.len == 0 {
            return None;
        }
        let mut raw = self.raw.as_slice();
        while let [rest @ .., b'\r' | b'\n'] = raw {
            raw = rest;
        }
        Some(raw)
    }
}

/// What one read produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A record is in the buffer.
    Record,
    /// A record was too long and was skipped (its start line is in the buffer).
    TooLong,
    /// No more records.
    End,
}

/// Reads records from buffered text.
pub(crate) struct RecordReader<R> {
    input: R,
    core: CoreReader,
    /// The line breaks in the bytes read so far.
    lines: LineCount,
    done: bool,
    max_bytes: usize,
    max_fields: usize,
    /// Keep each record's bytes as written ([`Record::joined`]): the delimiter is `,`.
    keep_raw: bool,
    /// Split plain lines without the parser (see the module docs); off only in tests, to compare.
    plain_lines: bool,
    delimiter: u8,
    /// The last record read ran to the end of the input, with no line end after it (set by the
    /// parser only: a plain line always has its line end).
    ran_out: bool,
}

impl<R: BufRead> RecordReader<R> {
    /// A reader for `delimiter`-separated text with `"` quotes (doubled to escape), any of
    /// `\n`, `\r\n` or `\r` ending a record.
    pub(crate) fn new(input: R, delimiter: u8) -> Self {
        let core = CoreReaderBuilder::new()
            .delimiter(delimiter)
            .quote(b'"')
            .double_quote(true)
            .build();
        RecordReader {
            input,
            core,
            lines: LineCount::default(),
            done: false,
            max_bytes: MAX_RECORD_BYTES,
            max_fields: MAX_RECORD_FIELDS,
            keep_raw: delimiter == b',',
            plain_lines: delimiter == b',',
            delimiter,
            ran_out: false,
        }
    }

    /// Reads every record through the parser (for tests comparing the plain line path with it).
    #[cfg(test)]
    fn parser_only(mut self) -> Self {
        self.plain_lines = false;
        self
    }

    /// Lowers the record limits (for tests).
    #[cfg(test)]
    fn with_limits(mut self, max_bytes: usize, max_fields: usize) -> Self {
        self.max_bytes = max_bytes;
        self.max_fields = max_fields;
        self
    }

    /// True when the last record read ran to the end of the input: the input's last line has no
    /// line end, or that record's quote was never closed (its value ends at the end of the
    /// input, line ends and all).
    pub(crate) fn ran_out(&self) -> bool {
        self.ran_out
    }

    /// The number of lines started so far (for error messages).
    pub(crate) fn lines_seen(&self) -> u64 {
        self.lines.breaks
    }

    /// Reads the next non-empty record into `rec`. Lines that hold nothing at all are skipped
    /// here; lines of spaces or of delimiters only come out as records.
    pub(crate) fn read(&mut self, rec: &mut Record) -> io::Result<Outcome> {
        rec.len = 0;
        rec.raw.clear();
        rec.quoted = !self.keep_raw;
        rec.gap = false;
        rec.unclosed = false;
        if self.done {
            return Ok(Outcome::End);
        }
        self.skip_line_ends()?;
        rec.line = self.lines.breaks + 1;
        if self.plain_lines && self.read_plain_line(rec)? {
            return Ok(Outcome::Record);
        }
        if rec.bytes.is_empty() {
            rec.bytes.resize(1024, 0);
        }
        if rec.ends.is_empty() {
            rec.ends.resize(64, 0);
        }
        let (mut out, mut ends) = (0, 0);
        let mut too_long = false;
        let mut quotes = Quotes::new(self.delimiter);
        loop {
            let input = self.input.fill_buf()?;
            let at_end = input.is_empty();
            let (res, nin, nout, nend) = self
                .core
                .read_record(input, &mut rec.bytes[out..], &mut rec.ends[ends..]);
            quotes.feed(&input[..nin]);
            if !rec.quoted {
                let read = &input[..nin];
                rec.quoted = read.contains(&b'"') || rec.raw.len() + nin > self.max_bytes;
                if !rec.quoted {
                    rec.raw.extend_from_slice(read);
                }
            }
            self.lines.add(&input[..nin]);
            self.input.consume(nin);
            out += nout;
            ends += nend;
            match res {
                ReadRecordResult::InputEmpty => {}
                ReadRecordResult::OutputFull => {
                    if rec.bytes.len() >= self.max_bytes {
                        // Keep parsing to the record's end, throwing its bytes away.
                        too_long = true;
                        out = 0;
                        ends = 0;
                    } else {
                        let n = rec.bytes.len() * 2;
                        rec.bytes.resize(n, 0);
                    }
                }
                ReadRecordResult::OutputEndsFull => {
                    if rec.ends.len() >= self.max_fields {
                        too_long = true;
                        out = 0;
                        ends = 0;
                    } else {
                        let n = rec.ends.len() * 2;
                        rec.ends.resize(n, 0);
                    }
                }
                ReadRecordResult::Record => {
                    if too_long {
                        return Ok(Outcome::TooLong);
                    }
                    rec.len = ends;
                    rec.unclosed = at_end && quotes.open();
                    self.ran_out = at_end;
                    return Ok(Outcome::Record);
                }
                ReadRecordResult::End => {
                    self.done = true;
                    if too_long {
                        return Ok(Outcome::TooLong);
                    }
                    return Ok(Outcome::End);
                }
            }
        }
    }

    /// The record starting the buffer when it is a whole line with no quote: its fields are the
    /// pieces of the line between delimiters, as the parser would find them. The line and its
    /// `\r` or `\n` are consumed (a `\n` after a `\r` is left to the next read, as the parser
    /// leaves it). False, with nothing consumed, for any other record (a quote, a line not
    /// whole in the buffer, the last line without a line end, too many fields or bytes): the
    /// parser reads those.
    fn read_plain_line(&mut self, rec: &mut Record) -> io::Result<bool> {
        let buf = self.input.fill_buf()?;
        let Some(end) = memchr::memchr3(b'\n', b'\r', b'"', buf) else {
            return Ok(false);
        };
        if buf[end] == b'"' || end >= self.max_bytes {
            return Ok(false);
        }
        let line = &buf[..end];
        if rec.ends.is_empty() {
            rec.ends.resize(64, 0);
        }
        let max_fields = self.max_fields;
        let mut n = 0;
        let mut fits = true;
        for_each_byte(line, b',', |at| {
            if n == rec.ends.len() {
                if n >= max_fields {
                    fits = false;
                    return;
                }
                rec.ends.resize(n * 2, 0);
            }
            // Offsets in the fields stored back to back: one delimiter less per field before.
            rec.ends[n] = at - n;
            n += 1;
        });
        if !fits || n >= max_fields {
            return Ok(false);
        }
        if n == rec.ends.len() {
            rec.ends.resize(n * 2, 0);
        }
        rec.ends[n] = end - n;
        rec.len = n + 1;
        rec.raw.extend_from_slice(line);
        rec.quoted = false;
        rec.gap = true;
        // The line holds no `\r` or `\n` before its end: counting from its last byte is enough.
        self.lines.add(&buf[end.saturating_sub(1)..=end]);
        self.input.consume(end + 1);
        Ok(true)
    }

    /// Skips `\r` and `\n` bytes before a record, counting the line breaks.
    fn skip_line_ends(&mut self) -> io::Result<()> {
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Ok(());
            }
            let n = buf.iter().take_while(|&&b| b == b'\n' || b == b'\r').count();
            let whole = n == buf.len();
            self.lines.add(&buf[..n]);
            self.input.consume(n);
            if !whole {
                return Ok(());
            }
        }
    }
}

/// Whether a record's bytes, fed in order, are inside a quoted field at their end, as the
/// parser reads quotes: a `"` at the start of a field opens one, `""` inside it is a quote, and
/// any other `"` closes it (a `"` inside an unquoted field is text).
#[derive(Debug)]
struct Quotes {
    delimiter: u8,
    state: QuoteState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuoteState {
    FieldStart,
    Unquoted,
    Quoted,
    /// A `"` inside a quoted field: closing it, unless another `"` follows.
    QuoteInQuoted,
}

impl Quotes {
    fn new(delimiter: u8) -> Self {
        Quotes {
            delimiter,
            state: QuoteState::FieldStart,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        use QuoteState::*;
        for &b in bytes {
            self.state = match (self.state, b) {
                (Quoted, b'"') => QuoteInQuoted,
                (Quoted, _) => Quoted,
                (QuoteInQuoted, b'"') | (FieldStart, b'"') => Quoted,
                (_, b'\r' | b'\n') => FieldStart,
                (_, d) if d == self.delimiter => FieldStart,
                _ => Unquoted,
            };
        }
    }

    /// True inside a quoted field that no `"` has closed.
    fn open(&self) -> bool {
        self.state == QuoteState::Quoted
    }
}

/// Line breaks counted across reads: `\n`, `\r\n` and a lone `\r` are one each.
#[derive(Debug, Default)]
struct LineCount {
    breaks: u64,
    /// The last byte counted was a `\r` (a `\n` next is the same break).
    after_cr: bool,
}

impl LineCount {
    fn add(&mut self, bytes: &[u8]) {
        for at in memchr::memchr2_iter(b'\r', b'\n', bytes) {
            let after_cr = match at {
                0 => self.after_cr,
                _ => bytes[at - 1] == b'\r',
            };
            if bytes[at] == b'\r' || !after_cr {
                self.breaks += 1;
            }
        }
        if let Some(&last) = bytes.last() {
            self.after_cr = last == b'\r';
        }
    }
}

/// Calls `f` with the offset of each `byte` in `bytes`, in order, testing eight bytes at a time.
/// (`memchr::memchr_iter` does the same, but its cost per hit is high for fields of a few bytes:
/// about 5 % more instructions for all of `check`.)
fn for_each_byte(bytes: &[u8], byte: u8, mut f: impl FnMut(usize)) {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const LOW7: u64 = u64::from_ne_bytes([0x7f; 8]);
    let pattern = ONES * u64::from(byte);
    let (words, rest) = bytes.as_chunks::<8>();
    for (w, word) in words.iter().enumerate() {
        let v = u64::from_le_bytes(*word) ^ pattern;
        // The top bit of each byte of `v` that is zero, and no other bit: adding 0x7f to a
        // byte's low seven bits carries into its top bit unless they are all zero, and never
        // into the next byte.
        let mut hits = !(((v & LOW7) + LOW7) | v | LOW7);
        while hits != 0 {
            f(w * 8 + hits.trailing_zeros() as usize / 8);
            hits &= hits - 1;
        }
    }
    let base = words.len() * 8;
    for (i, &b) in rest.iter().enumerate() {
        if b == byte {
            f(base + i);
        }
    }
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;

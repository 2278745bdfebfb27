//! Delimited records with the physical line each one starts on.
//!
//! A thin loop over `csv_core` (the parser inside the `csv` crate). We drive it ourselves for one
//! reason: the `csv` crate's record position is taken *before* the blank lines and the `\n` of a
//! CRLF that precede a record, so its line number is off for CRLF files and after blank lines.
//! Here the line terminators between records are skipped (and counted) by us, so the parser
//! always starts on the record's first byte and the start line is exact.
//!
//! One [`Record`] buffer is reused for every record: reading allocates nothing once the buffer
//! has grown to the longest record.

use csv_core::{ReadRecordResult, Reader as CoreReader, ReaderBuilder as CoreReaderBuilder};
use std::io::{self, BufRead};

/// A record longer than this is dropped with an error (almost always an unclosed quote that
/// swallows the rest of the file); memory stays bounded.
pub(crate) const MAX_RECORD_BYTES: usize = 32 * 1024 * 1024;
/// Same bound for the number of fields (a line of a million delimiters).
pub(crate) const MAX_RECORD_FIELDS: usize = 1 << 20;

/// One record's fields, stored back to back, reused between reads.
#[derive(Debug, Default)]
pub(crate) struct Record {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    len: usize,
    line: u64,
    /// The record's bytes as they were in the file (kept by a reader for `,`-separated text),
    /// its line end included.
    raw: Vec<u8>,
    /// True when [`Record::raw`] holds a quote, or was not kept.
    quoted: bool,
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

    /// Field `i` (which must be `< len()`), as raw bytes without quotes.
    pub(crate) fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// All fields' bytes back to back (for validating the record's UTF-8 at once).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self.len {
            0 => &[],
            n => &self.bytes[..self.ends[n - 1]],
        }
    }

    /// The fields' end offsets within [`Record::as_bytes`].
    pub(crate) fn ends(&self) -> &[usize] {
        &self.ends[..self.len]
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
    /// Newlines we skipped between records; the parser never saw them.
    skipped_newlines: u64,
    done: bool,
    max_bytes: usize,
    max_fields: usize,
    /// Keep each record's bytes as written ([`Record::joined`]): the delimiter is `,`.
    keep_raw: bool,
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
            skipped_newlines: 0,
            done: false,
            max_bytes: MAX_RECORD_BYTES,
            max_fields: MAX_RECORD_FIELDS,
            keep_raw: delimiter == b',',
        }
    }

    /// Lowers the record limits (for tests).
    #[cfg(test)]
    fn with_limits(mut self, max_bytes: usize, max_fields: usize) -> Self {
        self.max_bytes = max_bytes;
        self.max_fields = max_fields;
        self
    }

    /// The number of lines started so far (for error messages).
    pub(crate) fn lines_seen(&self) -> u64 {
        self.core.line() - 1 + self.skipped_newlines
    }

    /// Reads the next non-empty record into `rec`. Lines that hold nothing at all are skipped
    /// here; lines of spaces or of delimiters only come out as records.
    pub(crate) fn read(&mut self, rec: &mut Record) -> io::Result<Outcome> {
        rec.len = 0;
        rec.raw.clear();
        rec.quoted = !self.keep_raw;
        if self.done {
            return Ok(Outcome::End);
        }
        self.skip_line_ends()?;
        rec.line = self.core.line() + self.skipped_newlines;
        if rec.bytes.is_empty() {
            rec.bytes.resize(1024, 0);
        }
        if rec.ends.is_empty() {
            rec.ends.resize(64, 0);
        }
        let (mut out, mut ends) = (0, 0);
        let mut too_long = false;
        loop {
            let input = self.input.fill_buf()?;
            let (res, nin, nout, nend) = self
                .core
                .read_record(input, &mut rec.bytes[out..], &mut rec.ends[ends..]);
            if !rec.quoted {
                let read = &input[..nin];
                rec.quoted = read.contains(&b'"') || rec.raw.len() + nin > self.max_bytes;
                if !rec.quoted {
                    rec.raw.extend_from_slice(read);
                }
            }
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

    /// Skips `\r` and `\n` bytes before a record, counting the newlines.
    fn skip_line_ends(&mut self) -> io::Result<()> {
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Ok(());
            }
            let n = buf.iter().take_while(|&&b| b == b'\n' || b == b'\r').count();
            let newlines = buf[..n].iter().filter(|&&b| b == b'\n').count();
            let whole = n == buf.len();
            self.input.consume(n);
            self.skipped_newlines += newlines as u64;
            if !whole {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(data: &[u8], delim: u8) -> Vec<(u64, Vec<String>)> {
        let mut r = RecordReader::new(data, delim);
        let mut rec = Record::default();
        let mut out = Vec::new();
        while r.read(&mut rec).ok() == Some(Outcome::Record) {
            let fields = (0..rec.len())
                .map(|i| String::from_utf8_lossy(rec.field(i)).into_owned())
                .collect();
            out.push((rec.line(), fields));
        }
        out
    }

    fn lines(data: &[u8]) -> Vec<u64> {
        read_all(data, b',').into_iter().map(|(l, _)| l).collect()
    }

    #[test]
    fn start_lines_lf_crlf_blank_and_embedded_newlines() {
        assert_eq!(lines(b"a,b\nc,d\ne,f"), vec![1, 2, 3]);
        assert_eq!(lines(b"a,b\r\nc,d\r\ne,f\r\n"), vec![1, 2, 3]);
        assert_eq!(lines(b"a,b\n\n\nc,d\n"), vec![1, 4]);
        assert_eq!(lines(b"a,b\r\n\r\n\r\nc,d\r\n"), vec![1, 4]);
        assert_eq!(lines(b"\n\na,b\n\"x\ny\",z\nq,r\n"), vec![3, 4, 6]);
        assert_eq!(lines(b"a,b\r\n\"x\r\ny\r\n\",z\r\nq,r\r\n"), vec![1, 2, 5]);
    }

    #[test]
    fn fields_quotes_and_trailing_delimiters() {
        let recs = read_all(b"a;\"b;c\";\"d \"\"q\"\"\";\n1;2;;\n", b';');
        assert_eq!(recs[0].1, vec!["a", "b;c", "d \"q\"", ""]);
        assert_eq!(recs[1].1, vec!["1", "2", "", ""]);
    }

    #[test]
    fn long_records_grow_the_buffer() {
        let long = "x".repeat(100_000);
        let data = format!("{long},{long}\nb\n");
        let recs = read_all(data.as_bytes(), b',');
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].1[1].len(), 100_000);
        assert_eq!(recs[1], (2, vec!["b".to_owned()]));
    }

    #[test]
    fn too_long_records_are_skipped_with_bounded_memory() {
        let data = format!("a,b\n\"{}\n", "x".repeat(10_000));
        let mut r = RecordReader::new(data.as_bytes(), b',').with_limits(2048, 64);
        let mut rec = Record::default();
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::TooLong));
        assert_eq!(rec.line(), 2);
        assert!(rec.bytes.len() <= 2048);
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::End));

        let data = format!("{}\nok\n", ",".repeat(10_000));
        let mut r = RecordReader::new(data.as_bytes(), b',').with_limits(2048, 64);
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::TooLong));
        assert!(rec.ends.len() <= 64);
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
        assert_eq!((rec.line(), rec.field(0)), (2, &b"ok"[..]));
    }

    #[test]
    fn a_plain_comma_record_is_kept_as_written_without_its_line_end() {
        let data = b"a,b,\r\n\"c\",d\nx,y\"z\ne,f";
        let mut r = RecordReader::new(&data[..], b',');
        let mut rec = Record::default();
        let mut joined = Vec::new();
        while r.read(&mut rec).ok() == Some(Outcome::Record) {
            joined.push(rec.joined().map(|j| String::from_utf8_lossy(j).into_owned()));
        }
        let want = [Some("a,b,"), None, None, Some("e,f")].map(|j| j.map(str::to_owned));
        assert_eq!(joined, want);
        let mut r = RecordReader::new(&b"a;b\n"[..], b';');
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
        assert_eq!(rec.joined(), None, "only `,`-separated records are their result line");
    }

    #[test]
    fn empty_input_has_no_records() {
        assert!(lines(b"").is_empty());
        assert!(lines(b"\r\n\n\n").is_empty());
    }
}

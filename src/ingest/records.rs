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
        // The line holds no `\r` or `\n` before its end: only the end is a break.
        if end > 0 {
            self.lines.after_cr = false;
        }
        self.lines.add(&buf[end..=end]);
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
    fn a_lone_carriage_return_ends_a_line() {
        assert_eq!(lines(b"a,b\rc,d\r\re,f\r"), vec![1, 2, 4]);
        assert_eq!(lines(b"a,b\r\nc,d\re,f\n\ng,h"), vec![1, 2, 3, 5]);
        assert_eq!(lines(b"\"x\ry\",z\rq,r"), vec![1, 3]);
        // Cut anywhere by a small buffer, a `\r\n` is still one break.
        for capacity in 1..8 {
            let mut r = RecordReader::new(
                std::io::BufReader::with_capacity(capacity, &b"a\r\nb\r\r\nc\r"[..]),
                b',',
            );
            let mut rec = Record::default();
            let mut starts = Vec::new();
            while r.read(&mut rec).ok() == Some(Outcome::Record) {
                starts.push(rec.line());
            }
            assert_eq!((starts, r.lines_seen()), (vec![1, 2, 4], 4), "buffer of {capacity}");
        }
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

    proptest::proptest! {
        /// Plain lines split without the parser give what the parser gives: the same fields,
        /// start lines, joined lines and line count, in buffers small enough to cut records.
        #[test]
        fn plain_lines_read_as_the_parser_reads_them(
            data in proptest::collection::vec(
                proptest::sample::select(vec![b'a', b'b', b'7', b' ', b',', b';', b'"', b'\r', b'\n', 0xc3, 0xa9]),
                0..300,
            ),
            capacity in 1usize..64,
            delimiter in proptest::sample::select(vec![b',', b';']),
            limits in proptest::option::of((1usize..40, 1usize..8)),
        ) {
            let read = |parser_only: bool| {
                let input = std::io::BufReader::with_capacity(capacity, &data[..]);
                let mut r = RecordReader::new(input, delimiter);
                if let Some((bytes, fields)) = limits {
                    r = r.with_limits(bytes, fields);
                }
                if parser_only {
                    r = r.parser_only();
                }
                everything(r)
            };
            let plain = read(false);
            // Every byte is read by the end: the line count is the file's.
            let breaks = (0..data.len())
                .filter(|&i| data[i] == b'\r' || (data[i] == b'\n' && (i == 0 || data[i - 1] != b'\r')))
                .count();
            proptest::prop_assert_eq!(plain.1, breaks as u64);
            proptest::prop_assert_eq!(plain, read(true));
        }
    }

    /// A record as the tests compare it: (outcome, start line, fields, joined line).
    type Seen = (Outcome, u64, Vec<Vec<u8>>, Option<Vec<u8>>);

    /// Every record as read, then the lines seen.
    fn everything<R: BufRead>(mut r: RecordReader<R>) -> (Vec<Seen>, u64) {
        let mut rec = Record::default();
        let mut out = Vec::new();
        loop {
            let outcome = r.read(&mut rec).expect("reading from memory");
            if outcome == Outcome::End {
                return (out, r.lines_seen());
            }
            let fields = (0..rec.len()).map(|i| rec.field(i).to_vec()).collect();
            let (bytes, ends, gap) = rec.text();
            let from_text: Vec<Vec<u8>> = (0..ends.len())
                .map(|i| {
                    let start = if i == 0 { 0 } else { ends[i - 1] + i * gap };
                    bytes[start..ends[i] + i * gap].to_vec()
                })
                .collect();
            assert_eq!(from_text, fields, "the record's text holds its fields");
            out.push((outcome, rec.line(), fields, rec.joined().map(<[u8]>::to_vec)));
        }
    }

    #[test]
    fn plain_lines_keep_their_fields_in_the_line() {
        let mut r = RecordReader::new(&b"a,,bc,\r\n\r\nd\n\"e\",f\n"[..], b',');
        let mut rec = Record::default();
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
        assert_eq!(rec.text(), (&b"a,,bc,"[..], &[1, 1, 3, 3][..], 1));
        assert_eq!((rec.line(), rec.joined()), (1, Some(&b"a,,bc,"[..])));
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
        assert_eq!(rec.text(), (&b"d"[..], &[1][..], 1));
        assert_eq!(rec.line(), 3);
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::Record));
        assert_eq!(
            rec.text(),
            (&b"ef"[..], &[1, 2][..], 0),
            "a quoted record goes through the parser"
        );
        assert_eq!(rec.line(), 4);
        assert_eq!(r.read(&mut rec).ok(), Some(Outcome::End));
        assert_eq!(r.lines_seen(), 4);
    }

    #[test]
    fn eight_bytes_at_a_time_finds_every_delimiter() {
        for len in 0..40 {
            for pattern in [0u64, 0x5555_5555_5555, u64::MAX, 0x8421_0842_1084_2108] {
                let bytes: Vec<u8> = (0..len)
                    .map(|i| {
                        if pattern >> (i % 64) & 1 == 1 {
                            b','
                        } else {
                            [b'a', 0xac, b'-', 0x2d][i % 4]
                        }
                    })
                    .collect();
                let mut found = Vec::new();
                for_each_byte(&bytes, b',', |at| found.push(at));
                let want: Vec<usize> = (0..len).filter(|&i| bytes[i] == b',').collect();
                assert_eq!(found, want, "{bytes:?}");
            }
        }
    }

    #[test]
    fn empty_input_has_no_records() {
        assert!(lines(b"").is_empty());
        assert!(lines(b"\r\n\n\n").is_empty());
    }
}

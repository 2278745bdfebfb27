//! The rows of a result worksheet, written as SpreadsheetML straight to a temporary file: the
//! same XML, byte for byte, that rust_xlsxwriter's constant-memory mode writes for inline-string
//! and number cells (tested against it in `xlsx.rs`), without its per-cell tree and formatting
//! machinery (which was about 200 ns a cell, the largest cost of `check` on a spreadsheet).
//!
//! The XML is deflated as it is written (raw deflate at the workbook's level, ending on a sync
//! flush, so that it can sit between the compressed start and end of its sheet part in the zip),
//! into a temporary file: unnamed, in the results folder. [`SheetBody::finish`] hands it back,
//! rewound, with the range of cells written and the CRC and sizes of the XML, for the workbook to
//! be put together around it (`xlsx_zip.rs`).

use super::csv_file::decimal_digits;
use flate2::{Compress, Compression, FlushCompress, Status};
use std::borrow::Cow;
use std::fs::File;
use std::io::{Seek, Write};
use std::path::Path;

/// XML gathered before it is deflated to the file.
const CHUNK: usize = 1 << 18;

/// Deflate `input` into `out` (through `scratch`), with `flush` at its end: `None` may keep some
/// of it inside the compressor, `Sync` ends on a byte boundary with everything out, `Finish` ends
/// the stream. Returns the compressed bytes written.
pub(crate) fn deflate(
    c: &mut Compress,
    mut input: &[u8],
    flush: FlushCompress,
    out: &mut impl Write,
    scratch: &mut Vec<u8>,
) -> std::io::Result<u64> {
    let mut written = 0;
    loop {
        scratch.clear();
        let before = c.total_in();
        let status = c.compress_vec(input, scratch, flush).map_err(std::io::Error::other)?;
        input = &input[usize::try_from(c.total_in() - before).unwrap_or(input.len())..];
        out.write_all(scratch)?;
        written += scratch.len() as u64;
        let drained = input.is_empty() && scratch.len() < scratch.capacity();
        if status == Status::StreamEnd || (drained && !matches!(flush, FlushCompress::Finish)) {
            return Ok(written);
        }
    }
}

/// A raw deflate compressor at the result workbook's level.
pub(crate) fn compressor() -> Compress {
    Compress::new(Compression::new(super::xlsx::ZIP_LEVEL), false)
}

/// What a deflated stretch of XML holds: its CRC-32, its length and its compressed length.
#[derive(Clone, Default)]
pub(crate) struct Deflated {
    pub(crate) crc: crc32fast::Hasher,
    pub(crate) len: u64,
    pub(crate) compressed: u64,
}

/// The cells written so far: first row, first column, last row, last column (0-based).
pub(crate) type Range = (u32, u16, u32, u16);

/// One worksheet's `<row>` elements, streamed to a temporary file.
pub(crate) struct SheetBody {
    file: File,
    xml: Vec<u8>,
    compress: Compress,
    scratch: Vec<u8>,
    deflated: Deflated,
    /// Column names (`A`, `B`, ..., `BB`), made once.
    names: Vec<String>,
    range: Option<Range>,
    /// The row being written (1-based, as in the XML), when its `<row>` is open.
    open: Option<u32>,
    row_digits: Vec<u8>,
}

impl SheetBody {
    /// Start a body in `dir` for `columns` columns.
    pub(crate) fn create(dir: &Path, columns: u16) -> std::io::Result<SheetBody> {
        Ok(SheetBody {
            file: tempfile::tempfile_in(dir)?,
            xml: Vec::with_capacity(CHUNK + 4096),
            compress: compressor(),
            scratch: Vec::with_capacity(CHUNK),
            deflated: Deflated::default(),
            names: (0..columns)
                .map(rust_xlsxwriter::utility::column_number_to_name)
                .collect(),
            range: None,
            open: None,
            row_digits: Vec::new(),
        })
    }

    fn mark(&mut self, row: u32, col: u16) {
        self.range = Some(match self.range {
            None => (row, col, row, col),
            Some((r0, c0, r1, c1)) => (r0.min(row), c0.min(col), r1.max(row), c1.max(col)),
        });
    }

    /// Open `<row>` for `row` (0-based) unless it is open already. Rows must come in order.
    fn row(&mut self, row: u32) -> std::io::Result<()> {
        let r = row + 1;
        if self.open == Some(r) {
            return Ok(());
        }
        self.close();
        self.spill()?;
        self.row_digits.clear();
        let (digits, from) = decimal_digits(r);
        self.row_digits.extend_from_slice(&digits[from..]);
        self.xml.extend_from_slice(b"<row r=\"");
        self.xml.extend_from_slice(&self.row_digits);
        self.xml.extend_from_slice(b"\">");
        self.open = Some(r);
        Ok(())
    }

    fn close(&mut self) {
        if self.open.take().is_some() {
            self.xml.extend_from_slice(b"</row>");
        }
    }

    /// Deflate the XML gathered so far once there is a chunk of it.
    fn spill(&mut self) -> std::io::Result<()> {
        if self.xml.len() >= CHUNK {
            self.deflate(FlushCompress::None)?;
        }
        Ok(())
    }

    fn deflate(&mut self, flush: FlushCompress) -> std::io::Result<()> {
        self.deflated.crc.update(&self.xml);
        self.deflated.len += self.xml.len() as u64;
        self.deflated.compressed += deflate(&mut self.compress, &self.xml, flush, &mut self.file, &mut self.scratch)?;
        self.xml.clear();
        Ok(())
    }

    fn cell_start(&mut self, col: u16, xf: u32) {
        self.xml.extend_from_slice(b"<c r=\"");
        self.xml.extend_from_slice(self.names[usize::from(col)].as_bytes());
        self.xml.extend_from_slice(&self.row_digits);
        if xf > 0 {
            self.xml.extend_from_slice(b"\" s=\"");
            let (digits, from) = decimal_digits(xf);
            self.xml.extend_from_slice(&digits[from..]);
        }
        self.xml.push(b'"');
    }

    /// A text cell (`xf`: the style index, 0 for none). An empty text writes nothing, or a
    /// blank cell when it has a style, as Excel and rust_xlsxwriter do.
    pub(crate) fn text(&mut self, row: u32, col: u16, text: &str, xf: u32) -> std::io::Result<()> {
        if text.is_empty() && xf == 0 {
            return Ok(());
        }
        self.row(row)?;
        self.mark(row, col);
        self.cell_start(col, xf);
        if text.is_empty() {
            self.xml.extend_from_slice(b"/>");
            return Ok(());
        }
        self.xml.extend_from_slice(b" t=\"inlineStr\"><is><t");
        let ws = ['\t', '\n', ' '];
        if text.starts_with(ws) || text.ends_with(ws) {
            self.xml.extend_from_slice(b" xml:space=\"preserve\"");
        }
        self.xml.push(b'>');
        self.xml.extend_from_slice(escape(&escape_escapes(text)).as_bytes());
        self.xml.extend_from_slice(b"</t></is></c>");
        Ok(())
    }

    /// A whole-number cell.
    pub(crate) fn number(&mut self, row: u32, col: u16, n: u64) -> std::io::Result<()> {
        self.row(row)?;
        self.mark(row, col);
        self.cell_start(col, 0);
        self.xml.extend_from_slice(b"><v>");
        self.xml.extend_from_slice(n.to_string().as_bytes());
        self.xml.extend_from_slice(b"</v></c>");
        Ok(())
    }

    /// Close the last row and deflate the rest (ending on a sync flush): the compressed file
    /// rewound, the range of the cells written, and what the compressed XML holds.
    pub(crate) fn finish(mut self) -> std::io::Result<(File, Option<Range>, Deflated)> {
        self.close();
        self.deflate(FlushCompress::Sync)?;
        self.file.flush()?;
        self.file.rewind()?;
        Ok((self.file, self.range, self.deflated))
    }
}

/// Cell text as XML character data, as Excel writes it: `&`, `<`, `>` as entities, and the
/// control characters XML cannot hold (and U+FFFE, U+FFFF) as `_xHHHH_`.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    let special = |b: u8| matches!(b, b'&' | b'<' | b'>') || (b < 0x20 && b != b'\t' && b != b'\n');
    let bytes = text.as_bytes();
    // U+FFFE and U+FFFF are EF BF BE / EF BF BF in UTF-8.
    let nonchar =
        |i: usize| bytes[i] == 0xEF && bytes.get(i + 1) == Some(&0xBF) && matches!(bytes.get(i + 2), Some(0xBE | 0xBF));
    let Some(first) = (0..bytes.len()).find(|&i| special(bytes[i]) || nonchar(i)) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\t' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                out.push_str(&format!("_x{:04X}_", c as u32));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A literal `_xHHHH_` in the text gets its underscore escaped (`_x005F_xHHHH_`), so that it
/// reads back as itself and not as an escaped character.
pub(crate) fn escape_escapes(text: &str) -> Cow<'_, str> {
    // memchr for the `_` (most cells have none): `str::contains` set up a two-way search for
    // every cell, 4 % of the writing thread's instructions.
    let bytes = text.as_bytes();
    if !memchr::memchr_iter(b'_', bytes).any(|i| bytes.get(i + 1) == Some(&b'x')) {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let escape_at =
        |i: usize| i + 7 <= b.len() && b[i + 6] == b'_' && b[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit);
    let mut out = String::with_capacity(text.len() + 12);
    let mut from = 0;
    for (i, _) in text.match_indices("_x") {
        if escape_at(i) {
            out.push_str(&text[from..i]);
            out.push_str("_x005F");
            from = i;
        }
    }
    if from == 0 && !escape_at(0) {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn escapes_like_excel() {
        assert_eq!(escape("a & b < c > d \"e\""), "a &amp; b &lt; c &gt; d \"e\"");
        assert_eq!(escape("tab\tnew\nline"), "tab\tnew\nline");
        assert_eq!(escape("bell\u{7}cr\r"), "bell_x0007_cr_x000D_");
        assert_eq!(escape("x\u{FFFE}\u{FFFF}\u{FFFD}"), "x_xFFFE__xFFFF_\u{FFFD}");
        assert!(matches!(escape("plain عربي"), Cow::Borrowed(_)));
        assert_eq!(
            escape_escapes("_x0041_ and _x00zz_ and _x12"),
            "_x005F_x0041_ and _x00zz_ and _x12"
        );
        assert_eq!(escape_escapes("a_x1234_b_xABCD_"), "a_x005F_x1234_b_x005F_xABCD_");
        assert!(matches!(escape_escapes("_xnope_"), Cow::Borrowed(_)));
        assert!(matches!(escape_escapes("trailing_ and _X0041_"), Cow::Borrowed(_)));
        assert_eq!(escape_escapes("__x0041_"), "__x005F_x0041_");
    }

    #[test]
    fn rows_cells_and_range() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let mut body = SheetBody::create(dir.path(), 30)?;
        body.text(1, 0, "a", 0)?;
        body.text(1, 1, "", 0)?;
        body.text(1, 27, " b", 2)?;
        body.number(3, 0, 42)?;
        body.text(3, 2, "", 3)?;
        let (file, range, deflated) = body.finish()?;
        // A sync flush, not the end: a final empty block makes it a whole stream to read back.
        let mut compressed = Vec::new();
        std::io::BufReader::new(file).read_to_end(&mut compressed)?;
        compressed.extend_from_slice(&[0x03, 0x00]);
        let mut xml = String::new();
        flate2::read::DeflateDecoder::new(&compressed[..]).read_to_string(&mut xml)?;
        assert_eq!(deflated.len, xml.len() as u64);
        assert_eq!(deflated.compressed + 2, compressed.len() as u64);
        let mut crc = crc32fast::Hasher::new();
        crc.update(xml.as_bytes());
        assert_eq!(deflated.crc.finalize(), crc.finalize());
        assert_eq!(
            xml,
            "<row r=\"2\"><c r=\"A2\" t=\"inlineStr\"><is><t>a</t></is></c><c r=\"AB2\" s=\"2\" t=\"inlineStr\"><is><t xml:space=\"preserve\"> b</t></is></c></row>\
             <row r=\"4\"><c r=\"A4\"><v>42</v></c><c r=\"C4\" s=\"3\"/></row>"
        );
        assert_eq!(range, Some((1, 0, 3, 27)));
        Ok(())
    }
}

//! A search through an xlsx sheet's XML for what calamine's cell reader does not say: rows hidden
//! in the workbook (`<row r="7" hidden="1">`: filtered out, or hidden by hand) and formula cells
//! saved without a computed value (`<c r="D2"><f>B2*C2</f></c>`, or with an empty `<v/>` as
//! openpyxl writes them: a workbook written by a program that does not calculate, never opened
//! and saved in a spreadsheet application), which calamine reads as empty cells; and, in a
//! workbook that asks to be calculated when opened, formula cells whose saved value is the 0
//! XlsxWriter and rust_xlsxwriter put there ([`Scanner::zero_is_placeholder`]).
//!
//! The XML is not parsed: the text is searched (memchr) for row start tags and formula elements
//! only, and just those are read, with the cell around each formula. Text and attribute values
//! never hold a `<`, so each `<` found starts a tag. Positions are counted as calamine counts
//! them (a row without `r` follows the row before it; a cell without `r` the cell before it in
//! its row), so that what is found here is put on the cells calamine gives.

use super::csv_problems::shortened;
use super::row::Text;
use memchr::memmem::Finder;
use std::collections::HashMap;
use std::io::Read;

/// Bytes read at a time.
pub(super) const CHUNK: usize = 256 * 1024;
/// Bytes kept before the search position when more is read: the start tag of a cell, whose
/// formula follows it.
const KEEP: usize = 4096;
/// A row's cells not yet counted are kept while they are at most this long (to count the cells
/// left of a cell that does not say its column); past it, only [`KEEP`] bytes are.
const ROW_CAP: usize = 16 << 20;
/// A cell holding a formula is read whole while it is at most this long; past it, its formula
/// is not looked at.
const CELL_CAP: usize = 1 << 20;
/// Shared formulas remembered (for the cells that use them).
const SHARED_CAP: usize = 4096;

/// Something the sheet's XML says of a row or a cell, positions 0-based as calamine's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mark {
    /// The row is hidden in the workbook.
    Hidden { row: u32 },
    /// The cell holds a formula and no computed value: `text` is the formula as a spreadsheet
    /// shows it (`=B2*C2`, shortened when long), or `=` alone when it is not known (a cell of a
    /// shared formula whose first cell is gone). `zero`: the cell's saved value is a 0 put there
    /// by a program that does not calculate (see [`Scanner::zero_is_placeholder`]), which
    /// calamine reads as a value.
    Formula { row: u32, col: u32, text: Text, zero: bool },
}

impl Mark {
    pub(crate) fn row(&self) -> u32 {
        match self {
            Mark::Hidden { row } | Mark::Formula { row, .. } => *row,
        }
    }
}

/// The tags searched for, with the sheet's namespace prefix (`x:` in some writers' sheets).
struct Names {
    row: Finder<'static>,
    f: Finder<'static>,
    c: Finder<'static>,
    c_end: Finder<'static>,
    /// `<p:v` and `<p:is`.
    v: Vec<u8>,
    is: Vec<u8>,
    /// The longest of the searched tags: a tag may be cut by the end of what was read.
    tail: usize,
}

impl Names {
    fn new(prefix: &[u8]) -> Names {
        let tag = |open: &[u8], name: &[u8], close: &[u8]| [open, prefix, name, close].concat();
        let finder = |t: Vec<u8>| Finder::new(&t).into_owned();
        let row = tag(b"<", b"row", b"");
        let f = tag(b"<", b"f", b"");
        let tail = row.len().max(f.len());
        Names {
            row: finder(row),
            f: finder(f),
            c: finder(tag(b"<", b"c", b"")),
            c_end: finder(tag(b"</", b"c", b">")),
            v: tag(b"<", b"v", b""),
            is: tag(b"<", b"is", b""),
            tail,
        }
    }
}

/// Where a searched tag is.
enum Hit {
    /// At this offset.
    At(usize),
    /// Perhaps at this offset: the text read so far ends before the byte that tells.
    Cut(usize),
    None,
}

/// The search through one sheet's XML, read from `src` a chunk at a time.
pub(crate) struct Scanner<R> {
    src: R,
    chunk: usize,
    buf: Vec<u8>,
    /// Everything before it has been searched.
    pos: usize,
    eof: bool,
    /// `None` until `<sheetData>` is found.
    names: Option<Names>,
    /// The row being read (0-based).
    row: u32,
    /// Where in `buf` the cells of that row are counted up to, and the column of the next cell
    /// that does not say its own; `None` once that place is not kept.
    counted: Option<(usize, u32)>,
    /// The index of a next row that does not say its own.
    next_row: u32,
    /// Shared formulas by index: the formula and its first cell.
    shared: HashMap<u32, (Box<str>, (u32, u32))>,
    /// A formula's saved value 0 is no computed value.
    zero_placeholder: bool,
    /// A read error met after part of a chunk was read: given by the next refill, once that
    /// part has been searched.
    pending: Option<std::io::Error>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whether the byte after a tag's name ends the name.
fn ends_name(b: u8) -> bool {
    is_space(b) || b == b'>' || b == b'/'
}

/// The `>` that ends the tag starting at `from` (quotes respected).
fn tag_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut quote = 0u8;
    for (k, &b) in buf.get(from..)?.iter().enumerate() {
        match b {
            b'"' | b'\'' if quote == 0 => quote = b,
            _ if b == quote => quote = 0,
            b'>' if quote == 0 => return Some(from + k),
            _ => {}
        }
    }
    None
}

/// The raw value of attribute `name` of a start tag (`<c r="B2" t="s"`, up to its `>`).
fn attr<'a>(tag: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let mut i = tag.iter().position(|&b| ends_name(b))?;
    loop {
        while tag.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        let start = i;
        while tag.get(i).is_some_and(|&b| b != b'=' && !ends_name(b)) {
            i += 1;
        }
        let key = &tag[start..i];
        while tag.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        if key.is_empty() || tag.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        while tag.get(i).copied().is_some_and(is_space) {
            i += 1;
        }
        let quote = *tag.get(i).filter(|&&q| q == b'"' || q == b'\'')?;
        let end = i + 1 + memchr::memchr(quote, &tag[i + 1..])?;
        if key == name {
            return Some(&tag[i + 1..end]);
        }
        i = end + 1;
    }
}

fn number(v: &[u8]) -> Option<u32> {
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// A cell reference (`AB12`) as a 0-based (row, column).
fn cell_ref(r: &[u8]) -> Option<(u32, u32)> {
    let letters = r.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let mut col = 0u32;
    for &b in &r[..letters] {
        col = col
            .checked_mul(26)?
            .checked_add(u32::from(b.to_ascii_uppercase() - b'A') + 1)?;
    }
    let row = number(&r[letters..])?;
    Some((row.checked_sub(1)?, col.checked_sub(1)?))
}

impl<R: Read> Scanner<R> {
    pub(crate) fn new(src: R, chunk: usize) -> Scanner<R> {
        Scanner {
            src,
            chunk: chunk.max(64),
            buf: Vec::new(),
            pos: 0,
            eof: false,
            names: None,
            row: 0,
            counted: None,
            next_row: 0,
            shared: HashMap::new(),
            zero_placeholder: false,
            pending: None,
        }
    }

    /// Takes a formula's saved value `0` for no computed value. For a workbook that asks to be
    /// calculated in full when opened (`<calcPr fullCalcOnLoad="1">`), as XlsxWriter (Python)
    /// and rust_xlsxwriter write every workbook: they save 0 as the value of each formula unless
    /// the program gives one, and leave the calculation to the spreadsheet application that
    /// opens it. A spreadsheet application saving the workbook drops that flag.
    pub(crate) fn zero_is_placeholder(mut self, yes: bool) -> Scanner<R> {
        self.zero_placeholder = yes;
        self
    }

    /// Reads the next chunk and searches it, putting what it finds in `out`. Returns the index
    /// below which no row will have more marks, or `None` once the sheet is read.
    pub(crate) fn step(&mut self, out: &mut Vec<Mark>) -> std::io::Result<Option<u32>> {
        if self.eof {
            return Ok(None);
        }
        self.refill()?;
        if self.names.is_none() {
            self.find_sheet_data();
        }
        if let Some(names) = self.names.take() {
            self.scan(&names, out);
            self.names = Some(names);
        }
        Ok((!self.eof).then_some(self.row))
    }

    fn refill(&mut self) -> std::io::Result<()> {
        let keep = match self.counted {
            Some((s, _)) if self.buf.len() - s <= ROW_CAP => s,
            _ => {
                self.counted = None;
                self.pos.saturating_sub(KEEP)
            }
        }
        .min(self.pos);
        self.buf.drain(..keep);
        self.pos -= keep;
        if let Some((s, _)) = &mut self.counted {
            *s -= keep;
        }
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let len = self.buf.len();
        self.buf.resize(len + self.chunk, 0);
        // The chunk is filled before it is searched: a zip entry's reader gives a few KB at a
        // time, and a zeroed chunk per read was a third of this thread's instructions.
        let mut filled = 0;
        let read = loop {
            match self.src.read(&mut self.buf[len + filled..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Ok(n) if n > 0 && len + filled + n < self.buf.len() => filled += n,
                Ok(n) => break Ok(filled + n),
                Err(e) if filled > 0 => {
                    self.pending = Some(e);
                    break Ok(filled);
                }
                Err(e) => break Err(e),
            }
        };
        self.buf.truncate(len + *read.as_ref().unwrap_or(&0));
        self.eof = read? == 0;
        Ok(())
    }

    /// Finds `<sheetData>` and the namespace prefix of its name; the search goes on from there.
    fn find_sheet_data(&mut self) {
        const NAME: &[u8] = b"sheetData";
        let mut from = self.pos;
        while let Some(k) = memchr::memmem::find(&self.buf[from..], NAME) {
            let at = from + k;
            let Some(&after) = self.buf.get(at + NAME.len()) else {
                if self.eof {
                    break;
                }
                self.pos = at.saturating_sub(64);
                return;
            };
            let lt = memchr::memrchr(b'<', &self.buf[..at]);
            if let Some(lt) = lt.filter(|&lt| at - lt <= 33)
                && ends_name(after)
            {
                let prefix = &self.buf[lt + 1..at];
                if prefix.is_empty() || (prefix.ends_with(b":") && !prefix.iter().any(|&b| ends_name(b) || b == b'!')) {
                    self.names = Some(Names::new(prefix));
                    self.pos = at + NAME.len();
                    return;
                }
            }
            from = at + 1;
        }
        self.pos = self.buf.len().saturating_sub(64).max(self.pos);
    }

    /// The first `needle` (a tag's start) in `buf[from..to]` whose name ends after it.
    fn find(&self, needle: &Finder<'_>, from: usize, to: usize) -> Hit {
        let n = needle.needle().len();
        let mut from = from;
        while from < to {
            let Some(k) = needle.find(&self.buf[from..to]) else {
                return Hit::None;
            };
            let at = from + k;
            match self.buf.get(at + n) {
                Some(&b) if ends_name(b) => return Hit::At(at),
                Some(_) => from = at + 1,
                None if self.eof => return Hit::None,
                None => return Hit::Cut(at),
            }
        }
        Hit::None
    }

    /// Searches the buffer from `pos`: row start tags, and formulas in the rows.
    fn scan(&mut self, names: &Names, out: &mut Vec<Mark>) {
        loop {
            let len = self.buf.len();
            let next_row = self.find(&names.row, self.pos, len);
            // Formulas are searched for up to the next row; the search goes on from there, or,
            // with no row start in what was read, from where a tag cut by its end may start.
            let (limit, next_pos) = match next_row {
                Hit::At(i) | Hit::Cut(i) => (i, i),
                Hit::None if self.eof => (len, len),
                Hit::None => (len, len.saturating_sub(names.tail - 1)),
            };
            let mut from = self.pos;
            loop {
                match self.find(&names.f, from, limit) {
                    Hit::At(f) => match self.formula(names, f, out) {
                        Some(after) => from = after,
                        None => {
                            self.pos = f;
                            return;
                        }
                    },
                    Hit::Cut(f) => {
                        self.pos = f;
                        return;
                    }
                    Hit::None => break,
                }
            }
            self.pos = from.max(next_pos);
            let Hit::At(at) = next_row else {
                if let Hit::Cut(at) = next_row {
                    self.pos = at;
                }
                return;
            };
            let Some(end) = tag_end(&self.buf, at) else {
                self.pos = if self.eof { len } else { at };
                return;
            };
            let tag = &self.buf[at..end];
            let index = attr(tag, b"r")
                .and_then(number)
                .and_then(|r| r.checked_sub(1))
                .unwrap_or(self.next_row);
            let hidden = attr(tag, b"hidden").is_some_and(|v| v == b"1" || v.eq_ignore_ascii_case(b"true"));
            if hidden && !tag.ends_with(b"/") {
                out.push(Mark::Hidden { row: index });
            }
            self.row = index;
            self.next_row = index.saturating_add(1);
            self.counted = Some((end + 1, 0));
            self.pos = end + 1;
        }
    }

    /// The formula element at `f`: when its cell holds no computed value, its mark. Returns
    /// where the search goes on (after the cell), or `None` when the cell is not read whole
    /// yet.
    fn formula(&mut self, names: &Names, f: usize, out: &mut Vec<Mark>) -> Option<usize> {
        let Some(cell_end) = names.c_end.find(&self.buf[f..]).map(|k| f + k) else {
            let give_up = self.eof || self.buf.len() - f > CELL_CAP;
            return give_up.then_some(f + 1);
        };
        if let Some(mark) = self.formula_mark(names, f, cell_end) {
            out.push(mark);
        }
        Some(cell_end + names.c_end.needle().len())
    }

    /// The mark of the formula element at `f`, in a cell that ends at `cell_end`, when the cell
    /// holds no computed value.
    fn formula_mark(&mut self, names: &Names, f: usize, cell_end: usize) -> Option<Mark> {
        // The cell's start tag is right before its formula.
        let lt = memchr::memrchr(b'<', &self.buf[..f])?;
        let c_tag = self.buf[lt..f].trim_ascii_end();
        let c_name = names.c.needle();
        let is_cell = c_tag.starts_with(c_name)
            && c_tag.get(c_name.len()).copied().is_some_and(ends_name)
            && c_tag.ends_with(b">")
            && !c_tag.ends_with(b"/>");
        if !is_cell {
            return None;
        }
        let cell = &self.buf[f..cell_end];
        let f_end = tag_end(cell, 0)?;
        let f_tag = &cell[..f_end];
        let (content, rest) = if f_tag.ends_with(b"/") {
            (&[][..], &cell[f_end + 1..])
        } else {
            let close = f_end + 1 + memchr::memchr(b'<', &cell[f_end + 1..])?;
            (&cell[f_end + 1..close], &cell[tag_end(cell, close)? + 1..])
        };
        // What follows the formula: its value, an inline string, or the cell's end. An empty
        // value is none, but for a text result (`t="str"`): an empty text.
        let rest = rest.trim_ascii_start();
        let named = |name: &[u8]| rest.starts_with(name) && rest.get(name.len()).copied().is_some_and(ends_name);
        let mut zero = false;
        let has_value = if named(&names.v) {
            let v_end = tag_end(rest, 0)?;
            let empty = rest[..v_end].ends_with(b"/") || rest.get(v_end + 1) == Some(&b'<');
            let kind = attr(c_tag, b"t");
            zero = self.zero_placeholder
                && !empty
                && matches!(kind, None | Some(b"n" | b"str"))
                && rest[v_end + 1..].split(|&b| b == b'<').next().map(<[u8]>::trim_ascii) == Some(b"0");
            !zero && (!empty || kind == Some(b"str"))
        } else {
            named(&names.is)
        };
        let shared = (attr(f_tag, b"t") == Some(b"shared"))
            .then(|| attr(f_tag, b"si").and_then(number))
            .flatten();
        let anchor = shared.is_some() && attr(f_tag, b"ref").is_some();
        if has_value && !anchor {
            return None;
        }
        let text = std::str::from_utf8(content)
            .ok()
            .map(|s| match quick_xml::escape::unescape(s) {
                Ok(t) => t.into_owned(),
                Err(_) => s.to_owned(),
            });
        let pos = match attr(c_tag, b"r").and_then(cell_ref) {
            Some(p) => p,
            None => (self.row, self.column(names, lt)?),
        };
        let formula = match shared {
            // The first cell of a shared formula holds its text, for the cells that share it.
            Some(si) if anchor => {
                let text = text.unwrap_or_default();
                if self.shared.len() < SHARED_CAP || self.shared.contains_key(&si) {
                    self.shared.insert(si, (text.as_str().into(), pos));
                }
                Some(text)
            }
            Some(si) if text.as_deref().is_none_or(str::is_empty) => self
                .shared
                .get(&si)
                .and_then(|(template, start)| calamine::expand_shared_formula(template, *start, pos).ok()),
            _ => text,
        };
        if has_value {
            return None;
        }
        let text = match formula.filter(|f| !f.is_empty()) {
            Some(f) => shortened(&format!("={f}")),
            None => "=".to_owned(),
        };
        Some(Mark::Formula {
            row: pos.0,
            col: pos.1,
            text: text.as_str().into(),
            zero,
        })
    }

    /// The column of the cell whose start tag is at `at` and says no column: the one after the
    /// cell before it in the row (the row's cells counted once, while they are kept).
    fn column(&mut self, names: &Names, at: usize) -> Option<u32> {
        let (mut from, mut col) = self.counted?;
        while let Hit::At(k) = self.find(&names.c, from, at) {
            let end = tag_end(&self.buf, k)?;
            col = match attr(&self.buf[k..end], b"r").and_then(cell_ref) {
                Some((_, c)) => c.saturating_add(1),
                None => col.saturating_add(1),
            };
            from = end;
        }
        self.counted = Some((at + 1, col.saturating_add(1)));
        Some(col)
    }
}

#[cfg(test)]
#[path = "sheet_scan_tests.rs"]
mod tests;

//! What is wrong with a record that could still be read as a row ([`ReadProblem`]): a quote
//! that took in the lines after it, more cells than headers. The reader keeps the row, with its
//! cells, and the problem. And whether a record is the file's last line, cut short.

use super::FileFormat;
use super::cut::CutLine;
use super::row::{ReadProblem, Row};

/// A cell's text as a message quotes it: its first line, at most 60 characters.
pub(super) fn shortened(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(60).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// Field `i` of a record's text ([`Record::text`]).
fn field_of<'a>(text: &'a str, ends: &[usize], gap: usize, i: usize) -> &'a str {
    let start = match i {
        0 => 0,
        _ => ends[i - 1] + (i - 1) * gap + gap,
    };
    let end = ends.get(i).map_or(text.len(), |e| e + i * gap);
    text.get(start..end).unwrap_or("")
}

/// The problem of a record whose last field opens a quote that is never closed: that field
/// holds every line to the end of the file.
pub(super) fn unclosed_quote(text: &str, ends: &[usize], gap: usize, line: u64) -> ReadProblem {
    let last = ends.len().saturating_sub(1);
    let field = field_of(text, ends, gap, last);
    let swallowed = field.trim_end_matches(['\r', '\n']).lines().count().saturating_sub(1);
    ReadProblem {
        code: "INV-ROW-QUOTE",
        column: Some(last),
        value: Some(shortened(field)),
        message: format!(
            "the quote (\") that opens this cell on line {line} is never closed, so the {swallowed} \
             line(s) after it, to the end of the file, were read into this cell and are not \
             checked; close the quote, or write a quote that is part of the text as two (\"\"), \
             and check the file again"
        ),
    }
}

/// The problem of a record that runs over several lines and has not a cell per header: a
/// quote closed later than the value it opened (by the next quote in the file), which read the
/// lines between as part of one cell. A value that really holds a line break, rightly quoted,
/// leaves the record its cell count.
pub(super) fn misplaced_quote(text: &str, ends: &[usize], gap: usize, line: u64, width: usize) -> Option<ReadProblem> {
    let at = (0..ends.len()).find(|&i| field_of(text, ends, gap, i).contains(['\n', '\r']))?;
    let field = field_of(text, ends, gap, at);
    let more = field.lines().count().saturating_sub(1).max(1);
    Some(ReadProblem {
        code: "INV-ROW-QUOTE",
        column: Some(at),
        value: Some(shortened(field)),
        message: format!(
            "the quote (\") that opens this cell on line {line} is closed only {more} line(s) later, \
             so those lines were read into this cell and the record has {} cells instead of \
             {width}; close the quote where the value ends, or write a quote that is part of the \
             text as two (\"\"), and check the file again",
            ends.len()
        ),
    })
}

/// The last line of the file, cut short, when this record (on `line`, of `cells` cells, the
/// header `width`) is it: a record of one line that ran to the end of the input (`ran_out`: no
/// line end after it) with fewer cells than the header, or whose quote is never closed
/// (`unclosed`). A record of several lines (a quoted value holding line breaks, or a quote that
/// took in the lines after it, a quoting mistake said as such) is not looked at: its cells say
/// nothing of its last line's. `None` for any other record.
pub(super) fn cut_short(
    text: &str,
    cells: usize,
    width: usize,
    line: u64,
    ran_out: bool,
    unclosed: bool,
) -> Option<CutLine> {
    let cut = (unclosed || (ran_out && cells < width)) && !text.contains(['\r', '\n']);
    cut.then_some(CutLine {
        line,
        cells,
        width,
        unclosed,
    })
}

/// A row with more cells than headers (empty ones past the headers do not count): the
/// cells are most likely shifted by a delimiter inside an unquoted value.
pub(super) fn extra_cells(row: &Row, line: u64, width: usize, format: FileFormat) -> Option<ReadProblem> {
    let read = row.fields_read()?;
    if read <= width || width == 0 {
        return None;
    }
    let delimiter = match format {
        FileFormat::Csv { delimiter, .. } => char::from(delimiter),
        _ => ',',
    };
    let extra: Vec<String> = (width..read).map(|i| row.get(i).as_text().into_owned()).collect();
    Some(ReadProblem {
        code: "INV-ROW-CELLS",
        column: None,
        value: Some(shortened(&extra.join(&delimiter.to_string()))),
        message: format!(
            "line {line} has {read} cells but the header has {} columns: the cells past the \
             last column are not read, and the others may be shifted (a value holding a \
             {delimiter:?} that is not quoted, such as 1{delimiter}150.00?); quote that value in \
             the export, or take out the extra {delimiter:?}",
            width
        ),
    })
}

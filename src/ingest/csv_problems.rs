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

/// The problem of a record that runs over several lines and has a cell per header all the
/// same: a quote opened in a cell and closed by a quote in the same column of a later line
/// (`"Textbook` on one line, `Laptop 14"` two lines below), which read the rest of its line and
/// the lines between into that cell. Told from a value that really holds line breaks (a note, an
/// address) by the separators in the cell: as many as a whole line of the export holds (one
/// fewer than the header's columns), and at least 8, which no quoted note of a few lines has.
pub(super) fn swallowed_lines(
    text: &str,
    ends: &[usize],
    gap: usize,
    line: u64,
    width: usize,
    delimiter: char,
) -> Option<ReadProblem> {
    let at = (0..ends.len()).find(|&i| field_of(text, ends, gap, i).contains(['\n', '\r']))?;
    let field = field_of(text, ends, gap, at);
    let separators = field.matches(delimiter).count();
    if separators < width.saturating_sub(1).max(8) {
        return None;
    }
    // Its line breaks: `\n`, `\r\n` or `\r`.
    let more = field.matches('\n').count() + field.matches('\r').count() - field.matches("\r\n").count();
    Some(ReadProblem {
        code: "INV-ROW-QUOTE",
        column: Some(at),
        value: Some(shortened(field)),
        message: format!(
            "the quote (\") that opens this cell on line {line} is closed only {more} line(s) later, \
             so those lines were read into this cell (it holds {separators} {delimiter:?}, as whole \
             lines of the export do) and are not checked; close the quote where the value ends, or \
             write a quote that is part of the text as two (\"\"), and check the file again"
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

/// The separators an export may use, in the order they are tried.
const SEPARATORS: [char; 4] = [';', ',', '\t', '|'];

/// A line saved with another separator than the file's (one Xero line written with `;`): its
/// cells split at that separator, back to back, with where each ends, and the problem to report.
#[derive(Debug)]
pub(super) struct OtherSeparator {
    pub text: String,
    pub ends: Vec<usize>,
    pub problem: ReadProblem,
}

/// Splits `line` at `sep` outside quotes (a quote opens a quoted cell only at its start, and
/// `""` inside one is a quote), as a CSV reader would: the cells back to back, and their ends.
fn split_at(line: &str, sep: char) -> (String, Vec<usize>) {
    let mut text = String::with_capacity(line.len());
    let mut ends = Vec::new();
    let mut chars = line.chars().peekable();
    let mut at_start = true;
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    text.push('"');
                } else {
                    quoted = false;
                }
            } else {
                text.push(c);
            }
        } else if c == sep {
            ends.push(text.len());
            at_start = true;
            continue;
        } else if c == '"' && at_start {
            quoted = true;
        } else {
            text.push(c);
        }
        at_start = false;
    }
    ends.push(text.len());
    (text, ends)
}

/// The line on `line` (its fields `text`, `ends`, `gap`, as [`Record::text`] gives them), read
/// with the file's `delimiter` into far fewer cells than the header's `width` (at most half), when
/// another usual separator splits it into about `width` cells (a fifth more or less, trailing
/// empty cells not counted): the line was saved with that separator. Only a short line is looked
/// at, so a whole line pays nothing.
///
/// [`Record::text`]: super::records::Record::text
pub(super) fn other_separator(
    text: &str,
    ends: &[usize],
    gap: usize,
    line: u64,
    width: usize,
    delimiter: char,
) -> Option<OtherSeparator> {
    let read = ends.len();
    if width < 3 || read * 2 > width {
        return None;
    }
    // The line as written (near enough: a quote around a cell is gone).
    let written: String = match gap {
        0 => (0..read)
            .map(|i| field_of(text, ends, 0, i))
            .collect::<Vec<_>>()
            .join(&delimiter.to_string()),
        _ => text.to_string(),
    };
    let near = (width / 5).max(1);
    let (sep, (cells, cell_ends), count) = SEPARATORS
        .iter()
        .filter(|&&s| s != delimiter)
        .map(|&s| {
            let split = split_at(&written, s);
            // Trailing empty cells do not count.
            let mut count = split.1.len();
            while count > 1 && split.1[count - 1] == split.1[count - 2] {
                count -= 1;
            }
            (s, split, count)
        })
        .filter(|(_, _, count)| *count > read && count.abs_diff(width) <= near)
        .min_by_key(|(_, _, count)| count.abs_diff(width))?;
    let name = |c: char| match c {
        '\t' => "a tab".to_string(),
        c => format!("\"{c}\""),
    };
    let problem = ReadProblem {
        code: "INV-ROW-SEPARATOR",
        column: None,
        value: Some(shortened(&written)),
        message: format!(
            "line {line} is separated by {}, not by {} like the rest of the file: read with {} it has \
             {read} cell(s) where the header has {width} columns, so it is not checked and its document \
             is not issued (split at {} it gives {count} cells, which place it in its document); save \
             that line again with {} between its cells (or export the file again) and check it again",
            name(sep),
            name(delimiter),
            name(delimiter),
            name(sep),
            name(delimiter),
        ),
    };
    Some(OtherSeparator {
        text: cells,
        ends: cell_ends,
        problem,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells of a split, as strings.
    fn cells(o: &OtherSeparator) -> Vec<&str> {
        (0..o.ends.len()).map(|i| field_of(&o.text, &o.ends, 0, i)).collect()
    }

    #[test]
    fn a_line_saved_with_another_separator_is_split_at_it() {
        // A `;` line in a `,` file of 6 columns: one field, back to back (gap 0).
        let line = "INV-1;\"Al Nada; Riyadh\";2026-11-02;;5;\"say \"\"hi\"\"\"";
        let o = other_separator(line, &[line.len()], 0, 10, 6, ',').expect("a ; line");
        assert_eq!(
            cells(&o),
            ["INV-1", "Al Nada; Riyadh", "2026-11-02", "", "5", "say \"hi\""]
        );
        assert_eq!(o.problem.code, "INV-ROW-SEPARATOR");
        assert!(
            o.problem.message.starts_with(
                "line 10 is separated by \";\", not by \",\" like the rest of the file: read with \",\" it \
                 has 1 cell(s) where the header has 6 columns"
            ),
            "{}",
            o.problem.message
        );
        assert!(
            o.problem
                .message
                .contains("save that line again with \",\" between its cells")
        );
        // A `,` line in a `;` file, its decimal commas unquoted (a cell or two more), and its
        // trailing empty cells not counted.
        let line = "F-1,Invoice,15/11/2026,x,,19,47,149,27,,";
        let o = other_separator(line, &[line.len()], 0, 7, 8, ';').expect("a , line");
        assert_eq!(o.ends.len(), 11);
        assert!(
            o.problem.message.contains("split at \",\" it gives 9 cells"),
            "{}",
            o.problem.message
        );
        // A tab, said as such; in a line as written (gap 1) of two fields.
        let line = "a,b\tc\td\te\tf";
        let o = other_separator(line, &[1, 10], 1, 3, 5, ',').expect("a tab line");
        assert_eq!(cells(&o), ["a,b", "c", "d", "e", "f"]);
        assert!(o.problem.message.contains("separated by a tab, not by \",\""));
    }

    /// A record of three cells (gap 1: as written), its middle cell `middle`.
    fn three(middle: &str) -> (String, Vec<usize>) {
        let text = format!("a,{middle},c");
        let ends = vec![1, 1 + middle.len(), 2 + middle.len()];
        (text, ends)
    }

    #[test]
    fn a_cell_holding_whole_lines_is_a_quote_closed_too_late() {
        // Width 12: a cell with the rest of its line and a whole line holds 11 commas or more.
        let (text, ends) =
            three("Notebook,4000,1,T1,20,7.50,150.00,22.50\r\nSI-1002,CASH005,08/11/2026,EXP-9,Parcel 17");
        let p = swallowed_lines(&text, &ends, 1, 4, 12, ',').expect("lines taken in");
        assert_eq!(p.code, "INV-ROW-QUOTE");
        assert_eq!(p.column, Some(1));
        assert!(
            p.message.contains("on line 4 is closed only 1 line(s) later"),
            "{}",
            p.message
        );
        assert!(p.message.contains("(it holds 11 ',', as whole lines"), "{}", p.message);
        // A note over three lines with a few commas is a value.
        let (text, ends) = three("ruled, 80 pages,\nblue, A5,\nspiral");
        assert!(swallowed_lines(&text, &ends, 1, 4, 12, ',').is_none());
        // A cell without a line break is not looked at, whatever it holds.
        let (text, ends) = three("a,b,c,d,e,f,g,h,i,j,k,l");
        assert!(swallowed_lines(&text, &ends, 1, 4, 12, ',').is_none());
    }

    proptest::proptest! {
        /// A cell over several lines is said to have taken in lines exactly when it holds as
        /// many separators as a whole line (one fewer than the columns), and at least 8; the
        /// message counts its line breaks.
        #[test]
        fn lines_taken_in_are_told_by_the_separators(
            parts in proptest::collection::vec("[a-z ]{0,3}", 2..40),
            breaks in proptest::collection::btree_set(1usize..39, 1..5),
            width in 2usize..30,
        ) {
            let mut middle = String::new();
            let mut commas = 0;
            let mut lines = 0;
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    if breaks.contains(&i) {
                        middle.push('\n');
                        lines += 1;
                    } else {
                        middle.push(',');
                        commas += 1;
                    }
                }
                middle.push_str(p);
            }
            let (text, ends) = three(&middle);
            let found = swallowed_lines(&text, &ends, 1, 7, width, ',');
            if lines == 0 {
                proptest::prop_assert!(found.is_none());
            } else if commas >= (width - 1).max(8) {
                let p = found.expect("lines taken in");
                let said = format!("closed only {lines} line(s) later");
                proptest::prop_assert!(p.message.contains(&said), "{}", p.message);
            } else {
                proptest::prop_assert!(found.is_none());
            }
        }
    }

    #[test]
    fn a_short_line_is_not_taken_for_another_separator() {
        // Cut by a line break inside a value: its cells hold no other separator.
        assert!(other_separator("INV-1", &[5], 0, 2, 6, ',').is_none());
        // More than half of its cells: a short line, not another separator.
        let text = "a;b;c;d;e;f";
        assert!(other_separator(text, &[1, 3, 5, 7], 0, 2, 6, ',').is_none());
        // Too few cells with the other separator (an address written with `|`).
        let line = "King Fahd Road | طريق الملك فهد";
        assert!(other_separator(line, &[line.len()], 0, 2, 21, ';').is_none());
        // Too many.
        let line = "1;2;3;4;5;6;7;8;9;10;11;12";
        assert!(other_separator(line, &[line.len()], 0, 2, 6, ',').is_none());
    }
}

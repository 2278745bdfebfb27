//! The rows a reader finds between the rows it gives (blank lines or sheet rows, the rows above
//! the header, header rows after the first), shared by the CSV and the sheet readers: given as
//! rows of no data ([`NotData`]) when every row is asked for, so that the result file keeps each
//! row of the export on its line; else only counted, for the blank-rows note.

use super::row::{NotData, Row, SourceRef};
use std::collections::VecDeque;

#[derive(Debug, Default)]
pub(super) struct Gaps {
    /// Give every row ([`super::ReadOptions::every_row`]).
    every_row: bool,
    /// The rows before the first data row that are not the (first) header, given first when
    /// every row is given.
    before: VecDeque<Row>,
    /// The line (sheet row) the last row given, or the header, ended on: the ones after it, up
    /// to the next row, are blank.
    pub(super) last_end: u64,
    /// Blank lines to give before the row held: the next one's line, and the held row's.
    fill: (u64, u64),
    /// Blank lines that are no rows of the result file, and the line of the first.
    blank_rows: u64,
    first_blank: u64,
}

impl Gaps {
    pub(super) fn new(every_row: bool) -> Gaps {
        Gaps {
            every_row,
            ..Gaps::default()
        }
    }

    pub(super) fn every_row(&self) -> bool {
        self.every_row
    }

    /// A row before the first data row (above the header, or a header row after the first),
    /// given first when every row is given.
    pub(super) fn before(&mut self, at: SourceRef, cells: Vec<super::row::Cell>, kind: NotData) {
        if self.every_row {
            self.before.push_back(Row::not_data_row(at, cells, kind));
        }
    }

    /// The next row is on `line`: true when blank lines come before it that are to be given
    /// first (hold that row, then [`Gaps::give`]); otherwise they are counted.
    pub(super) fn ahead_of(&mut self, line: u64) -> bool {
        if line <= self.last_end + 1 {
            return false;
        }
        if self.every_row {
            self.fill = (self.last_end + 1, line);
            self.last_end = line - 1;
            return true;
        }
        self.count_blank(line - self.last_end - 1);
        false
    }

    /// The rows up to `end` are blank and end the file: counted, given as no row.
    pub(super) fn end_at(&mut self, end: u64) {
        self.count_blank(end.saturating_sub(self.last_end));
    }

    fn count_blank(&mut self, n: u64) {
        if n > 0 && self.blank_rows == 0 {
            self.first_blank = self.last_end + 1;
        }
        self.blank_rows += n;
    }

    /// Gives the next row of no data into `row` (its place from `at`): the rows before the first
    /// data row, then the blank lines before the row held. False when there is none.
    pub(super) fn give(&mut self, row: &mut Row, at: impl FnOnce(u64) -> SourceRef) -> bool {
        if let Some(r) = self.before.pop_front() {
            *row = r;
            return true;
        }
        let (next, to) = self.fill;
        if next >= to {
            return false;
        }
        self.fill.0 += 1;
        *row = Row::not_data_row(at(next), Vec::new(), NotData::Blank);
        true
    }

    /// The note on the blank rows counted (`unit`: `line`, `row`).
    pub(super) fn note(&self, unit: &str) -> Option<String> {
        super::blank_rows_note(self.blank_rows, &format!("{unit} {}", self.first_blank))
    }
}

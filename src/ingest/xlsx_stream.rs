//! An xlsx sheet streamed instead of loaded: a thread reads the sheet's XML with calamine's cell
//! reader and hands rows over in chunks through a bounded channel. Memory holds a few chunks,
//! never the sheet, and reading the workbook overlaps with whatever consumes the rows.
//!
//! (calamine's `worksheet_range` builds the whole sheet, first as a list of cells and then as a
//! dense grid, before the first row can be used: 518 MB and all of the reading time up front for
//! 200,000 rows of 44 columns.)
//!
//! What calamine does not say of the sheet (hidden rows, formulas saved without their values) is
//! searched for on another thread (`sheet_marks`) and put on the rows as they are handed out.

use super::sheet_cells::{RawCell, is_percent_format};
use super::sheet_marks::SheetMarks;
use calamine::Xlsx;
use std::fs::File;
use std::io::BufReader;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// What is said of a sheet when calamine panics on it.
pub(super) const READER_FAILED: &str = "the spreadsheet reader failed on this sheet";

/// Rows per message.
const CHUNK_ROWS: usize = 256;
/// Messages waiting in the channel: with the chunk being filled and the one being consumed, at
/// most this + 2 chunks of rows exist at once.
const CHUNKS_IN_FLIGHT: usize = 4;

/// One row of the sheet as the reader found it.
#[derive(Debug)]
pub(crate) struct RawRow {
    /// 0-based row index in the sheet (row 1 is 0).
    pub(crate) index: u32,
    /// Cells from column A on; columns without a cell are empty.
    pub(crate) cells: Vec<RawCell>,
    /// Hidden in the workbook (`<row hidden="1">`).
    pub(crate) hidden: bool,
}

enum Msg {
    Rows(Vec<RawRow>),
    /// The sheet could not be read further; nothing follows.
    Failed(String),
}

/// The rows of one xlsx sheet, read on their own thread. Dropping it stops the thread at its
/// next chunk.
pub(crate) struct XlsxStream {
    rx: Receiver<Msg>,
    chunk: std::vec::IntoIter<RawRow>,
    ended: bool,
    marks: SheetMarks,
}

impl std::fmt::Debug for XlsxStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XlsxStream")
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl XlsxStream {
    /// Starts reading `sheet` of `book` on a new thread, and searching it in `file` (the
    /// workbook, opened again) on another.
    pub(crate) fn start(book: Xlsx<BufReader<File>>, file: std::io::Result<File>, sheet: String) -> XlsxStream {
        let marks = SheetMarks::start(file, sheet.clone());
        let (tx, rx) = sync_channel(CHUNKS_IN_FLIGHT);
        let on_failure = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("xlsx-reader".into())
            .spawn(move || read_sheet(book, &sheet, &tx));
        if let Err(e) = spawned {
            let _ = on_failure.send(Msg::Failed(format!("could not start the reader: {e}")));
        }
        XlsxStream {
            rx,
            chunk: Vec::new().into_iter(),
            ended: false,
            marks,
        }
    }

    /// The next row in sheet order; `Ok(None)` at the end of the sheet; `Err` with what the
    /// reader said when the sheet could not be read further (nothing follows it).
    pub(crate) fn next_row(&mut self) -> Result<Option<RawRow>, String> {
        loop {
            if let Some(mut row) = self.chunk.next() {
                self.marks.apply(&mut row);
                return Ok(Some(row));
            }
            if self.ended {
                return Ok(None);
            }
            match self.rx.recv() {
                Ok(Msg::Rows(rows)) => self.chunk = rows.into_iter(),
                Ok(Msg::Failed(e)) => {
                    self.ended = true;
                    return Err(e);
                }
                // The reader finished and hung up.
                Err(_) => self.ended = true,
            }
        }
    }

    /// What could not be done beside the reading (the sheet's search), once.
    pub(crate) fn take_note(&mut self) -> Option<String> {
        self.marks.take_note()
    }
}

/// The reading thread: every cell of the sheet, grouped into rows, sent in chunks. Stops early
/// when the receiver is gone.
fn read_sheet(mut book: Xlsx<BufReader<File>>, sheet: &str, tx: &SyncSender<Msg>) {
    let read = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
        let mut cells = book.worksheet_cells_reader(sheet).map_err(|e| e.to_string())?;
        // The styles whose number format shows a number as a percentage, by style id.
        let percent: Vec<bool> = cells
            .styles()
            .iter()
            .map(|s| {
                s.number_format
                    .as_ref()
                    .is_some_and(|f| is_percent_format(&f.format_code))
            })
            .collect();
        let any_percent = percent.contains(&true);
        let mut chunk: Vec<RawRow> = Vec::with_capacity(CHUNK_ROWS);
        let mut current: Option<RawRow> = None;
        let mut width = 0usize;
        loop {
            let (cell, style) = match cells.next_cell_with_style_id() {
                Ok(Some(cell)) => cell,
                Ok(None) => break,
                Err(e) => {
                    // The rows read to their end before the damage go on (the one being read
                    // when it was met may be missing cells, and does not); then the error.
                    if !chunk.is_empty() {
                        send(tx, &mut chunk);
                    }
                    return Err(e.to_string());
                }
            };
            let (r, c) = cell.get_position();
            let c = c as usize;
            if current.as_ref().is_none_or(|row| row.index != r) {
                if let Some(done) = current.take() {
                    width = width.max(done.cells.len());
                    chunk.push(done);
                    if chunk.len() == CHUNK_ROWS && !send(tx, &mut chunk) {
                        return Ok(());
                    }
                }
                current = Some(RawRow {
                    index: r,
                    cells: Vec::with_capacity(width.max(c + 1)),
                    hidden: false,
                });
            }
            if let Some(row) = current.as_mut() {
                let value = if any_percent && percent.get(style).copied().unwrap_or(false) {
                    RawCell::percent(cell.get_value())
                } else {
                    RawCell::from_ref(cell.get_value())
                };
                // Cells come left to right: most are the next one (pushed; a resize per cell
                // was 3.6 % of the samples on this thread, which bounds the pipeline).
                if row.cells.len() <= c {
                    if row.cells.len() < c {
                        row.cells.resize(c, RawCell::default());
                    }
                    row.cells.push(value);
                } else {
                    row.cells[c] = value;
                }
            }
        }
        chunk.extend(current);
        if !chunk.is_empty() {
            send(tx, &mut chunk);
        }
        Ok(())
    }));
    let failed = match read {
        Ok(Ok(())) => return,
        Ok(Err(e)) => e,
        Err(_) => READER_FAILED.to_owned(),
    };
    let _ = tx.send(Msg::Failed(failed));
}

/// Sends the chunk; `false` when nobody listens any more.
fn send(tx: &SyncSender<Msg>, chunk: &mut Vec<RawRow>) -> bool {
    let full = std::mem::replace(chunk, Vec::with_capacity(CHUNK_ROWS));
    tx.send(Msg::Rows(full)).is_ok()
}

//! The header rows of an xlsx sheet read without loading the sheet (detecting which mapping
//! fits a file reads only its first rows).

use super::ReadOptions;
use super::sheet_cells::header_text;
use super::workbook::{BookKind, choose_sheet, open_kind};
use calamine::{Data, Sheets};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// The header rows of an xlsx sheet, streaming only its first rows (calamine would otherwise
/// load the whole sheet). `None` when anything is unusual (a missing header, a read error): the
/// caller then opens the file fully, which reports the problem properly.
pub(crate) fn peek_xlsx(path: &Path, file: &str, opts: &ReadOptions) -> Option<Vec<Vec<String>>> {
    let book = open_kind(path, BookKind::Xlsx).ok()?;
    let sheet = choose_sheet(&book, file, opts.sheet.as_deref(), &mut Vec::new()).ok()?;
    let Sheets::Xlsx(mut xlsx) = book else {
        return None;
    };
    let wanted = opts.header_row.map_or(1, |n| n.max(1) as u64);
    let count = opts.header_rows.max(1);
    let streamed = catch_unwind(AssertUnwindSafe(|| -> Option<Vec<Vec<String>>> {
        let mut cells = xlsx.worksheet_cells_reader(&sheet).ok()?;
        let mut rows: Vec<Vec<String>> = Vec::with_capacity(count);
        let mut current: Option<u32> = None;
        let mut names: Vec<String> = Vec::new();
        loop {
            let next = cells.next_cell().ok()?;
            let row = next.as_ref().map(|c| c.get_position().0);
            if row != current {
                let number = current.map_or(0, |r| u64::from(r) + 1);
                if number >= wanted && names.iter().any(|n| !n.is_empty()) {
                    while names.last().is_some_and(String::is_empty) {
                        names.pop();
                    }
                    rows.push(std::mem::take(&mut names));
                    if rows.len() == count {
                        return Some(rows);
                    }
                }
                names.clear();
                current = row;
            }
            let cell = next?;
            let col = cell.get_position().1 as usize;
            if names.len() <= col {
                names.resize(col + 1, String::new());
            }
            names[col] = header_text(&Data::from(cell.get_value().clone()));
        }
    }));
    streamed.ok().flatten()
}

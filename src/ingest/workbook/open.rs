//! Opening a workbook: its kind (xlsx, ods, xlsb, xls), the sheet to read, and its header rows.

use super::*;

pub(super) fn workbook_error(file: &str, kind: BookKind, detail: impl ToString) -> IngestError {
    IngestError::Workbook {
        file: file.to_owned(),
        kind: kind.name(),
        detail: detail.to_string(),
    }
}

pub(in crate::ingest) fn open_kind(
    path: &Path,
    kind: BookKind,
) -> Result<Sheets<std::io::BufReader<std::fs::File>>, String> {
    let opened = catch_unwind(AssertUnwindSafe(|| match kind {
        BookKind::Xlsx => open_workbook::<Xlsx<_>, _>(path)
            .map(Sheets::Xlsx)
            .map_err(|e| e.to_string()),
        BookKind::Xlsb => open_workbook::<Xlsb<_>, _>(path)
            .map(Sheets::Xlsb)
            .map_err(|e| e.to_string()),
        BookKind::Xls => open_workbook::<Xls<_>, _>(path)
            .map(Sheets::Xls)
            .map_err(|e| e.to_string()),
        BookKind::Ods => open_workbook::<Ods<_>, _>(path)
            .map(Sheets::Ods)
            .map_err(|e| e.to_string()),
    }));
    opened.unwrap_or_else(|_| Err("the spreadsheet reader failed on this file".to_owned()))
}

/// Picks the sheet: by name (exact, then ignoring case and surrounding spaces), or the first
/// visible worksheet.
pub(in crate::ingest) fn choose_sheet<RS: std::io::Read + std::io::Seek>(
    book: &Sheets<RS>,
    file: &str,
    wanted: Option<&str>,
    notes: &mut Vec<String>,
) -> Result<String, IngestError> {
    let sheets = book.sheets_metadata();
    let names: Vec<String> = sheets.iter().map(|s| s.name.clone()).collect();
    if let Some(wanted) = wanted {
        if let Some(n) = names.iter().find(|n| n.as_str() == wanted) {
            return Ok(n.clone());
        }
        let key = wanted.trim().to_lowercase();
        if let Some(n) = names.iter().find(|n| n.trim().to_lowercase() == key) {
            return Ok(n.clone());
        }
        return Err(IngestError::SheetNotFound {
            file: file.to_owned(),
            sheet: wanted.to_owned(),
            available: names,
        });
    }
    let worksheet = |s: &&calamine::Sheet| s.typ == SheetType::WorkSheet;
    let chosen = sheets
        .iter()
        .filter(worksheet)
        .find(|s| s.visible == SheetVisible::Visible)
        .or_else(|| sheets.iter().find(worksheet))
        .or_else(|| sheets.first());
    let Some(chosen) = chosen else {
        return Err(IngestError::Empty {
            file: file.to_owned(),
            detail: "the workbook has no sheets".to_owned(),
        });
    };
    if names.len() > 1 {
        notes.push(format!(
            "sheet: {:?}, the first worksheet of {} ({}); choose another sheet by name if needed",
            chosen.name,
            names.len(),
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(chosen.name.clone())
}

/// Opens a workbook of `kind` (or, for `None`, whichever of xlsx, ods and xlsb fits a zip
/// file), picks the sheet, and reads the header rows.
pub(crate) fn open(
    path: &Path,
    file: Arc<str>,
    kind: Option<BookKind>,
    opts: &ReadOptions,
) -> Result<OpenedSheet, IngestError> {
    let (book, kind) = match kind {
        Some(kind) => (open_kind(path, kind).map_err(|e| workbook_error(&file, kind, e))?, kind),
        None => {
            let mut first_err = None;
            let mut found = None;
            for kind in [BookKind::Xlsx, BookKind::Ods, BookKind::Xlsb] {
                match open_kind(path, kind) {
                    Ok(book) => {
                        found = Some((book, kind));
                        break;
                    }
                    Err(e) => {
                        first_err.get_or_insert(e);
                    }
                }
            }
            let err = || workbook_error(&file, BookKind::Xlsx, first_err.unwrap_or_default());
            found.ok_or_else(err)?
        }
    };
    let mut notes = Vec::new();
    let sheet = choose_sheet(&book, &file, opts.sheet.as_deref(), &mut notes)?;
    let rows = match book {
        // The workbook opened again, for what calamine's reader does not say.
        Sheets::Xlsx(xlsx) => SheetRows::Streamed(XlsxStream::start(xlsx, std::fs::File::open(path), sheet.clone())),
        mut book => {
            let range = catch_unwind(AssertUnwindSafe(|| book.worksheet_range(&sheet)))
                .unwrap_or(Err(calamine::Error::Msg(READER_FAILED)))
                .map_err(|e| workbook_error(&file, kind, format!("sheet {sheet:?}: {e}")))?;
            drop(book);
            let Some((first_row, first_col)) = range.start() else {
                let detail = format!("sheet {sheet:?} has no cells");
                return Err(empty_sheet(
                    path,
                    kind,
                    &sheet,
                    opts.sheet.is_some(),
                    file.to_string(),
                    detail,
                ));
            };
            SheetRows::Loaded {
                range,
                next: 0,
                first_row,
                first_col,
            }
        }
    };
    let mut source = SheetSource {
        file,
        sheet: Arc::from(sheet.as_str()),
        kind,
        rows,
        last_row: 0,
        width: 0,
        error_cells: 0,
        gaps: Gaps::new(opts.every_row),
        last_blank_row: 0,
        held: None,
        first_error: String::new(),
        odd_numbers: 0,
        first_odd_number: String::new(),
        formulas: 0,
        first_formula: String::new(),
        finished: false,
        notes: Vec::new(),
        header_line: 0,
    };
    let header_rows = match source.read_headers(opts.header_row, opts.header_rows.max(1)) {
        Ok(rows) => rows,
        Err(IngestError::Empty { file, detail }) => {
            return Err(empty_sheet(path, kind, &sheet, opts.sheet.is_some(), file, detail));
        }
        Err(e) => return Err(e),
    };
    source.gaps.last_end = source.last_row;
    notes.append(&mut source.notes);
    Ok(OpenedSheet {
        source,
        header_rows,
        notes,
        format: kind.format(),
    })
}

/// The error for `sheet` of a workbook having no cells or only blank rows (`detail`, for the
/// file `file`): when another worksheet has cells, it is named with the setting that reads it
/// (`sheet` in the mapping's `[input]`; `named`: that setting named this sheet); else the
/// workbook is empty.
fn empty_sheet(path: &Path, kind: BookKind, sheet: &str, named: bool, file: String, detail: String) -> IngestError {
    let has_cells = |name: &str| -> bool {
        catch_unwind(AssertUnwindSafe(|| -> Option<bool> {
            match open_kind(path, kind).ok()? {
                Sheets::Xlsx(mut xlsx) => {
                    let mut cells = xlsx.worksheet_cells_reader(name).ok()?;
                    loop {
                        match cells.next_cell().ok()? {
                            Some(c) if !header_text(&Data::from(c.get_value().clone())).is_empty() => {
                                return Some(true);
                            }
                            Some(_) => {}
                            None => return Some(false),
                        }
                    }
                }
                mut book => {
                    let range = book.worksheet_range(name).ok()?;
                    Some(range.used_cells().any(|(_, _, d)| !header_text(d).is_empty()))
                }
            }
        }))
        .ok()
        .flatten()
        .unwrap_or(false)
    };
    let others: Vec<String> = match open_kind(path, kind) {
        Ok(book) => book
            .sheets_metadata()
            .iter()
            .filter(|s| s.typ == SheetType::WorkSheet && s.name != sheet)
            .map(|s| s.name.clone())
            .collect(),
        Err(_) => Vec::new(),
    };
    let Some(other) = others.iter().find(|n| has_cells(n)) else {
        return IngestError::Empty { file, detail };
    };
    let what = detail.strip_prefix(&format!("sheet {sheet:?} ")).unwrap_or(&detail);
    let which = if named {
        "the sheet the mapping's [input] names".to_string()
    } else {
        "the first sheet (read when the mapping names none)".to_string()
    };
    let fix = if named {
        format!("set sheet = {other:?} in the mapping's [input]")
    } else {
        format!(
            "set sheet = {other:?} in the [input] of the mapping (a copy of a bundled one: see mappings/README.md), \
             or move that sheet first"
        )
    };
    IngestError::Header {
        file,
        detail: format!("sheet {sheet:?}, {which}, {what}; the workbook's sheet {other:?} has rows: {fix}"),
    }
}

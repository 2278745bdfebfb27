//! What an xlsx sheet's XML says beyond its cells' values (`sheet_scan`: hidden rows, formulas
//! saved without a computed value), found on a thread of its own and put on the rows calamine's
//! reader gives (`xlsx_stream`).
//!
//! calamine gives neither (its cell reader reads the `<row>` tag for its number only, and a
//! formula's cell without a `<v>` as empty; tafia/calamine#237 on hidden rows was closed as not
//! planned). So the sheet's part is read a second time, beside calamine's reader, from a handle
//! of the file opened with it: inflated and searched, not parsed. Inflating the 21 MB sheet of a
//! 20,000-row Xero export took 12 ms here (a debug build, its dependencies optimized), and a
//! search of it for `<row` and `<f` 1 to 2 ms more; calamine's reader takes about ten times that
//! over such a sheet in a release build (1.7 s for 200,000 rows, `scripts/bench_xlsx.sh`). What is
//! found goes over a bounded channel in batches, each saying how far the sheet has been
//! searched, so that memory holds a few batches, never the sheet's marks; the consuming thread
//! waits for the search only when it is behind (it seldom is).

use super::sheet_cells::RawCell;
use super::sheet_scan::{CHUNK, Mark, Scanner};
use super::xlsx_stream::RawRow;
use calamine::Data;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Batches waiting in the channel.
const BATCHES_IN_FLIGHT: usize = 4;

struct Batch {
    marks: Vec<Mark>,
    /// No mark is to come for a row below it.
    through: u32,
    /// Why the sheet could not be searched.
    failed: Option<String>,
}

/// The marks of one sheet, in sheet order, as the search finds them.
pub(crate) struct SheetMarks {
    rx: Option<Receiver<Batch>>,
    marks: std::vec::IntoIter<Mark>,
    /// The next mark, taken from `marks` but not yet reached.
    next: Option<Mark>,
    through: u32,
    note: Option<String>,
}

impl SheetMarks {
    /// Starts searching `sheet` of the workbook open as `file`.
    pub(crate) fn start(file: std::io::Result<File>, sheet: String) -> SheetMarks {
        let (tx, rx) = sync_channel(BATCHES_IN_FLIGHT);
        let failed = tx.clone();
        let name = sheet.clone();
        let spawned = match file {
            Ok(file) => std::thread::Builder::new()
                .name("xlsx-marks".into())
                .spawn(move || search(file, &sheet, &tx))
                .map(drop),
            Err(e) => Err(e),
        };
        if let Err(e) = spawned {
            let _ = failed.send(Batch {
                marks: Vec::new(),
                through: u32::MAX,
                failed: Some(not_searched(&name, &e.to_string())),
            });
        }
        SheetMarks {
            rx: Some(rx),
            marks: Vec::new().into_iter(),
            next: None,
            through: 0,
            note: None,
        }
    }

    /// Puts the marks of `row` on it: its `hidden` flag, and its formula cells that calamine
    /// read as empty. Rows come in sheet order; waits until the search has passed `row`.
    pub(crate) fn apply(&mut self, row: &mut RawRow) {
        let r = row.index;
        loop {
            while let Some(mark) = self.next.take().or_else(|| self.marks.next()) {
                if mark.row() > r {
                    self.next = Some(mark);
                    return;
                }
                if mark.row() == r {
                    put(mark, row);
                }
            }
            if r < self.through {
                return;
            }
            match self.rx.as_ref().map(Receiver::recv) {
                Some(Ok(batch)) => {
                    self.marks = batch.marks.into_iter();
                    self.through = batch.through;
                    if batch.failed.is_some() {
                        self.note = batch.failed;
                    }
                }
                // The search ended (its thread is gone).
                _ => {
                    self.rx = None;
                    self.through = u32::MAX;
                }
            }
        }
    }

    /// Why the sheet could not be searched, once.
    pub(crate) fn take_note(&mut self) -> Option<String> {
        self.note.take()
    }
}

fn put(mark: Mark, row: &mut RawRow) {
    match mark {
        Mark::Hidden { .. } => row.hidden = true,
        Mark::Formula { col, text, zero, .. } => {
            // Never over a value calamine read, but the 0 a program saved as a formula's value.
            if let Some(cell) = row.cells.get_mut(col as usize)
                && match cell {
                    RawCell::Data(Data::Empty) => true,
                    RawCell::Data(Data::Float(f)) => zero && *f == 0.0,
                    RawCell::Data(Data::Int(i)) => zero && *i == 0,
                    RawCell::Data(Data::String(s)) => zero && s == "0",
                    RawCell::Text(t) => zero && matches!(&**t, "0" | "0%"),
                    _ => false,
                }
            {
                *cell = RawCell::Formula(text);
            }
        }
    }
}

/// The search's thread: the sheet's part found in the package, searched, and what is found
/// sent in batches (one per chunk read). Stops early when nobody listens any more.
fn search(file: File, sheet: &str, tx: &SyncSender<Batch>) {
    let run = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
        let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| e.to_string())?;
        let (part, recalculated) = sheet_part(&mut zip, sheet)?;
        let entry = zip.by_name(&part).map_err(|e| format!("{part}: {e}"))?;
        let mut scanner = Scanner::new(entry, CHUNK).zero_is_placeholder(recalculated);
        let mut marks = Vec::new();
        let mut sent = 0;
        loop {
            // A read error ends the search; calamine's reader meets it too, and says so.
            let through = scanner.step(&mut marks).ok().flatten();
            let through = through.unwrap_or(u32::MAX);
            if (through > sent || !marks.is_empty())
                && tx
                    .send(Batch {
                        marks: std::mem::take(&mut marks),
                        through,
                        failed: None,
                    })
                    .is_err()
            {
                return Ok(());
            }
            sent = through;
            if through == u32::MAX {
                return Ok(());
            }
        }
    }));
    let failed = match run {
        Ok(Ok(())) => return,
        Ok(Err(e)) => e,
        Err(_) => "the search failed".to_owned(),
    };
    let _ = tx.send(Batch {
        marks: Vec::new(),
        through: u32::MAX,
        failed: Some(not_searched(sheet, &failed)),
    });
}

/// The note on a sheet that could not be searched.
fn not_searched(sheet: &str, why: &str) -> String {
    format!(
        "sheet {sheet:?}: rows hidden in the workbook and formulas saved without their computed values were not \
         looked for ({why}); they are read as other rows and as empty cells"
    )
}

/// The attributes of the elements named `element` (local name) of an XML text, unescaped, by
/// local name.
fn elements(xml: &str, element: &str) -> Vec<Vec<(String, String)>> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut found = Vec::new();
    while let Ok(event) = reader.read_event() {
        let e = match event {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => e,
            quick_xml::events::Event::Eof => break,
            _ => continue,
        };
        if e.local_name().as_ref() != element {
            continue;
        }
        let attrs = e
            .attributes()
            .flatten()
            .map(|a| {
                let value =
                    quick_xml::escape::unescape(&a.value).map_or_else(|_| a.value.to_string(), |v| v.into_owned());
                (a.key.local_name().as_ref().to_owned(), value)
            })
            .collect();
        found.push(attrs);
    }
    found
}

fn get<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// The path in the package of the part of the worksheet named `sheet`, found as calamine finds
/// it: the workbook part (the package's office document), its `<sheet>` of that name, and the
/// relationship it names. Part names are matched ignoring case and `\`. With it, whether the
/// workbook asks to be calculated in full when opened (`<calcPr fullCalcOnLoad="1"/>`): its
/// formulas' saved values were not calculated by whoever wrote it
/// ([`Scanner::zero_is_placeholder`]).
fn sheet_part<R: Read + Seek>(zip: &mut zip::ZipArchive<R>, sheet: &str) -> Result<(String, bool), String> {
    let names: Vec<String> = zip.file_names().flatten().map(|n| n.into_owned()).collect();
    let find = |path: &str| {
        names
            .iter()
            .find(|n| n.replace('\\', "/").eq_ignore_ascii_case(path))
            .cloned()
    };
    let mut read = |path: &str| -> Result<String, String> {
        let name = find(path).ok_or_else(|| format!("no part {path}"))?;
        let mut text = String::new();
        zip.by_name(&name)
            .map_err(|e| e.to_string())?
            .read_to_string(&mut text)
            .map_err(|e| format!("{path}: {e}"))?;
        Ok(text)
    };
    let package = read("_rels/.rels").unwrap_or_default();
    let book = elements(&package, "Relationship")
        .iter()
        .find(|r| get(r, "Type").is_some_and(|t| t.ends_with("/officeDocument")))
        .and_then(|r| get(r, "Target"))
        .map_or_else(
            || "xl/workbook.xml".to_owned(),
            |t| t.trim_start_matches('/').to_owned(),
        );
    let (dir, name) = match book.rfind('/') {
        Some(i) => book.split_at(i + 1),
        None => ("", book.as_str()),
    };
    let book_xml = read(&book)?;
    let recalculated = elements(&book_xml, "calcPr")
        .iter()
        .any(|c| get(c, "fullCalcOnLoad").is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true")));
    let sheets = elements(&book_xml, "sheet");
    let id = sheets
        .iter()
        .find(|s| get(s, "name") == Some(sheet))
        .and_then(|s| get(s, "id"))
        .ok_or_else(|| format!("{book} does not list it"))?
        .to_owned();
    let rels = elements(&read(&format!("{dir}_rels/{name}.rels"))?, "Relationship");
    let target = rels
        .iter()
        .find(|r| get(r, "Id") == Some(id.as_str()))
        .and_then(|r| get(r, "Target"))
        .ok_or_else(|| format!("no relationship {id} in the workbook"))?;
    let part = match target.strip_prefix('/') {
        Some(absolute) => absolute.to_owned(),
        None => format!("{dir}{target}"),
    };
    let part = find(&part).ok_or_else(|| format!("no part {part}"))?;
    Ok((part, recalculated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A package of `parts` (name, text).
    fn package(parts: &[(&str, &str)]) -> zip::ZipArchive<std::io::Cursor<Vec<u8>>> {
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, text) in parts {
            out.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            out.write_all(text.as_bytes()).unwrap();
        }
        zip::ZipArchive::new(std::io::Cursor::new(out.finish().unwrap().into_inner())).unwrap()
    }

    const SHEETS: &str = r#"<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Cover" sheetId="1" r:id="rId1"/><sheet name="R&amp;D" sheetId="2" r:id="rId2"/></sheets></workbook>"#;

    #[test]
    fn a_sheet_is_found_as_the_workbook_names_it() {
        let rels = r#"<Relationships><Relationship Id="rId1" Type=".../worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type=".../worksheet" Target="/xl/worksheets/Sheet2.xml"/></Relationships>"#;
        let mut zip = package(&[
            ("xl/workbook.xml", SHEETS),
            ("xl/_rels/workbook.xml.rels", rels),
            ("xl/worksheets/sheet1.xml", ""),
            ("xl/worksheets/sheet2.xml", ""),
        ]);
        assert_eq!(
            sheet_part(&mut zip, "Cover"),
            Ok(("xl/worksheets/sheet1.xml".to_owned(), false))
        );
        // Named with an entity; its part named with other case.
        assert_eq!(
            sheet_part(&mut zip, "R&D"),
            Ok(("xl/worksheets/sheet2.xml".to_owned(), false))
        );
        assert_eq!(
            sheet_part(&mut zip, "Other"),
            Err("xl/workbook.xml does not list it".to_owned())
        );
        // The workbook where the package says it is.
        let package_rels = r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/book/main.xml"/></Relationships>"#;
        let mut zip = package(&[
            ("_rels/.rels", package_rels),
            ("book/main.xml", SHEETS),
            ("book/_rels/main.xml.rels", rels.replace("/xl/", "/book/").as_str()),
            ("book/worksheets/sheet1.xml", ""),
        ]);
        assert_eq!(
            sheet_part(&mut zip, "Cover"),
            Ok(("book/worksheets/sheet1.xml".to_owned(), false))
        );
        assert_eq!(
            sheet_part(&mut zip, "R&D"),
            Err("no part book/worksheets/Sheet2.xml".to_owned())
        );
    }

    /// A workbook of one sheet, "Sheet1", of `sheet_data`.
    fn book(sheet_data: &str) -> zip::ZipArchive<std::io::Cursor<Vec<u8>>> {
        let rels = r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;
        let package_rels = r#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
        let sheet = format!(
            r#"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{sheet_data}</sheetData></worksheet>"#
        );
        package(&[
            (
                "[Content_Types].xml",
                r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#,
            ),
            ("_rels/.rels", package_rels),
            (
                "xl/workbook.xml",
                r#"<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
            ),
            ("xl/_rels/workbook.xml.rels", rels),
            ("xl/worksheets/sheet1.xml", &sheet),
        ])
    }

    /// The formulas without a value are found on the cells where calamine's reader puts them,
    /// however rows and cells say (or do not say) where they are.
    #[test]
    fn formulas_are_found_on_the_cells_calamine_gives() {
        let data = concat!(
            r#"<row><c><v>1</v></c><c><f>A1*2</f></c></row>"#,
            r#"<row hidden="1"><c r="C2"><v>1</v></c><c><v>2</v></c><c><f>D2+1</f><v></v></c></row>"#,
            r#"<row r="9"><c><f>A9</f></c><c r="C9"><f>A9</f><v>3</v></c></row>"#,
            r#"<row><c r="B10"/><c><f>B10</f></c><c><f t="shared" ref="C10:D10" si="0">A1</f></c><c><f t="shared" si="0"/></c></row>"#,
        );
        let mut calamine: calamine::Xlsx<_> = calamine::Reader::new(book(data).into_inner()).unwrap();
        let mut cells = calamine.worksheet_cells_reader("Sheet1").unwrap();
        let mut theirs = Vec::new();
        while let Some(c) = cells.next_cell_with_formula().unwrap() {
            if c.formula.is_some() && c.value == calamine::DataRef::Empty {
                theirs.push(c.pos);
            }
        }
        let mut zip = book(data);
        let (part, _) = sheet_part(&mut zip, "Sheet1").unwrap();
        let mut scanner = Scanner::new(zip.by_name(&part).unwrap(), 64);
        let mut found = Vec::new();
        while scanner.step(&mut found).unwrap().is_some() {}
        let ours: Vec<(u32, u32)> = found
            .iter()
            .filter_map(|m| match m {
                Mark::Formula { row, col, .. } => Some((*row, *col)),
                Mark::Hidden { .. } => None,
            })
            .collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 6);
    }

    fn raw_row(index: u32, cells: Vec<RawCell>) -> RawRow {
        RawRow {
            index,
            cells,
            hidden: false,
        }
    }

    #[test]
    fn marks_go_on_their_rows_and_never_over_a_value() {
        let (tx, rx) = sync_channel(8);
        let mut marks = SheetMarks {
            rx: Some(rx),
            marks: Vec::new().into_iter(),
            next: None,
            through: 0,
            note: None,
        };
        let f = |row, col, text: &str| Mark::Formula {
            row,
            col,
            text: text.into(),
            zero: false,
        };
        let batches = [
            (vec![Mark::Hidden { row: 1 }, f(1, 0, "=A")], 2),
            (vec![], 3),
            // A row calamine gave no cells of is passed over.
            (
                vec![Mark::Hidden { row: 3 }, f(4, 1, "=B"), f(4, 2, "=C"), f(4, 9, "=D")],
                5,
            ),
        ];
        for (batch, through) in batches {
            tx.send(Batch {
                marks: batch,
                through,
                failed: None,
            })
            .unwrap();
        }
        drop(tx);
        let empty = || RawCell::Data(Data::Empty);
        let mut rows = [
            raw_row(0, vec![empty()]),
            raw_row(1, vec![empty(), empty()]),
            raw_row(2, vec![]),
            raw_row(4, vec![empty(), empty(), RawCell::Data(Data::Float(1.0))]),
            raw_row(7, vec![empty()]),
        ];
        for row in &mut rows {
            marks.apply(row);
        }
        let hidden: Vec<bool> = rows.iter().map(|r| r.hidden).collect();
        assert_eq!(hidden, [false, true, false, false, false]);
        assert_eq!(rows[1].cells, [RawCell::Formula("=A".into()), empty()]);
        assert_eq!(
            rows[3].cells,
            [empty(), RawCell::Formula("=B".into()), RawCell::Data(Data::Float(1.0))]
        );
        assert_eq!(marks.take_note(), None);
    }

    /// A formula's saved 0, taken for no value, replaces the 0 calamine read (as a number, a
    /// text, or a percentage shown), never another value.
    #[test]
    fn a_placeholder_zero_is_replaced_and_nothing_else() {
        let zero = |col, text: &str| Mark::Formula {
            row: 0,
            col,
            text: text.into(),
            zero: true,
        };
        let cells = [
            RawCell::Data(Data::Float(0.0)),
            RawCell::Data(Data::Int(0)),
            RawCell::Data(Data::String("0".into())),
            RawCell::Text("0%".into()),
            RawCell::Data(Data::Float(2.5)),
            RawCell::Text("x".into()),
        ];
        let mut row = raw_row(0, cells.to_vec());
        for col in 0..7 {
            put(zero(col, "=A"), &mut row);
        }
        let f = || RawCell::Formula("=A".into());
        assert_eq!(row.cells, [f(), f(), f(), f(), cells[4].clone(), cells[5].clone()]);
        // Without the flag, a 0 read is a value.
        let mut row = raw_row(0, vec![RawCell::Data(Data::Float(0.0))]);
        put(
            Mark::Formula {
                row: 0,
                col: 0,
                text: "=A".into(),
                zero: false,
            },
            &mut row,
        );
        assert_eq!(row.cells, [RawCell::Data(Data::Float(0.0))]);
    }

    #[test]
    fn a_workbook_asking_to_be_calculated_when_opened_is_told() {
        let rels = r#"<Relationships><Relationship Id="rId1" Type=".../worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;
        for (calc, asks) in [
            (r#"<calcPr calcId="124519" fullCalcOnLoad="1"/>"#, true),
            (r#"<calcPr fullCalcOnLoad="true"></calcPr>"#, true),
            (r#"<calcPr calcId="191029"/>"#, false),
            (r#"<calcPr fullCalcOnLoad="0"/>"#, false),
            ("", false),
        ] {
            let book = SHEETS.replace("</workbook>", &format!("{calc}</workbook>"));
            let mut zip = package(&[
                ("xl/workbook.xml", book.as_str()),
                ("xl/_rels/workbook.xml.rels", rels),
                ("xl/worksheets/sheet1.xml", ""),
            ]);
            assert_eq!(
                sheet_part(&mut zip, "Cover"),
                Ok(("xl/worksheets/sheet1.xml".to_owned(), asks)),
                "{calc}"
            );
        }
    }

    #[test]
    fn a_workbook_that_cannot_be_searched_is_read_as_before_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("not.xlsx");
        std::fs::write(&path, "not a zip").unwrap();
        let mut marks = SheetMarks::start(File::open(&path), "Sheet1".into());
        let mut row = raw_row(5, vec![RawCell::Data(Data::Empty)]);
        marks.apply(&mut row);
        assert!(!row.hidden);
        let note = marks.take_note().unwrap_or_default();
        assert!(
            note.starts_with("sheet \"Sheet1\": rows hidden in the workbook and formulas saved without their computed values were not looked for ("),
            "{note}"
        );
        let mut marks = SheetMarks::start(File::open(dir.path().join("gone.xlsx")), "Sheet1".into());
        marks.apply(&mut row);
        assert!(marks.take_note().is_some());
    }
}

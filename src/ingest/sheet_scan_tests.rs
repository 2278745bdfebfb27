use super::*;

/// Hands its text over at most `most` bytes a read (a zip entry gives what it inflated).
struct Trickle<'a> {
    text: &'a [u8],
    most: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.most.min(out.len()).min(self.text.len());
        out[..n].copy_from_slice(&self.text[..n]);
        self.text = &self.text[n..];
        Ok(n)
    }
}

/// The marks of `xml`, read `most` bytes at a time in chunks of `chunk`; checks that no mark
/// comes for a row a step before said was done.
fn marks_of(xml: &str, chunk: usize, most: usize, zero_placeholder: bool) -> Vec<Mark> {
    let mut scanner = Scanner::new(
        Trickle {
            text: xml.as_bytes(),
            most,
        },
        chunk,
    )
    .zero_is_placeholder(zero_placeholder);
    let mut all = Vec::new();
    let mut through = 0;
    loop {
        let mut found = Vec::new();
        let step = scanner.step(&mut found).unwrap();
        for m in &found {
            assert!(m.row() >= through, "{m:?} after row {through} was done");
        }
        all.extend(found);
        match step {
            Some(t) => {
                assert!(t >= through, "through went back: {t} < {through}");
                through = t;
            }
            None => return all,
        }
    }
}

/// The marks of `xml`, the same however it is cut.
fn marks(xml: &str) -> Vec<Mark> {
    marks_zero(xml, false)
}

/// [`marks`], a formula's saved 0 taken for no value when `zero_placeholder`.
fn marks_zero(xml: &str, zero_placeholder: bool) -> Vec<Mark> {
    let whole = marks_of(xml, 1 << 20, usize::MAX, zero_placeholder);
    for chunk in [64, 97, 256] {
        for most in [1, 2, 3, 5, 8, 13, 64, usize::MAX] {
            assert_eq!(
                marks_of(xml, chunk, most, zero_placeholder),
                whole,
                "chunks of {chunk}, reads of {most}"
            );
        }
    }
    whole
}

fn sheet(rows: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:D9"/><cols><col min="2" max="2" hidden="1"/></cols><sheetData>{rows}</sheetData><autoFilter ref="A1:D9"><filterColumn colId="0"><filters><filter val="x"/></filters></filterColumn></autoFilter><rowBreaks count="1"><brk id="3"/></rowBreaks></worksheet>"#
    )
}

fn formula(row: u32, col: u32, text: &str) -> Mark {
    Mark::Formula {
        row,
        col,
        text: text.into(),
        zero: false,
    }
}

#[test]
fn hidden_rows_and_formulas_without_a_value_are_found_with_their_positions() {
    let xml = sheet(concat!(
        r#"<row r="1" spans="1:4"><c r="A1" t="inlineStr"><is><t>No</t></is></c><c r="B1" t="s"><v>0</v></c></row>"#,
        // Excel: a filtered-out row, a formula with its value.
        r#"<row r="2" spans="1:4" hidden="1" ht="15"><c r="A2"><v>1</v></c><c r="D2"><f>B2*C2</f><v>42.5</v></c></row>"#,
        // A program's: no value; an empty value (openpyxl); an empty text result is a value.
        r#"<row r="3"><c r="A3"><f>B3*C3</f></c><c r="B3"><f>SUM(A1:A2)</f><v></v></c><c r="C3" s="2"><f>X3</f><v/></c>"#,
        r#"<c r="D3" t="str"><f>IF(A3="","",A3)</f><v></v></c></row>"#,
        // LibreOffice's hidden row; a formula whose text holds entities; an inline string.
        r#"<row r="5" hidden="true"><c r="E5"><f>"a&amp;b"&amp;A5&lt;&gt;1</f></c><c r="F5" t="inlineStr"><f>A1</f><is><t>x</t></is></c></row>"#,
        // Hidden but empty: no cells to say it of.
        r#"<row r="6" hidden="1"/>"#,
        r#"<row r="7" hidden="0"><c r="A7"><f>1+1</f><v>2</v></c></row>"#,
    ));
    assert_eq!(
        marks(&xml),
        [
            Mark::Hidden { row: 1 },
            formula(2, 0, "=B3*C3"),
            formula(2, 1, "=SUM(A1:A2)"),
            formula(2, 2, "=X3"),
            Mark::Hidden { row: 4 },
            formula(4, 4, "=\"a&b\"&A5<>1"),
        ]
    );
}

#[test]
fn rows_and_cells_without_a_reference_are_counted_as_calamine_counts_them() {
    let xml = sheet(concat!(
        r#"<row><c><v>1</v></c><c><f>A1*2</f></c></row>"#,
        r#"<row hidden="1"><c r="C2"><v>1</v></c><c><v>2</v></c><c><f>D2+1</f></c></row>"#,
        r#"<row r="9"><c><f>A9</f></c></row>"#,
        r#"<row><c r="B10"/><c><f>B10</f></c></row>"#,
        r#"<row r="12"><c><f>A</f></c><c><v>1</v></c><c><f>B</f></c><c r="F12"><f>C</f></c><c><f>D</f></c></row>"#,
    ));
    assert_eq!(
        marks(&xml),
        [
            formula(0, 1, "=A1*2"),
            Mark::Hidden { row: 1 },
            formula(1, 4, "=D2+1"),
            formula(8, 0, "=A9"),
            formula(9, 2, "=B10"),
            formula(11, 0, "=A"),
            formula(11, 2, "=B"),
            formula(11, 5, "=C"),
            formula(11, 6, "=D"),
        ]
    );
}

#[test]
fn a_shared_formula_is_given_to_the_cells_that_share_it() {
    let xml = sheet(concat!(
        r#"<row r="2"><c r="D2"><f t="shared" ref="D2:D4" si="0">B2*C2</f></c></row>"#,
        r#"<row r="3"><c r="D3"><f t="shared" si="0"/></c></row>"#,
        r#"<row r="4"><c r="D4"><f t="shared" si="0"></f><v>9</v></c></row>"#,
        // Excel's: the first cell with its value, the others without (edited by a program).
        r#"<row r="5"><c r="E5"><f t="shared" ref="E5:E6" si="1">$A$1+A5</f><v>3</v></c></row>"#,
        r#"<row r="6"><c r="E6"><f t="shared" si="1"/></c><c r="F6"><f t="shared" si="7"/></c></row>"#,
    ));
    assert_eq!(
        marks(&xml),
        [
            formula(1, 3, "=B2*C2"),
            formula(2, 3, "=B3*C3"),
            formula(5, 4, "=$A$1+A6"),
            // Its first cell is not in the sheet: a formula, not known which.
            formula(5, 5, "="),
        ]
    );
}

#[test]
fn a_namespace_prefix_and_spaces_between_tags_are_read() {
    let xml = concat!(
        r#"<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main">"#,
        "<x:sheetData>\n  <x:row r=\"1\" hidden=\"1\">\n    <x:c r=\"A1\">\n      <x:f>1+1</x:f>\n    </x:c>\n",
        "    <x:c r=\"B1\">\n      <x:f>2+2</x:f>\n      <x:v>4</x:v>\n    </x:c>\n  </x:row>\n</x:sheetData></x:worksheet>"
    );
    assert_eq!(marks(xml), [Mark::Hidden { row: 0 }, formula(0, 0, "=1+1")]);
    // The prefix is the sheet's: `<row>` of another prefix is not its row.
    assert_eq!(
        marks(&xml.replace("<x:row r=\"1\"", "<row r=\"1\"")),
        [formula(0, 0, "=1+1")]
    );
}

#[test]
fn a_long_formula_is_shortened_and_a_sheet_cut_short_ends_the_search() {
    let long = format!("SUM({})", vec!["A1"; 40].join(","));
    let xml = sheet(&format!(r#"<row r="1"><c r="A1"><f>{long}</f></c></row>"#));
    let [Mark::Formula { text, .. }] = &marks(&xml)[..] else {
        panic!("{:?}", marks(&xml));
    };
    assert!(text.starts_with("=SUM(A1,A1,") && text.ends_with('…'), "{text}");
    assert_eq!(text.chars().count(), 61);
    // Cut anywhere: what was read whole is found, and the search ends.
    let xml = sheet(r#"<row r="1" hidden="1"><c r="A1"><f>B1</f></c></row><row r="2"><c r="A2"><f>B2</f></c></row>"#);
    let whole = marks(&xml);
    for cut in 0..xml.len() {
        let found = marks_of(&xml[..cut], 64, 7, false);
        assert!(whole.starts_with(&found), "cut at {cut}: {found:?}");
    }
    assert_eq!(marks_of("", 64, 7, false), []);
    assert_eq!(marks_of("<worksheet><sheetData/></worksheet>", 64, 7, false), []);
}

#[test]
fn cell_references_and_attributes() {
    assert_eq!(cell_ref(b"A1"), Some((0, 0)));
    assert_eq!(cell_ref(b"AB12"), Some((11, 27)));
    assert_eq!(cell_ref(b"XFD1048576"), Some((1_048_575, 16_383)));
    assert_eq!(cell_ref(b"A0"), None);
    assert_eq!(cell_ref(b"12"), None);
    assert_eq!(cell_ref(b"AAAAAAAAAAAAAAAAAAAAAAAAAA1"), None);
    let tag = br#"<c r="B2" s='3' t = "str" x:y="a>b""#;
    assert_eq!(attr(tag, b"r"), Some(&b"B2"[..]));
    assert_eq!(attr(tag, b"s"), Some(&b"3"[..]));
    assert_eq!(attr(tag, b"t"), Some(&b"str"[..]));
    assert_eq!(attr(tag, b"y"), None);
    assert_eq!(attr(tag, b"x:y"), Some(&b"a>b"[..]));
    assert_eq!(attr(b"<c", b"r"), None);
    assert_eq!(tag_end(br#"<c a="x>y">"#, 0), Some(10));
}

/// In a workbook that asks to be calculated when opened, a formula's saved value 0 is what
/// XlsxWriter and rust_xlsxwriter put there, not a result: a number or text result of exactly
/// 0; any other value, a true/false or error result, and every value in other workbooks stand.
#[test]
fn a_saved_zero_is_no_value_only_where_the_workbook_asks_to_be_calculated() {
    let xml = sheet(concat!(
        r#"<row r="2"><c r="A2"><f>B2*C2</f><v>0</v></c><c r="B2"><f>B3</f><v> 0 </v></c>"#,
        r#"<c r="C2" t="str"><f>"0"&amp;""</f><v>0</v></c><c r="D2" t="n"><f>D3</f><v>0</v></c></row>"#,
        r#"<row r="3"><c r="A3"><f>B3</f><v>0.5</v></c><c r="B3" t="b"><f>A3=1</f><v>0</v></c>"#,
        r#"<c r="C3" t="e"><f>1/0</f><v>0</v></c><c r="D3" t="str"><f>""</f><v></v></c><c r="E3"><v>0</v></c></row>"#,
    ));
    let zero = |row, col, text: &str| Mark::Formula {
        row,
        col,
        text: text.into(),
        zero: true,
    };
    assert_eq!(
        marks_zero(&xml, true),
        [
            zero(1, 0, "=B2*C2"),
            zero(1, 1, "=B3"),
            zero(1, 2, "=\"0\"&\"\""),
            zero(1, 3, "=D3")
        ]
    );
    assert_eq!(marks(&xml), []);
}

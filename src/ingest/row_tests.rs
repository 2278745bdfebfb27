//! Tests of `row.rs`.
use super::*;

proptest::proptest! {
    /// The same text as `normalize().to_string()` and chrono's `%Y-%m-%d`.
    #[test]
    fn number_and_date_texts_are_the_crates(m in proptest::num::i64::ANY, wide in proptest::num::i128::ANY, scale in 0u32..29, days in -1_000_000i32..4_000_000) {
        for d in [Decimal::new(m, scale.min(20)), Decimal::from_i128_with_scale(wide >> 32, scale)] {
            proptest::prop_assert_eq!(decimal_text(&d), d.normalize().to_string());
        }
        let date = NaiveDate::from_num_days_from_ce_opt(days).unwrap_or_default();
        proptest::prop_assert_eq!(Cell::Date(date).to_text(), date.format("%Y-%m-%d").to_string());
    }
}

fn src() -> SourceRef {
    SourceRef {
        file: Arc::from("t.csv"),
        sheet: None,
        line: 2,
    }
}

fn fill(text: &str, ends: &[usize], width: usize) -> Vec<Cell> {
    Row::from_text(src(), text, ends, width, 0)
        .map(|r| r.to_cells())
        .unwrap_or_default()
}

#[test]
fn a_spreadsheet_error_written_as_text_is_read_as_that_error() {
    let row = Row::from_text(
        src(),
        "#REF!,#n/a,#REFS,# REF!,#DIV/0!x,#",
        &[5, 9, 14, 20, 28, 29],
        6,
        1,
    )
    .unwrap();
    let cells: Vec<CellRef<'_>> = row.iter().collect();
    assert_eq!(
        cells,
        [
            CellRef::Error("#REF!"),
            CellRef::Error("#n/a"),
            CellRef::Text("#REFS"),
            CellRef::Text("# REF!"),
            CellRef::Text("#DIV/0!x"),
            CellRef::Text("#"),
        ]
    );
    assert_eq!(row.get(0).as_text(), "#REF!", "its text is the field's");
}

#[test]
fn cells_are_padded_kept_and_trailing_empties_dropped() {
    let t = |s: &str| Cell::Text(s.into());
    assert_eq!(fill("ab", &[1, 2], 3), vec![t("a"), t("b"), Cell::Empty]);
    assert_eq!(fill("abc", &[1, 2, 3], 2), vec![t("a"), t("b"), t("c")]);
    assert_eq!(fill("ab", &[1, 2, 2, 2], 2), vec![t("a"), t("b")]);
    assert_eq!(fill("a b", &[1, 1, 3], 3), vec![t("a"), Cell::Empty, t(" b")]);
    assert_eq!(fill("", &[], 0), Vec::<Cell>::new());
    assert_eq!(fill("a", &[1], 3)[2], Cell::Empty);
}

#[test]
fn split_character_is_refused() {
    assert!(Row::from_text(src(), "é", &[1, 2], 2, 0).is_none());
    assert!(Row::from_text(src(), "é,b", &[1, 2], 2, 1).is_none());
    assert!(Row::from_text(src(), "é,b", &[2, 3], 2, 1).is_some());
    // Joined text: a field ends at its delimiter (ASCII) or at the end of the text, not
    // before a character of the text, even one that starts there.
    assert!(Row::from_text(src(), "aé", &[1, 2], 2, 1).is_none());
    assert!(Row::from_text(src(), "a,é", &[1, 3], 2, 1).is_some());
    assert!(
        Row::from_text(src(), "a,b", &[1, 0], 2, 1).is_none(),
        "an end before its start"
    );
    assert!(
        Row::from_text(src(), "a,b", &[1, 3], 2, 1).is_none(),
        "an end past the text"
    );
}

#[test]
fn a_plain_span_is_the_cells_text_with_their_delimiters_and_only_for_a_plain_record() {
    let row = Row::from_text(src(), "ab,,cd,e", &[2, 2, 4, 5], 4, 1).unwrap();
    assert_eq!(row.plain_span(0, 0), Some("ab"));
    assert_eq!(row.plain_span(0, 2), Some("ab,,cd"));
    assert_eq!(row.plain_span(1, 1), Some(""));
    assert_eq!(row.plain_span(2, 3), Some("cd,e"));
    assert_eq!(row.plain_span(3, 4), None, "past the last cell");
    assert_eq!(row.plain_span(2, 1), None);
    // Cells stored back to back (gap 0) or as cells: no span (`ab`+`c` and `a`+`bc` would be
    // the same text).
    let packed = Row::from_text(src(), "abcde", &[2, 2, 4, 5], 4, 0).unwrap();
    assert_eq!(packed.plain_span(0, 2), None);
    assert_eq!(Row::new(src(), row.to_cells()).plain_span(0, 2), None);
}

#[test]
fn a_joined_record_is_its_own_text_only_with_a_field_per_header() {
    let row = Row::from_text(src(), "a,,c", &[1, 1, 2], 3, 1).unwrap();
    assert_eq!(row.joined(), Some("a,,c"));
    assert_eq!(
        row.to_cells(),
        vec![Cell::Text("a".into()), Cell::Empty, Cell::Text("c".into())]
    );
    // Padded to the headers: the text is not the result's cells any more.
    let short = Row::from_text(src(), "a,b", &[1, 2], 3, 1).unwrap();
    assert_eq!(short.joined(), None);
    assert_eq!(short.len(), 3);
    // The same cells held as text or as cells make equal rows.
    assert_eq!(row, Row::new(src(), row.to_cells()));
    assert_ne!(row, short);
    let mut cells = row.clone();
    cells.cells_mut().push(Cell::Bool(true));
    assert_eq!(cells.len(), 1, "filling cells replaces the text");
    assert_eq!(cells.joined(), None);
}

proptest::proptest! {
    /// Whatever the fields and the header count, a record read as its fields back to back
    /// or joined by `,` gives the cells of the fields: empty fields are empty cells, trailing
    /// empty fields beyond the headers are dropped, and short rows are padded.
    #[test]
    fn text_rows_hold_their_fields(fields in proptest::collection::vec("[a-zé ]{0,4}", 0..8), width in 0usize..10) {
        let mut packed = String::new();
        let mut ends = Vec::new();
        for f in &fields {
            packed.push_str(f);
            ends.push(packed.len());
        }
        let joined = fields.join(",");
        let mut expected: Vec<Cell> = fields
            .iter()
            .map(|f| if f.is_empty() { Cell::Empty } else { Cell::Text(f.as_str().into()) })
            .collect();
        while expected.len() > width && expected.last() == Some(&Cell::Empty) {
            expected.pop();
        }
        while expected.len() < width {
            expected.push(Cell::Empty);
        }
        let a = Row::from_text(src(), &packed, &ends, width, 0).unwrap();
        let b = Row::from_text(src(), &joined, &ends, width, 1).unwrap();
        proptest::prop_assert_eq!(a.to_cells(), expected.clone());
        proptest::prop_assert_eq!(b.to_cells(), expected.clone());
        proptest::prop_assert_eq!(a.len(), expected.len());
        proptest::prop_assert_eq!(b.joined().is_some(), fields.len() == width);
        for (i, c) in expected.iter().enumerate() {
            proptest::prop_assert_eq!(a.get(i), c.borrowed());
        }
        proptest::prop_assert_eq!(a.get(expected.len() + 3), CellRef::Empty);
    }
}

#[test]
fn small_and_negative_numbers() {
    for (d, text) in [
        (Decimal::new(5, 2), "0.05"),
        (Decimal::new(-50, 2), "-0.5"),
        (Decimal::new(1200, 2), "12"),
        (Decimal::new(0, 3), "0"),
        (Decimal::new(-1, 28), "-0.0000000000000000000000000001"),
    ] {
        assert_eq!(decimal_text(&d), text);
    }
}

//! `Row::joined`: a plain `,`-separated record is handed on as the line the result CSV writes
//! for its cells, and that line is exactly what the result CSV writes from the cells one by one.

use super::*;
use invoicedrop::results::{ResultRow, ResultWriter, RowStatus};
use proptest::prelude::*;

/// The result CSV of `rows`, written from their cells alone or from the rows as read (with their
/// joined lines).
fn result_csv(headers: &[String], rows: &[Row], with_joined: bool) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut w = ResultWriter::create(dir.path(), Path::new("in/sales.csv"), headers).unwrap();
    for row in rows {
        let result = ResultRow::new(RowStatus::Valid, "2026-11-21T09:00:00Z");
        if with_joined {
            // As the pipeline writes it: the record's own line when it has one.
            w.write_input_row(Some(row), &result, Some(row.source.line)).unwrap();
        } else {
            w.write_row(&row.to_cells(), &result, Some(row.source.line)).unwrap();
        }
    }
    w.finish().unwrap();
    std::fs::read(dir.path().join("sales.result.csv")).unwrap()
}

/// A record as the csv crate writes it; `always` quotes every field.
fn record(fields: &[String], always: bool) -> Vec<u8> {
    let style = if always {
        csv::QuoteStyle::Always
    } else {
        csv::QuoteStyle::Necessary
    };
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .quote_style(style)
        .from_writer(Vec::new());
    w.write_record(fields).unwrap();
    w.into_inner().unwrap()
}

fn texts(row: &Row) -> Vec<String> {
    row.to_cells().iter().map(Cell::to_text).collect()
}

#[test]
fn plain_records_carry_their_line_and_quoted_or_ragged_ones_do_not() {
    let data = "No,Name,Amount\r\nA-1,شركة,10.50\r\nA-2,\"Doe, J\",3\nA-3,,\nA-4,x\nA-5,x,1,9\n\"A-6\",y,2\n";
    let (_d, p) = write("sales.csv", data.as_bytes());
    let mut reader = open(&p, &ReadOptions::default());
    let rows = rows(&mut reader);
    let joined: Vec<Option<&str>> = rows.iter().map(|r| r.joined()).collect();
    assert_eq!(
        joined,
        vec![Some("A-1,شركة,10.50"), None, Some("A-3,,"), None, None, None],
        "quoted (A-2, A-6), short (A-4) and long (A-5) records have none"
    );
    let headers = reader.headers().to_vec();
    assert_eq!(result_csv(&headers, &rows, true), result_csv(&headers, &rows, false));
}

#[test]
fn other_delimiters_carry_no_line() {
    let (_d, p) = write("sales.csv", "No;Name\nA-1;x\nA-2;y\n".as_bytes());
    let rows = rows(&mut open(&p, &ReadOptions::default()));
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r.joined().is_none()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the fields (commas, quotes, line breaks, spaces, Arabic, empty) and however the
    /// records are quoted or sized, a row's joined line is its cells joined by `,`, it is there
    /// for every plain record of the header width, and the result CSV is the same with or
    /// without it.
    #[test]
    fn the_joined_line_is_the_cells_as_the_result_csv_writes_them(
        width in 1usize..5,
        records in proptest::collection::vec(
            (proptest::collection::vec("[a ,\"\r\nم0-9]{0,4}", 1..6), any::<bool>()),
            1..12,
        ),
    ) {
        let headers: Vec<String> = (0..width).map(|i| format!("c{i}")).collect();
        let mut data = record(&headers, false);
        let mut expected = Vec::new();
        for (fields, always) in &records {
            data.extend(record(fields, *always));
            if fields.concat().trim().is_empty() {
                continue; // a blank record is skipped by the reader
            }
            let plain = !always
                && fields.len() == width
                && !(width == 1 && fields[0].is_empty())
                && fields.iter().all(|f| !f.contains([',', '"', '\r', '\n']));
            expected.push(plain);
        }
        let (_d, p) = write("sales.csv", &data);
        let opts = ReadOptions { delimiter: Some(b','), ..ReadOptions::default() };
        let mut reader = open(&p, &opts);
        let rows = rows(&mut reader);
        let has: Vec<bool> = rows.iter().map(|r| r.joined().is_some()).collect();
        prop_assert_eq!(has, expected);
        for row in &rows {
            if let Some(j) = row.joined() {
                prop_assert_eq!(j.to_string(), texts(row).join(","));
            }
        }
        prop_assert_eq!(result_csv(&headers, &rows, true), result_csv(&headers, &rows, false));
    }
}

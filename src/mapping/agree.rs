//! The rows of one document must agree on its document fields.
//!
//! A document's fields (number, date, buyer, currency, the export's totals...) are read from its
//! first row; from its first row whose cells are in place when that one's may be shifted (more
//! cells than headers: `17,678.80` unquoted), and a row whose cells may be shifted is compared
//! with nothing (its one finding says so). Exports either repeat them on every line row (Xero, QuickBooks, Zoho, Sage) or leave
//! them blank on continuation rows (Odoo, ERPNext). A later row that says something else in such a
//! column is an export the tool cannot read safely: two invoices sharing a number, a line moved
//! into the wrong invoice, an edited cell. Taking the first row's value silently would issue a
//! document the export does not describe, so the row gets an error naming the column, both values
//! and the first row's line, and the document is not sent.
//!
//! The columns a skip rule reads are compared too (their texts, ignoring case, as the rule
//! does): a document whose first row says `Paid` and another row `Voided` is not sent on the
//! first row's word.

use super::Issue;
use super::apply::Bound;
use super::fields::FieldId;
use super::load::norm_value;
use crate::ingest::{CellRef, Row};
use crate::text::Trimmed;

/// True when two cells hold the same text: equal, or equal once trimmed (a spreadsheet's number
/// and the same number typed as text included). The cheap test, made for every cell.
fn same_text(a: CellRef<'_>, b: CellRef<'_>) -> bool {
    match (a, b) {
        (CellRef::Text(x), CellRef::Text(y)) => x == y || x.trimmed() == y.trimmed(),
        (x, y) if x == y => true,
        (x, y) => x.as_text().trimmed() == y.as_text().trimmed(),
    }
}

/// True when the two rows give every field in `fields` the same value (for a column only a skip
/// rule reads, the same text but for case): texts that differ only in
/// how they are written (`2026-11-03` and `11/03/2026` where the mapping reads both formats,
/// `15` and `15.00`, two spellings the mapping's `map` turns into one code) agree.
fn same_values(bound: &Bound, fields: &[FieldId], a: &Row, b: &Row, column: usize) -> bool {
    if fields.is_empty() {
        // A skip rule's column: its rule compares texts ignoring case, so do these.
        let norm = |r: &Row| norm_value(&r.get(column).as_text());
        return norm(a) == norm(b);
    }
    let header = |r: &Row| bound.header_row(r).ok().flatten();
    let (ha, hb) = (header(a), header(b));
    fields.iter().all(|&f| {
        let value = |r: &Row, h: Option<&Row>| bound.field(f, r, h).map(|s| s.map(|s| s.value));
        match (value(a, ha), value(b, hb)) {
            (Ok(x), Ok(y)) => x == y,
            // The first row's value cannot be read: that is reported on the first row, which is
            // the row to correct, not this one.
            (Err(_), _) => true,
            // This row's cannot: nothing else reports it.
            (Ok(_), Err(_)) => false,
        }
    })
}

/// One error per row and column where a line row (`rows`: index in the document's rows, the
/// row) gives a document field another value than the row the document is read from (`reference`,
/// its index: the first row, or the first whose cells are in place) does. Rows whose cells may be
/// shifted are not compared.
pub(super) fn check(bound: &Bound, rows: &[(usize, &Row)], reference: usize, issues: &mut Vec<(Option<usize>, Issue)>) {
    let Some(&(_, first)) = rows.iter().find(|(i, _)| *i == reference) else {
        return;
    };
    let columns = bound.document_columns();
    if rows.len() < 2 || columns.is_empty() {
        return;
    }
    // The rows above the reference, when there are, have their cells shifted.
    let which = if rows.first().is_some_and(|(i, _)| *i == reference) {
        "this document's first row"
    } else {
        "this document's first row whose cells are in place (the rows above it may have theirs shifted)"
    };
    let firsts: Vec<CellRef<'_>> = columns.iter().map(|(c, _)| first.get(*c)).collect();
    let runs = bound.document_runs();
    // The columns a short reference row (a line cut before its last cells) has no cell for and
    // another row fills: said once each, on the reference row, the one to complete.
    let mut lacking: Vec<usize> = Vec::new();
    for &(idx, row) in rows {
        if idx == reference || row.cells_shifted() {
            continue;
        }
        // A run of adjacent columns whose text is the same in both rows (a plain CSV line
        // repeating its document's cells, the usual case) has the same cells: one comparison
        // for the run instead of one per cell.
        let differ = runs.iter().filter(|r| {
            let (a, b) = (first.plain_span(r.first, r.last), row.plain_span(r.first, r.last));
            !matches!((a, b), (Some(a), Some(b)) if a == b)
        });
        let at = differ.flat_map(|r| r.at.clone());
        for ((c, fields), &there) in at.map(|k| (&columns[k], &firsts[k])) {
            let here = row.get(*c);
            // Equal cells first (the usual case: the derived comparison, inlined; starting with
            // `same_text` instead cost 0.3 % more instructions), then blanks, then values.
            if here == there || here.is_blank() || same_text(here, there) || same_values(bound, fields, first, row, *c)
            {
                continue;
            }
            let was = there.as_text();
            let was = was.trimmed();
            // As the file's other messages name it: a line of text, a row of a sheet.
            let line = format!(
                "{} {}",
                if first.source.sheet.is_some() { "row" } else { "line" },
                first.source.line
            );
            let label = || Some(bound.column_label(*c).to_string());
            if let Some(e) = super::apply::invisible_difference(label(), here.as_text().trimmed(), was, &line, which) {
                issues.push((Some(idx), e));
                continue;
            }
            if let Some(cells) = first.fields_read().filter(|n| *c >= *n) {
                if !lacking.contains(c) {
                    lacking.push(*c);
                    issues.push((Some(reference), short_reference(bound, *c, cells, here, row, which)));
                }
                continue;
            }
            let said = if was.is_empty() {
                "leaves it blank".to_string()
            } else {
                format!("says {was:?}")
            };
            issues.push((
                Some(idx),
                Issue::error(
                    "INV-MAP-CONFLICT",
                    label(),
                    Some(here.as_text().trimmed().to_string()),
                    format!(
                        "{line}, {which}, {said}; a document is read from that row, so its other rows must repeat \
                         what it says in this column or leave it blank: correct the export, or give these rows a \
                         document number of their own"
                    ),
                ),
            ));
        }
    }
}

/// The error of a reference row with no cell for column `c` (it has `cells`), which `row` fills
/// with `here`: the row to complete is the reference row.
fn short_reference(bound: &Bound, c: usize, cells: usize, here: CellRef<'_>, row: &Row, which: &str) -> Issue {
    let label = bound.column_label(c).to_string();
    Issue::error(
        "INV-MAP-CONFLICT",
        Some(label.clone()),
        None,
        format!(
            "this line ({which}) has {cells} cells where the header has {} columns, so it gives no {label}, and a \
             document is read from this row; line {} gives it as {:?}: complete this line in the export (it was cut \
             before its last cells) and run again",
            bound.headers.width(),
            row.source.line,
            here.as_text().trimmed()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::tests::{bound, group_all, rows_from_csv};
    use crate::mapping::{Unit, build};
    use rust_decimal::Decimal;

    #[test]
    fn cells_with_the_same_text() {
        assert!(same_text(CellRef::Text("SAR"), CellRef::Text("SAR")));
        assert!(same_text(CellRef::Text(" SAR "), CellRef::Text("SAR")));
        assert!(same_text(CellRef::Number(Decimal::new(15, 0)), CellRef::Text("15")));
        assert!(same_text(
            CellRef::Number(Decimal::new(15, 0)),
            CellRef::Number(Decimal::new(1500, 2))
        ));
        assert!(same_text(CellRef::Empty, CellRef::Text("  ")));
        assert!(!same_text(CellRef::Text("SAR"), CellRef::Text("USD")));
        assert!(!same_text(CellRef::Text("sar"), CellRef::Text("SAR")));
        assert!(!same_text(
            CellRef::Number(Decimal::new(15, 0)),
            CellRef::Number(Decimal::new(16, 0))
        ));
    }

    const MAPPING: &str = r#"
[defaults]
date_format = ["%d/%m/%Y", "%Y-%m-%d"]
[fields]
number = "No"
issue_date = "Date"
currency = { column = "Cur", default = "SAR", map = { "Riyal" = "SAR" } }
buyer.name = "Customer"
erp.total = { column = "Total", optional = true }
line.item_name = "Item"
line.quantity = "Qty"
line.unit_price = "Price"
line.tax = { column = "Tax", default = "15%" }
"#;

    /// The conflicts found in the first document of `rows` (made by `rows_from_csv` from
    /// `header`) read with `mapping`: (row index in the document, column, value, message).
    fn conflicts_in(mapping: &str, header: &[Vec<String>], rows: Vec<Row>) -> Vec<(usize, String, String, String)> {
        let b = bound(mapping, header);
        let units = group_all(&b, rows);
        let Some(Unit::Document(d)) = units.first() else {
            panic!("no document in {units:?}");
        };
        assert!(d.skip.is_none(), "the first row decides: {:?}", d.skip);
        let built = build(d, &b, &std::sync::Arc::new(crate::model::example::seller()));
        built
            .issues
            .into_iter()
            .filter(|(_, i)| i.code == "INV-MAP-CONFLICT")
            .map(|(r, i)| {
                assert_eq!(i.severity, crate::validate::Severity::Error);
                (r.unwrap(), i.column.unwrap(), i.value.unwrap(), i.message)
            })
            .collect()
    }

    /// [`conflicts_in`] a CSV text read with [`MAPPING`].
    fn conflicts(csv: &str) -> Vec<(usize, String, String, String)> {
        let (h, rows) = rows_from_csv(csv, 1);
        conflicts_in(MAPPING, &h, rows)
    }

    const HEAD: &str = "No,Date,Cur,Customer,Total,Item,Qty,Price,Tax\n";

    #[test]
    fn repeated_or_blank_document_fields_agree() {
        let csv = format!(
            "{HEAD}A1,05/11/2026,SAR,Al Ofuq,34.50,Pen,2,10,\n\
             A1,05/11/2026,SAR,Al Ofuq,34.50,Cup,1,10,\n\
             A1,,,,,Mug,1,10,\n\
             A1, 05/11/2026 ,SAR ,Al Ofuq,34.5,Box,1,0,\n"
        );
        assert_eq!(conflicts(&csv), vec![]);
    }

    #[test]
    fn the_same_value_written_another_way_agrees() {
        // Another date format the mapping reads, a code its `map` gives, the same amount.
        let csv = format!(
            "{HEAD}A1,05/11/2026,SAR,Al Ofuq,34.50,Pen,2,10,\n\
             A1,2026-11-05,Riyal,Al Ofuq,34.500,Cup,1,10,\n"
        );
        assert_eq!(conflicts(&csv), vec![]);
    }

    #[test]
    fn a_row_that_contradicts_its_first_row_is_an_error_naming_both_values() {
        let csv = format!(
            "{HEAD}A1,05/11/2026,SAR,Al Ofuq,34.50,Pen,2,10,\n\
             A1,05/11/2026,USD,Al Ofuq,34.50,Cup,1,10,\n\
             A1,06/11/2026,SAR,Gulf Co,34.50,Mug,1,10,\n"
        );
        let found = conflicts(&csv);
        let short: Vec<(usize, &str, &str)> = found.iter().map(|(r, c, v, _)| (*r, c.as_str(), v.as_str())).collect();
        assert_eq!(
            short,
            vec![(1, "Cur", "USD"), (2, "Date", "06/11/2026"), (2, "Customer", "Gulf Co")]
        );
        assert!(
            found[0].3.contains("line 2, this document's first row, says \"SAR\""),
            "{}",
            found[0].3
        );
        assert!(found[0].3.contains("correct the export"), "{}", found[0].3);
    }

    /// Mark `row` as the reader does a row with more cells than headers.
    fn shift(row: &mut Row) {
        row.set_problem(crate::ingest::ReadProblem {
            code: "INV-ROW-CELLS",
            column: None,
            value: None,
            message: "more cells than headers".into(),
        });
    }

    #[test]
    fn a_first_row_with_shifted_cells_is_not_what_the_others_are_compared_with() {
        // `1,150.00` unquoted in A1's first row: its Cur and Customer read the cells beside them.
        let (h, mut rows) = rows_from_csv(
            &format!(
                "{HEAD}A1,05/11/2026,Al Ofuq,34.50,Pen,2,10,,\n\
                 A1,05/11/2026,SAR,Al Ofuq,34.50,Cup,1,10,\n\
                 A1,05/11/2026,SAR,Al Ofuq,34.50,Mug,1,10,\n\
                 A1,05/11/2026,USD,Al Ofuq,34.50,Box,1,10,\n"
            ),
            1,
        );
        shift(&mut rows[0]);
        let found = conflicts_in(MAPPING, &h, rows.clone());
        let short: Vec<(usize, &str, &str)> = found.iter().map(|(r, c, v, _)| (*r, c.as_str(), v.as_str())).collect();
        // The second row is the reference: the fourth contradicts it, the first is not compared.
        assert_eq!(short, vec![(3, "Cur", "USD")]);
        assert!(
            found[0]
                .3
                .starts_with("line 3, this document's first row whose cells are in place (the rows above it"),
            "{}",
            found[0].3
        );
        // The document's fields are the second row's.
        let b = bound(MAPPING, &h);
        let units = group_all(&b, rows);
        let Some(Unit::Document(d)) = units.first() else {
            panic!("{units:?}");
        };
        assert_eq!(d.reference().map(|(i, _)| i), Some(1));
        let built = build(d, &b, &std::sync::Arc::new(crate::model::example::seller()));
        let doc = built.document.expect("built");
        assert_eq!(doc.doc_currency_code.as_str(), "SAR");
        assert_eq!(doc.customer_info.registration_name, "Al Ofuq");
    }

    #[test]
    fn rows_with_shifted_cells_are_compared_with_nothing() {
        let csv = format!(
            "{HEAD}A1,05/11/2026,SAR,Al Ofuq,34.50,Pen,2,10,\n\
             A1,05/11/2026,Al Ofuq,34.50,Cup,1,10,,\n\
             A1,05/11/2026,SAR,Al Ofuq,34.50,Mug,1,10,\n"
        );
        // A later row's: not compared (its one finding is that its cells may be shifted).
        let (h, mut rows) = rows_from_csv(&csv, 1);
        shift(&mut rows[1]);
        assert_eq!(conflicts_in(MAPPING, &h, rows.clone()), vec![]);
        // Every row's: the first is the reference, and the others are not compared with it.
        for r in &mut rows {
            shift(r);
        }
        let b = bound(MAPPING, &h);
        let units = group_all(&b, rows.clone());
        let Some(Unit::Document(d)) = units.first() else {
            panic!("{units:?}");
        };
        assert_eq!(d.reference().map(|(i, _)| i), Some(0));
        assert_eq!(conflicts_in(MAPPING, &h, rows), vec![]);
    }

    #[test]
    fn a_skip_rule_reads_the_row_the_document_is_read_from() {
        // The first row's shifted cells put `Voided` in Status; the document's rows say `Paid`.
        let m = format!("{MAPPING}\n[[skip]]\ncolumn = \"Status\"\nequals = [\"Voided\"]\nreason = \"voided\"\n");
        let (h, mut rows) = rows_from_csv(
            "No,Date,Cur,Customer,Total,Item,Qty,Price,Tax,Status\n\
             A1,05/11/2026,SAR,Al Ofuq,,Pen,2,10,,Voided\n\
             A1,05/11/2026,SAR,Al Ofuq,,Cup,1,10,,Paid\n",
            1,
        );
        shift(&mut rows[0]);
        // `conflicts_in` asserts the document is not skipped.
        assert_eq!(conflicts_in(&m, &h, rows), vec![]);
    }

    #[test]
    fn a_sheets_first_row_is_named_as_a_row() {
        let (h, mut rows) = rows_from_csv(
            &format!("{HEAD}A1,05/11/2026,SAR,Al Ofuq,,Pen,2,10,\nA1,05/11/2026,USD,Al Ofuq,,Cup,1,10,\n"),
            1,
        );
        for r in &mut rows {
            r.source.sheet = Some("Invoices".into());
        }
        let found = conflicts_in(MAPPING, &h, rows);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].3.starts_with("row 2, this document's first row, says \"SAR\""),
            "{}",
            found[0].3
        );
    }

    #[test]
    fn a_value_where_the_first_row_is_blank_is_a_conflict() {
        let csv = format!(
            "{HEAD}A1,05/11/2026,SAR,Al Ofuq,,Pen,2,10,\n\
             A1,05/11/2026,SAR,Al Ofuq,99.00,Cup,1,10,\n"
        );
        let found = conflicts(&csv);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].1.as_str(), found[0].2.as_str()), ("Total", "99.00"));
        assert!(found[0].3.contains("leaves it blank"), "{}", found[0].3);
    }

    #[test]
    fn an_unreadable_value_is_reported_where_it_is() {
        // On the first row: its own error, and the rows repeating the right date are not blamed.
        let csv = format!(
            "{HEAD}A1,31/02/2026,SAR,Al Ofuq,,Pen,2,10,\n\
             A1,05/11/2026,SAR,Al Ofuq,,Cup,1,10,\n"
        );
        assert_eq!(conflicts(&csv), vec![]);
        // On a later row: a conflict, as nothing else reads that cell.
        let csv = format!(
            "{HEAD}A1,05/11/2026,SAR,Al Ofuq,,Pen,2,10,\n\
             A1,31/02/2026,SAR,Al Ofuq,,Cup,1,10,\n"
        );
        let found = conflicts(&csv);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0, found[0].2.as_str()), (1, "31/02/2026"));
    }

    #[test]
    fn a_skip_rules_column_is_compared_ignoring_case() {
        let m = format!("{MAPPING}\n[[skip]]\ncolumn = \"Status\"\nequals = [\"Voided\"]\nreason = \"voided\"\n");
        let (h, rows) = rows_from_csv(
            "No,Date,Cur,Customer,Total,Item,Qty,Price,Tax,Status\n\
             A1,05/11/2026,SAR,Al Ofuq,,Pen,2,10,,Paid\n\
             A1,05/11/2026,SAR,Al Ofuq,,Cup,1,10,,PAID\n\
             A1,05/11/2026,SAR,Al Ofuq,,Mug,1,10,,Voided\n\
             A1,05/11/2026,SAR,Al Ofuq,,Box,1,10,,\n",
            1,
        );
        let found = conflicts_in(&m, &h, rows);
        let short: Vec<(usize, &str, &str)> = found.iter().map(|(r, c, v, _)| (*r, c.as_str(), v.as_str())).collect();
        assert_eq!(short, vec![(2, "Status", "Voided")]);
    }

    #[test]
    fn columns_that_also_feed_a_line_field_are_not_compared() {
        // `Item` names the line and is also the document's note here: it differs on every row
        // by design.
        let m = MAPPING.replace(
            "line.item_name = \"Item\"",
            "line.item_name = \"Item\"\nnote = \"Item\"",
        );
        let (h, _) = rows_from_csv(HEAD, 1);
        let b = bound(&m, &h);
        let cols: Vec<usize> = b.document_columns().iter().map(|(c, _)| *c).collect();
        // No, Date, Cur, Customer, Total; not Item (5).
        assert_eq!(cols, vec![0, 1, 2, 3, 4]);
    }
}

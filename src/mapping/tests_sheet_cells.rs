//! Tests of what a workbook says beyond its cells' values, as the mapping reads it: a formula
//! saved without its computed value (an error cell of the formula's text), a hidden row.

use super::*;
use crate::ingest::Cell;
use crate::mapping::fields::fid;
use crate::mapping::tests::{SIMPLE, bound, group_all, rows_from_csv};

const ROWS: &str = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                    A1,05/11/2026,X,,Pen,2,5,\nA1,05/11/2026,X,,Cup,1,3,\nA2,05/11/2026,X,,Mug,1,4,\n";

/// `ROWS`, with cell `col` of data row `nth` (0-based) holding `cell`.
fn rows_with(nth: usize, col: usize, cell: Cell) -> (Vec<Vec<String>>, Vec<Row>) {
    let (h, mut rows) = rows_from_csv(ROWS, 1);
    let mut cells = rows[nth].to_cells();
    cells[col] = cell;
    rows[nth] = Row::new(rows[nth].source.clone(), cells);
    (h, rows)
}

#[test]
fn a_formula_without_its_value_is_no_value_and_says_how_to_get_one() {
    let (h, rows) = rows_with(0, 6, Cell::Error("=F2*2".into()));
    let b = bound(SIMPLE, &h);
    let said = |row: &Row| match b.field(fid!("line.unit_price"), row, None) {
        Err(issue) => issue.render(),
        Ok(v) => panic!("{:?}", v.map(|s| s.label)),
    };
    assert_eq!(
        said(&rows[0]),
        "INV-MAP-VALUE Price \"=F2*2\": the cell holds the formula =F2*2 but no computed value (the workbook was \
         written by a program and never calculated): open the workbook in Excel or LibreOffice and save it, or \
         export values instead of formulas"
    );
    // Its text not known (a cell of a shared formula whose first cell is gone).
    let (_, rows) = rows_with(0, 6, Cell::Error("=".into()));
    assert!(
        said(&rows[0]).starts_with("INV-MAP-VALUE Price \"=\": the cell holds a formula but no computed value"),
        "{}",
        said(&rows[0])
    );
}

#[test]
fn a_number_cell_holding_a_formula_without_its_value_is_no_number() {
    let (h, rows) = rows_with(1, 0, Cell::Error("=\"A\"&1".into()));
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let said: Vec<Vec<String>> = units
        .iter()
        .map(|u| match u {
            Unit::Document(d) => d.rows.iter().flat_map(|r| r.issues.iter().map(Issue::render)).collect(),
            Unit::Stray(r) => r.issues.iter().map(Issue::render).collect(),
        })
        .collect();
    assert_eq!(
        said,
        [
            vec![
                "INV-MAP-ORPHAN No \"A1\": the row after this document's last row (line 3) has the formula =\"A\"&1 \
                 but no computed value for its document number (the workbook was written by a program and never \
                 calculated) and may be one of its lines: the document is not issued without it; open the workbook \
                 in Excel or LibreOffice and save it, or export values instead of formulas"
                    .to_string()
            ],
            vec![
                "INV-MAP-NUMBER No \"=\\\"A\\\"&1\": no document number in this row (No holds the formula =\"A\"&1 \
                 but no computed value: the workbook was written by a program and never calculated; the row above \
                 is of A1, which is not issued without this row, if it is one of its lines): open the workbook in \
                 Excel or LibreOffice and save it, or export values instead of formulas"
                    .to_string()
            ],
            vec![],
        ]
    );
}

#[test]
fn a_hidden_row_is_read_as_any_other_with_a_warning() {
    let (h, mut rows) = rows_from_csv(ROWS, 1);
    rows[1].set_hidden(true);
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let rows_said: Vec<(usize, Vec<String>)> = units
        .iter()
        .filter_map(|u| match u {
            Unit::Document(d) => Some(d),
            Unit::Stray(_) => None,
        })
        .flat_map(|d| {
            d.rows
                .iter()
                .map(|r| (d.rows.len(), r.issues.iter().map(Issue::render).collect()))
        })
        .collect();
    let hidden = "INV-ROW-HIDDEN: the row is hidden in the workbook (filtered out, or hidden by hand) and was read \
                  like any other row: if it must not be issued, delete it from the export";
    assert_eq!(rows_said, [(2, vec![]), (2, vec![hidden.to_string()]), (1, vec![])]);
    assert_eq!(HIDDEN_CODE, "INV-ROW-HIDDEN");
}

//! Rows without a document number between documents: the documents they may belong to are held
//! back (`INV-MAP-ORPHAN`), the row says whose line it may be; a number cell holding a
//! spreadsheet error is no number.

use super::groups::{group_known, scan};
use super::*;

#[test]
fn a_row_without_number_after_a_document_holds_the_document_back() {
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                A1,05/11/2026,X,,Pen,1,1,\n,,,,Cup,1,1,\nA2,05/11/2026,X,,Pen,1,1,\n";
    let (h, rows) = rows_from_csv(text, 1);
    let b = bound(SIMPLE, &h);
    let units = group_known(&b, rows.clone());
    let ds = docs(&units);
    assert_eq!(ds.len(), 2);
    let orphan: Vec<_> = ds[0].rows[0]
        .issues
        .iter()
        .filter(|i| i.code == "INV-MAP-ORPHAN")
        .collect();
    assert_eq!(orphan.len(), 1, "{:?}", ds[0].rows[0].issues);
    assert_eq!(orphan[0].column.as_deref(), Some("No"));
    assert_eq!(orphan[0].value.as_deref(), Some("A1"));
    assert!(orphan[0].message.contains("(line 3)"), "{}", orphan[0].message);
    // Its document cells blank, the row reads as A1's line: A2 is not concerned.
    assert!(ds[1].rows[0].issues.is_empty(), "{:?}", ds[1].rows[0].issues);
    let stray = units
        .iter()
        .find_map(|u| match u {
            Unit::Stray(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert!(
        stray.issues[0].message.contains("the row above is of A1"),
        "{:?}",
        stray.issues
    );
    // With continuation rows it is A1's line; a row without number before any document, or
    // after a document already split, adds nothing to the document.
    let m = SIMPLE.replace("[defaults]", "[group]\ncontinuation = true\n[defaults]");
    let units = group_known(&bound(&m, &h), rows);
    assert!(docs(&units).iter().all(|d| d.rows.iter().all(|r| r.issues.is_empty())));
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                ,,,,Cup,1,1,\nA1,05/11/2026,X,,Pen,1,1,\n,,,,Cup,1,1,\nA1,05/11/2026,X,,Mug,1,1,\n";
    let (h, rows) = rows_from_csv(text, 1);
    let units = group_known(&bound(SIMPLE, &h), rows);
    let ds = docs(&units);
    assert!(ds.iter().all(|d| d.split));
    assert!(
        ds.iter()
            .all(|d| d.rows[0].issues.iter().all(|i| i.code != "INV-MAP-ORPHAN")),
        "the split finding says it"
    );
}

#[test]
fn a_row_without_number_with_the_next_documents_cells_holds_that_one_back_too() {
    // Line 3 gives A2's date and buyer, not A1's: it may be A2's first line, its number left out.
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                A1,05/11/2026,X,,Pen,1,1,\n,06/11/2026,Y,,Cup,1,1,\nA2,06/11/2026,Y,,Pen,1,1,\n";
    let (h, rows) = rows_from_csv(text, 1);
    let b = bound(SIMPLE, &h);
    let units = group_known(&b, rows);
    let ds = docs(&units);
    assert_eq!(ds.len(), 2);
    for (d, key) in [(ds[0], "A1"), (ds[1], "A2")] {
        let orphan: Vec<_> = d.rows[0].issues.iter().filter(|i| i.code == "INV-MAP-ORPHAN").collect();
        assert_eq!(orphan.len(), 1, "{key}: {:?}", d.rows[0].issues);
        assert_eq!(orphan[0].value.as_deref(), Some(key));
        assert!(orphan[0].is_error());
    }
    assert!(
        ds[1].rows[0].issues[0]
            .message
            .starts_with("the row before this document's first row (line 3) has no document number"),
        "{}",
        ds[1].rows[0].issues[0].message
    );
}

#[test]
fn a_row_without_number_a_skip_rule_matches_is_skipped_alone_and_holds_nothing_back() {
    // A totals row at the bottom, and the mapping's skip rule for it.
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                A1,05/11/2026,X,,Pen,1,1,\n,,,,Grand Total,,2,\n";
    let (h, rows) = rows_from_csv(text, 1);
    let m = format!("{SIMPLE}\n[[skip]]\ncolumn = \"Item\"\nequals = [\"grand total\"]\nreason = \"a totals row\"\n");
    let units = group_known(&bound(&m, &h), rows.clone());
    let ds = docs(&units);
    assert_eq!(ds.len(), 1);
    assert!(ds[0].rows[0].issues.is_empty(), "{:?}", ds[0].rows[0].issues);
    assert!(ds[0].skip.is_none());
    let stray = units
        .iter()
        .find_map(|u| match u {
            Unit::Stray(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert!(stray.outside_document());
    let codes: Vec<(&str, Option<&str>, Option<&str>)> = stray
        .issues
        .iter()
        .map(|i| (i.code.as_str(), i.column.as_deref(), i.value.as_deref()))
        .collect();
    assert_eq!(codes, [("INV-SKIP", Some("Item"), Some("Grand Total"))]);
    // Without the rule: the row is an error, and the document above waits for it.
    let units = group_known(&bound(SIMPLE, &h), rows);
    assert!(
        docs(&units)[0].rows[0]
            .issues
            .iter()
            .any(|i| i.code == "INV-MAP-ORPHAN")
    );
}

#[test]
fn a_row_without_number_names_the_number_column() {
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n,05/11/2026,X,,Pen,1,1,\nA1,05/11/2026,X,,Pen,1,1,\n";
    let (h, rows) = rows_from_csv(text, 1);
    for (toml, said) in [
        (
            SIMPLE.to_string(),
            "INV-MAP-NUMBER No: no document number in this row (No is blank): write the number of the document \
             it belongs to, or remove the row",
        ),
        (
            SIMPLE.replace("[defaults]", "[group]\ncontinuation = true\n[defaults]"),
            "INV-MAP-NUMBER No: a continuation row (its No is blank) with no document above it: write the number \
             of its document in No, or move the row under that document's rows",
        ),
    ] {
        let units = group_all(&bound(&toml, &h), rows.clone());
        let Some(Unit::Stray(r)) = units.first() else {
            panic!("{units:?}")
        };
        assert_eq!(r.issues.iter().map(Issue::render).collect::<Vec<_>>(), [said]);
    }
}

/// `text`'s rows, with the number cell of data row `nth` (0-based) a spreadsheet error.
fn with_error_number(text: &str, nth: usize) -> (Vec<Vec<String>>, Vec<Row>) {
    let (h, rows) = rows_from_csv(text, 1);
    let rows = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            if i != nth {
                return r;
            }
            let mut cells: Vec<Cell> = (0..8).map(|c| r.get(c).to_cell()).collect();
            cells[0] = Cell::Error("#REF!".into());
            Row::new(r.source.clone(), cells)
        })
        .collect();
    (h, rows)
}

#[test]
fn a_number_cell_holding_a_spreadsheet_error_is_no_number_and_the_document_above_waits_for_it() {
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                A1,05/11/2026,X,,Pen,1,1,\nA1,05/11/2026,X,,Cup,1,1,\nA1,05/11/2026,X,,Mug,1,1,\nA2,05/11/2026,X,,Pen,1,1,\n";
    let continuing = SIMPLE.replace("[defaults]", "[group]\ncontinuation = true\n[defaults]");
    for mapping in [SIMPLE.to_string(), continuing] {
        // A1's last line: A1 is held back (it may be missing that line), whatever `continuation`.
        let (h, rows) = with_error_number(text, 2);
        let b = bound(&mapping, &h);
        assert!(scan(&b, &rows).is_empty());
        let units = group_known(&b, rows);
        let ds = docs(&units);
        assert_eq!(
            ds.iter().map(|d| (d.key.as_str(), d.rows.len())).collect::<Vec<_>>(),
            [("A1", 2), ("A2", 1)]
        );
        let orphan: Vec<_> = ds[0].rows[0].issues.iter().filter(|i| i.code == ORPHAN_CODE).collect();
        assert_eq!(orphan.len(), 1, "{:?}", ds[0].rows[0].issues);
        assert!(
            orphan[0]
                .message
                .contains("(line 4) has the spreadsheet error #REF! for its document number"),
            "{}",
            orphan[0].message
        );
        assert!(ds[1].rows[0].issues.is_empty(), "A2 is not concerned");
        let stray: Vec<&DraftRow> = units
            .iter()
            .filter_map(|u| match u {
                Unit::Stray(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(stray.len(), 1);
        assert_eq!(stray[0].issues.len(), 1);
        let said = stray[0].issues[0].render();
        assert_eq!(
            said,
            "INV-MAP-NUMBER No \"#REF!\": no document number in this row (No holds the spreadsheet error #REF!, \
             not a number: a formula that failed; the row above is of A1, which is not issued without this row, \
             if it is one of its lines): correct the cell in the workbook or the ERP and export again"
        );

        // A1's middle line: its two parts are split, neither is issued.
        let (h, rows) = with_error_number(text, 1);
        let b = bound(&mapping, &h);
        assert_eq!(scan(&b, &rows).len(), 1);
        let units = group_known(&b, rows);
        let ds = docs(&units);
        assert_eq!(ds.len(), 3);
        assert!(ds[0].split && ds[1].split && !ds[2].split);
    }
}

//! Cells read other than the export meant them: a quote closed by an inch mark lines later, in
//! the same column, which takes in the lines between; a character that shows as nothing in a
//! document number, which makes two numbers that look the same; a document's first line cut
//! before its last cells, which its other lines fill; a long number Excel saved in scientific
//! notation; an amount written with another currency's mark.

use super::input_edges::{cell, checked, sage_lines};
use super::samples;

/// The Xero sample's lines, its blank lines (only commas) taken off.
fn xero_lines() -> Vec<String> {
    let text = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    text.lines()
        .filter(|l| !l.trim_matches(',').is_empty())
        .map(str::to_string)
        .collect()
}

/// A quote opened at the start of a cell and closed by an inch mark in the same column lines
/// below: the record has a cell per header all the same, and the cell holds whole lines.
#[test]
fn a_quote_closed_in_the_same_column_lines_later_is_said_on_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let lines = sage_lines();
    let mut same = lines.clone();
    same[3] = same[3].replace("Notebook A5", "\"Notebook A5");
    same[5] = same[5].replace("Laser printer returned", "Laser printer 17\" returned");
    std::fs::write(dir.path().join("same.csv"), same.join("\n")).unwrap();
    let rows = checked(dir.path(), "same.csv");
    assert_eq!(rows.len(), lines.len() - 2, "two lines went into the cell");
    let errors = cell(&rows, 4, "result_errors");
    assert!(
        errors.starts_with(
            "INV-ROW-QUOTE DESCRIPTION \"Notebook A5 | دفتر,4000,1,T1,20,7.50,150.00,22.50…\": the quote (\") that \
             opens this cell on line 4 is closed only 2 line(s) later, so those lines were read into this cell (it \
             holds 22 ',', as whole lines of the export do) and are not checked"
        ),
        "{errors}"
    );
    assert!(!errors.contains(" | INV-"), "one finding: {errors}");
    assert_eq!(cell(&rows, 4, "result_status"), "invalid");

    // A quoted value that really holds line breaks, with a comma or two, is a value.
    let mut note = lines.clone();
    note[3] = note[3].replace("Notebook A5", "\"Notebook A5\nruled, 80 pages,\nblue\"");
    std::fs::write(dir.path().join("note.csv"), note.join("\n")).unwrap();
    let rows = checked(dir.path(), "note.csv");
    assert_eq!(rows.len(), lines.len());
    assert!(!rows.iter().flatten().any(|c| c.contains("INV-ROW-QUOTE")), "{rows:?}");
}

/// The lines a quote took in end with another document's `Voided`: no row of the document
/// has its cells in place, so nothing skips it, and its row says what is wrong with it.
#[test]
fn a_status_read_from_lines_a_quote_took_in_does_not_skip_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    // INV-0102's first line opens a quote; INV-0103 (Voided) closes it with an inch mark.
    assert!(lines[4].contains(",BK-101,كتاب") && lines[6].contains("Laptop 14 inch | حاسوب محمول"));
    lines[4] = lines[4].replace(",BK-101,كتاب", ",BK-101,\"كتاب");
    lines[6] = lines[6].replace("Laptop 14 inch | حاسوب محمول", "Laptop 14\"");
    assert!(lines[6].ends_with(",Voided"));
    std::fs::write(dir.path().join("xero.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "xero.csv");
    assert_eq!(rows.len(), lines.len() - 2);
    assert_eq!(cell(&rows, 5, "result_status"), "invalid");
    let errors = cell(&rows, 5, "result_errors");
    assert!(errors.starts_with("INV-ROW-QUOTE Description "), "{errors}");
    assert!(errors.contains("on line 5 is closed only 2 line(s) later"), "{errors}");
    assert!(!cell(&rows, 5, "result_warnings").contains("INV-SKIP"));
}

/// A byte-order mark in front of a document's first number, a zero-width space inside another
/// row's: the rows stay one document, each such cell is an error naming the character, and
/// nothing else is said (no total that the document split in two would miss).
#[test]
fn a_character_that_shows_as_nothing_in_a_number_is_said_on_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    assert!(lines[4].contains(",INV-0102,") && lines[5].contains(",INV-0102,"));
    lines[4] = lines[4].replace(",INV-0102,", ",\u{feff}INV-0102,");
    assert!(lines[8].contains(",INV-0105,") && lines[10].contains(",INV-0105,"));
    lines[10] = lines[10].replace(",INV-0105,", ",INV-01\u{200b}05,");
    std::fs::write(dir.path().join("x.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "x.csv");
    assert_eq!(rows.len(), lines.len());
    assert_eq!(
        cell(&rows, 5, "result_errors"),
        "INV-MAP-CHAR InvoiceNumber \"<U+FEFF>INV-0102\": the character U+FEFF (a byte-order mark) is in this \
         number but shows as nothing, so the value looks like another and is not the same (the rows of one \
         document would be read as two, a VAT number would not match); a number, identifier or code is issued \
         as the ERP has it, never changed: take the character out in the ERP and export again"
    );
    assert_eq!(
        cell(&rows, 6, "result_errors"),
        "INV-DOCUMENT: the document has errors on another row (line 5)"
    );
    assert_eq!(
        cell(&rows, 11, "result_errors"),
        "INV-MAP-CHAR InvoiceNumber \"INV-01<U+200B>05\": this cell and line 9, this document's first row, \
         which says \"INV-0105\", differ only by the character U+200B (a zero-width space), which shows as \
         nothing: the two look the same and are not; take the character out in the ERP and export again"
    );
    for line in [5, 6, 9, 10, 11, 12] {
        assert_eq!(cell(&rows, line, "result_status"), "invalid", "line {line}");
    }
    // One document each: its rows hold the one number.
    for line in [5, 6] {
        assert_eq!(cell(&rows, line, "result_document"), "INV-0102", "line {line}");
    }
    let said: String = rows.iter().flatten().cloned().collect();
    assert!(
        !said.contains("INV-ERP-TOTAL") && !said.contains("INV-MAP-CONFLICT"),
        "{rows:?}"
    );
}

/// INV-0102's number as Excel saves a long number it showed in scientific notation: its first
/// row says so on its cell, with how many digits are left, and the document is not issued.
#[test]
fn a_number_excel_saved_in_scientific_notation_is_said_on_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    assert!(lines[4].contains(",INV-0102,") && lines[5].contains(",INV-0102,"));
    for l in [4, 5] {
        lines[l] = lines[l].replace(",INV-0102,", ",1.23457E+11,");
    }
    std::fs::write(dir.path().join("x.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "x.csv");
    assert_eq!(rows.len(), lines.len());
    assert_eq!(
        cell(&rows, 5, "result_errors"),
        "INV-MAP-VALUE InvoiceNumber \"1.23457E+11\": this number is written in scientific notation, as Excel \
         shows a long number and saves it when a CSV is opened and saved again: it keeps 6 of its 12 digits, so \
         the rest are lost and it is not the ERP's value; export the file again from the ERP without saving it \
         from Excel (or format the column as Text before saving)"
    );
    // The number is the document's, read from its first row: its other row refers to it.
    assert_eq!(
        cell(&rows, 6, "result_errors"),
        "INV-DOCUMENT: the document has errors on another row (line 5)"
    );
    for line in [5, 6] {
        assert_eq!(cell(&rows, line, "result_status"), "invalid", "line {line}");
    }
    // The other documents are checked as ever.
    assert_eq!(cell(&rows, 2, "result_status"), "valid");
}

/// A unit price written with a currency mark: the invoice's own currency's (`SAR 45.50` on an
/// invoice in SAR) is read as ever, another's (`USD 45.50`, `€45.50`) is an error on its cell,
/// since it would be issued as that many riyals.
#[test]
fn an_amount_with_another_currencys_mark_is_said_on_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let lines = xero_lines();
    assert!(lines[2].contains(",10, 45.50 ,,455.00,") && lines[2].ends_with(",SAR,Sales Invoice,Sent,Paid"));
    for (name, written, said) in [
        ("sar.csv", "SAR 45.50", None),
        ("usd.csv", "USD 45.50", Some("USD")),
        ("eur.csv", "€45.50", Some("EUR (€)")),
    ] {
        let mut edited = lines.clone();
        edited[2] = edited[2].replace(",10, 45.50 ,", &format!(",10,{written},"));
        std::fs::write(dir.path().join(name), edited.join("\n")).unwrap();
        let rows = checked(dir.path(), name);
        assert_eq!(rows.len(), lines.len());
        match said {
            None => {
                assert_eq!(cell(&rows, 3, "result_status"), "valid", "{name}");
                assert_eq!(cell(&rows, 3, "result_errors"), "", "{name}");
                assert!(!cell(&rows, 3, "result_warnings").contains("currency mark"), "{name}");
            }
            Some(currency) => {
                assert_eq!(
                    cell(&rows, 3, "result_errors"),
                    format!(
                        "INV-MAP-VALUE UnitAmount \"{written}\": this amount is written in {currency}, but the \
                         document's currency is SAR, so it would be issued as SAR: give the amount in SAR without \
                         a currency mark, or the document's currency as the one its amounts are in (with its \
                         exchange rate to SAR)"
                    ),
                    "{name}"
                );
                for line in [2, 3] {
                    assert_eq!(cell(&rows, line, "result_status"), "invalid", "{name} line {line}");
                }
            }
        }
    }
}

/// INV-0102's first line is cut before its last three cells; its second line gives them: the
/// line to complete is the first, and the error is there, once.
#[test]
fn a_first_line_cut_before_cells_its_other_lines_give_is_the_line_said_to_complete() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    assert!(lines[4].contains(",INV-0102,") && lines[4].ends_with(",Sales Invoice,Sent,Paid"));
    lines[4] = lines[4].trim_end_matches(",Sales Invoice,Sent,Paid").to_string();
    std::fs::write(dir.path().join("x.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "x.csv");
    assert_eq!(rows.len(), lines.len());
    let errors = cell(&rows, 5, "result_errors");
    assert_eq!(
        errors,
        "INV-MAP-CONFLICT Status: this line (this document's first row) has 41 cells where the header has 44 \
         columns, so it gives no Status, and a document is read from this row; line 6 gives it as \"Paid\": \
         complete this line in the export (it was cut before its last cells) and run again"
    );
    assert!(cell(&rows, 5, "result_warnings").starts_with("INV-ROW-SHORT "));
    assert_eq!(
        cell(&rows, 6, "result_errors"),
        "INV-DOCUMENT: the document has errors on another row (line 5)"
    );
}

/// INV-0102's first line without its number: the row may be a line of INV-0101 above or the first
/// line of INV-0102 below (its date and buyer are INV-0102's): neither is issued without it, each
/// says so, and INV-0102 is not told its lines miss the export's totals.
#[test]
fn a_documents_first_line_without_its_number_holds_back_the_documents_on_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = xero_lines();
    assert!(lines[4].contains(",INV-0102,") && lines[3].contains(",INV-0101,"));
    lines[4] = lines[4].replacen(",INV-0102,", ",,", 1);
    std::fs::write(dir.path().join("x.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "x.csv");
    assert_eq!(rows.len(), lines.len());
    assert!(
        cell(&rows, 2, "result_errors")
            .starts_with("INV-MAP-ORPHAN InvoiceNumber \"INV-0101\": the row after this document's last row (line 5)")
    );
    assert!(cell(&rows, 5, "result_errors").starts_with("INV-MAP-NUMBER InvoiceNumber: no document number"));
    assert_eq!(
        cell(&rows, 6, "result_errors"),
        "INV-MAP-ORPHAN InvoiceNumber \"INV-0102\": the row before this document's first row (line 5) has no \
         document number and may be one of its lines (its first, the number left out): the document is not \
         issued without it. If that row is a line of this document, put its number there; if it is not a line \
         (a total, a note, a footer), delete it from the export"
    );
    let said: String = rows.iter().flatten().cloned().collect();
    assert!(!said.contains("INV-ERP-"), "{rows:?}");
}

/// One byte of a document number that is not UTF-8 (SI-1001 written `SI-10\xff01` on one of its
/// two lines): that line is a document of its own, and SI-1001 is not checked valid (it would
/// be issued without that line) but held back, whichever of its lines it is.
#[test]
fn a_line_whose_number_has_a_byte_that_cannot_be_read_holds_its_document() {
    let dir = tempfile::tempdir().unwrap();
    let lines = sage_lines();
    assert!(lines[1].starts_with("SI-1001,") && lines[2].starts_with("SI-1001,"));
    for (damaged, held, side) in [
        (3, 2, "the row after this document's last row (line 3)"),
        (2, 3, "the row before this document's first row (line 2)"),
    ] {
        let mut bytes: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
        bytes[damaged - 1] = [b"SI-10".as_slice(), b"\xff", &lines[damaged - 1].as_bytes()[5..]].concat();
        // With the sample's byte-order mark: the file is UTF-8, one cell of it damaged.
        let file = [b"\xEF\xBB\xBF".as_slice(), &bytes.join(&b"\n"[..])].concat();
        std::fs::write(dir.path().join("s.csv"), file).unwrap();
        let rows = checked(dir.path(), "s.csv");
        assert_eq!(rows.len(), lines.len());
        assert!(
            cell(&rows, damaged, "result_errors").starts_with("INV-ROW-READ INVOICE_NUMBER \"SI-10\u{FFFD}01\""),
            "{rows:?}"
        );
        assert_eq!(
            cell(&rows, held, "result_errors"),
            format!(
                "INV-MAP-ORPHAN INVOICE_NUMBER \"SI-1001\": {side} has a document number with bytes that could not \
                 be read, \"SI-10\u{FFFD}01\", which may be this document's number, so that row may be one of its \
                 lines ({}): the document is not issued without it. Correct the number on line {damaged} (and the \
                 file's encoding, if other cells show � too) and run again",
                if damaged > held { "its last" } else { "its first" }
            )
        );
        assert_eq!(cell(&rows, held, "result_status"), "invalid");
        // The next document is not its number: checked as ever.
        assert_eq!(cell(&rows, 4, "result_status"), "valid", "{rows:?}");
    }
}

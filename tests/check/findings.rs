//! One mistake, one finding, on the cell to fix: the rules do not repeat what reading the rows
//! already said.

use super::{NOW, result_rows, run, samples};
use std::path::Path;

/// `sample` from `samples/` with some cells replaced: (line in the file, column, new text).
pub(super) fn edited(dir: &Path, sample: &str, name: &str, edits: &[(usize, &str, &str)]) {
    let text = std::fs::read_to_string(samples().join(sample)).unwrap();
    let text = text.trim_start_matches('\u{feff}');
    let mut rdr = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&headers).unwrap();
    for (i, rec) in rdr.records().enumerate() {
        let mut cells: Vec<String> = rec.unwrap().iter().map(str::to_string).collect();
        for &(line, column, value) in edits {
            if line == i + 2 {
                let at = headers.iter().position(|h| h == column).unwrap();
                cells[at] = value.to_string();
            }
        }
        out.write_record(&cells).unwrap();
    }
    std::fs::write(dir.join(name), out.into_inner().unwrap()).unwrap();
}

/// `column` of the result row of input line `line`.
pub(super) fn cell(rows: &[Vec<String>], line: usize, column: &str) -> String {
    let at = rows[0].iter().position(|h| h == column).unwrap();
    rows[line - 1][at].clone()
}

#[test]
fn a_blank_or_wrong_value_is_one_finding_that_names_its_column() {
    let dir = tempfile::tempdir().unwrap();
    // Xero: INV-0101 (lines 2-4) is in dollars, with no exchange rate column in the Xero mapping,
    // and its first line has no description; INV-0102 (lines 5-6) has no date on its
    // first row; INV-0105 (lines 9-12) is in "XYZ"; INV-0107 (lines 14-15) has a negative price
    // (10 % off) on line 14.
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[
            (2, "Description", ""),
            (2, "Currency", "USD"),
            (3, "Currency", "USD"),
            (4, "Currency", "USD"),
            (5, "InvoiceDate", ""),
            (14, "UnitAmount", "(899.00)"),
            (9, "Currency", "XYZ"),
            (10, "Currency", "XYZ"),
            (11, "Currency", "XYZ"),
            (12, "Currency", "XYZ"),
        ],
    );
    // Zoho: INV-000201 (lines 2-3) in dollars at a rate of "abc"; INV-000202 (lines 4-5) in
    // dollars with no rate at all (an error: the API would not issue it).
    edited(
        dir.path(),
        "zoho_invoices.csv",
        "z.csv",
        &[
            (2, "Currency Code", "USD"),
            (2, "Exchange Rate", "abc"),
            (3, "Currency Code", "USD"),
            (3, "Exchange Rate", "abc"),
            (4, "Currency Code", "USD"),
            (4, "Exchange Rate", ""),
            (5, "Currency Code", "USD"),
            (5, "Exchange Rate", ""),
        ],
    );
    let o = run(dir.path(), &["check", "--now", NOW, "x.csv", "z.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));

    let x = result_rows(&dir.path().join("results/x.result.csv"));
    // Said by reading the row, on its column; the rule that a line names its item
    // (INV-EMPTY-ITEM-NAME) no longer says it again under a JSON path.
    let e = cell(&x, 2, "result_errors");
    assert!(
        e.starts_with("INV-MAP-MISSING Description: no item name or description in this line | "),
        "{e}"
    );
    assert!(!e.contains("INV-EMPTY-ITEM-NAME"), "{e}");
    // The VAT total in SAR needs a rate no column gives: the error names the mapping field.
    // (On the first row, where the document's fields are read; no longer on the export's
    // TaxTotal column, which is only compared.)
    let e = cell(&x, 2, "result_errors");
    assert!(
        e.contains(" | INV-SAR-VAT [tax_total.tax_amount_in_tax_currency] (no column gives exchange_rate): "),
        "{e}"
    );
    // The blank date is said where it is blank; the row that has one is right, and only points
    // at it (no INV-MAP-CONFLICT saying the first row leaves it blank).
    assert_eq!(
        cell(&x, 5, "result_errors"),
        "INV-MAP-MISSING InvoiceDate: no issue date in the document's first row"
    );
    assert_eq!(
        cell(&x, 6, "result_errors"),
        "INV-DOCUMENT: the document has errors on another row (line 5)"
    );
    // Two rules over one code list (BR-KSA-CL-01, BR-CL-04) give one finding; no INV-SAR-VAT
    // asking for the rate of a currency that does not exist.
    let e = cell(&x, 9, "result_errors");
    assert!(e.starts_with("BR-KSA-CL-01 Currency \"XYZ\": "), "{e}");
    assert!(!e.contains(" | "), "more than one finding: {e}");
    for line in 9..=12 {
        let w = cell(&x, line, "result_warnings");
        assert!(!w.contains("INV-SAR-VAT"), "line {line}: {w}");
    }
    // One negative price, one finding: not its discount, net price, VAT, the totals, nor the
    // export's figures that differ by the sign.
    assert_eq!(
        cell(&x, 14, "result_errors"),
        "BR-KSA-F-04 UnitAmount \"(899.00)\": The gross price is negative (-899.00); amounts and quantities must \
         not be negative. For a return or a price reduction issue a credit note with positive amounts."
    );
    assert_eq!(
        cell(&x, 15, "result_errors"),
        "INV-DOCUMENT: the document has errors on another row (line 14)"
    );
    // The credit note of INV-0101, left alone, is not issued either: its invoice is not.
    assert_eq!(cell(&x, 13, "result_status"), "invalid");
    let e = cell(&x, 13, "result_errors");
    assert!(
        e.starts_with(
            "INV-REFERENCE-NOT-ISSUED Reference \"INV-0101\": this credit note corrects invoice INV-0101 (line 2 of \
             this file), which is not issued (it is invalid: "
        ),
        "{e}"
    );

    let z = result_rows(&dir.path().join("results/z.result.csv"));
    assert_eq!(
        cell(&z, 2, "result_errors"),
        "INV-MAP-VALUE Exchange Rate \"abc\": not a number (write it in digits, e.g. 1234.50)"
    );
    for line in [2, 3] {
        let e = cell(&z, line, "result_errors");
        assert!(
            !e.contains("INV-SAR-VAT"),
            "line {line}: the rate was already said to be unreadable: {e}"
        );
    }
    // A rate that is simply missing: the document cannot be issued (the API would refuse it),
    // and the error names the column to fill in.
    assert_eq!(cell(&z, 4, "result_status"), "invalid");
    let e = cell(&z, 4, "result_errors");
    assert!(e.contains("INV-SAR-VAT Exchange Rate: "), "{e}");
}

#[test]
fn an_unreadable_value_is_said_once_without_the_errors_it_would_cause() {
    // INV-0101 (lines 2-4): every line's tax code unknown, so no line can be built; INV-0105
    // (lines 9-12): one unknown tax code (line 9) and one quantity that is not a number (10).
    let dir = tempfile::tempdir().unwrap();
    let tax = "TaxType";
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[
            (2, tax, "Weird Tax"),
            (3, tax, "Weird Tax"),
            (4, tax, "Weird Tax"),
            (9, tax, "Weird Tax"),
            (10, "Quantity", "lots"),
        ],
    );
    let o = run(dir.path(), &["check", "--now", NOW, "x.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    let errors = |line: usize| cell(&rows, line, "result_errors");
    for line in [2, 3, 4, 9] {
        let e = errors(line);
        assert!(
            e.starts_with("INV-MAP-TAX TaxType \"Weird Tax\": unknown tax code"),
            "line {line}: {e}"
        );
        assert!(!e.contains(" | "), "line {line}: more than the one error: {e}");
    }
    assert_eq!(
        errors(10),
        "INV-MAP-VALUE Quantity \"lots\": not a number (write it in digits, e.g. 1234.50)"
    );
    for line in [11, 12] {
        assert_eq!(
            errors(line),
            "INV-DOCUMENT: the document has errors on other rows (lines 9, 10)"
        );
    }
    // The documents untouched stay valid.
    assert_eq!(cell(&rows, 5, "result_status"), "valid");
}

#[test]
fn a_credit_note_missing_from_its_lookup_table_says_where_to_add_it() {
    // SCN-2001 (line 6 of the Sage 50 sample) corrects SI-1001; its row in credit_notes.csv is
    // left out, so neither the invoice it corrects nor the reason can be found: one mistake, one
    // finding (not BR-KSA-17 for the reason of the same missing row).
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("sage50_invoices.csv"), dir.path().join("s.csv")).unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let notes = std::fs::read_to_string(samples().join("credit_notes.csv")).unwrap();
    let kept: Vec<&str> = notes.lines().filter(|l| !l.starts_with("SCN-2001,")).collect();
    assert_eq!(kept.len() + 1, notes.lines().count());
    std::fs::write(dir.path().join("credit_notes.csv"), kept.join("\n") + "\n").unwrap();
    let o = run(dir.path(), &["check", "--now", NOW, "s.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = result_rows(&dir.path().join("results/s.result.csv"));
    assert_eq!(
        cell(&rows, 6, "result_errors"),
        "INV-MAP-REFERENCE credit_notes.csv original_number: a credit note must name the invoice it corrects, \
         and \"SCN-2001\" is not in credit_notes.csv: add it there"
    );
    // No BR-KSA-56 warning repeating that the reference is missing.
    assert_eq!(cell(&rows, 6, "result_warnings"), "");
}

#[test]
fn a_wrong_rate_a_discount_over_the_price_a_dash_and_a_zero_quantity_are_one_finding_each() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    std::fs::copy(samples().join("credit_notes.csv"), dir.path().join("credit_notes.csv")).unwrap();
    // Xero: INV-0101's first line taxed at 12 %; INV-0105's first line 150 % off.
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[(2, "TaxType", "12%"), (9, "Discount", "150")],
    );
    // Sage 50: SI-1001's second line priced "-" with no net amount; SI-1002's first line 0 units.
    edited(
        dir.path(),
        "sage50_invoices.csv",
        "s.csv",
        &[
            (3, "UNIT_PRICE", "-"),
            (3, "NET_AMOUNT", ""),
            (4, "QTY_ORDER", "0"),
            (4, "NET_AMOUNT", ""),
            (4, "TAX_AMOUNT", ""),
        ],
    );
    let out = run(dir.path(), &["check", ".", "--now", NOW, "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let x = result_rows(&dir.path().join("results/x.result.csv"));
    // On the tax code's column (not "no column gives line.tax_percent"), and not again for the
    // VAT breakdown or the export's VAT figures taken at 15 %.
    assert_eq!(
        cell(&x, 2, "result_errors"),
        "BR-KSA-84 TaxType \"12%\": The line is standard-rated at 12%; the standard rate is 15% (5% for some \
         supplies). For 0% use category Z, E or O with an exemption reason."
    );
    // On the discount, not as the negative price it makes.
    assert_eq!(
        cell(&x, 9, "result_errors"),
        "INV-MAP-VALUE Discount \"150\": a discount of more than 100 % of the price: give the discount in percent \
         of the price (0 to 100)"
    );
    let s = result_rows(&dir.path().join("results/s.result.csv"));
    // Not also "no unit price" on the same cell.
    assert_eq!(
        cell(&s, 3, "result_errors"),
        "INV-MAP-VALUE UNIT_PRICE \"-\": not a number (write it in digits, e.g. 1234.50)"
    );
    // Not also the VAT breakdown that lacks the line (BR-CO-18, BR-S-01).
    assert_eq!(
        cell(&s, 4, "result_errors"),
        "INV-ZERO-QUANTITY QTY_ORDER \"0\": The quantity is 0; remove the line or enter the quantity supplied."
    );
    for line in [4, 5] {
        let w = cell(&s, line, "result_warnings");
        assert!(!w.contains("BR-S-01") && !w.contains("BR-CO-18"), "line {line}: {w}");
    }
}

#[test]
fn a_number_used_in_an_earlier_file_of_the_same_check_is_an_error_on_the_later_file() {
    // Two Xero exports checked together: b.csv is the sample again (an overlapping export),
    // with INV-0105 renumbered INV-0205. Its other numbers are a.csv's: each is said on the
    // first row of b.csv's document, naming a.csv and the line there. The voided and draft
    // invoices (INV-0103, INV-0104) are never issued: nothing to say.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    std::fs::copy(samples().join("xero_sales_invoices.csv"), dir.path().join("a.csv")).unwrap();
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "b.csv",
        &[
            (9, "InvoiceNumber", "INV-0205"),
            (10, "InvoiceNumber", "INV-0205"),
            (11, "InvoiceNumber", "INV-0205"),
            (12, "InvoiceNumber", "INV-0205"),
        ],
    );
    let o = run(dir.path(), &["check", "--now", NOW, "a.csv", "b.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let a = result_rows(&dir.path().join("results/a.result.csv"));
    assert!(
        (2..=15).all(|l| cell(&a, l, "result_errors").is_empty()),
        "a.csv, checked first, is as it was"
    );
    let b = result_rows(&dir.path().join("results/b.result.csv"));
    assert_eq!(
        cell(&b, 2, "result_errors"),
        "INV-NUMBER-USED InvoiceNumber \"INV-0101\": this number is already used by the document at line 2 of \
         a.csv, checked before this file: a number is issued once; if this is the same document exported \
         twice, remove it from one of the two files, else give this one a number of its own"
    );
    assert_eq!(cell(&b, 2, "result_status"), "invalid");
    assert!(cell(&b, 3, "result_errors").starts_with("INV-DOCUMENT"));
    assert!(cell(&b, 13, "result_errors").contains("document at line 13 of a.csv"));
    // Not issued, so not said; a number of its own is valid.
    for line in [7, 8] {
        assert_eq!(cell(&b, line, "result_status"), "skipped");
        assert_eq!(cell(&b, line, "result_errors"), "");
    }
    for line in 9..=12 {
        assert_eq!(cell(&b, line, "result_status"), "valid", "line {line}");
    }
    // Checked alone, b.csv has nothing to say.
    let o = run(dir.path(), &["check", "--now", NOW, "b.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_date_with_a_two_digit_year_is_one_finding_on_its_cell_not_also_on_the_delivery_date() {
    // Xero: INV-0101's first row (line 2) dated 02/11/26 (its other rows say 02/11/2026);
    // INV-0102 (line 5) dated 10/11/1999, four digits but too early. Xero gives no delivery date:
    // it is the issue date, and is not said wrong a second time.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[(2, "InvoiceDate", "02/11/26"), (5, "InvoiceDate", "10/11/1999")],
    );
    let o = run(dir.path(), &["check", "--now", NOW, "x.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    assert_eq!(
        cell(&rows, 2, "result_errors"),
        "INV-MAP-VALUE InvoiceDate \"02/11/26\": the year is written with 2 digits (26); write it with four \
         (2026), or, if the export writes every year with two, read them with DD/MM/YY (date_format = \
         \"%d/%m/%y\" in the mapping)"
    );
    // The other rows repeat the date in full: the first row's own error is the one fix.
    for line in [3, 4] {
        assert!(
            cell(&rows, line, "result_errors").starts_with("INV-DOCUMENT"),
            "line {line}: {}",
            cell(&rows, line, "result_errors")
        );
    }
    let errors = cell(&rows, 5, "result_errors");
    assert_eq!(errors.matches("BR-KSA-F-01").count(), 1, "{errors}");
    assert!(errors.starts_with("BR-KSA-F-01 InvoiceDate "), "{errors}");
    assert!(!errors.contains("actual_delivery_date"), "{errors}");
}

#[test]
fn a_finding_on_a_cell_quotes_the_cells_text_not_the_value_computed_from_it() {
    // Xero: INV-0105's first line (line 9) says its net is 9,999.00 (the export's own figure,
    // compared); INV-0102 (line 5), simplified, was issued more than 24 hours before NOW.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[(9, "LineAmount", "9,999.00")],
    );
    let o = run(dir.path(), &["check", "--now", NOW, "x.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    let e = cell(&rows, 9, "result_errors");
    assert!(e.starts_with("INV-ERP-LINE-NET LineAmount \"9,999.00\": "), "{e}");
    let w = cell(&rows, 5, "result_warnings");
    assert!(w.starts_with("BR-KSA-98 InvoiceDate \"10/11/2026\": "), "{w}");
}

#[test]
fn a_document_whose_amounts_could_not_be_read_has_no_amounts_in_documents_csv() {
    // Xero: INV-0107 (lines 14-15) with no price readable on either line; INV-0105 (lines 9-12)
    // with one quantity that is not a number. Their amounts are not the documents': no figure
    // is claimed for them, not 0.00 nor the sum of the lines that could be read.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[
            (14, "UnitAmount", "abc"),
            (15, "UnitAmount", "n/a"),
            (10, "Quantity", "two"),
        ],
    );
    let o = run(dir.path(), &["check", "--now", NOW, "x.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let docs = std::fs::read_to_string(dir.path().join("results/x.documents.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(docs.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let amounts: Vec<&str> = ["net", "vat", "vat_sar", "gross", "payable"]
            .iter()
            .map(|c| &rec[col(c)])
            .collect();
        match &rec[col("document")] {
            "INV-0107" | "INV-0105" => {
                assert_eq!(&rec[col("status")], "invalid");
                assert!(amounts.iter().all(|a| a.is_empty()), "{rec:?}");
                // What is known of it is kept.
                assert_eq!(&rec[col("kind")], "invoice", "{rec:?}");
                assert!(!rec[col("issue_date")].is_empty(), "{rec:?}");
            }
            "INV-0103" | "INV-0104" => assert!(amounts.iter().all(|a| a.is_empty())),
            _ => assert!(amounts.iter().all(|a| !a.is_empty()), "{rec:?}"),
        }
    }
    // The report reads them: the invalid documents count, without amounts.
    let out = super::bin()
        .current_dir(dir.path())
        .args(["--json", "report", "results"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = report.to_string();
    assert!(!text.contains("inconsistent"), "{text}");
}

#[test]
fn a_document_held_back_as_incomplete_is_not_also_told_its_totals_differ() {
    let dir = tempfile::tempdir().unwrap();
    // Xero: INV-0105 (lines 9-12) with no number on its last row (line 12): held back
    // (`INV-MAP-ORPHAN`), as that row may be one of its lines. Its mapped totals (Total,
    // TaxTotal) count that line, the three rows read do not: the difference says nothing the
    // hold-back does not (the document is incomplete), so no `INV-ERP-TOTAL` and the like on it.
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[(12, "InvoiceNumber", "")],
    );
    let out = run(dir.path(), &["check", "x.csv", "--now", NOW, "--results", "r"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = result_rows(&dir.path().join("r/x.result.csv"));
    let errors = cell(&rows, 9, "result_errors");
    assert!(
        errors.starts_with("INV-MAP-ORPHAN InvoiceNumber \"INV-0105\""),
        "{errors}"
    );
    let all: String = (9..=11)
        .map(|l| cell(&rows, l, "result_errors") + &cell(&rows, l, "result_warnings"))
        .collect();
    assert!(!all.contains("INV-ERP-"), "{all}");
    // The line figures are still compared: a line whose own figures disagree is still said.
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "y.csv",
        &[(12, "InvoiceNumber", ""), (10, "LineAmount", "999.00")],
    );
    let out = run(dir.path(), &["check", "y.csv", "--now", NOW, "--results", "r"]);
    assert_eq!(out.status.code(), Some(1));
    let rows = result_rows(&dir.path().join("r/y.result.csv"));
    assert!(
        cell(&rows, 10, "result_errors").contains("INV-ERP-LINE-NET"),
        "{rows:?}"
    );
    assert!(!cell(&rows, 9, "result_errors").contains("INV-ERP-TOTAL"), "{rows:?}");

    // A document in two parts (INV-0102's second row, line 6, moved to the end): neither part
    // adds up to the export's totals, and neither is told so.
    let text = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.trim_matches(',').is_empty()).collect();
    let moved = lines.remove(5);
    assert!(moved.contains(",INV-0102,"), "{moved}");
    lines.push(moved);
    std::fs::write(dir.path().join("z.csv"), lines.join("\n") + "\n").unwrap();
    let out = run(dir.path(), &["check", "z.csv", "--now", NOW, "--results", "r"]);
    assert_eq!(out.status.code(), Some(1));
    let rows = result_rows(&dir.path().join("r/z.result.csv"));
    for line in [5, 15] {
        let errors = cell(&rows, line, "result_errors");
        assert!(
            errors.starts_with("INV-MAP-SPLIT") && !errors.contains("INV-ERP-"),
            "{errors}"
        );
    }
}

/// A credit note naming an invoice that is in no file checked, with no original date mapped: one
/// warning, on the reference's column, saying what to do; the rules' reference-form warning,
/// which it explains, is not said again.
#[test]
fn a_credit_note_whose_invoice_date_is_unknown_is_told_once_on_its_reference_column() {
    let dir = tempfile::tempdir().unwrap();
    edited(
        dir.path(),
        "xero_sales_invoices.csv",
        "x.csv",
        &[(13, "Reference", "INV-NOPE")],
    );
    let out = run(dir.path(), &["check", "--now", NOW, "x.csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    assert_eq!(cell(&rows, 13, "result_status"), "valid");
    let warnings = cell(&rows, 13, "result_warnings");
    assert!(!warnings.contains("INV-BILLING-REFERENCE-FORM"), "{warnings}");
    let said: Vec<&str> = warnings
        .split(" | ")
        .filter(|w| w.starts_with("INV-MAP-REFERENCE"))
        .collect();
    assert_eq!(
        said,
        [
            "INV-MAP-REFERENCE Reference \"INV-NOPE\": the issue date of the corrected invoice INV-NOPE is unknown: the \
         mapping reads no original_date and the invoice is not above the note in this file (nor in a file checked \
         before it), so the billing reference gives its number only; map original_date to the column holding it, \
         or issue the invoice before its notes: `run` finds its date in the ledger once it is issued (in an \
         earlier run, from a file of the same run read before this one, or from this file when it is above the \
         note, or below it among the documents sent together with it)"
        ]
    );
}

//! Files as they really come: broken lines, bytes in another encoding, a reader that goes away.

use super::{NOW, bin, result_rows, samples};
use std::process::Stdio;

/// `check --json | head -c 0`: the reader of stdout has gone before anything is written. The
/// command still does its work and exits with its own status, without a panic.
#[test]
fn a_closed_stdout_does_not_panic_the_command() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("sage50_invoices.csv"), dir.path().join("sage50.csv")).unwrap();
    for json in [true, false] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut cmd = bin();
        cmd.current_dir(dir.path());
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .args(["check", "sage50.csv", "--now", NOW])
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !stderr.contains("could not write"),
            "a closed pipe is not worth a warning: {stderr}"
        );
        assert_eq!(out.status.code(), Some(1), "sage50 has invalid documents: {stderr}");
        // The work was done.
        let rows = result_rows(&dir.path().join("results/sage50.result.csv"));
        assert!(rows.len() > 5);
    }
}

/// The Sage 50 sample's lines, its BOM and its blank lines (only commas) taken off.
pub(super) fn sage_lines() -> Vec<String> {
    let text = std::fs::read_to_string(samples().join("sage50_invoices.csv")).unwrap();
    text.trim_start_matches('\u{feff}')
        .lines()
        .filter(|l| !l.trim_matches(',').is_empty())
        .map(str::to_string)
        .collect()
}

/// Check `name` in `dir` (the sample's lookup tables beside it): its result rows.
pub(super) fn checked(dir: &std::path::Path, name: &str) -> Vec<Vec<String>> {
    for table in ["customers.csv", "credit_notes.csv"] {
        std::fs::copy(samples().join(table), dir.join(table)).unwrap();
    }
    let out = super::run(dir, &["check", name, "--now", NOW, "-q"]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stem = name.trim_end_matches(".csv");
    result_rows(&dir.join(format!("results/{stem}.result.csv")))
}

/// `column` of the result row of input line `line` (the header is line 1).
pub(super) fn cell(rows: &[Vec<String>], line: usize, column: &str) -> String {
    let at = rows[0].iter().position(|h| h == column).unwrap();
    rows[line - 1][at].clone()
}

#[test]
fn a_comma_in_an_unquoted_value_is_one_error_on_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = sage_lines();
    // SI-1001's first line: `"1,150.00"` written without its quotes shifts the cells after it.
    lines[1] = lines[1].replace("\"1,150.00\"", "1,150.00");
    std::fs::write(dir.path().join("shifted.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "shifted.csv");
    assert_eq!(rows.len(), lines.len(), "every input row has its result row");
    let errors = cell(&rows, 2, "result_errors");
    assert!(
        errors.starts_with("INV-ROW-CELLS \"345.00\": line 2 has 13 cells but the header has 12 columns"),
        "{errors}"
    );
    assert!(
        !errors.contains(" | "),
        "the shifted cells' findings are not repeated: {errors}"
    );
    assert_eq!(cell(&rows, 2, "result_status"), "invalid");
    assert_eq!(
        cell(&rows, 3, "result_status"),
        "invalid",
        "the rest of SI-1001 is held back"
    );
    assert_eq!(cell(&rows, 4, "result_status"), "valid");
}

/// A document's first row with its cells shifted is not the row its document is read from: its
/// other rows, which repeat the document's Status, are not said to contradict its shifted one.
#[test]
fn a_comma_in_an_unquoted_value_of_a_documents_first_row_is_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let mut lines: Vec<String> = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::to_string)
        .collect();
    // INV-0101's first line (of three): its LineAmount written as 6,555.00, unquoted.
    assert!(lines[1].contains(",INV-0101,") && lines[3].contains(",INV-0101,"));
    lines[1] = lines[1].replace(",6555.00,", ",6,555.00,");
    std::fs::write(dir.path().join("xero.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "xero.csv");
    let errors = cell(&rows, 2, "result_errors");
    assert!(
        errors.starts_with("INV-ROW-CELLS \"Paid\": line 2 has 45 cells"),
        "{errors}"
    );
    assert!(!errors.contains(" | "), "{errors}");
    for line in [3, 4] {
        assert_eq!(
            cell(&rows, line, "result_errors"),
            "INV-DOCUMENT: the document has errors on another row (line 2)",
            "line {line}: nothing about the shifted row's Status"
        );
    }
    assert_eq!(cell(&rows, 5, "result_status"), "valid");
}

#[test]
fn a_line_cut_short_says_which_columns_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = sage_lines();
    lines.insert(3, "SI-1001,OFUQ001,03/11/2026,X-1,Broken".into());
    std::fs::write(dir.path().join("short.csv"), lines.join("\n")).unwrap();
    let rows = checked(dir.path(), "short.csv");
    assert_eq!(rows.len(), lines.len());
    let warnings = cell(&rows, 4, "result_warnings");
    assert!(
        warnings.starts_with(
            "INV-ROW-SHORT TAX_CODE: the line has 5 cells but the header has 12 columns: TAX_CODE, \
             QTY_ORDER, UNIT_PRICE, NET_AMOUNT, TAX_AMOUNT are read as blank"
        ),
        "{warnings}"
    );
    // A whole line has no such warning.
    assert_eq!(cell(&rows, 2, "result_warnings"), "");
}

#[test]
fn a_quote_that_takes_in_the_lines_after_it_is_said_on_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let lines = sage_lines();
    // Closed by a later quote in the file: two lines read into one cell.
    let mut later = lines.clone();
    later[3] = later[3].replace("Notebook A5", "\"Notebook A5");
    std::fs::write(dir.path().join("later.csv"), later.join("\n")).unwrap();
    let rows = checked(dir.path(), "later.csv");
    assert_eq!(rows.len(), lines.len() - 2, "two lines went into the cell");
    let errors = cell(&rows, 4, "result_errors");
    assert!(
        errors.starts_with("INV-ROW-QUOTE DESCRIPTION \"Notebook A5 | دفتر,4000,1,T1,20,7.50,150.00,22.50…\": the quote (\") that opens this cell on line 4 is closed only 2 line(s) later"),
        "{errors}"
    );
    assert!(!errors.contains(" | INV-"), "one finding: {errors}");
    // Never closed: every line to the end of the file.
    let mut never = lines.clone();
    never[1] = never[1].replace("Laser printer", "\"Laser printer");
    let never: Vec<String> = never.iter().map(|l| l.replace("\"1,150.00\"", "1150.00")).collect();
    std::fs::write(dir.path().join("never.csv"), never.join("\n") + "\n").unwrap();
    let rows = checked(dir.path(), "never.csv");
    assert_eq!(rows.len(), 2, "the header and the row whose cell took in the rest");
    let errors = cell(&rows, 2, "result_errors");
    assert!(
        errors.contains(&format!(
            "the quote (\") that opens this cell on line 2 is never closed, so the {} line(s) after it, to the end of the file, were read into this cell",
            lines.len() - 2
        )),
        "{errors}"
    );
}

#[test]
fn a_row_with_bytes_that_are_not_utf8_keeps_its_cells_and_its_document() {
    let dir = tempfile::tempdir().unwrap();
    // Past the first 256 KiB, which decide the encoding: the file is UTF-8 (Arabic item names).
    let out = bin()
        .current_dir(dir.path())
        .args([
            "generate",
            "--layout",
            "sage50",
            "--rows",
            "3000",
            "--seed",
            "3",
            "--today",
            "2026-11-21",
        ])
        .args(["--out", "big.csv", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<Vec<u8>> = std::fs::read(dir.path().join("big.csv"))
        .unwrap()
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let target = 2990; // line 2991
    let mut cells: Vec<Vec<u8>> = lines[target].split(|&b| b == b',').map(<[u8]>::to_vec).collect();
    let number = String::from_utf8(cells[0].clone()).unwrap();
    cells[4] = vec![0xD8, 0xD1, 0xCF]; // "طرد" in windows-1256
    lines[target] = cells.join(&b',');
    std::fs::write(dir.path().join("big.csv"), lines.join(&b'\n')).unwrap();
    let out = super::run(dir.path(), &["check", "big.csv", "--now", NOW, "-q"]);
    assert!(out.status.code().is_some_and(|c| c <= 1));
    let rows = result_rows(&dir.path().join("results/big.result.csv"));
    assert_eq!(rows.len(), 3001);
    assert_eq!(cell(&rows, 2991, "INVOICE_NUMBER"), number, "the row keeps its cells");
    assert_eq!(cell(&rows, 2991, "result_document"), number, "and its document");
    assert!(
        cell(&rows, 2991, "result_errors").starts_with(
            "INV-ROW-READ DESCRIPTION \"\u{FFFD}\u{FFFD}\u{FFFD}\": the cell holds bytes that are not valid UTF-8"
        ),
        "{}",
        cell(&rows, 2991, "result_errors")
    );
    assert_eq!(cell(&rows, 2991, "result_status"), "invalid");
}

#[test]
fn a_lookup_table_that_is_not_there_is_said_on_every_document_that_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    for sample in ["xero_sales_invoices.csv", "sage50_invoices.csv"] {
        std::fs::copy(samples().join(sample), dir.path().join(sample)).unwrap();
    }
    // No customers.csv anywhere (not `super::run`, which puts one beside the exports).
    let check = || {
        super::bin()
            .current_dir(dir.path())
            .args(["check", ".", "--now", NOW, "-q"])
            .output()
            .unwrap()
    };
    let out = check();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let xero = result_rows(&dir.path().join("results/xero_sales_invoices.result.csv"));
    // INV-0101's buyer has a VAT number in customers.csv: without it, the invoice would go out
    // as simplified, so it is not issued, and its first row says why and what to put where.
    let first = cell(&xero, 2, "result_errors");
    assert!(
        first.starts_with(
            "INV-MAP-LOOKUP-FILE ContactName \"Al Ofuq Trading Co.\": customers.csv was not found (it is looked for \
             beside the mapping, in the configuration's lookups_dir and folder, and beside the export): the \
             buyers' VAT numbers come from it, so without it this document would go out as simplified (B2C) even \
             for a VAT-registered buyer: it is not sent (one issued earlier stays issued, reported from the ledger). Put \
             customers.csv there"
        ) && first.ends_with(
            "a customers.csv of its header line alone (name,vat_number,id_scheme,id,building_number,plot,district) \
             says so"
        ),
        "{first}"
    );
    // Every document of the file is held back, walk-in buyers too (the table would say which
    // buyers have a VAT number); skipped ones stay skipped.
    let statuses: Vec<String> = (2..=xero.len()).map(|l| cell(&xero, l, "result_status")).collect();
    assert!(
        statuses.iter().all(|s| s == "invalid" || s == "skipped"),
        "{statuses:?}"
    );
    assert_eq!(statuses.iter().filter(|s| *s == "invalid").count(), 12, "{statuses:?}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("results/xero_sales_invoices.summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["rejections"]["INV-MAP-LOOKUP-FILE"]["documents"]["invalid"], 5);
    assert!(
        summary["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().starts_with(
            "lookup file customers.csv not found beside the export or the mapping: the buyers' VAT numbers come from it, \
             so no document whose type they decide is issued (INV-MAP-LOOKUP-FILE, on each)"
        )),
        "{summary:#}"
    );
    let sage = result_rows(&dir.path().join("results/sage50_invoices.result.csv"));
    let last = sage.len();
    assert_eq!(cell(&sage, last, "result_document"), "SCN-2001");
    assert!(
        cell(&sage, last, "result_errors").contains(
            "INV-MAP-REFERENCE credit_notes.csv: a credit note must name the invoice it corrects, which is looked \
             up for \"SCN-2001\" in credit_notes.csv, but that file was not found"
        ),
        "{}",
        cell(&sage, last, "result_errors")
    );

    // A table of its header line alone: no buyer has a VAT number, each is told so, and the
    // documents are issued as simplified.
    std::fs::write(
        dir.path().join("customers.csv"),
        "name,vat_number,id_scheme,id,building_number,plot,district\n",
    )
    .unwrap();
    let out = check();
    let xero = result_rows(&dir.path().join("results/xero_sales_invoices.result.csv"));
    assert_eq!(
        cell(&xero, 2, "result_status"),
        "valid",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        cell(&xero, 2, "result_warnings")
            .starts_with("INV-MAP-LOOKUP ContactName \"Al Ofuq Trading Co.\": not found in customers.csv: the buyer has no VAT number"),
        "{}",
        cell(&xero, 2, "result_warnings")
    );
    assert!((2..=xero.len()).all(|l| !cell(&xero, l, "result_errors").contains("INV-MAP-LOOKUP-FILE")));
}

#[test]
fn a_file_that_is_only_a_byte_order_mark_is_empty_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bom.csv"), b"\xef\xbb\xbf").unwrap();
    std::fs::write(dir.path().join("spaces.csv"), b"\xef\xbb\xbf  \r\n \n").unwrap();
    std::fs::write(dir.path().join("wide.csv"), b"\xff\xfe\r\0\n\0").unwrap();
    for (name, what) in [
        (
            "bom.csv",
            "it holds only a byte-order mark (the 3 bytes that mark UTF-8 text)",
        ),
        (
            "spaces.csv",
            "it holds only a byte-order mark (the 3 bytes that mark UTF-8 text) and blank lines",
        ),
        (
            "wide.csv",
            "it holds only a byte-order mark (the 2 bytes that mark UTF-16 text) and blank lines",
        ),
    ] {
        for mapping in [&[][..], &["--mapping", "xero"][..]] {
            let mut args = vec![name];
            args.extend_from_slice(mapping);
            let (code, report, _) = super::check_json(dir.path(), &args);
            assert_eq!(code, 2, "{report:#}");
            assert_eq!(
                report["files"][0]["error"].as_str().unwrap(),
                format!(
                    "{name} is empty ({what}, no header and no rows); export the data again and check that the \
                     export finished"
                ),
                "{mapping:?}"
            );
        }
    }
}

#[test]
fn a_header_named_twice_is_an_error_when_the_mapping_reads_it_and_a_note_when_not() {
    // Xero with a second "Total" column at the end (the mapping compares Total with the
    // computed total: which one?), and, apart, a second TrackingName1 (not read).
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let lines = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let with = |extra: &str| -> String {
        lines
            .lines()
            .enumerate()
            .map(|(i, l)| match i {
                0 => format!("{l},{extra}\n"),
                // The sample's blank lines (only commas) stay blank.
                _ if l.trim_matches(',').is_empty() => format!("{l},\n"),
                _ => format!("{l},1.00\n"),
            })
            .collect()
    };
    std::fs::write(dir.path().join("total.csv"), with("Total")).unwrap();
    std::fs::write(dir.path().join("tracking.csv"), with("TrackingName1")).unwrap();
    for mapping in [&[][..], &["--mapping", "xero"][..]] {
        let mut args = vec!["total.csv"];
        args.extend_from_slice(mapping);
        let (code, report, _) = super::check_json(dir.path(), &args);
        assert_eq!(code, 2, "{report:#}");
        assert_eq!(
            report["files"][0]["error"].as_str().unwrap(),
            "total.csv: 2 columns are named \"Total\" (columns 24 and 45), and mapping mappings/xero.toml \
             (bundled) reads \"Total\" (fields.\"erp.total\"): it cannot tell which to read; rename or remove \
             all but one of them in the export"
        );
    }
    let (code, report, _) = super::check_json(dir.path(), &["tracking.csv"]);
    assert_eq!(code, 0, "{report:#}");
    let notes = report["files"][0]["notes"].to_string();
    assert!(
        notes.contains("\\\"TrackingName1\\\" (column 45) is called \\\"TrackingName1 (2)\\\""),
        "{notes}"
    );
}

/// A CSV saved from a spreadsheet whose formulas failed: Excel writes the error as text
/// (`#REF!`, `#N/A`). Read as the error it is, as in a workbook: a document number that is one
/// makes the row stand alone and holds the document above back (it may be its line), a
/// quantity that is one is no quantity. Nothing is issued under the number "#REF!".
#[test]
fn a_spreadsheet_error_written_into_a_csv_is_no_value_and_no_document_number() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let header: Vec<&str> = lines[0].trim_start_matches('\u{feff}').split(',').collect();
    let number = header.iter().position(|h| *h == "InvoiceNumber").unwrap();
    let quantity = header.iter().position(|h| *h == "Quantity").unwrap();
    // INV-0101 is lines 2-4; INV-0102 starts on line 5. Its quoted cells, if any, come after
    // the columns edited here.
    let edit = |line: &mut String, at: usize, value: &str| {
        let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
        cells[at] = value.to_string();
        *line = cells.join(",");
    };
    assert!(lines[3].split(',').nth(number) == Some("INV-0101"), "{}", lines[3]);
    assert!(lines[4].split(',').nth(number) == Some("INV-0102"), "{}", lines[4]);
    edit(&mut lines[3], number, "#REF!");
    edit(&mut lines[4], quantity, "#N/A");
    std::fs::write(dir.path().join("x.csv"), lines.join("\n") + "\n").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "x.csv", "--now", NOW, "--results", "r"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = result_rows(&dir.path().join("r/x.result.csv"));
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let said = |r: usize| {
        (
            rows[r][at("result_status")].as_str(),
            rows[r][at("result_errors")].as_str(),
        )
    };
    assert_eq!(said(1).0, "invalid");
    assert!(
        said(1).1.starts_with(
            "INV-MAP-ORPHAN InvoiceNumber \"INV-0101\": the row after this document's last row (line 4) has the \
             spreadsheet error #REF! for its document number"
        ),
        "{:?}",
        said(1)
    );
    assert_eq!(said(3).0, "invalid");
    assert!(
        said(3).1.starts_with(
            "INV-MAP-NUMBER InvoiceNumber \"#REF!\": no document number in this row (InvoiceNumber holds the \
             spreadsheet error #REF!, not a number"
        ),
        "{:?}",
        said(3)
    );
    assert_eq!(rows[3][at("result_document")], "", "no document named #REF!");
    assert_eq!(said(4).0, "invalid");
    assert!(
        said(4)
            .1
            .starts_with("INV-MAP-VALUE Quantity \"#N/A\": the cell holds the spreadsheet error #N/A"),
        "{:?}",
        said(4)
    );
    assert_eq!(rows[3][at("InvoiceNumber")], "#REF!", "the row as read");
}

#[test]
fn an_export_with_its_header_and_no_row_passes_with_a_note_saying_so() {
    // A nightly export of a day without invoices holds only its header: not an error, but said
    // (an export that stopped early looks the same), where a 0-byte file is an error.
    let dir = tempfile::tempdir().unwrap();
    let lines = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let header = lines.lines().next().unwrap();
    std::fs::write(dir.path().join("header_only.csv"), format!("{header}\r\n\r\n")).unwrap();
    let (code, report, _) = super::check_json(dir.path(), &["header_only.csv"]);
    assert_eq!(code, 0, "{report:#}");
    let f = &report["files"][0];
    assert_eq!(f["rows"], 0, "{report:#}");
    assert!(f["error"].is_null(), "{report:#}");
    let notes: Vec<&str> = f["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("the export holds its header and no row") && n.contains("export it again")),
        "{notes:?}"
    );
    // In words: the note, and the rows line without an empty "()".
    let out = super::run(dir.path(), &["check", "--now", super::NOW, "header_only.csv"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("note: the export holds its header and no row"), "{text}");
    assert!(text.contains("  rows: 0\n"), "{text}");
    assert!(!text.contains("()"), "{text}");
    // A file with rows has no such note.
    let (_, report, _) = super::check_json(
        &samples(),
        &[
            "xero_sales_invoices.csv",
            "--results",
            dir.path().join("r").to_str().unwrap(),
        ],
    );
    let notes = report["files"][0]["notes"].to_string();
    assert!(!notes.contains("no row"), "{notes}");
}

/// A result file corrected and given again (the clerk fixes the rejected rows where the messages
/// are): its result columns are the earlier run's; they keep their values under `previous_`
/// names, so that this run's `result_status` is the only one, and a note says so.
#[test]
fn a_result_file_given_again_keeps_its_earlier_results_under_other_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("xero_sales_invoices.csv"), dir.path().join("xero.csv")).unwrap();
    let (code, _, err) = super::check_json(dir.path(), &["xero.csv"]);
    assert!(code == 0 || code == 1, "{err}");
    std::fs::copy(dir.path().join("results/xero.result.csv"), dir.path().join("again.csv")).unwrap();
    let (code, r, err) = super::check_json(dir.path(), &["again.csv"]);
    assert!(code == 0 || code == 1, "{r:#}\n{err}");
    let rows = result_rows(&dir.path().join("results/again.result.csv"));
    let header = &rows[0];
    let named = |n: &str| header.iter().filter(|h| *h == n).count();
    assert_eq!(named("result_status"), 1, "{header:?}");
    assert_eq!(named("previous_result_status"), 1, "{header:?}");
    assert_eq!(header.last().map(String::as_str), Some("result_time"), "{header:?}");
    let notes = super::file(&r, "again.csv")["notes"].to_string();
    assert!(
        notes.contains("the file holds the result columns of an earlier result file"),
        "{notes}"
    );
    // Every row is checked as before: the same statuses, now in the only result_status.
    let first = result_rows(&dir.path().join("results/xero.result.csv"));
    let status = |rows: &[Vec<String>], name: &str| {
        let i = rows[0].iter().rposition(|h| h == name).unwrap();
        rows[1..].iter().map(|r| r[i].clone()).collect::<Vec<_>>()
    };
    assert_eq!(status(&rows, "result_status"), status(&first, "result_status"));
    assert_eq!(status(&rows, "previous_result_status"), status(&first, "result_status"));
}

#[test]
fn a_quickbooks_export_with_multicurrency_columns_is_read_in_its_currency() {
    // QuickBooks Online with multicurrency on: `Currency code` and `Exchange rate` columns. A
    // dollar invoice is in dollars, its VAT in SAR at its rate; none of the columns: SAR.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("qbo.csv"),
        "Invoice no,Customer,Invoice date,Due date,Terms,Memo,Item(Product/Service),Item description,Item quantity,\
         Item rate,Item amount,Item tax code,Currency code,Exchange rate\n\
         2001,Walk-in,13/11/2026,13/12/2026,Net 30,,Desk,Desk,2,100.00,200.00,VAT 15%,USD,3.75\n\
         2002,Walk-in,14/11/2026,14/12/2026,Net 30,,Desk,Desk,2,100.00,200.00,VAT 15%,SAR,1\n",
    )
    .unwrap();
    let out = super::run(dir.path(), &["check", "qbo.csv", "--now", NOW, "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let docs = result_rows(&dir.path().join("results/qbo.documents.csv"));
    let at = |name: &str| docs[0].iter().position(|h| h == name).unwrap();
    let of = |n: &str| docs.iter().find(|r| r[at("document")] == n).unwrap().clone();
    let usd = of("2001");
    assert_eq!(
        (
            usd[at("currency")].as_str(),
            usd[at("vat")].as_str(),
            usd[at("vat_sar")].as_str()
        ),
        ("USD", "30.00", "112.50")
    );
    assert_eq!(of("2002")[at("currency")], "SAR");
}

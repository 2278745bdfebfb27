//! `invoicedrop check` and `invoicedrop mappings`, driving the real binary in temporary folders.

#[path = "check/commands.rs"]
mod commands;
#[path = "check/date_order.rs"]
mod date_order;
#[path = "check/encodings.rs"]
mod encodings;
#[path = "check/erp_lines.rs"]
mod erp_lines;
#[path = "check/findings.rs"]
mod findings;
#[path = "check/input_edges.rs"]
mod input_edges;
#[path = "check/mapping_messages.rs"]
mod mapping_messages;
#[path = "check/misread_cells.rs"]
mod misread_cells;
#[path = "check/notes.rs"]
mod notes;
#[path = "check/row_edges.rs"]
mod row_edges;
#[path = "check/sap_join.rs"]
mod sap_join;
#[path = "check/sheet_xml.rs"]
mod sheet_xml;
#[path = "check/signs.rs"]
mod signs;
#[path = "check/tax_cells.rs"]
mod tax_cells;
#[path = "check/workbooks.rs"]
mod workbooks;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const NOW: &str = "2026-11-21T09:00:00Z";

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
}

/// A customers table of its header line alone (the columns every bundled mapping reads): what a
/// seller whose buyers have no VAT number gives. Without a table, no document whose type the
/// buyer's VAT number decides is valid (`INV-MAP-LOOKUP-FILE`).
const WALK_IN_CUSTOMERS: &str =
    "name,account,vat_number,id_scheme,id,street,building_number,plot,district,city,postal_zone,country\n";

/// Put [`WALK_IN_CUSTOMERS`] in `dir` as `customers.csv`, unless it has one.
fn walk_in_customers(dir: &Path) {
    let path = dir.join("customers.csv");
    if dir.is_dir() && !path.exists() {
        std::fs::write(&path, WALK_IN_CUSTOMERS).unwrap();
    }
}

/// Run in `dir` (no invoicedrop.toml there), results in `dir/results`; the exports in `dir` are
/// of walk-in buyers ([`walk_in_customers`]) unless a test wrote its own `customers.csv`.
fn run(dir: &Path, args: &[&str]) -> Output {
    walk_in_customers(dir);
    bin().current_dir(dir).args(args).output().expect("run invoicedrop")
}

fn check_json(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["check", "--json", "--now", NOW];
    all.extend_from_slice(args);
    let out = run(dir, &all);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn result_rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.starts_with('\u{feff}'), "result files start with a BOM");
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    rdr.records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn file<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with(name))
        .unwrap_or_else(|| panic!("{name} not in the report"))
}

fn payable(f: &Value, number: &str) -> String {
    let d = f["document_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["number"] == number)
        .unwrap_or_else(|| panic!("{number}"));
    d["payable"].as_str().unwrap_or_default().to_string()
}

#[test]
fn every_bundled_sample_passes_with_its_detected_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let (code, r, err) = check_json(dir.path(), &[samples().to_str().unwrap()]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    assert_eq!(r["documents"]["invalid"], 0);
    assert_eq!(r["demo_seller"], true);
    // (file, mapping, documents by kind/type, (a document, its payable amount))
    type Expect<'a> = (&'a str, &'a str, &'a [(&'a str, u64)], (&'a str, &'a str));
    let expect: &[Expect] = &[
        (
            "xero_sales_invoices.csv",
            "xero",
            &[
                ("credit_note/standard", 1),
                ("invoice/simplified", 2),
                ("invoice/standard", 2),
            ],
            ("INV-0101", "8423.75"),
        ),
        (
            "quickbooks_invoices.xlsx",
            "quickbooks-online",
            &[("invoice/simplified", 1), ("invoice/standard", 2)],
            ("1001", "9157.30"),
        ),
        (
            "zoho_invoices.csv",
            "zoho-books",
            &[("invoice/simplified", 1), ("invoice/standard", 2)],
            ("INV-000202", "477.25"),
        ),
        (
            "zoho_credit_notes.csv",
            "zoho-books-credit-notes",
            &[("credit_note/simplified", 1), ("credit_note/standard", 1)],
            ("CN-00011", "495.50"),
        ),
        (
            "odoo_account_move.csv",
            "odoo",
            &[
                ("credit_note/standard", 1),
                ("invoice/simplified", 1),
                ("invoice/standard", 1),
            ],
            ("INV/2026/00031", "9980.95"),
        ),
        (
            "erpnext_sales_invoice.csv",
            "erpnext",
            &[("credit_note/standard", 1), ("invoice/standard", 2)],
            ("ACC-SINV-2026-00013-RET", "1811.25"),
        ),
        (
            "SAP_B1_OINV_Document_Lines.txt",
            "sap-b1-dtw",
            &[("invoice/standard", 2)],
            ("500101", "6950.89"),
        ),
        (
            "sage50_invoices.csv",
            "sage50",
            &[
                ("credit_note/standard", 1),
                ("invoice/simplified", 1),
                ("invoice/standard", 1),
            ],
            ("SCN-2001", "1322.50"),
        ),
        (
            "tally_sales_register.xlsx",
            "tally",
            &[
                ("credit_note/standard", 1),
                ("invoice/simplified", 1),
                ("invoice/standard", 1),
            ],
            ("TS/101", "1736.50"),
        ),
        (
            "legacy_arabic_erp.csv",
            "legacy-arabic",
            &[
                ("credit_note/standard", 1),
                ("invoice/simplified", 1),
                ("invoice/standard", 1),
            ],
            ("ف-2026-055", "222561.35"),
        ),
    ];
    assert_eq!(r["files"].as_array().unwrap().len(), expect.len(), "{r:#}");
    for (name, mapping, kinds, (number, amount)) in expect {
        let f = file(&r, name);
        assert_eq!(f["mapping"], *mapping, "{name}");
        assert_eq!(f["error"], Value::Null, "{name}");
        for (k, n) in *kinds {
            assert_eq!(f["by_kind"][k], *n, "{name} {k}: {}", f["by_kind"]);
        }
        assert_eq!(
            f["by_kind"].as_object().unwrap().len(),
            kinds.len(),
            "{name}: {}",
            f["by_kind"]
        );
        let got: f64 = payable(f, number).parse().unwrap();
        let want: f64 = amount.parse().unwrap();
        assert!(
            (got - want).abs() < 0.001,
            "{name} {number}: payable {got}, expected {want}"
        );
        let rows = result_rows(&dir.path().join(f["result_file"].as_str().unwrap()));
        let status_col = rows[0].iter().position(|h| h == "result_status").unwrap();
        for row in &rows[1..] {
            assert!(
                ["valid", "skipped"].contains(&row[status_col].as_str()),
                "{name}: {row:?}"
            );
        }
    }
    // Drafts and voided invoices are skipped with the reason.
    let xero = file(&r, "xero_sales_invoices.csv");
    assert_eq!(xero["documents"]["skipped"], 2);
    let skipped = r["skipped_files"].as_array().unwrap();
    assert!(skipped.iter().any(|s| s.as_str().unwrap().contains("customers.csv")));
    assert!(
        skipped
            .iter()
            .any(|s| s.as_str().unwrap().contains("SAP_B1_OINV_Documents.txt"))
    );
}

#[test]
fn the_result_file_repeats_every_input_row_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let mut lines: Vec<&str> = src.lines().collect();
    let header = lines[0].trim_start_matches('\u{feff}').to_string();
    // Concatenated exports: the header repeated, and INV-0101 again at the end.
    lines.insert(6, &header);
    let again = lines[1].to_string();
    lines.push(&again);
    // Windows line ends, and the lone `\r` of Excel for Mac's "CSV (Macintosh)".
    for (name, end) in [("messy", "\r\n"), ("messy_mac", "\r")] {
        let input = dir.path().join(format!("{name}.csv"));
        std::fs::write(&input, lines.join(end)).unwrap();
        let (code, r, _) = check_json(dir.path(), &["--mapping", "xero", input.to_str().unwrap()]);
        assert_eq!(code, 1, "{r:#}");
        let rows = result_rows(&dir.path().join(format!("results/{name}.result.csv")));
        let input_rows: Vec<Vec<String>> = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(lines.join("\n").trim_start_matches('\u{feff}').as_bytes())
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        // Every line, the sample's two rows of commas now between data rows included (skipped):
        // line N of the input is line N of the result file.
        assert_eq!(rows.len() - 1, input_rows.len());
        let status = rows[0].iter().position(|h| h == "result_status").unwrap();
        for (out, inp) in rows[1..].iter().zip(&input_rows) {
            assert_eq!(&out[..inp.len()], &inp[..], "input columns unchanged and in order");
            assert!(!out[status].is_empty());
        }
        assert_eq!(rows[6][status], "skipped", "the repeated header line");
        let document = rows[0].iter().position(|h| h == "result_document").unwrap();
        assert_eq!(rows[6][document], "", "a repeated header line is no document's row");
        assert!(!rows[5][document].is_empty());
        // INV-0101 again at the end: both its parts are invalid (run would send neither), each
        // saying where the other is.
        let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
        let last_line = lines.len(); // INV-0101 again, on the last line
        for part in [&rows[1], rows.last().unwrap()] {
            assert_eq!(part[status], "invalid");
            assert!(
                part[errors].contains("INV-MAP-SPLIT")
                    && part[errors].contains(&format!("parts start at lines 2 and {last_line}")),
                "{}",
                part[errors]
            );
        }
    }
}

#[test]
fn header_variants_xero_stars_and_quickbooks_spaced_names_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let starred = src
        .replacen("ContactName,", "*ContactName,", 1)
        .replacen(",InvoiceNumber,", ",*InvoiceNumber,", 1);
    std::fs::write(dir.path().join("xero_template.csv"), starred).unwrap();
    std::fs::write(
        dir.path().join("qb.csv"),
        "Invoice number,Customer,Invoice date,Item description,Item Quantity,Item Rate,Item Amount,Item tax code\n\
         Q-1,Al Ofuq Trading Co.,11/05/2026,Desk,2,100.00,200.00,VAT 15%\n\
         Q-1,Al Ofuq Trading Co.,11/05/2026,Chair,1,50.00,50.00,VAT 15%\n\
         Q-2,Al Ofuq Trading Co.,11/19/2026,Desk,1,100.00,100.00,VAT 15%\n",
    )
    .unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let (code, r, err) = check_json(dir.path(), &[dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    assert_eq!(file(&r, "xero_template.csv")["mapping"], "xero");
    let qb = file(&r, "qb.csv");
    assert_eq!(qb["mapping"], "quickbooks-online");
    // MM/DD/YYYY, as 11/19/2026 shows (a US company file; alone, 11/05/2026 would read both
    // ways: INV-MAP-DATE-AMBIGUOUS): 11/05/2026 is November 5th; the buyer from customers.csv
    // makes it standard.
    assert_eq!(qb["by_kind"]["invoice/standard"], 2);
    assert_eq!(payable(qb, "Q-1"), "287.50");
}

#[test]
fn a_missing_column_names_it_and_the_closest_header() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    std::fs::write(
        dir.path().join("x.csv"),
        src.replacen(",InvoiceDate,", ",InvoiceDat,", 1),
    )
    .unwrap();
    let out = run(dir.path(), &["check", "--mapping", "xero", "--now", NOW, "x.csv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("x.csv") && err.contains("\"InvoiceDate\"") && err.contains("closest header is \"InvoiceDat\""),
        "{err}"
    );
    // Detection says which mapping came closest and what it misses.
    let out = run(dir.path(), &["check", "--now", NOW, "x.csv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("xero") && err.contains("InvoiceDate"), "{err}");
}

#[test]
fn a_rate_column_is_not_taken_for_the_column_it_is_the_rate_of() {
    // Zoho's export without its `Item Tax` column (the tax's name), but with `Item Tax %` (its
    // rate): the mapping's `Item Tax` is missing, not read from the rate column.
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("zoho_invoices.csv")).unwrap();
    let src = src.trim_start_matches('\u{feff}');
    let mut rdr = csv::ReaderBuilder::new().flexible(true).from_reader(src.as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let drop = headers.iter().position(|h| h == "Item Tax").unwrap();
    assert!(headers.iter().any(|h| h == "Item Tax %"));
    let mut out = csv::Writer::from_writer(Vec::new());
    let keep = |r: &csv::StringRecord| -> Vec<String> {
        r.iter()
            .enumerate()
            .filter(|(i, _)| *i != drop)
            .map(|(_, c)| c.to_string())
            .collect()
    };
    out.write_record(keep(&headers)).unwrap();
    for r in rdr.records() {
        out.write_record(keep(&r.unwrap())).unwrap();
    }
    std::fs::write(dir.path().join("z.csv"), out.into_inner().unwrap()).unwrap();
    let out = run(dir.path(), &["check", "--mapping", "zoho-books", "--now", NOW, "z.csv"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"Item Tax\"") && err.contains("closest header is \"Item Tax %\""),
        "{err}"
    );
    let out = run(dir.path(), &["check", "--now", NOW, "z.csv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("zoho-books (90%, missing \"Item Tax\")"), "{err}");
}

#[test]
fn a_bad_date_or_number_invalidates_that_document_only() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("sage50_invoices.csv")).unwrap();
    let bad = src.replacen("03/11/2026", "31/02/2026", 1).replacen("7.50", "7.5O", 1);
    std::fs::write(dir.path().join("sage.csv"), bad).unwrap();
    for side in ["customers.csv", "credit_notes.csv"] {
        std::fs::copy(samples().join(side), dir.path().join(side)).unwrap();
    }
    let out = run(dir.path(), &["check", "--now", NOW, "sage.csv"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "sage.csv line 2: INV-MAP-VALUE INVOICE_DATE \"31/02/2026\": no such date: written as DD/MM/YYYY but \
             there is no such day"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "sage.csv line 4: INV-MAP-VALUE UNIT_PRICE \"7.5O\": not a number (write it in digits, e.g. 1234.50)"
        ),
        "{stdout}"
    );
    let rows = result_rows(&dir.path().join("results/sage.result.csv"));
    let status: Vec<&str> = rows[1..].iter().map(|r| r[12].as_str()).collect();
    assert_eq!(status, ["invalid", "invalid", "invalid", "invalid", "valid"]);
    // Several formats, and a time: each as a clerk reads it, never in strftime.
    let tally = std::fs::read_to_string(samples().join("../mappings/tally.toml")).unwrap();
    let mine = tally.replace(
        "issue_date = \"Date\"",
        "issue_date = \"Date\"\nissue_time = { column = \"Narration\", format = [\"%H:%M\", \"%I:%M %p\"] }",
    );
    assert_ne!(mine, tally);
    std::fs::write(dir.path().join("mine.toml"), mine).unwrap();
    std::fs::copy(samples().join("tally_sales_register.xlsx"), dir.path().join("t.xlsx")).unwrap();
    let out = run(dir.path(), &["check", "--now", NOW, "t.xlsx", "--mapping", "mine.toml"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("not a time in the format hh:mm or hh:mm AM/PM") && !stdout.contains("%H"),
        "{stdout}"
    );
}

#[test]
fn a_row_that_contradicts_its_documents_first_row_is_invalid_and_says_both_values() {
    // Line 6 of the Xero sample is the second row of INV-0102 (Walk-in Customer, 10/11/2026):
    // another buyer and another date there, as when two invoices end up sharing a number.
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    assert!(lines[5].starts_with("Walk-in Customer,") && lines[5].contains(",INV-0102,,10/11/2026,"));
    lines[5] = lines[5]
        .replacen("Walk-in Customer,", "Gulf Medical Supplies LLC,", 1)
        .replacen(",10/11/2026,", ",11/11/2026,", 1);
    std::fs::write(dir.path().join("xero.csv"), lines.join("\n") + "\n").unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let out = run(dir.path(), &["check", "--now", NOW, "xero.csv"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "xero.csv line 6: INV-MAP-CONFLICT ContactName \"Gulf Medical Supplies LLC\": line 5, this document's \
             first row, says \"Walk-in Customer\""
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("xero.csv line 6: INV-MAP-CONFLICT InvoiceDate \"11/11/2026\": line 5"),
        "{stdout}"
    );
    let rows = result_rows(&dir.path().join("results/xero.result.csv"));
    let status = rows[0].iter().position(|h| h == "result_status").unwrap();
    let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
    // The whole document is held back; the documents around it are not.
    let of: Vec<(&str, &str)> = rows[3..7]
        .iter()
        .map(|r| (r[18].as_str(), r[status].as_str()))
        .collect();
    assert_eq!(
        of,
        [
            ("INV-0101", "valid"),
            ("INV-0102", "invalid"),
            ("INV-0102", "invalid"),
            ("INV-0103", "skipped")
        ]
    );
    assert!(
        rows[5][errors].contains("INV-MAP-CONFLICT ContactName"),
        "{:?}",
        rows[5]
    );
    assert!(!rows[4][errors].contains("INV-MAP-CONFLICT"), "{:?}", rows[4]);
}

#[test]
fn a_continuation_row_with_no_document_above_is_invalid_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("odoo_account_move.csv")).unwrap();
    let mut lines: Vec<&str> = src.lines().collect();
    lines.insert(1, ",,,,,,,Stray line,Stray,1,10.00,0,15%");
    std::fs::write(dir.path().join("odoo.csv"), lines.join("\n")).unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let (code, r, _) = check_json(dir.path(), &["odoo.csv"]);
    assert_eq!(code, 1, "{r:#}");
    let f = file(&r, "odoo.csv");
    assert_eq!(f["documents"]["valid"], 3);
    assert_eq!(f["rows_invalid"], 1);
    let rows = result_rows(&dir.path().join("results/odoo.result.csv"));
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[1][13], "invalid");
    assert_eq!(
        rows[1][19],
        "INV-MAP-NUMBER name: a continuation row (its name is blank) with no document above it: write the \
         number of its document in name, or move the row under that document's rows",
        "{:?}",
        rows[1]
    );
}

#[test]
fn a_row_without_number_names_the_number_column_and_says_what_to_do() {
    // Xero (no continuation rows): INV-0101's second line (line 3) has lost its number.
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(samples().join("xero_sales_invoices.csv")).unwrap();
    let text = src.replacen(
        ",INV-0101,PO-5521,02/11/2026,02/11/2026,,8423.75,1098.75,8423.75,0.00,MSE-01,",
        ",,PO-5521,02/11/2026,02/11/2026,,8423.75,1098.75,8423.75,0.00,MSE-01,",
        1,
    );
    assert_ne!(text, src);
    std::fs::write(dir.path().join("x.csv"), text).unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let (code, r, _) = check_json(dir.path(), &["x.csv"]);
    assert_eq!(code, 1, "{r:#}");
    let rows = result_rows(&dir.path().join("results/x.result.csv"));
    let errors = rows[0].iter().position(|h| h == "result_errors").unwrap();
    assert_eq!(
        rows[2][errors],
        "INV-MAP-NUMBER InvoiceNumber: no document number in this row (InvoiceNumber is blank; the row above \
         is of INV-0101: if this row is one of its lines, put its number here, and if it is the first line of \
         the document below it, that one's): write the number of the document it belongs to, or remove the row \
         (a total, a note, a footer)"
    );
}

#[test]
fn a_document_missing_from_the_header_file_is_said_once_on_its_first_row() {
    // SAP Business One's two files, the Documents file without document 2 (its lines, ParentKey
    // 2, are lines 5 to 7 of the lines file).
    let dir = tempfile::tempdir().unwrap();
    let docs = std::fs::read_to_string(samples().join("SAP_B1_OINV_Documents.txt")).unwrap();
    let docs: Vec<&str> = docs.lines().filter(|l| !l.starts_with("2\t")).collect();
    std::fs::write(dir.path().join("SAP_B1_OINV_Documents.txt"), docs.join("\r\n") + "\r\n").unwrap();
    std::fs::copy(
        samples().join("SAP_B1_OINV_Document_Lines.txt"),
        dir.path().join("SAP_B1_OINV_Document_Lines.txt"),
    )
    .unwrap();
    let out = run(dir.path(), &["check", ".", "--now", NOW, "--results", "r"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = result_rows(&dir.path().join("r/SAP_B1_OINV_Document_Lines.result.csv"));
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (key, status, errors) = (at("ParentKey"), at("result_status"), at("result_errors"));
    let of_2: Vec<&Vec<String>> = rows[1..].iter().filter(|r| r[key] == "2").collect();
    assert_eq!(of_2.len(), 3);
    assert!(of_2.iter().all(|r| r[status] == "invalid"));
    // One finding, saying what to do; no "no issue date" for the date that file would give.
    assert_eq!(
        of_2[0][errors],
        "INV-MAP-JOIN ParentKey \"2\": no header with this key in ./SAP_B1_OINV_Documents.txt, where this \
         document's number, date, buyer and currency are read: export the header file again with this document \
         in it (or correct the key in this file), and check it again"
    );
    for r in &of_2[1..] {
        assert_eq!(
            r[errors],
            "INV-DOCUMENT: the document has errors on another row (line 5)"
        );
    }
}

//! Tax cells: a cell that is just a rate is the standard rate at it; a rate with other words, an
//! unknown code, a blank cell and a row with a description alone each say what to fix.

use super::findings::cell;
use super::{NOW, result_rows, run, samples};

const ODOO: &str = "\
name,move_type,partner_id,invoice_date,invoice_date_due,ref,currency_id,invoice_line_ids/name,invoice_line_ids/product_id,invoice_line_ids/quantity,invoice_line_ids/price_unit,invoice_line_ids/discount,invoice_line_ids/tax_ids
INV/2026/00051,out_invoice,Walk-in Customer,2026-11-18,2026-11-18,,SAR,Mug,Mug,1,10.00,0,VAT 15%
INV/2026/00052,out_invoice,Walk-in Customer,2026-11-18,2026-11-18,,SAR,Mug,Mug,1,10.00,0,15% VAT
INV/2026/00054,out_invoice,Walk-in Customer,2026-11-18,2026-11-18,,SAR,Mug,Mug,1,10.00,0,VAT 15% (Included)
INV/2026/00056,out_invoice,Walk-in Customer,2026-11-18,2026-11-18,,SAR,Mixed,Mixed,1,10.00,0,\"15%,Withholding 5%\"
INV/2026/00057,out_invoice,Walk-in Customer,2026-11-18,2026-11-18,,SAR,Misc,Misc,1,10.00,0,Exempt (was 15%)
INV/2026/00058,out_invoice,Walk-in Customer,2026-11-18,2026-11-18,,SAR,Misc,Misc,1,10.00,0,Zero rated
INV/2026/00059,out_invoice,Walk-in Customer,2026-11-18,2026-11-18,,SAR,Router,Router,1,10.00,0,VAT 15%
,,,,,,,Hardware,,,,,
,,,,,,,Cable,Cable,2,5.00,0,
";

const KNOWN: &str = "the mapping knows 0% Exports, Exempt, Not Subject";
const ADD: &str =
    "add it to the mapping's [taxes] with its VAT category (S with its percent; Z, E or O with its reason code)";

/// The result rows of `check` of [`ODOO`].
fn checked() -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("odoo.csv"), ODOO).unwrap();
    std::fs::copy(samples().join("customers.csv"), dir.path().join("customers.csv")).unwrap();
    let o = run(dir.path(), &["check", "--now", NOW, "odoo.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    result_rows(&dir.path().join("results/odoo.result.csv"))
}

/// Not one VAT figure is made of words the tool does not read.
#[test]
fn a_rate_with_other_words_is_an_error_saying_what_to_add_to_the_mapping() {
    let rows = checked();
    let status = |line: usize| cell(&rows, line, "result_status");
    let errors = |line: usize| cell(&rows, line, "result_errors");
    // Just a rate: the standard rate at it.
    for line in [2, 3] {
        assert_eq!(status(line), "valid", "line {line}: {}", errors(line));
    }
    let (known, add) = (KNOWN, ADD);
    assert_eq!(
        errors(4),
        format!(
            "INV-MAP-TAX invoice_line_ids/tax_ids \"VAT 15% (Included)\": says the tax is included in the price, so \
             it is not read as 15% added on top; {add}, and set prices_include_tax (true) in the mapping's [fields] \
             so that prices are read as including VAT; {known}"
        )
    );
    assert_eq!(
        errors(5),
        format!(
            "INV-MAP-TAX invoice_line_ids/tax_ids \"15%,Withholding 5%\": holds 2 rates (15%, 5%) and a line has one \
             VAT rate, so none is read; {add}; {known}"
        )
    );
    assert_eq!(
        errors(6),
        format!(
            "INV-MAP-TAX invoice_line_ids/tax_ids \"Exempt (was 15%)\": says \"Exempt\" beside 15%, so it is not read \
             as 15%; {add}; {known}"
        )
    );
    for line in 4..=6 {
        assert_eq!(status(line), "invalid", "line {line}");
    }
}

#[test]
fn an_unknown_or_blank_tax_cell_and_a_description_alone_say_what_to_write() {
    let rows = checked();
    let errors = |line: usize| cell(&rows, line, "result_errors");
    // No rate at all: an unknown code, the known ones as the mapping writes them.
    assert_eq!(
        errors(7),
        format!(
            "INV-MAP-TAX invoice_line_ids/tax_ids \"Zero rated\": unknown tax code: {ADD}, or correct the cell; {KNOWN}"
        )
    );
    // A row with a description alone is a section line; a blank tax cell lists the codes.
    assert_eq!(
        errors(9),
        "INV-MAP-MISSING invoice_line_ids/name \"Hardware\": this row has a description and nothing else (no \
         quantity, price or tax): it looks like a section or note line, which is not an invoice line; remove it from \
         the export, or give it a quantity, price and tax"
    );
    assert_eq!(
        errors(10),
        "INV-MAP-MISSING invoice_line_ids/tax_ids: no VAT category for this line (the tax column is blank): write its \
         tax code, one the mapping knows: 0% Exports, Exempt, Not Subject (a line without VAT takes the code that says \
         why: zero-rated, exempt or out of scope)"
    );
}

/// A finding on a VAT breakdown's category is on the first line of that category, on the cell
/// that gave it: here an exemption code read per line (`line.exemption_code`) that the authority
/// does not list, a warning on the code's cell rather than on the export's VAT total.
#[test]
fn a_breakdowns_exemption_code_is_said_on_the_line_cell_that_gave_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // INV-0105 (lines 9-12): its exempt line (10) gets a code of its own in TrackingOption1.
    super::findings::edited(
        d,
        "xero_sales_invoices.csv",
        "x.csv",
        &[(10, "TrackingOption1", "VATEX-SA-99")],
    );
    std::fs::copy(samples().join("customers.csv"), d.join("customers.csv")).unwrap();
    let xero = std::fs::read_to_string(samples().join("../mappings/xero.toml")).unwrap();
    let mapping = xero.replacen(
        "line.tax = \"TaxType\"\n",
        "line.tax = \"TaxType\"\nline.exemption_code = { column = \"TrackingOption1\", optional = true }\n",
        1,
    );
    assert_ne!(mapping, xero);
    std::fs::write(d.join("m.toml"), mapping).unwrap();
    let o = run(d, &["check", "--now", NOW, "--mapping", "m.toml", "x.csv"]);
    let rows = result_rows(&d.join("results/x.result.csv"));
    let said: Vec<(usize, String)> = (2..=rows.len())
        .map(|line| (line, cell(&rows, line, "result_warnings")))
        .filter(|(_, w)| w.contains("BR-KSA-CL-04"))
        .collect();
    assert_eq!(said.len(), 1, "{said:?} {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(said[0].0, 10);
    assert!(
        said[0].1.starts_with(
            "BR-KSA-CL-04 TrackingOption1 \"VATEX-SA-99\": \"VATEX-SA-99\" is not an exemption reason code for \
             category E; use one of VATEX-SA-29, VATEX-SA-29-7, VATEX-SA-30."
        ),
        "{}",
        said[0].1
    );
    assert_eq!(cell(&rows, 10, "result_status"), "valid");
}

//! Cells that hold no value: a spreadsheet's error (`#REF!`, `#N/A`: a formula that failed), and a
//! formula saved without its computed value. Both are read as [`Cell::Error`](super::Cell::Error)
//! cells of their text, and a field the mapping reads from one is an error that says which it is
//! and what to do.

/// Whether a CSV field is a spreadsheet's error value written as text (`#REF!`, `#N/A`): a
/// formula that failed in the workbook the export was saved from (Excel writes its errors so).
/// Such a field is read as that error, as a workbook's error cell is, never as a value.
pub fn is_spreadsheet_error(text: &str) -> bool {
    const ERRORS: [&str; 16] = [
        "#NULL!",
        "#DIV/0!",
        "#VALUE!",
        "#REF!",
        "#NAME?",
        "#NUM!",
        "#N/A",
        "#GETTING_DATA",
        "#SPILL!",
        "#CALC!",
        "#FIELD!",
        "#BLOCKED!",
        "#CONNECT!",
        "#BUSY!",
        "#UNKNOWN!",
        "#PYTHON!",
    ];
    ERRORS.iter().any(|e| e.eq_ignore_ascii_case(text))
}

/// Whether an error cell's text ([`Cell::Error`](super::Cell::Error)) is a formula the workbook holds no computed
/// value for (`=B2*C2`; `=` alone when the formula is not known), rather than a spreadsheet
/// error: a workbook written by a program that does not calculate (openpyxl, a script), never
/// opened and saved in a spreadsheet application. Its value exists nowhere in the file.
pub fn formula_without_value(error: &str) -> bool {
    error.starts_with('=')
}

/// Such a formula as a message names it: `the formula =B2*C2`, or `a formula`.
pub fn formula_named(error: &str) -> String {
    match error {
        "=" => "a formula".to_owned(),
        f => format!("the formula {f}"),
    }
}

/// Why a formula has no computed value ([`formula_without_value`]), as messages say it.
pub const FORMULA_WHY: &str = "the workbook was written by a program and never calculated";

/// What gives a formula its computed value, as messages say it.
pub const FORMULA_FIX: &str =
    "open the workbook in Excel or LibreOffice and save it, or export values instead of formulas";

/// What a field read from a cell with no value says: what the cell holds (a spreadsheet error or
/// a formula without its value, `error`) and what gives it a value.
pub fn no_value_message(error: &str) -> String {
    if formula_without_value(error) {
        format!(
            "the cell holds {} but no computed value ({FORMULA_WHY}): {FORMULA_FIX}",
            formula_named(error)
        )
    } else {
        format!(
            "the cell holds the spreadsheet error {error}, not a value (a formula that failed: a reference to a \
             deleted cell, a lookup that found nothing); correct it in the workbook or the ERP and export again"
        )
    }
}

//! Whether an export holds credit and debit notes alone, by its mapping or by its rows: such an
//! export is read after the others of a run, so that the invoices its notes correct are read
//! first and their dates go into the notes' references.

use super::open::prepare_looking;
use crate::config::Config;
use crate::mapping::{Mapping, Source, Value, fields::fid};
use std::path::Path;
use std::sync::Arc;

/// True when every document `path` holds, read with `mapping`, is a credit or debit note: the
/// mapping says so (its kind a constant note: Zoho's `Credit_Note.csv`), or its kind is read
/// from a column and every row's says a note (a Xero export of credit notes alone). The rows are
/// read until the first that says anything else (an export of invoices: its first row), so this
/// reads a whole file only when it does hold notes alone. A file that cannot be read, a row that
/// does not say its kind, a mapping joining a header file: false (the file keeps its place).
pub fn holds_only_notes(path: &Path, mapping: &Arc<Mapping>, config: &Config) -> bool {
    if mapping.notes_only() {
        return true;
    }
    let by_column = matches!(mapping.rule("kind").map(|r| &r.source), Some(Source::Column { .. }));
    if !by_column || mapping.join.is_some() {
        return false;
    }
    let Ok(prepared) = prepare_looking(path, mapping.clone(), config, false) else {
        return false;
    };
    let mut notes = 0u64;
    for row in prepared.input.rows {
        let Ok(row) = row else { return false };
        match prepared.bound.field(fid!("kind"), &row, None) {
            Ok(Some(s)) if matches!(s.value, Value::Kind(k) if k.is_note()) => notes += 1,
            _ => return false,
        }
    }
    notes > 0
}

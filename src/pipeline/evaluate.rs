//! One unit of an export (a document's rows, or a row that makes no document) built, computed
//! and validated into its [`Outcome`]: every row's status and findings, located on the row and
//! column that fed each field.

use super::stamp::SideWatch;
use super::*;

/// A row's part of the outcome: the row itself, for the result files (they spell each cell as
/// they write it).
pub(super) fn row_outcome(r: DraftRow, result: ResultRow) -> RowOutcome {
    let line = r.source().map(|s| s.line);
    RowOutcome {
        row: r.row,
        result,
        line,
    }
}

/// Where a document path has no source column: the seller profile, a field no column gives
/// (`field`, named so that the mapping can be told where to find it), or a computed total.
fn fallback_label(path: &str, field: Option<&str>) -> String {
    if path.starts_with("supplier_info") {
        return "(seller profile)".into();
    }
    match field {
        Some(field) => format!("[{path}] (no column gives {field})"),
        None => format!("[{path}]"),
    }
}

/// Turn a rule finding into an issue on the row and column that fed the field; a finding on a
/// value a cell gives (the field read from it, or a value it feeds: the rate of a tax code)
/// quotes that cell's text (`1,234`, `10/11/2026`, `12%`) rather than the value read from it
/// (`1234.00`, `2026-11-10T00:00:00`, `12`).
fn locate_in(f: &Finding, built: &Built, bound: &Bound, rows: &[DraftRow]) -> (Option<usize>, Issue) {
    let (row, mut issue, located, path_len) = locate_with(f, built);
    if issue.value.is_some()
        && let Some(r) = row
        && let Some((_, len, Some(label), feeds)) = located
        && (len == path_len || feeds)
        && issue.column.as_deref() == Some(label)
        && let Some(cells) = rows.get(r).and_then(|d| d.row.as_ref())
        && let Some(text) = bound.cell_text(cells, label)
    {
        issue.value = Some(text);
    }
    (row, issue)
}

/// Turn a rule finding into an issue on the row and column that fed the field.
fn locate(f: &Finding, built: &Built) -> (Option<usize>, Issue) {
    let (row, issue, _, _) = locate_with(f, built);
    (row, issue)
}

/// [`locate`], with what provenance found for the path: (row, length covered, column, feeds).
type Located<'b> = Option<(usize, usize, Option<&'b str>, bool)>;

/// Also the length of the path located (a breakdown's category as its first line's).
fn locate_with<'b>(f: &Finding, built: &'b Built) -> (Option<usize>, Issue, Located<'b>, usize) {
    let line_path = built
        .document
        .as_ref()
        .and_then(|d| super::breakdown::as_line_path(&f.path, d));
    let path = line_path.as_deref().unwrap_or(&f.path);
    let located = built.provenance.locate_feeding(path);
    // The mapping field that feeds the path, when no column found covers all of it. Not for a
    // finding on the device (D7): the document's type is right, the device is not, and no
    // column would change that.
    let field = match located {
        Some((_, len, _, _)) if len == path.len() => None,
        _ if f.code == crate::validate::DEVICE_TYPE_NOT_ALLOWED_CODE => None,
        _ => crate::mapping::field_of(path),
    };
    let (row, label) = match located {
        // A field that would feed the path more closely than the column found, but that no
        // column gives (the rate of INV-SAR-VAT, not the export's VAT total): named instead; unless
        // the column found feeds the value itself (a tax code column gives the VAT rate).
        Some((row, len, _, false)) if field.is_some_and(|(closer, _)| closer > len) => (Some(row), None),
        Some((row, _, label, _)) => (Some(row), label.map(str::to_string)),
        None => (None, None),
    };
    let issue = Issue {
        code: f.code.clone(),
        severity: f.severity,
        column: Some(label.unwrap_or_else(|| fallback_label(path, field.map(|(_, name)| name)))),
        value: f.value.clone(),
        message: f.message.clone(),
    };
    (row, issue, located, path.len())
}

/// True when a rule's finding, located on `row` and a column, only repeats what `issues` already
/// say: the first `read` of them come from reading the rows, and an error there on the same cell
/// (a value that could not be read, or a blank one that is needed) is why the rules see the
/// value as missing; or an earlier finding on the same cell gives the same value and message
/// (two rules over one code list: BR-KSA-CL-01 and BR-CL-04 on a currency that is not ISO 4217).
/// A row whose cells may be shifted (`INV-ROW-CELLS`: more cells than headers; `INV-ROW-QUOTE`:
/// a quote that took in the lines after it; `INV-ROW-SEPARATOR`: a line saved with another
/// separator) has every rule finding on it said by that error.
fn repeats(issues: &[(Option<usize>, Issue)], read: usize, row: Option<usize>, issue: &Issue) -> bool {
    issues.iter().enumerate().any(|(k, (at, said))| {
        *at == row
            && ((k < read && shifts_cells(said))
                // A note's billing reference without the invoice's date, already said (and why)
                // when the reference was made.
                || (k < read && said.code == "INV-MAP-REFERENCE" && issue.code == "INV-BILLING-REFERENCE-FORM")
                // A note missing from its lookup table (`credit_notes.csv original_number`): the
                // other fields looked up there (its reason) are missing for that one reason.
                || (k < read && said.code == "INV-MAP-REFERENCE" && said.is_error() && same_table(said, issue))
                || said.column == issue.column
                    && ((k < read && said.is_error() && said.column.is_some())
                        || (said.value == issue.value && said.message == issue.message)))
    })
}

/// True when `said` and `issue` are both on fields looked up in one table (their columns
/// `credit_notes.csv original_number` and `credit_notes.csv reason`).
fn same_table(said: &Issue, issue: &Issue) -> bool {
    fn table(i: &Issue) -> Option<&str> {
        i.column
            .as_deref()
            .and_then(|c| c.rsplit_once(' '))
            .map(|(t, _)| t)
            .filter(|t| t.to_ascii_lowercase().ends_with(".csv"))
    }
    table(said).is_some() && table(said) == table(issue)
}

/// True for a reading error that makes every cell of its row doubtful: more cells than
/// headers, a quote that took in the lines after it, or a line saved with another separator.
fn shifts_cells(issue: &Issue) -> bool {
    matches!(
        issue.code.as_str(),
        "INV-ROW-CELLS" | "INV-ROW-QUOTE" | "INV-ROW-SEPARATOR"
    )
}

/// What reading said twice: on a row whose cells may be shifted ([`shifts_cells`]), what
/// mapping its cells found is only a consequence, and that error alone stays (with a document's
/// `INV-FILE-CHANGED` or `INV-FILE-CUT`, which is not); a value missing
/// (`INV-MAP-MISSING`) from a cell already said to be unreadable (`UNIT_PRICE "-": not a
/// number`) is that same mistake; so is another row's `INV-MAP-CONFLICT` with a first row
/// whose cell has its own error (a first row without a date; `reference`: the index of the row
/// the document is read from, its first whose cells are in place); so is a parent key missing from
/// the header file (`INV-MAP-JOIN`), or on several of its records (`INV-MAP-KEY-DUPLICATE`), on
/// each of a document's rows after the first.
fn drop_read_repeats(issues: &mut Vec<(Option<usize>, Issue)>, reference: usize) {
    let shifted: Vec<Option<usize>> = issues
        .iter()
        .filter(|(_, i)| shifts_cells(i))
        .map(|(r, _)| *r)
        .collect();
    if !shifted.is_empty() {
        // A document held back because its file changed or was cut is said whatever its rows.
        let of_the_file = |i: &Issue| {
            matches!(
                i.code.as_str(),
                super::FILE_CHANGED_CODE | super::FILE_CUT_CODE | super::FILE_DAMAGED_CODE
            )
        };
        issues.retain(|(row, i)| shifts_cells(i) || of_the_file(i) || !shifted.contains(row));
    }
    let said_before = |k: usize, issues: &[(Option<usize>, Issue)]| {
        let (row, said) = &issues[k];
        match said.code.as_str() {
            "INV-MAP-MISSING" => {
                said.column.is_some()
                    && issues[..k]
                        .iter()
                        .any(|(r, i)| r == row && i.column == said.column && i.is_error())
            }
            // Another row disagreeing with a first row whose cell is itself in error (a blank
            // date): correcting the first row is the one fix.
            "INV-MAP-CONFLICT" => issues.iter().any(|(r, i)| {
                *r == Some(reference) && i.column == said.column && i.is_error() && i.code != "INV-MAP-CONFLICT"
            }),
            // The header row of the document's key missing from the header file is said on its
            // first row; its other rows, with the same key, point there.
            // So is a key on several records of the header file (`INV-MAP-KEY-DUPLICATE`).
            "INV-MAP-JOIN" | crate::mapping::KEY_DUPLICATE_CODE => issues[..k]
                .iter()
                .any(|(_, i)| i.code == said.code && i.value == said.value),
            _ => false,
        }
    };
    if issues.len() > 1 {
        let drop: Vec<bool> = (0..issues.len()).map(|k| said_before(k, issues)).collect();
        if drop.contains(&true) {
            let mut drop = drop.into_iter();
            issues.retain(|_| !drop.next().unwrap_or(false));
        }
    }
}

/// The findings that hold a document back because it may be missing rows (a file cut short, or
/// changed while read, a row without a number after it, its rows in parts): its totals are not compared
/// with the export's, as the rows read cannot add up to them and the hold-back already says why.
const INCOMPLETE: [&str; 5] = [
    super::FILE_CHANGED_CODE,
    super::FILE_CUT_CODE,
    super::FILE_DAMAGED_CODE,
    crate::mapping::ORPHAN_CODE,
    crate::mapping::SPLIT_CODE,
];

/// The authority's rules and ours, for one computed document; `incomplete`: it may be missing
/// rows, so the export's document totals are not compared (its line figures still are).
fn rules(
    doc: &Document,
    totals: crate::compute::Totals,
    erp: &crate::validate::ErpFigures,
    opts: &CheckOptions,
    incomplete: bool,
) -> Vec<Finding> {
    let mut ctx = crate::validate::Context::new(opts.now);
    ctx.device.clone_from(&opts.device);
    if !erp.is_empty() {
        let whole = |v: Option<rust_decimal::Decimal>| v.filter(|_| !incomplete);
        ctx.erp = Some(crate::validate::ErpFigures {
            tax_exclusive: whole(erp.tax_exclusive),
            tax_total: whole(erp.tax_total),
            tax_inclusive: whole(erp.tax_inclusive),
            ..erp.clone()
        });
    }
    crate::validate::validate_computed(doc, &ctx, Ok(totals))
}

/// What a row without errors of its own says in an invalid document: the lines that have them
/// (`lines`: one per error, in any order), each once, in order.
pub(super) fn other_rows_message(lines: impl Iterator<Item = u64>) -> String {
    let mut lines: Vec<u64> = lines.collect();
    lines.sort_unstable();
    lines.dedup();
    let list: Vec<String> = lines.iter().map(u64::to_string).collect();
    match list.len() {
        0 => "the document has errors (see its other rows)".to_string(),
        1 => format!("the document has errors on another row (line {})", list[0]),
        _ => format!("the document has errors on other rows (lines {})", list.join(", ")),
    }
}

fn evaluate_document(
    draft: DocDraft,
    bound: &Bound,
    opts: &CheckOptions,
    time: &str,
    keep: bool,
    side: &SideWatch,
) -> Outcome {
    let first_line = draft.rows.first().and_then(DraftRow::source).map_or(0, |s| s.line);
    if draft.skip.is_some() {
        return super::skipped::skipped(draft, bound, opts, time, keep);
    }
    let originals = opts.originals.as_ref().map(|o| &*o.0);
    let mut built = build_with(&draft, bound, &opts.seller, originals);
    let mut issues = std::mem::take(&mut built.issues);
    let reference_row = draft.reference().map_or(0, |(at, _)| at);
    drop_read_repeats(&mut issues, reference_row);
    // What the notes need of it (`notes.rs`): an invoice, or a note and the invoice it names.
    let link = match (
        built.document.as_ref().map(|d| d.kind).or(draft.kind),
        built.note.take(),
    ) {
        (Some(crate::model::DocumentKind::Invoice), _) => super::notes::Link::Invoice,
        (Some(kind), Some(reference)) => super::notes::Link::Note(Box::new(super::notes::NoteLink {
            kind,
            reference,
            row: reference_row,
        })),
        _ => super::notes::Link::None,
    };
    // Built from the last row of a header file or lookup table that has changed since it was
    // opened (a row perhaps cut by a writer still at work): held back.
    if !built.side.is_empty() {
        let number = built
            .document
            .as_ref()
            .map_or_else(|| draft.number(bound), |d| d.number.clone());
        for (row, issue) in side.check(&built.side, &number, first_line) {
            issues.push((Some(row), issue));
        }
    }
    let mut payable = None;
    // The amount due could not be rounded to the export's total (amounts too large): said once
    // the document is no longer borrowed.
    let mut unrounded = None;
    // When no line could be read (each row says why), the rules would only repeat it: no lines,
    // no VAT breakdown, totals that differ from the export's.
    let no_lines_read =
        built.document.as_ref().is_some_and(|d| d.invoice_lines.is_empty()) && issues.iter().any(|(_, i)| i.is_error());
    if let Some(doc) = built.document.as_mut() {
        match compute_document_totals(doc) {
            Ok(mut totals) => {
                let incomplete = issues.iter().any(|(_, i)| INCOMPLETE.contains(&i.code.as_str()));
                // The export's total with VAT is what the buyer was charged: when per-line rounding
                // alone separates it from the computed one (beyond what the comparison lets
                // pass), it is the amount due, with a rounding amount (BT-114).
                if let Some(stated) = built.erp.tax_inclusive.filter(|_| !incomplete && !no_lines_read)
                    && let Err(e) =
                        crate::compute::round_payable_to(doc, &mut totals, stated, crate::validate::ERP_TOLERANCE)
                {
                    unrounded = Some(Finding::error("INV-COMPUTE", compute_path(&e), None, e.to_string()));
                }
                payable = Some(doc.legal_monitory_total.payable_amount);
                if !no_lines_read {
                    let read = issues.len();
                    for f in rules(doc, totals, &built.erp, opts, incomplete) {
                        let (row, issue) = locate_in(&f, &built, bound, &draft.rows);
                        if !repeats(&issues, read, row, &issue) {
                            issues.push((row, issue));
                        }
                    }
                }
            }
            Err(e) => {
                let f = Finding::error("INV-COMPUTE", compute_path(&e), None, e.to_string());
                issues.push(locate(&f, &built));
            }
        }
    }
    if let Some(f) = unrounded {
        issues.push(locate(&f, &built));
    }
    let invalid = built.document.is_none() || issues.iter().any(|(_, i)| i.is_error());
    let status = if invalid { RowStatus::Invalid } else { RowStatus::Valid };
    let number = built
        .document
        .as_ref()
        .map_or_else(|| draft.number(bound), |d| d.number.clone());
    // The findings of rows that are no rows of the document (a header line repeated among its
    // rows, a blank line) are theirs, not the document's.
    let of_document: Vec<bool> = issues
        .iter()
        .map(|(at, _)| {
            !at.and_then(|a| draft.rows.get(a))
                .is_some_and(DraftRow::outside_document)
        })
        .collect();
    let mut codes: Vec<String> = issues
        .iter()
        .zip(&of_document)
        .filter(|(_, own)| **own)
        .map(|((_, i), _)| i.code.clone())
        .collect();
    codes.sort();
    codes.dedup();
    // Each issue rendered once, and the lines of the document's errors, for every row.
    let found: Vec<ResultIssue> = issues.iter().map(|(_, i)| ResultIssue::from(i)).collect();
    let rendered: Vec<String> = found.iter().map(ResultIssue::render).collect();
    let other_rows = (status == RowStatus::Invalid).then(|| {
        let lines = issues
            .iter()
            .filter(|(_, i)| i.is_error())
            .filter_map(|(at, _)| at.and_then(|a| draft.rows.get(a)).and_then(DraftRow::source))
            .map(|s| s.line);
        let issue = ResultIssue::error("INV-DOCUMENT", other_rows_message(lines));
        let text = issue.render();
        (issue, text)
    });
    // An invalid document is kept for `run` to ask whether its number was issued before
    // (never sent); unless it may be incomplete (a file still being written) or is one part of
    // several (each part would count the issued document again: `run` asks about its parts read
    // together instead, `parts.rs`).
    // Not looked up either: a document whose number an earlier document of its file has under
    // another key (SAP's `DocNum` under two `ParentKey`s, `INV-NUMBER-USED`): what the ledger
    // holds under that number is the earlier one's.
    let not_looked_up = |i: &Issue| in_part(i) || i.code == crate::mapping::NUMBER_USED_CODE;
    let failing =
        (invalid && keep && !issues.iter().any(|(_, i)| not_looked_up(i))).then(|| failing(&issues, &draft.rows));
    // A value that could not be read: what was built is not all the export says.
    let unread = built.amounts_unread || issues.iter().any(|(_, i)| i.is_error() && i.code == "INV-MAP-VALUE");
    // Rows that make no document (a date that cannot be read), or one whose kind is a guess (a
    // kind cell, or the amount that would make it a credit note, unread): its number is looked
    // up as a skipped document's is, under its kind when its rows give it (the kind column
    // read to group them), else under every kind.
    let by_number = (built.document.is_none() || built.kind_unread) && !draft.split && !draft.key.trim().is_empty();
    let grouped_kind = draft.kind;
    let row_count = draft.rows.iter().filter(|r| !r.outside_document()).count() as u64;
    let rows = draft
        .rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            // A header line repeated inside the document's rows, or a row of no data, is no row
            // of it.
            let outside = r.outside_document();
            let row_status = if outside { RowStatus::Skipped } else { status };
            let mut rr = ResultRow::new(row_status, time);
            if !outside {
                rr.document = number.as_str().into();
            }
            for (((at, _), issue), text) in issues.iter().zip(&found).zip(&rendered) {
                let mine = *at == Some(i);
                let doc_level = at.is_none() && !outside;
                if mine || doc_level {
                    rr.push_rendered(issue.clone(), text.clone());
                }
            }
            if row_status == RowStatus::Invalid
                && rr.errors.is_empty()
                && let Some((issue, text)) = &other_rows
            {
                rr.push_rendered(issue.clone(), text.clone());
            }
            row_outcome(r, rr)
        })
        .collect();
    if invalid && built.amounts_unread {
        payable = None;
    }
    let brief = DocBrief {
        number,
        kind: built
            .document
            .as_ref()
            .map(|d| kind_name(d.kind).to_string())
            .unwrap_or_default(),
        invoice_type: built
            .document
            .as_ref()
            .map(|d| d.invoice_type.to_string())
            .unwrap_or_default(),
        status,
        payable,
        lines: built.document.as_ref().map_or(0, |d| d.invoice_lines.len()),
        first_line,
        conflict: false,
        issued: None,
        issued_before: false,
    };
    let mut record = match &built.document {
        Some(d) if payable.is_some() => DocumentRecord::from_document(d, status),
        Some(d) => DocumentRecord::from_document(d, status).without_amounts(),
        None => DocumentRecord::new(&brief.number, status),
    };
    // An invalid document some of whose amounts could not be read: what was computed from the
    // rest is not its amounts, and none is claimed (not 0.00 nor the sum of the lines read).
    if invalid && built.amounts_unread {
        record = record.without_amounts();
    }
    record.first_line = Some(first_line);
    record.rows = row_count;
    record.add_codes(found.iter().zip(&of_document).filter(|(_, own)| **own).map(|(f, _)| f));
    let unsent = built
        .document
        .as_ref()
        .filter(|d| invalid && d.invoice_type == crate::model::InvoiceType::Simplified)
        .map(|d| Unsent {
            kind: d.kind,
            number: d.number.clone(),
            issue_date: d.issue_date,
            issue_time: d.issue_time,
            why: found
                .iter()
                .find(|i| i.severity == crate::validate::Severity::Error)
                .map(ResultIssue::render)
                .unwrap_or_default(),
        });
    // Boxed: an outcome is moved from thread to thread, and `check` keeps none.
    let (document, held, skipped) = match (built.document, failing) {
        (Some(d), _) if !invalid && keep => (Some(Box::new(d)), None, None),
        (document, Some(failing)) if by_number => {
            let seller_vat = document.as_ref().map_or_else(
                || opts.seller.vat_number.clone(),
                |d| d.supplier_info.vat_number.clone(),
            );
            let asked = Skipped {
                number: brief.number.clone(),
                kind: if document.is_some() { None } else { grouped_kind },
                seller_vat,
                reason: String::new(),
                column: String::new(),
                value: String::new(),
                unread: Some(failing),
            };
            (None, None, Some(Box::new(asked)))
        }
        (Some(document), Some(failing)) => (
            None,
            Some(Box::new(Held {
                document,
                failing,
                amounts_known: payable.is_some(),
                unread,
            })),
            None,
        ),
        _ => (None, None, None),
    };
    let artefact_key = document.as_deref().or(held.as_ref().map(|h| &h.document)).map(|d| {
        (
            d.supplier_info.vat_number.clone().unwrap_or_default(),
            d.number.clone(),
            d.issue_date,
            d.issue_time,
        )
    });
    Outcome {
        rows,
        brief: Some(brief),
        codes,
        record: Some(record),
        document,
        held,
        skipped,
        artefact_key,
        unsent,
        link,
    }
}

/// A finding that says the document as read may not be all of it (its file changed while read,
/// or was cut short), or is one of its parts: such a document is not compared with what was
/// issued under its number (a part's whole document is, its parts read together: `parts.rs`).
fn in_part(issue: &Issue) -> bool {
    [
        crate::mapping::SPLIT_CODE,
        super::FILE_CHANGED_CODE,
        super::FILE_CUT_CODE,
        super::FILE_DAMAGED_CODE,
    ]
    .contains(&issue.code.as_str())
}

/// The most errors [`failing`] names.
const FAILING_NAMED: usize = 5;

/// A document's errors, for a message: `CODE on line N` (or `CODE`), once each, in order; the
/// first [`FAILING_NAMED`], then how many more.
fn failing(issues: &[(Option<usize>, Issue)], rows: &[DraftRow]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, issue) in issues.iter().filter(|(_, i)| i.is_error()) {
        let line = at.and_then(|a| rows.get(a)).and_then(DraftRow::source).map(|s| s.line);
        let named = match line {
            Some(line) => format!("{} on line {line}", issue.code),
            None => issue.code.clone(),
        };
        if !out.contains(&named) {
            out.push(named);
        }
    }
    if out.len() > FAILING_NAMED {
        let more = out.len() - FAILING_NAMED;
        out.truncate(FAILING_NAMED);
        out.push(format!("{more} more"));
    }
    out
}

fn compute_path(e: &crate::compute::ComputeError) -> String {
    match e {
        crate::compute::ComputeError::Overflow { path } | crate::compute::ComputeError::BadBaseQuantity { path } => {
            path.clone()
        }
    }
}

/// `keep`: keep a valid document in its outcome, for sending; `side`: the files read with the
/// export, watched.
pub(super) fn evaluate(
    unit: Unit,
    bound: &Bound,
    opts: &CheckOptions,
    time: &str,
    keep: bool,
    side: &SideWatch,
) -> Outcome {
    match unit {
        Unit::Document(d) => evaluate_document(d, bound, opts, time, keep, side),
        Unit::Stray(r) => {
            let status = match r.outside_document() {
                true => RowStatus::Skipped,
                false => RowStatus::Invalid,
            };
            let mut rr = ResultRow::new(status, time);
            for i in &r.issues {
                rr.push_issue(ResultIssue::from(i));
            }
            let codes = r.issues.iter().map(|i| i.code.clone()).collect();
            Outcome {
                rows: vec![row_outcome(r, rr)],
                brief: None,
                codes,
                record: None,
                document: None,
                held: None,
                skipped: None,
                artefact_key: None,
                unsent: None,
                link: Default::default(),
            }
        }
    }
}

#[cfg(test)]
#[path = "evaluate_tests.rs"]
mod tests;

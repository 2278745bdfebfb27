//! A note that names no invoice: itself (a mapping reading `original_number` from the number's
//! own column, or a slip in the reference cell), or a credit or debit note above it in its file,
//! in a file checked before it, or issued (the ledger `run` gives the build): `INV-MAP-REFERENCE`,
//! an error on the note's reference cell.

use super::*;
use chrono::NaiveDate;
use std::sync::atomic::{AtomicUsize, Ordering};

const HEADER: &str = "No,Type,Date,Customer,VAT,Item,Qty,Price,Tax,Orig\n";

/// A mapping that reads the kind, and the corrected invoice's number from `orig` (a column).
fn mapping(orig: &str) -> String {
    SIMPLE.replace(
        "number = \"No\"\n",
        &format!(
            "number = \"No\"\n\
             kind = {{ column = \"Type\", map = {{ \"Sales\" = \"invoice\", \"Credit Note\" = \"credit_note\", \
             \"Debit Note\" = \"debit_note\" }} }}\n\
             original_number = {{ column = \"{orig}\", optional = true }}\n"
        ),
    )
}

/// `number,type,date[,original number]` rows as a file's lines (line 2 on).
fn file(rows: &[&str]) -> String {
    let mut text = String::from(HEADER);
    for r in rows {
        let f: Vec<&str> = r.split(',').collect();
        let orig = f.get(3).copied().unwrap_or("");
        text.push_str(&format!("{},{},{},X,,Pen,1,1,,{orig}\n", f[0], f[1], f[2]));
    }
    text
}

/// The `INV-MAP-REFERENCE` findings of each document of a file built with `orig` as the
/// reference column: (number, severity is error, column, value, message).
type Said = Vec<(String, bool, Option<String>, Option<String>, String)>;

fn built(orig: &str, rows: &[&str], originals: Option<&dyn OriginalDates>) -> Said {
    let (h, rows) = rows_from_csv(&file(rows), 1);
    let b = bound(&mapping(orig), &h);
    let units = group_all(&b, rows);
    let mut said = Vec::new();
    for d in docs(&units) {
        let built = build_with(d, &b, &seller(), originals);
        for (_, i) in built.issues.iter().filter(|(_, i)| i.code == "INV-MAP-REFERENCE") {
            said.push((
                d.key.clone(),
                i.is_error(),
                i.column.clone(),
                i.value.clone(),
                i.message.clone(),
            ));
        }
    }
    said
}

#[test]
fn a_note_read_with_its_own_number_as_its_invoice_points_at_the_mapping_field() {
    let said = built("No", &["INV-1,Sales,05/11/2026", "CN-1,Credit Note,07/11/2026"], None);
    assert_eq!(said.len(), 1, "{said:?}");
    let (number, error, column, value, message) = &said[0];
    assert_eq!(
        (number.as_str(), *error, column.as_deref(), value.as_deref()),
        ("CN-1", true, Some("No"), Some("CN-1"))
    );
    assert!(
        message.contains("this credit note names itself (CN-1) as the invoice it corrects")
            && message.contains("the mapping reads original_number from No, the column of the document's own number")
            && message.contains("in test.toml, set fields.original_number to the column holding"),
        "{message}"
    );
}

#[test]
fn a_note_whose_reference_cell_holds_its_own_number_and_no_invoice_has_it_is_an_error_on_that_cell() {
    let rows = ["CN-1,Credit Note,07/11/2026,CN-1", "DN-1,Debit Note,07/11/2026,DN-1"];
    // `run`: the ledger holds no invoice of that number.
    let none = |_: &str, _: Option<&str>| None;
    let said = built("Orig", &rows, Some(&none));
    assert_eq!(said.len(), 2, "{said:?}");
    for (number, error, column, value, message) in &said {
        assert!(*error && column.as_deref() == Some("Orig") && value.as_deref() == Some(number.as_str()));
        assert!(
            message.contains(&format!("names itself ({number}) as the invoice it corrects"))
                && message.contains("put in Orig the number of the invoice this")
                && !message.contains("fields.original_number"),
            "{message}"
        );
    }
    // Documents are known by kind and number (Tally numbers each kind from 1): an invoice CN-1
    // issued before, or above the note, is the one it names.
    let issued = |_: &str, _: Option<&str>| NaiveDate::from_ymd_opt(2026, 11, 1);
    assert!(built("Orig", &rows, Some(&issued)).is_empty());
    let above = built("Orig", &["CN-1,Sales,05/11/2026", rows[0]], Some(&none));
    assert!(above.is_empty(), "{above:?}");
    // `check` cannot know an invoice of an earlier run: the date is unknown, as for any note.
    assert!(built("Orig", &rows, None).iter().all(|s| !s.1));
}

#[test]
fn a_note_naming_its_own_number_where_the_number_alone_is_the_document_is_an_error() {
    // The kind is not read from a column: a number is one document, the note itself.
    let (h, rows) = rows_from_csv(&file(&["CN-1,Credit Note,07/11/2026,CN-1"]), 1);
    let m = mapping("Orig").replace(
        "kind = { column = \"Type\", map = { \"Sales\" = \"invoice\", \"Credit Note\" = \"credit_note\", \
         \"Debit Note\" = \"debit_note\" } }",
        "kind = { value = \"credit_note\" }",
    );
    assert!(m.contains("kind = { value"), "{m}");
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    let built = build(docs(&units)[0], &b, &seller());
    let errors: Vec<_> = built.issues.iter().filter(|(_, i)| i.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].1.message.contains("names itself (CN-1)"), "{errors:?}");
}

#[test]
fn a_note_naming_a_note_above_it_is_an_error_naming_that_note_and_its_line() {
    let said = built(
        "Orig",
        &[
            "INV-1,Sales,05/11/2026",
            "CN-1,Credit Note,07/11/2026,INV-1",
            "CN-2,Credit Note,08/11/2026,CN-1",
            "DN-1,Debit Note,08/11/2026,INV-1",
            "CN-3,Credit Note,09/11/2026,DN-1",
        ],
        None,
    );
    let errors: Vec<_> = said.iter().filter(|s| s.1).collect();
    assert_eq!(errors.len(), 2, "{said:?}");
    assert_eq!(errors[0].0, "CN-2");
    assert_eq!(errors[0].2.as_deref(), Some("Orig"));
    assert!(
        errors[0]
            .4
            .contains("CN-1 (line 3 of this file) is a credit note, not an invoice")
            && errors[0]
                .4
                .contains("put in Orig the number of the invoice this credit note corrects"),
        "{}",
        errors[0].4
    );
    assert_eq!(errors[1].0, "CN-3");
    assert!(
        errors[1]
            .4
            .contains("DN-1 (line 5 of this file) is a debit note, not an invoice")
    );
    // Nothing said of the notes naming the invoice, nor a false "not above the note" warning.
    assert!(said.iter().all(|s| !s.4.contains("not above the note")), "{said:?}");
}

#[test]
fn a_note_naming_a_number_that_is_also_an_invoice_names_the_invoice() {
    // Invoice N-1 and credit note N-1 (documents are known by number and kind).
    let said = built(
        "Orig",
        &[
            "N-1,Credit Note,04/11/2026,INV-0",
            "N-1,Sales,05/11/2026",
            "CN-2,Credit Note,08/11/2026,N-1",
        ],
        None,
    );
    assert!(said.iter().all(|s| s.0 != "CN-2"), "{said:?}");
}

#[test]
fn a_note_naming_a_note_of_a_file_checked_before_names_that_file() {
    let group = |used: NumbersUsed, name: &str, rows: &[&str]| {
        let (h, rows) = rows_from_csv(&file(rows), 1);
        let mut g = Grouper::new(bound(&mapping("Orig"), &h)).with_numbers_used(used, name);
        let mut out = Vec::new();
        for r in rows {
            out.extend(g.push(r));
        }
        out.extend(g.finish());
        let used = g.take_numbers_used().unwrap();
        let notes: Vec<_> = out
            .into_iter()
            .filter_map(|u| match u {
                Unit::Document(d) => Some((d.key, d.original_note.map(|n| *n))),
                _ => None,
            })
            .collect();
        (notes, used)
    };
    let (_, used) = group(
        NumbersUsed::default(),
        "a.csv",
        &[
            "CN-9,Credit Note,06/11/2026,INV-0",
            "INV-8,Sales,05/11/2026",
            "CN-8,Credit Note,06/11/2026,INV-8",
        ],
    );
    let (notes, _) = group(
        used,
        "b.csv",
        &["CN-1,Credit Note,07/11/2026,CN-9", "CN-2,Credit Note,07/11/2026,INV-8"],
    );
    assert_eq!(
        notes,
        [
            (
                "CN-1".to_string(),
                Some(NamedNote {
                    kind: DocumentKind::CreditNote,
                    at: NoteAt::Earlier("a.csv".into(), 2)
                })
            ),
            ("CN-2".to_string(), None),
        ]
    );
}

/// A ledger holding `note` as a credit note, and `invoice` as an invoice dated 1 November.
struct Ledger {
    invoice: &'static str,
    note: &'static str,
    asked: AtomicUsize,
}

impl OriginalDates for Ledger {
    fn invoice_date(&self, number: &str, _: Option<&str>) -> Option<NaiveDate> {
        (number == self.invoice).then(|| NaiveDate::from_ymd_opt(2026, 11, 1).unwrap())
    }

    fn note_kind(&self, number: &str, _: Option<&str>) -> Option<DocumentKind> {
        self.asked.fetch_add(1, Ordering::Relaxed);
        (number == self.note).then_some(DocumentKind::CreditNote)
    }
}

#[test]
fn a_note_naming_a_number_the_ledger_holds_as_a_note_only_is_an_error() {
    let ledger = Ledger {
        invoice: "INV-7",
        note: "CN-7",
        asked: AtomicUsize::new(0),
    };
    let said = built(
        "Orig",
        &[
            "CN-1,Credit Note,07/11/2026,CN-7",
            "CN-2,Credit Note,07/11/2026,INV-7",
            "CN-3,Credit Note,07/11/2026,INV-5",
        ],
        Some(&ledger),
    );
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].1 && said[0].0 == "CN-1");
    assert!(
        said[0]
            .4
            .contains("CN-7 is issued as a credit note (as the ledger holds it, with no invoice CN-7), not an invoice"),
        "{}",
        said[0].4
    );
    // INV-5 is nowhere: the warning as before.
    assert!(
        !said[1].1 && said[1].0 == "CN-3" && said[1].4.contains("is unknown"),
        "{said:?}"
    );
    // Asked only for the notes whose invoice the ledger does not hold.
    assert_eq!(ledger.asked.load(Ordering::Relaxed), 2);
}

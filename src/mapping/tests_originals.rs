//! A note whose corrected invoice is not in its file: the invoice's date from a file checked
//! before it (`check` of several files: [`NumbersUsed`]) or from the lookup `run` gives the build
//! ([`OriginalDates`]: the ledger), else `INV-MAP-REFERENCE` saying how to give it.

use super::*;
use chrono::NaiveDate;
use std::sync::Mutex;

/// A mapping that reads the kind and the corrected invoice's number (`Orig`).
fn notes_mapping() -> String {
    SIMPLE.replace(
        "number = \"No\"\n",
        "number = \"No\"\n\
         kind = { column = \"Type\", map = { \"Sales\" = \"invoice\", \"Credit Note\" = \"credit_note\" } }\n\
         original_number = { column = \"Orig\", optional = true }\n",
    )
}

/// One file of `number,type,date[,original number]` rows, grouped with the numbers of the files
/// before it; its documents and the numbers kept.
fn group_file(used: NumbersUsed, file: &str, rows: &[&str]) -> (Vec<DocDraft>, NumbersUsed) {
    let mut text = String::from("No,Type,Date,Customer,VAT,Item,Qty,Price,Tax,Orig\n");
    for r in rows {
        let f: Vec<&str> = r.split(',').collect();
        let orig = f.get(3).copied().unwrap_or("");
        text.push_str(&format!("{},{},{},X,,Pen,1,1,,{orig}\n", f[0], f[1], f[2]));
    }
    let (h, rows) = rows_from_csv(&text, 1);
    let mut g = Grouper::new(bound(&notes_mapping(), &h)).with_numbers_used(used, file);
    let mut out = Vec::new();
    for r in rows {
        out.extend(g.push(r));
    }
    out.extend(g.finish());
    let used = g.take_numbers_used().unwrap();
    let docs = out
        .into_iter()
        .filter_map(|u| match u {
            Unit::Document(d) => Some(d),
            _ => None,
        })
        .collect();
    (docs, used)
}

fn day(d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(2026, 11, d)
}

#[test]
fn a_note_takes_the_date_of_its_invoice_in_a_file_checked_before_and_of_no_other_document() {
    let (ds, used) = group_file(
        NumbersUsed::default(),
        "a.csv",
        &["INV-1,Sales,05/11/2026", "CN-9,Credit Note,06/11/2026,INV-0"],
    );
    assert_eq!(ds[1].original_date, None, "INV-0 is nowhere");
    let (ds, used) = group_file(
        used,
        "b.csv",
        &[
            "CN-1,Credit Note,07/11/2026,INV-1",
            // A credit note numbered as the one it names: not an invoice, no date.
            "CN-2,Credit Note,08/11/2026,CN-9",
            "INV-2,Sales,09/11/2026",
            "CN-3,Credit Note,10/11/2026,INV-2",
        ],
    );
    let dates: Vec<_> = ds.iter().map(|d| (d.key.as_str(), d.original_date)).collect();
    assert_eq!(
        dates,
        [("CN-1", day(5)), ("CN-2", None), ("INV-2", None), ("CN-3", day(9))]
    );
    // The same file checked again (check's second pass): its own later invoice is not one
    // "checked before" the note that precedes it.
    let (ds, _) = group_file(
        used,
        "b.csv",
        &["CN-4,Credit Note,11/11/2026,INV-2", "INV-2,Sales,09/11/2026"],
    );
    assert_eq!(ds[0].original_date, None);
}

/// The note's billing reference and the `INV-MAP-REFERENCE` warnings of its build.
fn note_built(originals: Option<&dyn OriginalDates>) -> (Option<String>, Vec<String>) {
    let (h, rows) = rows_from_csv(
        "No,Type,Date,Customer,VAT,Item,Qty,Price,Tax,Orig\nCN-1,Credit Note,07/11/2026,X,,Pen,1,1,,INV-7\n",
        1,
    );
    let b = bound(&notes_mapping(), &h);
    let units = group_all(&b, rows);
    let built = build_with(docs(&units)[0], &b, &seller(), originals);
    let reference = built.document.as_ref().and_then(|d| d.billing_reference.clone());
    let said = built
        .issues
        .iter()
        .filter(|(_, i)| i.code == "INV-MAP-REFERENCE")
        .map(|(_, i)| i.message.clone())
        .collect();
    (reference, said)
}

#[test]
fn a_note_whose_invoice_is_not_in_its_file_takes_its_date_from_the_lookup_asked_with_the_seller() {
    let asked = Mutex::new(Vec::new());
    let lookup = |n: &str, vat: Option<&str>| {
        asked.lock().unwrap().push((n.to_string(), vat.map(str::to_string)));
        day(2)
    };
    let (reference, said) = note_built(Some(&lookup));
    assert_eq!(
        reference.as_deref(),
        Some("Invoice Number: INV-7; Invoice Issue Date: 2026-11-02")
    );
    assert!(said.is_empty(), "{said:?}");
    let vat = crate::model::example::seller().vat_number;
    assert_eq!(*asked.lock().unwrap(), [("INV-7".to_string(), vat)]);
}

#[test]
fn a_note_whose_invoice_date_is_found_nowhere_says_how_to_give_it() {
    // `run`: the ledger holds no such invoice.
    let none = |_: &str, _: Option<&str>| None;
    let (reference, said) = note_built(Some(&none));
    assert_eq!(reference.as_deref(), Some("Invoice Number: INV-7"));
    assert_eq!(said.len(), 1);
    assert!(
        said[0].contains("no invoice INV-7 of this seller was issued before")
            && said[0].contains("map original_date to the column holding it")
            && said[0].contains("issue the invoice before its notes")
            && !said[0].contains("export the invoice with it"),
        "{said:?}"
    );
    // `check`: no ledger; the advice names `run`'s.
    let (reference, said) = note_built(None);
    assert_eq!(reference.as_deref(), Some("Invoice Number: INV-7"));
    assert!(
        said[0].contains("not above the note in this file (nor in a file checked before it)")
            && said[0].contains("`run` finds its date in the ledger once it is issued (in an earlier run")
            && !said[0].contains("export the invoice with it"),
        "{said:?}"
    );
}

#[test]
fn an_invoice_or_a_note_with_its_date_asks_no_lookup() {
    let never = |n: &str, _: Option<&str>| -> Option<NaiveDate> { panic!("asked for {n}") };
    let (h, rows) = rows_from_csv(
        "No,Type,Date,Customer,VAT,Item,Qty,Price,Tax,Orig\n\
         INV-7,Sales,02/11/2026,X,,Pen,1,1,,PO-55\n\
         CN-1,Credit Note,07/11/2026,X,,Pen,1,1,,INV-7\n",
        1,
    );
    let b = bound(&notes_mapping(), &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    assert!(build_with(ds[0], &b, &seller(), Some(&never)).document.is_some());
    let note = build_with(ds[1], &b, &seller(), Some(&never)).document.unwrap();
    assert_eq!(
        note.billing_reference.as_deref(),
        Some("Invoice Number: INV-7; Invoice Issue Date: 2026-11-02")
    );
}

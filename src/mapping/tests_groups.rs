//! Tests of grouping rows into documents: split numbers, continuation rows, numbers used by an
//! earlier file, kinds (rows without a number: `tests_orphans.rs`).

use super::*;

/// The split keys of rows, by a first pass.
pub(super) fn scan(b: &Arc<Bound>, rows: &[Row]) -> SplitKeys {
    let mut k = KeyScan::new(b.clone());
    for r in rows {
        k.push(r);
    }
    k.finish()
}

/// Group rows knowing their split keys, as `run` does.
pub(super) fn group_known(b: &Arc<Bound>, rows: Vec<Row>) -> Vec<Unit> {
    let splits = Some(Arc::new(scan(b, &rows)));
    let mut g = Grouper::with_splits(b.clone(), splits);
    let mut out = Vec::new();
    for r in rows {
        out.extend(g.push(r));
    }
    out.extend(g.finish());
    out
}

/// The INV-MAP-SPLIT findings of a document's rows, by row index.
fn split_findings(d: &DocDraft) -> Vec<(usize, String)> {
    d.rows
        .iter()
        .enumerate()
        .flat_map(|(n, r)| {
            r.issues
                .iter()
                .filter(|i| i.code == SPLIT_CODE)
                .map(move |i| (n, i.render()))
        })
        .collect()
}

const SPLIT_ROWS: &str = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
     A1,05/11/2026,X,,Pen,1,1,\nA2,05/11/2026,X,,Pen,1,1,\nA1,05/11/2026,X,,Cup,1,1,\n";

#[test]
fn a_number_that_reappears_later_is_said_on_every_part_when_known_before() {
    let (h, rows) = rows_from_csv(SPLIT_ROWS, 1);
    let b = bound(SIMPLE, &h);
    let units = group_known(&b, rows);
    let ds = docs(&units);
    assert_eq!(ds.len(), 3);
    let expected = "INV-MAP-SPLIT No \"A1\": this document's rows are not together in the file (its 2 parts \
                    start at lines 2 and 4): no part of it is issued; put all its rows together, with its \
                    number on each, and run again; where a part only repeats another's rows (an export written twice into one \
                    file), take the repetition out instead";
    for d in [ds[0], ds[2]] {
        assert!(d.split);
        assert_eq!(split_findings(d), [(0, expected.to_string())]);
        let built = build(d, &b, &seller());
        let codes: Vec<_> = built.issues.iter().map(|(r, i)| (*r, i.code.as_str())).collect();
        assert_eq!(codes, [(Some(0), SPLIT_CODE)], "{:?}", built.issues);
    }
    assert!(!ds[1].split && split_findings(ds[1]).is_empty());
}

#[test]
fn without_the_first_pass_only_the_later_parts_say_it() {
    let (h, rows) = rows_from_csv(SPLIT_ROWS, 1);
    let b = bound(SIMPLE, &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    assert!(!ds[0].split && split_findings(ds[0]).is_empty());
    assert!(ds[2].split);
    let found = split_findings(ds[2]);
    assert_eq!(found.len(), 1);
    assert!(found[0].1.contains("a part of it starts at line 2"), "{found:?}");
}

#[test]
fn a_row_without_number_inside_a_document_splits_it_unless_rows_continue() {
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                A1,05/11/2026,X,,Pen,1,1,\n,,,,Cup,1,1,\nA1,05/11/2026,X,,Mug,1,1,\nA2,05/11/2026,X,,Pen,1,1,\n";
    let (h, rows) = rows_from_csv(text, 1);
    let b = bound(SIMPLE, &h);
    let splits = scan(&b, &rows);
    assert_eq!(splits.len(), 1);
    let units = group_known(&b, rows.clone());
    let ds = docs(&units);
    assert_eq!(ds.len(), 3);
    assert!(ds[0].split && ds[1].split && !ds[2].split);
    assert!(split_findings(ds[1])[0].1.contains("start at lines 2 and 4"));
    // With continuation rows, the blank row is a line of A1 and A1 is one block.
    let m = SIMPLE.replace("[defaults]", "[group]\ncontinuation = true\n[defaults]");
    let b = bound(&m, &h);
    assert!(scan(&b, &rows).is_empty());
    let units = group_known(&b, rows);
    assert!(docs(&units).iter().all(|d| !d.split));
}

#[test]
fn many_parts_are_counted_and_the_first_few_named() {
    let mut text = String::from("No,Date,Customer,VAT,Item,Qty,Price,Tax\n");
    for _ in 0..10 {
        text.push_str("A1,05/11/2026,X,,Pen,1,1,\nB1,05/11/2026,X,,Pen,1,1,\n");
    }
    let (h, rows) = rows_from_csv(&text, 1);
    let b = bound(SIMPLE, &h);
    assert_eq!(scan(&b, &rows).len(), 2);
    let units = group_known(&b, rows);
    let ds = docs(&units);
    assert_eq!(ds.len(), 20);
    assert!(ds.iter().all(|d| d.split));
    let f = &split_findings(ds[0])[0].1;
    assert!(
        f.contains("its 10 parts start at lines 2, 4, 6, 8, 10, 12 and 4 more"),
        "{f}"
    );
}

#[test]
fn contiguous_documents_and_repeated_headers_are_not_split() {
    let text = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
                A1,05/11/2026,X,,Pen,1,1,\nNo,Date,Customer,VAT,Item,Qty,Price,Tax\nA1,05/11/2026,X,,Cup,1,1,\n\
                A2,05/11/2026,X,,Pen,1,1,\n";
    let (h, rows) = rows_from_csv(text, 1);
    let b = bound(SIMPLE, &h);
    assert!(scan(&b, &rows).is_empty());
    let units = group_known(&b, rows);
    assert!(docs(&units).iter().all(|d| !d.split && split_findings(d).is_empty()));
}

#[test]
fn continuation_rows_belong_to_the_document_above() {
    let m = SIMPLE.replace("[defaults]", "[group]\ncontinuation = true\n[defaults]");
    let (h, rows) = rows_from_csv(
        "No,Date,Customer,VAT,Item,Qty,Price,Tax\n,,,,Orphan,1,1,\nA1,05/11/2026,X,,Pen,1,1,\n,,,,Cup,2,3,\nA2,06/11/2026,Y,,Mug,1,4,\n",
        1,
    );
    let b = bound(&m, &h);
    let units = group_all(&b, rows);
    assert!(matches!(&units[0], Unit::Stray(r) if r.issues[0].code == "INV-MAP-NUMBER"));
    let ds = docs(&units);
    assert_eq!(ds.len(), 2);
    assert_eq!(ds[0].rows.len(), 2);
    let doc = build(ds[0], &b, &seller()).document.unwrap();
    assert_eq!(doc.invoice_lines[1].item.name, "Cup");
}

/// The `INV-NUMBER-USED` findings of each document of `units`, by number.
fn used_findings(units: &[Unit]) -> Vec<(String, Vec<String>)> {
    docs(units)
        .iter()
        .map(|d| {
            let found = d
                .rows
                .iter()
                .flat_map(|r| r.issues.iter())
                .filter(|i| i.code == NUMBER_USED_CODE)
                .map(Issue::render)
                .collect();
            (d.key.clone(), found)
        })
        .collect()
}

#[test]
fn a_number_an_earlier_file_used_is_said_on_the_later_document_and_not_within_a_file() {
    let m = format!("{SIMPLE}\n[[skip]]\ncolumn = \"Status\"\nequals = [\"Voided\"]\n");
    let head = "No,Date,Customer,VAT,Item,Qty,Price,Tax,Status\n";
    let group = |used: NumbersUsed, file: &str, text: &str| {
        let (h, rows) = rows_from_csv(&format!("{head}{text}"), 1);
        let b = bound(&m, &h);
        let mut g = Grouper::new(b).with_numbers_used(used, file);
        let mut out = Vec::new();
        for r in rows {
            out.extend(g.push(r));
        }
        out.extend(g.finish());
        (out, g.take_numbers_used().unwrap())
    };
    // a.csv: A1 (lines 2-3), A2 voided (never issued), A3.
    let (units, used) = group(
        NumbersUsed::default(),
        "a.csv",
        "A1,05/11/2026,X,,Pen,1,1,,Paid\nA1,05/11/2026,X,,Cup,1,1,,Paid\nA2,05/11/2026,X,,Pen,1,1,,Voided\nA3,05/11/2026,X,,Pen,1,1,,Paid\n",
    );
    assert!(used_findings(&units).iter().all(|(_, f)| f.is_empty()));
    assert_eq!(used.len(), 2, "A1 and A3; the voided A2 is not remembered");
    // b.csv: B1, A3 again (said on its first row), A2 (voided in a.csv: issued here only).
    let (units, used) = group(
        used,
        "b.csv",
        "B1,05/11/2026,X,,Pen,1,1,,Paid\nA3,05/11/2026,X,,Pen,1,1,,Paid\nA3,05/11/2026,X,,Mug,1,1,,Paid\nA2,05/11/2026,X,,Pen,1,1,,Paid\n",
    );
    assert_eq!(
        used_findings(&units),
        [
            ("B1".to_string(), vec![]),
            (
                "A3".to_string(),
                vec![
                    "INV-NUMBER-USED No \"A3\": this number is already used by the document at line 5 of a.csv, \
                      checked before this file: a number is issued once; if this is the same document exported \
                      twice, remove it from one of the two files, else give this one a number of its own"
                        .to_string()
                ]
            ),
            ("A2".to_string(), vec![]),
        ]
    );
    // b.csv checked again (check's second pass over a file with a split number): its own
    // numbers are not "used before"; c.csv names b.csv for B1 and A2.
    let (units, used) = group(
        used,
        "b.csv",
        "B1,05/11/2026,X,,Pen,1,1,,Paid\nA2,05/11/2026,X,,Pen,1,1,,Paid\n",
    );
    assert!(used_findings(&units).iter().all(|(_, f)| f.is_empty()));
    let (units, _) = group(
        used,
        "c.csv",
        "A2,05/11/2026,X,,Pen,1,1,,Voided\nB1,05/11/2026,X,,Pen,1,1,,Paid\n",
    );
    let found = used_findings(&units);
    assert!(found[0].1.is_empty(), "voided: {found:?}");
    assert!(found[1].1[0].contains("line 2 of b.csv"), "{found:?}");
}

/// A mapping that reads the kind from a column, as Tally's does (each kind numbered from 1).
fn kinds_mapping() -> String {
    SIMPLE.replace(
        "number = \"No\"\n",
        "number = \"No\"\n\
         kind = { column = \"Type\", map = { \"Sales\" = \"invoice\", \"Sales Invoice\" = \"invoice\", \
         \"Credit Note\" = \"credit_note\" } }\n\
         original_number = { column = \"Orig\", optional = true }\n",
    )
}

/// Rows of `kinds_mapping`: `number,type,date,item[,original number]` each.
fn kind_rows(rows: &[&str]) -> (Vec<Vec<String>>, Vec<Row>) {
    let mut text = String::from("No,Type,Date,Customer,VAT,Item,Qty,Price,Tax,Orig\n");
    for r in rows {
        let f: Vec<&str> = r.split(',').collect();
        let orig = f.get(4).copied().unwrap_or("");
        text.push_str(&format!("{},{},{},X,,{},1,1,,{orig}\n", f[0], f[1], f[2], f[3]));
    }
    rows_from_csv(&text, 1)
}

/// Each document's key and rows.
fn shapes<'a>(ds: &[&'a DocDraft]) -> Vec<(&'a str, usize)> {
    ds.iter().map(|d| (d.key.as_str(), d.rows.len())).collect()
}

#[test]
fn a_number_two_kinds_have_is_two_documents_next_to_each_other_or_apart() {
    use crate::model::DocumentKind::{CreditNote, Invoice};
    let apart = [
        "1,Sales,05/11/2026,Pen",
        "2,Sales,05/11/2026,Pen",
        "1,Credit Note,06/11/2026,Pen,1",
    ];
    let adjacent = [
        "1,Sales,05/11/2026,Pen",
        "1,Sales,05/11/2026,Cup",
        "1,Credit Note,06/11/2026,Pen,1",
    ];
    for (rows, expected, kinds) in [
        (
            &apart,
            vec![("1", 1), ("2", 1), ("1", 1)],
            vec![Invoice, Invoice, CreditNote],
        ),
        (&adjacent, vec![("1", 2), ("1", 1)], vec![Invoice, CreditNote]),
    ] {
        let (h, rows) = kind_rows(rows);
        let b = bound(&kinds_mapping(), &h);
        assert!(scan(&b, &rows).is_empty(), "no document is split");
        // `run` knows the split keys before; `check` first groups without them.
        for units in [group_known(&b, rows.clone()), group_all(&b, rows.clone())] {
            let ds = docs(&units);
            assert_eq!(shapes(&ds), expected);
            let built: Vec<_> = ds.iter().map(|d| build(d, &b, &seller())).collect();
            for (d, built) in ds.iter().zip(&built) {
                assert!(!d.split);
                assert!(built.issues.iter().all(|(_, i)| !i.is_error()), "{:?}", built.issues);
            }
            let got: Vec<_> = built.iter().map(|b| b.document.as_ref().unwrap().kind).collect();
            assert_eq!(got, kinds);
        }
    }
    // Where the kind is not read from a column, the rows of one number are one document.
    let constant = SIMPLE.replace("number = \"No\"\n", "number = \"No\"\nkind = { value = \"invoice\" }\n");
    let (h, rows) = kind_rows(&adjacent);
    let b = bound(&constant, &h);
    assert_eq!(shapes(&docs(&group_known(&b, rows))), [("1", 3)]);
}

#[test]
fn a_kind_whose_rows_are_apart_is_split_and_named_when_another_kind_has_its_number() {
    let (h, rows) = kind_rows(&[
        "1,Sales,05/11/2026,Pen",
        "1,Credit Note,06/11/2026,Pen",
        "1,Sales,05/11/2026,Cup",
    ]);
    let b = bound(&kinds_mapping(), &h);
    assert_eq!(scan(&b, &rows).len(), 1);
    let units = group_known(&b, rows.clone());
    let ds = docs(&units);
    assert_eq!(shapes(&ds), [("1", 1), ("1", 1), ("1", 1)]);
    let expected = "INV-MAP-SPLIT No \"1\": the rows of invoice 1 are not together in the file (its 2 parts start \
                    at lines 2 and 4): no part of it is issued; put all its rows together, with its number on each, \
                    and run again; where a part only repeats another's rows (an export written twice into one \
                    file), take the repetition out instead";
    for d in [ds[0], ds[2]] {
        assert!(d.split);
        assert_eq!(split_findings(d), [(0, expected.to_string())]);
    }
    assert!(
        !ds[1].split && split_findings(ds[1]).is_empty(),
        "credit note 1 is whole"
    );
    // Without the first pass, the later part says it.
    let units = group_all(&b, rows);
    let ds = docs(&units);
    assert!(!ds[0].split && !ds[1].split && ds[2].split);
    assert!(
        split_findings(ds[2])[0]
            .1
            .contains("the rows of invoice 1 are not together in the file (a part of it starts at line 2)"),
        "{:?}",
        split_findings(ds[2])
    );
    // A number one kind has is named by its number alone.
    let (h, rows) = kind_rows(&[
        "1,Sales,05/11/2026,Pen",
        "2,Sales,05/11/2026,Pen",
        "1,Sales,05/11/2026,Cup",
    ]);
    let units = group_known(&bound(&kinds_mapping(), &h), rows);
    assert!(
        split_findings(docs(&units)[0])[0]
            .1
            .contains("No \"1\": this document's rows are not together")
    );
}

#[test]
fn a_later_row_whose_kind_is_blank_or_unknown_or_spelt_otherwise_stays_with_its_document() {
    let (h, rows) = kind_rows(&[
        "1,Sales,05/11/2026,Pen",
        "1,,05/11/2026,Cup",
        "1,sales invoice,05/11/2026,Mug",
        "1,Slaes,05/11/2026,Ink",
        "1,Credit Note,06/11/2026,Pen",
    ]);
    let b = bound(&kinds_mapping(), &h);
    assert!(scan(&b, &rows).is_empty());
    let units = group_known(&b, rows);
    let ds = docs(&units);
    assert_eq!(shapes(&ds), [("1", 4), ("1", 1)]);
    let built = build(ds[0], &b, &seller());
    let errors: Vec<_> = built
        .issues
        .iter()
        .filter(|(_, i)| i.is_error())
        .map(|(r, i)| (*r, i.code.as_str(), i.value.as_deref()))
        .collect();
    assert_eq!(errors, [(Some(3), "INV-MAP-CONFLICT", Some("Slaes"))]);
}

#[test]
fn a_credit_note_numbered_as_its_invoice_takes_the_invoices_date() {
    let (h, rows) = kind_rows(&["1,Sales,05/11/2026,Pen", "1,Credit Note,07/11/2026,Pen,1"]);
    let b = bound(&kinds_mapping(), &h);
    let units = group_all(&b, rows);
    let ds = docs(&units);
    assert_eq!(shapes(&ds), [("1", 1), ("1", 1)]);
    assert_eq!(ds[1].original_date, chrono::NaiveDate::from_ymd_opt(2026, 11, 5));
}

#[test]
fn a_row_without_number_names_the_kind_of_the_document_above_when_its_number_is_shared() {
    let (h, rows) = kind_rows(&[
        "1,Sales,05/11/2026,Pen",
        "1,Credit Note,06/11/2026,Pen",
        ",,,Cup",
        "2,Sales,05/11/2026,Pen",
        ",,,Cup",
    ]);
    let units = group_all(&bound(&kinds_mapping(), &h), rows);
    let said: Vec<String> = units
        .iter()
        .filter_map(|u| match u {
            Unit::Stray(r) => Some(r.issues[0].message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(said.len(), 2);
    assert!(said[0].contains("the row above is of credit note 1:"), "{}", said[0]);
    assert!(said[1].contains("the row above is of 2:"), "{}", said[1]);
}

#[test]
fn a_number_an_earlier_file_used_under_another_kind_is_not_used() {
    let group = |used: NumbersUsed, file: &str, rows: &[&str]| {
        let (h, rows) = kind_rows(rows);
        let mut g = Grouper::new(bound(&kinds_mapping(), &h)).with_numbers_used(used, file);
        let mut out = Vec::new();
        for r in rows {
            out.extend(g.push(r));
        }
        out.extend(g.finish());
        (used_findings(&out), g.take_numbers_used().unwrap())
    };
    let (found, used) = group(NumbersUsed::default(), "a.csv", &["1,Sales,05/11/2026,Pen"]);
    assert!(found.iter().all(|(_, f)| f.is_empty()));
    let (found, used) = group(
        used,
        "b.csv",
        &["1,Credit Note,06/11/2026,Pen", "2,Sales,05/11/2026,Pen"],
    );
    assert!(found.iter().all(|(_, f)| f.is_empty()), "{found:?}");
    let (found, _) = group(
        used,
        "c.csv",
        &["1,Credit Note,06/11/2026,Pen", "1,Sales,05/11/2026,Pen"],
    );
    assert_eq!(found.len(), 2);
    assert!(found[0].1[0].contains("the document at line 2 of b.csv"), "{found:?}");
    assert!(found[1].1[0].contains("the document at line 2 of a.csv"), "{found:?}");
}

//! Tests of reading in batches: the document held until the next one is read, files changed
//! while read (and cut: `local_tests_cuts.rs`), rows without a number.

use super::*;

/// The bundled Xero sample's first `docs` documents (its rows up to the next document's).
pub(super) fn xero_head(docs: usize) -> String {
    let sample =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/xero_sales_invoices.csv")).unwrap();
    let mut out = String::new();
    let mut numbers: Vec<String> = Vec::new();
    for (i, line) in sample.lines().enumerate() {
        if i > 0 {
            let number = line.split(',').nth(18).unwrap_or_default().to_string();
            if !numbers.contains(&number) {
                if numbers.len() == docs {
                    break;
                }
                numbers.push(number);
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    assert_eq!(numbers.len(), docs, "the sample has {docs} documents");
    out
}

/// Every unit of `path`, read as `check` reads it (nothing sent: the file is looked at again
/// only when its rows run out), with what changed; `between` runs after the file is opened and
/// before its rows are read.
fn read_all(path: &std::path::Path, between: impl FnOnce()) -> (Vec<Unit>, Option<FileChanged>) {
    let (batches, changed) = read_batches(path, "xero", 1000, between);
    (batches.into_iter().flatten().collect(), changed)
}

/// The batches of `path` read with `mapping`, `per_batch` documents each, as `check` reads
/// them, with what changed; `between` runs after the file is opened and before its rows are
/// read. After every batch but the last, the document after its last one is already closed
/// (held, first, for the next batch).
pub(super) fn read_batches(
    path: &std::path::Path,
    mapping: &str,
    per_batch: usize,
    between: impl FnOnce(),
) -> (Vec<Vec<Unit>>, Option<FileChanged>) {
    read_batches_with(path, mapping, per_batch, false, between, |_| {})
}

/// [`read_batches`], sending or not, with `after` run after each batch is read (given its
/// number).
pub(super) fn read_batches_with(
    path: &std::path::Path,
    mapping: &str,
    per_batch: usize,
    sending: bool,
    between: impl FnOnce(),
    mut after: impl FnMut(u64),
) -> (Vec<Vec<Unit>>, Option<FileChanged>) {
    let mapping = crate::mapping::bundled::get(mapping).unwrap().unwrap();
    let prepared = prepare(path, Arc::new(mapping), &crate::config::Config::default()).unwrap();
    between();
    let mut reading = Reading::new(prepared.input, prepared.bound, per_batch, sending, None);
    let mut batches = Vec::new();
    while let Some((n, batch)) = reading.batch(per_batch) {
        after(n);
        let docs = batch.iter().filter(|u| matches!(u, Unit::Document(_))).count();
        let strays_at_end = batch.iter().rev().take_while(|u| matches!(u, Unit::Stray(_))).count();
        if reading.done {
            assert!(reading.held.is_empty());
        } else if reading.held.is_empty() {
            assert_eq!(
                strays_at_end, STRAYS_PER_BATCH,
                "a batch without a document held ends in rows outside any document"
            );
        } else {
            assert_eq!(docs, per_batch, "a batch before the last");
            assert!(
                matches!(reading.held.first(), Some(Unit::Document(_))),
                "a batch is released once the document after it is closed"
            );
        }
        batches.push(batch);
    }
    (batches, reading.changed.take())
}

/// A change of the file's modification time alone (an hour back): the rows read are the
/// same.
pub(super) fn touch(path: &std::path::Path) {
    let f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    let was = f.metadata().unwrap().modified().unwrap();
    f.set_modified(was - std::time::Duration::from_secs(3600)).unwrap();
}

/// The number and first line of each document, and its rows' lines.
pub(super) fn documents(units: &[Unit]) -> Vec<(String, Vec<u64>)> {
    units
        .iter()
        .filter_map(|u| match u {
            Unit::Document(d) => Some((
                d.key.clone(),
                d.rows.iter().map(|r| r.source().map_or(0, |s| s.line)).collect(),
            )),
            Unit::Stray(_) => None,
        })
        .collect()
}

/// The documents with an `INV-FILE-CHANGED` finding, each with whether it says it is the
/// last.
pub(super) fn held(units: &[Unit]) -> Vec<(String, bool)> {
    held_for(units, FILE_CHANGED_CODE)
}

/// The documents with a finding of `code` (`INV-FILE-CHANGED`, `INV-FILE-CUT`), each with
/// whether it says it is the last.
pub(super) fn held_for(units: &[Unit], code: &str) -> Vec<(String, bool)> {
    units
        .iter()
        .filter_map(|u| {
            let found = issues_of(u, code);
            let Unit::Document(d) = u else { return None };
            (!found.is_empty()).then(|| {
                assert_eq!(found.len(), 1, "{found:?}");
                assert_eq!(found[0].0, 0, "on the first row");
                (d.key.clone(), found[0].1.contains("this last document"))
            })
        })
        .collect()
}

fn file_changed_issues(u: &Unit) -> Vec<(usize, String)> {
    issues_of(u, FILE_CHANGED_CODE)
}

/// The findings of `code` on a document's rows: (row, message).
pub(super) fn issues_of(u: &Unit, code: &str) -> Vec<(usize, String)> {
    let Unit::Document(d) = u else { return Vec::new() };
    d.rows
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.issues.iter().map(move |is| (i, is)))
        .filter(|(_, is)| is.code == code)
        .map(|(i, is)| (i, is.message.clone()))
        .collect()
}

#[test]
fn a_file_that_grows_while_read_has_its_last_documents_held_back_and_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    // The fifth document, INV-0105, has four lines (the third, INV-0103, is voided: skipped).
    let head = xero_head(5);
    std::fs::write(&path, &head).unwrap();
    let (units, changed) = read_all(&path, || {});
    assert_eq!(changed, None, "an unchanged file");
    assert!(units.iter().all(|u| file_changed_issues(u).is_empty()));

    let (units, changed) = read_all(&path, || {
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        std::io::Write::write_all(&mut f, head.lines().last().unwrap().as_bytes()).unwrap();
    });
    let changed = changed.expect("the file grew while it was read");
    let export = changed.export.clone().expect("the export changed");
    assert_eq!(export.opened, head.len() as u64);
    assert!(matches!(export.now, Ok(n) if n > head.len() as u64), "{changed:?}");
    let docs: Vec<&Unit> = units.iter().filter(|u| matches!(u, Unit::Document(_))).collect();
    assert_eq!(docs.len(), 5);
    let Unit::Document(last) = docs[4] else { unreachable!() };
    assert_eq!(last.key, "INV-0105");
    // The document before it, INV-0104, is a draft (skipped, never sent): nothing to hold.
    let Unit::Document(before) = docs[3] else {
        unreachable!()
    };
    assert!(before.skip.is_some());
    assert_eq!(
        changed.held_back,
        [super::super::HeldBack {
            number: last.key.clone(),
            line: last.rows[0].source().map_or(0, |s| s.line),
            last: true,
        }]
    );
    // One finding, on the last document's first row; the documents before it untouched.
    let found = file_changed_issues(docs[4]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 0);
    assert!(
        found[0].1.contains("bytes when opened") && found[0].1.contains("is held back"),
        "{found:?}"
    );
    assert!(docs[..4].iter().all(|u| file_changed_issues(u).is_empty()));
}

#[test]
fn a_file_replaced_or_removed_while_read_is_seen_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    let head = xero_head(2);
    std::fs::write(&path, &head).unwrap();
    // Replaced by a shorter file (renamed over it): the rows read are the old file's.
    let (_, changed) = read_all(&path, || {
        let other = dir.path().join("other.csv");
        std::fs::write(&other, xero_head(1)).unwrap();
        std::fs::rename(&other, &path).unwrap();
    });
    let changed = changed.expect("replaced");
    assert!(
        matches!(changed.export.as_ref().map(|e| &e.now), Some(Ok(n)) if *n < head.len() as u64),
        "{changed:?}"
    );
    assert_eq!(changed.held_back.len(), 2, "{changed:?}");
    std::fs::write(&path, &head).unwrap();
    let (_, changed) = read_all(&path, || std::fs::remove_file(&path).unwrap());
    assert!(changed.expect("removed").export.unwrap().now.is_err());
}

#[test]
fn a_file_ending_in_a_row_without_number_holds_back_only_the_document_before_that_row() {
    // The row without number may be a cut row of INV-0107 (its number comes later in a
    // Xero line); CN-0006 was ended by INV-0107's first row, which a row follows.
    let mut text = xero_head(7);
    text.push_str("Someone,,,,\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, &text).unwrap();
    let (batches, changed) = read_batches(&path, "xero", 1, || touch(&path));
    let units: Vec<Unit> = batches.into_iter().flatten().collect();
    assert!(matches!(units.last(), Some(Unit::Stray(_))));
    assert_eq!(held(&units), [("INV-0107".to_string(), true)]);
    let changed = changed.unwrap();
    assert_eq!(changed.held_back.len(), 1);
    assert!(
        changed
            .explain("not sent", "Again.")
            .contains("its last document, INV-0107 (line 14), which may be incomplete, was not sent"),
        "{}",
        changed.explain("not sent", "Again.")
    );
}

#[test]
fn a_spreadsheet_changed_while_read_has_its_last_two_documents_held_back_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.xlsx");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/samples/quickbooks_invoices.xlsx"),
        &path,
    )
    .unwrap();
    let (batches, changed) = read_batches(&path, "quickbooks-online", 2, || {});
    assert_eq!(changed, None);
    let units: Vec<Unit> = batches.into_iter().flatten().collect();
    assert!(held(&units).is_empty());
    let docs = documents(&units);
    assert!(docs.len() >= 3, "{docs:?}");
    let (batches, changed) = read_batches(&path, "quickbooks-online", 2, || touch(&path));
    let units: Vec<Unit> = batches.into_iter().flatten().collect();
    assert_eq!(documents(&units), docs);
    let last_two: Vec<(String, bool)> = docs[docs.len() - 2..]
        .iter()
        .zip([false, true])
        .map(|((n, _), last)| (n.clone(), last))
        .collect();
    assert_eq!(held(&units), last_two);
    assert_eq!(changed.unwrap().held_back.len(), 2);
}

/// Every outcome of `path` checked with `mapping` as `run` checks it (valid documents kept
/// for sending), and what changed; `between` runs once the file and the files read with it
/// (header file, lookup tables) are opened and read, before its rows are.
fn outcomes(path: &std::path::Path, mapping: &str, between: impl FnOnce()) -> (Vec<Outcome>, Option<FileChanged>) {
    let mapping = crate::mapping::bundled::get(mapping).unwrap().unwrap();
    let config = crate::config::Config::default();
    let prepared = prepare(path, Arc::new(mapping), &config).unwrap();
    between();
    let bound = prepared.bound.clone();
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let opts = CheckOptions::new(now, config.seller().0);
    let mut reading = Reading::new(prepared.input, prepared.bound, 2, true, None);
    let side = SideWatch::new(&bound, true);
    let mut out = Vec::new();
    while let Some((_, batch)) = reading.batch(2) {
        out.extend(batch.into_iter().map(|u| evaluate(u, &bound, &opts, "t", true, &side)));
    }
    (out, with_side(reading.changed.take(), side.finish()))
}

/// The documents of `outcomes` with their first row's errors.
fn first_errors(outcomes: &[Outcome]) -> Vec<(String, Vec<String>)> {
    outcomes
        .iter()
        .filter_map(|o| Some((o.brief.as_ref()?.number.clone(), o.rows.first()?.result.errors.clone())))
        .collect()
}

/// `samples/` files copied into a temporary folder.
fn copied(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in names {
        std::fs::copy(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(n),
            dir.path().join(n),
        )
        .unwrap();
    }
    dir
}

#[test]
fn a_header_file_that_changes_while_its_export_is_read_holds_back_the_documents_of_its_last_row() {
    let dir = copied(&[
        "SAP_B1_OINV_Document_Lines.txt",
        "SAP_B1_OINV_Documents.txt",
        "customers.csv",
    ]);
    let lines = dir.path().join("SAP_B1_OINV_Document_Lines.txt");
    let header = dir.path().join("SAP_B1_OINV_Documents.txt");
    let (out, changed) = outcomes(&lines, "sap-b1-dtw", || {});
    assert_eq!(changed, None);
    let docs = first_errors(&out);
    assert_eq!(docs.len(), 2, "{docs:?}");
    assert!(docs.iter().all(|(_, e)| e.is_empty()), "{docs:?}");
    let was = std::fs::metadata(&header).unwrap().len();
    const MORE: &[u8] = b"\t20261114\r\n";
    let now = was + MORE.len() as u64;

    // The header file grows once it is read (its writer was not done): its last row read,
    // RecordKey 2 (document 500102), may have been cut.
    let (out, changed) = outcomes(&lines, "sap-b1-dtw", || {
        let mut f = std::fs::OpenOptions::new().append(true).open(&header).unwrap();
        std::io::Write::write_all(&mut f, MORE).unwrap();
    });
    let docs = first_errors(&out);
    assert!(docs[0].1.is_empty(), "{docs:?}");
    assert_eq!(docs[1].0, "500102");
    let [error] = docs[1].1.as_slice() else {
        panic!("{docs:?}")
    };
    assert!(
        error.starts_with(&format!(
            "INV-FILE-CHANGED ParentKey \"2\": the header file SAP_B1_OINV_Documents.txt changed while this \
             export was read ({was} bytes when opened, {now} now): this document is built from its last row, \
             which may be incomplete"
        )) && error.contains("is not sent; send the export again once SAP_B1_OINV_Documents.txt is complete"),
        "{error}"
    );
    assert!(out.iter().all(|o| {
        o.rows
            .iter()
            .skip(1)
            .all(|r| !r.result.errors.iter().any(|e| e.starts_with("INV-FILE-CHANGED")))
    }));
    // The export itself did not change: nothing else is held back, and the file's error
    // names the header file and the document.
    let changed = changed.expect("the header file changed");
    assert_eq!(changed.export, None);
    let explained = changed.explain("not sent", "Run it again once it is complete.");
    assert!(
        explained.starts_with(&format!(
            "the header file SAP_B1_OINV_Documents.txt changed while this export was read ({was} bytes when \
             opened, {now} now): it was still being written or was replaced; the document built from its last \
             row, 500102 (line 5), which may be incomplete, was not sent (INV-FILE-CHANGED)"
        )) && explained.ends_with("Run it again once SAP_B1_OINV_Documents.txt is complete."),
        "{explained}"
    );
}

#[test]
fn a_lookup_table_that_changes_while_its_export_is_read_holds_back_the_documents_of_its_last_row_or_not_in_it() {
    let dir = copied(&["xero_sales_invoices.csv", "customers.csv"]);
    let export = dir.path().join("xero_sales_invoices.csv");
    let table = dir.path().join("customers.csv");
    // CN-0006's buyer is not in the table: it may be in the part not read yet.
    let text = std::fs::read_to_string(&export).unwrap();
    let text = text.replace("Al Ofuq Trading Co.,accounts@example.sa,King Fahd Road | طريق الملك فهد,,,,Riyadh,,12211,Saudi Arabia,,,,,,,,,CN-0006", "Stranger Co.,accounts@example.sa,King Fahd Road | طريق الملك فهد,,,,Riyadh,,12211,Saudi Arabia,,,,,,,,,CN-0006");
    assert!(text.contains("Stranger Co.,"));
    std::fs::write(&export, text).unwrap();
    let (out, changed) = outcomes(&export, "xero", || {});
    assert_eq!(changed, None);
    assert!(
        first_errors(&out)
            .iter()
            .all(|(_, e)| !e.iter().any(|e| e.starts_with("INV-FILE-CHANGED")))
    );

    // Rewritten in place once read: its last row is Walk-in Customer, INV-0102's buyer.
    let (out, changed) = outcomes(&export, "xero", || touch(&table));
    let held: Vec<(String, String)> = first_errors(&out)
        .into_iter()
        .filter_map(|(n, e)| Some((n, e.into_iter().find(|e| e.starts_with("INV-FILE-CHANGED"))?)))
        .collect();
    assert_eq!(
        held.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["INV-0102", "CN-0006"],
        "{held:?}"
    );
    assert!(
        held[0].1.starts_with(
            "INV-FILE-CHANGED ContactName \"Walk-in Customer\": the lookup table customers.csv changed while \
             this export was read ("
        ) && held[0]
            .1
            .contains("this document is built from its last row, which may be incomplete"),
        "{}",
        held[0].1
    );
    assert!(
        held[1]
            .1
            .starts_with("INV-FILE-CHANGED ContactName \"Stranger Co.\": the lookup table customers.csv")
            && held[1]
                .1
                .contains("this document's key is not in it, and may be in the part of it not read"),
        "{}",
        held[1].1
    );
    let changed = changed.expect("the table changed");
    let explained = changed.explain("held back", "Check it again once it is complete.");
    assert!(
        explained.contains("the lookup table customers.csv changed while this export was read")
            && explained.contains("the documents built from its last row or not found in it, INV-0102 (line 5) and CN-0006 (line 13), which may be incomplete, were held back (INV-FILE-CHANGED)")
            && explained.ends_with("Check it again once customers.csv is complete."),
        "{explained}"
    );
}

#[test]
fn rows_without_number_are_read_in_batches_not_held_whole() {
    let head = xero_head(3);
    let strays = "Someone,,,\n".repeat(5000);
    // 5,000 rows without number after the first document, and before any.
    let text = head.replacen("\nWalk-in Customer,", &format!("\n{strays}Walk-in Customer,"), 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, &text).unwrap();
    let all = text.lines().count() - 1;
    for per_batch in [1, 50] {
        let (batches, changed) = read_batches(&path, "xero", per_batch, || {});
        assert_eq!(changed, None);
        assert!(batches.len() >= 5, "{} batches", batches.len());
        assert!(
            batches.iter().all(|b| b.len() <= STRAYS_PER_BATCH + 2),
            "{:?}",
            batches.iter().map(Vec::len).collect::<Vec<_>>()
        );
        let units: Vec<Unit> = batches.into_iter().flatten().collect();
        let rows: usize = units
            .iter()
            .map(|u| match u {
                Unit::Document(d) => d.rows.len(),
                Unit::Stray(_) => 1,
            })
            .sum();
        assert_eq!(rows, all);
        assert_eq!(documents(&units).len(), 3);
        // Changed at the end: the last two documents held back (INV-0103, a draft, says
        // nothing), not the first, whose rows without number were followed by more rows.
        let (batches, _) = read_batches(&path, "xero", per_batch, || touch(&path));
        let units: Vec<Unit> = batches.into_iter().flatten().collect();
        assert_eq!(held(&units), [("INV-0102".to_string(), false)]);
    }
}

#[test]
fn batches_keep_every_unit_in_input_order_whatever_their_size() {
    let head = xero_head(7);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    // A row without number between two documents: a unit outside any document, in place.
    let text = head.replacen("\nWalk-in Customer,", "\nSomeone,,,\nWalk-in Customer,", 1);
    std::fs::write(&path, &text).unwrap();
    let lines = |units: &[Unit]| -> Vec<u64> {
        units
            .iter()
            .flat_map(|u| match u {
                Unit::Document(d) => d.rows.iter().collect::<Vec<_>>(),
                Unit::Stray(r) => vec![r],
            })
            .map(|r| r.source().map_or(0, |s| s.line))
            .collect()
    };
    let all: Vec<u64> = (2..=text.lines().count() as u64).collect();
    for per_batch in [1, 2, 3, 7, 1000] {
        let (batches, _) = read_batches(&path, "xero", per_batch, || {});
        let units: Vec<Unit> = batches.into_iter().flatten().collect();
        assert_eq!(lines(&units), all, "{per_batch} a batch");
        assert_eq!(documents(&units).len(), 7);
    }
}

#[test]
fn an_xlsx_sheet_read_on_its_own_thread_is_left_a_core() {
    // Two cores: one evaluates and writes, one reads the sheet. One core: one thread does
    // both (the reader's thread shares it). A text file is read by the evaluating threads.
    assert_eq!(workers(2, true), 1);
    assert_eq!(workers(4, true), 3);
    assert_eq!(workers(1, true), 1);
    assert_eq!(workers(2, false), 2);
    assert_eq!(workers(0, false), 1);
    let config = crate::config::Config::default();
    let xlsx = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/quickbooks_invoices.xlsx");
    let mapping = crate::mapping::bundled::get("quickbooks-online").unwrap().unwrap();
    let prepared = prepare(std::path::Path::new(xlsx), Arc::new(mapping), &config).unwrap();
    assert!(
        prepared.input.reader_thread,
        "an xlsx sheet is streamed on a thread of its own"
    );
    let csv = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/xero_sales_invoices.csv");
    let mapping = crate::mapping::bundled::get("xero").unwrap().unwrap();
    let prepared = prepare(std::path::Path::new(csv), Arc::new(mapping), &config).unwrap();
    assert!(
        !prepared.input.reader_thread,
        "a text file is read by the evaluating threads"
    );
}

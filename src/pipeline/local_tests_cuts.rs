//! Tests of reading a file cut or changed while it is read: wherever a cut falls, the document
//! open at the end and the one before it are held back; a file whose documents are sent is
//! looked at again after each batch, and has every document from the batch where it was seen
//! changed on held back; a file whose last line was cut short before it was read has its last
//! two documents held back as for a change.

use super::tests::{documents, held, held_for, issues_of, read_batches, read_batches_with, touch, xero_head};
use super::*;

/// Lines 2-4 INV-0101, 5-6 INV-0102, 7 INV-0103 (voided), 8 INV-0104 (draft), 9-12 INV-0105,
/// 13 CN-0006, 14-15 INV-0107.
fn seven() -> String {
    xero_head(7)
}

/// Every row's line, in the order read.
fn lines(units: &[Unit]) -> Vec<u64> {
    units
        .iter()
        .flat_map(|u| match u {
            Unit::Document(d) => d.rows.iter().collect::<Vec<_>>(),
            Unit::Stray(r) => vec![r],
        })
        .map(|r| r.source().map_or(0, |s| s.line))
        .collect()
}

/// The documents of `units` that are sent if valid (not skipped).
fn not_skipped(units: &[Unit]) -> Vec<String> {
    units
        .iter()
        .filter_map(|u| match u {
            Unit::Document(d) if d.skip.is_none() => Some(d.key.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_file_seen_changed_after_a_batch_is_read_has_that_batch_and_every_later_one_held_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    let text = seven();
    std::fs::write(&path, &text).unwrap();
    let all: Vec<u64> = (2..=text.lines().count() as u64).collect();
    for per_batch in [1, 2, 3] {
        for changed_after in [0, 1] {
            std::fs::write(&path, &text).unwrap();
            // Changed once batch `changed_after` is handed on: the next batch sees it.
            let (batches, changed) = read_batches_with(
                &path,
                "xero",
                per_batch,
                true,
                || {},
                |n| {
                    if n == changed_after {
                        touch(&path);
                    }
                },
            );
            let what = format!("{per_batch} a batch, changed after batch {changed_after}");
            let split = changed_after as usize + 1;
            if split >= batches.len() {
                // No batch after it (three a batch makes two).
                continue;
            }
            let before: Vec<Unit> = batches[..split].iter().flatten().cloned().collect();
            let after: Vec<Unit> = batches[split..].iter().flatten().cloned().collect();
            let units: Vec<Unit> = batches.into_iter().flatten().collect();
            // Every row is there, once, in order.
            assert_eq!(lines(&units), all, "{what}");
            assert!(
                before.iter().all(|u| issues_of(u, FILE_CHANGED_CODE).is_empty()),
                "{what}: the batches read before the change go on"
            );
            let held: Vec<String> = after
                .iter()
                .filter(|u| !issues_of(u, FILE_CHANGED_CODE).is_empty())
                .map(|u| match u {
                    Unit::Document(d) => d.key.clone(),
                    Unit::Stray(_) => unreachable!(),
                })
                .collect();
            assert_eq!(
                held,
                not_skipped(&after),
                "{what}: every later document, not the skipped ones"
            );
            assert!(!held.is_empty(), "{what}");
            for u in &after {
                for (row, message) in issues_of(u, FILE_CHANGED_CODE) {
                    assert_eq!(row, 0, "on the first row");
                    assert!(
                        message.starts_with("the file changed while it was read (")
                            && message.contains(
                                "it was still being written, rewritten or \
                                 replaced while its documents were being sent, and this document \
                                 was read after that or just before it was seen, so it may mix rows (or parts of a \
                                 row) of the two versions and is not sent; send the file again once it is complete \
                                 (what was sent is reported from the ledger, nothing is sent twice)"
                            ),
                        "{message}"
                    );
                }
            }
            let changed = changed.expect("changed");
            assert!(changed.held_back.is_empty(), "{what}");
            let from = changed.midway.clone().expect("seen while sending");
            let first = documents(&after)
                .into_iter()
                .find(|(n, _)| *n == held[0])
                .map(|(_, l)| l[0])
                .unwrap();
            assert_eq!(
                from,
                HeldFrom {
                    first: Some(HeldBack {
                        number: held[0].clone(),
                        line: first,
                        last: false,
                    }),
                    count: held.len() as u64,
                },
                "{what}"
            );
            let explained = changed.explain("not sent", "Again.");
            let docs = match held.len() {
                1 => format!("the document from {} (line {first}) on", held[0]),
                n => format!("the {n} documents from {} (line {first}) on", held[0]),
            };
            assert!(
                explained.starts_with("the file changed while it was read (")
                    && explained.contains(&format!(
                        "it was still being written, rewritten or \
                         replaced while its documents were being sent; {docs}, which may mix \
                         rows (or parts of a row) of the two versions, {} not sent (INV-FILE-CHANGED); those before",
                        if held.len() == 1 { "was" } else { "were" }
                    ))
                    && explained.ends_with("were read before it changed, and went on. Again."),
                "{explained}"
            );
        }
    }
}

#[test]
fn a_file_rewritten_in_place_after_a_batch_is_read_holds_back_the_rest_and_keeps_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    let text = seven();
    std::fs::write(&path, &text).unwrap();
    // Truncated and written again, shorter, as `cp other.csv x.csv` does.
    let (batches, changed) = read_batches_with(
        &path,
        "xero",
        2,
        true,
        || {},
        |n| {
            if n == 0 {
                std::fs::write(&path, xero_head(2)).unwrap();
            }
        },
    );
    let units: Vec<Unit> = batches[1..].iter().flatten().cloned().collect();
    assert_eq!(
        held_for(&units, FILE_CHANGED_CODE),
        [("INV-0105", false), ("CN-0006", false), ("INV-0107", false)].map(|(n, l)| (n.to_string(), l))
    );
    let changed = changed.unwrap();
    let export = changed.export.clone().unwrap();
    assert_eq!(export.opened, text.len() as u64);
    assert_eq!(changed.midway.unwrap().count, 3);
    let all: Vec<Unit> = batches.into_iter().flatten().collect();
    assert_eq!(lines(&all), (2..=text.lines().count() as u64).collect::<Vec<_>>());
}

#[test]
fn a_file_sent_and_seen_changed_only_at_its_end_has_its_whole_last_batch_held_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, seven()).unwrap();
    // One batch: the look at the end is its look.
    let (batches, changed) = read_batches_with(&path, "xero", 1000, true, || touch(&path), |_| {});
    let units: Vec<Unit> = batches.into_iter().flatten().collect();
    let held: Vec<String> = held_for(&units, FILE_CHANGED_CODE)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(held, not_skipped(&units));
    assert_eq!(held.len(), 5);
    let changed = changed.unwrap();
    assert!(changed.held_back.is_empty());
    assert_eq!(changed.midway.unwrap().count, 5);
    // Batches of two: the batches before the last are each looked at, and unchanged, go on;
    // the change is seen at the end, and the last batch (INV-0105, CN-0006, INV-0107: the
    // document open at the end comes with it) is held back.
    let (batches, changed) = read_batches_with(
        &path,
        "xero",
        2,
        true,
        || {},
        |n| {
            if n == 1 {
                touch(&path);
            }
        },
    );
    assert_eq!(batches.len(), 3);
    let last = batches.last().unwrap().clone();
    assert_eq!(not_skipped(&last), ["INV-0105", "CN-0006", "INV-0107"]);
    let units: Vec<Unit> = batches.into_iter().flatten().collect();
    assert_eq!(
        held_for(&units, FILE_CHANGED_CODE),
        [("INV-0105", false), ("CN-0006", false), ("INV-0107", false)].map(|(n, l)| (n.to_string(), l))
    );
    assert_eq!(changed.unwrap().midway.unwrap().count, 3);
}

#[test]
fn an_unchanged_file_sent_in_batches_has_nothing_held_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, seven()).unwrap();
    for per_batch in [1, 2, 1000] {
        let (batches, changed) = read_batches_with(&path, "xero", per_batch, true, || {}, |_| {});
        assert_eq!(changed, None);
        let units: Vec<Unit> = batches.into_iter().flatten().collect();
        assert!(held_for(&units, FILE_CHANGED_CODE).is_empty());
        assert!(held_for(&units, FILE_CUT_CODE).is_empty());
    }
}

#[test]
fn a_last_line_cut_short_holds_back_the_last_two_documents_and_a_whole_one_without_line_end_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    let text = seven();
    let width = text.lines().next().unwrap().split(',').count();
    // INV-0107's second line, line 15, cut after its first 19 cells (its number the last).
    let line15 = text.lines().nth(14).unwrap();
    let cut: String = line15.split(',').take(19).collect::<Vec<_>>().join(",");
    let start = text.len() - line15.len() - 1;
    std::fs::write(&path, format!("{}{cut}", &text[..start])).unwrap();
    for sending in [true, false] {
        for per_batch in [1, 1000] {
            let (batches, changed) = read_batches_with(&path, "xero", per_batch, sending, || {}, |_| {});
            let units: Vec<Unit> = batches.into_iter().flatten().collect();
            assert_eq!(
                held_for(&units, FILE_CUT_CODE),
                [("CN-0006".to_string(), false), ("INV-0107".to_string(), true)]
            );
            let changed = changed.unwrap();
            assert_eq!(changed.export, None);
            assert_eq!(changed.midway, None);
            let found = issues_of(&units[units.len() - 1], FILE_CUT_CODE);
            let (held, again) = if sending {
                (
                    "not sent",
                    "send the file again once it is complete (what was sent is reported from the ledger, nothing is \
                     sent twice)",
                )
            } else {
                ("held back", "check the file again once it is complete")
            };
            assert_eq!(
                found[0].1,
                format!(
                    "the file ends in the middle of a line: its last line, line 15, has no line end and 19 of the \
                     header's {width} cells: it was cut short (still being written, or copied incompletely), so \
                     this last document may be incomplete and is {held}; {again}"
                )
            );
            assert_eq!(
                changed.explain(held, "Again."),
                format!(
                    "the file ends in the middle of a line: its last line, line 15, has no line end and 19 of the \
                     header's {width} cells: it was cut short (still being written, or copied incompletely); its \
                     last two documents, CN-0006 (line 13) and INV-0107 (line 14), which may be incomplete, were \
                     {held} (INV-FILE-CUT), and the rest of the file was not seen. Again."
                )
            );
        }
    }

    // The last line whole, without its line end (many ERPs leave it out): nothing.
    std::fs::write(&path, text.trim_end_matches('\n')).unwrap();
    for sending in [true, false] {
        let (batches, changed) = read_batches_with(&path, "xero", 2, sending, || {}, |_| {});
        assert_eq!(changed, None);
        let units: Vec<Unit> = batches.into_iter().flatten().collect();
        assert!(held_for(&units, FILE_CUT_CODE).is_empty());
        assert_eq!(lines(&units), (2..=15).collect::<Vec<_>>());
    }
}

#[test]
fn a_last_line_cut_inside_a_quote_holds_back_the_document_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    // A row of INV-0107 cut in its first cell, a quoted name (its number comes later in the
    // line): a row outside any document, which may be INV-0107's.
    std::fs::write(&path, format!("{}\"Al Ofuq, Tra", seven())).unwrap();
    let (batches, changed) = read_batches_with(&path, "xero", 2, true, || {}, |_| {});
    let units: Vec<Unit> = batches.into_iter().flatten().collect();
    assert!(matches!(units.last(), Some(Unit::Stray(_))));
    assert_eq!(held_for(&units, FILE_CUT_CODE), [("INV-0107".to_string(), true)]);
    let changed = changed.unwrap();
    assert!(
        changed.explain("not sent", "Again.").starts_with(
            "the file ends in the middle of a line: its last line, in the row from line 16, has no line end and a \
             quote (\") in it is never closed: it was cut short (still being written, or copied incompletely); its \
             last document, INV-0107 (line 14), which may be incomplete, was not sent (INV-FILE-CUT)"
        ),
        "{}",
        changed.explain("not sent", "Again.")
    );
    // Closed by a line end, the quote took it in: a quoting mistake, not a cut.
    std::fs::write(&path, format!("{}\"Al Ofuq, Tra\n", seven())).unwrap();
    let (_, changed) = read_batches_with(&path, "xero", 2, true, || {}, |_| {});
    assert_eq!(changed, None);
}

#[test]
fn a_cut_last_line_in_a_file_that_also_changed_is_said_as_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, format!("{}Someone,", seven())).unwrap();
    let (batches, changed) = read_batches_with(&path, "xero", 1000, false, || touch(&path), |_| {});
    let units: Vec<Unit> = batches.into_iter().flatten().collect();
    assert!(held_for(&units, FILE_CUT_CODE).is_empty());
    assert_eq!(held_for(&units, FILE_CHANGED_CODE), [("INV-0107".to_string(), true)]);
    assert!(changed.unwrap().export.is_some());
}

/// Where `cut` falls in `text` (line `line`, 1-based): in the number cell of that line
/// (`INV-0`), after its number (five bytes before its end), or at its start (right after
/// the newline that ends the line before).
#[derive(Debug, Clone, Copy)]
enum Cut {
    InNumber,
    AfterNumber,
    AtStart,
}

fn cut_at(text: &str, line: usize, cut: Cut) -> usize {
    let start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
    let this = text[start..].lines().next().unwrap();
    match cut {
        Cut::AtStart => start,
        Cut::InNumber => start + this.find(",INV-0").or_else(|| this.find(",CN-0")).unwrap() + 1 + 5,
        Cut::AfterNumber => start + this.len() - 5,
    }
}

#[test]
fn a_cut_holds_back_the_document_open_at_the_end_and_the_one_before_it_wherever_it_falls() {
    // Lines 9-12 INV-0105, 13 CN-0006, 14-15 INV-0107.
    let head = xero_head(7);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    // The cut's line and place, the last documents read (number, lines), and those held
    // back (number, whether it is the last).
    type Case = (
        usize,
        Cut,
        &'static [(&'static str, &'static [u64])],
        &'static [(&'static str, bool)],
    );
    let cases: &[Case] = &[
        // In the number cell of INV-0107's second line: the stub `INV-0` ends INV-0107,
        // which may be missing that line.
        (
            15,
            Cut::InNumber,
            &[("CN-0006", &[13]), ("INV-0107", &[14]), ("INV-0", &[15])],
            &[("INV-0107", false), ("INV-0", true)],
        ),
        // In the number cell of INV-0107's first line: the stub ends CN-0006.
        (
            14,
            Cut::InNumber,
            &[("CN-0006", &[13]), ("INV-0", &[14])],
            &[("CN-0006", false), ("INV-0", true)],
        ),
        // After the number of INV-0107's second line, and right after the newline that
        // ends its first: INV-0107 is open at the end, and the one before it is held too.
        (
            15,
            Cut::AfterNumber,
            &[("CN-0006", &[13]), ("INV-0107", &[14, 15])],
            &[("CN-0006", false), ("INV-0107", true)],
        ),
        (
            15,
            Cut::AtStart,
            &[("CN-0006", &[13]), ("INV-0107", &[14])],
            &[("CN-0006", false), ("INV-0107", true)],
        ),
        // Right after the newline that ends INV-0105's third line (a writer that paused
        // between two rows of one document).
        (
            12,
            Cut::AtStart,
            &[("INV-0104", &[8]), ("INV-0105", &[9, 10, 11])],
            // INV-0104 is a draft: skipped, never sent.
            &[("INV-0105", true)],
        ),
        // In the number cell of INV-0105's fourth line: INV-0105 ended by the stub.
        (
            12,
            Cut::InNumber,
            &[("INV-0105", &[9, 10, 11]), ("INV-0", &[12])],
            &[("INV-0105", false), ("INV-0", true)],
        ),
    ];
    for &(line, cut, tail, expected) in cases {
        let at = cut_at(&head, line, cut);
        let text = &head[..at];
        std::fs::write(&path, text).unwrap();
        let what = format!("cut {cut:?} line {line}: {:?}", &head[at.saturating_sub(12)..at]);
        let expect: Vec<(String, bool)> = expected.iter().map(|(n, l)| (n.to_string(), *l)).collect();
        // Unchanged: a cut right after a line end leaves nothing to see, every document is
        // released; a cut in a line leaves it without its line end and short of cells, and the
        // same documents are held back as for a change (`INV-FILE-CUT`), sent or not.
        for sending in [false, true] {
            let (batches, changed) = read_batches_with(&path, "xero", 1, sending, || {}, |_| {});
            let units: Vec<Unit> = batches.into_iter().flatten().collect();
            assert!(held(&units).is_empty(), "{what}");
            match cut {
                Cut::AtStart => {
                    assert_eq!(changed, None, "{what}");
                    assert!(held_for(&units, FILE_CUT_CODE).is_empty(), "{what}");
                }
                Cut::InNumber | Cut::AfterNumber => {
                    let changed = changed.unwrap_or_else(|| panic!("{what}: cut"));
                    assert_eq!(
                        (&changed.export, changed.cut.as_ref().map(|c| c.line)),
                        (&None, Some(line as u64))
                    );
                    assert_eq!(held_for(&units, FILE_CUT_CODE), expect, "{what}");
                    let named: Vec<(String, bool)> =
                        changed.held_back.iter().map(|h| (h.number.clone(), h.last)).collect();
                    assert_eq!(named, expect, "{what}");
                }
            }
        }
        let (batches, _) = read_batches(&path, "xero", 1, || {});
        let units: Vec<Unit> = batches.into_iter().flatten().collect();
        let docs = documents(&units);
        let expect_tail: Vec<(String, Vec<u64>)> = tail.iter().map(|(n, l)| (n.to_string(), l.to_vec())).collect();
        assert_eq!(docs[docs.len() - tail.len()..], expect_tail[..], "{what}");
        // The same rows, the file changed meanwhile: the two last documents are held back
        // (the skipped ones say nothing), whatever the batch size.
        for per_batch in [1, 2, 1000] {
            let (batches, changed) = read_batches(&path, "xero", per_batch, || touch(&path));
            let changed = changed.unwrap_or_else(|| panic!("{what}: changed"));
            let units: Vec<Unit> = batches.into_iter().flatten().collect();
            assert_eq!(documents(&units), docs, "{what}");
            let found = held(&units);
            assert_eq!(found, expect, "{what}, {per_batch} a batch");
            assert!(
                held_for(&units, FILE_CUT_CODE).is_empty(),
                "the change is said, not the cut"
            );
            let named: Vec<(String, bool)> = changed.held_back.iter().map(|h| (h.number.clone(), h.last)).collect();
            assert_eq!(named, expect, "{what}");
        }
    }
}

/// The units of the first `rows` data rows of `path`, read in batches of 2 documents, then an
/// error after which the reader cannot go on (`ends_file`, as a workbook damaged part-way gives).
fn read_damaged(path: &std::path::Path, rows: usize, sending: bool) -> (Vec<Unit>, Option<FileChanged>) {
    let mapping = crate::mapping::bundled::get("xero").unwrap().unwrap();
    let mut prepared = prepare(path, Arc::new(mapping), &crate::config::Config::default()).unwrap();
    let read = std::mem::replace(&mut prepared.input.rows, Box::new(std::iter::empty()));
    let damage = RowError {
        source: None,
        message: "x.csv could not be read after line 7: the disk said no".into(),
        ends_file: true,
    };
    prepared.input.rows = Box::new(read.take(rows).chain(std::iter::once(Err(damage))));
    let mut reading = Reading::new(prepared.input, prepared.bound, 2, sending, None);
    let mut units = Vec::new();
    while let Some((_, batch)) = reading.batch(2) {
        units.extend(batch);
    }
    (units, reading.changed.take())
}

#[test]
fn a_file_its_reader_cannot_read_to_its_end_has_the_document_open_there_held_back_and_no_row_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, seven()).unwrap();
    // (data rows read before the damage, the document held back): the one open when it was
    // met, unless it is skipped (never sent); the one before it was ended by a whole row.
    let cases: [(usize, Option<&str>); 6] = [
        (1, Some("INV-0101")),
        (3, Some("INV-0101")),
        (4, Some("INV-0102")),
        (6, None),
        (10, Some("INV-0105")),
        (14, Some("INV-0107")),
    ];
    for sending in [false, true] {
        for (rows, want) in cases {
            let (units, changed) = read_damaged(&path, rows, sending);
            assert_eq!(
                lines(&units),
                (2..2 + rows as u64).collect::<Vec<_>>(),
                "only the rows read, once each"
            );
            let changed = changed.expect("the file's error");
            assert_eq!(
                changed.damaged.as_deref(),
                Some("x.csv could not be read after line 7: the disk said no")
            );
            assert_eq!((changed.export.clone(), changed.cut.clone()), (None, None));
            let held = held_for(&units, FILE_DAMAGED_CODE);
            assert_eq!(
                held,
                want.map(|n| (n.to_string(), false)).into_iter().collect::<Vec<_>>(),
                "{rows} rows"
            );
            assert_eq!(
                changed.held_back.iter().map(|h| h.number.as_str()).collect::<Vec<_>>(),
                want.into_iter().collect::<Vec<_>>()
            );
            let found: Vec<String> = units
                .iter()
                .flat_map(|u| issues_of(u, FILE_DAMAGED_CODE))
                .map(|(_, m)| m)
                .collect();
            for message in &found {
                assert!(
                    message.contains("could not be read to its end: x.csv could not be read after line 7"),
                    "{message}"
                );
                let then = if sending {
                    "is not sent; send the file again"
                } else {
                    "is held back; check the file again"
                };
                assert!(message.contains(then), "{message}");
            }
            let explained = changed.explain("not sent", "Run it again once it is complete");
            assert!(
                explained.ends_with("Run it again once it reads to its end"),
                "{explained}"
            );
            if let Some(n) = want {
                assert!(
                    explained.contains(&format!("Its last document, {n} (line")),
                    "{explained}"
                );
                assert!(
                    explained.contains("was not sent (INV-FILE-DAMAGED), and the rows after it were not read"),
                    "{explained}"
                );
            }
        }
    }
}

#[test]
fn a_row_the_reader_could_not_read_but_read_past_stays_a_row_of_its_document() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    std::fs::write(&path, seven()).unwrap();
    let mapping = crate::mapping::bundled::get("xero").unwrap().unwrap();
    let mut prepared = prepare(&path, Arc::new(mapping), &crate::config::Config::default()).unwrap();
    let read = std::mem::replace(&mut prepared.input.rows, Box::new(std::iter::empty()));
    let bad = RowError {
        source: None,
        message: "line 4 could not be read".into(),
        ends_file: false,
    };
    let mut read = read.peekable();
    let first_two: Vec<_> = read.by_ref().take(2).collect();
    prepared.input.rows = Box::new(first_two.into_iter().chain(std::iter::once(Err(bad))).chain(read));
    let mut reading = Reading::new(prepared.input, prepared.bound, 2, false, None);
    let mut units = Vec::new();
    while let Some((_, batch)) = reading.batch(2) {
        units.extend(batch);
    }
    assert_eq!(reading.changed.take(), None, "the reader went on: the file is whole");
    assert_eq!(issues_of(&units[0], "INV-ROW-READ").len(), 1, "the row joins INV-0101");
    assert!(held_for(&units, FILE_DAMAGED_CODE).is_empty());
}

//! A document whose rows are not together in the export (another document's rows, or a row
//! without a number, between its parts): `run` sends no part of it, the first included, which
//! looks complete on its own; every part is `invalid` with `INV-MAP-SPLIT` on its first row,
//! saying where the parts start; its credit note is not issued either
//! (`INV-REFERENCE-NOT-ISSUED`); the other documents are issued. `check` says the same.

use super::support::*;
use invoicedrop::model::DocumentKind;
use invoicedrop::sandbox::SandboxConfig;
use invoicedrop::submit::{DocumentKey, Ledger};
use std::collections::BTreeMap;
use std::path::Path;

/// The Sage 50 sample's lines (header first, without its trailing blank rows), its lookup files
/// copied into `dir`. Lines 2-3 are SI-1001, 4-5 SI-1002, 6 the credit note SCN-2001.
fn sage50_lines(dir: &Path) -> Vec<String> {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for side in ["customers.csv", "credit_notes.csv"] {
        std::fs::copy(samples.join(side), dir.join(side)).unwrap();
    }
    let text = std::fs::read_to_string(samples.join("sage50_invoices.csv")).unwrap();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim_matches([',', ' ']).is_empty())
        .map(str::to_string)
        .collect();
    assert!(lines[1].starts_with("SI-1001,") && lines[2].starts_with("SI-1001,"));
    assert!(lines[3].starts_with("SI-1002,") && lines[4].starts_with("SI-1002,"));
    assert!(lines[5].starts_with("SCN-2001,"));
    lines
}

/// The result rows, each as (number, status, errors).
fn outcome(path: &Path) -> Vec<(String, String, String)> {
    results(path)
        .into_iter()
        .map(|r: BTreeMap<String, String>| {
            (
                r["INVOICE_NUMBER"].clone(),
                r["result_status"].clone(),
                r["result_errors"].clone(),
            )
        })
        .collect()
}

/// `INV-MAP-SPLIT` as the first row of each part of SI-1001 says it.
fn split_finding(lines: &str) -> String {
    format!(
        "INV-MAP-SPLIT INVOICE_NUMBER \"SI-1001\": this document's rows are not together in the file \
         (its 2 parts start at lines {lines}): no part of it is issued; put all its rows together, with \
         its number on each, and run again; where a part only repeats another's rows (an export written twice into one \
         file), take the repetition out instead"
    )
}

/// Run `file` (in `dir`) against `server`: the sandbox issues SI-1002 alone; SI-1001's rows are
/// all invalid, the first of each part (at `firsts`) with the finding, and its credit note
/// SCN-2001 is held back with it; `check` gives the same statuses and findings (`valid` for
/// `accepted`).
fn run_and_check(dir: &Path, server: &Server, file: &str, firsts: &[usize], parts: &str) {
    let env = server.env();
    onboard(dir, &env);
    let o = run(dir, &env, &["run", file, "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "an invalid document: {out}");
    assert!(out.contains(&split_finding(parts)), "{out}");

    let rows = outcome(&dir.join("r/split.result.csv"));
    let finding = split_finding(parts);
    for (i, (number, status, errors)) in rows.iter().enumerate() {
        let line = i + 2;
        match number.as_str() {
            "SI-1001" => {
                assert_eq!(status, "invalid", "line {line}: {rows:?}");
                if firsts.contains(&line) {
                    assert_eq!(errors, &finding, "line {line}");
                } else {
                    assert!(errors.starts_with("INV-DOCUMENT"), "line {line}: {errors}");
                }
            }
            "" => assert_eq!(status, "invalid", "line {line}: the row without number: {errors}"),
            "SCN-2001" => {
                assert_eq!(status, "invalid", "line {line}: {rows:?}");
                assert!(
                    errors.starts_with(
                        "INV-REFERENCE-NOT-ISSUED credit_notes.csv original_number \"SI-1001\": this credit note \
                         corrects invoice SI-1001 (line 2 of this file), which is not issued (it is invalid: \
                         INV-MAP-SPLIT on line 2"
                    ),
                    "line {line}: {errors}"
                );
            }
            _ => assert_eq!((status.as_str(), errors.as_str()), ("accepted", ""), "line {line}"),
        }
    }
    // The sandbox received the other invoice, no part of SI-1001 and not its credit note; the
    // ledger never registered SI-1001.
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), 1, "{stats}");
    assert_eq!(device_count(&stats, "rejections"), 0, "{stats}");
    let state = dir.join(".invoicedrop");
    let id = onboard_id(&state);
    let mut numbers = server.issued(&id);
    numbers.sort();
    assert_eq!(numbers, ["SI-1002"]);
    let key = DocumentKey {
        onboard_id: id,
        kind: DocumentKind::Invoice,
        number: "SI-1001".into(),
    };
    assert!(Ledger::open(&state).unwrap().get(&key).unwrap().is_none());

    // `check` says what `run` did: the same rows invalid with the same findings, the others
    // valid.
    let o = run(dir, &[], &["check", file, "--results", "c"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let checked = outcome(&dir.join("c/split.result.csv"));
    let expected: Vec<_> = rows
        .iter()
        .map(|(n, s, e)| (n.clone(), s.replace("accepted", "valid"), e.clone()))
        .collect();
    assert_eq!(checked, expected);
}

#[test]
fn no_part_of_a_document_whose_rows_are_apart_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let l = sage50_lines(dir.path());
    // SI-1001's second row after SI-1002's rows: SI-1001 at lines 2 and 5.
    let split = [&l[0], &l[1], &l[3], &l[4], &l[2], &l[5]];
    std::fs::write(
        dir.path().join("split.csv"),
        split.iter().map(|s| format!("{s}\n")).collect::<String>(),
    )
    .unwrap();
    let server = Server::start(SandboxConfig::default());
    run_and_check(dir.path(), &server, "split.csv", &[2, 5], "2 and 5");
}

#[test]
fn a_row_without_number_inside_a_document_keeps_all_of_it_from_being_sent() {
    let dir = tempfile::tempdir().unwrap();
    let l = sage50_lines(dir.path());
    // A row without INVOICE_NUMBER between SI-1001's two rows (sage50 has no continuation
    // rows): it belongs to no document, and SI-1001's parts start at lines 2 and 4.
    let blank = l[2].replacen("SI-1001", "", 1);
    let split = [&l[0], &l[1], &blank, &l[2], &l[3], &l[4], &l[5]];
    std::fs::write(
        dir.path().join("split.csv"),
        split.iter().map(|s| format!("{s}\n")).collect::<String>(),
    )
    .unwrap();
    let server = Server::start(SandboxConfig::default());
    run_and_check(dir.path(), &server, "split.csv", &[2, 4], "2 and 4");
}

#[test]
fn a_row_without_number_after_a_document_keeps_it_from_being_sent() {
    let dir = tempfile::tempdir().unwrap();
    let l = sage50_lines(dir.path());
    // SI-1002's second row without its number (a number cell merged over the document's rows,
    // the mapping without `continuation`): SI-1002 alone would be issued without that line.
    let unnumbered = l[4].replacen("SI-1002", "", 1);
    let file = [&l[0], &l[1], &l[2], &l[3], &unnumbered, &l[5]];
    std::fs::write(
        dir.path().join("m.csv"),
        file.iter().map(|s| format!("{s}\n")).collect::<String>(),
    )
    .unwrap();
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    onboard(dir.path(), &env);
    let o = run(dir.path(), &env, &["run", "m.csv", "--results", "r"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let rows = outcome(&dir.path().join("r/m.result.csv"));
    let orphan = "INV-MAP-ORPHAN INVOICE_NUMBER \"SI-1002\": the row after this document's last row (line 5) \
                  has no document number and may be one of its lines (a number cell merged over the \
                  document's rows, or a number written once per document): the document is not issued \
                  without it. If that row is not a line (a total, a note, a footer), delete it from the export; \
                  if it is, put the number on every row of the document (unmerge the cells), or, if the export \
                  writes it once per document, set `continuation = true` in the mapping's [group]";
    assert_eq!(rows[2], ("SI-1002".into(), "invalid".into(), orphan.into()), "{rows:?}");
    let (number, status, errors) = &rows[3];
    assert_eq!((number.as_str(), status.as_str()), ("", "invalid"));
    assert!(
        errors.contains("no document number in this row")
            && errors.contains("the row above is of SI-1002: if this row is one of its lines, put its number here"),
        "{errors}"
    );
    for i in [0, 1, 4] {
        assert_eq!(rows[i].1, "accepted", "{rows:?}");
    }
    let mut numbers = server.issued(&onboard_id(&dir.path().join(".invoicedrop")));
    numbers.sort();
    assert_eq!(
        numbers,
        ["SCN-2001", "SI-1001"],
        "SI-1002 is not issued without its line"
    );

    // `check` says the same.
    let o = run(dir.path(), &[], &["check", "m.csv", "--results", "c"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let checked = outcome(&dir.path().join("c/m.result.csv"));
    let expected: Vec<_> = rows
        .iter()
        .map(|(n, s, e)| (n.clone(), s.replace("accepted", "valid"), e.clone()))
        .collect();
    assert_eq!(checked, expected);
}

//! A file whose last line was cut short before `run` read it (copied incompletely, or taken from
//! a writer that died): not changing, but its last line has no line end and fewer cells than the
//! header. The last two documents are held back as for a file changed at its end (`INV-FILE-CUT`
//! on their first rows, status `invalid`, never sent), the file's error says what happened and
//! what to do, and the exit code is 2; `check` holds them back too. A last line without its line
//! end but with all its cells (many ERPs leave the final line end out) changes nothing.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;

/// The header's cells in [`xero_export`]'s files.
const WIDTH: usize = 44;

#[test]
fn a_file_whose_last_line_was_cut_before_run_read_it_has_its_last_two_documents_held_back_and_exits_2() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    // Invoices of three lines; the copy stopped in the number cell of T-00030's third line: the
    // stub `T-00` ends T-00030, which looks complete with two of its three lines.
    let n = 30;
    let path = d.join("backlog.csv");
    xero_export_lines(&path, n, 3);
    let full = std::fs::read_to_string(&path).unwrap();
    let last = full.trim_end_matches('\n').rfind('\n').unwrap() + 1;
    let cell = last + full[last..].find(",T-00030,").unwrap() + 1;
    std::fs::write(&path, &full[..cell + 4]).unwrap();
    let stub_line = 3 * n + 1;

    let o = run(d, &env, &["run", "backlog.csv", "--rate", "unlimited"]);
    let text = text(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    let rows = results(&d.join("results/backlog.result.csv"));
    assert_eq!(rows.len(), 3 * n, "every row read has its result: {text}");
    let (before, held) = rows.split_at(3 * (n - 1));
    assert!(before.iter().all(|r| r["result_status"] == "accepted"), "{text}");
    let numbers: Vec<&str> = held.iter().map(|r| r["InvoiceNumber"].as_str()).collect();
    assert_eq!(numbers, ["T-00030", "T-00030", "T-00"]);
    for r in held {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        assert!(r["result_uuid"].is_empty(), "{r:?}");
    }
    let cut = format!(
        "INV-FILE-CUT: the file ends in the middle of a line: its last line, line {stub_line}, has no line end and 19 \
         of the header's {WIDTH} cells: it was cut short (still being written, or copied incompletely), so "
    );
    let again = "and is not sent; send the file again once it is complete (what was sent is reported from the \
                 ledger, nothing is sent twice)";
    assert!(
        held[0]["result_errors"].starts_with(&format!(
            "{cut}this document may be incomplete (the last row read, after it, may be a row of its own, cut short \
             in its number) {again}"
        )),
        "{:?}",
        held[0]
    );
    assert!(held[1]["result_errors"].starts_with("INV-DOCUMENT"), "{:?}", held[1]);
    assert!(
        held[2]["result_errors"].starts_with(&format!("{cut}this last document may be incomplete {again}")),
        "{:?}",
        held[2]
    );
    assert_eq!(server.accepted(), (n - 1) as u64, "{text}");
    let said = format!(
        "the file ends in the middle of a line: its last line, line {stub_line}, has no line end and 19 of the \
         header's {WIDTH} cells: it was cut short (still being written, or copied incompletely); its last two \
         documents, T-00030 (line {}) and T-00 (line {stub_line}), which may be incomplete, were",
        3 * n - 1
    );
    assert!(
        text.contains(&format!(
            "{said} not sent (INV-FILE-CUT), and the rest of the file was not seen. Run it again once it is \
             complete: what was sent is reported from the ledger and only the rest is sent"
        )),
        "{text}"
    );

    // `check` holds them back too, and says so.
    let o = run(d, &env, &["check", "backlog.csv", "--results", "checked"]);
    let checked = super::support::text(&o);
    assert_eq!(o.status.code(), Some(2), "{checked}");
    assert!(
        checked.contains(&format!(
            "{said} held back (INV-FILE-CUT), and the rest of the file was not seen. Check it again once it is \
             complete"
        )),
        "{checked}"
    );

    // Once the file is complete, run again: the accepted invoices are reported from the ledger,
    // the rest is sent, T-00030 with its three lines.
    std::fs::write(&path, &full).unwrap();
    let o = run(d, &env, &["run", "backlog.csv", "--rate", "unlimited"]);
    assert_eq!(o.status.code(), Some(0), "{}", super::support::text(&o));
    assert_eq!(server.accepted(), n as u64);
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "replays"), 0, "{stats}");
    let rows = results(&d.join("results/backlog.result.csv"));
    assert_eq!(rows.len(), 3 * n);
    assert!(rows.iter().all(|r| r["result_status"] == "accepted"));
}

#[test]
fn a_last_line_with_all_its_cells_and_no_line_end_is_sent_as_any_other() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let path = d.join("day.csv");
    xero_export_lines(&path, 4, 2);
    let full = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, full.trim_end_matches('\n')).unwrap();
    let o = run(d, &env, &["check", "day.csv", "--results", "checked"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = run(d, &env, &["run", "day.csv", "--rate", "unlimited"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 4);
    let rows = results(&d.join("results/day.result.csv"));
    assert_eq!(rows.len(), 8);
    assert!(rows.iter().all(|r| r["result_status"] == "accepted"));
}

#[test]
fn a_last_line_cut_inside_a_quoted_value_holds_back_the_last_two_documents() {
    // The copy stopped inside the quoted description of T-00004, its last line: the quote is
    // never closed (INV-ROW-QUOTE on that row), and the document before it is held back too.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = d.join("day.csv");
    xero_export(&path, 4);
    let full = std::fs::read_to_string(&path).unwrap();
    let item = full.find(",ITEM-4,").unwrap() + ",ITEM-4,".len();
    std::fs::write(&path, format!("{}\"كتاب | Bo", &full[..item])).unwrap();
    let o = run(d, &[], &["check", "day.csv"]);
    let text = text(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    let rows = results(&d.join("results/day.result.csv"));
    assert_eq!(rows.len(), 4);
    assert!(rows[..2].iter().all(|r| r["result_status"] == "valid"), "{text}");
    let cut = "INV-FILE-CUT: the file ends in the middle of a line: its last line, in the row from line 5, has no line \
               end and a quote (\") in it is never closed: it was cut short (still being written, or copied \
               incompletely), so ";
    for (r, which) in rows[2..].iter().zip([
        "this document may be incomplete (the last row read, after it, may be a row of its own, cut short in its \
         number) and is held back; check the file again once it is complete",
        "this last document may be incomplete and is held back; check the file again once it is complete",
    ]) {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        assert!(r["result_errors"].contains(&format!("{cut}{which}")), "{r:?}");
    }
    assert!(rows[3]["result_errors"].contains("INV-ROW-QUOTE"), "{:?}", rows[3]);
    assert!(
        text.contains(
            "its last two documents, T-00003 (line 4) and T-00004 (line 5), which may be incomplete, were held back \
             (INV-FILE-CUT), and the rest of the file was not seen. Check it again once it is complete"
        ),
        "{text}"
    );
}

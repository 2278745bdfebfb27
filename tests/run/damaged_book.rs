//! A workbook whose sheet cannot be read to its end (damaged part-way: here its XML stops in the
//! middle of a row, inside an archive that is otherwise sound). The rows before the damage are
//! read and their documents sent; the document being read there is held back
//! (`INV-FILE-DAMAGED` on its first row, `invalid`, never sent), the result file has no row of
//! its own for the damage, the file's error says where reading stopped and what to do, and the
//! exit code is 2, in `check` too. Run again with the workbook whole, only the rest is sent.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;

#[test]
fn a_workbook_damaged_part_way_has_the_document_read_there_held_back_the_rest_sent_and_exits_2() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    // 60 invoices of three lines: T-00040 on sheet rows 119-121 (the header is row 1). The
    // sheet stops inside row 121: rows 2-119 are read (a row is handed on once the next one
    // starts, so row 120, whose end is not known, is not), and T-00040 has been read with one
    // of its lines when the reader fails.
    let n = 60;
    xero_export_lines(&d.join("export.csv"), n, 3);
    let rows = records(&d.join("export.csv"));
    let whole = d.join("whole.xlsx");
    write_xlsx(&whole, &rows);
    let book = d.join("backlog.xlsx");
    std::fs::copy(&whole, &book).unwrap();
    cut_sheet_at_row(&book, 121);

    let o = run(d, &env, &["run", "backlog.xlsx", "--rate", "unlimited"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    let read = results(&d.join("results/backlog.result.csv"));
    assert_eq!(
        read.len(),
        118,
        "the rows read, each once, and no row for the damage: {said}"
    );
    let (before, held) = read.split_at(117);
    assert!(before.iter().all(|r| r["result_status"] == "accepted"), "{said}");
    assert_eq!(before.last().unwrap()["InvoiceNumber"], "T-00039");
    assert_eq!(held[0]["InvoiceNumber"], "T-00040");
    assert_eq!(held[0]["result_status"], "invalid", "{:?}", held[0]);
    assert!(held[0]["result_uuid"].is_empty(), "{:?}", held[0]);
    let finding = &held[0]["result_errors"];
    assert!(
        finding.starts_with("INV-FILE-DAMAGED: the file could not be read to its end: backlog.xlsx could not be read as an xlsx workbook (sheet \"Sheet1\" after row 119: "),
        "{finding}"
    );
    assert!(
        finding.ends_with(
            "this document was being read there, so it may be incomplete and is not sent; send the file again \
             once it reads to its end (what was sent is reported from the ledger, nothing is sent twice)"
        ),
        "{finding}"
    );
    assert!(!finding.contains("INV-ERP"), "its totals are not compared: {finding}");
    assert_eq!(server.accepted(), 39, "{said}");
    assert!(
        said.contains(
            "Its last document, T-00040 (line 119), which may be incomplete, was not sent (INV-FILE-DAMAGED), and \
             the rows after it were not read. Run it again once it reads to its end: what was sent is reported \
             from the ledger and only the rest is sent"
        ),
        "{said}"
    );

    // `check` holds it back too, and says so.
    let o = run(d, &env, &["check", "backlog.xlsx", "--results", "checked"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.contains("T-00040 (line 119), which may be incomplete, was held back (INV-FILE-DAMAGED)"),
        "{said}"
    );
    assert!(said.contains("Check it again once it reads to its end"), "{said}");

    // The workbook whole again: the rest is sent, what was sent is reported from the ledger.
    std::fs::copy(&whole, &book).unwrap();
    let o = run(d, &env, &["run", "backlog.xlsx", "--rate", "unlimited"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(0), "{said}");
    let read = results(&d.join("results/backlog.result.csv"));
    assert_eq!(read.len(), 3 * n);
    assert!(read.iter().all(|r| r["result_status"] == "accepted"), "{said}");
    assert_eq!(server.accepted(), n as u64, "each document once: {said}");
}

//! A file truncated or rewritten in place while `run` reads it: run looks at it again after each
//! batch's rows are read, and once it changed, every document from that batch on (the last one
//! read and the one before it, which the last one's first row, perhaps cut in its number, ended,
//! among them) is held back (`INV-FILE-CHANGED` on their first rows, status `invalid`, never
//! sent), the documents of the batches before going on; the file's error says from where, and
//! the exit code is 2 (a whole-file error: the results do not cover the file as it is). Run again
//! once complete, only the rest is sent. The same for a header file still being written.

use super::support::*;
use invoicedrop::sandbox::{Faults, SandboxConfig};
use std::process::Stdio;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn a_file_truncated_while_run_reads_it_has_every_document_from_the_batch_where_that_was_seen_held_back_and_exits_2() {
    // Sending is slow until the file is cut. The reading runs at most 7 batches of 1,000
    // documents (and one document) ahead of the batch being sent, so while the first batch is
    // being sent it cannot have reached the end of these 8,000.
    let server = Server::start(SandboxConfig {
        delay_ms: 1500,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let n = 8_000;
    let path = d.join("backlog.csv");
    xero_export(&path, n);
    let full = std::fs::read(&path).unwrap();
    let out = d.join("run.out");
    let mut child = command(d, &env, &["run", "backlog.csv", "--rate", "unlimited"])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::from(std::fs::File::create(d.join("run.err")).unwrap()))
        .spawn()
        .unwrap();
    wait_for(LIMIT, "the first document accepted", || {
        server.accepted() >= 1 || exited(&mut child)
    });
    assert!(!exited(&mut child), "the run ended before the file was cut");
    // Cut in the middle of a line, as a writer truncating the file and writing it again would.
    let cut = full
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(n / 2)
        .map(|(i, _)| i - 5)
        .unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    server
        .handle
        .set_faults(Faults {
            delay_ms: 0,
            ..server.handle.faults()
        })
        .unwrap();
    wait_for(LIMIT, "the run to end", || exited(&mut child));
    let status = child.wait().unwrap();
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(d.join("run.err")).unwrap()
    );
    assert_eq!(status.code(), Some(2), "{text}");
    let rows = results(&d.join("results/backlog.result.csv"));
    let read = rows.len();
    assert!(read < n, "rows after the cut were read: {read}");
    // Seen changed once a batch's rows were read (or at the end, the last batch's look): every
    // document from that batch on is held back, those before were read before and sent.
    let (sent, first, held) = held_from_a_batch(&rows, 1, 1000, &text);
    assert_eq!(held, read - sent);
    assert_eq!(server.accepted(), sent as u64, "nothing else was sent: {text}");
    assert!(
        text.contains(&format!(
            "the file changed while it was read ({} bytes when opened, ",
            thousands(full.len())
        )) && text.contains(&format!(
            "it was still being written, rewritten or \
             replaced while its documents were being sent; the {} documents from {first} (line \
             {}) on, which may mix rows (or parts of a row) of the two versions, were not sent (INV-FILE-CHANGED); \
             those before them were read before it changed, and went on",
            thousands(held),
            sent + 2
        )) && text.contains("Run it again once it is complete"),
        "{text}"
    );
}

/// The result rows of a file seen changed while run sent it (`per_doc` rows a document, batches
/// of `per_batch` documents): the rows of the first documents accepted, those from a batch's
/// first document on invalid, each document held back saying why on its first row. The number
/// of rows accepted, the first document held back, and how many were.
pub(super) fn held_from_a_batch(
    rows: &[std::collections::BTreeMap<String, String>],
    per_doc: usize,
    per_batch: usize,
    text: &str,
) -> (usize, String, usize) {
    let sent = rows.iter().take_while(|r| r["result_status"] == "accepted").count();
    assert_eq!(
        sent % (per_doc * per_batch),
        0,
        "the documents held back start a batch: {sent} rows sent\n{text}"
    );
    let held = &rows[sent..];
    assert!(!held.is_empty(), "{text}");
    let mut number = "";
    let mut documents = 0;
    for r in held {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        assert!(r["result_uuid"].is_empty(), "{r:?}");
        // A row read across the change may have lost its number (a row outside any document).
        if r["InvoiceNumber"].is_empty() || r["InvoiceNumber"] == number {
            continue;
        }
        number = &r["InvoiceNumber"];
        documents += 1;
        let errors = &r["result_errors"];
        assert!(
            errors.contains("INV-FILE-CHANGED: the file changed while it was read (")
                && errors.contains(
                    "it was still being written, rewritten or \
                     replaced while its documents were being sent, and this document was read \
                     after that or just before it was seen, so it may mix rows (or parts of a row) of the two \
                     versions and is not sent; send the file again once it is complete (what was sent is reported \
                     from the ledger, nothing is sent twice)"
                ),
            "{errors}"
        );
    }
    (sent, held[0]["InvoiceNumber"].clone(), documents)
}

/// `12,345`.
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_file_cut_inside_the_number_of_its_next_line_holds_back_the_document_above_the_cut_too() {
    // Invoices of three lines. The cut falls inside the number cell of T-07500's third line, as
    // a writer about to write that line leaves it: what is read ends with T-07500's first two
    // lines and a row numbered "T-07". That stub ends T-07500, which looks complete with two of
    // its three lines: it must not be sent, nor the stub. Sending is slow until the cut: the
    // reading runs at most 7 batches of 1,000 documents (and one document) ahead of the batch
    // being sent, so while the first batch is being sent it cannot have reached T-07500.
    let server = Server::start(SandboxConfig {
        delay_ms: 1500,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let (n, k) = (7_600, 7_500);
    let path = d.join("backlog.csv");
    xero_export_lines(&path, n, 3);
    let full = std::fs::read(&path).unwrap();
    // The start of T-07500's third line (the header, then three lines per invoice).
    let third = full
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(3 * (k - 1) + 2)
        .map(|(i, _)| i + 1)
        .unwrap();
    let number = format!("T-{k:05}");
    let cell = full[third..]
        .windows(number.len() + 2)
        .position(|w| w == format!(",{number},").as_bytes())
        .unwrap()
        + third
        + 1;
    let cut = cell + 4;
    assert_eq!(&full[cell..cut], b"T-07");

    let out = d.join("run.out");
    let mut child = command(d, &env, &["run", "backlog.csv", "--rate", "unlimited"])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::from(std::fs::File::create(d.join("run.err")).unwrap()))
        .spawn()
        .unwrap();
    wait_for(LIMIT, "the first document accepted", || {
        server.accepted() >= 1 || exited(&mut child)
    });
    assert!(!exited(&mut child), "the run ended before the file was cut");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    server
        .handle
        .set_faults(Faults {
            delay_ms: 0,
            ..server.handle.faults()
        })
        .unwrap();
    wait_for(LIMIT, "the run to end", || exited(&mut child));
    let status = child.wait().unwrap();
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(d.join("run.err")).unwrap()
    );
    assert_eq!(status.code(), Some(2), "{text}");

    // Every row read has a status. Seen changed once a batch's rows were read (or at the end):
    // the invoices of the batches before accepted, those of that batch and after, T-07500's two
    // lines and the stub among them, invalid, each held-back document saying why on its first
    // row.
    let rows = results(&d.join("results/backlog.result.csv"));
    assert_eq!(rows.len(), 3 * (k - 1) + 3, "{text}");
    let (sent, first, held) = held_from_a_batch(&rows, 3, 1000, &text);
    let numbers: Vec<&str> = rows[rows.len() - 3..]
        .iter()
        .map(|r| r["InvoiceNumber"].as_str())
        .collect();
    assert_eq!(numbers, [number.as_str(), number.as_str(), "T-07"]);
    // Those of three lines, then T-07500 (two read) and the stub.
    assert_eq!(held, (rows.len() - sent - 3) / 3 + 2);
    // The sandbox issued neither T-07500 nor the stub, nor any other document held back.
    assert_eq!(server.accepted(), (sent / 3) as u64, "{text}");
    let id = onboard_id(&d.join(".invoicedrop"));
    let issued = server.issued(&id);
    assert!(!issued.iter().any(|i| i == &number || i == "T-07"), "{text}");
    assert!(
        text.contains(&format!(
            "the file changed while it was read ({} bytes when opened, {} now): it was still being written, \
             rewritten or replaced while its documents were being sent; the {} documents from {first} (line {}) on, \
             which may mix rows (or parts of a row) of the two versions, were not sent (INV-FILE-CHANGED)",
            thousands(full.len()),
            thousands(cut),
            thousands(held),
            sent + 2
        )) && text.contains("Run it again once it is complete"),
        "{text}"
    );

    // Once the file is complete, run again: the accepted invoices are reported from the ledger,
    // the rest is sent, T-07500 with its three lines.
    std::fs::write(&path, &full).unwrap();
    let o = run(d, &env, &["run", "backlog.csv", "--rate", "unlimited"]);
    assert_eq!(o.status.code(), Some(0), "{}", super::support::text(&o));
    assert_eq!(server.accepted(), n as u64);
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "replays"), 0, "{stats}");
    let rows = results(&d.join("results/backlog.result.csv"));
    assert_eq!(rows.len(), 3 * n);
    assert!(rows.iter().all(|r| r["result_status"] == "accepted"));
    let xml = &rows[3 * (k - 1)]["result_xml_file"];
    let signed = std::fs::read_to_string(d.join("results").join(xml)).unwrap();
    assert!(signed.contains(&format!("<cbc:ID>{number}</cbc:ID>")), "{xml}");
    assert_eq!(signed.matches("<cac:InvoiceLine>").count(), 3, "{signed}");
}

#[test]
fn a_header_file_still_being_written_when_run_reads_it_holds_back_the_document_of_its_cut_row() {
    // A SAP Business One export: the lines file is complete, the header file (one row per
    // invoice, read whole before the lines) is cut in the customer's name of invoice K's row, as
    // a writer still at work leaves it. Read so, that name is not in customers.csv: the invoice
    // would go out without its buyer's VAT number. The writer finishes while run sends. Sending
    // is slow until then: the reading runs at most 7 batches of 1,000 documents (and one
    // document) ahead of the batch being sent, so it cannot have reached invoice K (past the
    // 9,000th) when the header file is completed.
    let server = Server::start(SandboxConfig {
        delay_ms: 1500,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let o = run(
        d,
        &env,
        &[
            "generate",
            "--layout",
            "sap-b1-dtw",
            "--rows",
            "50000",
            "--out",
            "OINV_Document_Lines.txt",
        ],
    );
    assert!(o.status.success(), "{}", super::support::text(&o));
    let header = d.join("OINV_Documents.txt");
    let full = std::fs::read(&header).unwrap();
    let text_rows: Vec<&[u8]> = full.split_inclusive(|b| *b == b'\n').collect();
    let documents = text_rows.len() - 2;
    assert!(documents > 9_500, "{documents} documents");
    // The first row past the 9,500th document whose customer is a company in customers.csv.
    let customers = std::fs::read_to_string(d.join("customers.csv")).unwrap();
    let (k, row) = text_rows
        .iter()
        .enumerate()
        .skip(2 + 9_500)
        .find(|(_, r)| {
            let cells: Vec<&[u8]> = r.split(|b| *b == b'\t').collect();
            let name = String::from_utf8_lossy(cells[5]);
            name.is_ascii()
                && name.len() > 12
                && customers
                    .lines()
                    .any(|l| l.starts_with(&format!("{name},")) && l.contains(",3"))
        })
        .map(|(i, r)| (i - 1, *r))
        .expect("a company's invoice");
    let start: usize = text_rows[..k + 1].iter().map(|r| r.len()).sum();
    let name_at = row.iter().enumerate().filter(|(_, b)| **b == b'\t').nth(4).unwrap().0 + 1;
    let cut = start + name_at + 6;
    std::fs::write(&header, &full[..cut]).unwrap();
    let key = k.to_string();
    let number = String::from_utf8_lossy(row.split(|b| *b == b'\t').nth(1).unwrap()).into_owned();

    let out = d.join("run.out");
    let mut child = command(d, &env, &["run", "OINV_Document_Lines.txt", "--rate", "unlimited"])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::from(std::fs::File::create(d.join("run.err")).unwrap()))
        .spawn()
        .unwrap();
    wait_for(LIMIT, "the first document accepted", || {
        server.accepted() >= 1 || exited(&mut child)
    });
    assert!(
        !exited(&mut child),
        "the run ended before the header file was completed"
    );
    std::fs::write(&header, &full).unwrap();
    server
        .handle
        .set_faults(Faults {
            delay_ms: 0,
            ..server.handle.faults()
        })
        .unwrap();
    wait_for(LIMIT, "the run to end", || exited(&mut child));
    let status = child.wait().unwrap();
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(d.join("run.err")).unwrap()
    );
    assert_eq!(status.code(), Some(2), "{text}");
    let rows = results(&d.join("results/OINV_Document_Lines.result.csv"));
    let of_k: Vec<_> = rows.iter().filter(|r| r["ParentKey"] == key).collect();
    assert!(!of_k.is_empty());
    for r in &of_k {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
    }
    let errors = &of_k[0]["result_errors"];
    assert!(
        errors.starts_with(&format!(
            "INV-FILE-CHANGED ParentKey \"{key}\": the header file OINV_Documents.txt changed while this export \
             was read ({} bytes when opened, {} now): this document is built from its last row, which may be \
             incomplete",
            thousands(cut),
            thousands(full.len())
        )) && errors.contains("so it is not sent; send the export again once OINV_Documents.txt is complete"),
        "{errors}"
    );
    // The invoices before it are sent; those whose header rows were not read are not.
    let id = onboard_id(&d.join(".invoicedrop"));
    assert!(!server.issued(&id).contains(&number), "{text}");
    for r in &rows {
        // The lines file's second header row (DocNum, ...) is a row of no document, on line 2.
        let Ok(p) = r["ParentKey"].parse::<usize>() else {
            assert_eq!(
                (r["ParentKey"].as_str(), r["result_status"].as_str()),
                ("DocNum", "skipped")
            );
            continue;
        };
        if p < k {
            assert_eq!(r["result_status"], "accepted", "{r:?}");
        } else if p > k {
            // Said on the document's first row; its other rows point there.
            let e = &r["result_errors"];
            assert!(
                e.starts_with("INV-MAP-JOIN") || e.starts_with("INV-DOCUMENT: the document has errors on another row"),
                "{r:?}"
            );
        }
    }
    assert!(
        text.contains(&format!(
            "the header file OINV_Documents.txt changed while this export was read ({} bytes when opened, {} now): \
             it was still being written or was replaced; the document built from its last row, {number} (line ",
            thousands(cut),
            thousands(full.len())
        )) && text.contains("Run it again once OINV_Documents.txt is complete"),
        "{text}"
    );

    // Complete now: run again; what was accepted is reported from the ledger, the rest is sent,
    // invoice K with its buyer's VAT number (a standard invoice).
    let o = run(d, &env, &["run", "OINV_Document_Lines.txt", "--rate", "unlimited"]);
    assert_eq!(o.status.code(), Some(0), "{}", super::support::text(&o));
    assert_eq!(server.accepted(), documents as u64);
    let documents_csv = std::fs::read_to_string(d.join("results/OINV_Document_Lines.documents.csv")).unwrap();
    assert!(
        documents_csv
            .lines()
            .any(|l| l.starts_with(&format!("{number},invoice,standard,"))),
        "{number}"
    );
}

#[test]
fn a_file_rewritten_in_place_while_run_reads_it_sends_nothing_read_after_the_rewrite() {
    // `cp new.csv backlog.csv` truncates the file and writes it again; the reading goes on at
    // its offset, in the new version. Here the new version is the same export with its header
    // one byte longer (a space before its first name, which the header's reading trims), so the
    // rows read after the rewrite are one byte off, and the row read across it mixes the two:
    // it must not be sent, nor any row after it. Sending is slow until the rewrite: the reading
    // runs at most 7 batches of 1,000 documents (and one document) ahead of the batch being
    // sent, so while the first batch is being sent it cannot have reached the end of these
    // 8,000.
    let server = Server::start(SandboxConfig {
        delay_ms: 1500,
        ..SandboxConfig::default()
    });
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let n = 8_000;
    let path = d.join("backlog.csv");
    xero_export(&path, n);
    let old = std::fs::read_to_string(&path).unwrap();
    let new = format!(" {old}");
    let out = d.join("run.out");
    let mut child = command(d, &env, &["run", "backlog.csv", "--rate", "unlimited"])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::from(std::fs::File::create(d.join("run.err")).unwrap()))
        .spawn()
        .unwrap();
    wait_for(LIMIT, "the first document accepted", || {
        server.accepted() >= 1 || exited(&mut child)
    });
    assert!(!exited(&mut child), "the run ended before the file was rewritten");
    // Truncated, then written again (as cp does: the same file, not a new one renamed over it).
    std::fs::write(&path, &new).unwrap();
    server
        .handle
        .set_faults(Faults {
            delay_ms: 0,
            ..server.handle.faults()
        })
        .unwrap();
    wait_for(LIMIT, "the run to end", || exited(&mut child));
    let status = child.wait().unwrap();
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(d.join("run.err")).unwrap()
    );
    assert_eq!(status.code(), Some(2), "{text}");
    let rows = results(&d.join("results/backlog.result.csv"));
    let (sent, first, held) = held_from_a_batch(&rows, 1, 1000, &text);
    assert!(sent < n, "{text}");
    // What was sent is the old version's first documents, as written there.
    for (i, r) in rows[..sent].iter().enumerate() {
        assert_eq!(r["InvoiceNumber"], format!("T-{:05}", i + 1), "{r:?}");
        assert_eq!(r["ContactName"], format!("Walk-in customer {}", i + 1), "{r:?}");
    }
    assert_eq!(server.accepted(), sent as u64, "{text}");
    let id = onboard_id(&d.join(".invoicedrop"));
    let issued = server.issued(&id);
    assert_eq!(issued.len(), sent, "{text}");
    assert!(
        issued.iter().all(|i| i.as_str() <= format!("T-{sent:05}").as_str()),
        "{issued:?}"
    );
    assert!(
        text.contains(&format!(
            "it was still being written, rewritten or \
             replaced while its documents were being sent; the {} documents from {first} (line \
             {}) on, which may mix rows (or parts of a row) of the two versions, were not sent (INV-FILE-CHANGED); \
             those before them were read before it changed, and went on",
            thousands(held),
            sent + 2
        )) && text.contains("Run it again once it is complete"),
        "{text}"
    );

    // Run again once it is complete: what was accepted is reported from the ledger, the rest is
    // sent, nothing twice.
    let o = run(d, &env, &["run", "backlog.csv", "--rate", "unlimited"]);
    assert_eq!(o.status.code(), Some(0), "{}", super::support::text(&o));
    assert_eq!(server.accepted(), n as u64);
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "replays"), 0, "{stats}");
    let rows = results(&d.join("results/backlog.result.csv"));
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r["result_status"] == "accepted"));
}

//! `run`'s stages when the result file stops taking rows half-way (a full disk): sending stops
//! soon after, and every document already sent is counted in the file's summary, so that what
//! the summary says matches what the ledger holds.
//!
//! The failure is a limit on the size of the files this process writes (`RLIMIT_FSIZE`, with
//! `SIGXFSZ` ignored, so a write past it fails with "File too large"). The limit holds for the
//! whole process, so this file has one test: the test binary is its own process.

use invoicedrop::config::Config;
use invoicedrop::mapping::bundled;
use invoicedrop::model::Document;
use invoicedrop::pipeline::{self, CheckOptions, Dispatch, FileSummary, Verdict};
use invoicedrop::results::{ResultWriter, RowStatus};
use std::process::Command;
use std::sync::Arc;

/// Accepts every document, and counts them and the batches checked (a batch may be dispatched
/// in two calls: its notes whose invoice is in the same batch go after it).
struct Accepting {
    batches: usize,
    documents: u64,
}

impl Dispatch for Accepting {
    fn checked(&mut self, _rows: u64, _documents: u64, _invalid: u64) {
        self.batches += 1;
    }

    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        self.documents += docs.len() as u64;
        let accepted = Verdict {
            status: Some(RowStatus::Accepted),
            uuid: "00000000-0000-0000-0000-000000000000".into(),
            attempts: 1,
            ..Verdict::default()
        };
        vec![accepted; docs.len()]
    }
}

/// Limit the files this process writes to `bytes`; a write past it fails instead of killing
/// the process.
fn limit_file_size(bytes: u64) {
    // SAFETY: plain libc calls with valid arguments; no Rust state is involved.
    unsafe {
        assert_ne!(libc::signal(libc::SIGXFSZ, libc::SIG_IGN), libc::SIG_ERR);
        let limit = libc::rlimit {
            rlim_cur: bytes as libc::rlim_t,
            rlim_max: libc::RLIM_INFINITY,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
}

#[test]
fn a_result_file_that_fills_up_stops_the_sending_and_every_document_sent_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("xero.csv");
    let ok = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(["generate", "--layout", "xero", "--rows", "3000", "--seed", "5"])
        .args(["--today", "2026-11-21", "--out"])
        .arg(&input)
        .arg("-q")
        .status()
        .unwrap();
    assert!(ok.success());
    let mapping = Arc::new(bundled::get("xero").unwrap().unwrap());
    let mut opts = CheckOptions::new(
        chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
            .unwrap()
            .into(),
        invoicedrop::model::example::seller(),
    );
    // About 250 rows a batch, 12 or so batches.
    opts.batch = 50;
    let run = |limit: Option<u64>, results: &std::path::Path| {
        let prepared = pipeline::prepare(&input, mapping.clone(), &Config::default()).unwrap();
        let headers = prepared.bound.headers.names();
        let mut writer = ResultWriter::create(results, &input, &headers).unwrap();
        let mut summary = FileSummary::default();
        let mut accepting = Accepting {
            batches: 0,
            documents: 0,
        };
        if let Some(bytes) = limit {
            limit_file_size(bytes);
        }
        let streamed = pipeline::check_stream(
            prepared.input,
            prepared.bound,
            &opts,
            &mut writer,
            &mut summary,
            Some(&mut accepting),
        );
        (streamed, summary, accepting, writer)
    };

    // Without a limit: every batch is sent, and how large the result file gets.
    let (streamed, whole, all, writer) = run(None, &dir.path().join("whole"));
    streamed.unwrap();
    let size = std::fs::metadata(writer.finish().unwrap().result_csv).unwrap().len();
    assert!(all.batches >= 10, "{} batches", all.batches);
    assert_eq!(whole.documents.accepted, all.documents);

    // With room for a third of it.
    let (streamed, summary, sent, _writer) = run(Some(size / 3), &dir.path().join("short"));
    let error = streamed.expect_err("the result file was limited").to_string();
    assert!(error.contains("File too large"), "{error}");
    // The write that fails is the first flush of the result file's buffer (64 KiB, as
    // `results::atomic` has it) past the limit, so it fails in the batch holding the byte a
    // buffer past the limit at the latest: estimated from the batches' mean size, give or take
    // one (their sizes vary). With a writer slowed down by 30 ms a batch, it failed in batch 5
    // of 13 and 7 were sent.
    let per_batch = size / all.batches as u64;
    let failing = ((size / 3 + (1 << 16)) / per_batch + 1) as usize;
    // Sending stopped within two batches of the failure (one waiting to be written, one being
    // sent; the writer may lag that far behind on a busy machine)...
    assert!(
        sent.batches >= 2 && sent.batches <= failing + 1 + 2 && sent.batches < all.batches,
        "{} of {} batches sent; the write failure was expected in batch {failing}",
        sent.batches,
        all.batches
    );
    // ...and each document sent is counted, with every row of it.
    assert_eq!(summary.documents.accepted, sent.documents, "{:?}", summary.documents);
    assert_eq!(
        summary.documents.valid + summary.documents.rejected + summary.documents.failed,
        0
    );
    let docs_sent = whole.document_list.iter().filter(|b| b.status == RowStatus::Accepted);
    let rows_of_sent: u64 = docs_sent.take(sent.documents as usize).map(|b| b.lines as u64).sum();
    assert!(
        summary.rows >= rows_of_sent,
        "{} rows counted, {rows_of_sent} sent",
        summary.rows
    );
}

//! Neither the size of the pipeline's batches nor the way its work is shared out changes what a
//! check writes: `check` uses smaller batches than `run` (pipeline::CHECK_BATCH_DOCUMENTS), and
//! `watch` other sizes again; without a dispatcher each thread reads, checks and writes whole
//! batches in turn, with one (`run`) the batches go through reading, checking and writing stages.

use invoicedrop::config::Config;
use invoicedrop::mapping::bundled;
use invoicedrop::model::Document;
use invoicedrop::pipeline::{self, CheckOptions, Dispatch, FileSummary, Verdict};
use invoicedrop::results::ResultWriter;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// A dispatcher that sends nothing and answers nothing: the documents keep their `check`
/// status, but go through `run`'s stages.
struct Nowhere;

impl Dispatch for Nowhere {
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        vec![Verdict::default(); docs.len()]
    }
}

/// Check `input` with the Xero mapping in batches of `batch` documents: the result CSV, the
/// documents CSV, and the summary's counts and first problems. `staged`: through the stages
/// `run` uses (with a dispatcher that sends nothing).
fn check(input: &Path, results: &Path, batch: usize, staged: bool) -> (Vec<u8>, Vec<u8>, String) {
    let mut nowhere = Nowhere;
    let dispatch: Option<&mut dyn Dispatch> = if staged { Some(&mut nowhere) } else { None };
    check_through(input, results, batch, dispatch)
}

/// [`check`] through `dispatch` (`run`'s stages), or without one.
fn check_through(
    input: &Path,
    results: &Path,
    batch: usize,
    dispatch: Option<&mut dyn Dispatch>,
) -> (Vec<u8>, Vec<u8>, String) {
    let mapping = Arc::new(bundled::get("xero").unwrap().unwrap());
    let mut prepared = pipeline::prepare(input, mapping, &Config::default()).unwrap();
    // As `run` does (and `check` once a number reappears): the split numbers known before.
    prepared.input.splits = Some(Arc::new(pipeline::split_keys(input, &prepared.bound).unwrap()));
    let mut opts = CheckOptions::new(
        chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
            .unwrap()
            .into(),
        invoicedrop::model::example::seller(),
    );
    opts.batch = batch;
    let headers = prepared.bound.headers.names();
    let mut writer = ResultWriter::create(results, input, &headers).unwrap();
    let mut summary = FileSummary::default();
    pipeline::check_stream(
        prepared.input,
        prepared.bound,
        &opts,
        &mut writer,
        &mut summary,
        dispatch,
    )
    .unwrap();
    let finished = writer.finish().unwrap();
    let counts = format!(
        "rows {} invalid {} documents {:?} kinds {:?} codes {:?} problems {:?}",
        summary.rows, summary.rows_invalid, summary.documents, summary.by_kind, summary.codes, summary.problems
    );
    (
        std::fs::read(finished.result_csv).unwrap(),
        std::fs::read(finished.documents_csv).unwrap(),
        counts,
    )
}

/// A 3,000-row Xero export with a document number used again 3,000 rows after its first line
/// (both parts invalid, whatever batch either copy is in), a document in an unknown currency
/// (every row of it), and a blank line between rows.
fn export(dir: &Path) -> std::path::PathBuf {
    let input = dir.join("xero.csv");
    let ok = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(["generate", "--layout", "xero", "--rows", "3000", "--seed", "9"])
        .args(["--today", "2026-11-21", "--out"])
        .arg(&input)
        .arg("-q")
        .status()
        .unwrap();
    assert!(ok.success());
    let text = std::fs::read_to_string(&input).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out.push(lines[1].to_string());
    let column = lines[0].split(',').position(|h| h == "InvoiceNumber").unwrap();
    let number = out[1500].split(',').nth(column).unwrap().to_string();
    let rows_of = format!(",{number},");
    let mut changed = 0;
    for line in out.iter_mut().skip(1).filter(|l| l.contains(&rows_of)) {
        *line = line.replacen(",SAR,", ",XYZ,", 1);
        changed += usize::from(line.contains(",XYZ,"));
    }
    assert!(changed > 0, "no currency to change in document {number}");
    out.insert(700, String::new());
    std::fs::write(&input, out.join("\n") + "\n").unwrap();
    input
}

#[test]
fn results_are_the_same_whatever_the_batch_size_and_the_stages() {
    let dir = tempfile::tempdir().unwrap();
    let input = export(dir.path());
    // The reference: run's stages, run's batch size.
    let (csv, docs, counts) = check(&input, &dir.path().join("staged"), 1000, true);
    // Both parts of the number used again, whatever batch either is in.
    assert!(counts.contains("\"INV-MAP-SPLIT\": 2"), "{counts}");
    assert!(counts.contains("BR-KSA-CL-01"), "the unknown currency: {counts}");
    // 3,001 data rows and the empty line among them (a `skipped` row, on its line).
    assert!(counts.contains("rows 3002 "), "{counts}");
    for (batch, staged) in [
        (1, false),
        (7, false),
        (pipeline::CHECK_BATCH_DOCUMENTS, false),
        (1000, false),
        (7, true),
    ] {
        let (c, d, n) = check(&input, &dir.path().join(format!("r{batch}{staged}")), batch, staged);
        let how = format!("batches of {batch}, staged {staged}");
        assert_eq!(n, counts, "summary, {how}");
        assert!(c == csv, "result CSV differs with {how}");
        assert!(d == docs, "documents CSV differs with {how}");
    }
}

/// `check` shares its batches out among as many threads as rayon's pool has
/// (`RAYON_NUM_THREADS`): one thread, or more threads than cores, write the same files.
#[test]
fn results_are_the_same_whatever_the_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    let input = export(dir.path());
    let mut first: Option<(String, Vec<u8>, Vec<u8>)> = None;
    for threads in ["1", "2", "7"] {
        let results = dir.path().join(format!("t{threads}"));
        let out = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
            .env("RAYON_NUM_THREADS", threads)
            .args(["check", "--now", "2026-11-21T09:00:00Z", "-q", "--results"])
            .arg(&results)
            .arg(&input)
            .output()
            .unwrap();
        // Exit 1: some documents are invalid (the duplicate, the unknown currency).
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let files = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            std::fs::read(results.join("xero.result.csv")).unwrap(),
            std::fs::read(results.join("xero.documents.csv")).unwrap(),
        );
        assert!(files.1.len() > 3000 * 200, "a result line per row");
        match &first {
            None => first = Some(files),
            Some(f) => {
                assert!(f.0 == files.0, "the printed summary differs with {threads} threads");
                assert!(f.1 == files.1, "result CSV differs with {threads} threads");
                assert!(f.2 == files.2, "documents CSV differs with {threads} threads");
            }
        }
    }
}

/// A dispatcher that answers nothing and remembers what it was told, in order.
#[derive(Default)]
struct Recording(Vec<String>);

impl Dispatch for Recording {
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        self.0.push("dispatch".into());
        vec![Verdict::default(); docs.len()]
    }

    fn writing(&mut self, file: &str) {
        self.0.push(format!("writing {file}"));
    }
}

/// `run`'s progress line says when every batch of a file is answered and its results are being
/// written (a busy disk can make that long): the dispatcher is told once, after the last batch.
#[test]
fn the_dispatcher_is_told_once_every_batch_is_sent_that_the_results_are_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let input = export(dir.path());
    let mut recording = Recording::default();
    check_through(&input, &dir.path().join("r"), 100, Some(&mut recording));
    let told = &recording.0;
    assert!(told.iter().filter(|t| *t == "dispatch").count() > 1, "{told:?}");
    assert_eq!(
        told.last().unwrap(),
        &format!("writing {}", input.display()),
        "{told:?}"
    );
    assert_eq!(told.iter().filter(|t| t.starts_with("writing")).count(), 1, "{told:?}");
}

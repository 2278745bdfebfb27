//! The size of the pipeline's batches changes nothing in what a check writes: `check` uses
//! smaller batches than `run` (pipeline::CHECK_BATCH_DOCUMENTS), and `watch` smaller still.

use invoicedrop::config::Config;
use invoicedrop::mapping::bundled;
use invoicedrop::pipeline::{self, CheckOptions, FileSummary};
use invoicedrop::results::ResultWriter;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// Check `input` with the Xero mapping in batches of `batch` documents: the result CSV, the
/// documents CSV, and the summary's counts and first problems.
fn check(input: &Path, results: &Path, batch: usize) -> (Vec<u8>, Vec<u8>, String) {
    let mapping = Arc::new(bundled::get("xero").unwrap().unwrap());
    let prepared = pipeline::prepare(input, mapping, &Config::default()).unwrap();
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
    pipeline::check_stream(prepared.input, prepared.bound, &opts, &mut writer, &mut summary, None).unwrap();
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

#[test]
fn results_are_the_same_whatever_the_batch_size() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("xero.csv");
    let ok = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(["generate", "--layout", "xero", "--rows", "3000", "--seed", "9"])
        .args(["--today", "2026-11-21", "--out"])
        .arg(&input)
        .arg("-q")
        .status()
        .unwrap();
    assert!(ok.success());
    // A document number used again 3,000 rows after its first line (found by the grouper,
    // whatever batch either copy is in), an unknown currency, and a blank line between rows.
    let text = std::fs::read_to_string(&input).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out.push(lines[1].to_string());
    out[1500] = out[1500].replacen(",SAR,", ",XYZ,", 1);
    assert!(out[1500].contains(",XYZ,"), "no currency to change in {}", out[1500]);
    out.insert(700, String::new());
    std::fs::write(&input, out.join("\n") + "\n").unwrap();

    let (csv, docs, counts) = check(&input, &dir.path().join("r1000"), 1000);
    assert!(counts.contains("INV-MAP-DUPLICATE"), "{counts}");
    assert!(counts.contains("rows 3001 "), "{counts}");
    for batch in [1, 7, pipeline::CHECK_BATCH_DOCUMENTS] {
        let (c, d, n) = check(&input, &dir.path().join(format!("r{batch}")), batch);
        assert_eq!(n, counts, "summary, batches of {batch}");
        assert!(c == csv, "result CSV differs with batches of {batch}");
        assert!(d == docs, "documents CSV differs with batches of {batch}");
    }
}

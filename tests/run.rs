//! `invoicedrop run` through the real binary against the real sandbox on loopback: the samples
//! with no configuration, no progress bar off a terminal, exactly-once issuing through faults,
//! rate limits, expiring tokens and SIGKILLs (run/exactly_once.rs), documents the device may not
//! issue kept from being sent (run/device_checks.rs), numbers a replaced device issued not issued
//! again by its successor (run/device_change.rs), a file cut while it is read
//! (run/changed_file.rs) or whose last line was cut before it was read (run/cut_file.rs), reruns as
//! `report` counts them (run/reconcile.rs), credit notes subtracted and foreign currencies in
//! the VAT in SAR of `report`'s and the summary's totals (run/report_totals.rs), no part of a
//! document whose rows are apart in the export sent (run/split.rs), unless issued earlier: then reported issued once
//! (run/split_issued.rs), issued documents the export now marks voided or draft still
//! reported issued (run/voided.rs), a workbook damaged part-way (run/damaged_book.rs),
//! tax-inclusive totals rounded per line issued as the amount due (run/inclusive.rs), a credit
//! note whose invoice is in another file issued with that invoice's date (run/original_date.rs), an
//! issue date given with a time issued at that time (run/issue_time.rs), a Tally register's Sales 1 and Credit Note 1 each issued once (run/tally.rs), an ERPNext debit
//! note and a QuickBooks credit memo issued as notes that pass the authority's validator
//! (run/notes.rs), no credit note naming itself or another credit note issued
//! (run/note_names.rs), a credit note issued after its invoice in the same batch (run/note_order.rs),
//! documents never sent told apart from those sent without an answer (run/not_sent.rs),
//! another export of the same file name refused rather than replacing a result set
//! (run/same_name.rs), an issued document gone from its export kept in its results and said
//! (run/gone.rs), issued documents whose export has a value that cannot be read still reported
//! issued once, with a conflict (run/unread.rs), no later file sent once the results folder takes no more result files
//! (run/results_full.rs), and the configuration failures, each with a message that says what to do.

#[path = "run/b2c_window.rs"]
mod b2c_window;
#[path = "run/body_size.rs"]
mod body_size;
#[path = "run/changed_file.rs"]
mod changed_file;
#[path = "run/cut_file.rs"]
mod cut_file;
#[path = "run/damaged_book.rs"]
mod damaged_book;
#[path = "run/date_order.rs"]
mod date_order;
#[path = "run/device_change.rs"]
mod device_change;
#[path = "run/device_checks.rs"]
mod device_checks;
#[path = "run/elsewhere.rs"]
mod elsewhere;
#[path = "run/exactly_once.rs"]
mod exactly_once;
#[path = "run/folder_names.rs"]
mod folder_names;
#[path = "run/gave_up.rs"]
mod gave_up;
#[path = "run/gone.rs"]
mod gone;
#[path = "run/inclusive.rs"]
mod inclusive;
#[path = "run/interrupted.rs"]
mod interrupted;
#[path = "run/issue_time.rs"]
mod issue_time;
#[path = "run/issued.rs"]
mod issued;
#[path = "run/leftovers.rs"]
mod leftovers;
#[path = "run/lookup_duplicate.rs"]
mod lookup_duplicate;
#[path = "run/lookup_file.rs"]
mod lookup_file;
#[path = "run/not_sent.rs"]
mod not_sent;
#[path = "run/note_invoice.rs"]
mod note_invoice;
#[path = "run/note_names.rs"]
mod note_names;
#[path = "run/note_order.rs"]
mod note_order;
#[path = "run/notes.rs"]
mod notes;
#[path = "run/notes_file_order.rs"]
mod notes_file_order;
#[path = "run/original_date.rs"]
mod original_date;
#[path = "run/over_credit.rs"]
mod over_credit;
#[path = "run/reconcile.rs"]
mod reconcile;
#[path = "run/report_totals.rs"]
mod report_totals;
#[path = "run/resaved.rs"]
mod resaved;
#[cfg(unix)]
#[path = "run/results_full.rs"]
mod results_full;
#[path = "run/same_name.rs"]
mod same_name;
#[path = "run/sap_join.rs"]
mod sap_join;
#[path = "run/six_decimals.rs"]
mod six_decimals;
#[path = "run/split.rs"]
mod split;
#[path = "run/split_issued.rs"]
mod split_issued;
#[path = "run/stopped.rs"]
mod stopped;
#[path = "run/support.rs"]
mod support;
#[path = "run/tally.rs"]
mod tally;
#[path = "run/unread.rs"]
mod unread;
#[path = "run/voided.rs"]
mod voided;
#[path = "run/xml_chars.rs"]
mod xml_chars;
#[path = "run/zoho_discount.rs"]
mod zoho_discount;

use invoicedrop::sandbox::SandboxConfig;
use std::collections::BTreeMap;
use support::*;

#[test]
fn samples_with_no_configuration_are_issued_once_and_a_rerun_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let samples = samples.to_str().unwrap();
    let o = run(dir.path(), &[], &["run", samples]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("built-in sandbox") && out.contains("Nothing is sent to the tax authority"),
        "{out}"
    );
    let mut firsts = BTreeMap::new();
    let mut accepted = 0;
    for entry in std::fs::read_dir(dir.path().join("results")).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".result.csv") {
            continue;
        }
        let rows = results(&path);
        assert!(!rows.is_empty(), "{}", path.display());
        // The authority's BR-KSA-98 repeats the local check's: said once per document, on the
        // row the local check put it, and with its code once.
        let mut late: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &rows {
            let w = &r["result_warnings"];
            assert!(!w.contains("[BR-KSA-98]"), "{w}");
            *late.entry(r["result_document"].as_str()).or_default() += w.matches("BR-KSA-98").count();
        }
        assert!(late.values().all(|&n| n <= 1), "{}: {late:?}", path.display());
        for r in &rows {
            match r["result_status"].as_str() {
                "accepted" => {
                    accepted += 1;
                    assert!(!r["result_uuid"].is_empty() && !r["result_qr"].is_empty(), "{r:?}");
                    for col in ["result_xml_file", "result_qr_file"] {
                        let f = dir.path().join("results").join(&r[col]);
                        assert!(!r[col].is_empty() && f.is_file(), "{col} {:?} missing", r[col]);
                    }
                    assert!(r["result_attempts"].parse::<u32>().unwrap() >= 1);
                }
                "skipped" => {}
                other => panic!("{}: status {other}: {r:?}", path.display()),
            }
        }
        firsts.insert(path.clone(), rows);
    }
    assert!(accepted >= 50, "rows accepted: {accepted}");
    // A rerun reports every document from the ledger: no document request leaves.
    let o = run(dir.path(), &[], &["-v", "run", samples]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let posts: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("POST /v1/e-invoicing/") && !l.contains("/auth"))
        .collect();
    assert!(posts.is_empty(), "a rerun sent documents again: {posts:?}");
    for (path, rows) in firsts {
        let again = results(&path);
        // An accepted document's result_time is when it was accepted, in both runs (the first
        // run's rows were made before the sandbox's rate limit let most of them go).
        let key = |rows: &Vec<BTreeMap<String, String>>| -> Vec<(String, String, String, String)> {
            rows.iter()
                .map(|r| {
                    let accepted = r["result_status"] == "accepted";
                    (
                        r["result_status"].clone(),
                        r["result_uuid"].clone(),
                        r["result_attempts"].clone(),
                        if accepted {
                            r["result_time"].clone()
                        } else {
                            String::new()
                        },
                    )
                })
                .collect()
        };
        assert_eq!(key(&rows), key(&again), "{}", path.display());
    }
}

#[test]
fn without_a_terminal_run_draws_no_progress_bar() {
    let dir = tempfile::tempdir().unwrap();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    // Both outputs are pipes here, not terminals.
    let o = run(dir.path(), &[], &["run", samples.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("built-in sandbox"),
        "the run said something: {}",
        text(&o)
    );
    for (name, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let out = String::from_utf8_lossy(bytes);
        // The bar's template (`progress_bar` in src/commands/runner.rs), its redraws, and any
        // terminal control sequence.
        for (what, needle) in [
            ("the progress line", "documents answered"),
            ("a carriage return", "\r"),
            ("an escape sequence", "\u{1b}["),
        ] {
            assert!(!out.contains(needle), "{name} holds {what}: {out:?}");
        }
    }
}

#[test]
fn a_wrong_secret_stops_before_anything_is_sent() {
    let server = Server::start(SandboxConfig::default());
    let mut env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    xero_export(&dir.path().join("a.csv"), 3);
    env.retain(|(k, _)| *k != "INVOICEDROP_SECRET");
    env.push(("INVOICEDROP_SECRET", "not-the-secret".into()));
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.to_lowercase().contains("credentials") || out.to_lowercase().contains("secret"),
        "{out}"
    );
    assert!(!out.contains("not-the-secret"), "the secret was printed: {out}");
    assert_eq!(server.accepted(), 0);
}

#[test]
fn results_that_cannot_be_written_still_count_what_was_sent_and_the_rerun_sends_nothing() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    xero_export(&dir.path().join("a.csv"), 4);
    // A folder with a file in it where the result file goes: every document is sent and
    // answered, then renaming the finished result file into place fails.
    let blocker = dir.path().join("results").join("a.result.csv");
    std::fs::create_dir_all(&blocker).unwrap();
    std::fs::write(blocker.join("in the way"), "x").unwrap();
    let o = run(dir.path(), &env, &["run", "--json", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let file = &report["files"][0];
    let error = file["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("a.result.csv") && error.contains("ledger") && error.contains("does not send them again"),
        "{error}"
    );
    let sent = server.accepted();
    assert_eq!(sent, 4, "{}", text(&o));
    assert_eq!(file["documents"]["accepted"], 4, "{file}");
    assert_eq!(file["rows"], 4, "{file}");
    assert_eq!(report["rows"], 4, "{report}");
    // The human summary says the same.
    std::fs::remove_dir_all(&blocker).unwrap();
    std::fs::create_dir_all(blocker.join("still")).unwrap();
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("before it: ") && out.contains("4 accepted"), "{out}");
    assert_eq!(server.accepted(), sent, "a run with nothing new sent something");
    // Once the way is clear, the results are written from the ledger: nothing is sent again.
    std::fs::remove_dir_all(&blocker).unwrap();
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), sent, "the rerun sent documents again");
    let rows = results(&dir.path().join("results").join("a.result.csv"));
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
        assert_eq!(r["result_attempts"], "1", "{r:?}");
    }
}

#[test]
fn a_server_that_is_down_at_start_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    xero_export(&dir.path().join("a.csv"), 2);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let env = vec![
        ("INVOICEDROP_API_URL", url.clone()),
        ("INVOICEDROP_VAT_NUMBER", "399999999900003".into()),
        ("INVOICEDROP_USERNAME", "sandbox".into()),
        ("INVOICEDROP_SECRET", SECRET.into()),
        ("INVOICEDROP_ONBOARD_ID", "MTozOTk5OTk5OTk5MDAwMDM6ZA==".into()),
    ];
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains(&url) || out.contains(url.trim_start_matches("http://")),
        "names the URL: {out}"
    );
}

/// `-q` keeps only errors: not the note that the built-in sandbox is used (`--json` says
/// `"sandbox": true`), nor any other note.
#[test]
fn with_q_the_built_in_sandbox_is_not_noted() {
    let dir = tempfile::tempdir().unwrap();
    xero_export(&dir.path().join("a.csv"), 2);
    let o = run(dir.path(), &[], &["-q", "run", "a.csv"]);
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(!said.contains("note:"), "{said}");
    let o = run(dir.path(), &[], &["run", "a.csv"]);
    assert!(text(&o).contains("note: no API configured"), "{}", text(&o));
}

#[test]
fn an_unknown_onboard_id_stops_the_run_with_a_configuration_error() {
    let server = Server::start(SandboxConfig::default());
    let mut env = server.env();
    env.push(("INVOICEDROP_ONBOARD_ID", "bm90LWEtZGV2aWNl".into()));
    let dir = tempfile::tempdir().unwrap();
    xero_export(&dir.path().join("a.csv"), 3);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("onboard"), "{out}");
    let rows = results(&dir.path().join("results/a.result.csv"));
    assert_eq!(rows.len(), 3, "every row still gets a status");
    assert!(rows.iter().all(|r| r["result_status"] == "failed"), "{rows:?}");
}

#[test]
fn without_a_device_run_says_to_onboard_first() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    xero_export(&dir.path().join("a.csv"), 1);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("invoicedrop onboard"), "{out}");
}

#[test]
fn the_secret_never_appears_in_output_or_logs_at_any_verbosity() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    xero_export(&dir.path().join("a.csv"), 5);
    for flags in [&[][..], &["-v"][..], &["-vv"][..]] {
        let mut args: Vec<&str> = flags.to_vec();
        args.extend(["run", "a.csv"]);
        let mut cmd = command(dir.path(), &env, &args);
        cmd.env(
            "RUST_LOG",
            if flags.len() == 1 && flags[0] == "-vv" {
                "trace"
            } else {
                "debug"
            },
        );
        let o = cmd.output().unwrap();
        let out = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}");
        assert!(!out.contains(SECRET), "the secret appeared with {flags:?}");
    }
    let result = std::fs::read_to_string(dir.path().join("results/a.result.csv")).unwrap();
    assert!(!result.contains(SECRET));
}

#[test]
fn documents_whose_file_names_clash_get_suffixes_in_input_order() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    let csv = dir.path().join("clash.csv");
    xero_export(&csv, 3);
    // "T/00001" and "T-00001" make the same file name ('/' is not safe in one and becomes '-'):
    // the first row of the file gets the plain name, the second the suffix, whatever their order
    // as text.
    let text_in = std::fs::read_to_string(&csv).unwrap();
    let text_in = text_in.replace("T-00001", "T/00001").replace("T-00002", "T-00001");
    std::fs::write(&csv, text_in).unwrap();
    let o = run(dir.path(), &env, &["run", "clash.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rows = results(&dir.path().join("results/clash.result.csv"));
    let files: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            assert_eq!(r["result_status"], "accepted", "{r:?}");
            (
                r["InvoiceNumber"].as_str(),
                r["result_xml_file"].as_str(),
                r["result_qr_file"].as_str(),
            )
        })
        .collect();
    assert_eq!(files.len(), 3);
    let (first, second) = (files[0], files[1]);
    assert_eq!(first.0, "T/00001");
    assert!(first.1.ends_with("_T-00001.xml"), "{first:?}");
    assert!(first.2.ends_with("_T-00001.png"), "{first:?}");
    assert_eq!(second.0, "T-00001");
    assert_eq!(second.1, first.1.replace(".xml", "_2.xml"));
    assert_eq!(second.2, first.2.replace(".png", "_2.png"));
    // Each file holds its own document.
    for (number, xml, _) in [first, second] {
        let signed = std::fs::read_to_string(dir.path().join("results").join(xml)).unwrap();
        assert!(signed.contains(&format!("<cbc:ID>{number}</cbc:ID>")), "{xml}");
    }
    assert_eq!(server.accepted(), 3);
}

#[test]
fn a_results_path_that_is_a_file_is_refused_by_name_before_anything_is_sent() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    xero_export(&dir.path().join("a.csv"), 2);
    std::fs::write(dir.path().join("results.txt"), "not a folder").unwrap();
    for results in ["results.txt", "results.txt/day"] {
        let o = run(dir.path(), &env, &["run", "a.csv", "--results", results]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(2), "{out}");
        assert!(
            out.contains(&format!("--results {results}: results.txt is a file, not a folder"))
                && out.contains("give --results a folder")
                && !out.contains("os error"),
            "{out}"
        );
    }
    assert_eq!(server.accepted(), 0, "nothing was sent");
}

#[test]
fn a_run_that_sends_nothing_still_counts_in_its_own_words() {
    let dir = tempfile::tempdir().unwrap();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    // The Sage 50 sample with every quantity unreadable: nothing is sent.
    let sample = std::fs::read_to_string(samples.join("sage50_invoices.csv")).unwrap();
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(sample.trim_start_matches('\u{feff}').as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let at = headers.iter().position(|h| h == "QTY_ORDER").expect("QTY_ORDER");
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&headers).unwrap();
    for rec in rdr.records() {
        let mut cells: Vec<String> = rec.unwrap().iter().map(str::to_string).collect();
        if cells.iter().any(|c| !c.trim().is_empty()) {
            cells[at] = "abc".into();
            out.write_record(&cells).unwrap();
        }
    }
    std::fs::write(dir.path().join("bad.csv"), out.into_inner().unwrap()).unwrap();
    for side in ["customers.csv", "credit_notes.csv"] {
        std::fs::copy(samples.join(side), dir.path().join(side)).unwrap();
    }
    let o = run(dir.path(), &[], &["run", "bad.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("3 documents: 0 accepted, 0 rejected, 0 failed, 3 invalid, 0 skipped"),
        "{stdout}"
    );
    assert!(
        stdout.contains("total: 1 file, 5 rows, documents: 0 accepted,"),
        "{stdout}"
    );
}

#[test]
fn an_accepted_documents_result_time_is_when_it_was_accepted_in_every_run() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    xero_export(&dir.path().join("x.csv"), 6);
    // Two documents a second: the last are accepted seconds after the batch was checked.
    let o = run(dir.path(), &env, &["run", "x.csv", "--rate", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = results(&dir.path().join("results/x.result.csv"));
    let o = run(dir.path(), &env, &["run", "x.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let again = results(&dir.path().join("results/x.result.csv"));
    let times = |rows: &[BTreeMap<String, String>]| -> Vec<String> {
        rows.iter()
            .map(|r| {
                assert_eq!(r["result_status"], "accepted", "{r:?}");
                r["result_time"].clone()
            })
            .collect()
    };
    let (first, again) = (times(&first), times(&again));
    assert_eq!(first, again, "the rerun reports the time the ledger kept");
    // Six documents at two a second span at least 2.5 s (they are in the file's order here, not
    // in the order they were sent).
    let seconds: std::collections::BTreeSet<&String> = first.iter().collect();
    assert!(
        seconds.len() > 1,
        "six documents at two a second, accepted in one second: {first:?}"
    );
}

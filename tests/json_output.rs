//! The `--json` contract through the real binary (and the real sandbox on loopback): whatever
//! happens, stdout carries exactly one JSON document, with `error` (`kind`, `message`) and
//! `exit_code` when the command fails; the messages for people are on stderr, with or without
//! `--json`; exit codes are those of the command without `--json`. And `document_list`: cut at
//! 1,000 documents a file by default, saying so, and whole with `--list-all`.

#[allow(dead_code)]
#[path = "run/support.rs"]
mod support;

use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;
use support::*;

/// The one JSON document on stdout; fails on none, or on more than one.
fn one_document(o: &Output) -> Value {
    let docs: Vec<Value> = serde_json::Deserializer::from_slice(&o.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", text(o)));
    assert_eq!(docs.len(), 1, "one document on stdout: {}", text(o));
    docs.into_iter().next().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A failed command's document: its error's kind, its exit code as the process's, its message
/// also on stderr, and no secret anywhere.
fn failed(o: &Output, kind: &str, code: i32) -> Value {
    let v = one_document(o);
    assert_eq!(o.status.code(), Some(code), "{}", text(o));
    assert_eq!(v["exit_code"], code, "{v:#}");
    assert_eq!(v["error"]["kind"], kind, "{v:#}\nstderr: {}", stderr(o));
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "{v:#}");
    // (A `file` error sums up the files' own errors, each said on stderr; clap's usage errors
    // are on several lines there.)
    let first: String = message.chars().take(40).collect();
    assert!(
        kind == "file" || stderr(o).contains(&first),
        "the message is said on stderr too: {first:?}\nstderr: {}",
        stderr(o)
    );
    assert!(!text(o).contains(SECRET), "the secret was printed: {}", text(o));
    v
}

fn samples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

#[test]
fn errors_before_any_result_are_one_json_document_with_their_kind() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    xero_export(&d.join("a.csv"), 2);
    std::fs::write(d.join("afile"), "x").unwrap();

    // Credentials missing from the environment.
    let url_only = vec![("INVOICEDROP_API_URL", server.handle.base_url())];
    failed(&run(d, &url_only, &["--json", "run", "a.csv"]), "credentials", 2);
    // No device onboarded for the state folder.
    let v = failed(&run(d, &env, &["--json", "run", "a.csv"]), "device", 2);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("invoicedrop onboard"),
        "{v:#}"
    );
    // Credentials refused by the API.
    onboard(d, &env);
    let mut wrong = env.clone();
    wrong.retain(|(k, _)| *k != "INVOICEDROP_SECRET");
    wrong.push(("INVOICEDROP_SECRET", "not-the-secret".into()));
    let o = run(d, &wrong, &["--json", "run", "a.csv"]);
    failed(&o, "credentials", 2);
    assert!(!text(&o).contains("not-the-secret"));
    // The API cannot be reached.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let mut down = env.clone();
    down.retain(|(k, _)| *k != "INVOICEDROP_API_URL");
    down.push(("INVOICEDROP_API_URL", closed));
    down.push(("INVOICEDROP_ONBOARD_ID", "MTozOTk5OTk5OTk5MDAwMDM6ZA==".into()));
    failed(&run(d, &down, &["--json", "run", "a.csv"]), "unreachable", 2);
    // The state folder is held by another process.
    {
        let _held = invoicedrop::submit::Ledger::open(&d.join(".invoicedrop")).unwrap();
        failed(&run(d, &env, &["--json", "run", "a.csv"]), "busy", 2);
    }
    // The command line, each command.
    for args in [
        &["--json", "check"][..],
        &["--json", "chek", "a.csv"],
        &["check", "a.csv", "--json", "--now", "yesterday"],
        &["--json", "check", "a.csv", "--results", "afile"],
        &["--json", "run", "a.csv", "--results", "afile/day"],
        &["--json", "check", "a.csv", "--list-all", "--list-limit", "5"],
        &["--json", "report", "no-such-folder"],
        &["--json", "report", "."],
        &[
            "--json", "generate", "--layout", "nope", "--rows", "1", "--out", "g.csv",
        ],
        &["--json", "watch", "no-such-inbox"],
    ] {
        let o = run(d, &env, args);
        let v = failed(&o, "usage", 2);
        assert_eq!(v.as_object().unwrap().len(), 2, "{args:?}: {v:#}");
    }
    failed(&run(d, &env, &["--json", "mappings", "show", "nope"]), "mapping", 2);
    // Help and version stay text.
    let o = run(d, &env, &["--json", "--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("invoicedrop "));
    assert_eq!(server.accepted(), 0, "nothing was sent");
}

#[test]
fn a_run_that_stops_gives_its_partial_results_and_why_in_one_document() {
    let server = Server::start(SandboxConfig::default());
    let mut env = server.env();
    env.push(("INVOICEDROP_ONBOARD_ID", "bm90LWEtZGV2aWNl".into()));
    let dir = tempfile::tempdir().unwrap();
    xero_export(&dir.path().join("a.csv"), 3);
    let o = run(dir.path(), &env, &["--json", "run", "a.csv"]);
    let v = failed(&o, "device", 2);
    assert!(
        v["error"]["message"].as_str().unwrap().starts_with("the run stopped: "),
        "{v:#}"
    );
    assert!(stderr(&o).contains("error: the run stopped: "), "{}", stderr(&o));
    // What was done before: every row has its result.
    assert_eq!(v["rows"], 3, "{v:#}");
    assert_eq!(v["documents"]["failed"], 3, "{v:#}");
    assert_eq!(v["files"][0]["result_file"], "results/a.result.csv", "{v:#}");
}

#[test]
fn a_file_that_cannot_be_processed_is_in_the_document_and_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = samples().join("zoho_invoices.csv");
    // A file no mapping fits: the other file is checked all the same.
    std::fs::write(d.join("odd.csv"), "a,b\n1,2\n").unwrap();
    let o = run(d, &[], &["--json", "check", "odd.csv", good.to_str().unwrap()]);
    let v = failed(&o, "file", 2);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{v:#}");
    let odd = files.iter().find(|f| f["file"] == "odd.csv").unwrap();
    let odd_error = odd["error"].as_str().unwrap_or_default();
    assert!(odd_error.contains("no bundled mapping fits"), "{v:#}");
    assert!(stderr(&o).contains(&format!("error: {odd_error}")), "{}", stderr(&o));
    assert!(
        v["error"]["message"].as_str().unwrap().contains("1 of 2 input file(s)"),
        "{v:#}"
    );
    // The good file was checked all the same.
    assert!(
        files
            .iter()
            .any(|f| f["result_file"].is_string() && f["error"].is_null())
    );

    // No export at all.
    std::fs::create_dir(d.join("empty")).unwrap();
    let o = run(d, &[], &["--json", "check", "empty"]);
    let v = failed(&o, "file", 2);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no export to check in empty")
    );

    // A file no mapping fits: mappings detect says so in its document and on stderr.
    let o = run(d, &[], &["--json", "mappings", "detect", "odd.csv"]);
    let v = failed(&o, "mapping", 2);
    assert!(v["candidates"].is_array(), "{v:#}");

    // And a success carries exit_code and a null error, for every command with an object.
    let o = run(d, &[], &["--json", "check", good.to_str().unwrap()]);
    let v = one_document(&o);
    assert_eq!(
        (v["exit_code"].as_u64(), v["error"].is_null()),
        (Some(0), true),
        "{v:#}"
    );
    let o = run(d, &[], &["--json", "report", "results"]);
    let v = one_document(&o);
    assert_eq!(
        (v["exit_code"].as_u64(), v["error"].is_null()),
        (Some(0), true),
        "{v:#}"
    );
    assert!(v["sets"].is_array(), "{v:#}");
    let o = run(d, &[], &["--json", "mappings", "show", "xero"]);
    let v = one_document(&o);
    assert!(v["toml"].as_str().unwrap().contains("InvoiceNumber"), "{v:#}");
}

#[test]
fn document_list_is_cut_at_1000_saying_so_and_whole_with_list_all() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = run(
        d,
        &[],
        &[
            "generate", "--layout", "xero", "--rows", "6000", "--seed", "7", "--out", "big.csv",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let check = |extra: &[&str]| -> Value {
        let mut args = vec!["--json", "check", "big.csv"];
        args.extend_from_slice(extra);
        one_document(&run(d, &[], &args))
    };
    let v = check(&[]);
    let f = &v["files"][0];
    let documents = f["documents"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "conflicts")
        .map(|(_, n)| n.as_u64().unwrap())
        .sum::<u64>();
    assert!(documents > 1000, "{documents} documents");
    assert_eq!(f["document_list"].as_array().unwrap().len(), 1000);
    assert_eq!(f["document_list_truncated"], true);
    assert_eq!(
        (
            v["document_list_limit"].as_u64(),
            v["document_list_truncated"].as_bool()
        ),
        (Some(1000), Some(true))
    );
    let note = v["document_list_note"].as_str().unwrap_or_default();
    assert!(note.contains("--list-all") && note.contains("--list-limit"), "{note}");

    let v = check(&["--list-all"]);
    let f = &v["files"][0];
    assert_eq!(f["document_list"].as_array().unwrap().len() as u64, documents);
    assert_eq!(f["document_list_truncated"], false);
    assert!(v["document_list_limit"].is_null() && v["document_list_truncated"] == false);
    assert!(v.get("document_list_note").is_none(), "{}", v["document_list_note"]);

    let v = check(&["--list-limit", "5"]);
    assert_eq!(v["files"][0]["document_list"].as_array().unwrap().len(), 5);
    assert_eq!(v["document_list_limit"], 5);
}

#[test]
fn watch_with_json_prints_one_document_when_it_stops() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    std::fs::create_dir(d.join("in")).unwrap();
    let mut child = command(
        d,
        &env,
        &["--json", "watch", "in", "--quiet-period", "0.2", "--rescan", "1"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    xero_export(&d.join("in/a.csv"), 2);
    wait_for(Duration::from_secs(120), "a.csv in done/", || {
        d.join("in/done/a.csv").exists()
    });
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    wait_for(Duration::from_secs(120), "the watcher to exit", || exited(&mut child));
    let o = child.wait_with_output().unwrap();
    let v = one_document(&o);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        (v["exit_code"].as_u64(), v["error"].is_null()),
        (Some(0), true),
        "{v:#}"
    );
    assert_eq!(v["status"]["state"], "stopped", "{v:#}");
    assert_eq!(v["sandbox"], false, "sent to the configured API: {v:#}");
    assert_eq!(v["status"]["last_file"]["documents"]["accepted"], 2, "{v:#}");
    assert!(
        stderr(&o).contains("a.csv: done"),
        "the log stays on stderr: {}",
        stderr(&o)
    );

    // The sandbox on a port already taken: an error document instead of its banner.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let o = run(d, &[], &["--json", "sandbox", "--port", &port]);
    let v = one_document(&o);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(v["error"]["message"].as_str().unwrap().contains(&port), "{v:#}");
}

/// A second `run` on a state folder the first holds, with the built-in sandbox: refused as busy
/// before it starts a sandbox on the state the first one's sandbox is writing (QA14a).
#[test]
fn a_busy_state_folder_is_refused_before_a_built_in_sandbox_starts_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    xero_export(&d.join("a.csv"), 1);
    let _held = invoicedrop::submit::Ledger::open(&d.join(".invoicedrop/sandbox/client")).unwrap();
    let o = run(d, &[], &["--json", "run", "a.csv"]);
    failed(&o, "busy", 2);
    assert!(!stderr(&o).contains("built-in sandbox at"), "{}", stderr(&o));
    assert!(!d.join(".invoicedrop/sandbox/server").exists(), "no sandbox state made");
}

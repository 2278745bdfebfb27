//! Two exports with one file name (`2024/Invoice.csv`, `2025/Invoice.csv`, as Zoho names every
//! export) run one after the other into one results folder: the second is refused before it is
//! read, as within one invocation, and the first one's result set, its signed XML and QR files
//! included, is kept; the same export given by another path, from another folder or with a
//! summary written before the absolute path was recorded, is run again as always; a renamed export
//! or another results folder takes it, and nothing is sent twice. Two exports whose names differ
//! only in characters made safe in a folder name (`a:b.csv`, `a-b.csv`: both `a-b/`) are refused
//! the same way, given together or one after the other, and a run whose every export is refused
//! starts nothing.

use super::support::*;
use serde_json::Value;
use std::path::Path;

/// `invoicedrop --json ARGS --state st` in `cwd` (the state folder relative to `dir`): exit code
/// and the JSON document.
fn json(dir: &Path, cwd: &Path, args: &[&str]) -> (i32, Value, String) {
    let state = dir.join("st");
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    if args[0] == "run" {
        all.extend(["--state", state.to_str().unwrap()]);
    }
    let o = run(cwd, &[], &all);
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (o.status.code().unwrap_or(-1), v, text(&o))
}

/// The documents the built-in sandbox issued (its journal).
fn issued(dir: &Path) -> usize {
    let devices = dir.join("st/sandbox/server/devices");
    std::fs::read_dir(&devices)
        .unwrap_or_else(|e| panic!("{}: {e}", devices.display()))
        .map(|d| {
            std::fs::read_to_string(d.unwrap().path().join("journal.jsonl"))
                .unwrap_or_default()
                .lines()
                .count()
        })
        .sum()
}

/// The signed XML files in `dir/r/Invoice/` whose name holds `number_prefix`.
fn xml_files(dir: &Path, number_prefix: &str) -> usize {
    std::fs::read_dir(dir.join("r/Invoice"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".xml") && n.contains(&format!("_{number_prefix}")))
                .count()
        })
        .unwrap_or(0)
}

fn summary_files(dir: &Path) -> Value {
    let s: Value = serde_json::from_slice(&std::fs::read(dir.join("r/Invoice.summary.json")).unwrap()).unwrap();
    s["files"].clone()
}

#[test]
fn another_export_of_the_same_name_is_refused_and_the_first_ones_issued_results_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for y in ["2024", "2025"] {
        std::fs::create_dir(d.join(y)).unwrap();
    }
    xero_export(&d.join("2024/Invoice.csv"), 4);
    let text_2024 = std::fs::read_to_string(d.join("2024/Invoice.csv")).unwrap();
    std::fs::write(d.join("2025/Invoice.csv"), text_2024.replace(",T-0", ",U-0")).unwrap();

    let (code, v, out) = json(d, d, &["run", "2024/Invoice.csv", "--results", "r"]);
    assert_eq!((code, v["documents"]["accepted"].as_u64()), (0, Some(4)), "{out}");
    assert_eq!((issued(d), xml_files(d, "T-")), (4, 4));

    // The 2025 export: refused before it is read, as a clash within one invocation is.
    let (code, v, out) = json(d, d, &["run", "2025/Invoice.csv", "--results", "r"]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(v["error"]["kind"], "file", "{v}");
    let error = v["files"][0]["error"].as_str().unwrap_or_default().to_string();
    let first = d.join("2024/Invoice.csv").canonicalize().unwrap();
    for said in [
        "its result file r/Invoice.result.csv would replace the one of ",
        first.to_str().unwrap(),
        "the signed XML and QR files of its 4 accepted documents",
        "give this export another --results folder, or rename it (the ledger knows documents by their number",
        "first move Invoice.* and Invoice/ out of r",
        "Nothing of this export was read or sent",
    ] {
        assert!(error.contains(said), "{said:?} in {error}");
    }
    assert!(out.contains(&format!("error: 2025/Invoice.csv: {error}")), "{out}");
    assert_eq!(v["documents"]["accepted"], 0, "{v}");
    assert_eq!(v["files"][0]["rows"], 0, "nothing of it read: {v}");
    assert_eq!((issued(d), xml_files(d, "T-"), xml_files(d, "U-")), (4, 4, 0));
    assert_eq!(summary_files(d), serde_json::json!(["2024/Invoice.csv"]));

    // `check` replaces a set as a whole too (its `X/` with it): the same rule.
    let (code, v, out) = json(d, d, &["check", "2025/Invoice.csv", "--results", "r"]);
    assert_eq!((code, v["error"]["kind"].as_str()), (2, Some("file")), "{out}");
    let error = v["files"][0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("would replace the one of") && error.ends_with("Nothing of this export was read"),
        "{error}"
    );
    assert_eq!(
        (xml_files(d, "T-"), summary_files(d)),
        (4, serde_json::json!(["2024/Invoice.csv"]))
    );

    // The same export by other paths, and from another folder: its own set, run again as always.
    for (cwd, path, results) in [
        (d.to_path_buf(), "./2025/../2024/Invoice.csv", "r"),
        (d.join("2025"), "../2024/Invoice.csv", "../r"),
    ] {
        let (code, v, out) = json(d, &cwd, &["run", path, "--results", results]);
        assert_eq!(code, 0, "{path}: {out}");
        assert_eq!(v["documents"]["issued_before"], 4, "{path}: {v}");
    }
    assert_eq!((issued(d), xml_files(d, "T-")), (4, 4));

    // A set written before the absolute path was recorded: known by the path as given.
    let path = d.join("r/Invoice.summary.json");
    let mut s: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(s["input_paths"], serde_json::json!([first.to_str().unwrap()]), "{s}");
    s.as_object_mut().unwrap().remove("input_paths");
    s["files"] = serde_json::json!(["2024/Invoice.csv"]);
    std::fs::write(&path, serde_json::to_vec(&s).unwrap()).unwrap();
    let (code, v, out) = json(d, d, &["run", "2025/Invoice.csv", "--results", "r"]);
    assert_eq!(code, 2, "{out}");
    let error = v["files"][0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("would replace the one of 2024/Invoice.csv (written "),
        "{error}"
    );
    let (code, _, out) = json(d, d, &["run", "2024/Invoice.csv", "--results", "r"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(issued(d), 4);

    // What the message offers: another results folder, or the export renamed, which is then
    // reported from the ledger, not sent again.
    let (code, v, out) = json(d, d, &["run", "2025/Invoice.csv", "--results", "r2025"]);
    assert_eq!((code, v["documents"]["accepted"].as_u64()), (0, Some(4)), "{out}");
    std::fs::rename(d.join("2025/Invoice.csv"), d.join("2025/Invoice-2025.csv")).unwrap();
    let (code, v, out) = json(d, d, &["run", "2025/Invoice-2025.csv", "--results", "r"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        (
            v["documents"]["accepted"].as_u64(),
            v["documents"]["issued_before"].as_u64()
        ),
        (Some(4), Some(4)),
        "{v}"
    );
    assert_eq!((issued(d), xml_files(d, "T-")), (8, 4));
    let o = run(d, &[], &["--json", "report", "r"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        (o.status.code(), v["reconciled"].as_bool()),
        (Some(0), Some(true)),
        "{v}"
    );
}

/// The signed XML files in `dir/r/<folder>/` whose name holds `_<number_prefix>`.
fn xml_in(dir: &Path, folder: &str, number_prefix: &str) -> usize {
    std::fs::read_dir(dir.join("r").join(folder))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".xml") && n.contains(&format!("_{number_prefix}")))
                .count()
        })
        .unwrap_or(0)
}

/// `a/a:b.csv` (documents T-...) and `b/a-b.csv` (U-...) in `d`: two exports of one artefacts
/// folder, `a-b/`.
fn exports_of_one_folder(d: &Path) {
    for f in ["a", "b"] {
        std::fs::create_dir(d.join(f)).unwrap();
    }
    xero_export(&d.join("a/a:b.csv"), 4);
    let text = std::fs::read_to_string(d.join("a/a:b.csv")).unwrap();
    std::fs::write(d.join("b/a-b.csv"), text.replace(",T-0", ",U-0")).unwrap();
    walk_in_customers(&d.join("b"));
}

#[test]
fn two_exports_of_one_artefacts_folder_in_one_run_the_second_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    exports_of_one_folder(d);
    let (code, v, out) = json(d, d, &["run", "a/a:b.csv", "b/a-b.csv", "--results", "r"]);
    assert_eq!((code, v["error"]["kind"].as_str()), (2, Some("file")), "{out}");
    assert_eq!(v["files"][0]["error"], Value::Null, "{v}");
    let error = v["files"][1]["error"].as_str().unwrap_or_default();
    for said in [
        "its artefacts folder r/a-b/ (the signed XML and QR files of its accepted documents) would be the one of a/a:b.csv too",
        "anything else becomes `-`",
        "rename one of the two exports",
    ] {
        assert!(error.contains(said), "{said:?} in {error}");
    }
    assert_eq!(
        (v["files"][1]["rows"].as_u64(), v["documents"]["accepted"].as_u64()),
        (Some(0), Some(4)),
        "{v}"
    );
    // The first export's signed XML, every one of it, and nothing of the second sent or written.
    assert_eq!((issued(d), xml_in(d, "a-b", "T-"), xml_in(d, "a-b", "U-")), (4, 4, 0));
    assert!(!d.join("r/a-b.summary.json").exists());

    // Two exports of one file name: the second is refused (its result file would overwrite the first's).
    for y in ["x", "y"] {
        std::fs::create_dir(d.join(y)).unwrap();
        walk_in_customers(&d.join(y));
    }
    let text = std::fs::read_to_string(d.join("a/a:b.csv")).unwrap();
    std::fs::write(d.join("x/Invoice.csv"), text.replace(",T-0", ",X-0")).unwrap();
    std::fs::write(d.join("y/Invoice.csv"), text.replace(",T-0", ",Y-0")).unwrap();
    let (code, v, out) = json(d, d, &["run", "x/Invoice.csv", "y/Invoice.csv", "--results", "r"]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(
        v["files"][1]["error"],
        "its result file r/Invoice.result.csv would overwrite the one of x/Invoice.csv; rename one of the two exports",
        "{v}"
    );
    assert_eq!(
        (issued(d), xml_in(d, "Invoice", "X-"), xml_in(d, "Invoice", "Y-")),
        (8, 4, 0)
    );
}

#[test]
fn an_export_whose_artefacts_folder_another_exports_set_has_is_refused_by_a_later_run_or_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    exports_of_one_folder(d);
    let (code, v, out) = json(d, d, &["run", "a/a:b.csv", "--results", "r"]);
    assert_eq!((code, v["documents"]["accepted"].as_u64()), (0, Some(4)), "{out}");
    assert_eq!((issued(d), xml_in(d, "a-b", "T-")), (4, 4));

    let (code, v, out) = json(d, d, &["run", "b/a-b.csv", "--results", "r"]);
    assert_eq!((code, v["error"]["kind"].as_str()), (2, Some("file")), "{out}");
    let error = v["files"][0]["error"].as_str().unwrap_or_default().to_string();
    let first = d.join("a/a:b.csv").canonicalize().unwrap();
    let head = format!(
        "its artefacts folder r/a-b/ would replace the one of {} (result set a:b, written ",
        first.display()
    );
    for said in [
        head.as_str(),
        "the signed XML and QR files of its 4 accepted documents",
        "give this export another --results folder, or rename it (the ledger knows documents by their number",
        "first move a:b.* and a-b/ out of r",
        "Nothing of this export was read or sent",
    ] {
        assert!(error.contains(said), "{said:?} in {error}");
    }
    assert!(out.contains(&format!("error: b/a-b.csv: {error}")), "{out}");
    assert_eq!((issued(d), xml_in(d, "a-b", "T-"), xml_in(d, "a-b", "U-")), (4, 4, 0));
    assert!(!d.join("r/a-b.summary.json").exists());

    // `check` would remove a-b/ (it accepts nothing): the same rule.
    let (code, v, out) = json(d, d, &["check", "b/a-b.csv", "--results", "r"]);
    assert_eq!((code, v["error"]["kind"].as_str()), (2, Some("file")), "{out}");
    let error = v["files"][0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("its artefacts folder r/a-b/ would replace")
            && error.ends_with("Nothing of this export was read"),
        "{error}"
    );
    assert_eq!(xml_in(d, "a-b", "T-"), 4);

    // The same export by a link of the other name: its own documents, run again from the ledger.
    #[cfg(unix)]
    {
        std::fs::create_dir(d.join("link")).unwrap();
        std::os::unix::fs::symlink(&first, d.join("link/a-b.csv")).unwrap();
        let (code, v, out) = json(d, d, &["run", "link/a-b.csv", "--results", "r"]);
        assert_eq!((code, v["documents"]["issued_before"].as_u64()), (0, Some(4)), "{out}");
        assert_eq!((issued(d), xml_in(d, "a-b", "T-")), (4, 4));
    }

    // What the message offers: the export renamed takes its own folder, and sends its own.
    std::fs::rename(d.join("b/a-b.csv"), d.join("b/a-b-2025.csv")).unwrap();
    let (code, v, out) = json(d, d, &["run", "b/a-b-2025.csv", "--results", "r"]);
    assert_eq!((code, v["documents"]["accepted"].as_u64()), (0, Some(4)), "{out}");
    assert_eq!(
        (issued(d), xml_in(d, "a-b", "T-"), xml_in(d, "a-b-2025", "U-")),
        (8, 4, 4)
    );
    let o = run(d, &[], &["--json", "report", "r"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        (o.status.code(), v["reconciled"].as_bool()),
        (Some(0), Some(true)),
        "{v}"
    );
}

#[test]
fn a_run_whose_every_export_is_refused_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    exports_of_one_folder(d);
    for y in ["2024", "2025"] {
        std::fs::create_dir(d.join(y)).unwrap();
    }
    xero_export(&d.join("2024/Invoice.csv"), 2);
    let csv = std::fs::read_to_string(d.join("2024/Invoice.csv")).unwrap();
    std::fs::write(d.join("2024/Invoice.csv"), csv.replace(",T-0", ",W-0")).unwrap();
    std::fs::write(d.join("2025/Invoice.csv"), csv.replace(",T-0", ",V-0")).unwrap();
    let (code, _, out) = json(d, d, &["run", "a/a:b.csv", "2024/Invoice.csv", "--results", "r"]);
    assert_eq!(code, 0, "{out}");
    // Another state folder: whatever a run starts (the built-in sandbox, a ledger) would be there.
    let o = run(
        d,
        &[],
        &[
            "--json",
            "run",
            "b/a-b.csv",
            "2025/Invoice.csv",
            "--results",
            "r",
            "--state",
            "st2",
        ],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    assert_eq!(
        (o.status.code(), v["error"]["kind"].as_str()),
        (Some(2), Some("file")),
        "{}",
        text(&o)
    );
    let errors: Vec<&str> = (0..2)
        .map(|i| v["files"][i]["error"].as_str().unwrap_or_default())
        .collect();
    assert!(
        errors[0].contains("its artefacts folder r/a-b/ would replace"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("its result file r/Invoice.result.csv would replace"),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .all(|e| e.ends_with("Nothing of this export was read or sent")),
        "{errors:?}"
    );
    assert_eq!(v["sandbox"], false, "nothing sent to it: {v}");
    assert!(!d.join("st2").exists(), "nothing started");
    assert_eq!(issued(d), 6);
    // One export not refused: the run starts and sends it, the other still refused.
    let (code, v, out) = json(d, d, &["run", "b/a-b.csv", "2024/Invoice.csv", "--results", "r"]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(
        (v["files"][1]["error"].clone(), v["documents"]["issued_before"].as_u64()),
        (Value::Null, Some(2)),
        "{v}"
    );
    assert_eq!(issued(d), 6);
}

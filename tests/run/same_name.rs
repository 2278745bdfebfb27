//! Two exports with one file name (`2024/Invoice.csv`, `2025/Invoice.csv`, as Zoho names every
//! export) run one after the other into one results folder: the second is refused before it is
//! read, as within one invocation, and the first one's result set, its signed XML and QR files
//! included, is kept; the same export given by another path, from another folder or with a
//! summary written before the absolute path was recorded, is run again as always; a renamed export
//! or another results folder takes it, and nothing is sent twice.

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

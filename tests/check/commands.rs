//! Around the checks: result files that cannot be written, whole-file errors, the configured
//! seller, the results path, `mappings list/show/detect` and a mapping file of one's own.

use super::*;

#[test]
fn a_result_file_that_cannot_be_written_stops_that_input_and_keeps_the_earlier_results() {
    // Writes past a file size limit fail (EFBIG, with SIGXFSZ ignored) in the middle of the
    // result file, with one thread or several writing in turn; `timeout` turns a hang into a
    // failure.
    let dir = tempfile::tempdir().unwrap();
    let made = bin()
        .current_dir(dir.path())
        .args([
            "generate",
            "--layout",
            "xero",
            "--rows",
            "8000",
            "--seed",
            "4",
            "--today",
            "2026-11-21",
        ])
        .args(["--out", "x.csv", "-q"])
        .status()
        .unwrap();
    assert!(made.success());
    let before = run(dir.path(), &["check", "--now", NOW, "x.csv", "-q"]);
    assert!(
        matches!(before.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&before.stderr)
    );
    let results = dir.path().join("results");
    let files = |d: &Path| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let kept = files(&results);
    assert!(kept.iter().any(|(n, b)| n == "x.result.csv" && b.len() > 1_000_000));
    for threads in ["1", "2", "5"] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(r#"trap "" XFSZ; ulimit -f 1000; exec timeout 120 "$0" "$@""#)
            .arg(env!("CARGO_BIN_EXE_invoicedrop"))
            .args(["check", "--now", NOW, "x.csv"])
            .env("RAYON_NUM_THREADS", threads)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{threads} threads: {stderr}");
        assert!(stderr.contains("File too large"), "{stderr}");
        assert!(
            stderr.contains("the result files of this input were not written") && stderr.contains("try again"),
            "{stderr}"
        );
        // No half-written file, no temporary left behind: the earlier results as they were.
        assert!(files(&results) == kept, "{threads} threads: the results folder changed");
    }
}

#[test]
fn whole_file_errors_exit_2_and_the_other_files_go_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.csv"), "").unwrap();
    std::fs::write(dir.path().join("binary.csv"), [0u8, 159, 146, 150, 0, 1, 2, 3, 255, 0]).unwrap();
    let xlsx = std::fs::read(samples().join("quickbooks_invoices.xlsx")).unwrap();
    std::fs::write(dir.path().join("truncated.xlsx"), &xlsx[..xlsx.len() / 2]).unwrap();
    std::fs::copy(samples().join("odoo_account_move.csv"), dir.path().join("odoo.csv")).unwrap();
    let (code, r, err) = check_json(dir.path(), &[dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{r:#}");
    assert!(!err.contains("panicked"), "{err}");
    for name in ["empty.csv", "binary.csv", "truncated.xlsx"] {
        let e = file(&r, name)["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: {r:#}"))
            .to_string();
        assert!(e.contains(name), "{e}");
    }
    assert_eq!(file(&r, "odoo.csv")["documents"]["valid"], 3);
}

#[test]
fn a_configured_seller_replaces_the_demo_seller() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("invoicedrop.toml"),
        "[seller]\nname = \"مؤسسة الاختبار | Test Est.\"\nvat_number = \"301234567890003\"\ncrn = \"1010999999\"\nstreet = \"Olaya St\"\nbuilding_number = \"1234\"\ndistrict = \"Olaya\"\ncity = \"Riyadh\"\npostal_zone = \"12345\"\n",
    )
    .unwrap();
    let (code, r, _) = check_json(dir.path(), &[samples().join("odoo_account_move.csv").to_str().unwrap()]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["demo_seller"], false);
    std::fs::write(
        dir.path().join("invoicedrop.toml"),
        "[seller]\nname = \"x\"\nvat_number = \"12\"\n",
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "check",
            "--now",
            NOW,
            samples().join("odoo_account_move.csv").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invoicedrop.toml"));
}

#[test]
fn a_results_path_that_is_a_file_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("out.csv"), "not a folder").unwrap();
    let sample = samples().join("zoho_invoices.csv");
    let out = run(
        dir.path(),
        &["check", "--now", NOW, sample.to_str().unwrap(), "--results", "out.csv"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--results out.csv: out.csv is a file, not a folder")
            && stderr.contains("give --results a folder")
            && !stderr.contains("os error"),
        "{stderr}"
    );
}

#[test]
fn mappings_list_show_and_detect() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["mappings", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 10);
    let out = run(dir.path(), &["mappings", "show", "sage50"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("credit_note_when_negative = true"));
    // A copy to start from, shown (loaded and checked) as a file; broken, it is refused.
    let own = dir.path().join("my-erp.toml");
    std::fs::write(&own, &out.stdout).unwrap();
    let shown = run(dir.path(), &["mappings", "show", own.to_str().unwrap()]);
    assert_eq!(shown.status.code(), Some(0));
    assert_eq!(shown.stdout, out.stdout);
    let text = String::from_utf8_lossy(&out.stdout).replacen("[fields]", "[fields]\nissue_dat = \"Date\"", 1);
    std::fs::write(&own, text).unwrap();
    let refused = run(dir.path(), &["mappings", "show", own.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("my-erp.toml") && err.contains("issue_dat"), "{err}");
    let out = run(
        dir.path(),
        &[
            "mappings",
            "detect",
            "--json",
            samples().join("zoho_invoices.csv").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["chosen"], "zoho-books");
    let top = &d["candidates"][0];
    assert_eq!(top["score"], 1.0);
    assert!(top["missing"].as_array().unwrap().is_empty());
    let out = run(
        dir.path(),
        &[
            "mappings",
            "detect",
            samples().join("SAP_B1_OINV_Documents.txt").to_str().unwrap(),
        ],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("sap-b1-dtw (as its header file)"));
}

/// `--mapping FILE`: a mapping of one's own, read from its file, is used as given; one that
/// names a column the export lacks is a whole-file error (exit 2) naming the column, the
/// closest header and the mapping file.
#[test]
fn a_mapping_file_of_ones_own_is_used_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let bundled =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("mappings/zoho-books.toml")).unwrap();
    assert!(bundled.contains("name = \"zoho-books\""));
    let own = dir.path().join("our-zoho.toml");
    std::fs::write(&own, bundled.replace("name = \"zoho-books\"", "name = \"our-zoho\"")).unwrap();
    let export = samples().join("zoho_invoices.csv");
    let (code, r, err) = check_json(
        dir.path(),
        &["--mapping", own.to_str().unwrap(), export.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{r:#}\n{err}");
    let f = file(&r, "zoho_invoices.csv");
    assert_eq!(f["mapping"], "our-zoho", "the file's mapping, not the bundled one");
    assert_eq!(f["documents"]["valid"], 3);
    assert_eq!(payable(f, "INV-000202"), "477.25");

    let broken = dir.path().join("broken.toml");
    std::fs::write(
        &broken,
        bundled
            .replace("name = \"zoho-books\"", "name = \"broken\"")
            .replace("number = \"Invoice Number\"", "number = \"Invoice Numbr\""),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &[
            "check",
            "--now",
            NOW,
            "--mapping",
            broken.to_str().unwrap(),
            export.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("no column \"Invoice Numbr\"")
            && text.contains("closest header is \"Invoice Number\"")
            && text.contains("broken.toml")
            && text.contains("zoho_invoices.csv"),
        "names the unknown column, the closest header, the mapping and the export: {text}"
    );
}

/// A mapping file's mistakes are refused when it loads, once, before any export is read: each
/// error reads `mapping FILE: KEY: what is wrong; what to do` (never toml's "expected ..."), a bad
/// `[input]` value included, which is the mapping's error (`kind` "mapping"), not each export's.
#[test]
fn a_mapping_file_with_mistakes_is_refused_when_it_loads() {
    let dir = tempfile::tempdir().unwrap();
    let export = "No;Date;Item;Price\nA-1;03.11.2026;Printer;1150\n";
    std::fs::write(dir.path().join("export.csv"), export).unwrap();
    std::fs::write(dir.path().join("export2.csv"), export).unwrap();
    let good = "[input]\nencoding = \"utf-8\"\ndelimiter = \";\"\n[fields]\nnumber = \"No\"\n\
                issue_date = { column = \"Date\", format = \"%d.%m.%Y\" }\nkind = { value = \"invoice\" }\n\
                line.item_name = \"Item\"\nline.unit_price = \"Price\"\n";
    let cases = [
        (
            good.replace("encoding = \"utf-8\"", "encoding = \"utf8x\""),
            "input.encoding: unknown encoding \"utf8x\"; did you mean \"utf-8\"? give one such as utf-8, ",
        ),
        (
            good.replace("delimiter = \";\"", "delimiter = \";;\""),
            "input.delimiter: \";;\" is not a delimiter; give one character",
        ),
        (
            good.replace("number = \"No\"", "number = \"No"),
            "line 5, column 13: TOML syntax error: invalid basic string",
        ),
        (
            good.replace("number = \"No\"", "number = \"No\"\nnumber = \"No\""),
            "fields.\"number\" (line 6, column 1): duplicate key: number is already given on line 5 in [fields]; \
             keep one of them",
        ),
        (
            good.replace("issue_date =", "issue_dat ="),
            "fields.\"issue_dat\": unknown field; did you mean \"issue_date\"?",
        ),
        (
            good.replace("number = \"No\"\n", ""),
            "fields.\"number\": missing: every mapping needs the document number column; add number = \"...\"",
        ),
        (
            good.replace(
                "{ value = \"invoice\" }",
                "{ value = \"invoice\", map = { \"R\" = \"creditnote\" } }",
            ),
            "fields.\"kind\".map.\"R\": \"creditnote\" is not invoice, credit_note or debit_note; change it to one of \
             those",
        ),
    ];
    for (mapping, want) in cases {
        std::fs::write(dir.path().join("bad.toml"), &mapping).unwrap();
        let out = run(
            dir.path(),
            &[
                "check",
                "--now",
                NOW,
                "export.csv",
                "export2.csv",
                "--mapping",
                "bad.toml",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(errors.len(), 1, "one error, for the mapping: {stderr}");
        assert!(
            errors[0].starts_with(&format!("error: mapping bad.toml: {want}")),
            "{stderr}"
        );
        assert!(!errors[0].contains(": expected "), "{stderr}");
        let (code, r, _) = check_json(dir.path(), &["export.csv", "--mapping", "bad.toml"]);
        assert_eq!((code, r["error"]["kind"].as_str()), (2, Some("mapping")), "{r:#}");
    }
}

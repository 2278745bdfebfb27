//! A legacy export saved again in UTF-8: the file's own evidence (a byte-order mark, or Arabic
//! text that is valid UTF-8) wins over the mapping's `encoding = "windows-1256"`.

use super::{check_json, file, result_rows, samples};

/// The legacy Arabic sample (windows-1256) as Excel's "CSV UTF-8" writes it (with a byte-order
/// mark) and as a script would (without): detected, read and checked as the original.
#[test]
fn a_windows_1256_export_saved_again_in_utf8_reads_as_the_original() {
    let original = std::fs::read(samples().join("legacy_arabic_erp.csv")).unwrap();
    let (text, _, bad) = encoding_rs::WINDOWS_1256.decode(&original);
    assert!(!bad);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("original.csv"), &original).unwrap();
    let mut with_mark = b"\xEF\xBB\xBF".to_vec();
    with_mark.extend_from_slice(text.as_bytes());
    std::fs::write(dir.path().join("with_mark.csv"), &with_mark).unwrap();
    std::fs::write(dir.path().join("without_mark.csv"), text.as_bytes()).unwrap();

    // One file a run: the three share their numbers, which one run would call used twice.
    let checked = |name: &str| {
        let (code, r, err) = check_json(dir.path(), &[name]);
        assert_eq!(code, 0, "{r:#}\n{err}");
        file(&r, name).clone()
    };
    let original = checked("original.csv");
    let want = result_rows(&dir.path().join("results/original.result.csv"));
    assert!(want.len() > 3);
    let time = want[0].iter().position(|h| h == "result_time").unwrap();
    let strip = |rows: &[Vec<String>]| -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != time)
                    .map(|(_, c)| c.clone())
                    .collect()
            })
            .collect()
    };
    for (name, note) in [
        ("with_mark.csv", "the mark decides"),
        ("without_mark.csv", "the file's text is UTF-8"),
    ] {
        let f = checked(name);
        assert_eq!(f["mapping"], "legacy-arabic", "{name}: {f:#}");
        assert_eq!(f["documents"], original["documents"], "{name}");
        assert_eq!(f["by_kind"], original["by_kind"], "{name}");
        // The same cells (the Arabic text as the original's), up to the result time.
        let got = result_rows(
            &dir.path()
                .join(format!("results/{}", name.replace(".csv", ".result.csv"))),
        );
        assert_eq!(strip(&got), strip(&want), "{name}");
        // The note says why the mapping's encoding was not used.
        assert!(f["notes"].to_string().contains(note), "{name}: {}", f["notes"]);
    }
}

/// The legacy Arabic sample as Excel's "CSV UTF-8" writes it on a machine whose list separator
/// is `,`: a byte-order mark, `,` between cells, the cells holding a comma (the decimal commas:
/// `"35,3"`) quoted. `header`: what to do to the header line.
fn saved_with_commas(header: impl Fn(Vec<String>) -> Vec<String>) -> Vec<u8> {
    let original = std::fs::read(samples().join("legacy_arabic_erp.csv")).unwrap();
    let (text, _, bad) = encoding_rs::WINDOWS_1256.decode(&original);
    assert!(!bad);
    let mut records: Vec<Vec<String>> = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(b';')
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    records[0] = header(std::mem::take(&mut records[0]));
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .terminator(csv::Terminator::CRLF)
        .from_writer(b"\xEF\xBB\xBF".to_vec());
    for r in &records {
        w.write_record(r).unwrap();
    }
    w.into_inner().unwrap()
}

/// Saved again with `,` (the mapping says `;`): detected and read as the original, decimal
/// commas in quoted cells included, with a note; and with `--mapping legacy-arabic`.
#[test]
fn a_legacy_export_saved_again_with_commas_reads_as_the_original() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("legacy_arabic_erp.csv"), dir.path().join("original.csv")).unwrap();
    let bytes = saved_with_commas(|h| h);
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(text.starts_with('\u{feff}') && !text.contains(';'), "{text}");
    assert!(text.contains(",\"85,5\","), "a decimal comma, quoted: {text}");
    std::fs::write(dir.path().join("commas.csv"), bytes).unwrap();
    let (code, r, err) = check_json(dir.path(), &["original.csv", "--results", "r0"]);
    assert_eq!(code, 0, "{r:#}\n{err}");
    let original = file(&r, "original.csv").clone();
    let want = result_rows(&dir.path().join("r0/original.result.csv"));
    let time = want[0].iter().position(|h| h == "result_time").unwrap();
    let strip = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
        rows.into_iter()
            .map(|mut r| {
                r.remove(time);
                r
            })
            .collect()
    };
    let want = strip(want);
    for (k, args) in [vec![], vec!["--mapping", "legacy-arabic"]].into_iter().enumerate() {
        let results = format!("r{}", k + 1);
        let mut all = vec!["commas.csv", "--results", results.as_str()];
        all.extend(args);
        let (code, r, err) = check_json(dir.path(), &all);
        assert_eq!(code, 0, "{all:?}: {r:#}\n{err}");
        let f = file(&r, "commas.csv");
        assert_eq!(f["mapping"], "legacy-arabic", "{f:#}");
        // The same documents and amounts: "85,5" is 85.5, as ;-separated 85,5 is.
        assert_eq!(f["documents"], original["documents"]);
        assert_eq!(f["by_kind"], original["by_kind"]);
        let amounts = &f["summary"]["by_status"]["valid"]["amounts"]["SAR"];
        assert!(amounts["net"].is_string(), "{f:#}");
        assert_eq!(amounts, &original["summary"]["by_status"]["valid"]["amounts"]["SAR"]);
        let got = strip(result_rows(&dir.path().join(format!("{results}/commas.result.csv"))));
        assert_eq!(got, want, "{all:?}");
        let notes = f["notes"].to_string();
        assert!(
            notes.contains("delimiter: comma (detected), not the mapping's semicolon, which splits no column out of the header line"),
            "{notes}"
        );
    }
    let out = super::run(dir.path(), &["mappings", "detect", "commas.csv"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.trim_start().starts_with("100%  legacy-arabic"), "{text}");
}

/// A `;` in a header cell of the re-saved file splits its header line into two cells with the
/// mapping's `;`, so it is read with `;` as the mapping says: the missing columns' error names
/// both delimiters and the fix.
#[test]
fn a_fixed_delimiter_kept_names_the_files_own_in_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = saved_with_commas(|mut h| {
        let last = h.len() - 1;
        h[last] = h[last].replace(' ', ";");
        h
    });
    std::fs::write(dir.path().join("semicolon.csv"), bytes).unwrap();
    let (code, r, _) = check_json(dir.path(), &["semicolon.csv", "--mapping", "legacy-arabic"]);
    assert_eq!(code, 2, "{r:#}");
    let error = file(&r, "semicolon.csv")["error"].as_str().unwrap().to_string();
    assert!(
        error.contains(
            "this mapping reads cells separated by \";\" (delimiter in its [input]), and this file's lines are \
             separated by \",\": read so, its header has 8 of the mapping's 8 required columns; save the file with \
             \";\" again, or pass a copy of the mapping with delimiter = \",\" in its [input]"
        ),
        "{error}"
    );
    assert!(!error.contains("header_row"), "{error}");
}

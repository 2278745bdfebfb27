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

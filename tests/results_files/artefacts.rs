//! Artefacts: the QR PNG reads back as the exact payload; untrusted names stay in the folder.

use super::common::{decode_png, payload, response, tree};
use chrono::{NaiveDate, NaiveTime};
use invoicedrop::results::artefacts::{qr_png, write_accepted};

#[test]
fn the_qr_png_decodes_to_exactly_the_payload() {
    for seed in [0u8, 1, 200] {
        let text = payload(seed);
        assert_eq!(text.len(), 628);
        assert_eq!(decode_png(&qr_png(&text).unwrap()), text);
    }
    // The longest payload the authority accepts (1000 characters) still draws and reads.
    let long: String = payload(9).repeat(2)[..1000].to_string();
    assert_eq!(decode_png(&qr_png(&long).unwrap()), long);
}

#[test]
fn untrusted_numbers_and_stems_cannot_leave_the_results_folder() {
    let outer = tempfile::tempdir().unwrap();
    let results = outer.path().join("results");
    std::fs::create_dir(&results).unwrap();
    let d = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
    let t = NaiveTime::from_hms_opt(10, 30, 0).unwrap();
    let long = "9".repeat(5000);
    let hostile = [
        "../../x",
        "a/b:c",
        "a:b/c",
        "/etc/passwd",
        "C:\\Windows\\win.ini",
        "\\\\server\\share",
        "nul\0byte",
        "CON",
        "..",
        long.as_str(),
    ];
    let stems = ["../../evil", "..", "CON", "a/b", ""];
    let mut written = Vec::new();
    for stem in stems {
        for (i, number) in hostile.iter().enumerate() {
            let r = response(number, &format!("<Invoice>{i}</Invoice>"), &payload(i as u8));
            let paths = write_accepted(&results, stem, "../3999/99", number, d, t, &r).unwrap();
            for rel in [&paths.xml_file, &paths.qr_file] {
                assert!(rel.split('/').all(|c| c != ".." && c != "." && !c.is_empty()), "{rel}");
                assert_eq!(rel.matches('/').count(), 1, "folder/name: {rel}");
                let full = results.join(rel);
                assert!(full.is_file(), "{rel}");
                let canon = full.canonicalize().unwrap();
                assert!(canon.starts_with(results.canonicalize().unwrap()), "{canon:?}");
                assert!(rel.len() < 320);
            }
            written.push(paths);
        }
    }
    // Nothing beside the results folder, nothing nested deeper than one folder.
    assert_eq!(
        tree(outer.path()).iter().filter(|p| !p.starts_with("results")).count(),
        0
    );
    assert!(tree(&results).iter().all(|p| p.matches('/').count() <= 1));
    // Every document kept its own files (numbers that map to one name get _2, _3, ...).
    let mut names: Vec<&str> = written.iter().map(|p| p.xml_file.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), stems.len() * hostile.len());
    for folder in tree(&results).iter().filter(|p| !p.contains('/')) {
        assert!(
            !folder.starts_with('.') && folder != "CON" && !folder.is_empty(),
            "{folder}"
        );
    }
    // Written again, the same document reuses its files.
    let again = write_accepted(
        &results,
        "..",
        "../3999/99",
        "a/b:c",
        d,
        t,
        &response("a/b:c", "<Invoice>1</Invoice>", &payload(1)),
    )
    .unwrap();
    assert!(written.contains(&again));
}

#[test]
fn an_accepted_answer_without_xml_or_qr_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
    let t = NaiveTime::from_hms_opt(10, 30, 0).unwrap();
    let mut r = response("A", "<x/>", "QQ==");
    r.invoice = None;
    assert!(
        write_accepted(dir.path(), "x", "3", "A", d, t, &r)
            .unwrap_err()
            .to_string()
            .contains("no invoice")
    );
    let mut r = response("A", "<x/>", "QQ==");
    r.invoice = Some("not base64 !!".into());
    assert!(
        write_accepted(dir.path(), "x", "3", "A", d, t, &r)
            .unwrap_err()
            .to_string()
            .contains("base64")
    );
    let mut r = response("A", "<x/>", "");
    r.qr_code = Some(" ".into());
    assert!(
        write_accepted(dir.path(), "x", "3", "A", d, t, &r)
            .unwrap_err()
            .to_string()
            .contains("qr_code")
    );
    assert!(tree(dir.path()).iter().all(|p| !p.ends_with(".xml")));
}

//! The files of a folder given to `run` that are not exports: Office's lock file `~$book.xlsx`
//! (kept beside any workbook someone has open) is passed over with a note, as `watch` ignores it;
//! the same file named on its own is still read, and refused.

use super::support::*;

/// What Excel writes as `~$book.xlsx` while `book.xlsx` is open: the user name's length, the
/// name, blanks and zeros (165 bytes).
fn excel_owner_file() -> Vec<u8> {
    let name = b"Finance Clerk";
    let mut b = vec![name.len() as u8];
    b.extend_from_slice(name);
    b.resize(54, b' ');
    b.resize(165, 0);
    b
}

#[test]
fn an_office_lock_file_in_a_folder_is_passed_over_with_a_note_and_named_alone_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let exports = d.join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    walk_in_customers(&exports);
    xero_export(&exports.join("day.csv"), 3);
    std::fs::write(exports.join("~$book.xlsx"), excel_owner_file()).unwrap();
    let o = run(d, &[], &["run", "exports", "--state", "st", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("skipped exports/~$book.xlsx: a lock or temporary file"),
        "{out}"
    );
    assert!(!out.contains("not a spreadsheet"), "{out}");
    assert_eq!(results(&d.join("r/day.result.csv")).len(), 3);
    assert!(!d.join("r/~$book.result.csv").exists());
    // Named on its own, it is what was asked for: read, and refused.
    let o = run(
        d,
        &[],
        &["run", "exports/~$book.xlsx", "--state", "st", "--results", "r"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a spreadsheet"), "{}", text(&o));
}

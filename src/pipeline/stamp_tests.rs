//! Tests of `stamp.rs`.
use super::*;

#[test]
fn sizes_are_written_with_thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(12_345), "12,345");
    assert_eq!(thousands(1_234_567), "1,234,567");
    let c = FileChanged {
        export: Some(Change {
            opened: 12_345,
            now: Ok(23_456),
        }),
        ..FileChanged::default()
    };
    assert_eq!(
        c.to_string(),
        "the file changed while it was read (12,345 bytes when opened, 23,456 now)"
    );
    assert!(c.finding(true, true).starts_with(
        "the file changed while it was read (12,345 bytes when opened, 23,456 now): it was still being written or was replaced, so this last document may be incomplete and is not sent; send the file again"
    ));
    assert!(c.finding(false, true).contains("is held back; check the file again"));
    assert!(
        c.finding(true, false).contains(
            "so this document may be incomplete (the last row read, after it, may be a row of its own, cut short in its number) and is not sent; send the file again"
        ),
        "{}",
        c.finding(true, false)
    );
}

#[test]
fn the_file_error_names_the_documents_held_back() {
    let held = |number: &str, line, last| HeldBack {
        number: number.into(),
        line,
        last,
    };
    let mut c = FileChanged {
        export: Some(Change {
            opened: 100,
            now: Ok(90),
        }),
        ..FileChanged::default()
    };
    let start = "the file changed while it was read (100 bytes when opened, 90 now): it was still being \
                 written or was replaced; ";
    assert_eq!(
        c.explain("not sent", "Again."),
        format!("{start}rows written after it was read were not seen. Again.")
    );
    c.held_back = vec![held("A-1", 2, false), held("A-2", 5, true)];
    assert_eq!(
        c.explain("not sent", "Again."),
        format!(
            "{start}its last two documents, A-1 (line 2) and A-2 (line 5), which may be incomplete, were not \
             sent (INV-FILE-CHANGED), and rows written after it was read were not seen. Again."
        )
    );
    c.held_back = vec![held("A-2", 5, true)];
    assert!(
        c.explain("held back", "Again.").contains(
            "; its last document, A-2 (line 5), which may be incomplete, was held back (INV-FILE-CHANGED), and"
        )
    );
    // The last document skipped (never sent): the one before it alone is named.
    c.held_back = vec![held("A-1", 2, false)];
    assert!(
        c.explain("not sent", "Again.")
            .contains("; its last document but one, A-1 (line 2), which may be incomplete, was not sent (")
    );
}

#[test]
fn the_file_error_of_a_file_seen_changed_while_sent_says_from_where_documents_were_held_back() {
    let mut c = FileChanged {
        export: Some(Change {
            opened: 1_000,
            now: Ok(0),
        }),
        midway: Some(HeldFrom::default()),
        ..FileChanged::default()
    };
    let start = "the file changed while it was read (1,000 bytes when opened, 0 now): it was still being \
                 written, rewritten or replaced while its documents were being sent; ";
    assert_eq!(
        c.explain("not sent", "Again."),
        format!(
            "{start}no document was left to hold back when that was seen, and rows written after it was read \
             were not seen. Again."
        )
    );
    let first = HeldBack {
        number: "A-7".into(),
        line: 70,
        last: false,
    };
    c.midway = Some(HeldFrom {
        first: Some(first.clone()),
        count: 1,
    });
    assert_eq!(
        c.explain("not sent", "Again."),
        format!(
            "{start}the document from A-7 (line 70) on, which may mix rows (or parts of a row) of the two \
             versions, was not sent (INV-FILE-CHANGED); those before it were read before it changed, and went \
             on. Again."
        )
    );
    c.midway = Some(HeldFrom {
        first: Some(first),
        count: 12_345,
    });
    assert!(
        c.explain("not sent", "Again.")
            .contains("; the 12,345 documents from A-7 (line 70) on, which may mix rows (or parts of a row) of the two versions, were not sent (INV-FILE-CHANGED); those before them were read"),
        "{}",
        c.explain("not sent", "Again.")
    );
    assert!(c.midway_finding().starts_with(
        "the file changed while it was read (1,000 bytes when opened, 0 now): it was still being written, \
         rewritten or replaced while its documents were being sent"
    ));
}

#[test]
fn an_unchanged_file_is_not_flagged_and_a_grown_replaced_or_removed_one_is() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.csv");
    std::fs::write(&p, "a,b\n1,2\n").unwrap();
    let w = Watched::new(p.clone(), FileStamp::of(&p).unwrap(), true);
    assert_eq!(w.changed(), None);
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    std::io::Write::write_all(&mut f, b"3,4\n").unwrap();
    drop(f);
    let c = w.changed().expect("grown");
    let e = c.export.expect("the export");
    assert_eq!((e.opened, e.now), (8, Ok(12)));
    // Same size, other modification time (a file rewritten in place).
    let w = Watched::new(
        p.clone(),
        FileStamp {
            len: 12,
            modified: Some(std::time::SystemTime::UNIX_EPOCH),
        },
        true,
    );
    let c = w.changed().expect("modified");
    assert!(
        c.to_string()
            .contains("12 bytes when opened and now, but modified since"),
        "{c}"
    );
    std::fs::remove_file(&p).unwrap();
    let c = w.changed().expect("removed");
    assert!(c.export.as_ref().is_some_and(|e| e.now.is_err()));
    assert!(c.to_string().contains("can no longer be looked at"), "{c}");
}

use super::*;
use crate::results::documents::DocumentsFile;

const U1: &str = "6f1c2a34-1b2c-4d5e-8f90-0123456789ab";
const U2: &str = "7a2d3b45-2c3d-4e6f-9a01-123456789abc";

fn accepted(number: &str, uuid: &str) -> DocumentRecord {
    let mut r = DocumentRecord::new(number, RowStatus::Accepted);
    r.kind = "invoice".into();
    r.uuid = uuid.into();
    r.xml_file = format!("x/V_{number}.xml");
    r.qr_file = format!("x/V_{number}.png");
    r.first_line = Some(2);
    r.rows = 1;
    r
}

fn write(path: &Path, records: &[DocumentRecord]) {
    let mut f = DocumentsFile::create(path).unwrap();
    for r in records {
        f.write(r).unwrap();
    }
    f.commit().unwrap();
}

fn records(e: Earlier) -> Vec<(String, bool, Vec<String>, Vec<String>)> {
    match e {
        Earlier::Records(r) => r
            .into_iter()
            .map(|(r, inside)| (r.document, inside, r.errors, r.warnings))
            .collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn accepted_documents_the_new_set_does_not_give_as_accepted_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new, live) = (
        dir.path().join("old.csv"),
        dir.path().join("new.csv"),
        dir.path().join("x"),
    );
    assert!(
        matches!(earlier(&old, &new, &live).unwrap(), Earlier::Nothing),
        "no earlier set"
    );
    let mut conflict = accepted("B", U2);
    conflict.errors.push(crate::submit::CONFLICT_CODE.into());
    let mut gone_before = accepted("C", "not-a-uuid");
    gone_before.warnings.push(NOT_IN_EXPORT_CODE.into());
    write(
        &old,
        &[
            accepted("A", U1),
            conflict,
            gone_before.clone(),
            DocumentRecord::new("D", RowStatus::Rejected),
            accepted("A", U1),
        ],
    );
    // A is accepted again (its UUID): replaced. B is gone. C is in the export, checked now.
    let mut c = DocumentRecord::new("C", RowStatus::Valid);
    c.kind = "invoice".into();
    write(&new, &[accepted("A", U1), c]);
    let kept = records(earlier(&old, &new, &live).unwrap());
    assert_eq!(
        kept,
        [
            ("B".to_string(), false, vec![], vec![NOT_IN_EXPORT_CODE.to_string()]),
            ("C".to_string(), true, vec![], vec![]),
        ]
    );
    // Nothing accepted earlier: nothing read further.
    write(&old, &[DocumentRecord::new("D", RowStatus::Rejected)]);
    assert!(matches!(earlier(&old, &new, &live).unwrap(), Earlier::Nothing));
    // Issued twice (another UUID for the number): the earlier one is kept too.
    write(&old, &[accepted("A", U2)]);
    assert!(records(earlier(&old, &new, &live).unwrap())[0].1, "in the export");
}

#[test]
fn an_unreadable_or_missing_earlier_list_keeps_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new, live) = (
        dir.path().join("old.csv"),
        dir.path().join("new.csv"),
        dir.path().join("x"),
    );
    write(&new, &[]);
    std::fs::create_dir(&live).unwrap();
    assert!(
        matches!(earlier(&old, &new, &live).unwrap(), Earlier::Nothing),
        "an empty X/"
    );
    std::fs::write(live.join("V_A.xml"), "<a/>").unwrap();
    assert!(matches!(earlier(&old, &new, &live).unwrap(), Earlier::Unreadable(w) if w.contains("missing")));
    std::fs::write(&old, "document,state\nA,accepted\n").unwrap();
    assert!(matches!(earlier(&old, &new, &live).unwrap(), Earlier::Unreadable(w) if w.contains("no status column")));
    std::fs::write(&old, "document,status,uuid,kind,net\nA,accepted,u,invoice,1.0.0\n").unwrap();
    assert!(matches!(earlier(&old, &new, &live).unwrap(), Earlier::Unreadable(w) if w.contains("line 2")));

    std::fs::write(live.join(crate::results::artefacts::MARKER), "ours").unwrap();
    std::fs::write(live.join("V_A.png"), "png").unwrap();
    std::fs::write(live.join("V_B.xml"), "<b/>").unwrap();
    let staging = dir.path().join("staging");
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(staging.join("V_B.xml"), "<b-new/>").unwrap();
    assert_eq!(keep_files(&live, &staging).unwrap(), 1);
    assert_eq!(std::fs::read(staging.join("V_A.xml")).unwrap(), b"<a/>");
    assert_eq!(std::fs::read(staging.join("V_A.png")).unwrap(), b"png");
    assert_eq!(
        std::fs::read(staging.join("V_B.xml")).unwrap(),
        b"<b-new/>",
        "written again: not replaced"
    );
    assert!(staging.join(crate::results::artefacts::MARKER).is_file());
}

#[test]
fn kept_files_take_their_name_or_the_next_free_one() {
    let dir = tempfile::tempdir().unwrap();
    let (live, staging) = (dir.path().join("x"), dir.path().join("staging"));
    std::fs::create_dir(&live).unwrap();
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(live.join(crate::results::artefacts::MARKER), "ours").unwrap();
    for n in ["A", "B"] {
        std::fs::write(live.join(format!("V_{n}.xml")), format!("<{n}/>")).unwrap();
        std::fs::write(live.join(format!("V_{n}.png")), n).unwrap();
    }
    std::fs::write(staging.join("V_B.xml"), "<another/>").unwrap();
    let mut a = accepted("A", U1);
    assert!(place(&mut a, &live, &staging, "x").unwrap());
    assert_eq!((a.xml_file.as_str(), a.qr_file.as_str()), ("x/V_A.xml", "x/V_A.png"));
    assert_eq!(std::fs::read(staging.join("V_A.xml")).unwrap(), b"<A/>");
    let mut b = accepted("B", U2);
    assert!(place(&mut b, &live, &staging, "x").unwrap());
    assert_eq!(
        (b.xml_file.as_str(), b.qr_file.as_str()),
        ("x/V_B_2.xml", "x/V_B_2.png")
    );
    assert_eq!(std::fs::read(staging.join("V_B_2.png")).unwrap(), b"B");
    assert!(staging.join(crate::results::artefacts::MARKER).is_file());
    // Its XML gone from the earlier folder: named, said missing.
    let mut c = accepted("C", U1);
    assert!(!place(&mut c, &live, &staging, "x").unwrap());
    assert_eq!(c.xml_file, "x/V_C.xml");
    // Files named outside the folder, or no plain name: left as named.
    for path in ["elsewhere/V_A.xml", "x/../V_A.xml", "x/.hidden.xml"] {
        let mut d = accepted("D", U1);
        d.xml_file = path.into();
        assert!(!place(&mut d, &live, &staging, "x").unwrap(), "{path}");
        assert_eq!(d.xml_file, path);
    }
}

#[test]
fn what_is_said() {
    let mut k = Kept::default();
    assert!(k.say("day", "day").is_empty());
    k.add(&accepted("INV-91", U1), false, true);
    let notes = k.say("day", "day");
    assert_eq!(notes.len(), 1);
    assert!(is_warning_note(&notes[0]), "{}", notes[0]);
    assert!(
        notes[0].starts_with(
            "INV-NOT-IN-EXPORT: INV-91 issued earlier (accepted by the authority) is no longer in this export"
        ),
        "{}",
        notes[0]
    );
    assert!(notes[0].contains("needs a credit note"));
    for i in 0..11 {
        k.add(&accepted(&format!("N-{i}"), U1), true, i != 3);
    }
    let notes = k.say("day", "day");
    assert!(notes[1].starts_with("11 documents (first N-0, N-1,"), "{}", notes[1]);
    assert!(!is_warning_note(&notes[1]));
    assert!(notes[2].starts_with("the signed XML of N-3 kept"), "{}", notes[2]);
    k.unreadable = Some("bad".into());
    k.files = 2;
    assert!(k.say("day", "day")[3].contains("(bad)"));
}

#[test]
fn a_byte_order_mark_before_the_header_is_no_part_of_its_first_name() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new, live) = (
        dir.path().join("old.csv"),
        dir.path().join("new.csv"),
        dir.path().join("x"),
    );
    write(&new, &[]);
    std::fs::write(
        &old,
        format!("\u{feff}document,kind,status,uuid\nA,invoice,accepted,{U1}\n"),
    )
    .unwrap();
    assert_eq!(records(earlier(&old, &new, &live).unwrap())[0].0, "A");
    std::fs::write(
        &new,
        format!("\u{feff}document,kind,status,uuid\nA,invoice,accepted,{U1}\n"),
    )
    .unwrap();
    assert!(matches!(earlier(&old, &new, &live).unwrap(), Earlier::Nothing));
}

#[test]
fn a_document_kept_as_issued_counts_once_in_its_sets_figures() {
    let mut kept = accepted("A-1", U1);
    kept.first_line = None;
    kept.rows = 0;
    let mut valid = DocumentRecord::new("A-1", RowStatus::Valid);
    valid.kind = "invoice".into();
    let mut note = DocumentRecord::new("A-1", RowStatus::Valid);
    note.kind = "credit_note".into();
    let other = DocumentRecord::new("B-2", RowStatus::Invalid);
    // Rows that made no document, and no number: always counted.
    let stray = DocumentRecord::new("", RowStatus::Invalid);
    let records = [valid.clone(), note, other, stray, kept.clone()];
    assert_eq!(counted_in_set(&records), [false, true, true, true, true]);
    // An accepted record with rows is issued in this set: two documents under one number in one
    // export stay two.
    let issued_here = accepted("A-1", U2);
    assert!(!is_kept(&issued_here) && is_kept(&kept));
    assert_eq!(counted_in_set(&[valid.clone(), issued_here]), [true, true]);
    // A second accepted record of the number (issued twice) is not superseded.
    assert_eq!(counted_in_set(&[kept.clone(), accepted("A-1", U2)]), [true, true]);
}

//! A character XML cannot hold (a vertical tab, as some ERPs export a line break typed in a
//! multi-line cell) in a text cell, through the real binary and a sandbox on loopback: in a
//! description it is replaced by a space, said on that row and column (`INV-MAP-CHAR`, a
//! warning), and the document is issued and passes the authority's validator; in a document
//! number it is an error on its cell, and `check` says so before anything is sent.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// A Xero export of 2 documents of 2 lines each, `edit` applied to its text.
fn export(path: &Path, edit: impl Fn(String) -> String) {
    xero_export_lines(path, 2, 2);
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, edit(text)).unwrap();
}

#[test]
fn a_vertical_tab_in_a_description_is_replaced_said_on_its_cell_and_the_document_issued() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    // Line 5 of the file: T-00002's second line, "كتاب | Book 2".
    export(&d.join("a.csv"), |t| {
        let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
        assert!(
            lines[4].contains("T-00002,") && lines[4].contains("Book 2"),
            "{}",
            lines[4]
        );
        lines[4] = lines[4].replace("Book 2", "Bo\u{B}ok 2");
        lines.join("\n") + "\n"
    });
    let o = run(d, &env, &["run", "a.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(server.accepted(), 2, "{out}");
    let rows = results(&d.join("r/a.result.csv"));
    assert_eq!(rows.len(), 4);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
        let said = r["result_warnings"].contains("INV-MAP-CHAR");
        assert_eq!(said, i == 3, "row {i} (line {}): {r:?}", i + 2);
    }
    let warning = &rows[3]["result_warnings"];
    assert!(
        warning.contains(
            "INV-MAP-CHAR Description \"كتاب | Bo<U+000B>ok 2\": the character U+000B (a vertical tab) cannot appear \
             in the document's XML (the API would refuse the document): replaced by a space, the text is issued as \
             \"كتاب | Bo ok 2\"; clean this text in the ERP"
        ),
        "{warning}"
    );
    let xml_path = d.join("r").join(&rows[3]["result_xml_file"]);
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    assert!(xml.contains("<cbc:Name>كتاب | Bo ok 2</cbc:Name>"), "{xml}");
    authority_accepts(&[xml_path], false);
}

#[test]
fn a_control_character_in_a_document_number_is_an_error_on_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    export(&d.join("b.csv"), |t| t.replace("T-00002,", "T-0\u{1}0002,"));
    let o = run(d, &[], &["check", "b.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let rows = results(&d.join("r/b.result.csv"));
    assert_eq!(
        rows.iter().map(|r| r["result_status"].as_str()).collect::<Vec<_>>(),
        ["valid", "valid", "invalid", "invalid"]
    );
    assert!(
        rows[2]["result_errors"].contains(
            "INV-MAP-CHAR InvoiceNumber \"T-0<U+0001>0002\": the character U+0001 (a control character) cannot \
             appear in the document's XML (the API would refuse the document), and number is a number, identifier \
             or code, which is issued as the ERP has it, never changed: correct it in the ERP and export again"
        ),
        "{:?}",
        rows[2]
    );
}

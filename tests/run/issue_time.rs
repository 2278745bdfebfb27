//! An issue date whose cell gives a time after the date (`05/11/2026 14:30`, as ERPs that export
//! a date-time write it) is issued at that time, not at midnight: in the XML's `cbc:IssueTime`,
//! the XML file's name and the documents file. A date alone is issued at midnight, as before.

use super::support::*;
use chrono::{FixedOffset, Utc};
use invoicedrop::sandbox::SandboxConfig;

#[test]
fn the_time_after_the_issue_date_in_its_cell_is_the_issue_time() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let path = d.join("a.csv");
    xero_export(&path, 2);
    // T-00001's InvoiceDate with a time of day already past in Riyadh (a time later today
    // would be an invoice issued in the future).
    let riyadh = Utc::now().with_timezone(&FixedOffset::east_opt(3 * 3600).unwrap());
    let today = riyadh.format("%d/%m/%Y").to_string();
    let time = riyadh.format("%H:%M").to_string();
    let t = std::fs::read_to_string(&path).unwrap();
    let edited = t.replacen(&format!(",T-00001,,{today},"), &format!(",T-00001,,{today} {time},"), 1);
    assert_ne!(edited, t);
    std::fs::write(&path, edited).unwrap();
    let o = run(d, &env, &["run", "a.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(server.accepted(), 2, "{out}");

    let docs = results(&d.join("r/a.documents.csv"));
    let doc = |n: &str| {
        docs.iter()
            .find(|r| r["document"] == n)
            .unwrap_or_else(|| panic!("{n}: {docs:?}"))
    };
    assert_eq!(doc("T-00001")["issue_time"], format!("{time}:00"), "{docs:?}");
    assert_eq!(doc("T-00002")["issue_time"], "00:00:00", "{docs:?}");

    let rows = results(&d.join("r/a.result.csv"));
    let xml_name = &rows[0]["result_xml_file"];
    assert!(xml_name.contains(&time.replace(':', "")), "{xml_name}");
    let xml = std::fs::read_to_string(d.join("r").join(xml_name)).unwrap();
    assert!(
        xml.contains(&format!("<cbc:IssueTime>{time}:00</cbc:IssueTime>")),
        "{xml}"
    );
}

/// An export issued at midnight (a date alone), then given again with a time after the date (as
/// an earlier build issued such an export): nothing is sent again, and the conflict names the
/// issue time.
#[test]
fn a_document_issued_at_midnight_and_given_again_with_a_time_is_not_sent_again() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let path = d.join("a.csv");
    xero_export(&path, 1);
    let o = run(d, &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 1);
    let before = requests(&server);

    let t = std::fs::read_to_string(&path).unwrap();
    let today = t.lines().nth(1).unwrap().split(',').nth(20).unwrap().to_string();
    let edited = t.replacen(&format!(",{today},"), &format!(",{today} 00:01,"), 1);
    assert_ne!(edited, t);
    std::fs::write(&path, edited).unwrap();
    let o = run(d, &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(requests(&server), before, "nothing was sent: {out}");
    assert_eq!(server.accepted(), 1);
    let rows = results(&d.join("results/a.result.csv"));
    assert_eq!(rows[0]["result_status"], "accepted", "{:?}", rows[0]);
    let said = &rows[0]["result_errors"];
    assert!(
        said.starts_with("INV-LEDGER-CONFLICT: invoice T-00001 is issued"),
        "{said}"
    );
    assert!(said.contains("issue_time"), "{said}");
}

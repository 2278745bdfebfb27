//! A second device onboarded into a state folder that already issued documents: the numbers the
//! first device issued are not issued again by the second (the authority sees one seller and one
//! invoice number), whether the export is the same, changed, or dropped again; new numbers go
//! through the new device.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;
use std::collections::BTreeMap;
use std::path::Path;

/// number → (status, uuid, errors) of the result file `results/a.result.csv`.
fn outcome(dir: &Path) -> BTreeMap<String, (String, String, String)> {
    results(&dir.join("results/a.result.csv"))
        .into_iter()
        .map(|r| {
            (
                r["result_document"].clone(),
                (
                    r["result_status"].clone(),
                    r["result_uuid"].clone(),
                    r["result_errors"].clone(),
                ),
            )
        })
        .collect()
}

#[test]
fn numbers_issued_by_the_previous_device_are_not_issued_again_by_the_new_one() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join(".invoicedrop");
    onboard_as(dir.path(), &env, "till-1");
    let first = onboard_id(&state);
    let a = dir.path().join("a.csv");
    xero_export(&a, 3);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let issued = outcome(dir.path());
    assert_eq!(issued.len(), 3);
    assert!(
        issued.values().all(|(s, u, _)| s == "accepted" && !u.is_empty()),
        "{issued:?}"
    );

    // The till is replaced: a new device, the same state folder. onboard says what it replaced.
    let said = onboard_as(dir.path(), &env, "till-2");
    let second = onboard_id(&state);
    assert_ne!(first, second);
    assert!(
        said.contains(&first) && said.contains("replaces") && said.contains("are not issued again"),
        "onboard names the device it replaces: {said}"
    );

    // The same export again: every document is reported as issued (its UUID from the first
    // device), and the new device sends nothing.
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(outcome(dir.path()), issued, "reported from the ledger, unchanged");
    assert!(server.issued(&second).is_empty(), "{:?}", server.issued(&second));
    assert_eq!(server.issued(&first).len(), 3);

    // One invoice changed, one new: the changed one is an issued document with a conflict, the
    // new number goes through the new device.
    let text_a = std::fs::read_to_string(&a).unwrap();
    let changed = text_a.replacen("Walk-in customer 2,", "Walk-in customer two,", 1);
    assert_ne!(changed, text_a);
    std::fs::write(&a, changed).unwrap();
    xero_export(&dir.path().join("b.csv"), 4);
    let b = std::fs::read_to_string(dir.path().join("b.csv")).unwrap();
    let fourth = b.lines().last().unwrap();
    std::fs::write(&a, format!("{}{fourth}\n", std::fs::read_to_string(&a).unwrap())).unwrap();
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(1), "a conflict: {}", text(&o));
    let now = outcome(dir.path());
    let (status, uuid, errors) = &now["T-00002"];
    assert_eq!(status, "accepted", "{now:?}");
    assert_eq!(uuid, &issued["T-00002"].1, "the issued UUID");
    assert!(errors.contains("INV-LEDGER-CONFLICT"), "{errors}");
    assert_eq!(now["T-00004"].0, "accepted", "{now:?}");
    assert_eq!(server.issued(&second), vec!["T-00004"]);
    assert_eq!(server.issued(&first).len(), 3);
}

#[test]
fn a_document_reported_from_the_ledger_keeps_the_time_it_was_accepted() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard_as(dir.path(), &env, "till-1");
    xero_export(&dir.path().join("a.csv"), 2);
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // As if accepted long ago: the ledger's time of the acceptance.
    backdate_acceptance(&dir.path().join(".invoicedrop"), "T-00001");
    let o = run(dir.path(), &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rows = results(&dir.path().join("results/a.result.csv"));
    let time = |number: &str| {
        rows.iter()
            .find(|r| r["result_document"] == number)
            .map(|r| r["result_time"].clone())
            .unwrap()
    };
    assert_eq!(time("T-00001"), "2026-01-02T03:04:05Z");
    assert!(time("T-00002").starts_with("20") && time("T-00002") != "2026-01-02T03:04:05Z");
}

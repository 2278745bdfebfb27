//! D7 and D21 before sending: a document the device may not issue (a type it was not onboarded
//! for, another seller's VAT number) is `invalid` in the result file, with what to fix, and never
//! reaches the sandbox nor the ledger. When the device's VAT number and type are not known, the
//! run says so once and sends.

use super::support::*;
use invoicedrop::model::DocumentKind;
use invoicedrop::sandbox::SandboxConfig;
use invoicedrop::submit::{DocumentKey, Ledger, RememberedDevice};
use std::path::Path;

/// The Sage 50 sample: SI-1001 (standard invoice), SI-1002 (simplified invoice, two rows) and
/// SCN-2001 (standard credit note). Its lookup files are beside it.
fn sage50() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/sage50_invoices.csv")
        .to_string_lossy()
        .into_owned()
}

/// The device remembered in `state` (onboarded through the binary).
fn remembered(state: &Path) -> RememberedDevice {
    Ledger::open(state)
        .unwrap()
        .remembered_device()
        .unwrap()
        .expect("a device is remembered")
}

/// Whether the ledger of `state` holds a document of the device.
fn in_ledger(state: &Path, onboard_id: &str, kind: DocumentKind, number: &str) -> bool {
    let key = DocumentKey {
        onboard_id: onboard_id.to_string(),
        kind,
        number: number.to_string(),
    };
    Ledger::open(state).unwrap().get(&key).unwrap().is_some()
}

#[test]
fn a_standard_only_device_sends_no_simplified_document_and_says_what_to_do() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard_standard_only(dir.path(), &env, "qa-7");
    let state = dir.path().join(".invoicedrop");
    let RememberedDevice::Known(device) = remembered(&state) else {
        panic!("the device's VAT number and type are not remembered")
    };
    assert_eq!(device.vat_number, invoicedrop::sandbox::DEFAULT_VAT_NUMBER);
    assert_eq!(device.invoice_type, invoicedrop::model::DeviceType::Standard);

    let o = run(dir.path(), &env, &["run", &sage50()]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "an invalid document: {out}");
    assert!(
        !out.contains("checks are skipped") && !out.contains("without checking"),
        "{out}"
    );
    let rows = results(&dir.path().join("results/sage50_invoices.result.csv"));
    let by_number = |n: &str| -> Vec<_> { rows.iter().filter(|r| r["INVOICE_NUMBER"] == n).collect() };
    for r in by_number("SI-1001").into_iter().chain(by_number("SCN-2001")) {
        assert_eq!(r["result_status"], "accepted", "{r:?}");
    }
    let simplified = by_number("SI-1002");
    assert_eq!(simplified.len(), 2);
    for r in simplified {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        assert!(r["result_uuid"].is_empty() && r["result_attempts"] == "0", "{r:?}");
        let errors = &r["result_errors"];
        assert!(
            errors.contains(
                "DEVICE-TYPE-NOT-ALLOWED [invoice_type] \"simplified\": this device (onboarded as standard-only) \
                 may not issue simplified invoices: onboard a simplified-only device (--invoice-type simplified) \
                 in a state folder of its own and send them through it (not --invoice-type both"
            ),
            "{errors}"
        );
    }
    // The summary names the rule too.
    assert!(out.contains("DEVICE-TYPE-NOT-ALLOWED"), "{out}");

    // The sandbox received the two standard documents and nothing else: none rejected, the
    // simplified invoice in no journal; the ledger never registered it.
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), 2, "{stats}");
    assert_eq!(device_count(&stats, "rejections"), 0, "{stats}");
    let mut numbers = server.issued(&device.onboard_id);
    numbers.sort();
    assert_eq!(numbers, vec!["SCN-2001", "SI-1001"]);
    assert!(!in_ledger(&state, &device.onboard_id, DocumentKind::Invoice, "SI-1002"));
    assert!(in_ledger(&state, &device.onboard_id, DocumentKind::Invoice, "SI-1001"));

    // The same device named by INVOICEDROP_ONBOARD_ID is still known: still checked.
    let mut named = env.clone();
    named.push(("INVOICEDROP_ONBOARD_ID", device.onboard_id.clone()));
    let o = run(dir.path(), &named, &["run", &sage50()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!text(&o).contains("without checking"), "{}", text(&o));
    let stats = server.stats_json();
    assert_eq!(
        (device_count(&stats, "accepted"), device_count(&stats, "rejections")),
        (2, 0),
        "{stats}"
    );
}

#[test]
fn a_seller_vat_number_that_is_not_the_devices_is_invalid_and_not_sent() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    onboard(dir.path(), &env);
    std::fs::write(
        dir.path().join("other-seller.toml"),
        "[seller]\nname = \"Test Est.\"\nvat_number = \"301234567890003\"\ncrn = \"1010999999\"\n\
         street = \"Olaya St\"\nbuilding_number = \"1234\"\ndistrict = \"Olaya\"\ncity = \"Riyadh\"\n\
         postal_zone = \"12345\"\n",
    )
    .unwrap();
    xero_export(&dir.path().join("a.csv"), 3);
    let o = run(dir.path(), &env, &["run", "--config", "other-seller.toml", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let rows = results(&dir.path().join("results/a.result.csv"));
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        let errors = &r["result_errors"];
        assert!(
            errors.contains(
                "certificate-permissions (seller profile) \"301234567890003\": the seller VAT number \
                 \"301234567890003\" is not \"399999999900003\", the VAT number this device was onboarded \
                 with: fix the seller's vat_number ([seller] in invoicedrop.toml), or onboard a device for \
                 \"301234567890003\""
            ),
            "{errors}"
        );
    }
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), 0, "{stats}");
    assert_eq!(device_count(&stats, "rejections"), 0, "{stats}");
    let ledger = Ledger::open(&dir.path().join(".invoicedrop")).unwrap();
    assert_eq!(
        ledger.stats().unwrap(),
        Default::default(),
        "nothing was registered to send"
    );
}

#[test]
fn a_device_of_unknown_type_is_not_checked_and_the_run_says_so_once() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let onboarded = tempfile::tempdir().unwrap();
    onboard_standard_only(onboarded.path(), &env, "b2b");
    let onboard_id = remembered(&onboarded.path().join(".invoicedrop"))
        .onboard_id()
        .to_string();
    // Another state folder, the device named by INVOICEDROP_ONBOARD_ID: its type is not known
    // there, so nothing is blocked, and the authority has the last word.
    let dir = tempfile::tempdir().unwrap();
    let mut named = env.clone();
    named.push(("INVOICEDROP_ONBOARD_ID", onboard_id));
    let o = run(dir.path(), &named, &["run", &sage50()]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(
        out.matches("documents are sent without checking them against it")
            .count(),
        1,
        "one note: {out}"
    );
    assert!(out.contains("INVOICEDROP_ONBOARD_ID"), "{out}");
    let rows = results(&dir.path().join("results/sage50_invoices.result.csv"));
    for r in rows.iter().filter(|r| r["INVOICE_NUMBER"] == "SI-1002") {
        assert_eq!(r["result_status"], "rejected", "{r:?}");
        // The authority's code, said once (its text starts with `[CODE] - `).
        let errors = &r["result_errors"];
        assert!(errors.starts_with("DEVICE-TYPE-NOT-ALLOWED: "), "{errors}");
        assert_eq!(errors.matches("DEVICE-TYPE-NOT-ALLOWED").count(), 1, "{errors}");
    }
    let stats = server.stats_json();
    assert_eq!(device_count(&stats, "accepted"), 2, "{stats}");
    assert_eq!(device_count(&stats, "rejections"), 1, "{stats}");
}

//! A simplified (B2C) invoice that is not issued is due within 24 hours of its issue: `run`'s
//! summary, `X.summary.json` and `report` say how many and by when.

use super::support::*;
use chrono::{FixedOffset, TimeDelta, Utc};
use invoicedrop::sandbox::SandboxConfig;
use serde_json::Value;

#[test]
fn an_invalid_simplified_invoice_is_said_with_when_it_is_due() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let a = d.join("a.csv");
    xero_export(&a, 3);
    // T-00002 at a VAT rate the authority does not know: invalid, not sent.
    let original = std::fs::read_to_string(&a).unwrap();
    let bad: Vec<String> = original
        .lines()
        .map(|l| {
            if l.contains(",T-00002,") {
                l.replace("15% Output VAT", "12% VAT")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&a, bad.join("\n") + "\n").unwrap();
    let o = run(d, &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let riyadh = FixedOffset::east_opt(3 * 3600).unwrap();
    let today = Utc::now().with_timezone(&riyadh).date_naive();
    let due = today + TimeDelta::days(1);
    let line = format!(
        "  24 hours: 1 simplified document not issued (1 invalid), the first issued {today} 00:00 (Riyadh time), \
         due by {due} 00:00. Simplified documents are reported within 24 hours of their issue (BR-KSA-98; later, \
         they are still accepted, with that warning): correct it and run again\n"
    );
    assert!(out.contains(&line), "{line}\n{out}");
    let summary: Value = serde_json::from_slice(&std::fs::read(d.join("results/a.summary.json")).unwrap()).unwrap();
    let u = &summary["unreported_simplified"];
    assert_eq!(
        (u["documents"].as_u64(), u["due"].as_str()),
        (Some(1), Some(format!("{due}T00:00:00").as_str())),
        "{summary:#}"
    );
    let o = run(d, &[], &["--json", "report", "results"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summary"]["unreported_simplified"], *u, "{v:#}");

    // Corrected and run again: issued, nothing left to say.
    std::fs::write(&a, original).unwrap();
    let o = run(d, &env, &["run", "a.csv"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("24 hours:"), "{out}");
    let summary: Value = serde_json::from_slice(&std::fs::read(d.join("results/a.summary.json")).unwrap()).unwrap();
    assert!(summary.get("unreported_simplified").is_none(), "{summary:#}");
}

//! Where the built-in sandbox must not stand in for an API, through the real binary and a sandbox
//! on loopback as the API (QA round 8): a state folder whose device was onboarded with an API is
//! never run or watched through the built-in sandbox when the API environment is missing (#1);
//! `onboard` refuses to register the demo company under another VAT number (#3), a `[seller]
//! vat_number` other than the account's (#4), and an OTP with no API configured (#8). Each refusal
//! exits 2 with `error.kind` `config`, says what to do, and sends and writes nothing.

#[allow(dead_code)]
#[path = "run/support.rs"]
mod support;

use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;
use std::process::Output;
use support::*;

const ACCOUNT_VAT: &str = "312345678900003";

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

/// The refusal of `o`: exit 2, `error.kind` `config` with `--json`; its message.
fn config_refusal(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    let v = json(o);
    assert_eq!(v["error"]["kind"], "config", "{v:#}");
    assert_eq!(v["exit_code"], 2, "{v:#}");
    v["error"]["message"].as_str().unwrap().to_string()
}

#[test]
fn a_state_folder_of_an_api_is_not_run_or_watched_through_the_built_in_sandbox() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let id = onboard_id(&d.join(".invoicedrop"));
    xero_export(&d.join("a.csv"), 2);
    let o = run(d, &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(json(&o)["sandbox"], false, "the API was used");
    assert_eq!(server.accepted(), 2);
    let result = std::fs::read(d.join("results/a.result.csv")).unwrap();

    // The API environment lost (cron, systemd without its environment file).
    let o = run(d, &[], &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let out = text(&o);
    for said in [
        ".invoicedrop belongs to an API",
        &format!("onboard_id {id}"),
        "INVOICEDROP_API_URL is not set",
        "give --state another folder to try the built-in sandbox",
    ] {
        assert!(out.contains(said), "{said}: {out}");
    }
    assert!(
        !out.contains("note: no API configured") && !out.contains(SECRET),
        "{out}"
    );
    let message = config_refusal(&run(d, &[], &["--json", "run", "a.csv"]));
    assert!(message.contains(&format!("onboard_id {id}")), "{message}");
    std::fs::create_dir(d.join("inbox")).unwrap();
    let message = config_refusal(&run(d, &[], &["--json", "watch", "inbox"]));
    assert!(message.contains("INVOICEDROP_API_URL is not set"), "{message}");
    // Nothing was written: the API's result file stands, no sandbox state, no inbox folders.
    assert_eq!(std::fs::read(d.join("results/a.result.csv")).unwrap(), result);
    assert!(!d.join(".invoicedrop/sandbox").exists());
    assert!(!d.join("inbox/.processing").exists() && !d.join("inbox/results").exists());
    assert_eq!(server.accepted(), 2);

    // Another state folder tries the built-in sandbox, and --json says so.
    let o = run(
        d,
        &[],
        &["--json", "run", "a.csv", "--state", "try", "--results", "tried"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(json(&o)["sandbox"], true, "{}", text(&o));
    assert_eq!(server.accepted(), 2);
    // And with the environment back, the API's folder runs as before.
    let o = run(d, &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // `check` sends nothing.
    let o = run(d, &[], &["--json", "check", "a.csv", "--results", "checked"]);
    assert_eq!(json(&o)["sandbox"], false, "{}", text(&o));
}

/// The environment of an API account of VAT number `vat`, on `server`.
fn account(server: &Server, vat: &str) -> Vec<(&'static str, String)> {
    let mut env = server.env();
    for (k, v) in env.iter_mut() {
        if *k == "INVOICEDROP_VAT_NUMBER" {
            *v = vat.to_string();
        }
    }
    env
}

fn seller_toml(d: &Path, name: &str, vat: &str) {
    std::fs::write(
        d.join(name),
        format!(
            "[seller]\nname = \"Acme Trading\"\nvat_number = \"{vat}\"\ncrn = \"1010123456\"\nstreet = \"King Fahd Road\"\n\
             building_number = \"1234\"\ndistrict = \"Al Olaya\"\ncity = \"Riyadh\"\npostal_zone = \"12211\"\n"
        ),
    )
    .unwrap();
}

fn onboard_args(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["--json", "onboard", "--otp", "123456", "--device-id", "hq-1"];
    args.extend_from_slice(extra);
    args
}

#[test]
fn onboard_with_an_api_refuses_the_demo_seller_and_a_seller_of_another_vat_number() {
    let server = Server::start(SandboxConfig {
        vat_number: ACCOUNT_VAT.into(),
        ..SandboxConfig::default()
    });
    let env = account(&server, ACCOUNT_VAT);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    // No invoicedrop.toml: the demo company would be registered under the account's number.
    let message = config_refusal(&run(d, &env, &onboard_args(&[])));
    for said in [
        "no configuration (./invoicedrop.toml not found)",
        &format!("demo company's name and address under VAT {ACCOUNT_VAT}"),
        "Add a [seller] table",
        "--config",
    ] {
        assert!(message.contains(said), "{said}: {message}");
    }
    // A file without a [seller] table.
    std::fs::write(d.join("other.toml"), "lookups_dir = \"lookups\"\n").unwrap();
    let message = config_refusal(&run(d, &env, &onboard_args(&["--config", "other.toml"])));
    assert!(message.contains("other.toml has no [seller] table"), "{message}");

    // A [seller] of another VAT number than the account's.
    seller_toml(d, "invoicedrop.toml", "300000000000003");
    let message = config_refusal(&run(d, &env, &onboard_args(&[])));
    for said in [
        "[seller] vat_number in invoicedrop.toml is 300000000000003",
        &format!("(INVOICEDROP_VAT_NUMBER) is {ACCOUNT_VAT}"),
        &format!("If {ACCOUNT_VAT} is your VAT number, fix vat_number in the [seller] table"),
        "if 300000000000003 is, set INVOICEDROP_VAT_NUMBER",
    ] {
        assert!(message.contains(said), "{said}: {message}");
    }
    assert!(server.handle.stats().devices.is_empty(), "nothing was onboarded");
    assert!(!d.join(".invoicedrop").exists(), "no state folder was made");

    // The company's own [seller], without its contact e-mail: refused (an example address would
    // be registered); with it and its industry: onboarded.
    seller_toml(d, "invoicedrop.toml", ACCOUNT_VAT);
    let o = run(d, &env, &onboard_args(&[]));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "usage", "{v:#}");
    assert!(
        v["error"]["message"].as_str().unwrap().starts_with("--email is needed"),
        "{v:#}"
    );
    assert!(server.handle.stats().devices.is_empty(), "nothing was onboarded");
    // Nor without its industry (a default would register every company as retail).
    let o = run(d, &env, &onboard_args(&["--email", "einvoicing@acme.sa"]));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "usage", "{v:#}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("--business-category is needed"),
        "{v:#}"
    );
    assert!(server.handle.stats().devices.is_empty(), "nothing was onboarded");
    let o = run(
        d,
        &env,
        &onboard_args(&["--email", "einvoicing@acme.sa", "--business-category", "Wholesale"]),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.handle.stats().devices.len(), 1);
}

#[test]
fn onboard_without_an_api_sends_the_otp_nowhere_and_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seller_toml(d, "invoicedrop.toml", ACCOUNT_VAT);
    let o = run(d, &[], &["onboard", "--otp", "987654", "--device-id", "branch-1"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let out = text(&o);
    for said in [
        "no API is configured (INVOICEDROP_API_URL is not set)",
        "the OTP was not sent anywhere",
        "`invoicedrop run` without INVOICEDROP_API_URL onboards its own sandbox device",
    ] {
        assert!(out.contains(said), "{said}: {out}");
    }
    assert!(
        !out.contains("new OTP") && !out.contains("built-in sandbox at"),
        "{out}"
    );
    let message = config_refusal(&run(d, &[], &onboard_args(&[])));
    assert!(message.contains("no API is configured"), "{message}");
    assert!(!d.join(".invoicedrop").exists(), "no state folder was made");
}

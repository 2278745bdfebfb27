//! Slips in the API environment, through the real binary against the real sandbox on loopback:
//! the secret itself set in `INVOICEDROP_SECRET_FILE` (instead of `INVOICEDROP_SECRET`) is never
//! shown, on stderr, in `--json` or in the logs at TRACE, by `run` or `onboard`; a secret with
//! the CR of an env file saved with CRLF signs in; a malformed `INVOICEDROP_VAT_NUMBER` is refused
//! before anything is sent, naming the variable; plain http to a host other than loopback is
//! refused naming `--insecure`.

#[allow(dead_code)]
#[path = "run/support.rs"]
mod support;

use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;
use support::*;

/// The environment of `server` with `INVOICEDROP_SECRET` replaced by `var=value`.
fn env_with(server: &Server, var: &'static str, value: &str) -> Vec<(&'static str, String)> {
    let mut env: Vec<(&'static str, String)> = server
        .env()
        .into_iter()
        .filter(|(k, _)| *k != "INVOICEDROP_SECRET" && *k != var)
        .collect();
    env.push((var, value.to_string()));
    if var != "INVOICEDROP_SECRET" && var != "INVOICEDROP_SECRET_FILE" {
        env.push(("INVOICEDROP_SECRET", SECRET.into()));
    }
    env
}

/// Run the binary at TRACE with `-vv` (and `--json` when `json`): exit code, stdout, stderr.
fn run_traced(dir: &Path, env: &[(&str, String)], json: bool, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["-vv"];
    if json {
        all.push("--json");
    }
    all.extend_from_slice(args);
    let mut cmd = command(dir, env, &all);
    cmd.env("RUST_LOG", "trace");
    let o = cmd.output().expect("the binary runs");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The `error` object of a `--json` document.
fn json_error(stdout: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v["error"].clone()
}

#[test]
fn the_secret_set_as_the_secret_file_is_never_shown() {
    const SECRET_AS_FILE: &str = "Sup3r-S3cret-Value";
    let server = Server::start(SandboxConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &server.env());
    xero_export(&d.join("a.csv"), 2);
    let env = env_with(&server, "INVOICEDROP_SECRET_FILE", SECRET_AS_FILE);
    let expected = "INVOICEDROP_SECRET_FILE does not name a file that can be read (No such file or directory \
                    (os error 2)): it must hold the path of a file containing the API secret, not the secret itself \
                    (put the secret in INVOICEDROP_SECRET instead); its value is not shown";
    let onboard_args = ["onboard", "--otp", "123456", "--device-id", "d2", "--state", "st2"];
    for (json, args) in [
        (false, &["run", "a.csv"][..]),
        (true, &["run", "a.csv"][..]),
        (false, &onboard_args[..]),
        (true, &onboard_args[..]),
    ] {
        let (code, stdout, stderr) = run_traced(d, &env, json, args);
        let all = format!("{stdout}{stderr}");
        assert_eq!(code, Some(2), "{args:?}: {all}");
        assert!(!all.contains(SECRET_AS_FILE), "{args:?} shows the secret:\n{all}");
        if json {
            let error = json_error(&stdout);
            assert_eq!(error["kind"], "credentials", "{error:#}");
            assert!(error["message"].as_str().unwrap().contains(expected), "{error:#}");
        } else {
            assert!(stderr.contains(expected), "{args:?}: {stderr}");
        }
    }
    assert_eq!(server.accepted(), 0, "nothing was sent");
}

#[test]
fn a_secret_ending_in_a_cr_signs_in_and_a_malformed_vat_number_is_refused_before_sending() {
    let server = Server::start(SandboxConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &server.env());
    xero_export(&d.join("a.csv"), 2);

    for vat in ["3999-9999-9900003", "39999999990000"] {
        let env = env_with(&server, "INVOICEDROP_VAT_NUMBER", vat);
        let (code, stdout, stderr) = run_traced(d, &env, true, &["run", "a.csv"]);
        assert_eq!(code, Some(2), "{stdout}{stderr}");
        let error = json_error(&stdout);
        assert_eq!(error["kind"], "credentials", "{error:#}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(
                "INVOICEDROP_VAT_NUMBER is not a VAT number: it must hold the organisation's 15-digit VAT number"
            ) && !message.contains("rejected"),
            "{message}"
        );
    }
    assert_eq!(requests(&server), (0, 0, 0), "nothing was sent");

    let env = env_with(&server, "INVOICEDROP_SECRET", &format!("{SECRET}\r"));
    let o = run(d, &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 2);
}

#[test]
fn plain_http_to_another_host_is_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    xero_export(&d.join("a.csv"), 1);
    let env = vec![
        ("INVOICEDROP_API_URL", "http://10.1.2.3:8080".to_string()),
        (
            "INVOICEDROP_VAT_NUMBER",
            invoicedrop::sandbox::DEFAULT_VAT_NUMBER.into(),
        ),
        ("INVOICEDROP_USERNAME", "u".into()),
        ("INVOICEDROP_SECRET", SECRET.into()),
        ("INVOICEDROP_ONBOARD_ID", "MTozOTk5OTk5OTk5MDAwMDM6ZA==".into()),
    ];
    let o = run(d, &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let error = json_error(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(error["kind"], "config", "{error:#}");
    assert!(
        error["message"].as_str().unwrap().contains(
            "refusing to send credentials over plain http to 10.1.2.3: use an https:// URL in INVOICEDROP_API_URL, \
             or, if this host really is on a trusted network, pass --insecure to allow plain http to it"
        ),
        "{error:#}"
    );
}

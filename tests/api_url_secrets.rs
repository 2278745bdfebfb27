//! A user name and password written into `INVOICEDROP_API_URL` (`https://svc:PASSWORD@host`)
//! are refused before anything is sent (the API is signed into with the username and secret; a
//! user-info would go as a second login with every request), and never shown, through the real
//! binary: not on stderr, not in `--json`, not in the logs at TRACE, not in the result files or
//! the state folder. The URL is named with its user-info replaced by `***`
//! (`http://***@127.0.0.1:PORT`). `run`, `run --json` and `onboard`, against an address where
//! nothing listens and against the real sandbox on loopback.

#[allow(dead_code)]
#[path = "run/support.rs"]
mod support;

use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;
use support::*;

const PASSWORD: &str = "TopSecretPw-9xQ";

/// `http://svc:PASSWORD@host:port` for a base URL `http://host:port`.
fn with_user_info(base: &str) -> String {
    base.replacen("http://", &format!("http://svc:{PASSWORD}@"), 1)
}

/// The environment of `server` (or of any `url`), with the URL given.
fn env_with_url(url: String, secret: &str) -> Vec<(&'static str, String)> {
    vec![
        ("INVOICEDROP_API_URL", url),
        (
            "INVOICEDROP_VAT_NUMBER",
            invoicedrop::sandbox::DEFAULT_VAT_NUMBER.into(),
        ),
        ("INVOICEDROP_USERNAME", invoicedrop::sandbox::DEFAULT_USERNAME.into()),
        ("INVOICEDROP_SECRET", secret.into()),
    ]
}

/// Every file under `dir`, read as bytes: none holds the password.
fn assert_no_password_in_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            assert_no_password_in_files(&path);
        } else {
            let bytes = std::fs::read(&path).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(PASSWORD), "{} holds the password", path.display());
        }
    }
}

/// Run the binary at TRACE with `-vv`: its whole output, which never holds the password.
fn run_traced(dir: &Path, env: &[(&str, String)], args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["-vv"];
    all.extend_from_slice(args);
    let mut cmd = command(dir, env, &all);
    cmd.env("RUST_LOG", "trace");
    let o = cmd.output().expect("the binary runs");
    let out = text(&o);
    assert!(!out.contains(PASSWORD), "the password was printed by {args:?}:\n{out}");
    (o.status.code(), out)
}

/// The refusal of a URL with a user-info, as `shown`.
fn refusal(shown: &str) -> String {
    format!(
        "the API URL `{shown}` carries a user name or password (before the @): the API is signed into with \
         INVOICEDROP_USERNAME and the secret, and a user-info would be sent as a second login with every request \
         (which the API refuses); remove it from INVOICEDROP_API_URL"
    )
}

/// `run`, `run --json` and `onboard` with `url` refuse it, naming it as `shown`, and write no
/// file holding the password.
fn refused_everywhere(d: &Path, url: &str, shown: &str) {
    let mut env = env_with_url(url.to_string(), SECRET);
    env.push(("INVOICEDROP_ONBOARD_ID", "MTozOTk5OTk5OTk5MDAwMDM6ZA==".into()));
    let (code, out) = run_traced(d, &env, &["run", "a.csv"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains(&refusal(shown)), "{out}");

    let o = run(d, &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&refusal(shown)), "{v:#}");
    assert!(!text(&o).contains(PASSWORD), "{}", text(&o));

    let (code, out) = run_traced(
        d,
        &env,
        &["onboard", "--otp", "123456", "--device-id", "d1", "--state", "st2"],
    );
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains(&refusal(shown)), "{out}");
    assert_no_password_in_files(d);
}

#[test]
fn a_url_with_a_password_is_refused_and_named_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    xero_export(&d.join("a.csv"), 2);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    refused_everywhere(
        d,
        &with_user_info(&format!("http://{addr}")),
        &format!("http://***@{addr}"),
    );
}

#[test]
fn against_the_sandbox_a_url_with_a_password_sends_nothing_and_no_file_holds_it() {
    let server = Server::start(SandboxConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &server.env());
    xero_export(&d.join("a.csv"), 3);
    let shown = server.handle.base_url().replacen("http://", "http://***@", 1);
    refused_everywhere(d, &with_user_info(&server.handle.base_url()), &shown);
    assert_eq!(server.accepted(), 0, "nothing was sent");
    // The same URL without its user-info: sent as usual.
    let o = run(d, &server.env(), &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 3);
}

//! A user name and password written into `INVOICEDROP_API_URL` (`https://svc:PASSWORD@host`)
//! are never shown, through the real binary: not on stderr, not in `--json`, not in the logs at
//! TRACE, not in the result files or the state folder. Every URL is shown with its user-info
//! replaced by `***` (`http://***@127.0.0.1:PORT/...`). An API that cannot be reached (`run`,
//! `run --json`, `onboard`), and the real sandbox on loopback.

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

#[test]
fn an_unreachable_api_is_named_without_the_password_of_its_url() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    xero_export(&d.join("a.csv"), 2);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut env = env_with_url(with_user_info(&format!("http://{addr}")), SECRET);
    env.push(("INVOICEDROP_ONBOARD_ID", "MTozOTk5OTk5OTk5MDAwMDM6ZA==".into()));
    let shown = format!("http://***@{addr}/v1/e-invoicing/auth");

    let (code, out) = run_traced(d, &env, &["run", "a.csv"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains(&format!("cannot reach the API at {shown}")), "{out}");

    let o = run(d, &env, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(v["error"]["kind"], "unreachable", "{v:#}");
    assert!(message.contains(&shown) && !message.contains(PASSWORD), "{message}");
    assert!(!text(&o).contains(PASSWORD), "{}", text(&o));

    let (code, out) = run_traced(
        d,
        &env,
        &["onboard", "--otp", "123456", "--device-id", "d1", "--state", "st2"],
    );
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains(&shown), "{out}");
    assert_no_password_in_files(d);
}

#[test]
fn against_the_sandbox_no_output_log_result_or_state_file_holds_the_password_of_the_url() {
    let server = Server::start(SandboxConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &server.env());
    xero_export(&d.join("a.csv"), 3);
    let url = with_user_info(&server.handle.base_url());
    let shown = server.handle.base_url().replacen("http://", "http://***@", 1);

    // The requests are logged at TRACE with their URL, shown without the password.
    let env = env_with_url(url.clone(), SECRET);
    let (_, out) = run_traced(d, &env, &["run", "a.csv"]);
    assert!(out.contains(&shown), "the URL is logged, its user-info hidden:\n{out}");
    let o = run(d, &env, &["--json", "run", "a.csv"]);
    assert!(!text(&o).contains(PASSWORD), "{}", text(&o));

    // Credentials refused: the message names the auth URL, without the password.
    let wrong = env_with_url(url, "not-the-secret");
    let (code, out) = run_traced(d, &wrong, &["run", "a.csv"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(&format!("credentials rejected by {shown}/v1/e-invoicing/auth")),
        "{out}"
    );
    let o = run(d, &wrong, &["--json", "run", "a.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!text(&o).contains(PASSWORD), "{}", text(&o));
    assert_no_password_in_files(d);
}

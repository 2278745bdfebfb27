//! The `invoicedrop sandbox` binary: its help, its request log, SIGTERM.

use super::common::*;
use clap::CommandFactory;
use invoicedrop::cli::Cli;
use invoicedrop::model::example;
use invoicedrop::sandbox;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::Duration;

#[test]
fn sandbox_help_documents_every_flag() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(["sandbox", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Help text may be wrapped and indented: compare with the whitespace collapsed.
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let help = words(&text);
    // Every argument clap knows for `sandbox`, the global ones and --help included.
    let mut cli = Cli::command();
    cli.build();
    let command = cli.find_subcommand("sandbox").expect("a sandbox subcommand");
    let mut flags = Vec::new();
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        let flag = arg
            .get_long()
            .map(|l| format!("--{l}"))
            .unwrap_or_else(|| panic!("`{id}` has no long flag"));
        let doc = arg.get_help().map(|h| words(&h.to_string())).unwrap_or_default();
        assert!(!doc.is_empty(), "{flag} has no help text");
        // The whole flag, not the start of a longer one (`--delay` in `--delay-ms`).
        let shown = help
            .match_indices(&flag)
            .any(|(at, _)| !help[at + flag.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_'));
        assert!(shown, "{flag} is not in the help:\n{text}");
        assert!(
            help.contains(&doc),
            "the help of {flag} ({doc:?}) is not shown:\n{text}"
        );
        flags.push(flag);
    }
    for known in ["--port", "--state", "--fail-rate", "--otp", "--help"] {
        assert!(flags.iter().any(|f| f == known), "{known} not among {flags:?}");
    }
    // The secret is never a flag: the help names its environment variable instead.
    assert!(!flags.iter().any(|f| f.contains("secret")), "{flags:?}");
    assert!(text.contains(sandbox::SECRET_ENV), "{text}");
    assert_eq!(sandbox::SECRET_ENV, "INVOICEDROP_SANDBOX_SECRET");
}

#[test]
fn the_binary_logs_each_request_without_tokens_or_secrets_and_stops_on_sigterm() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;

    let secret = "env-secret-5be1c9";
    let otp = "otp-77e04a";
    let mut child = Command::new(env!("CARGO_BIN_EXE_invoicedrop"))
        .args(["-v", "sandbox", "--port", "0", "--otp", otp])
        .env(sandbox::SECRET_ENV, secret)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines_tx, lines) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let first = lines.recv_timeout(Duration::from_secs(60)).expect("the banner");
    let url = first.split_whitespace().last().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{first}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let token = runtime.block_on(async {
        let http = client();
        let auth = |secret: &str| {
            http.post(format!("{url}/v1/e-invoicing/auth"))
                .json(&json!({"vat_number": "399999999900003", "username": "sandbox", "secret": secret}))
                .send()
        };
        assert_eq!(auth("sandbox-secret").await.unwrap().status(), StatusCode::UNAUTHORIZED);
        let v: Value = auth(secret).await.unwrap().json().await.unwrap();
        let token = v["token"].as_str().unwrap().to_string();
        let mut onboarding = Api::onboarding("till-1", "both");
        onboarding["otp"] = json!(otp);
        let r = http
            .post(format!("{url}/v1/e-invoicing/onboardings"))
            .bearer_auth(&token)
            .json(&onboarding)
            .send()
            .await
            .unwrap();
        let v: Value = r.json().await.unwrap();
        let id = v["onboard_id"].as_str().unwrap().to_string();
        let r = http
            .post(format!("{url}/v1/e-invoicing/{}/invoices", segment(&id)))
            .bearer_auth(&token)
            .json(&body(&ready(example::standard_invoice("LOG-1"))))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        token
    });

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let (done_tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(child.wait());
    });
    let status = done
        .recv_timeout(Duration::from_secs(30))
        .expect("the sandbox stops on SIGTERM")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let stdout: Vec<String> = std::iter::once(first).chain(lines.try_iter()).collect();
    let stdout = stdout.join("\n");
    let log = log.join().unwrap();

    for line in [
        "POST /v1/e-invoicing/auth 401",
        "POST /v1/e-invoicing/auth 200",
        "POST /v1/e-invoicing/onboardings 200",
        "/invoices 200",
    ] {
        assert!(log.contains(line), "{line:?} not logged:\n{log}");
    }
    assert!(
        log.lines().any(|l| l.contains("/invoices 200") && l.contains("ms")),
        "{log}"
    );
    for hidden in [token.as_str(), secret, otp, "Bearer"] {
        assert!(!log.contains(hidden), "{hidden:?} in the log:\n{log}");
    }
    assert!(
        !stdout.contains(secret),
        "the secret from the environment is not printed:\n{stdout}"
    );
    assert!(stdout.contains(sandbox::SECRET_ENV), "{stdout}");
}

//! Command lines refused before anything starts, through the real binary (and the real sandbox on
//! loopback where the API is involved): paths that are not there or hold no export (`run`,
//! `check`, `report`), an unknown mapping, named as the command line gave it, and `--rate 0`,
//! `--concurrency 0`, `--timeout 0` (no limit is `--rate unlimited`), an `invoicedrop.toml` with an
//! unknown key or a seller-profile mistake. Each says once what is wrong and what to do, exits 2,
//! prints no total, and sends nothing.

#[allow(dead_code)]
#[path = "run/support.rs"]
mod support;

use invoicedrop::sandbox::SandboxConfig;
use std::process::Output;
use support::*;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one `error: ` line of stderr; fails when there is none or more than one.
fn one_error(o: &Output) -> String {
    let errors: Vec<String> = stderr(o)
        .lines()
        .filter(|l| l.starts_with("error: "))
        .map(str::to_string)
        .collect();
    assert_eq!(errors.len(), 1, "one error: {}", text(o));
    errors.into_iter().next().unwrap()
}

#[test]
fn a_path_that_is_not_there_is_said_once_and_nothing_starts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // No API configured: `run` would start (and onboard with) the built-in sandbox.
    let o = run(d, &[], &["run", "/nonexistent", "--results", "r", "--state", "s"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = one_error(&o);
    assert!(
        e.starts_with("error: /nonexistent: no such file or folder. Give the export files")
            && e.ends_with("nothing was started or sent")
            && !e.contains("to check"),
        "{e}"
    );
    assert!(!text(&o).contains("built-in sandbox"), "{}", text(&o));
    assert!(stdout(&o).is_empty(), "no total: {}", stdout(&o));
    assert!(!d.join("s").exists() && !d.join("r").exists(), "nothing was made");

    let o = run(d, &[], &["--json", "run", "/nonexistent", "--state", "s"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "usage", "{v:#}");
    assert!(!d.join("s").exists());

    let o = run(d, &[], &["check", "missing.csv", "/nonexistent"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = one_error(&o);
    assert!(
        e.contains("none of the 2 paths given can be used: missing.csv: no such file or folder; /nonexistent")
            && e.contains(&format!("relative paths are read from {}", d.display()))
            && e.ends_with("nothing was checked"),
        "{e}"
    );
    assert!(stdout(&o).is_empty(), "no total: {}", stdout(&o));

    // A folder without an export: said in run's own words, before the sandbox starts.
    std::fs::create_dir(d.join("empty")).unwrap();
    let o = run(d, &[], &["run", "empty", "--state", "s"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = one_error(&o);
    assert!(e.starts_with("error: no export to issue in empty: "), "{e}");
    assert!(!d.join("s").exists() && stdout(&o).is_empty(), "{}", text(&o));

    let o = run(d, &[], &["report", "/nonexistent"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        one_error(&o).starts_with("error: /nonexistent: no such folder: "),
        "{}",
        text(&o)
    );
}

#[test]
fn with_a_path_not_there_run_sends_nothing_even_of_the_paths_that_are() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    xero_export(&d.join("a.csv"), 2);
    let o = run(d, &env, &["run", "a.csv", "b.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        one_error(&o).starts_with("error: b.csv: no such file or folder. "),
        "{}",
        text(&o)
    );
    assert!(!d.join("results").exists(), "{}", text(&o));
    assert_eq!(server.accepted(), 0);
    let o = run(d, &env, &["run", "a.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 2);
}

#[test]
fn an_unknown_mapping_is_named_as_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = run(d, &[], &["mappings", "show", "nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let e = one_error(&o);
    assert!(
        e.starts_with("error: mappings show \"nope\": no bundled mapping has this name") && !e.contains("--mapping"),
        "{e}"
    );
    xero_export(&d.join("a.csv"), 1);
    let o = run(d, &[], &["run", "a.csv", "--mapping", "nope", "--state", "s"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(one_error(&o).starts_with("error: --mapping \"nope\": "), "{}", text(&o));
    assert!(!d.join("s").exists(), "the sandbox was not started: {}", text(&o));
}

#[test]
fn zero_rate_concurrency_or_timeout_is_refused_and_no_limit_is_asked_for_in_words() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    xero_export(&d.join("a.csv"), 2);
    for (flag, range) in [
        ("--rate", "give 1 to 10000, or `unlimited`"),
        ("--concurrency", "expected 1 to 256 requests in flight at once"),
        ("--timeout", "expected 1 to 3600 seconds"),
    ] {
        for command in ["run", "watch"] {
            let target = if command == "run" { "a.csv" } else { "." };
            let o = run(d, &env, &[command, target, flag, "0"]);
            assert_eq!(o.status.code(), Some(2), "{}", text(&o));
            let e = one_error(&o);
            assert!(
                e.contains(&format!("invalid value '0' for '{flag}")) && e.contains(range),
                "{e}"
            );
        }
    }
    assert_eq!(server.accepted(), 0);
    let help = stdout(&run(d, &[], &["run", "--help"]));
    assert!(
        help.contains("--rate <N|unlimited>") && help.contains("0 is refused") && help.contains("1 to 256"),
        "{help}"
    );
    let o = run(d, &env, &["run", "a.csv", "--rate", "unlimited"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.accepted(), 2);
}

#[test]
fn a_configuration_with_an_unknown_key_or_a_seller_mistake_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    xero_export(&d.join("a.csv"), 1);
    let seller = "[seller]\nname = \"Acme Trading\"\nvat_number = \"312345678900003\"\ncrn = \"1010123456\"\n\
                  building_number = \"1234\"\npostal_zone = \"12211\"\n";
    let cases = [
        (
            format!("lookup_dir = \"lookups\"\n{seller}"),
            "error: invoicedrop.toml:1:1: unknown key lookup_dir; did you mean lookups_dir?",
        ),
        (
            seller.replace("\"1234\"", "\"12\""),
            "error: invoicedrop.toml:5:19: [seller] building_number: \"12\": a Saudi national address's building \
             number is 4 digits",
        ),
    ];
    for (toml, said) in cases {
        std::fs::write(d.join("invoicedrop.toml"), &toml).unwrap();
        // `onboard` needs an API configured before it reads the configuration (none is reached:
        // the configuration is refused first).
        let api = [("INVOICEDROP_API_URL", "http://127.0.0.1:9".to_string())];
        for (args, env) in [
            (&["check", "a.csv"][..], &[][..]),
            (&["run", "a.csv", "--state", "s"], &[]),
            (
                &["onboard", "--otp", "123456", "--device-id", "d1", "--state", "s"],
                &api,
            ),
        ] {
            let o = run(d, env, args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            assert!(!d.join("results").exists(), "{args:?} left a results folder behind");
            assert!(one_error(&o).starts_with(said), "{args:?}: {}", text(&o));
            assert!(stdout(&o).is_empty(), "no total: {}", stdout(&o));
            assert!(!text(&o).contains("built-in sandbox"), "{}", text(&o));
            let json: Vec<&str> = [&["--json"][..], args].concat();
            let o = run(d, env, &json);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["error"]["kind"], "config", "{v:#}");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with(&said["error: ".len()..]),
                "{v:#}"
            );
        }
        assert!(!d.join("s").exists(), "nothing was started");
    }
}

#[test]
fn a_state_folder_that_is_a_file_is_said_to_be_one_not_a_damaged_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A typo in a unit file: the environment file given as the state folder.
    std::fs::write(d.join("env"), "INVOICEDROP_API_URL=https://api.example.com\n").unwrap();
    std::fs::create_dir_all(d.join("in")).unwrap();
    xero_export(&d.join("a.csv"), 2);
    let server = Server::start(SandboxConfig::default());
    let api = server.env();
    let none: Vec<(&str, String)> = Vec::new();
    let cases = [
        (&none, vec!["run", "a.csv", "--state", "env", "--results", "r"]),
        (&none, vec!["watch", "in", "--state", "env"]),
        (&api, vec!["run", "a.csv", "--state", "env/state", "--results", "r"]),
        (
            &api,
            vec!["onboard", "--otp", "123456", "--device-id", "d1", "--state", "env"],
        ),
    ];
    for (env, args) in cases {
        let o = run(d, env, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let e = one_error(&o);
        assert!(
            e.contains("env is a file, not a folder: give --state the state folder"),
            "{args:?}: {e}"
        );
        assert!(!e.contains("ledger.sqlite") && !e.contains("backup"), "{e}");
    }
    assert!(!d.join("r").exists());
    assert_eq!(server.accepted(), 0);
}

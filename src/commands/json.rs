//! The `--json` contract, for every command: stdout carries exactly one JSON document, whatever
//! happens; everything for people (notes, warnings, errors, logs) goes to stderr, with or
//! without `--json`; exit codes are the same either way.
//!
//! - A command that has a result prints it through [`emit`] (once: a second document is never
//!   written). The results of `check`, `run`, `report`, `watch`, `onboard`, `generate` and
//!   `mappings detect`/`show` are objects carrying `exit_code` and `error` (null, or an
//!   [`ErrorDoc`]); `mappings list` stays an array, and `sandbox` prints its one-line banner.
//! - A command that fails before it has a result (an `Err` reaching `main`, a usage error, a
//!   panic) gets `{"error": {"kind": ..., "message": ...}, "exit_code": N}` from [`finish`],
//!   [`usage_error`] or [`panicked`].
//!
//! [`ErrorKind`] sorts errors for scripts; [`Fatal`] lets a command give its own errors a kind.

use super::Status;
use super::out::outln;
use serde::Serialize;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// What kind of error stopped a command, for scripts (`error.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The command line: an unknown flag or command, a value that cannot be used, a path that
    /// does not exist or is not what it must be (`--results` a file, `report` on no folder).
    Usage,
    /// `invoicedrop.toml`, or an `INVOICEDROP_*` setting other than the credentials.
    Config,
    /// A mapping that cannot be loaded, or no mapping fits the file.
    Mapping,
    /// Credentials missing from the environment, unreadable, or refused by the API.
    Credentials,
    /// No device onboarded for the state folder, or the API does not know the onboard_id.
    Device,
    /// The API cannot be reached.
    Unreachable,
    /// The API refused a request or answered what cannot be used (onboarding refused...).
    Api,
    /// Another invoicedrop holds the state folder or the inbox.
    Busy,
    /// The state folder or its ledger cannot be used.
    State,
    /// An input could not be processed as a whole (each file's `error` says why), or the paths
    /// hold no export.
    File,
    /// Another file system error.
    Io,
    /// An error of no other kind.
    Other,
    /// A bug: invoicedrop panicked.
    Internal,
    /// `run` stopped by SIGINT or SIGTERM (the documents not sent are `INV-RUN-INTERRUPTED`).
    Interrupted,
}

/// `{"kind": ..., "message": ...}`: the `error` of a JSON document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorDoc {
    /// What kind of error.
    pub kind: ErrorKind,
    /// What happened and what to do, as on stderr.
    pub message: String,
}

impl ErrorDoc {
    /// An error of a kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ErrorDoc {
        ErrorDoc {
            kind,
            message: message.into(),
        }
    }

    /// The kind and whole message of an error.
    pub fn of(e: &anyhow::Error) -> ErrorDoc {
        ErrorDoc::new(kind_of(e), format!("{e:#}"))
    }
}

/// An error a command diagnoses itself, with its kind.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Fatal {
    /// Its kind.
    pub kind: ErrorKind,
    /// What happened and what to do.
    pub message: String,
}

impl Fatal {
    /// An error of a kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Fatal {
        Fatal {
            kind,
            message: message.into(),
        }
    }

    /// A command-line error.
    pub fn usage(message: impl Into<String>) -> Fatal {
        Fatal::new(ErrorKind::Usage, message)
    }
}

/// The kind of an error that stops sending.
pub fn submit_kind(e: &crate::submit::SubmitError) -> ErrorKind {
    use crate::submit::{LedgerError, SubmitError};
    match e {
        SubmitError::Config(_) => ErrorKind::Config,
        SubmitError::CredentialsRejected { .. } => ErrorKind::Credentials,
        SubmitError::UnknownDevice { .. } => ErrorKind::Device,
        SubmitError::Unreachable { .. } => ErrorKind::Unreachable,
        SubmitError::Api { .. } => ErrorKind::Api,
        SubmitError::Ledger(LedgerError::Busy { .. }) => ErrorKind::Busy,
        SubmitError::Ledger(_) => ErrorKind::State,
    }
}

/// The kind of an error: the first cause in its chain whose type says it.
pub fn kind_of(e: &anyhow::Error) -> ErrorKind {
    use crate::submit::{CredentialsError, LedgerError, SubmitError};
    for cause in e.chain() {
        if let Some(f) = cause.downcast_ref::<Fatal>() {
            return f.kind;
        }
        if cause.is::<CredentialsError>() {
            return ErrorKind::Credentials;
        }
        if let Some(s) = cause.downcast_ref::<SubmitError>() {
            return submit_kind(s);
        }
        if let Some(l) = cause.downcast_ref::<LedgerError>() {
            return match l {
                LedgerError::Busy { .. } => ErrorKind::Busy,
                _ => ErrorKind::State,
            };
        }
        if cause.is::<crate::config::ConfigError>() {
            return ErrorKind::Config;
        }
        if cause.is::<crate::mapping::MappingError>() {
            return ErrorKind::Mapping;
        }
        if let Some(w) = cause.downcast_ref::<crate::watch::WatchError>() {
            return match w {
                crate::watch::WatchError::Locked { .. } => ErrorKind::Busy,
                _ => ErrorKind::Io,
            };
        }
        if cause.is::<crate::results::ResultsError>() || cause.is::<std::io::Error>() {
            return ErrorKind::Io;
        }
        if cause.is::<clap::Error>() {
            return ErrorKind::Usage;
        }
    }
    ErrorKind::Other
}

/// Set once a JSON document is on stdout: nothing else is written there.
static EMITTED: AtomicBool = AtomicBool::new(false);

/// Print the command's one JSON document, indented; nothing when one was printed already.
pub fn emit<T: Serialize + ?Sized>(doc: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(doc)?;
    if !EMITTED.swap(true, Ordering::SeqCst) {
        outln!("{text}");
    }
    Ok(())
}

/// [`emit`] on one line (the sandbox's banner, read by scripts line by line while it runs).
pub fn emit_line<T: Serialize + ?Sized>(doc: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string(doc)?;
    if !EMITTED.swap(true, Ordering::SeqCst) {
        outln!("{text}");
    }
    Ok(())
}

/// The document of a command that failed before it had a result.
#[derive(Serialize)]
struct Failed<'a> {
    error: &'a ErrorDoc,
    exit_code: u8,
}

/// Say a command's failure: its message on stderr, and with `--json` (when no document was
/// printed yet) `{"error": ..., "exit_code": N}` on stdout.
fn fail(json: bool, error: &ErrorDoc, stderr: &str, code: u8) -> ExitCode {
    eprintln!("{stderr}");
    if json {
        let _ = emit(&Failed { error, exit_code: code });
    }
    ExitCode::from(code)
}

/// The end of `main`: the exit status of a command's result; for an error, its message on
/// stderr and, with `--json`, its document on stdout.
pub fn finish(json: bool, result: anyhow::Result<Status>) -> ExitCode {
    match result {
        Ok(status) => {
            if json && !EMITTED.load(Ordering::SeqCst) {
                // Every command prints its document; this is a safety net, not a contract.
                let _ = emit(&serde_json::json!({ "exit_code": status.code(), "error": null }));
            }
            status.into()
        }
        Err(e) => {
            let doc = ErrorDoc::of(&e);
            fail(json, &doc, &format!("error: {e:#}"), Status::Error.code())
        }
    }
}

/// Whether the raw arguments ask for `--json` (the command line could not be parsed, so look
/// for the flag itself, before any `--`).
pub fn wants_json(args: &[std::ffi::OsString]) -> bool {
    args.iter().skip(1).take_while(|a| *a != "--").any(|a| a == "--json")
}

/// A command line that cannot be parsed: clap's message on stderr and, with `--json`, the
/// error document on stdout; clap's exit code. `--help` and `--version` print their text.
pub fn usage_error(e: clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind as Clap;
    if !json || matches!(e.kind(), Clap::DisplayHelp | Clap::DisplayVersion) {
        e.exit();
    }
    let code = u8::try_from(e.exit_code()).unwrap_or(2);
    let rendered = e.render().to_string();
    let message = usage_message(&rendered);
    let doc = ErrorDoc::new(ErrorKind::Usage, message);
    fail(true, &doc, rendered.trim_end(), code)
}

/// clap's error without its usage lines and tips: `the following required arguments were not
/// provided: <PATHS>...`.
fn usage_message(rendered: &str) -> String {
    rendered
        .trim_start()
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string()
}

/// A panic (a bug) reached `main`: the panic's own message is already on stderr.
pub fn panicked(json: bool) -> ExitCode {
    let doc = ErrorDoc::new(
        ErrorKind::Internal,
        "invoicedrop stopped on an internal error (a bug; its message is on stderr): please report it. \
         Documents already sent are in the ledger and are not sent again by the next run",
    );
    fail(json, &doc, "error: invoicedrop stopped on an internal error", 101)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_sorted_by_the_first_cause_that_says_its_kind() {
        use crate::submit::{CredentialsError, LedgerError, SubmitError};
        let e = anyhow::Error::new(CredentialsError::TwoSecrets).context("cannot start");
        assert_eq!(kind_of(&e), ErrorKind::Credentials);
        let e = anyhow::Error::new(SubmitError::Unreachable {
            url: "http://127.0.0.1:9".into(),
            detail: "refused".into(),
        })
        .context("cannot start sending");
        assert_eq!(kind_of(&e), ErrorKind::Unreachable);
        let busy = LedgerError::Busy {
            dir: "st".into(),
            holder: String::new(),
        };
        assert_eq!(kind_of(&anyhow::Error::new(busy.clone())), ErrorKind::Busy);
        assert_eq!(kind_of(&anyhow::Error::new(SubmitError::Ledger(busy))), ErrorKind::Busy);
        assert_eq!(kind_of(&Fatal::usage("--now x").into()), ErrorKind::Usage);
        assert_eq!(kind_of(&anyhow::anyhow!("something")), ErrorKind::Other);
        let io = std::io::Error::other("disk");
        assert_eq!(kind_of(&anyhow::Error::new(io).context("writing")), ErrorKind::Io);
        let doc = ErrorDoc::of(&anyhow::Error::new(CredentialsError::TwoSecrets).context("cannot start"));
        assert_eq!(
            serde_json::to_value(&doc).unwrap(),
            serde_json::json!({"kind": "credentials", "message": format!("cannot start: {}", CredentialsError::TwoSecrets)})
        );
    }

    #[test]
    fn a_usage_error_keeps_clap_s_message_without_the_usage_lines() {
        let rendered = "error: the following required arguments were not provided:\n  <PATHS>...\n\nUsage: invoicedrop check <PATHS>...\n\nFor more information, try '--help'.\n";
        assert_eq!(
            usage_message(rendered),
            "the following required arguments were not provided: <PATHS>..."
        );
    }

    #[test]
    fn json_is_asked_for_before_any_double_dash() {
        let args = |a: &[&str]| -> Vec<std::ffi::OsString> { a.iter().map(Into::into).collect() };
        assert!(wants_json(&args(&["invoicedrop", "check", "--json"])));
        assert!(wants_json(&args(&["invoicedrop", "--json", "chek"])));
        assert!(!wants_json(&args(&["invoicedrop", "check", "--", "--json"])));
        assert!(!wants_json(&args(&["--json"])), "the program's name is not a flag");
    }
}

//! The command line (design.md "The command line"): commands and flags, clap derive.

use clap::{Args, Parser, Subcommand};
use std::num::NonZeroU32;
use std::path::PathBuf;

/// invoicedrop: ERP invoice exports in, legally issued e-invoices out.
#[derive(Debug, Parser)]
#[command(name = "invoicedrop", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Only errors on stderr.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// More detail on stderr (-v, -vv).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Machine-readable output: exactly one JSON document on stdout, whatever happens (a failure
    /// is {"error": {"kind", "message"}, "exit_code"}); messages for people stay on stderr.
    #[arg(long, global = true)]
    pub json: bool,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read exports, check them and get the valid documents issued through the API (the built-in
    /// sandbox when no API is configured); result files per input.
    Run(RunArgs),
    /// Read exports, map, compute and validate, with no network: findings and result files only.
    Check(CheckArgs),
    /// Watch a drop folder: issue every export dropped into it, once it has stopped changing, as
    /// `run` does; then move it to done/ or failed/.
    Watch(WatchArgs),
    /// Register this device with the API once; the onboard_id is kept in the state folder.
    Onboard(OnboardArgs),
    /// List, show and detect the mappings of ERP export layouts.
    Mappings(MappingsArgs),
    /// Run the sandbox authority: the whole API as a local server.
    Sandbox(SandboxArgs),
    /// Summarise a results folder and reconcile the accepted documents with their signed XML.
    Report(ReportArgs),
    /// Write a realistic export of any size in a bundled layout (for trials and benchmarks).
    Generate(GenerateArgs),
}

/// Flags shared by the commands that read exports.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Mapping to use: a bundled name (see `mappings list`) or a TOML file. Detected from the
    /// headers when not given.
    #[arg(long)]
    pub mapping: Option<String>,
    /// Configuration file (default ./invoicedrop.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Folder for result files.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
}

/// How many documents each file's `document_list` holds in the `--json` output of `check` and
/// `run`.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// With --json: list at most N documents per file in `document_list` (the JSON says when a
    /// list was cut: `document_list_truncated`).
    #[arg(long, value_name = "N", default_value_t = DOCUMENT_LIST_LIMIT)]
    pub list_limit: usize,
    /// With --json: list every document of each file in `document_list` (held in memory until
    /// the end: about 150 bytes a document).
    #[arg(long, conflicts_with = "list_limit")]
    pub list_all: bool,
}

/// Documents per file in `document_list` unless `--list-limit` or `--list-all` says otherwise.
pub const DOCUMENT_LIST_LIMIT: usize = 1000;

impl ListArgs {
    /// The most documents listed per file; `None`: every one.
    pub fn limit(&self) -> Option<usize> {
        (!self.list_all).then_some(self.list_limit)
    }
}

/// `invoicedrop check PATH...`
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// Files or folders to check.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Common input flags.
    #[command(flatten)]
    pub input: InputArgs,
    /// Check as if it were this time (RFC 3339), for the date rules; default now.
    #[arg(long)]
    pub now: Option<String>,
    /// The document list of --json.
    #[command(flatten)]
    pub list: ListArgs,
}

/// `invoicedrop report RESULTS_DIR`
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Exit status: 0 everything reconciles, 1 differences exist (each is listed by document), \
2 the folder cannot be read or holds no result files."
)]
pub struct ReportArgs {
    /// The results folder (what `check` and `run` wrote with --results).
    pub results_dir: PathBuf,
}

/// `invoicedrop mappings list | show NAME | detect FILE`
#[derive(Debug, Clone, Args)]
pub struct MappingsArgs {
    /// The action.
    #[command(subcommand)]
    pub action: MappingsAction,
}

/// What `mappings` does.
#[derive(Debug, Clone, Subcommand)]
pub enum MappingsAction {
    /// List the bundled mappings.
    List,
    /// Print a mapping's TOML: a bundled one (to start your own from: `mappings show xero >
    /// my-erp.toml`), or your own `.toml` file, loaded and checked first (exit 2 with the error).
    Show {
        /// A bundled mapping's name, or a `.toml` file.
        name: String,
    },
    /// Show which mappings fit a file's headers, and why.
    Detect {
        /// The export file.
        file: PathBuf,
    },
}

/// `invoicedrop sandbox`: the flags of D19 and issue 3.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "The account's secret is `sandbox-secret`, or the value of the environment variable \
INVOICEDROP_SANDBOX_SECRET when set (never a flag). Faults can also be changed while it runs: \
POST /sandbox/faults with {\"rate\", \"fail_rate\", \"drop_rate\", \"delay_ms\", \"token_ttl\"}; \
GET /sandbox/stats gives per-device counts."
)]
pub struct SandboxArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 9090)]
    pub port: u16,
    /// Folder for the signing key, certificate, devices, counters and accepted documents; state is
    /// kept in memory when not given.
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// Token lifetime in seconds.
    #[arg(long, default_value_t = 3600)]
    pub token_ttl: u64,
    /// Answer 429 with Retry-After beyond this many document requests per second (0 = no limit).
    #[arg(long, default_value_t = 0)]
    pub rate: u32,
    /// Fraction (0 to 1) of document requests answered 500 or 503 before anything is done.
    #[arg(long, default_value_t = 0.0)]
    pub fail_rate: f64,
    /// Fraction (0 to 1) of document requests whose connection is dropped after the document was
    /// accepted: the client cannot know the outcome.
    #[arg(long, default_value_t = 0.0)]
    pub drop_rate: f64,
    /// Delay added to every document request, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub delay_ms: u64,
    /// VAT number of the sandbox account.
    #[arg(long, default_value = "399999999900003")]
    pub vat_number: String,
    /// User name of the sandbox account.
    #[arg(long, default_value = "sandbox")]
    pub username: String,
    /// The OTP onboarding accepts.
    #[arg(long, default_value = "123456")]
    pub otp: String,
}

/// Flags of the commands that talk to the API.
#[derive(Debug, Clone, Args)]
pub struct ApiArgs {
    /// State folder: the ledger of every document sent, the onboard_id, the built-in sandbox's
    /// state.
    #[arg(long, default_value = ".invoicedrop")]
    pub state: PathBuf,
    /// Documents per second sent to the API: 1 to 10000, or `unlimited` (default: 5 for a real
    /// API, unlimited for the built-in sandbox). 0 is refused: no limit is asked for in words, so
    /// that a slip of the finger cannot flood the authority.
    #[arg(long, value_name = "N|unlimited", value_parser = parse_rate)]
    pub rate: Option<Rate>,
    /// Requests in flight at once: 1 to 256 (default: 8 for a real API, 16 for the built-in
    /// sandbox).
    #[arg(long, value_name = "N", value_parser = parse_concurrency)]
    pub concurrency: Option<usize>,
    /// Seconds to wait for an answer, 1 to 3600, before the outcome counts as unknown (and is
    /// repeated).
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = parse_timeout)]
    pub timeout: u64,
    /// Seconds an API that answers nothing is probed, one request at a time, before the
    /// documents still waiting are reported `failed` (`INV-SUBMIT-UNKNOWN`: sent, outcome unknown;
    /// `INV-SUBMIT-NOT-SENT`: not sent, not issued), 1 to 86400.
    /// The ledger keeps them: `run` repeats them the next time, `watch` once the API answers
    /// again.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = parse_give_up)]
    pub give_up_after: u64,
    /// Allow plain http:// to a host other than loopback (D3). Never for production.
    #[arg(long)]
    pub insecure: bool,
}

/// `--rate`: documents per second, or no limit, asked for in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// At most this many documents per second.
    PerSecond(NonZeroU32),
    /// No limit: `--rate unlimited`.
    Unlimited,
}

impl Rate {
    /// Documents per second; `None` for no limit.
    pub fn per_second(self) -> Option<u32> {
        match self {
            Rate::PerSecond(n) => Some(n.get()),
            Rate::Unlimited => None,
        }
    }
}

/// The most documents per second `--rate` takes.
pub const MAX_RATE: u32 = 10_000;
/// The most requests in flight `--concurrency` takes.
pub const MAX_CONCURRENCY: usize = 256;
/// The longest `--timeout`, in seconds.
pub const MAX_TIMEOUT_SECONDS: u64 = 3600;

/// `--rate N|unlimited`: 0 is refused, saying how to ask for no limit.
fn parse_rate(text: &str) -> Result<Rate, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("unlimited") {
        return Ok(Rate::Unlimited);
    }
    match text.parse::<u64>() {
        Ok(0) => Err(format!(
            "0 documents per second is refused: give 1 to {MAX_RATE}, or `unlimited` to send as fast as the API \
             answers (only where the API allows it)"
        )),
        Ok(n) if n <= u64::from(MAX_RATE) => Ok(Rate::PerSecond(
            NonZeroU32::new(n as u32).ok_or("0 documents per second is refused")?,
        )),
        _ => Err(format!(
            "expected documents per second, 1 to {MAX_RATE}, or `unlimited`"
        )),
    }
}

/// A whole number from 1 to `max` of `what`, or a message saying the allowed range.
fn in_range(text: &str, max: u64, what: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected 1 to {max} {what}")),
    }
}

/// `--concurrency N`: 1 to [`MAX_CONCURRENCY`].
fn parse_concurrency(text: &str) -> Result<usize, String> {
    in_range(text, MAX_CONCURRENCY as u64, "requests in flight at once").map(|n| n as usize)
}

/// A value kept as a [`crate::model::Secret`], so that `Debug` of the arguments never shows it.
fn parse_secret(text: &str) -> Result<crate::model::Secret, String> {
    Ok(crate::model::Secret::new(text))
}

/// `--timeout SECONDS`: 1 to [`MAX_TIMEOUT_SECONDS`].
fn parse_timeout(text: &str) -> Result<u64, String> {
    in_range(text, MAX_TIMEOUT_SECONDS, "seconds")
}

/// The longest `--give-up-after`, in seconds (a day).
pub const MAX_GIVE_UP_SECONDS: u64 = 86_400;

/// `--give-up-after SECONDS`: 1 to [`MAX_GIVE_UP_SECONDS`].
fn parse_give_up(text: &str) -> Result<u64, String> {
    in_range(text, MAX_GIVE_UP_SECONDS, "seconds")
}

/// `invoicedrop run PATH...`
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Files or folders to issue.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Common input flags.
    #[command(flatten)]
    pub input: InputArgs,
    /// API flags.
    #[command(flatten)]
    pub api: ApiArgs,
    /// The document list of --json.
    #[command(flatten)]
    pub list: ListArgs,
}

/// `invoicedrop onboard --otp OTP --device-id ID`
#[derive(Debug, Clone, Args)]
pub struct OnboardArgs {
    /// The one-time password from the provider's portal.
    #[arg(long, value_name = "OTP", value_parser = parse_secret)]
    pub otp: crate::model::Secret,
    /// This device's identifier, chosen by you (one per installation or branch).
    #[arg(long)]
    pub device_id: String,
    /// Which documents the device issues.
    #[arg(long, default_value = "both", value_parser = ["standard", "simplified", "both"])]
    pub invoice_type: String,
    /// Contact e-mail registered with the device (required with your own [seller]; the demo
    /// seller's sandbox onboarding uses einvoicing@example.com).
    #[arg(long)]
    pub email: Option<String>,
    /// Industry category registered with the device (for example IT, Retail; required with
    /// your own [seller]; the demo seller's sandbox onboarding uses Retail).
    #[arg(long)]
    pub business_category: Option<String>,
    /// Configuration file with the seller profile (default ./invoicedrop.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// API flags.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// `invoicedrop watch INBOX`
#[derive(Debug, Clone, Args)]
pub struct WatchArgs {
    /// The drop folder. Files are claimed into INBOX/.processing/, then moved to INBOX/done/ or
    /// INBOX/failed/.
    pub inbox: PathBuf,
    /// Mapping to use: a bundled name (see `mappings list`) or a TOML file. Detected from the
    /// headers of each file when not given.
    #[arg(long)]
    pub mapping: Option<String>,
    /// Configuration file (default ./invoicedrop.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Folder for result files and status.json (default INBOX/results).
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Seconds a file's size and modification time must stay unchanged before it is taken.
    #[arg(long, default_value_t = 5.0)]
    pub quiet_period: f64,
    /// Seconds between full scans of the inbox, besides the file system's events.
    #[arg(long, default_value_t = 30.0)]
    pub rescan: f64,
    /// Do not listen for the file system's change events: find files by the scans every
    /// `--rescan` seconds alone (for network shares, where events may never arrive).
    #[arg(long)]
    pub no_events: bool,
    /// Hours after its issue time at which a simplified document not yet accepted is an alert
    /// (the reporting window is 24 hours).
    #[arg(long, default_value_t = 20.0)]
    pub alert_hours: f64,
    /// API flags.
    #[command(flatten)]
    pub api: ApiArgs,
}

/// `invoicedrop generate --layout NAME --rows N [--seed S] --out FILE`
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Writes customers.csv (and credit_notes.csv for quickbooks-online, sage50 and tally) beside FILE when the \
layout's mapping reads them, replacing files of those names. sap-b1-dtw writes its Documents header file \
beside FILE, whose name must contain Document_Lines. FILE ending in .xlsx gives a workbook."
)]
pub struct GenerateArgs {
    /// The layout: xero, quickbooks-online, zoho-books, zoho-books-credit-notes, odoo, erpnext,
    /// sap-b1-dtw, sage50, tally, legacy-arabic.
    #[arg(long)]
    pub layout: String,
    /// Line rows to write.
    #[arg(long)]
    pub rows: u64,
    /// Seed of the random choices (the same seed and day give the same file).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// The export to write (.csv, .txt, .xlsx).
    #[arg(long)]
    pub out: PathBuf,
    /// Date the documents in the 20 days before this day (YYYY-MM-DD); default today.
    #[arg(long)]
    pub today: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api_args(args: &[&str]) -> Result<ApiArgs, String> {
        let mut all = vec!["invoicedrop", "run", "a.csv"];
        all.extend_from_slice(args);
        match Cli::try_parse_from(all) {
            Ok(Cli {
                command: Command::Run(r),
                ..
            }) => Ok(r.api),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn no_limit_is_asked_for_in_words_and_zero_is_refused() {
        assert_eq!(api_args(&["--rate", "unlimited"]).unwrap().rate, Some(Rate::Unlimited));
        assert_eq!(
            api_args(&["--rate", "7"]).unwrap().rate.and_then(Rate::per_second),
            Some(7)
        );
        assert_eq!(api_args(&[]).unwrap().rate, None);
        let e = api_args(&["--rate", "0"]).unwrap_err();
        assert!(
            e.contains("'0' for '--rate <N|unlimited>'") && e.contains("1 to 10000, or `unlimited`"),
            "{e}"
        );
        for bad in ["-1", "10001", "fast", "2.5"] {
            let e = api_args(&[&format!("--rate={bad}")]).unwrap_err();
            assert!(e.contains("1 to 10000, or `unlimited`"), "{bad}: {e}");
        }
    }

    #[test]
    fn concurrency_and_timeout_outside_their_range_are_refused_saying_it() {
        for (flag, bad, range) in [
            ("--concurrency", "0", "1 to 256 requests in flight"),
            ("--concurrency", "257", "1 to 256 requests in flight"),
            ("--timeout", "0", "1 to 3600 seconds"),
            ("--timeout", "3601", "1 to 3600 seconds"),
            ("--timeout", "-5", "1 to 3600 seconds"),
            ("--give-up-after", "0", "1 to 86400 seconds"),
            ("--give-up-after", "86401", "1 to 86400 seconds"),
        ] {
            let e = api_args(&[&format!("{flag}={bad}")]).unwrap_err();
            assert!(
                e.contains(&format!("'{bad}' for '{flag}")) && e.contains(range),
                "{flag} {bad}: {e}"
            );
        }
        let a = api_args(&["--concurrency", "256", "--timeout", "1"]).unwrap();
        assert_eq!((a.concurrency, a.timeout), (Some(256), 1));
        assert_eq!(api_args(&[]).unwrap().timeout, 60);
        assert_eq!(api_args(&[]).unwrap().give_up_after, 300);
        assert_eq!(api_args(&["--give-up-after", "2"]).unwrap().give_up_after, 2);
    }

    #[test]
    fn debug_of_the_arguments_hides_the_otp() {
        let cli = Cli::try_parse_from(["invoicedrop", "onboard", "--otp", "987654", "--device-id", "hq-1"]).unwrap();
        let Command::Onboard(args) = &cli.command else {
            panic!("{cli:?}")
        };
        assert_eq!(args.otp.expose(), "987654");
        let debug = format!("{cli:?}");
        assert!(!debug.contains("987654") && debug.contains("hq-1"), "{debug}");
    }
}

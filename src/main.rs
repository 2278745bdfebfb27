//! The `invoicedrop` binary: parse the command line, set up logging, run, map to an exit code.

use clap::Parser;
use invoicedrop::cli::{Cli, Command};
use invoicedrop::commands;
use std::process::ExitCode;

// mimalloc instead of the system allocator: `check` allocates per field and per document on
// several threads, and glibc's malloc was about a third of its time (BENCHMARKS.md). Called
// directly rather than through the `mimalloc` crate, whose every call is an aligned one
// (src/alloc.rs).
#[global_allocator]
static GLOBAL: invoicedrop::alloc::Allocator = invoicedrop::alloc::Allocator;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = commands::json::wants_json(&args);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        // With --json, a command line that cannot be parsed is a JSON error too.
        Err(e) => return commands::json::usage_error(e, json),
    };
    invoicedrop::logging::init(cli.quiet, cli.verbose, matches!(cli.command, Command::Watch(_)));
    // A panic (a bug) still gives --json its one document; the panic's message is on stderr.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &cli.command {
        Command::Run(a) => commands::run(a.clone(), &cli),
        Command::Check(a) => commands::check(a.clone(), &cli),
        Command::Watch(a) => commands::watch(a.clone(), &cli),
        Command::Onboard(a) => commands::onboard(a.clone(), &cli),
        Command::Mappings(a) => commands::mappings(a.clone(), &cli),
        Command::Sandbox(a) => commands::sandbox(a.clone(), &cli),
        Command::Report(a) => commands::report(a.clone(), &cli),
        Command::Generate(a) => commands::generate(a.clone(), &cli),
    }));
    match result {
        Ok(result) => commands::json::finish(cli.json, result),
        Err(_) => commands::json::panicked(cli.json),
    }
}

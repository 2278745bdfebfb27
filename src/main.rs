//! The `invoicedrop` binary: parse the command line, set up logging, run, map to an exit code.

use clap::Parser;
use invoicedrop::cli::{Cli, Command};
use invoicedrop::commands::{self, Status};
use std::process::ExitCode;

// mimalloc instead of the system allocator: `check` allocates per field and per document on
// several threads, and glibc's malloc was about a third of its time (BENCHMARKS.md). Called
// directly rather than through the `mimalloc` crate, whose every call is an aligned one
// (src/alloc.rs).
#[global_allocator]
static GLOBAL: invoicedrop::alloc::Allocator = invoicedrop::alloc::Allocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    invoicedrop::logging::init(cli.quiet, cli.verbose, matches!(cli.command, Command::Watch(_)));
    let result = match &cli.command {
        Command::Run(a) => commands::run(a.clone(), &cli),
        Command::Check(a) => commands::check(a.clone(), &cli),
        Command::Watch(a) => commands::watch(a.clone(), &cli),
        Command::Onboard(a) => commands::onboard(a.clone(), &cli),
        Command::Mappings(a) => commands::mappings(a.clone(), &cli),
        Command::Sandbox(a) => commands::sandbox(a.clone(), &cli),
        Command::Report(a) => commands::report(a.clone(), &cli),
        Command::Generate(a) => commands::generate(a.clone(), &cli),
    };
    match result {
        Ok(status) => status.into(),
        Err(e) => {
            eprintln!("error: {e:#}");
            Status::Error.into()
        }
    }
}

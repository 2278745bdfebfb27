//! `invoicedrop run PATH...`: the whole pipeline. Every export is checked as by `check`; each
//! batch's valid documents are sent through the [`Runner`] (rate limit, retries with the same
//! idempotency key, the ledger), and the authority's answers become the rows' statuses.

use super::Status;
use super::check;
use super::json::ErrorDoc;
use super::runner::Runner;
use crate::cli::*;
use chrono::Utc;

/// Run `invoicedrop run`.
pub fn run(args: RunArgs, cli: &Cli) -> anyhow::Result<Status> {
    // First: a state folder of an API is never run through the built-in sandbox.
    super::api::no_sandbox_for_an_api_state(&args.api.state)?;
    // Before anything starts (the built-in sandbox, the connection): paths that are not there,
    // a mapping that cannot be loaded, no export at all.
    super::inputs::preflight(&args.paths, &args.input, super::inputs::Purpose::Issue)?;
    // A configuration that is refused leaves nothing behind (Runner::start reads it again).
    let config = crate::config::Config::load(args.input.config.as_deref())?;
    // Before the API is reached: nothing is sent that could not be written.
    super::folder::results_folder(&args.input.results)?;
    // Every export refused (its result set or artefacts folder is another export's): said with
    // nothing started, and nothing else done.
    if let Some(report) = check::all_refused(&args.paths, &args.input, &config, cli, args.list.limit())? {
        check::print(&report, cli)?;
        return Ok(report.status());
    }
    let runner = Runner::start(&args.input, &args.api)?;
    if let Err(skipped) = &runner.device
        && !cli.quiet
    {
        crate::logging::note(skipped);
    }
    // SIGINT or SIGTERM (Ctrl-C, cron's `timeout`, a shutdown): nothing more is sent, the
    // requests on the wire are answered or time out, every row still gets its status and the
    // summary (and `--json`'s document) is written; a second signal quits at once.
    let interrupt = super::interrupt::Interrupt::listen(&runner)?;
    let mut dispatch = runner
        .dispatch(!cli.quiet && !cli.json, None)
        .interrupted_by(interrupt.flag());
    let resumed = runner.resume(&dispatch)?;
    if resumed > 0 && !cli.quiet {
        crate::logging::note(format_args!(
            "{resumed} document(s) left without a final answer by an earlier run were repeated with their original idempotency key"
        ));
    }
    let mut report = check::process(
        &args.paths,
        &args.input,
        &runner.config,
        Utc::now(),
        cli,
        args.list.limit(),
        Some(&mut dispatch),
    )?;
    dispatch.finish();
    if let Some(stop) = dispatch.stopped.take() {
        crate::logging::line(format_args!("error: the run stopped: {}", stop.message));
        report.stop(ErrorDoc::new(stop.kind, format!("the run stopped: {}", stop.message)));
    } else if let Some(signal) = interrupt.received() {
        let message = format!(
            "the run was interrupted ({signal}): the documents not sent say INV-RUN-INTERRUPTED; run again to \
             send them (documents already accepted are not sent twice)"
        );
        crate::logging::line(format_args!("error: {message}"));
        report.stop(ErrorDoc::new(super::json::ErrorKind::Interrupted, message));
    }
    drop(dispatch);
    report.sent_to_sandbox(runner.sandbox());
    runner.shutdown();
    check::print(&report, cli)?;
    Ok(report.status())
}

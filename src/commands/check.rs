//! `invoicedrop check PATH...`: ingest, map, group, compute and validate, with no network; one
//! result file per input and a summary.

use super::Status;
use super::inputs::{Purpose, expand, no_export_text, notes_last, notes_last_note, preflight, whole_file_error};
use super::json::{ErrorDoc, ErrorKind};
use crate::cli::*;
use crate::config::Config;
use crate::mapping::detect::Role;
use crate::mapping::{Mapping, bundled};
use crate::pipeline::{self, CheckOptions, Dispatch, FileSummary};
use crate::results::ResultWriter;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod file_errors;
mod print;

pub(super) use file_errors::all_refused;
use file_errors::{Refusals, STOP_NOTE, changed_meanwhile, not_sent_error};
pub(super) use print::{accepted_text, print};

/// What a `check` or `run` over several files gave: the `--json` document.
#[derive(Serialize)]
pub(super) struct Report {
    demo_seller: bool,
    /// `run`: the documents went to the built-in sandbox (no API configured), not to an API.
    /// Always false for `check`, which sends nothing.
    sandbox: bool,
    /// One summary per file, each with `document_list_truncated`.
    #[serde(serialize_with = "files_json")]
    pub(super) files: Vec<FileSummary>,
    /// Files passed over, with why.
    pub(super) skipped_files: Vec<String>,
    rows: u64,
    documents: pipeline::Counts,
    codes: BTreeMap<String, u64>,
    /// The most documents each file's `document_list` holds (`--list-limit`); null with
    /// `--list-all`.
    document_list_limit: Option<usize>,
    /// True when some file's `document_list` was cut at the limit.
    document_list_truncated: bool,
    /// When a list was cut: how to get every document.
    #[serde(skip_serializing_if = "Option::is_none")]
    document_list_note: Option<String>,
    exit_code: u8,
    /// Why the exit code is 2: files that could not be processed as a whole, no export, or a
    /// run that had to stop. Null otherwise.
    error: Option<ErrorDoc>,
    /// No export was found in the paths: `no export to check in PATHS`.
    #[serde(skip)]
    no_exports: Option<String>,
    /// Documents are sent (`run`): the counts say accepted, rejected and failed even when none
    /// was sent.
    #[serde(skip)]
    sending: bool,
}

impl Report {
    /// Say that the documents went to the built-in sandbox.
    pub(super) fn sent_to_sandbox(&mut self, sandbox: bool) {
        self.sandbox = sandbox;
    }

    /// The exit status.
    pub(super) fn status(&self) -> Status {
        match self.exit_code {
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Error,
        }
    }

    /// The command stopped (a run whose sending had to stop): exit 2 with this error.
    pub(super) fn stop(&mut self, error: ErrorDoc) {
        self.error = Some(error);
        self.exit_code = Status::Error.code();
    }
}

/// True when a file's `document_list` holds fewer documents than the file has.
fn list_truncated(f: &FileSummary) -> bool {
    (f.document_list.len() as u64) < f.documents.total()
}

/// The files of a [`Report`], each with `document_list_truncated`.
fn files_json<S: serde::Serializer>(files: &[FileSummary], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct File<'a> {
        #[serde(flatten)]
        summary: &'a FileSummary,
        document_list_truncated: bool,
    }
    s.collect_seq(files.iter().map(|summary| File {
        summary,
        document_list_truncated: list_truncated(summary),
    }))
}

pub(super) fn parse_now(now: &Option<String>) -> anyhow::Result<DateTime<Utc>> {
    match now {
        Some(s) => Ok(DateTime::parse_from_rfc3339(s)
            .map_err(|_| {
                super::json::Fatal::usage(format!(
                    "--now {s:?}: expected an RFC 3339 time such as 2026-11-21T09:00:00Z"
                ))
            })?
            .with_timezone(&Utc)),
        None => Ok(Utc::now()),
    }
}

/// What [`check_one`] gave for a file.
struct Checked {
    summary: FileSummary,
    /// `run`: the file's result files could not be written for a reason of the results folder
    /// as a whole (a full disk, see [`crate::results::folder_unusable`]): why. No later file of
    /// the run is read or sent.
    folder_unusable: Option<String>,
}

impl Checked {
    fn of(summary: FileSummary) -> Checked {
        Checked {
            summary,
            folder_unusable: None,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_one(
    path: &Path,
    explicit: Option<&Arc<Mapping>>,
    mappings: &[Mapping],
    all_files: &[PathBuf],
    config: &Config,
    opts: &CheckOptions,
    results: &Path,
    dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> Result<Option<Checked>, String> {
    let mapping = match explicit {
        Some(m) => m.clone(),
        None => {
            let ranked = pipeline::detect(path, mappings).map_err(|e| e.to_string())?;
            let chosen = pipeline::open::choose(path, mappings, &ranked).map_err(|e| e.to_string())?;
            let m = mappings
                .iter()
                .find(|m| m.name == chosen.mapping)
                .cloned()
                .ok_or_else(|| "internal: detected mapping vanished".to_string())?;
            if chosen.role == Role::JoinHeader {
                // Nothing to say when a lines file given with it reads it.
                return match pipeline::open::header_alone_message(&m, path, all_files) {
                    None => Ok(None),
                    Some(message) => Err(message),
                };
            }
            Arc::new(m)
        }
    };
    let sending = dispatch.is_some();
    // Rows of one number in more than one block of the file: no part of that document may be
    // sent, the first included, which is read before the others. `run` and `watch` find such
    // numbers in a first pass over the file before anything is sent. `check` sends nothing: it
    // checks once without that pass (its cost, about a tenth of check's, is spent only when
    // needed) and, when a number did reappear, checks the file again knowing them, so that its
    // results say what `run` would do (but for a number the ledger holds, which `check` does
    // not read: `run` reads such a document's parts together, `pipeline::assemble`).
    // Likewise the look over a file's dates for a mapping that writes one order of day and
    // month (`%d/%m/%Y`): `run` and `watch` look before anything is sent; `check` reads in the
    // mapping's order and looks, checking the file again, only when a date reads only the other
    // way (`10/31/2026`: `mapping::dates::ORDER_CODE`).
    let mut splits = None;
    let mut dates_looked = sending;
    let mut dispatch = dispatch;
    // What the result set about to be replaced lists as issued: not sent again when the ledger
    // does not know it (`elsewhere.rs`).
    if let Some(d) = dispatch.as_deref_mut() {
        d.accepted_before(crate::results::AcceptedBefore::read(results, path));
    }
    let (mut writer, mut summary) = loop {
        let mut prepared =
            pipeline::prepare_looking(path, mapping.clone(), config, dates_looked).map_err(|e| e.to_string())?;
        if sending && splits.is_none() {
            splits = Some(Arc::new(
                pipeline::split_keys(path, &prepared.bound).map_err(|e| e.to_string())?,
            ));
        }
        let known = splits.is_some();
        prepared.input.splits = splits.clone();
        let mut summary = FileSummary {
            file: path.display().to_string(),
            mapping: mapping.name.clone(),
            notes: prepared.notes.clone(),
            ..Default::default()
        };
        let headers = prepared.bound.headers.names();
        let mut writer = match ResultWriter::create(results, path, &headers) {
            Ok(w) => w,
            Err(e) => {
                let message = format!("cannot write the result file in {}: {e}", results.display());
                if !(sending && crate::results::folder_unusable(&e)) {
                    return Err(message);
                }
                return Ok(Some(Checked {
                    summary: whole_file_error(path, message),
                    folder_unusable: Some(e.to_string()),
                }));
            }
        };
        writer.set_mapping(&mapping.name);
        summary.notes.extend(writer.previous_results_note());
        let bound = prepared.bound.clone();
        // A number whose rows are apart and that the ledger holds (issued in an earlier run):
        // its parts are read together and reported as what the ledger says, never sent.
        if let (Some(s), Some(d)) = (
            splits.as_ref().filter(|s| sending && !s.is_empty()),
            dispatch.as_deref_mut(),
        ) {
            prepared.input.assembled = pipeline::assemble(path, &bound, s, opts, &mut writer, d);
        }
        if let Err(e) = pipeline::check_stream(
            prepared.input,
            prepared.bound,
            opts,
            &mut writer,
            &mut summary,
            dispatch.as_deref_mut(),
        ) {
            let stop = sending && crate::results::folder_unusable(&e);
            summary.error = Some(format!(
                "{e}: the result files of this input were not written (whatever {} held before is kept); \
                 free some space (or raise the file size limit) and try again{}",
                results.display(),
                sent_note(sending)
            ));
            return Ok(Some(Checked {
                summary,
                folder_unusable: stop.then(|| e.to_string()),
            }));
        }
        let split_again = !known && summary.codes.contains_key(crate::mapping::SPLIT_CODE);
        let look_again = !dates_looked && summary.codes.contains_key(crate::mapping::dates::ORDER_CODE);
        if !split_again && !look_again {
            break (writer, summary);
        }
        // Only `check` comes here (nothing was sent): the results written are dropped.
        drop(writer);
        if split_again {
            splits = Some(Arc::new(pipeline::split_keys(path, &bound).map_err(|e| e.to_string())?));
        }
        dates_looked |= look_again;
    };
    // How the file was read (its encoding, delimiter, date order...) stays with its results.
    for n in &summary.notes {
        writer.note(n.clone());
    }
    if writer.rows() == 0 {
        writer.note(NO_ROWS_NOTE);
    }
    let finished = match writer.finish() {
        Ok(f) => f,
        Err(e) => {
            let stop = sending && e.folder_unusable();
            summary.error = Some(format!(
                "cannot finish the result files: {e}; make room in {} (or move what is in the way) and \
                 try again{}",
                results.display(),
                sent_note(sending)
            ));
            return Ok(Some(Checked {
                summary,
                folder_unusable: stop.then(|| e.to_string()),
            }));
        }
    };
    if summary.rows == 0 {
        summary.notes.push(NO_ROWS_NOTE.to_string());
    }
    // Documents issued earlier that the results keep (the notes are in the summary too); those
    // the export no longer holds are documents of the result set, accepted, as its summary
    // counts them.
    summary.notes.extend(finished.kept.notes.iter().cloned());
    summary.documents.accepted += finished.kept.not_in_export;
    summary.documents.kept += finished.kept.not_in_export;
    summary.result_file = Some(finished.result_csv.display().to_string());
    summary.result_xlsx = finished.result_xlsx.map(|p| p.display().to_string());
    summary.summary_file = Some(finished.summary_json.display().to_string());
    summary.summary = Some(finished.summary);
    if let Some(changed) = &summary.changed {
        summary.error = Some(changed_error(changed, sending));
    }
    Ok(Some(Checked::of(summary)))
}

/// The error of a file that changed while it was read: its results are written, its last
/// documents held back (`INV-FILE-CHANGED`), and it is to be run again once complete. A
/// whole-file error (exit 2): the results do not cover the file as it now is.
fn changed_error(changed: &pipeline::FileChanged, sending: bool) -> String {
    if sending {
        changed.explain(
            "not sent",
            "Run it again once it is complete: what was sent is reported from the ledger and only the rest is sent",
        )
    } else {
        changed.explain("held back", "Check it again once it is complete")
    }
}

/// The note on an export that holds its header and no row: a nightly export of a day without
/// documents does, and so does one that stopped early or whose filter matched nothing. Not an
/// error (the first is normal), but said, where a 0-byte file is an error.
pub(crate) const NO_ROWS_NOTE: &str = "the export holds its header and no row: nothing was checked or sent. If it \
     should hold documents, the export stopped early or its filter matched nothing: export it again";

/// What `run` adds to a file's failure to write its results: the documents it sent are safe.
fn sent_note(sending: bool) -> &'static str {
    if sending {
        ". The documents of this file already sent are in the ledger (the --state folder): the next \
         run writes their results from it and does not send them again"
    } else {
        ""
    }
}

/// Run `invoicedrop check`.
pub fn check(args: CheckArgs, cli: &Cli) -> anyhow::Result<Status> {
    preflight(&args.paths, &args.input, Purpose::Check)?;
    let config = Config::load(args.input.config.as_deref())?;
    let now = parse_now(&args.now)?;
    super::folder::no_file_in_the_way(&args.input.results)?;
    let report = process(&args.paths, &args.input, &config, now, cli, args.list.limit(), None)?;
    print(&report, cli)?;
    Ok(report.status())
}

/// Check every export of `paths` (files, or folders' exports), handing valid documents to
/// `dispatch` when there is one, and write the result files; the report, to [`print`] once the
/// caller has added what it knows. Shared by `check` and `run`. `list_limit`: the most documents
/// listed per file (`None`: all).
pub(super) fn process(
    paths: &[PathBuf],
    input: &InputArgs,
    config: &Config,
    now: DateTime<Utc>,
    cli: &Cli,
    list_limit: Option<usize>,
    dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> anyhow::Result<Report> {
    let sending = dispatch.is_some();
    process_inputs(paths, input, config, now, cli, list_limit, sending, dispatch)
}

/// [`process`]; `sending` without `dispatch`: `run` with every export refused ([`all_refused`]).
#[allow(clippy::too_many_arguments)]
fn process_inputs(
    paths: &[PathBuf],
    input: &InputArgs,
    config: &Config,
    now: DateTime<Utc>,
    cli: &Cli,
    list_limit: Option<usize>,
    sending: bool,
    dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> anyhow::Result<Report> {
    if let Some(note) = crate::results::stale::clean_note(&input.results)
        && !cli.quiet
    {
        crate::logging::note(note);
    }
    let args = ProcessArgs {
        paths,
        input,
        keep_others: true,
        sending,
    };
    let mut report = evaluate_inputs(args, config, now, None, list_limit, !cli.quiet, dispatch)?.0;
    report.document_list_truncated = report.files.iter().any(list_truncated);
    if report.document_list_truncated {
        report.document_list_note = Some(format!(
            "document_list holds the first {} documents of each file (document_list_truncated says which lists were cut): \
             --list-all lists every document, --list-limit N up to N",
            list_limit.unwrap_or_default()
        ));
    }
    Ok(report)
}

/// [`process`] without printing anything but the demo-seller note (when `notes`): the report and
/// its exit status. `batch` overrides the documents per batch; `list_limit` is the most
/// documents listed per file (`None`: all). Used by `watch`, one file at a time: the watcher
/// gives each file a result set name of its own (a time-stamped one when the name is taken), and
/// writes a file's results again from `done/`, so a set of the same name is not refused here
/// (as `check` and `run` refuse another input's, see [`process`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn evaluate(
    paths: &[PathBuf],
    input: &InputArgs,
    config: &Config,
    now: DateTime<Utc>,
    batch: Option<usize>,
    list_limit: Option<usize>,
    notes: bool,
    dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> anyhow::Result<(Report, Status)> {
    let args = ProcessArgs {
        paths,
        input,
        keep_others: false,
        sending: dispatch.is_some(),
    };
    evaluate_inputs(args, config, now, batch, list_limit, notes, dispatch)
}

/// [`evaluate`], and with `args.keep_others` an input whose result set or artefacts folder would
/// replace another input's (of the same file name, or of a name made safe alike, written by an
/// earlier `check` or `run` into the same results folder) is refused before it is read
/// ([`Refusals`]).
fn evaluate_inputs(
    args: ProcessArgs<'_>,
    config: &Config,
    now: DateTime<Utc>,
    batch: Option<usize>,
    list_limit: Option<usize>,
    notes: bool,
    mut dispatch: Option<&mut (dyn Dispatch + '_)>,
) -> anyhow::Result<(Report, Status)> {
    let paths = args.paths;
    let (seller, demo) = config.seller();
    let explicit = match &args.input.mapping {
        Some(spec) => Some(Arc::new(pipeline::load_mapping(spec)?)),
        None => None,
    };
    let mappings = bundled::all()?;
    let mut side: Vec<Mapping> = mappings.clone();
    side.extend(explicit.iter().map(|m| (**m).clone()));
    let side_files = pipeline::lookup_file_names(&side);
    let mut skipped_files = Vec::new();
    let mut files_out = Vec::new();
    let files = expand(args.paths, &side_files, &mut skipped_files, &mut files_out);
    let (files, moved) = notes_last(files, explicit.as_ref(), &mappings, config);
    if let Some(d) = dispatch.as_deref_mut() {
        d.inputs(&files);
    }
    let mut opts = CheckOptions::new(now, seller);
    opts.max_briefs = list_limit.unwrap_or(usize::MAX);
    opts.device = dispatch.as_ref().and_then(|d| d.device());
    opts.originals = dispatch.as_ref().and_then(|d| d.originals());
    if dispatch.is_none() {
        opts.batch = pipeline::CHECK_BATCH_DOCUMENTS;
        // A number used again in a later file (run's ledger answers for it when sending). One
        // file has no later file: its numbers are not kept (a table of every document's number,
        // for a backlog of a million rows about 10 MB and a few per cent of the time).
        if files.len() > 1 {
            opts.numbers = Some(Default::default());
        }
    }
    if let Some(b) = batch {
        opts.batch = b.max(1);
    }
    if demo && notes {
        crate::logging::note(format_args!(
            "no configuration ({}): the seller is the built-in demo seller of the sandbox, VAT {}. Put your company in a [seller] table to check your own documents.",
            args.input
                .config
                .as_ref()
                .map_or("./invoicedrop.toml not found".to_string(), |p| p.display().to_string()),
            crate::model::example::SELLER_VAT
        ));
    }
    let results = &args.input.results;
    let sending = args.sending;
    let mut refusals = Refusals::new(results, args.keep_others, sending);
    // The file whose result files the results folder could not take, and why: `run` reads and
    // sends no later file.
    let mut stopped: Option<(PathBuf, String)> = None;
    for (i, f) in files.iter().enumerate() {
        if let Some((at, why)) = &stopped {
            files_out.push(whole_file_error(f, not_sent_error(at, why, results)));
            continue;
        }
        if let Some(why) = refusals.refuse(f) {
            files_out.push(whole_file_error(f, why));
            continue;
        }
        if sending && dispatch.is_none() {
            // `run` found every export refused before it started, and this one is not now.
            files_out.push(whole_file_error(f, changed_meanwhile(results)));
            continue;
        }
        match check_one(
            f,
            explicit.as_ref(),
            &mappings,
            &files,
            config,
            &opts,
            results,
            dispatch.as_deref_mut(),
        ) {
            Ok(Some(Checked {
                summary: mut s,
                folder_unusable,
            })) => {
                if let Some((_, passed)) = moved.iter().find(|(m, _)| m == f) {
                    s.notes.insert(0, notes_last_note(passed));
                }
                stopped = folder_unusable.map(|why| (f.clone(), why));
                if let Some(e) = s.error.as_mut().filter(|_| stopped.is_some() && i + 1 < files.len()) {
                    e.push_str(STOP_NOTE);
                }
                files_out.push(s);
            }
            Ok(None) => skipped_files.push(format!("{}: header file, read with its lines file", f.display())),
            Err(e) => files_out.push(whole_file_error(f, e)),
        }
    }
    let mut report = Report {
        demo_seller: demo,
        sandbox: false,
        files: files_out,
        skipped_files,
        rows: 0,
        documents: Default::default(),
        codes: BTreeMap::new(),
        document_list_limit: list_limit,
        document_list_truncated: false,
        document_list_note: None,
        exit_code: 0,
        error: None,
        no_exports: files.is_empty().then(|| no_export_text(args.paths, sending)),
        sending,
    };
    for f in &report.files {
        report.rows += f.rows;
        report.documents.merge(&f.documents);
        for (c, n) in &f.codes {
            *report.codes.entry(c.clone()).or_default() += n;
        }
    }
    let status = if report.files.iter().any(|f| f.error.is_some()) || (files.is_empty() && report.files.is_empty()) {
        Status::Error
    } else if report.documents.bad() > 0 || report.files.iter().any(|f| f.rows_invalid > 0) {
        Status::Failure
    } else {
        Status::Success
    };
    report.exit_code = status.code();
    if status == Status::Error {
        report.error = Some(whole_file_error_doc(&report, paths));
    }
    Ok((report, status))
}

/// The `error` of a report with exit code 2 for its files: how many could not be processed as
/// a whole (each file's own `error` says why), or no export at all.
fn whole_file_error_doc(r: &Report, paths: &[PathBuf]) -> ErrorDoc {
    let failed: Vec<&FileSummary> = r.files.iter().filter(|f| f.error.is_some()).collect();
    let message = match failed.first() {
        Some(first) => format!(
            "{} of {} input file(s) could not be processed as a whole (the `error` of each in `files` says why), \
             first {}: {}",
            failed.len(),
            r.files.len(),
            first.file,
            first.error.as_deref().unwrap_or_default()
        ),
        None => no_export_text(paths, r.sending),
    };
    ErrorDoc::new(ErrorKind::File, message)
}

struct ProcessArgs<'a> {
    paths: &'a [PathBuf],
    input: &'a InputArgs,
    /// Refuse an input whose result set or artefacts folder would replace another input's
    /// (`check`, `run`).
    keep_others: bool,
    /// The documents are sent (`run`, `watch`): with no dispatch, `run` found every export
    /// refused before it started, and nothing is read.
    sending: bool,
}

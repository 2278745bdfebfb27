//! The errors of `check` and `run` that keep a file from being read: a result set of another
//! export of the same file name in the way, or of another name with the same artefacts folder
//! ([`Refusals`]), and (`run`) a results folder that took no more result files, said on the file
//! that found it and on each later file.

use super::Report;
use crate::cli::{Cli, InputArgs};
use crate::config::Config;
use crate::results::artefacts::folder_name;
use crate::results::owner::{Folders, Owner, SharedFolder, folder_owner, owner};
use chrono::Utc;
use std::path::{Path, PathBuf};

/// Which inputs of one `check` or `run` are refused before they are read, and why: an input whose
/// result file name or artefacts folder an earlier input of the same command took, and (with
/// `keep_others`) one whose result set or artefacts folder is another input's, written by an
/// earlier `check` or `run` into the same results folder. An input not refused takes its names.
///
/// The results folder's sets are read once, when the command starts: what its own inputs write
/// later is told by the names they took.
pub(super) struct Refusals<'a> {
    results: &'a Path,
    keep_others: bool,
    sending: bool,
    folders: Folders,
    /// The result file, the artefacts folder and the input of each input taken so far.
    taken: Vec<(PathBuf, String, PathBuf)>,
}

impl<'a> Refusals<'a> {
    pub(super) fn new(results: &'a Path, keep_others: bool, sending: bool) -> Refusals<'a> {
        Refusals {
            results,
            keep_others,
            sending,
            folders: if keep_others {
                Folders::read(results)
            } else {
                Folders::default()
            },
            taken: Vec::new(),
        }
    }

    /// Why `input` is not to be read, or `None`, and then it takes its names.
    pub(super) fn refuse(&mut self, input: &Path) -> Option<String> {
        let target = crate::results::result_path(self.results, input);
        let folder = folder_name(&crate::results::input_stem(input));
        if let Some((_, _, other)) = self.taken.iter().find(|(t, _, _)| *t == target) {
            return Some(format!(
                "its result file {} would overwrite the one of {}; rename one of the two exports",
                target.display(),
                other.display()
            ));
        }
        if let Some((_, _, other)) = self.taken.iter().find(|(_, f, _)| *f == folder) {
            return Some(format!(
                "its artefacts folder {}/ (the signed XML and QR files of its accepted documents) would be \
                 the one of {} too ({SAFE_NAMES}); rename one of the two exports",
                self.results.join(&folder).display(),
                other.display()
            ));
        }
        if self.keep_others {
            if let Owner::Other(other) = owner(self.results, input) {
                return Some(replaces_error(input, &target, &other, self.results, self.sending));
            }
            if let Some(shared) = folder_owner(&self.folders, self.results, input) {
                return Some(shares_error(&shared, self.results, self.sending));
            }
        }
        self.taken.push((target, folder, input.to_path_buf()));
        None
    }
}

/// `run`, before anything starts (the built-in sandbox, the connection, documents left
/// unanswered by an earlier run): when every export of `paths` is refused before it is read (see
/// [`Refusals`]), the report saying so, for nothing is to be sent; `None` when an export is to
/// be run.
pub(in crate::commands) fn all_refused(
    paths: &[PathBuf],
    input: &InputArgs,
    config: &Config,
    cli: &Cli,
    list_limit: Option<usize>,
) -> anyhow::Result<Option<Report>> {
    let files = super::super::inputs::exports(paths, input)?;
    let mut refusals = Refusals::new(&input.results, true, true);
    // A file is refused for a name an earlier one took only when that one is not: then every
    // file is refused when each is refused by the results folder, whatever their order.
    if files.is_empty() || !files.iter().all(|f| refusals.refuse(f).is_some()) {
        return Ok(None);
    }
    super::process_inputs(paths, input, config, Utc::now(), cli, list_limit, true, None).map(Some)
}

/// Why two names share an artefacts folder.
const SAFE_NAMES: &str = "a folder's name keeps letters, digits, `-`, `_`, `.` and spaces of the file's \
     name, and anything else becomes `-`";

/// What `run` says of renaming an export.
const RENAMED: &str = " (the ledger knows documents by their number, not by their file: a document issued \
     before is reported from it and not sent again)";

/// The error of an input whose artefacts folder is that of `shared`, another input's result set
/// of another name, written by an earlier `check` or `run` into the same results folder.
fn shares_error(shared: &SharedFolder, results: &Path, sending: bool) -> String {
    let other = &shared.other;
    let issued = match other.accepted {
        0 => String::new(),
        n => format!(
            ", the signed XML and QR files of its {}",
            crate::text::count_of(n, "accepted document", "accepted documents")
        ),
    };
    format!(
        "its artefacts folder {}/ would replace the one of {} (result set {}, written {}{issued}; \
         {SAFE_NAMES}): give this export another --results folder, or rename it{}; if it is that \
         export, renamed, first move {}.* and {}/ out of {}. Nothing of this export was {}",
        results.join(&shared.folder).display(),
        other.input,
        shared.set,
        other.time,
        if sending { RENAMED } else { "" },
        shared.set,
        shared.folder,
        results.display(),
        if sending { "read or sent" } else { "read" }
    )
}

/// The error of an input whose result set would replace `other`'s, another input's of the same
/// file name, written by an earlier `check` or `run` into the same results folder.
fn replaces_error(
    input: &Path,
    target: &Path,
    other: &crate::results::owner::OtherSet,
    results: &Path,
    sending: bool,
) -> String {
    let issued = match other.accepted {
        0 => String::new(),
        n => format!(
            "; with it the signed XML and QR files of its {}",
            crate::text::count_of(n, "accepted document", "accepted documents")
        ),
    };
    let stem = crate::results::input_stem(input);
    format!(
        "its result file {} would replace the one of {} (written {}{issued}): give this export another \
         --results folder, or rename it{}; if it is that export, moved, first move {stem}.* and {}/ out \
         of {}. Nothing of this export was {}",
        target.display(),
        other.input,
        other.time,
        if sending { RENAMED } else { "" },
        folder_name(&stem),
        results.display(),
        if sending { "read or sent" } else { "read" }
    )
}

/// The error of a file of `run` that was refused when the run was to start (every export was,
/// so nothing was started) and is not when it is read: the results folder changed meanwhile.
pub(super) fn changed_meanwhile(results: &Path) -> String {
    format!(
        "not read, and nothing of it sent: every export of this run was refused when it was to start, \
         and {} changed meanwhile (another run writing into it?); run again",
        results.display()
    )
}

/// What `run` adds to the error of a file whose result files the results folder could not take,
/// when later files follow.
pub(super) const STOP_NOTE: &str = ". No later file of this run is read or sent: its documents would be issued \
                         without result files";

/// The error of a file of `run` not read because the results folder could not take the result
/// files of `stopped_at` (`why`).
pub(super) fn not_sent_error(stopped_at: &Path, why: &str, results: &Path) -> String {
    format!(
        "not read, and nothing of it sent: the result files of {} could not be written ({why}), and a \
         document is sent only when its result files can be written; make room in {} (or raise the file \
         size limit) and run again: what was sent is reported from the ledger, not sent again",
        stopped_at.display(),
        results.display()
    )
}

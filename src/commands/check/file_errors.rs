//! The errors of `check` and `run` that keep a file from being read: a result set of another
//! export of the same file name in the way, and (`run`) a results folder that took no more result
//! files, said on the file that found it and on each later file.

use std::path::Path;

/// The error of an input whose result set would replace `other`'s, another input's of the same
/// file name, written by an earlier `check` or `run` into the same results folder.
pub(super) fn replaces_error(
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
        if sending {
            " (the ledger knows documents by their number, not by their file: a document issued before is \
             reported from it and not sent again)"
        } else {
            ""
        },
        crate::results::artefacts::folder_name(&stem),
        results.display(),
        if sending { "read or sent" } else { "read" }
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

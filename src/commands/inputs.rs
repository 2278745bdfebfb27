//! The paths given to `check` and `run`: looked at before anything starts (the built-in sandbox,
//! a connection, a ledger, the results folder), so that a mistyped path is said once, with what
//! to do, and nothing else happens; then the exports they hold, for each run.

use super::json::{ErrorKind, Fatal};
use crate::cli::InputArgs;
use crate::config::Config;
use crate::mapping::{Mapping, bundled};
use crate::pipeline::{self, FileSummary};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Extensions read from folders.
const EXTENSIONS: &[&str] = &["csv", "tsv", "txt", "xlsx", "xlsm", "xls", "xlsb", "ods"];

/// What is done with the exports, for the words of the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Purpose {
    /// `check`: nothing is sent.
    Check,
    /// `run`: the documents are issued.
    Issue,
}

impl Purpose {
    fn verb(self) -> &'static str {
        match self {
            Purpose::Check => "check",
            Purpose::Issue => "issue",
        }
    }

    fn nothing_done(self) -> &'static str {
        match self {
            Purpose::Check => "nothing was checked",
            Purpose::Issue => "nothing was started or sent",
        }
    }
}

/// What is wrong with a path given on the command line, if anything: it must be a file, or a
/// folder that can be listed.
fn path_problem(p: &Path) -> Option<String> {
    match std::fs::metadata(p) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("no such file or folder".into()),
        Err(e) => Some(format!("cannot be read ({e})")),
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .err()
            .map(|e| format!("cannot list this folder ({e})")),
        Ok(m) if m.is_file() => None,
        Ok(_) => Some("neither a file nor a folder".into()),
    }
}

/// Refuse, before anything starts, paths that are not there (or cannot be listed), a mapping that
/// cannot be loaded, and paths that hold no export: one message naming each path at fault and
/// what to do, exit 2.
pub(super) fn preflight(paths: &[PathBuf], input: &InputArgs, purpose: Purpose) -> anyhow::Result<()> {
    let at_fault: Vec<(&PathBuf, String)> = paths
        .iter()
        .filter_map(|p| path_problem(p).map(|why| (p, why)))
        .collect();
    if !at_fault.is_empty() {
        let problems: Vec<String> = at_fault
            .iter()
            .map(|(p, why)| format!("{}: {why}", p.display()))
            .collect();
        // Where a relative path was looked for, when one is at fault.
        let here = match std::env::current_dir() {
            Ok(d) if at_fault.iter().any(|(p, _)| p.is_relative()) => {
                format!(" (relative paths are read from {})", d.display())
            }
            _ => String::new(),
        };
        let head = match problems.as_slice() {
            [one] => one.clone(),
            many if many.len() == paths.len() => {
                format!(
                    "none of the {} paths given can be used: {}",
                    many.len(),
                    many.join("; ")
                )
            }
            many => format!(
                "{} of the {} paths given cannot be used: {}",
                many.len(),
                paths.len(),
                many.join("; ")
            ),
        };
        return Err(Fatal::usage(format!(
            "{head}. Give the export files, or the folders that hold them{here}; {}",
            purpose.nothing_done()
        ))
        .into());
    }
    let (mut skipped, mut errors) = (Vec::new(), Vec::new());
    let files = expand_with(paths, input, &mut skipped, &mut errors)?;
    if files.is_empty() && errors.is_empty() {
        let passed = if skipped.is_empty() {
            String::new()
        } else {
            format!(" ({})", skipped.join("; "))
        };
        return Err(Fatal::new(
            ErrorKind::File,
            format!(
                "{}{passed}: a folder's files ending {} are read (not its sub-folders, hidden files or result \
                 files); give the export files, or the folder that holds them; {}",
                no_export_text(paths, purpose == Purpose::Issue),
                EXTENSIONS
                    .iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                purpose.nothing_done()
            ),
        )
        .into());
    }
    Ok(())
}

/// The exports of `paths` ([`expand`], with the side files of the mappings), as given.
fn expand_with(
    paths: &[PathBuf],
    input: &InputArgs,
    skipped: &mut Vec<String>,
    errors: &mut Vec<FileSummary>,
) -> anyhow::Result<Vec<PathBuf>> {
    let explicit = match &input.mapping {
        Some(spec) => Some(pipeline::load_mapping(spec)?),
        None => None,
    };
    let mut side: Vec<Mapping> = bundled::all()?;
    side.extend(explicit);
    Ok(expand(paths, &pipeline::lookup_file_names(&side), skipped, errors))
}

/// The exports of `paths`, in the order given (a folder's in name order).
pub(super) fn exports(paths: &[PathBuf], input: &InputArgs) -> anyhow::Result<Vec<PathBuf>> {
    expand_with(paths, input, &mut Vec::new(), &mut Vec::new())
}

/// `no export to check in a, b` (`issue` when `sending`).
pub(super) fn no_export_text(paths: &[PathBuf], sending: bool) -> String {
    let purpose = if sending { Purpose::Issue } else { Purpose::Check };
    format!("no export to {} in {}", purpose.verb(), paths_text(paths))
}

/// `a, b`: the paths as given.
fn paths_text(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Files to check: files as given, folders' exports (non-recursive), without our own result
/// files and the side files (lookups) the mappings declare.
pub(super) fn expand(
    paths: &[PathBuf],
    side_files: &[String],
    skipped: &mut Vec<String>,
    errors: &mut Vec<FileSummary>,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = match std::fs::read_dir(p) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_file())
                    .collect(),
                Err(e) => {
                    errors.push(whole_file_error(p, format!("cannot list the folder: {e}")));
                    continue;
                }
            };
            entries.sort();
            for f in entries {
                let name = f
                    .file_name()
                    .map(|n| n.to_string_lossy().to_lowercase())
                    .unwrap_or_default();
                let ext = f
                    .extension()
                    .map(|e| e.to_string_lossy().to_lowercase())
                    .unwrap_or_default();
                if name.starts_with('.') || !EXTENSIONS.contains(&ext.as_str()) {
                    continue;
                }
                // The names `watch` never takes: Office's lock file `~$book.xlsx`, kept beside a
                // workbook someone has open, and the temporary names of copies under way.
                if !crate::watch::is_candidate(&name) {
                    skipped.push(format!(
                        "{}: a lock or temporary file (Office's ~$ owner file of an open workbook, or a copy \
                         under way), not an export",
                        f.display()
                    ));
                    continue;
                }
                if name.contains(".result.") || name.ends_with(".documents.csv") {
                    continue;
                }
                if side_files.contains(&name) {
                    skipped.push(format!("{}: a lookup table of a mapping, not an export", f.display()));
                    continue;
                }
                out.push(f);
            }
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            errors.push(whole_file_error(p, "no such file or folder".into()));
        }
    }
    once_each(out, skipped)
}

/// The files of `files` each once: a file given twice (`a.csv ./a.csv`, or as itself and in its
/// folder) is read at its first place, and the other said in `skipped`.
fn once_each(files: Vec<PathBuf>, skipped: &mut Vec<String>) -> Vec<PathBuf> {
    let mut seen: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(files.len());
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let real = std::fs::canonicalize(&f).unwrap_or_else(|_| f.clone());
        if let Some((_, first)) = seen.iter().find(|(r, _)| *r == real) {
            skipped.push(format!(
                "{}: the same file as {}, given twice: read once",
                f.display(),
                first.display()
            ));
            continue;
        }
        seen.push((real, f.clone()));
        out.push(f);
    }
    out
}

/// The exports in the order they are read: as given (a folder's in name order), except that an
/// export whose every document is a credit or debit note (Zoho's `Credit_Note.csv`, which sorts
/// before its `Invoice.csv`; a Xero export of credit notes alone, by its rows:
/// [`pipeline::holds_only_notes`]) goes after the exports that may hold invoices, so that the invoices
/// its notes correct are read, and their dates known, first. Returns each moved export with the
/// exports it now follows, for its note. A file whose mapping cannot be told stays where it is.
pub(super) fn notes_last(
    files: Vec<PathBuf>,
    explicit: Option<&Arc<Mapping>>,
    mappings: &[Mapping],
    config: &Config,
) -> (Vec<PathBuf>, Vec<(PathBuf, Vec<PathBuf>)>) {
    if files.len() < 2 {
        return (files, Vec::new());
    }
    let notes_only = |f: &Path| match explicit {
        Some(m) => pipeline::holds_only_notes(f, m, config),
        None => pipeline::detect(f, mappings)
            .ok()
            .and_then(|ranked| pipeline::open::choose(f, mappings, &ranked).ok())
            .and_then(|c| mappings.iter().find(|m| m.name == c.mapping))
            .is_some_and(|m| pipeline::holds_only_notes(f, &Arc::new(m.clone()), config)),
    };
    let marked: Vec<(PathBuf, bool)> = files
        .into_iter()
        .map(|f| {
            let n = notes_only(&f);
            (f, n)
        })
        .collect();
    let mut moved = Vec::new();
    for (i, (f, notes)) in marked.iter().enumerate() {
        if !notes {
            continue;
        }
        let passed: Vec<PathBuf> = marked[i + 1..]
            .iter()
            .filter(|(_, n)| !n)
            .map(|(g, _)| g.clone())
            .collect();
        if !passed.is_empty() {
            moved.push((f.clone(), passed));
        }
    }
    let (mut first, last): (Vec<_>, Vec<_>) = marked.into_iter().partition(|(_, n)| !n);
    first.extend(last);
    (first.into_iter().map(|(f, _)| f).collect(), moved)
}

/// The note of an export read after others by [`notes_last`].
pub(super) fn notes_last_note(passed: &[PathBuf]) -> String {
    let mut names: Vec<String> = passed
        .iter()
        .take(3)
        .map(|p| {
            p.file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
        })
        .collect();
    if passed.len() > 3 {
        names.push(format!("{} more", passed.len() - 3));
    }
    format!(
        "read after {}: every document of this export is a credit or debit note, so the exports \
         that may hold the invoices they correct are read first (their dates go into the notes' \
         billing references)",
        names.join(", ")
    )
}

/// The summary of an input that could not be processed as a whole.
pub(super) fn whole_file_error(p: &Path, message: String) -> FileSummary {
    FileSummary {
        file: p.display().to_string(),
        error: Some(message),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_of_notes_alone_goes_after_the_others_which_keep_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        let put = |name: &str, sample: &str| {
            let p = dir.path().join(name);
            std::fs::copy(samples.join(sample), &p).unwrap();
            p
        };
        let notes = put("a_notes.csv", "zoho_credit_notes.csv");
        let xero = put("b_xero.csv", "xero_sales_invoices.csv");
        let unreadable = dir.path().join("c_missing.csv");
        let zoho = put("d_zoho.csv", "zoho_invoices.csv");
        let mappings = bundled::all().unwrap();
        let given = vec![notes.clone(), xero.clone(), unreadable.clone(), zoho.clone()];
        let (order, moved) = notes_last(given.clone(), None, &mappings, &Config::default());
        assert_eq!(order, [xero.clone(), unreadable.clone(), zoho.clone(), notes.clone()]);
        assert_eq!(moved, [(notes.clone(), vec![xero.clone(), unreadable, zoho.clone()])]);
        assert!(
            notes_last_note(&moved[0].1).starts_with("read after b_xero.csv, c_missing.csv, d_zoho.csv: every"),
            "{}",
            notes_last_note(&moved[0].1)
        );
        let five: Vec<PathBuf> = (0..5).map(|i| PathBuf::from(format!("x/{i}.csv"))).collect();
        assert!(notes_last_note(&five).starts_with("read after 0.csv, 1.csv, 2.csv, 2 more: "));
        // Already last, or alone, or one mapping for all: nothing moves.
        let (order, moved) = notes_last(vec![zoho.clone(), notes.clone()], None, &mappings, &Config::default());
        assert_eq!((order, moved.len()), (vec![zoho.clone(), notes.clone()], 0));
        let (order, moved) = notes_last(vec![notes.clone()], None, &mappings, &Config::default());
        assert_eq!((order, moved.len()), (vec![notes.clone()], 0));
        // By its rows: a Xero export of credit notes alone goes after one of invoices; one that
        // holds an invoice too keeps its place.
        let text = std::fs::read_to_string(samples.join("xero_sales_invoices.csv")).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        let (cn, rest): (Vec<&str>, Vec<&str>) = lines.partition(|l| l.contains(",CN-0006,"));
        assert!(!cn.is_empty() && cn.iter().all(|l| l.contains("Sales Credit Note")));
        let xero_notes = dir.path().join("a_xero_notes.csv");
        std::fs::write(&xero_notes, format!("{header}\n{}\n", cn.join("\n"))).unwrap();
        let mixed = dir.path().join("a_xero_mixed.csv");
        std::fs::write(&mixed, format!("{header}\n{}\n{}\n", cn.join("\n"), rest[0])).unwrap();
        let (order, moved) = notes_last(
            vec![mixed.clone(), xero_notes.clone(), xero.clone()],
            None,
            &mappings,
            &Config::default(),
        );
        assert_eq!(order, [mixed.clone(), xero.clone(), xero_notes.clone()]);
        assert_eq!(moved, [(xero_notes.clone(), vec![xero.clone()])]);
        // The mapping given: the same, by the rows.
        let xero_mapping = Arc::new(bundled::get("xero").unwrap().unwrap());
        let (order, _) = notes_last(
            vec![xero_notes.clone(), xero.clone()],
            Some(&xero_mapping),
            &mappings,
            &Config::default(),
        );
        assert_eq!(order, [xero.clone(), xero_notes.clone()]);
        let zoho_notes = Arc::new(mappings.iter().find(|m| m.notes_only()).unwrap().clone());
        let (order, moved) = notes_last(given.clone(), Some(&zoho_notes), &mappings, &Config::default());
        assert_eq!((order, moved.len()), (given, 0));
    }

    #[test]
    fn a_file_given_twice_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, "x\n").unwrap();
        let again = dir.path().join(".").join("a.csv");
        let (mut skipped, mut errors) = (Vec::new(), Vec::new());
        let files = expand(
            &[a.clone(), again.clone(), dir.path().to_path_buf()],
            &[],
            &mut skipped,
            &mut errors,
        );
        assert_eq!(files, std::slice::from_ref(&a));
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert_eq!(
            skipped[0],
            format!(
                "{}: the same file as {}, given twice: read once",
                again.display(),
                a.display()
            )
        );
    }

    fn input() -> InputArgs {
        InputArgs {
            mapping: None,
            config: None,
            results: PathBuf::from("results"),
        }
    }

    fn refused(paths: &[PathBuf], input: &InputArgs, purpose: Purpose) -> (ErrorKind, String) {
        let e = preflight(paths, input, purpose).expect_err("refused");
        (super::super::json::ErrorDoc::of(&e).kind, format!("{e:#}"))
    }

    #[test]
    fn a_missing_path_is_said_once_with_what_to_do_before_anything_starts() {
        let dir = tempfile::tempdir().unwrap();
        let export = dir.path().join("a.csv");
        std::fs::write(&export, "x\n").unwrap();
        let missing = dir.path().join("nope.csv");
        let (kind, e) = refused(std::slice::from_ref(&missing), &input(), Purpose::Issue);
        assert_eq!(kind, ErrorKind::Usage);
        assert!(
            e.starts_with(&format!(
                "{}: no such file or folder. Give the export files",
                missing.display()
            )) && e.contains("nothing was started or sent")
                && !e.contains("to check"),
            "{e}"
        );
        // Among other paths: each at fault is named; the good one does not make it go.
        let (_, e) = refused(
            &[export.clone(), missing.clone(), "/nonexistent".into()],
            &input(),
            Purpose::Check,
        );
        assert!(
            e.starts_with("2 of the 3 paths given cannot be used: ")
                && e.contains("nope.csv: no such file or folder; /nonexistent: no such file or folder")
                && e.ends_with("nothing was checked"),
            "{e}"
        );
        preflight(&[export, dir.path().to_path_buf()], &input(), Purpose::Issue).unwrap();
    }

    #[test]
    fn a_folder_without_an_export_and_an_unknown_mapping_are_refused_before_anything_starts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.pdf"), "x").unwrap();
        std::fs::write(dir.path().join("customers.csv"), "x").unwrap();
        let (kind, e) = refused(&[dir.path().to_path_buf()], &input(), Purpose::Issue);
        assert_eq!(kind, ErrorKind::File);
        assert!(
            e.starts_with(&format!("no export to issue in {}", dir.path().display()))
                && e.contains("customers.csv: a lookup table of a mapping, not an export")
                && e.contains(".csv, .tsv, .txt, .xlsx"),
            "{e}"
        );
        std::fs::write(dir.path().join("a.csv"), "x\n").unwrap();
        let mut with_mapping = input();
        with_mapping.mapping = Some("nope".into());
        let (kind, _) = refused(&[dir.path().to_path_buf()], &with_mapping, Purpose::Check);
        assert_eq!(kind, ErrorKind::Mapping);
    }
}

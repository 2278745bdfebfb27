//! Opening an export for a mapping: choosing the mapping (by name, file or detection from the
//! headers), reading options from the mapping, the joined header file of a two-file layout, and
//! the folders lookup files are searched in.

use super::{Input, RowError};
use crate::config::Config;
use crate::ingest::{FileFormat, IngestError, ReadOptions, RowReader, peek_headers};
use crate::mapping::detect::{self, Candidate};
use crate::mapping::{Bound, JoinRows, KeyScan, Mapping, MappingError, SplitKeys, bundled};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Why a whole file could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file (or its header file) cannot be read.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// No mapping fits, or the mapping does not fit.
    #[error(transparent)]
    Mapping(#[from] MappingError),
}

/// A mapping by bundled name, or from a TOML file, given as `--mapping NAME|FILE`.
pub fn load_mapping(spec: &str) -> Result<Mapping, MappingError> {
    load_mapping_given_as(spec, "--mapping")
}

/// A mapping by bundled name, or from a TOML file; `given_as` is how the command line gave it,
/// for the message when there is no such mapping (`--mapping`, `mappings show`).
pub fn load_mapping_given_as(spec: &str, given_as: &str) -> Result<Mapping, MappingError> {
    let p = Path::new(spec);
    if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) || p.is_file() {
        return Mapping::from_file(p);
    }
    match bundled::get(spec) {
        Some(m) => m,
        None => Err(MappingError::Unknown {
            given_as: given_as.to_string(),
            name: spec.to_string(),
            bundled: bundled::names().join(", "),
        }),
    }
}

/// The reading options a mapping asks for.
pub fn read_options(m: &Mapping) -> ReadOptions {
    ReadOptions {
        encoding: m.input.encoding.clone(),
        delimiter: m.input.delimiter.as_deref().and_then(crate::mapping::delimiter_byte),
        sheet: m.input.sheet.clone(),
        header_row: m.input.header_row,
        header_rows: m.input.header_rows.unwrap_or(1),
        every_row: false,
    }
}

fn opts_key(o: &ReadOptions) -> String {
    format!(
        "{:?}|{:?}|{:?}|{:?}|{}",
        o.encoding, o.delimiter, o.sheet, o.header_row, o.header_rows
    )
}

/// Rank the mappings against a file's headers, each read with that mapping's options. A file
/// that cannot be read at all is an error.
pub fn detect(path: &Path, mappings: &[Mapping]) -> Result<Vec<Candidate>, IngestError> {
    let mut cache: HashMap<String, Result<Vec<Vec<String>>, String>> = HashMap::new();
    let mut all = Vec::new();
    let mut first_err = None;
    let mut any_ok = false;
    for m in mappings {
        let o = read_options(m);
        let headers = cache
            .entry(opts_key(&o))
            .or_insert_with(|| match peek_headers(path, &o) {
                Ok(h) => Ok(h),
                Err(e) => {
                    let text = e.to_string();
                    if first_err.is_none() {
                        first_err = Some(e);
                    }
                    Err(text)
                }
            });
        if let Ok(h) = headers {
            any_ok = true;
            all.extend(detect::score(m, h));
        }
    }
    if !any_ok && let Some(e) = first_err {
        return Err(e);
    }
    all.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.matched.len().cmp(&a.matched.len()))
    });
    Ok(all)
}

/// The file names of every lookup table the mappings declare (side files, not exports).
pub fn lookup_file_names(mappings: &[Mapping]) -> Vec<String> {
    let mut names: Vec<String> = mappings
        .iter()
        .flat_map(|m| m.lookups.iter().map(|(_, l)| l.file.clone()))
        .filter_map(|f| Path::new(&f).file_name().map(|n| n.to_string_lossy().to_lowercase()))
        .collect();
    names.sort();
    names.dedup();
    names
}

pub use super::join_files::{PAIR_NOT_IN_WATCH, header_alone_message};
use super::join_files::{Partner, header_missing_message, join_header, other_extension_note};

/// An export ready to check.
pub struct Prepared {
    /// The rows.
    pub input: Input,
    /// The mapping bound to its headers.
    pub bound: Arc<Bound>,
    /// What the reader and the mapping want the user to know.
    pub notes: Vec<String>,
}

/// Open `path` for `mapping`: read options, headers, the joined header file, lookup tables. The
/// mapping is checked against the headers before any row is read, and the order of the file's
/// dates settled ([`prepare_looking`] with `look_implied`).
pub fn prepare(path: &Path, mapping: Arc<Mapping>, config: &Config) -> Result<Prepared, FileError> {
    prepare_looking(path, mapping, config, true)
}

/// [`prepare`]; without `look_implied`, the order of the file's dates is looked at only for a
/// mapping that lists both orders, not for one that writes one order (the other implied): its
/// dates are read in the mapping's order, and a date that reads only in the other is
/// [`crate::mapping::dates::ORDER_CODE`] (`check`, which sends nothing, then checks the file
/// again with the look; see `settle_dates`).
pub fn prepare_looking(
    path: &Path,
    mapping: Arc<Mapping>,
    config: &Config,
    look_implied: bool,
) -> Result<Prepared, FileError> {
    let opts = read_options(&mapping);
    // Before the file is opened: a change between the two is seen at the end, never missed.
    let opened = super::FileStamp::of(path).ok();
    // Every row of the export, so that each is on its line of the result file.
    let reader = RowReader::open(
        path,
        &ReadOptions {
            every_row: true,
            ..opts.clone()
        },
    )?;
    let header_rows = reader.header_rows().to_vec();
    let mut notes: Vec<String> = reader.notes().to_vec();
    let join = match &mapping.join {
        Some(j) => {
            let partner = join_header(&mapping, path).ok_or_else(|| MappingError::Lookup {
                path: path.display().to_string(),
                message: format!(
                    "mapping {} reads a header file beside this lines file, named like it with {:?} in place of {:?}; this file name has no {:?}",
                    mapping.name, j.file_replace[1], j.file_replace[0], j.file_replace[0]
                ),
            })?;
            let hp = match &partner {
                Partner::Found(p) => p.clone(),
                // Re-saved from Excel under another extension: paired, each read as what it is.
                Partner::OtherExtension { expected, found } => {
                    notes.push(other_extension_note(expected, found));
                    found.clone()
                }
                Partner::Several { .. } | Partner::Missing(_) => {
                    return Err(MappingError::Lookup {
                        path: path.display().to_string(),
                        message: header_missing_message(&mapping, &partner),
                    }
                    .into());
                }
            };
            let hopts = ReadOptions {
                header_rows: j.header_rows.unwrap_or(opts.header_rows),
                ..opts.clone()
            };
            // Before it is opened, as the export: a change from then on is seen when a document
            // built from its last row is checked, and when the export's rows run out.
            let hopened = super::FileStamp::of(&hp).ok();
            let hreader = RowReader::open(&hp, &hopts)?;
            let headers = hreader.header_rows().to_vec();
            let mut rows = Vec::new();
            for r in hreader {
                match r {
                    Ok(r) => rows.push(r),
                    Err(e) if e.is_row_error() => notes.push(format!("header file: {e}")),
                    Err(e) => return Err(e.into()),
                }
            }
            Some(JoinRows {
                path: hp,
                headers,
                rows,
                opened: hopened,
            })
        }
        None => None,
    };
    let mut dirs = Vec::new();
    if let crate::mapping::Origin::File(p) = &mapping.origin
        && let Some(d) = p.parent()
    {
        dirs.push(d.to_path_buf());
    }
    dirs.extend(config.lookup_dirs());
    dirs.push(path.parent().map(Path::to_path_buf).unwrap_or_default());
    let mut bound = match Bound::new(mapping.clone(), &header_rows, &path.display().to_string(), &dirs, join) {
        Ok(b) => b,
        // A column of the export missing: the header may be lower (title rows above it).
        Err(MappingError::MissingColumn {
            input,
            mapping: name,
            key,
            column,
            closest,
            hint: None,
        }) if input == path.display().to_string() => {
            let hint = delimiter_hint(path, &opts, &reader, &mapping)
                .or_else(|| super::encoding_hint::encoding_hint(path, &opts, &reader, &mapping))
                .or_else(|| missing_column_hint(reader, &mapping))
                .map(Into::into);
            return Err(MappingError::MissingColumn {
                input,
                mapping: name,
                key,
                column,
                closest,
                hint,
            }
            .into());
        }
        Err(e) => return Err(e.into()),
    };
    // How many documents the header file holds, and which of its records make none.
    notes.extend(bound.join_note());
    notes.extend(bound.notes.iter().cloned());
    if mapping.has_date_alternatives() || look_implied && mapping.looks_at_date_order() {
        notes.extend(settle_dates(path, &opts, &mut bound)?);
    }
    let last_line = reader.last_line();
    let late_notes = reader.late_notes();
    let reader_thread = reader.reads_on_own_thread();
    let rows = reader.map(|r| {
        r.map_err(|e| RowError {
            source: e.source_ref().cloned(),
            message: e.to_string(),
            ends_file: !e.is_row_error(),
        })
    });
    Ok(Prepared {
        input: Input {
            path: path.to_path_buf(),
            header_rows,
            rows: Box::new(rows),
            opened,
            last_line,
            late_notes,
            reader_thread,
            splits: None,
            assembled: None,
        },
        bound: Arc::new(bound),
        notes,
    })
}

/// The look ahead over the dates of an export whose mapping allows both orders of day and month
/// (`date_format = ["%m/%d/%Y", "%d/%m/%Y"]`), before any of its documents is built: the file's
/// first date that reads in one order only settles the order of all its dates, and `bound`
/// gets a copy of its mapping with that order only. Reads rows until that date (the whole file
/// when none tells), keeping none. The note that says what was settled, or that nothing was
/// while dates read both ways (each such date is then an error).
///
/// For a mapping that writes one order (`["%d/%m/%Y", "excel"]`), the same look: the file's
/// first date that reads only in that order settles it (no note); a file with dates that read
/// only in the other order and none only in the mapping's is read in the other order, with a
/// note (the whole file is looked at first).
fn settle_dates(path: &Path, opts: &ReadOptions, bound: &mut Bound) -> Result<Option<String>, FileError> {
    let reader = RowReader::open(path, opts)?;
    let look = bound.date_look(reader);
    match &look.settled {
        Some(s) => {
            tracing::info!(file = %path.display(), format = %s.format, evidence = %s.evidence, "date order settled");
            let mut m = (*bound.mapping).clone();
            let note = m.settle_dates(s, look.against.as_ref());
            bound.mapping = Arc::new(m);
            Ok(note)
        }
        None => {
            tracing::info!(file = %path.display(), ambiguous = ?look.ambiguous, "no date tells the order of day and month");
            Ok(look.ambiguous.and_then(|a| bound.mapping.undecided_dates_note(&a)))
        }
    }
}

/// Rows after the header looked at for the header of a mapping, when the one read is not.
const HEADER_SCAN: usize = 30;

/// What a header search found: where the header was read and its first cells, the word for a
/// row of the file (`row`, `line`), and the first of the next rows that holds the columns of a
/// mapping (its number and the mapping's name), or the last row looked at.
struct HeaderSearch {
    read: String,
    row_word: &'static str,
    workbook: bool,
    found: Option<(u64, String)>,
    last: u64,
}

/// Look for the header of one of `mappings` among the rows of `reader` after its header.
fn header_search(reader: RowReader, mappings: &[&Mapping]) -> HeaderSearch {
    let header = reader.header_rows().first().cloned().unwrap_or_default();
    let mut cells: Vec<String> = header
        .iter()
        .filter(|h| !h.is_empty())
        .take(4)
        .map(|h| format!("{h:?}"))
        .collect();
    if cells.len() == 4 {
        cells[3] = "...".into();
    }
    let workbook = reader.sheet().is_some();
    let read = format!("{} ({})", reader.header_place(), cells.join(", "));
    let mut last = reader.header_line();
    let mut rows: Vec<(u64, Vec<String>)> = Vec::new();
    for r in reader.take(HEADER_SCAN).flatten() {
        last = r.source.line;
        let texts = (0..r.len()).map(|i| r.get(i).as_text().trim().to_string()).collect();
        rows.push((r.source.line, texts));
    }
    let fits = |m: &Mapping, at: usize| -> bool {
        let n = m.input.header_rows.unwrap_or(1).max(1);
        let Some(window) = rows.get(at..at + n) else {
            return false;
        };
        let headers: Vec<Vec<String>> = window.iter().map(|(_, c)| c.clone()).collect();
        detect::score(m, &headers)
            .iter()
            .any(|c| c.role == detect::Role::Export && c.score >= 1.0)
    };
    let found = (0..rows.len()).find_map(|at| {
        mappings
            .iter()
            .find(|m| fits(m, at))
            .map(|m| (rows[at].0, m.name.clone()))
    });
    HeaderSearch {
        read,
        row_word: if workbook { "row" } else { "line" },
        workbook,
        found,
        last,
    }
}

/// For a column of `mapping` missing from the export that `reader` opened with `opts`: when
/// the mapping fixes a delimiter that split the header line (so the reader kept it), and the
/// file's own delimiter is another that finds more of the mapping's columns, that delimiter and
/// the fix. (A fixed delimiter that splits no column out of the header line gives way to the
/// file's by itself, with a note.)
fn delimiter_hint(path: &Path, opts: &ReadOptions, reader: &RowReader, mapping: &Mapping) -> Option<String> {
    let fixed = opts.delimiter?;
    let found = |headers: &[Vec<String>]| super::encoding_hint::found(mapping, headers);
    let own_opts = ReadOptions {
        delimiter: None,
        ..opts.clone()
    };
    let own_reader = RowReader::open(path, &own_opts).ok()?;
    let FileFormat::Csv { delimiter: own, .. } = own_reader.format() else {
        return None;
    };
    let (here, _) = found(reader.header_rows());
    let (there, of) = found(own_reader.header_rows());
    if own == fixed || there <= here {
        return None;
    }
    let name = |d: u8| match d {
        b'\t' => "tab".to_string(),
        d => char::from(d).to_string(),
    };
    Some(format!(
        "this mapping reads cells separated by {:?} (delimiter in its [input]), and this file's lines are separated \
         by {:?}: read so, its header has {there} of the mapping's {of} required columns; save the file with {:?} \
         again, or pass a copy of the mapping with delimiter = {:?} in its [input] (see mappings/README.md)",
        name(fixed),
        name(own),
        name(fixed),
        name(own)
    ))
}

/// For a column of `mapping` missing from the export that `reader` opened: where the header was
/// read and the row below that holds the mapping's columns, when one does; or, when the header
/// read holds none of them (a title row, not the header), the setting to look at.
fn missing_column_hint(reader: RowReader, mapping: &Mapping) -> Option<String> {
    let none_there = detect::score(mapping, reader.header_rows())
        .iter()
        .all(|c| c.role != detect::Role::Export || c.matched.is_empty());
    let s = header_search(reader, &[mapping]);
    let copy = match mapping.origin {
        crate::mapping::Origin::Bundled(_) => " (a copy of a bundled one: see mappings/README.md)",
        crate::mapping::Origin::File(_) => "",
    };
    let w = s.row_word;
    match s.found {
        Some((row, _)) => Some(format!(
            "the header was read from {}, and {w} {row} holds this mapping's columns: set header_row = {row} in \
             the mapping's [input]{copy}",
            s.read
        )),
        None if none_there => Some(format!(
            "the header was read from {}, and no {w} after it up to {w} {} holds this mapping's columns: if the \
             header is on another {w}, set header_row = N in the mapping's [input]{copy}{}",
            s.read,
            s.last,
            if s.workbook {
                "; if this is not the sheet of the export, set sheet = \"...\" there"
            } else {
                ""
            }
        )),
        None => None,
    }
}

/// The one mapping of `ranked` (from [`detect`]) that fits `path`, as [`detect::choose`]; when
/// none does, the error says where the header was read, and which row below it holds the
/// columns of a mapping (with the `header_row` that reads it), when one does.
pub fn choose(path: &Path, mappings: &[Mapping], ranked: &[Candidate]) -> Result<Candidate, MappingError> {
    let input = path.display().to_string();
    let err = match detect::choose(&input, ranked) {
        Ok(c) => return Ok(c),
        Err(e) => e,
    };
    if ranked.iter().any(|c| c.score >= 1.0) {
        return Err(err);
    }
    let MappingError::Detect { input, message } = err else {
        return Err(err);
    };
    // Each mapping's way of reading the file, from its first non-blank row.
    let mut groups: Vec<(ReadOptions, Vec<&Mapping>)> = Vec::new();
    for m in mappings {
        let o = ReadOptions {
            header_row: None,
            header_rows: 1,
            ..read_options(m)
        };
        match groups.iter_mut().find(|(g, _)| opts_key(g) == opts_key(&o)) {
            Some((_, ms)) => ms.push(m),
            None => groups.push((o, vec![m])),
        }
    }
    let mut best: Option<HeaderSearch> = None;
    for (o, ms) in &groups {
        let Ok(reader) = RowReader::open(path, o) else {
            continue;
        };
        let s = header_search(reader, ms);
        let better = match (&best, &s.found) {
            (None, _) => true,
            (Some(b), Some((row, _))) => b.found.as_ref().is_none_or(|(r, _)| row < r),
            (Some(_), None) => false,
        };
        if better {
            best = Some(s);
        }
    }
    let hint = match best {
        Some(HeaderSearch {
            read,
            row_word,
            found: Some((row, name)),
            ..
        }) => format!(
            "; the header was read from {read}, and {row_word} {row} holds the columns of mapping {name}: copy it, \
             set header_row = {row} in its [input], and pass it with --mapping FILE"
        ),
        Some(HeaderSearch {
            read, workbook: true, ..
        }) => format!(
            "; the header was read from {read}: if it is on another row, or in another sheet, a mapping says so \
             with header_row or sheet in its [input]"
        ),
        _ => String::new(),
    };
    Err(MappingError::Detect {
        input,
        message: format!("{message}{hint}"),
    })
}

/// The first pass over an export `prepare`d with `bound`: the document numbers whose rows are in
/// more than one block of the file ([`SplitKeys`]), by the grouper's rules. Reads the file again
/// (the key column of each row), keeping a hash and a line per document, never the rows. Put
/// in [`Input::splits`](super::Input::splits) before the file is checked, so that no part of
/// such a document is sent.
pub fn split_keys(path: &Path, bound: &Arc<Bound>) -> Result<SplitKeys, FileError> {
    let reader = RowReader::open(path, &read_options(&bound.mapping))?;
    let mut scan = KeyScan::new(bound.clone());
    for r in reader {
        match r {
            Ok(row) => scan.push(&row),
            // As the check takes it: a record that could not be read stays where it is.
            Err(_) => scan.push_error(),
        }
    }
    Ok(scan.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_mapping_is_named_as_the_command_line_gave_it() {
        for (given_as, starts) in [
            ("--mapping", "--mapping \"nope\": "),
            ("mappings show", "mappings show \"nope\": "),
        ] {
            let e = load_mapping_given_as("nope", given_as).unwrap_err().to_string();
            assert!(
                e.starts_with(starts) && e.contains("xero, ") && e.contains("invoicedrop mappings list"),
                "{e}"
            );
            assert!(given_as == "--mapping" || !e.contains("--mapping"), "{e}");
        }
        assert_eq!(load_mapping("xero").unwrap().name, "xero");
    }
}

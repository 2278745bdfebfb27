//! Opening an export for a mapping: choosing the mapping (by name, file or detection from the
//! headers), reading options from the mapping, the joined header file of a two-file layout, and
//! the folders lookup files are searched in.

use super::{Input, RowError};
use crate::config::Config;
use crate::ingest::{IngestError, ReadOptions, RowReader, peek_headers};
use crate::mapping::detect::{self, Candidate};
use crate::mapping::{Bound, JoinRows, KeyScan, Mapping, MappingError, SplitKeys, bundled};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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

/// A mapping by bundled name, or from a TOML file.
pub fn load_mapping(spec: &str) -> Result<Mapping, MappingError> {
    let p = Path::new(spec);
    if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) || p.is_file() {
        return Mapping::from_file(p);
    }
    match bundled::get(spec) {
        Some(m) => m,
        None => Err(MappingError::Invalid {
            mapping: spec.to_string(),
            key: "--mapping".into(),
            expected: format!("a bundled mapping ({}) or a .toml file", bundled::names().join(", ")),
        }),
    }
}

/// The reading options a mapping asks for.
pub fn read_options(m: &Mapping) -> ReadOptions {
    ReadOptions {
        encoding: m.input.encoding.clone(),
        delimiter: m.input.delimiter.as_deref().and_then(|d| match d {
            "\\t" | "\t" | "tab" => Some(b'\t'),
            d if d.len() == 1 => d.bytes().next(),
            _ => None,
        }),
        sheet: m.input.sheet.clone(),
        header_row: m.input.header_row,
        header_rows: m.input.header_rows.unwrap_or(1),
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

/// The header file of a lines file, by the join's file-name replacement.
pub fn join_partner(m: &Mapping, lines: &Path) -> Option<PathBuf> {
    let j = m.join.as_ref()?;
    let name = lines.file_name()?.to_string_lossy().into_owned();
    let (from, to) = (&j.file_replace[0], &j.file_replace[1]);
    let lower = name.to_lowercase();
    let at = lower.find(&from.to_lowercase())?;
    let new = format!("{}{}{}", &name[..at], to, &name[at + from.len()..]);
    Some(lines.with_file_name(new))
}

/// The lines file of a header file (the join's replacement backwards).
pub fn join_lines_partner(m: &Mapping, header: &Path) -> Option<PathBuf> {
    let j = m.join.as_ref()?;
    let name = header.file_name()?.to_string_lossy().into_owned();
    let (from, to) = (&j.file_replace[1], &j.file_replace[0]);
    let lower = name.to_lowercase();
    let at = lower.find(&from.to_lowercase())?;
    let new = format!("{}{}{}", &name[..at], to, &name[at + from.len()..]);
    let p = header.with_file_name(new);
    p.is_file().then_some(p)
}

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
/// mapping is checked against the headers before any row is read.
pub fn prepare(path: &Path, mapping: Arc<Mapping>, config: &Config) -> Result<Prepared, FileError> {
    let opts = read_options(&mapping);
    // Before the file is opened: a change between the two is seen at the end, never missed.
    let opened = super::FileStamp::of(path).ok();
    let reader = RowReader::open(path, &opts)?;
    let header_rows = reader.header_rows().to_vec();
    let mut notes: Vec<String> = reader.notes().to_vec();
    let join = match &mapping.join {
        Some(j) => {
            let hp = join_partner(&mapping, path).ok_or_else(|| MappingError::Lookup {
                path: path.display().to_string(),
                message: format!(
                    "mapping {} reads a header file beside this lines file, named like it with {:?} in place of {:?}; this file name has no {:?}",
                    mapping.name, j.file_replace[1], j.file_replace[0], j.file_replace[0]
                ),
            })?;
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
            notes.push(format!(
                "header file {} joined ({} documents)",
                hp.display(),
                rows.len()
            ));
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
    let bound = Bound::new(mapping, &header_rows, &path.display().to_string(), &dirs, join)?;
    notes.extend(bound.notes.iter().cloned());
    let rows = reader.map(|r| {
        r.map_err(|e| RowError {
            source: e.source_ref().cloned(),
            message: e.to_string(),
        })
    });
    Ok(Prepared {
        input: Input {
            path: path.to_path_buf(),
            header_rows,
            rows: Box::new(rows),
            opened,
            splits: None,
        },
        bound: Arc::new(bound),
        notes,
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

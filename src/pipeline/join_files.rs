//! The two files of a two-file export (SAP Business One's DTW `…Document_Lines…` and
//! `…Documents…`): the header file of a lines file, and the lines file of a header file, found
//! beside it by the join's file-name replacement.
//!
//! The header file is looked for under the lines file's own name with the replacement made,
//! extension and all. A file re-saved from Excel often changes extension (`.txt` to `.csv` or
//! `.xlsx`) while its partner keeps its own: when the name with the lines file's extension is not
//! there but the same name with one other extension the reader reads is, the two are paired.
//! That is safe: each file's format (text or workbook, its delimiter, its encoding) is found from
//! its own name and content, never assumed from its partner's; the mapping's reading options
//! apply to both, as they do when the extensions are the same. Two or more such files (`.txt`
//! and `.xlsx`) cannot be told apart, and an error names them.

use crate::mapping::Mapping;
use crate::mapping::lookup::same_file;
use std::path::{Path, PathBuf};

/// Why the two files of a two-file export fail in a drop folder, as their errors say it.
pub const PAIR_NOT_IN_WATCH: &str =
    "`invoicedrop watch` takes files one at a time and cannot pair the two files of such an export";

/// The extensions a partner file may have besides its partner's own: the formats the reader
/// reads that Excel or SAP save such a file as.
const EXTENSIONS: [&str; 5] = ["txt", "csv", "tsv", "xlsx", "xls"];

/// Where a file's partner is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Partner {
    /// Beside it under the expected name (the extension in any case).
    Found(PathBuf),
    /// Not under the expected name (`expected`), but beside it with another extension, the
    /// only one there (`found`).
    OtherExtension { expected: PathBuf, found: PathBuf },
    /// Not under the expected name, but beside it with several other extensions: which one is
    /// meant cannot be told.
    Several { expected: PathBuf, found: Vec<PathBuf> },
    /// Not beside it (`expected`: the name looked for).
    Missing(PathBuf),
}

impl Partner {
    /// The partner file, when there is exactly one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Partner::Found(p) | Partner::OtherExtension { found: p, .. } => Some(p),
            Partner::Several { .. } | Partner::Missing(_) => None,
        }
    }

    /// The name looked for.
    pub fn expected(&self) -> &Path {
        match self {
            Partner::Found(p) | Partner::Missing(p) => p,
            Partner::OtherExtension { expected, .. } | Partner::Several { expected, .. } => expected,
        }
    }
}

/// A path's file name, for messages.
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// `name` with `from` (found ignoring case) replaced by `to`; `None` when it has no `from`.
fn replaced(name: &str, from: &str, to: &str) -> Option<String> {
    let at = name.to_lowercase().find(&from.to_lowercase())?;
    // Lowercasing may change byte lengths (rare letters): the match must still be at a boundary.
    let end = at + from.len();
    (name.is_char_boundary(at) && name.is_char_boundary(end)).then(|| format!("{}{to}{}", &name[..at], &name[end..]))
}

/// The partner of `file` named `name` (its own extension), looked for beside it.
fn partner_named(file: &Path, name: &str) -> Partner {
    let expected = file.with_file_name(name);
    if expected.is_file() {
        return Partner::Found(expected);
    }
    let stem = Path::new(name).file_stem().map(|s| s.to_string_lossy().to_lowercase());
    let ext = Path::new(name).extension().map(|e| e.to_string_lossy().to_lowercase());
    let (Some(stem), Some(ext)) = (stem, ext) else {
        return Partner::Missing(expected);
    };
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Partner::Missing(expected);
    };
    let mut same = None;
    let mut others = Vec::new();
    for entry in entries.flatten() {
        let found = entry.file_name().to_string_lossy().into_owned();
        let p = Path::new(&found);
        let (Some(s), Some(e)) = (p.file_stem(), p.extension()) else {
            continue;
        };
        let (s, e) = (s.to_string_lossy().to_lowercase(), e.to_string_lossy().to_lowercase());
        let path = file.with_file_name(&found);
        if s != stem || !path.is_file() {
            continue;
        }
        if e == ext {
            same = Some(path);
        } else if EXTENSIONS.contains(&e.as_str()) {
            others.push(path);
        }
    }
    if let Some(p) = same {
        return Partner::Found(p);
    }
    others.sort();
    match others.len() {
        0 => Partner::Missing(expected),
        1 => Partner::OtherExtension {
            expected,
            found: others.remove(0),
        },
        _ => Partner::Several {
            expected,
            found: others,
        },
    }
}

/// The header file of a lines file, by the join's file-name replacement; `None` when the
/// mapping has no join or the lines file's name has no `Document_Lines`.
pub fn join_header(m: &Mapping, lines: &Path) -> Option<Partner> {
    let j = m.join.as_ref()?;
    let name = replaced(
        &lines.file_name()?.to_string_lossy(),
        &j.file_replace[0],
        &j.file_replace[1],
    )?;
    Some(partner_named(lines, &name))
}

/// The lines files beside a header file that read it: the join's replacement backwards, with
/// the header file's extension or another (each kept only when its own header file is this
/// one). Empty when there is none, or the header file's name has no `Documents`.
pub fn join_lines_partners(m: &Mapping, header: &Path) -> Vec<PathBuf> {
    let Some(j) = m.join.as_ref() else {
        return Vec::new();
    };
    let Some(name) = header
        .file_name()
        .and_then(|n| replaced(&n.to_string_lossy(), &j.file_replace[1], &j.file_replace[0]))
    else {
        return Vec::new();
    };
    let candidates = match partner_named(header, &name) {
        Partner::Found(p) => vec![p],
        Partner::OtherExtension { found, .. } => vec![found],
        Partner::Several { found, .. } => found,
        Partner::Missing(_) => Vec::new(),
    };
    candidates
        .into_iter()
        .filter(|l| {
            join_header(m, l)
                .as_ref()
                .and_then(Partner::path)
                .is_some_and(|h| same_file(h, header))
        })
        .collect()
}

/// What the error on a header file given to `check` or `run` says (`given`: the files given):
/// `None` when a lines file given with it reads it.
pub fn header_alone_message(m: &Mapping, header: &Path, given: &[PathBuf]) -> Option<String> {
    let partners = join_lines_partners(m, header);
    if partners.iter().any(|p| given.iter().any(|f| same_file(f, p))) {
        return None;
    }
    let (lines_word, header_word) = m
        .join
        .as_ref()
        .map(|j| (j.file_replace[0].as_str(), j.file_replace[1].as_str()))
        .unwrap_or_default();
    Some(match partners.first() {
        Some(lines) => format!(
            "this is the header file of a {} export; check or run its lines file {}, beside it, which reads this \
             one ({PAIR_NOT_IN_WATCH})",
            m.name,
            file_name(lines)
        ),
        None => format!(
            "this is the header file of a {} export; check or run its lines file (the same name with {lines_word:?} \
             in place of {header_word:?}), which reads this one, with it beside it ({PAIR_NOT_IN_WATCH})",
            m.name
        ),
    })
}

/// The error on a lines file whose header file is not found (`partner`: not [`Partner::Found`]
/// nor [`Partner::OtherExtension`]).
pub fn header_missing_message(m: &Mapping, partner: &Partner) -> String {
    let expected = file_name(partner.expected());
    match partner {
        Partner::Several { found, .. } => format!(
            "this is the lines file of a {} export, read with its header file, looked for as {expected}: it is not \
             there, but {} are, each with another extension, and which one goes with this file cannot be told; save \
             the two files in one format (the same extension), or remove the others",
            m.name,
            found.iter().map(|p| file_name(p)).collect::<Vec<_>>().join(" and ")
        ),
        _ => format!(
            "this is the lines file of a {} export, read with its header file {expected}, which is not beside it: \
             put the two files side by side and give them together to `invoicedrop check` or `invoicedrop run` \
             ({PAIR_NOT_IN_WATCH})",
            m.name
        ),
    }
}

/// The note on a lines file paired with a header file of another extension.
pub fn other_extension_note(expected: &Path, found: &Path) -> String {
    format!(
        "header file: {} is not beside this file, {} is: read as its header file (each file's format is found \
         from its own name and content)",
        file_name(expected),
        file_name(found)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::bundled;

    fn sap() -> Mapping {
        bundled::get("sap-b1-dtw").unwrap().unwrap()
    }

    fn touch(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "x").unwrap();
        p
    }

    #[test]
    fn the_header_file_with_the_lines_files_extension_comes_first() {
        let dir = tempfile::tempdir().unwrap();
        let lines = touch(dir.path(), "SAP_Document_Lines.csv");
        let csv = touch(dir.path(), "SAP_Documents.csv");
        touch(dir.path(), "SAP_Documents.txt");
        assert_eq!(join_header(&sap(), &lines), Some(Partner::Found(csv.clone())));
        assert_eq!(join_lines_partners(&sap(), &csv), vec![lines.clone()]);
        // The .txt is another export's header file: this lines file does not read it.
        assert_eq!(
            join_lines_partners(&sap(), &dir.path().join("SAP_Documents.txt")),
            Vec::<PathBuf>::new()
        );
        let msg = header_alone_message(&sap(), &dir.path().join("SAP_Documents.txt"), &[lines]).unwrap();
        assert!(msg.contains("the same name with \"Document_Lines\""), "{msg}");
    }

    #[test]
    fn a_header_file_with_another_extension_is_its_partner_when_it_is_the_only_one() {
        let dir = tempfile::tempdir().unwrap();
        let lines = touch(dir.path(), "SAP_B1_OINV_Document_Lines.csv");
        let txt = touch(dir.path(), "SAP_B1_OINV_Documents.txt");
        assert_eq!(
            join_header(&sap(), &lines),
            Some(Partner::OtherExtension {
                expected: dir.path().join("SAP_B1_OINV_Documents.csv"),
                found: txt.clone()
            })
        );
        assert_eq!(join_lines_partners(&sap(), &txt), vec![lines.clone()]);
        assert_eq!(header_alone_message(&sap(), &txt, std::slice::from_ref(&lines)), None);
        let alone = header_alone_message(&sap(), &txt, &[]).unwrap();
        assert!(
            alone.contains(
                "check or run its lines file SAP_B1_OINV_Document_Lines.csv, beside it, which reads this one"
            ),
            "{alone}"
        );
        // A second one: which is meant cannot be told.
        touch(dir.path(), "SAP_B1_OINV_Documents.XLSX");
        let p = join_header(&sap(), &lines).unwrap();
        assert!(
            matches!(&p, Partner::Several { found, .. } if found.len() == 2),
            "{p:?}"
        );
        let msg = header_missing_message(&sap(), &p);
        assert!(
            msg.contains(
                "looked for as SAP_B1_OINV_Documents.csv: it is not there, but SAP_B1_OINV_Documents.XLSX and \
                 SAP_B1_OINV_Documents.txt are"
            ),
            "{msg}"
        );
        assert!(msg.contains("save the two files in one format"), "{msg}");
    }

    #[test]
    fn no_header_file_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let lines = touch(dir.path(), "SAP_Document_Lines.txt");
        touch(dir.path(), "SAP_Documents.pdf");
        let p = join_header(&sap(), &lines).unwrap();
        assert_eq!(p, Partner::Missing(dir.path().join("SAP_Documents.txt")));
        assert!(header_missing_message(&sap(), &p).contains("side by side"));
        assert_eq!(join_header(&sap(), &dir.path().join("lines.txt")), None);
    }
}

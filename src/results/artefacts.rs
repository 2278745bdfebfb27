//! The artefacts of accepted documents: per input `X`, the folder `RESULTS/X/` holds for every
//! accepted document its signed XML, exactly the bytes the authority returned (the response's
//! base64 `invoice`), named by the authority's convention (zatca.md §1.14)
//! `<seller VAT>_<yyyymmdd>T<hhmmss>_<number>.xml`, and beside it `<same name>.png`: the QR code a
//! phone reads, whose content is the response's base64 `qr_code` text (what the authority's QR
//! carries).
//!
//! Document numbers, VAT numbers and input file names are untrusted: every name is reduced to
//! one safe path component ([`safe_component`]), so nothing can leave the results folder (`..`,
//! separators, drive letters, NUL, Windows reserved names, over-long names). Two numbers that map
//! to the same name (`A/1` and `A:1`) get `_2`, `_3`, … rather than overwrite each other.

use super::ResultsError;
use super::atomic::write_atomic;
pub use super::qr::{MIN_MODULE_PX, QUIET_ZONE, TARGET_PX, qr_png};
use crate::model::SubmissionResponse;
use base64::Engine;
use chrono::{NaiveDate, NaiveTime};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// Longest file or folder name written, in bytes (well under the usual 255).
pub const MAX_NAME_BYTES: usize = 150;

/// Where a document's artefacts were written, relative to the results folder with `/`
/// separators: the values of `result_xml_file` and `result_qr_file`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArtefactPaths {
    /// `X/<name>.xml`.
    pub xml_file: String,
    /// `X/<name>.png`.
    pub qr_file: String,
}

const RESERVED: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];

fn is_reserved(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or("").trim_end().to_ascii_uppercase();
    if RESERVED.contains(&base.as_str()) {
        return true;
    }
    let (Some(head), Some(tail)) = (base.get(..3), base.get(3..)) else {
        return false;
    };
    (head == "COM" || head == "LPT") && tail.len() == 1 && tail.bytes().all(|b| b.is_ascii_digit())
}

fn short_hash(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..8])
}

/// Cut `name` to `max` bytes at a character boundary, marking the cut with a hash of `original`
/// so that two long names that share a prefix stay distinct.
fn cap(name: String, max: usize, original: &str) -> String {
    if name.len() <= max {
        return name;
    }
    let hash = short_hash(original);
    let mut end = max.saturating_sub(hash.len() + 1);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}-{hash}", &name[..end])
}

/// One safe path component from untrusted text: letters and digits of any script, `-`, `_`,
/// `.` and spaces are kept, anything else (separators, `:`, control characters, NUL) becomes
/// `-`; a leading or trailing dot or space becomes `_` (so `.`, `..` and hidden names cannot
/// occur); Windows reserved device names (`CON`, `aux.txt`, `COM1`) get a leading `_`; empty text
/// becomes `fallback`; the result is at most [`MAX_NAME_BYTES`] bytes.
pub fn safe_component(text: &str, fallback: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let mut name = if mapped.is_empty() {
        fallback.to_string()
    } else {
        mapped
    };
    if name.starts_with(['.', ' ']) {
        name.replace_range(..1, "_");
    }
    if name.ends_with(['.', ' ']) {
        let at = name.len() - 1;
        name.replace_range(at.., "_");
    }
    if is_reserved(&name) {
        name.insert(0, '_');
    }
    cap(name, MAX_NAME_BYTES, text)
}

/// The artefacts folder of an input file stem (`sales` for `sales.xlsx`), one safe component.
pub fn folder_name(input_stem: &str) -> String {
    safe_component(input_stem, "input")
}

/// The authority's XML file name (zatca.md §1.14): `<VAT>_<yyyymmdd>T<hhmmss>_<number>.xml`,
/// where every character of the VAT and the number other than an ASCII letter or digit becomes
/// `-` (as the sandbox names it). An over-long number is cut and marked with a hash.
pub fn xml_file_name(seller_vat: &str, number: &str, issue_date: NaiveDate, issue_time: NaiveTime) -> String {
    let ascii = |s: &str| -> String {
        s.trim()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    };
    let vat = cap(ascii(seller_vat), 40, seller_vat);
    let prefix = format!(
        "{}_{}T{}_",
        vat,
        issue_date.format("%Y%m%d"),
        issue_time.format("%H%M%S")
    );
    let room = MAX_NAME_BYTES - ".xml".len() - prefix.len();
    let number = cap(ascii(number), room, number);
    format!("{prefix}{number}.xml")
}

/// The signed XML and QR payload of an accepted document's answer.
fn contents(doc_number: &str, response: &SubmissionResponse) -> Result<(Vec<u8>, String), ResultsError> {
    let b64 = response
        .invoice
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ResultsError::MissingField {
            document: doc_number.to_string(),
            field: "invoice",
        })?;
    let xml = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| ResultsError::Base64 {
            document: doc_number.to_string(),
            field: "invoice",
            message: e.to_string(),
        })?;
    let qr = response
        .qr_code
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ResultsError::MissingField {
            document: doc_number.to_string(),
            field: "qr_code",
        })?;
    Ok((xml, qr.to_string()))
}

/// An accepted document's artefacts, made and not yet written: the signed XML (decoded from
/// the answer) and the QR image. Making them is the costly part (the QR code's mask choice, the
/// PNG); it needs no file system, so a batch's can be made in parallel.
#[derive(Debug, Clone)]
pub struct ArtefactContent {
    xml: Vec<u8>,
    png: Vec<u8>,
}

impl ArtefactContent {
    /// The artefacts of the document numbered `doc_number`, from the authority's answer.
    pub fn make(doc_number: &str, response: &SubmissionResponse) -> Result<ArtefactContent, ResultsError> {
        let (xml, qr) = contents(doc_number, response)?;
        let png = qr_png(&qr).map_err(|message| ResultsError::Qr {
            document: doc_number.to_string(),
            message,
        })?;
        Ok(ArtefactContent { xml, png })
    }
}

/// How [`store`] writes each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// Each file atomically and synced (a folder in use).
    EachFile,
    /// Plain writes; the caller syncs the whole folder before it is put in place (a staging
    /// folder that nobody reads before then).
    Folder,
}

/// Write the artefacts of one accepted document into `dir` (the folder that will be, or is,
/// `RESULTS/<folder>`); the paths returned are `<folder>/<name>`.
pub(crate) fn write_into(
    dir: &Path,
    folder: &str,
    seller_vat: &str,
    doc_number: &str,
    issue_date: NaiveDate,
    issue_time: NaiveTime,
    response: &SubmissionResponse,
) -> Result<ArtefactPaths, ResultsError> {
    let content = ArtefactContent::make(doc_number, response)?;
    let name = xml_file_name(seller_vat, doc_number, issue_date, issue_time);
    store(dir, folder, &name, &content, Durability::EachFile)
}

/// Write made artefacts into `dir` under `name` (`name.xml`, `name.png`; `name_2...` when another
/// document already took the name).
pub(crate) fn store(
    dir: &Path,
    folder: &str,
    name: &str,
    content: &ArtefactContent,
    durability: Durability,
) -> Result<ArtefactPaths, ResultsError> {
    let xml = &content.xml;
    std::fs::create_dir_all(dir).map_err(|e| ResultsError::io(dir, e))?;
    let marker = dir.join(MARKER);
    if !marker.exists() {
        write_atomic(&marker, MARKER_TEXT.as_bytes())?;
    }
    let stem = name.trim_end_matches(".xml");
    for n in 1..=1000u32 {
        let candidate = if n == 1 {
            stem.to_string()
        } else {
            format!("{stem}_{n}")
        };
        let xml_path = dir.join(format!("{candidate}.xml"));
        let png_path = dir.join(format!("{candidate}.png"));
        let placed = match durability {
            Durability::EachFile => match std::fs::read(&xml_path) {
                // The same document written again (a rerun within one results set): same files.
                Ok(existing) if existing == *xml => true,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                Err(e) => return Err(ResultsError::io(&xml_path, e)),
            },
            // A fresh folder of our own: claim the name by creating the file.
            Durability::Folder => match std::fs::OpenOptions::new().write(true).create_new(true).open(&xml_path) {
                Ok(mut f) => {
                    f.write_all(xml).map_err(|e| ResultsError::io(&xml_path, e))?;
                    std::fs::write(&png_path, &content.png).map_err(|e| ResultsError::io(&png_path, e))?;
                    return Ok(paths(folder, &candidate));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match std::fs::read(&xml_path) {
                    Ok(existing) if existing == *xml => true,
                    Ok(_) => continue,
                    Err(e) => return Err(ResultsError::io(&xml_path, e)),
                },
                Err(e) => return Err(ResultsError::io(&xml_path, e)),
            },
        };
        if placed {
            write_atomic(&xml_path, xml)?;
            write_atomic(&png_path, &content.png)?;
            return Ok(paths(folder, &candidate));
        }
    }
    Err(ResultsError::malformed(
        dir,
        format!("1000 documents share the file name {name}; cannot name another"),
    ))
}

fn paths(folder: &str, candidate: &str) -> ArtefactPaths {
    ArtefactPaths {
        xml_file: format!("{folder}/{candidate}.xml"),
        qr_file: format!("{folder}/{candidate}.png"),
    }
}

/// Make the files written into `dir` with [`Durability::Folder`] durable, before the folder is
/// put in place: one `syncfs` of its file system on Linux, each file synced elsewhere.
pub(crate) fn sync_folder(dir: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let d = std::fs::File::open(dir)?;
        rustix::fs::syncfs(&d)?;
    }
    #[cfg(not(target_os = "linux"))]
    {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                std::fs::File::open(entry.path())?.sync_all()?;
            }
        }
    }
    Ok(())
}

/// Write an accepted document's signed XML and QR PNG into `results_dir/<input_stem>/`
/// directly (each file atomically) and return their paths relative to `results_dir`, for
/// `result_xml_file` and `result_qr_file`.
///
/// Within a run, use [`ResultWriter::write_accepted`](super::ResultWriter::write_accepted)
/// instead: it writes into a folder aside that replaces `X/` when the results are finished,
/// once the earlier set's issued documents that the new results do not give as accepted are
/// linked into it (`kept`).
pub fn write_accepted(
    results_dir: &Path,
    input_stem: &str,
    seller_vat: &str,
    doc_number: &str,
    issue_date: NaiveDate,
    issue_time: NaiveTime,
    response: &SubmissionResponse,
) -> Result<ArtefactPaths, ResultsError> {
    let folder = folder_name(input_stem);
    let dir = results_dir.join(&folder);
    write_into(&dir, &folder, seller_vat, doc_number, issue_date, issue_time, response)
}

/// The hidden file that marks an artefacts folder as ours.
pub const MARKER: &str = ".invoicedrop-artefacts";
const MARKER_TEXT: &str = "This folder holds the signed XML and QR images of accepted documents, written by invoicedrop.\n\
Running the same input again writes it again, keeping the files of every document issued.\n";

/// True when `dir` is empty, or carries our [`MARKER`] and holds nothing but files we write
/// there (`.xml`, `.png`, hidden files), so replacing it loses nothing of the user's.
pub(crate) fn is_ours(dir: &Path) -> std::io::Result<bool> {
    let mut entries = std::fs::read_dir(dir)?.peekable();
    if entries.peek().is_none() {
        return Ok(true);
    }
    if !dir.join(MARKER).is_file() {
        return Ok(false);
    }
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            return Ok(false);
        }
        let name = entry.file_name().to_string_lossy().to_lowercase();
        if !(name.ends_with(".xml") || name.ends_with(".png") || name.starts_with('.')) {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_single_safe_components() {
        for (input, expected) in [
            ("sales", "sales"),
            ("..", "__"),
            (".", "_"),
            ("../../x", "_.-..-x"),
            ("a/b:c", "a-b-c"),
            ("C:\\Windows", "C--Windows"),
            ("/etc/passwd", "-etc-passwd"),
            ("nul\0byte", "nul-byte"),
            ("CON", "_CON"),
            ("aux.2026", "_aux.2026"),
            ("com7", "_com7"),
            ("LPT1.csv", "_LPT1.csv"),
            ("console", "console"),
            ("trailing. ", "trailing._"),
            ("", "input"),
            ("فواتير نوفمبر", "فواتير نوفمبر"),
        ] {
            assert_eq!(folder_name(input), expected, "{input:?}");
        }
        let long = folder_name(&"x".repeat(5000));
        assert!(long.len() <= MAX_NAME_BYTES && long.starts_with("xxx"));
        assert_ne!(
            long,
            folder_name(&"x".repeat(5001)),
            "distinct long names stay distinct"
        );
        let arabic = folder_name(&"ش".repeat(400));
        assert!(arabic.len() <= MAX_NAME_BYTES);
    }

    #[test]
    fn xml_name_follows_the_standard_and_matches_the_sandbox() {
        let d = NaiveDate::from_ymd_opt(2021, 5, 26).unwrap();
        let t = NaiveTime::from_hms_opt(13, 24, 0).unwrap();
        assert_eq!(
            xml_file_name("300000000000003", "2021-05-26/23555 ش", d, t),
            "300000000000003_20210526T132400_2021-05-26-23555--.xml"
        );
        assert_eq!(
            xml_file_name("300000000000003", "../../x", d, t),
            "300000000000003_20210526T132400_------x.xml"
        );
        let long = xml_file_name("300000000000003", &"9".repeat(10_000), d, t);
        assert!(long.len() <= MAX_NAME_BYTES && long.ends_with(".xml"), "{long}");
        assert!(!xml_file_name("../3", "a", d, t).contains('/'));
    }

    #[test]
    fn a_taken_name_gets_a_suffix_and_the_same_document_keeps_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let one = ArtefactContent {
            xml: b"<Invoice>1</Invoice>".to_vec(),
            png: b"png1".to_vec(),
        };
        let two = ArtefactContent {
            xml: b"<Invoice>2</Invoice>".to_vec(),
            png: b"png2".to_vec(),
        };
        for durability in [Durability::Folder, Durability::EachFile] {
            let d = dir.path().join(format!("{durability:?}"));
            let a = store(&d, "X", "N.xml", &one, durability).unwrap();
            let b = store(&d, "X", "N.xml", &two, durability).unwrap();
            let again = store(&d, "X", "N.xml", &one, durability).unwrap();
            assert_eq!((a.xml_file.as_str(), a.qr_file.as_str()), ("X/N.xml", "X/N.png"));
            assert_eq!((b.xml_file.as_str(), b.qr_file.as_str()), ("X/N_2.xml", "X/N_2.png"));
            assert_eq!(again, a);
            assert_eq!(std::fs::read(d.join("N_2.xml")).unwrap(), two.xml);
            assert_eq!(std::fs::read(d.join("N_2.png")).unwrap(), two.png);
            assert_eq!(std::fs::read(d.join("N.png")).unwrap(), one.png);
        }
        sync_folder(dir.path()).unwrap();
    }
}

//! Documents issued earlier that a result set keeps when it is written again.
//!
//! The next `check` or `run` of an export replaces its result set (`X.*` and `X/`). An accepted
//! document is issued, though: the authority holds it whatever the export says now, so its signed
//! XML, its QR and its record never leave the results. When the set is replaced, [`earlier`]
//! reads the set being replaced and picks its accepted records that the new set does not give as
//! accepted (the same UUID): a document the ERP dropped from the export (cancelled after it was
//! issued, or a narrower filter: [`NOT_IN_EXPORT_CODE`]), or one the new set holds only as not
//! accepted (a `check`, which issues nothing; a `run` whose ledger did not issue it). [`place`]
//! links their files into the new artefacts folder; the writer adds their records, as they were
//! issued, to the new `X.documents.csv` and summary, and [`Kept::say`] says so.
//!
//! An earlier `X.documents.csv` that does not read (or is missing beside an `X/`) names nothing:
//! then every signed XML and QR file of the earlier `X/` that the new set does not write again is
//! kept, with no record (`report` lists each as `xml_orphan`).

use super::ResultsError;
use super::RowStatus;
use super::documents::{DocumentRecord, Peek, read_documents_where};
use super::summary::EXAMPLES_PER_CODE;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

/// The warning code of an accepted document kept in its result set although its export no
/// longer holds it: in its record's `warnings`, and under `warnings` in the summary.
pub const NOT_IN_EXPORT_CODE: &str = "INV-NOT-IN-EXPORT";

/// True for a note said as a warning (`check`'s and `run`'s output, `report`): the note on
/// documents issued earlier that are no longer in the export.
pub fn is_warning_note(note: &str) -> bool {
    note.starts_with(NOT_IN_EXPORT_CODE)
}

/// True for a record a result set keeps as issued from the set it replaced ([`earlier`]):
/// accepted, with no row of the set's result file.
pub fn is_kept(r: &DocumentRecord) -> bool {
    r.status == RowStatus::Accepted && r.rows == 0 && r.first_line.is_none()
}

/// The kinds and numbers a result set keeps as issued ([`is_kept`]).
#[derive(Debug, Default)]
pub(crate) struct IssuedNumbers(HashSet<u64>);

impl IssuedNumbers {
    pub(crate) fn add(&mut self, r: &DocumentRecord) {
        self.0
            .insert(number_key(r.kind.trim().as_bytes(), r.document.trim().as_bytes()));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True for a record of the set that its own figures leave out: not accepted, of a kind and
    /// number the set keeps as issued. The issued document counts instead, once, as accepted
    /// (a `check` into the folder of the `run` that issued it counts it as `report` does).
    pub(crate) fn supersedes(&self, r: &DocumentRecord) -> bool {
        r.status != RowStatus::Accepted
            && self
                .0
                .contains(&number_key(r.kind.trim().as_bytes(), r.document.trim().as_bytes()))
    }
}

/// Which records of one result set count in its own figures (`X.summary.json`, the summary
/// `check` and `run` print, `report`'s per-set figures): each but those a document kept as
/// issued supersedes ([`IssuedNumbers::supersedes`]).
pub fn counted_in_set(records: &[DocumentRecord]) -> Vec<bool> {
    let mut issued = IssuedNumbers::default();
    records.iter().filter(|r| is_kept(r)).for_each(|r| issued.add(r));
    records.iter().map(|r| !issued.supersedes(r)).collect()
}

/// What the set being replaced holds that the new one must keep.
#[derive(Debug)]
pub(crate) enum Earlier {
    /// No earlier set, or nothing of it to keep.
    Nothing,
    /// Its accepted records to keep, each with whether the new set holds a document of its kind
    /// and number.
    Records(Vec<(DocumentRecord, bool)>),
    /// Its `X.documents.csv` does not read, or is missing beside an `X/`: why.
    Unreadable(String),
}

/// What a result set kept of the set it replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kept {
    /// Accepted documents of the earlier set that the export no longer holds: how many.
    pub not_in_export: u64,
    /// Their first numbers.
    pub not_in_export_examples: Vec<String>,
    /// Accepted documents of the earlier set that the export holds and the new set does not give
    /// as accepted (a `check`; a `run` whose ledger did not issue them): how many.
    pub in_export: u64,
    /// Their first numbers.
    pub in_export_examples: Vec<String>,
    /// Kept documents whose signed XML was not in the earlier `X/`: their numbers.
    pub xml_missing: Vec<String>,
    /// The earlier `X.documents.csv` did not read: why; `files` says what was kept instead.
    pub unreadable: Option<String>,
    /// Signed XML files kept without a record (the earlier `X.documents.csv` did not read).
    pub files: u64,
    /// What was said of it ([`Kept::say`]), in the summary's notes too.
    pub notes: Vec<String>,
}

fn push_example(list: &mut Vec<String>, number: &str) {
    if list.len() < EXAMPLES_PER_CODE && !number.is_empty() {
        list.push(number.to_string());
    }
}

/// `INV-1`, or `3 documents (INV-1, INV-2, INV-3)`, or `25 documents (first INV-1, ...)`.
fn named(count: u64, examples: &[String]) -> String {
    let list = examples.join(", ");
    match count {
        1 if !list.is_empty() => list,
        n if (n as usize) > examples.len() => format!("{n} documents (first {list})"),
        n => format!("{n} documents ({list})"),
    }
}

impl Kept {
    /// Count a kept record; `xml_found`: its signed XML was kept with it.
    pub(crate) fn add(&mut self, r: &DocumentRecord, in_export: bool, xml_found: bool) {
        if in_export {
            self.in_export += 1;
            push_example(&mut self.in_export_examples, &r.document);
        } else {
            self.not_in_export += 1;
            push_example(&mut self.not_in_export_examples, &r.document);
        }
        if !xml_found {
            self.xml_missing.push(r.document.clone());
        }
    }

    /// What to say, for the result set `stem` whose artefacts folder is `folder`: the documents
    /// no longer in the export first (a warning, see [`is_warning_note`]).
    pub fn say(&self, stem: &str, folder: &str) -> Vec<String> {
        let mut notes = Vec::new();
        if self.not_in_export > 0 {
            let (verb, its, them) = if self.not_in_export == 1 {
                ("is", "of its", "it")
            } else {
                ("are", "of their", "them")
            };
            notes.push(format!(
                "{NOT_IN_EXPORT_CODE}: {} issued earlier (accepted by the authority) {verb} no longer in this export, \
                 and kept in its results as issued: signed XML and QR in {folder}/, accepted in {stem}.documents.csv \
                 with the figures and time {its} issue. The authority holds {them}: a document cancelled in the ERP \
                 after it was issued needs a credit note against it; an export that was only narrower (another filter \
                 or period) needs nothing",
                named(self.not_in_export, &self.not_in_export_examples)
            ));
        }
        if self.in_export > 0 {
            notes.push(format!(
                "{} issued earlier and still in this export, not accepted in these results, {} kept as issued: \
                 signed XML and QR in {folder}/, accepted in {stem}.documents.csv beside what these results say of \
                 {} now; the figures count each such document once, as accepted",
                named(self.in_export, &self.in_export_examples),
                if self.in_export == 1 { "is" } else { "are" },
                if self.in_export == 1 { "it" } else { "them" },
            ));
        }
        if !self.xml_missing.is_empty() {
            let first = &self.xml_missing[..self.xml_missing.len().min(EXAMPLES_PER_CODE)];
            notes.push(format!(
                "the signed XML of {} kept from the earlier results was not in {folder}/ (report lists each as \
                 xml_missing): the authority and the --state folder of the run that issued it hold it",
                named(self.xml_missing.len() as u64, first)
            ));
        }
        if let Some(why) = &self.unreadable {
            notes.push(format!(
                "the earlier {stem}.documents.csv could not be read ({why}), so which of its documents were issued \
                 is not known: the {} signed XML file(s) of the earlier {folder}/ that these results do not write again \
                 are kept there with their QR (report lists each as xml_orphan, claimed by no record)",
                self.files
            ));
        }
        notes
    }
}

/// A UUID as a number: its 128 bits, or (not a UUID) a hash of its text.
fn uuid_key(uuid: &str) -> u128 {
    match uuid::Uuid::try_parse(uuid.trim()) {
        Ok(u) => u.as_u128(),
        Err(_) => {
            let d = Sha256::digest(uuid.trim().as_bytes());
            let mut b = [0u8; 16];
            b.copy_from_slice(&d[..16]);
            u128::from_le_bytes(b)
        }
    }
}

/// A document's kind and number as a number (a collision only changes what a note says).
pub(crate) fn number_key(kind: &[u8], number: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    kind.hash(&mut h);
    number.hash(&mut h);
    h.finish()
}

/// A header cell as a name: trimmed, without a byte-order mark.
fn header_name(h: &[u8]) -> &[u8] {
    h.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(h).trim_ascii()
}

/// The columns of a documents file's header: `(status, uuid, kind, document)`.
fn columns(headers: &csv::ByteRecord) -> Option<[usize; 4]> {
    let at = |name: &str| headers.iter().position(|h| header_name(h) == name.as_bytes());
    Some([at("status")?, at("uuid")?, at("kind")?, at("document")?])
}

fn text_error(path: &Path, e: csv::Error) -> String {
    format!("{}: {e}", path.display())
}

/// True when the documents file `old` holds an accepted record (read without building records).
fn any_accepted(old: &Path) -> Result<bool, String> {
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(old)
        .map_err(|e| text_error(old, e))?;
    let headers = rdr.byte_headers().map_err(|e| text_error(old, e))?.clone();
    let Some(status) = headers.iter().position(|h| header_name(h) == b"status") else {
        return Err(format!("{}: no status column", old.display()));
    };
    let mut rec = csv::ByteRecord::new();
    while rdr.read_byte_record(&mut rec).map_err(|e| text_error(old, e))? {
        if rec.get(status).map(<[u8]>::trim_ascii) == Some(RowStatus::Accepted.as_str().as_bytes()) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The new set's documents: UUIDs of the accepted ones, and every kind and number.
fn new_keys(new: &Path) -> Result<(HashSet<u128>, HashSet<u64>), ResultsError> {
    let io = |e: csv::Error| super::csv_file::csv_error(new, e);
    let mut rdr = csv::ReaderBuilder::new().flexible(true).from_path(new).map_err(io)?;
    let headers = rdr.byte_headers().map_err(io)?.clone();
    let [status, uuid, kind, document] =
        columns(&headers).ok_or_else(|| ResultsError::malformed(new, "not a documents file"))?;
    let (mut accepted, mut numbers) = (HashSet::new(), HashSet::new());
    let mut rec = csv::ByteRecord::new();
    while rdr.read_byte_record(&mut rec).map_err(io)? {
        let cell = |i: usize| rec.get(i).unwrap_or_default().trim_ascii();
        numbers.insert(number_key(cell(kind), cell(document)));
        if cell(status) == RowStatus::Accepted.as_str().as_bytes() && !cell(uuid).is_empty() {
            accepted.insert(uuid_key(&String::from_utf8_lossy(cell(uuid))));
        }
    }
    Ok((accepted, numbers))
}

/// What the set being replaced holds that the new one must keep: `old` is its `X.documents.csv`,
/// `new` the new set's (as written so far), `live` its artefacts folder `X/`.
pub(crate) fn earlier(old: &Path, new: &Path, live: &Path) -> Result<Earlier, ResultsError> {
    if !old.exists() {
        return Ok(if has_files(live) {
            Earlier::Unreadable(format!("{} is missing", old.display()))
        } else {
            Earlier::Nothing
        });
    }
    match any_accepted(old) {
        Ok(true) => {}
        Ok(false) => return Ok(Earlier::Nothing),
        Err(why) => return Ok(Earlier::Unreadable(why)),
    }
    let (accepted, numbers) = new_keys(new)?;
    let mut seen = HashSet::new();
    let kept = read_documents_where(old, |r: Peek<'_>| {
        r.status == RowStatus::Accepted.as_str()
            && (if r.uuid.is_empty() {
                !numbers.contains(&number_key(r.kind.as_bytes(), r.document.as_bytes()))
            } else {
                let key = uuid_key(r.uuid);
                !accepted.contains(&key) && seen.insert(key)
            })
    });
    let records = match kept {
        Ok(r) => r,
        Err(e) => return Ok(Earlier::Unreadable(e.to_string())),
    };
    if records.is_empty() {
        return Ok(Earlier::Nothing);
    }
    Ok(Earlier::Records(
        records
            .into_iter()
            .map(|mut r| {
                let in_export = numbers.contains(&number_key(r.kind.as_bytes(), r.document.as_bytes()));
                // Kept as issued: no row of this set's result file is its.
                r.first_line = None;
                r.rows = 0;
                r.warnings.retain(|c| c != NOT_IN_EXPORT_CODE);
                if !in_export {
                    // No export left to be in conflict with: what is said of it now is this.
                    r.errors.retain(|c| c != crate::submit::CONFLICT_CODE);
                    r.warnings.push(NOT_IN_EXPORT_CODE.to_string());
                }
                (r, in_export)
            })
            .collect(),
    ))
}

/// True when `dir` is a folder holding a signed XML or QR file.
pub(crate) fn has_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.filter_map(Result::ok)
            .any(|e| is_artefact(&e.file_name().to_string_lossy()))
    })
}

fn is_artefact(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    !name.starts_with('.') && (lower.ends_with(".xml") || lower.ends_with(".png"))
}

/// Hard-link `src` to `dst` (a copy where links are not to be had); false when `src` is missing.
fn link_or_copy(src: &Path, dst: &Path) -> Result<bool, ResultsError> {
    match std::fs::hard_link(src, dst) {
        Ok(()) => Ok(true),
        Err(_) => match std::fs::copy(src, dst) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !src.exists() => Ok(false),
            Err(e) => Err(ResultsError::io(dst, e)),
        },
    }
}

/// Copy the marker of our artefacts folders into `staging`, once.
fn mark(live: &Path, staging: &Path) -> Result<(), ResultsError> {
    let marker = staging.join(super::artefacts::MARKER);
    if !marker.exists() {
        link_or_copy(&live.join(super::artefacts::MARKER), &marker)?;
    }
    Ok(())
}

/// The file name of `path` (`X/name.xml`) when it is `folder/name`, `name` a plain file name.
fn in_folder<'a>(path: &'a str, folder: &str) -> Option<&'a str> {
    let name = path.strip_prefix(folder)?.strip_prefix('/')?;
    (!name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\'])).then_some(name)
}

/// Keep the signed XML and QR of `r` from the earlier artefacts folder `live` in the new one
/// being written, `staging` (`folder` by name): linked under the same name, or `_2`, `_3`...
/// when a document of the new set took it; `r` names them. False when its signed XML was not in
/// `live`. A record naming files outside `folder` keeps them as named (they are not replaced).
pub(crate) fn place(r: &mut DocumentRecord, live: &Path, staging: &Path, folder: &str) -> Result<bool, ResultsError> {
    let Some(xml) = in_folder(&r.xml_file, folder) else {
        return Ok(!r.xml_file.is_empty() && live.parent().is_some_and(|d| d.join(&r.xml_file).is_file()));
    };
    let qr = in_folder(&r.qr_file, folder);
    let stem = xml.strip_suffix(".xml").unwrap_or(xml);
    let free = (1..=1000u32)
        .map(|n| {
            if n == 1 {
                stem.to_string()
            } else {
                format!("{stem}_{n}")
            }
        })
        .find(|c| !staging.join(format!("{c}.xml")).exists() && !staging.join(format!("{c}.png")).exists())
        .ok_or_else(|| ResultsError::malformed(staging, format!("1000 documents share the file name {xml}")))?;
    mark(live, staging)?;
    let found = link_or_copy(&live.join(xml), &staging.join(format!("{free}.xml")))?;
    r.xml_file = format!("{folder}/{free}.xml");
    if let Some(qr) = qr {
        link_or_copy(&live.join(qr), &staging.join(format!("{free}.png")))?;
        r.qr_file = format!("{folder}/{free}.png");
    }
    Ok(found)
}

/// Keep every signed XML and QR file of `live` that `staging` does not hold by that name; the
/// number of XML files kept.
pub(crate) fn keep_files(live: &Path, staging: &Path) -> Result<u64, ResultsError> {
    let mut kept = 0;
    let rd = std::fs::read_dir(live).map_err(|e| ResultsError::io(live, e))?;
    for entry in rd {
        let entry = entry.map_err(|e| ResultsError::io(live, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_artefact(&name) || !entry.file_type().is_ok_and(|t| t.is_file()) || staging.join(&name).exists() {
            continue;
        }
        mark(live, staging)?;
        if link_or_copy(&entry.path(), &staging.join(&name))? && name.to_ascii_lowercase().ends_with(".xml") {
            kept += 1;
        }
    }
    Ok(kept)
}

#[cfg(test)]
#[path = "kept_tests.rs"]
mod tests;

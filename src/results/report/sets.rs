//! The files of one result set, as `report` reads them: `X.documents.csv`, `X.summary.json`,
//! and the signed XML files of its artefacts folder.

use super::super::ResultsError;
use super::super::documents::{DocumentRecord, read_documents};
use super::super::summary::Summary;
use std::path::Path;

/// Files in an artefacts folder (non-recursive, hidden ones passed over).
pub(super) fn xml_files(dir: &Path, folder: &str) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir.join(folder)) else {
        return Vec::new();
    };
    let mut out: Vec<String> = rd
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n.to_lowercase().ends_with(".xml"))
        .map(|n| format!("{folder}/{n}"))
        .collect();
    out.sort();
    out
}

/// The files of one set, as read.
pub(super) struct SetFiles {
    pub(super) name: String,
    /// `X.documents.csv`, when there is one.
    pub(super) records: Option<Vec<DocumentRecord>>,
    /// `X.summary.json`, when there is one.
    pub(super) written: Option<Summary>,
}

pub(super) fn read_set(dir: &Path, set: String) -> Result<SetFiles, ResultsError> {
    let docs_path = dir.join(format!("{set}.documents.csv"));
    let summary_path = dir.join(format!("{set}.summary.json"));
    let records = if docs_path.is_file() {
        Some(read_documents(&docs_path)?)
    } else {
        None
    };
    let written = match std::fs::read(&summary_path) {
        Ok(bytes) => {
            Some(serde_json::from_slice(&bytes).map_err(|e| ResultsError::malformed(&summary_path, e.to_string()))?)
        }
        Err(_) => None,
    };
    Ok(SetFiles {
        name: set,
        records,
        written,
    })
}

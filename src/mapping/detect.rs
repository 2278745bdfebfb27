//! Choosing a mapping from a file's headers: each mapping is scored by the fraction of its
//! required columns the file has. A file that fits one mapping fully is that mapping's; a file
//! that fits several, or none, is an error listing the candidates and what they miss.

use super::headers::HeaderIndex;
use super::{Mapping, MappingError};
use serde::Serialize;

/// What a file is for a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The export itself (or the lines file of a join).
    Export,
    /// The header file a join reads beside the lines file (SAP DTW Documents).
    JoinHeader,
}

/// How well a mapping fits a file.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// The mapping's name.
    pub mapping: String,
    /// The role the file would play.
    pub role: Role,
    /// Required columns found.
    pub matched: Vec<String>,
    /// Required columns missing.
    pub missing: Vec<String>,
    /// matched / (matched + missing), 0 to 1.
    pub score: f64,
}

fn score_columns(mapping: &Mapping, role: Role, required: Vec<Vec<String>>, headers: &HeaderIndex) -> Candidate {
    let mut matched = Vec::new();
    let mut missing = Vec::new();
    for names in required {
        match names.iter().find(|n| headers.find(n).is_some()) {
            Some(n) => matched.push(n.clone()),
            None => missing.push(names[0].clone()),
        }
    }
    let total = matched.len() + missing.len();
    Candidate {
        mapping: mapping.name.clone(),
        role,
        score: if total == 0 {
            0.0
        } else {
            matched.len() as f64 / total as f64
        },
        matched,
        missing,
    }
}

/// Score a mapping against a file's header rows, as an export and (for joins) as a header file.
pub fn score(mapping: &Mapping, header_rows: &[Vec<String>]) -> Vec<Candidate> {
    let headers = HeaderIndex::new(header_rows);
    let required: Vec<Vec<String>> = mapping
        .columns()
        .into_iter()
        .filter(|(_, optional, _)| !optional)
        .map(|(names, _, _)| names)
        .collect();
    let mut out = vec![score_columns(mapping, Role::Export, required, &headers)];
    if mapping.join.is_some() {
        let cols = mapping.header_columns().into_iter().map(|c| vec![c]).collect();
        out.push(score_columns(mapping, Role::JoinHeader, cols, &headers));
    }
    out
}

/// Every candidate, best first.
pub fn rank(mappings: &[Mapping], header_rows: &[Vec<String>]) -> Vec<Candidate> {
    let mut all: Vec<Candidate> = mappings.iter().flat_map(|m| score(m, header_rows)).collect();
    all.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.matched.len().cmp(&a.matched.len()))
    });
    all
}

/// The one candidate that fits fully, or an error naming the candidates.
pub fn choose(input: &str, ranked: &[Candidate]) -> Result<Candidate, MappingError> {
    let full: Vec<&Candidate> = ranked.iter().filter(|c| c.score >= 1.0).collect();
    match full.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            let near: Vec<String> = ranked
                .iter()
                .filter(|c| c.score > 0.0)
                .take(3)
                .map(|c| {
                    format!(
                        "{} ({:.0}%, missing {})",
                        c.mapping,
                        c.score * 100.0,
                        c.missing
                            .iter()
                            .map(|m| format!("{m:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
                .collect();
            Err(MappingError::Detect {
                input: input.to_string(),
                message: if near.is_empty() {
                    "no bundled mapping fits these headers; write a mapping (see mappings/README.md) and pass --mapping FILE".into()
                } else {
                    format!(
                        "no bundled mapping fits these headers fully; closest: {}. Fix the headers or pass --mapping NAME|FILE",
                        near.join("; ")
                    )
                },
            })
        }
        many => {
            // The mapping reading the most columns is the more specific one, when unique.
            let best = many.iter().map(|c| c.matched.len()).max().unwrap_or(0);
            let top: Vec<&&Candidate> = many.iter().filter(|c| c.matched.len() == best).collect();
            if let [one] = top.as_slice() {
                return Ok((**one).clone());
            }
            Err(MappingError::Detect {
                input: input.to_string(),
                message: format!(
                    "several mappings fit these headers: {}; choose one with --mapping NAME",
                    many.iter().map(|c| c.mapping.as_str()).collect::<Vec<_>>().join(", ")
                ),
            })
        }
    }
}

//! A finding: what is wrong, where, and how bad.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The document is sent, and the finding is reported as a warning.
    Warning,
    /// The document must not be sent (the authority would reject it).
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule id: the authority's (`BR-KSA-40`, `BR-CO-15`) or ours (`INV-...`).
    pub code: String,
    /// Error or warning.
    pub severity: Severity,
    /// The field, as a path into the document's JSON (`invoice_lines[2].price.price_per_unit`).
    pub path: String,
    /// The offending value as text, when there is one.
    pub value: Option<String>,
    /// What is wrong and what to do, for a clerk.
    pub message: String,
}

impl Finding {
    /// An error.
    pub fn error(code: &str, path: impl Into<String>, value: Option<String>, message: impl Into<String>) -> Self {
        Finding {
            code: code.into(),
            severity: Severity::Error,
            path: path.into(),
            value,
            message: message.into(),
        }
    }

    /// A warning.
    pub fn warning(code: &str, path: impl Into<String>, value: Option<String>, message: impl Into<String>) -> Self {
        Finding {
            code: code.into(),
            severity: Severity::Warning,
            path: path.into(),
            value,
            message: message.into(),
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} at {}", self.code, self.message, self.path)?;
        if let Some(v) = &self.value {
            write!(f, " (value {v:?})")?;
        }
        Ok(())
    }
}

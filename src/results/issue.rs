//! One finding on a result row, kept structured for the "Errors" sheet and rendered as
//! `CODE column "value": message` in `result_errors` / `result_warnings`.

use crate::model::Message;
use crate::validate::Severity;
use serde::{Deserialize, Serialize};

/// A finding on a row: ours (`INV-...`), a rule of the authority found before sending, or a
/// message of the authority's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultIssue {
    /// The rule code (`BR-KSA-40`, `INV-MAP-VALUE`).
    pub code: String,
    /// Error or warning.
    pub severity: Severity,
    /// The source column the value came from, when known.
    pub column: Option<String>,
    /// The offending value, when there is one.
    pub value: Option<String>,
    /// What is wrong, for a clerk.
    pub message: String,
}

impl ResultIssue {
    /// An error without column or value.
    pub fn error(code: &str, message: impl Into<String>) -> ResultIssue {
        ResultIssue {
            code: code.to_string(),
            severity: Severity::Error,
            column: None,
            value: None,
            message: message.into(),
        }
    }

    /// A warning without column or value.
    pub fn warning(code: &str, message: impl Into<String>) -> ResultIssue {
        ResultIssue {
            severity: Severity::Warning,
            ..ResultIssue::error(code, message)
        }
    }

    /// A message of the authority's answer. Its `type` (or `status`) says error or warning
    /// (anything but `WARNING`/`INFO` counts as an error); a message without code gets
    /// `default_code`.
    pub fn from_message(m: &Message, default_code: &str) -> ResultIssue {
        let kind = if m.kind.is_empty() {
            m.status.clone().unwrap_or_default()
        } else {
            m.kind.clone()
        };
        let severity = if kind.eq_ignore_ascii_case("warning") || kind.eq_ignore_ascii_case("info") {
            Severity::Warning
        } else {
            Severity::Error
        };
        let code = m
            .code
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .unwrap_or(default_code);
        ResultIssue {
            code: code.to_string(),
            severity,
            column: None,
            value: None,
            message: without_code(&m.message, code).to_string(),
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The form of the result files: `CODE column "value": message`.
    pub fn render(&self) -> String {
        let mut s = self.code.clone();
        if let Some(c) = &self.column {
            s.push(' ');
            s.push_str(c);
        }
        if let Some(v) = &self.value {
            s.push_str(&format!(" {v:?}"));
        }
        s.push_str(": ");
        s.push_str(&self.message);
        s
    }

    /// A finding known only by its rendered text: the code is the text up to the first space or
    /// colon, the message the rest.
    pub fn from_rendered(text: &str, severity: Severity) -> ResultIssue {
        let end = text.find([' ', ':']).unwrap_or(text.len());
        let (code, rest) = text.split_at(end);
        let message = rest.trim_start_matches([' ', ':']).trim();
        ResultIssue {
            code: code.to_string(),
            severity,
            column: None,
            value: None,
            message: if message.is_empty() {
                text.to_string()
            } else {
                message.to_string()
            },
        }
    }
}

/// The authority's text without the `[CODE] - ` it starts with (the code is the issue's own), so
/// that a result says `BR-KSA-98: ...`, not `BR-KSA-98: [BR-KSA-98] - ...`.
pub(crate) fn without_code<'a>(text: &'a str, code: &str) -> &'a str {
    let rest = text
        .trim_start()
        .strip_prefix('[')
        .and_then(|r| r.strip_prefix(code))
        .and_then(|r| r.strip_prefix(']'))
        .map(|r| r.trim_start_matches([' ', '-', ':']));
    match rest {
        Some(r) if !r.trim().is_empty() => r,
        _ => text,
    }
}

impl From<&crate::mapping::Issue> for ResultIssue {
    fn from(i: &crate::mapping::Issue) -> ResultIssue {
        ResultIssue {
            code: i.code.clone(),
            severity: i.severity,
            column: i.column.clone(),
            value: i.value.clone(),
            message: i.message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_the_mapping_issues() {
        let m = crate::mapping::Issue::error(
            "INV-MAP-VALUE",
            Some("Total".into()),
            Some("1,2x".into()),
            "not a number",
        );
        let r = ResultIssue::from(&m);
        assert_eq!(r.render(), m.render());
        assert_eq!(r.render(), "INV-MAP-VALUE Total \"1,2x\": not a number");
        assert_eq!(
            ResultIssue::error("INV-DOCUMENT", "see line 3").render(),
            "INV-DOCUMENT: see line 3"
        );
    }

    #[test]
    fn authority_messages_keep_code_and_severity() {
        let e = ResultIssue::from_message(&Message::error("BR-KSA-40", "KSA", "bad VAT"), "INV-REJECTED");
        assert_eq!((e.code.as_str(), e.severity), ("BR-KSA-40", Severity::Error));
        let w = ResultIssue::from_message(&Message::warning("BR-KSA-98", "KSA", "late"), "X");
        assert_eq!(w.severity, Severity::Warning);
        let bare = Message {
            kind: String::new(),
            code: None,
            category: None,
            message: "no code".into(),
            status: None,
        };
        let b = ResultIssue::from_message(&bare, "INV-REJECTED");
        assert_eq!((b.code.as_str(), b.severity), ("INV-REJECTED", Severity::Error));
    }

    #[test]
    fn the_code_the_authority_repeats_in_its_text_is_said_once() {
        let late = Message::warning(
            "BR-KSA-98",
            "KSA",
            "[BR-KSA-98] - issue_date: the simplified invoice is reported more than 24 hours after it was issued",
        );
        assert_eq!(
            ResultIssue::from_message(&late, "X").render(),
            "BR-KSA-98: issue_date: the simplified invoice is reported more than 24 hours after it was issued"
        );
        // Another code in brackets, a bare bracket, or nothing after it: the text as it came.
        for text in ["[BR-KSA-40] - other", "[BR-KSA-98]", "see [BR-KSA-98] - x"] {
            let m = Message::warning("BR-KSA-98", "KSA", text);
            assert_eq!(ResultIssue::from_message(&m, "X").message, text);
        }
    }

    #[test]
    fn rendered_text_splits_into_code_and_message() {
        let i = ResultIssue::from_rendered("BR-KSA-40: the VAT number", Severity::Error);
        assert_eq!((i.code.as_str(), i.message.as_str()), ("BR-KSA-40", "the VAT number"));
        let j = ResultIssue::from_rendered("plain", Severity::Warning);
        assert_eq!((j.code.as_str(), j.message.as_str()), ("plain", "plain"));
    }
}

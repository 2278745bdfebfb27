//! The result columns of one row, and how to build them for each status.

use super::{ArtefactPaths, RESULT_COLUMNS, ResultIssue, RowStatus};
use crate::ingest::Cell;
use crate::model::SubmissionResponse;
use crate::validate::Severity;

/// An input cell as the result files show it: its text.
///
/// Texts are shown as they are. The rows of an export reach the result files as the reader
/// made them, so a [`Cell`] is written without first being turned into a text of its own (which
/// cost a conversion of every cell of every row): an empty cell is empty, and a spreadsheet's
/// number, date or boolean is spelled as [`Cell::to_text`] spells it.
pub trait CellText {
    /// The text of the cell.
    fn cell_text(&self) -> std::borrow::Cow<'_, str>;
}

impl<T: AsRef<str> + ?Sized> CellText for T {
    fn cell_text(&self) -> std::borrow::Cow<'_, str> {
        self.as_ref().into()
    }
}

impl CellText for crate::ingest::CellRef<'_> {
    fn cell_text(&self) -> std::borrow::Cow<'_, str> {
        self.as_text()
    }
}

impl CellText for Cell {
    fn cell_text(&self) -> std::borrow::Cow<'_, str> {
        self.as_text()
    }
}

/// The result columns of one row.
///
/// `errors` and `warnings` are the rendered findings of `result_errors` / `result_warnings`;
/// [`ResultRow::push_issue`] fills them and keeps the finding structured in `issues` for the
/// "Errors" sheet of the spreadsheet result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultRow {
    /// `result_status`.
    pub status: RowStatus,
    /// `result_document`: the document number (held inline up to 24 bytes: it is on every row).
    pub document: crate::ingest::Text,
    /// `result_uuid`.
    pub uuid: String,
    /// `result_qr`: the QR payload (base64 TLV, exactly as the authority returned it).
    pub qr: String,
    /// `result_xml_file`: the signed XML, relative to the results folder.
    pub xml_file: String,
    /// `result_qr_file`: the QR PNG, relative to the results folder.
    pub qr_file: String,
    /// `result_errors`: `CODE column "value": message`, joined with ` | `.
    pub errors: Vec<String>,
    /// `result_warnings`, same form.
    pub warnings: Vec<String>,
    /// `result_attempts`.
    pub attempts: u32,
    /// `result_time` (RFC 3339; 20 bytes, held inline).
    pub time: crate::ingest::Text,
    /// The findings behind `errors` and `warnings`, structured.
    pub issues: Vec<ResultIssue>,
}

impl ResultRow {
    /// A row with a status and nothing else.
    pub fn new(status: RowStatus, time: &str) -> Self {
        ResultRow {
            status,
            document: Default::default(),
            uuid: String::new(),
            qr: String::new(),
            xml_file: String::new(),
            qr_file: String::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            attempts: 0,
            time: time.into(),
            issues: Vec::new(),
        }
    }

    /// `run`: a row of a document the authority accepted (possibly with warnings): its UUID
    /// and QR payload from the answer, its artefact files, the answer's warnings.
    pub fn accepted(
        time: &str,
        document: &str,
        response: &SubmissionResponse,
        files: &ArtefactPaths,
        attempts: u32,
    ) -> ResultRow {
        let mut r = ResultRow::new(RowStatus::Accepted, time);
        r.document = document.into();
        r.uuid = response.id.clone().unwrap_or_default();
        r.qr = response.qr_code.clone().unwrap_or_default();
        r.xml_file = files.xml_file.clone();
        r.qr_file = files.qr_file.clone();
        r.attempts = attempts;
        for m in &response.warnings.0 {
            let mut issue = ResultIssue::from_message(m, "INV-AUTHORITY");
            issue.severity = Severity::Warning;
            r.push_issue(issue);
        }
        r
    }

    /// `run`: a row of a document the authority rejected: every message of its answer, or
    /// `INV-REJECTED` with the answer's text when it names none.
    pub fn rejected(time: &str, document: &str, response: &SubmissionResponse, attempts: u32) -> ResultRow {
        let mut r = ResultRow::new(RowStatus::Rejected, time);
        r.document = document.into();
        r.uuid = response.id.clone().unwrap_or_default();
        r.attempts = attempts;
        for m in &response.errors.0 {
            r.push_issue(ResultIssue::from_message(m, "INV-REJECTED"));
        }
        for m in &response.warnings.0 {
            let mut issue = ResultIssue::from_message(m, "INV-AUTHORITY");
            issue.severity = Severity::Warning;
            r.push_issue(issue);
        }
        if r.errors.is_empty() {
            let text = response
                .message
                .clone()
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| format!("the authority rejected the document (status {:?})", response.status));
            r.push_issue(ResultIssue::error("INV-REJECTED", text));
        }
        r
    }

    /// `run`: a row of a document whose outcome could not be obtained (`INV-SUBMIT-FAILED`
    /// with the reason, e.g. "no answer after 5 attempts: connection reset").
    pub fn failed(time: &str, document: &str, reason: &str, attempts: u32) -> ResultRow {
        let mut r = ResultRow::new(RowStatus::Failed, time);
        r.document = document.into();
        r.attempts = attempts;
        r.push_issue(ResultIssue::error("INV-SUBMIT-FAILED", reason));
        r
    }

    /// Add a finding: rendered into `errors` or `warnings`, and kept structured.
    pub fn push_issue(&mut self, issue: ResultIssue) {
        let text = issue.render();
        self.push_rendered(issue, text);
    }

    /// [`push_issue`](ResultRow::push_issue) with the finding already rendered (`text` must be
    /// `issue.render()`): a document's findings are rendered once, not once per row.
    pub fn push_rendered(&mut self, issue: ResultIssue, text: String) {
        debug_assert_eq!(text, issue.render());
        match issue.severity {
            Severity::Error => self.errors.push(text),
            Severity::Warning => self.warnings.push(text),
        }
        self.issues.push(issue);
    }

    /// Every finding of the row: the structured ones, then any text pushed into `errors` or
    /// `warnings` directly (split into code and message).
    pub fn findings(&self) -> Vec<ResultIssue> {
        let mut out = self.issues.clone();
        let mut rendered: Vec<String> = self.issues.iter().map(ResultIssue::render).collect();
        let texts = self
            .errors
            .iter()
            .map(|t| (t, Severity::Error))
            .chain(self.warnings.iter().map(|t| (t, Severity::Warning)));
        for (text, severity) in texts {
            if let Some(at) = rendered.iter().position(|r| r == text) {
                rendered.swap_remove(at);
            } else {
                out.push(ResultIssue::from_rendered(text, severity));
            }
        }
        out
    }

    /// The cells of the result columns, in [`RESULT_COLUMNS`] order.
    pub fn cells(&self) -> [String; RESULT_COLUMNS.len()] {
        self.with_texts(|t| t.map(str::to_string))
    }

    /// `f` of [`cells`](Self::cells) borrowed: the findings joined with ` | ` (borrowed when
    /// there is one), the attempts spelled without an allocation. What both result files write.
    pub(crate) fn with_texts<T>(&self, f: impl FnOnce([&str; RESULT_COLUMNS.len()]) -> T) -> T {
        let (errors, warnings) = (listed(&self.errors), listed(&self.warnings));
        let (digits, from) = super::csv_file::decimal_digits(self.attempts);
        // ASCII digits: always UTF-8.
        let attempts = std::str::from_utf8(&digits[from..]).unwrap_or_default();
        f([
            self.status.as_str(),
            &self.document,
            &self.uuid,
            &self.qr,
            &self.xml_file,
            &self.qr_file,
            &errors,
            &warnings,
            attempts,
            &self.time,
        ])
    }
}

/// A list of rendered findings as one cell: joined with ` | `.
fn listed(list: &[String]) -> std::borrow::Cow<'_, str> {
    match list {
        [] => "".into(),
        [one] => one.as_str().into(),
        many => many.join(" | ").into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Messages};

    const T: &str = "2026-11-21T09:00:00Z";

    fn response(status: &str) -> SubmissionResponse {
        SubmissionResponse {
            status: status.into(),
            invoice_number: Some("INV-1".into()),
            invoice: Some("PD94".into()),
            id: Some("6f1b0c2e-0000-4000-8000-000000000001".into()),
            qr_code: Some("AQ1TZWxsZXI=".into()),
            message: None,
            warnings: Messages(vec![Message::warning("BR-KSA-98", "KSA", "reported late")]),
            errors: Messages::default(),
        }
    }

    /// `(column, cell)` pairs, to assert one column at a time by name.
    fn by_name(r: &ResultRow) -> Vec<(&'static str, String)> {
        RESULT_COLUMNS.into_iter().zip(r.cells()).collect()
    }

    fn cell(r: &ResultRow, column: &str) -> String {
        by_name(r).into_iter().find(|(c, _)| *c == column).unwrap().1
    }

    #[test]
    fn accepted_row_fills_every_column() {
        let files = ArtefactPaths {
            xml_file: "x/a.xml".into(),
            qr_file: "x/a.png".into(),
        };
        let r = ResultRow::accepted(T, "INV-1", &response("Success"), &files, 2);
        assert_eq!(cell(&r, "result_status"), "accepted");
        assert_eq!(cell(&r, "result_document"), "INV-1");
        assert_eq!(cell(&r, "result_uuid"), "6f1b0c2e-0000-4000-8000-000000000001");
        assert_eq!(cell(&r, "result_qr"), "AQ1TZWxsZXI=");
        assert_eq!(cell(&r, "result_xml_file"), "x/a.xml");
        assert_eq!(cell(&r, "result_qr_file"), "x/a.png");
        assert_eq!(cell(&r, "result_errors"), "");
        assert_eq!(cell(&r, "result_warnings"), "BR-KSA-98: reported late");
        assert_eq!(cell(&r, "result_attempts"), "2");
        assert_eq!(cell(&r, "result_time"), T);
    }

    #[test]
    fn rejected_row_lists_the_authority_errors() {
        let mut resp = response("Failure");
        resp.errors = Messages(vec![
            Message::error("BR-KSA-40", "KSA", "bad VAT"),
            Message::error("BR-CO-15", "EN_16931", "totals"),
        ]);
        let r = ResultRow::rejected(T, "INV-2", &resp, 1);
        assert_eq!(cell(&r, "result_status"), "rejected");
        assert_eq!(cell(&r, "result_errors"), "BR-KSA-40: bad VAT | BR-CO-15: totals");
        assert_eq!(cell(&r, "result_warnings"), "BR-KSA-98: reported late");
        assert_eq!(cell(&r, "result_xml_file"), "");
        assert_eq!(cell(&r, "result_qr"), "");
        assert_eq!(r.findings().len(), 3);

        let mut bare = response("Failure");
        bare.warnings = Messages::default();
        bare.message = Some("Invoice was rejected".into());
        let r = ResultRow::rejected(T, "INV-3", &bare, 1);
        assert_eq!(cell(&r, "result_errors"), "INV-REJECTED: Invoice was rejected");
    }

    #[test]
    fn failed_row_says_why_and_how_often() {
        let r = ResultRow::failed(T, "INV-4", "no answer after 5 attempts: connection reset", 5);
        assert_eq!(cell(&r, "result_status"), "failed");
        assert_eq!(cell(&r, "result_document"), "INV-4");
        assert_eq!(
            cell(&r, "result_errors"),
            "INV-SUBMIT-FAILED: no answer after 5 attempts: connection reset"
        );
        assert_eq!(cell(&r, "result_attempts"), "5");
        assert_eq!(cell(&r, "result_uuid"), "");
    }

    #[test]
    fn findings_include_text_pushed_directly() {
        let mut r = ResultRow::new(RowStatus::Invalid, T);
        r.push_issue(ResultIssue::error("A", "one"));
        r.errors.push("B col: two".into());
        r.warnings.push("C: three".into());
        let f = r.findings();
        let codes: Vec<_> = f.iter().map(|i| (i.code.as_str(), i.severity)).collect();
        assert_eq!(
            codes,
            [("A", Severity::Error), ("B", Severity::Error), ("C", Severity::Warning)]
        );
    }
}

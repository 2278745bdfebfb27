//! `X.documents.csv`: one row per document, the per-document ledger the reconciliation reads.
//!
//! Columns ([`DOCUMENT_COLUMNS`]): `document`, `kind` (`invoice`, `credit_note`, `debit_note`),
//! `type` (`standard`, `simplified`), `issue_date` (`YYYY-MM-DD`), `issue_time`, `status`,
//! `currency`, `net` (BT-109, tax exclusive), `vat` (BT-110, VAT in the document currency),
//! `vat_sar` (BT-111, VAT in SAR), `gross` (BT-112, tax inclusive), `payable` (BT-115), `uuid`,
//! `xml_file`, `qr_file`, `first_line`, `rows`, `errors` and `warnings` (rule codes, separated by
//! spaces). Amounts are the computed ones, exact decimals with their scale; empty when the
//! document could not be computed, or when it is invalid and some of its amounts could not be
//! read (the figures of the rest are not its amounts). Plain UTF-8 with a header row.

use super::atomic::AtomicFile;
use super::csv_file::{csv_error, push_record};
use super::{ArtefactPaths, ResultIssue, ResultsError, RowStatus};
use crate::model::{Document, DocumentKind};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The columns of `X.documents.csv`, in order.
pub const DOCUMENT_COLUMNS: [&str; 19] = [
    "document",
    "kind",
    "type",
    "issue_date",
    "issue_time",
    "status",
    "currency",
    "net",
    "vat",
    "vat_sar",
    "gross",
    "payable",
    "uuid",
    "xml_file",
    "qr_file",
    "first_line",
    "rows",
    "errors",
    "warnings",
];

/// `RESULTS/X.documents.csv` for the result file `RESULTS/X.result.csv`.
pub fn documents_path(results_dir: &Path, stem: &str) -> PathBuf {
    results_dir.join(format!("{stem}.documents.csv"))
}

/// One document of a result set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentRecord {
    /// The document number.
    pub document: String,
    /// `invoice`, `credit_note`, `debit_note`; empty when the rows did not make a document.
    pub kind: String,
    /// `standard` or `simplified`; empty when unknown.
    pub invoice_type: String,
    /// `YYYY-MM-DD`; empty when unknown.
    pub issue_date: String,
    /// `HH:MM:SS`; empty when unknown.
    pub issue_time: String,
    /// What happened to it.
    pub status: RowStatus,
    /// The document currency.
    pub currency: String,
    /// Total without VAT (BT-109).
    pub net: Option<Decimal>,
    /// VAT in the document currency (BT-110).
    pub vat: Option<Decimal>,
    /// VAT in SAR (BT-111).
    pub vat_sar: Option<Decimal>,
    /// Total with VAT (BT-112).
    pub gross: Option<Decimal>,
    /// Amount due (BT-115).
    pub payable: Option<Decimal>,
    /// The authority's UUID, once accepted.
    pub uuid: String,
    /// The signed XML, relative to the results folder.
    pub xml_file: String,
    /// The QR PNG, relative to the results folder.
    pub qr_file: String,
    /// The first source line of its rows.
    pub first_line: Option<u64>,
    /// How many input rows it has.
    pub rows: u64,
    /// Error codes found in it (each once).
    pub errors: Vec<String>,
    /// Warning codes found in it (each once).
    pub warnings: Vec<String>,
}

/// An amount as the result files (and `--json`) give it: exact, with at least two decimals
/// (`215` is `215.00`, `0` is `0.00`; a third decimal is kept).
pub fn at_least_cents(d: Decimal) -> Decimal {
    let mut d = d;
    if d.scale() < 2 {
        d.rescale(2);
    }
    d
}

impl DocumentRecord {
    /// A document known only by its number (skipped, or rows that did not build a document).
    pub fn new(document: &str, status: RowStatus) -> DocumentRecord {
        DocumentRecord {
            document: document.to_string(),
            kind: String::new(),
            invoice_type: String::new(),
            issue_date: String::new(),
            issue_time: String::new(),
            status,
            currency: String::new(),
            net: None,
            vat: None,
            vat_sar: None,
            gross: None,
            payable: None,
            uuid: String::new(),
            xml_file: String::new(),
            qr_file: String::new(),
            first_line: None,
            rows: 0,
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// A computed document: number, kind, type, date, time, currency and totals (exact, with at
    /// least two decimals: `215` is written `215.00`, a third decimal is kept).
    pub fn from_document(doc: &Document, status: RowStatus) -> DocumentRecord {
        let t = &doc.legal_monitory_total;
        let pad = at_least_cents;
        let sar = doc.doc_currency_code.eq_ignore_ascii_case(&doc.tax_currency_code);
        DocumentRecord {
            kind: match doc.kind {
                DocumentKind::Invoice => "invoice",
                DocumentKind::CreditNote => "credit_note",
                DocumentKind::DebitNote => "debit_note",
            }
            .to_string(),
            invoice_type: doc.invoice_type.as_str().to_string(),
            issue_date: crate::text::date_text(doc.issue_date),
            issue_time: crate::text::time_text(doc.issue_time),
            currency: doc.doc_currency_code.to_string(),
            net: Some(pad(t.tax_exclusive_amount)),
            vat: Some(pad(doc.tax_total.tax_amount)),
            vat_sar: if sar {
                Some(pad(doc.tax_total.tax_amount))
            } else {
                doc.tax_total.tax_amount_in_tax_currency.map(pad)
            },
            gross: Some(pad(t.tax_inclusive_amount)),
            payable: Some(pad(t.payable_amount)),
            ..DocumentRecord::new(&doc.number, status)
        }
    }

    /// Forget the amounts (a document whose totals could not be computed).
    pub fn without_amounts(mut self) -> DocumentRecord {
        self.net = None;
        self.vat = None;
        self.vat_sar = None;
        self.gross = None;
        self.payable = None;
        self
    }

    /// Set the artefact files.
    pub fn with_artefacts(mut self, files: &ArtefactPaths) -> DocumentRecord {
        self.xml_file = files.xml_file.clone();
        self.qr_file = files.qr_file.clone();
        self
    }

    /// Add the codes of findings (each code once, errors and warnings apart).
    pub fn add_codes<'a>(&mut self, issues: impl IntoIterator<Item = &'a ResultIssue>) {
        for i in issues {
            let list = if i.is_error() {
                &mut self.errors
            } else {
                &mut self.warnings
            };
            if !list.contains(&i.code) {
                list.push(i.code.clone());
            }
        }
    }

    /// The record's cells, in [`DOCUMENT_COLUMNS`] order.
    #[cfg(test)]
    fn cells(&self) -> [String; DOCUMENT_COLUMNS.len()] {
        self.with_texts(|t| t.map(str::to_string))
    }

    /// `f` of the record's cells as texts, in [`DOCUMENT_COLUMNS`] order.
    fn with_texts<T>(&self, f: impl FnOnce([&str; DOCUMENT_COLUMNS.len()]) -> T) -> T {
        let amount = |d: Option<Decimal>| d.map(|d| crate::text::decimal_plain(&d)).unwrap_or_default();
        let amounts = [self.net, self.vat, self.vat_sar, self.gross, self.payable].map(amount);
        let first_line = self.first_line.map(|l| l.to_string()).unwrap_or_default();
        let rows = self.rows.to_string();
        let (errors, warnings) = (joined(&self.errors), joined(&self.warnings));
        f([
            &self.document,
            &self.kind,
            &self.invoice_type,
            &self.issue_date,
            &self.issue_time,
            self.status.as_str(),
            &self.currency,
            &amounts[0],
            &amounts[1],
            &amounts[2],
            &amounts[3],
            &amounts[4],
            &self.uuid,
            &self.xml_file,
            &self.qr_file,
            &first_line,
            &rows,
            &errors,
            &warnings,
        ])
    }
}

/// Codes joined with spaces, borrowed when there is one.
fn joined(list: &[String]) -> std::borrow::Cow<'_, str> {
    match list {
        [] => "".into(),
        [one] => one.as_str().into(),
        many => many.join(" ").into(),
    }
}

/// Writes `X.documents.csv` aside; renamed into place on commit. Records are the csv crate's,
/// byte for byte, written by the result CSV's field writer (one buffer a record, on the
/// pipeline's serial stage).
pub(crate) struct DocumentsFile {
    out: AtomicFile,
    line: Vec<u8>,
    target: PathBuf,
}

impl DocumentsFile {
    pub(crate) fn create(target: &Path) -> Result<DocumentsFile, ResultsError> {
        let mut out = AtomicFile::create(target)?;
        let mut line = Vec::with_capacity(512);
        // A byte-order mark, as `X.result.csv` has: Excel then shows Arabic numbers and names.
        line.extend_from_slice("\u{feff}".as_bytes());
        push_record(&mut line, DOCUMENT_COLUMNS.iter().map(|c| c.as_bytes()));
        out.write_all(&line).map_err(|e| ResultsError::io(target, e))?;
        Ok(DocumentsFile {
            out,
            line,
            target: target.to_path_buf(),
        })
    }

    pub(crate) fn write(&mut self, record: &DocumentRecord) -> Result<(), ResultsError> {
        self.line.clear();
        let line = &mut self.line;
        record.with_texts(|texts| push_record(line, texts.iter().map(|t| t.as_bytes())));
        self.out
            .write_all(&self.line)
            .map_err(|e| ResultsError::io(&self.target, e))
    }

    /// The records written so far, flushed to the hidden file aside: its path, to read it back.
    pub(crate) fn written_so_far(&mut self) -> Result<&Path, ResultsError> {
        let target = &self.target;
        self.out.flushed_aside().map_err(|e| ResultsError::io(target, e))
    }

    pub(crate) fn commit(self) -> Result<PathBuf, ResultsError> {
        self.out.commit()
    }
}

/// Read `X.documents.csv` back. Columns are found by name; a row that does not read (a bad
/// status, a bad amount) is an error naming its line.
pub fn read_documents(path: &Path) -> Result<Vec<DocumentRecord>, ResultsError> {
    read_documents_where(path, |_| true)
}

/// The cells of a `X.documents.csv` row that [`read_documents_where`] chooses by, trimmed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Peek<'a> {
    pub(crate) status: &'a str,
    pub(crate) uuid: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) document: &'a str,
}

/// [`read_documents`], keeping only the rows `keep` takes, chosen before the rest of the row is
/// read (a large file's records are not all held, nor all read, when few are kept).
pub(crate) fn read_documents_where(
    path: &Path,
    keep: impl FnMut(Peek<'_>) -> bool,
) -> Result<Vec<DocumentRecord>, ResultsError> {
    let mut out = Vec::new();
    visit_documents_where(path, keep, |r| out.push(r))?;
    Ok(out)
}

/// Each record of `X.documents.csv` that `keep` takes, given to `each` in file order (none is
/// held: memory does not grow with the file).
pub(crate) fn visit_documents_where(
    path: &Path,
    mut keep: impl FnMut(Peek<'_>) -> bool,
    mut each: impl FnMut(DocumentRecord),
) -> Result<(), ResultsError> {
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| csv_error(path, e))?;
    let headers = rdr.headers().map_err(|e| csv_error(path, e))?.clone();
    // A byte-order mark before the first name (a file saved again by a spreadsheet) is no part of it.
    let index: HashMap<&str, usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| (h.trim_start_matches('\u{feff}').trim(), i))
        .collect();
    for required in ["document", "status"] {
        if !index.contains_key(required) {
            return Err(ResultsError::malformed(path, format!("no {required} column")));
        }
    }
    for (n, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| csv_error(path, e))?;
        let line = n + 2;
        let cell = |c: &str| index.get(c).and_then(|&i| rec.get(i)).unwrap_or("").trim();
        let peek = Peek {
            status: cell("status"),
            uuid: cell("uuid"),
            kind: cell("kind"),
            document: cell("document"),
        };
        if !keep(peek) {
            continue;
        }
        let text = |c: &str| cell(c).to_string();
        let amount = |c: &str| -> Result<Option<Decimal>, ResultsError> {
            let t = text(c);
            if t.is_empty() {
                return Ok(None);
            }
            Decimal::from_str_exact(&t)
                .map(Some)
                .map_err(|e| ResultsError::malformed(path, format!("line {line}: {c} {t:?}: {e}")))
        };
        let status_text = text("status");
        let status = RowStatus::parse(&status_text)
            .ok_or_else(|| ResultsError::malformed(path, format!("line {line}: unknown status {status_text:?}")))?;
        let codes = |c: &str| text(c).split_whitespace().map(str::to_string).collect();
        let record = DocumentRecord {
            document: text("document"),
            kind: text("kind"),
            invoice_type: text("type"),
            issue_date: text("issue_date"),
            issue_time: text("issue_time"),
            status,
            currency: text("currency"),
            net: amount("net")?,
            vat: amount("vat")?,
            vat_sar: amount("vat_sar")?,
            gross: amount("gross")?,
            payable: amount("payable")?,
            uuid: text("uuid"),
            xml_file: text("xml_file"),
            qr_file: text("qr_file"),
            first_line: text("first_line").parse().ok(),
            rows: text("rows").parse().unwrap_or(0),
            errors: codes("errors"),
            warnings: codes("warnings"),
        };
        each(record);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::example;

    #[test]
    fn written_and_read_back_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let target = documents_path(dir.path(), "x");
        let mut doc = example::standard_invoice("INV-1");
        crate::compute::compute_document(&mut doc).unwrap();
        let mut a = DocumentRecord::from_document(&doc, RowStatus::Accepted).with_artefacts(&ArtefactPaths {
            xml_file: "x/a.xml".into(),
            qr_file: "x/a.png".into(),
        });
        a.uuid = "u-1".into();
        a.first_line = Some(2);
        a.rows = 3;
        a.add_codes(&[
            ResultIssue::warning("BR-KSA-98", "late"),
            ResultIssue::warning("BR-KSA-98", "again"),
        ]);
        let mut b = DocumentRecord::new("DRAFT-9", RowStatus::Skipped);
        b.add_codes(&[ResultIssue::warning("INV-SKIP", "draft")]);
        let mut w = DocumentsFile::create(&target).unwrap();
        w.write(&a).unwrap();
        w.write(&b).unwrap();
        assert!(!target.exists());
        w.commit().unwrap();
        let back = read_documents(&target).unwrap();
        assert_eq!(back, vec![a.clone(), b]);
        assert_eq!(a.warnings, ["BR-KSA-98"]);
        assert_eq!(a.net, Some(doc.legal_monitory_total.tax_exclusive_amount));
        assert_eq!(a.vat_sar, a.vat);
    }

    #[test]
    fn records_are_the_csv_crates() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = documents_path(dir.path(), "x");
        let mut doc = example::standard_invoice("INV-1, \"quoted\"\nline");
        crate::compute::compute_document(&mut doc)?;
        let mut a = DocumentRecord::from_document(&doc, RowStatus::Invalid);
        a.first_line = Some(12);
        a.rows = 2;
        a.add_codes(&[
            ResultIssue::error("BR-KSA-98", "x"),
            ResultIssue::error("BR-CO-15", "y"),
        ]);
        let b = DocumentRecord::new("", RowStatus::Skipped);
        let mut w = DocumentsFile::create(&target)?;
        // After a byte-order mark, for Excel.
        let mut crate_writer = csv::Writer::from_writer("\u{feff}".as_bytes().to_vec());
        crate_writer.write_record(DOCUMENT_COLUMNS)?;
        for r in [&a, &b] {
            w.write(r)?;
            crate_writer.write_record(r.cells())?;
        }
        w.commit()?;
        assert_eq!(std::fs::read(&target)?, crate_writer.into_inner()?);
        Ok(())
    }

    #[test]
    fn a_bad_amount_is_an_error_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.documents.csv");
        std::fs::write(&p, "document,status,net\nA,valid,1.00\nB,valid,1.0.0\n").unwrap();
        let e = read_documents(&p).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("net"), "{e}");
        std::fs::write(&p, "document,status\nA,great\n").unwrap();
        assert!(read_documents(&p).unwrap_err().to_string().contains("unknown status"));
    }
}

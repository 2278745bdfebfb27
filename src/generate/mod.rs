//! `invoicedrop generate`: realistic ERP exports of any size, for trying mappings, tests and
//! benchmarks.
//!
//! Every bundled layout can be written ([`Layout`]), as delimited text in the layout's own
//! encoding and delimiter, or as an xlsx workbook when the file name ends in `.xlsx`. The
//! documents have about five lines each (1 to 9), Arabic and English names, mixed VAT categories
//! (with exemption reasons from the mapping), discounts, credit notes (one document in 40) that
//! correct an earlier invoice of the same file, debit notes (one in 60) likewise where the
//! mapping reads them (Tally, legacy Arabic, ERPNext), and a draft or voided document now and then
//! where the layout has a status column; continuation rows where the layout has them. Each layout
//! writes its notes as its ERP does: QuickBooks Online's credit memos, Sage 50's credit notes and
//! ERPNext's returns negative, ERPNext's debit notes with their box ticked, the others positive
//! under their own document type. The export's own totals are those invoicedrop computes, so
//! every generated file passes `invoicedrop check` with its detected mapping. Dates are in the 20
//! days before [`Options::today`].
//!
//! The output is deterministic for a seed and a day, and it streams: memory does not depend on
//! the number of rows (xlsx is written in rust_xlsxwriter's constant-memory mode).
//!
//! Side tables the layout's mapping reads are written beside the export: `customers.csv` (buyer
//! VAT numbers and addresses) for every layout but the legacy Arabic one, which carries them in
//! its own columns, and `credit_notes.csv` (the invoice a credit or debit note corrects, and why)
//! for QuickBooks Online, Sage 50 and Tally. SAP Business One DTW writes its `Documents` header
//! file beside the `Document_Lines` file named by `--out`.

mod layouts;
mod model;
mod rows;
mod sink;
mod zoho_discount;

pub use layouts::Layout;

use chrono::NaiveDate;
use model::{DocStream, Kind, State};
use sink::{CsvSink, Sink, TextStyle, Val};
use std::path::{Path, PathBuf};

/// Why a file could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The request cannot be carried out as given.
    #[error("{0}")]
    Usage(String),
    /// A file could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The workbook could not be written.
    #[error("{}: {message}", path.display())]
    Xlsx {
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

impl GenerateError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        GenerateError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Options {
    /// The layout.
    pub layout: Layout,
    /// Line rows to write (for SAP: rows of the lines file).
    pub rows: u64,
    /// Seed of the random choices.
    pub seed: u64,
    /// The export to write; `.xlsx` writes a workbook, anything else delimited text.
    pub out: PathBuf,
    /// Documents are dated in the 20 days before this day.
    pub today: NaiveDate,
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Generated {
    /// Line rows written.
    pub rows: u64,
    /// Documents written.
    pub documents: u64,
    /// Of which credit notes.
    pub credit_notes: u64,
    /// Of which debit notes.
    pub debit_notes: u64,
    /// Of which drafts and voided documents (skipped by `check`).
    pub not_issued: u64,
    /// Every file written: the export first, then side files.
    pub files: Vec<PathBuf>,
}

/// The SAP `Documents` file beside a `Document_Lines` file.
fn sap_header_path(lines: &Path) -> Result<PathBuf, GenerateError> {
    let name = lines
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let at = name.to_lowercase().find("document_lines").ok_or_else(|| {
        GenerateError::Usage(format!(
            "the sap-b1-dtw layout writes two files, and the mapping finds the header file by replacing \
             \"Document_Lines\" in the lines file's name with \"Documents\": name the output like \
             SAP_B1_OINV_Document_Lines.txt (got {name:?})"
        ))
    })?;
    let header = format!("{}Documents{}", &name[..at], &name[at + "document_lines".len()..]);
    Ok(lines.with_file_name(header))
}

fn write_all(sink: &mut dyn Sink, rows: &[&[&'static str]]) -> Result<(), GenerateError> {
    for r in rows {
        let cells: Vec<Val> = r.iter().map(|s| Val::Str(s)).collect();
        sink.row(&cells)?;
    }
    Ok(())
}

/// Write an export (and its side files) as `opts` says.
pub fn generate(opts: &Options) -> Result<Generated, GenerateError> {
    let layout = opts.layout;
    if opts.rows == 0 {
        return Err(GenerateError::Usage("--rows must be at least 1".into()));
    }
    let dir = opts
        .out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| GenerateError::io(dir, e))?;
    let mut done = Generated {
        files: vec![opts.out.clone()],
        ..Default::default()
    };
    let style = layout.text_style();
    let mut out = sink::open(&opts.out, style)?;
    write_all(out.as_mut(), &layout.headers())?;
    let mut header_file = match layout {
        Layout::SapB1Dtw => {
            let path = sap_header_path(&opts.out)?;
            let mut s = sink::open(&path, style)?;
            write_all(s.as_mut(), &[layouts::SAP_DOCUMENTS.0, layouts::SAP_DOCUMENTS.1])?;
            done.files.push(path);
            Some(s)
        }
        _ => None,
    };
    if layout.uses_customers() {
        let path = opts.out.with_file_name("customers.csv");
        let mut s = CsvSink::create(&path, TextStyle::EXCEL)?;
        for r in rows::customer_rows() {
            s.row(&r)?;
        }
        Box::new(s).finish()?;
        done.files.push(path);
    }
    let mut credit_file = if layout.uses_credit_notes() {
        let path = opts.out.with_file_name("credit_notes.csv");
        let mut s = CsvSink::create(&path, TextStyle::EXCEL)?;
        write_all(&mut s, &[layouts::CREDIT_NOTE_COLUMNS])?;
        done.files.push(path);
        Some(s)
    } else {
        None
    };
    let docs = DocStream::new(opts.seed, opts.rows, opts.today, layout.features(), layout.numbering());
    for doc in docs {
        for r in rows::rows(layout, &doc) {
            out.row(&r)?;
        }
        if let Some(h) = header_file.as_mut() {
            h.row(&rows::sap_document(&doc))?;
        }
        if let (Some(c), Some(r)) = (credit_file.as_mut(), rows::credit_note_row(&doc)) {
            c.row(&r)?;
        }
        done.rows += doc.lines.len() as u64;
        done.documents += 1;
        done.credit_notes += u64::from(doc.kind == Kind::CreditNote);
        done.debit_notes += u64::from(doc.kind == Kind::DebitNote);
        done.not_issued += u64::from(doc.state != State::Issued);
    }
    out.finish()?;
    if let Some(h) = header_file {
        h.finish()?;
    }
    if let Some(c) = credit_file {
        Box::new(c).finish()?;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_bundled_mappings() {
        let bundled = crate::mapping::bundled::names();
        for l in Layout::ALL {
            assert_eq!(Layout::from_name(l.name()), Some(l));
            assert!(bundled.contains(&l.name()), "{} is not a bundled mapping", l.name());
        }
        assert_eq!(Layout::from_name(" XERO "), Some(Layout::Xero));
        assert_eq!(Layout::from_name("sap"), None);
    }

    #[test]
    fn sap_needs_document_lines_in_the_name() {
        assert_eq!(
            sap_header_path(Path::new("/t/SAP_B1_OINV_Document_Lines.txt")).unwrap(),
            PathBuf::from("/t/SAP_B1_OINV_Documents.txt")
        );
        assert!(matches!(
            sap_header_path(Path::new("lines.txt")),
            Err(GenerateError::Usage(_))
        ));
    }
}

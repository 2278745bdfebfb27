//! Notes settled with their invoices, through `run`'s stages with an authority that answers from
//! lists and a ledger that remembers what it accepted, and through `check`'s.

use super::*;
use crate::model::{Document, DocumentKind};
use chrono::NaiveDate;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

const HEADER: &str = "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,\
PORegion,POPostalCode,POCountry,SAAddressLine1,SAAddressLine2,SAAddressLine3,SAAddressLine4,SACity,SARegion,\
SAPostalCode,SACountry,InvoiceNumber,Reference,InvoiceDate,DueDate,PlannedDate,Total,TaxTotal,InvoiceAmountPaid,\
InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,\
TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status";

/// A Xero row of a simplified document of one line, 10.00 net: an invoice, or (with
/// `reference`) a credit note of that invoice; `tax` its tax type, `status` its Xero status.
fn row(number: &str, reference: &str, day: u32, tax: &str, status: &str) -> String {
    let kind = if reference.is_empty() {
        "Sales Invoice"
    } else {
        "Sales Credit Note"
    };
    format!(
        "Walk-in customer,,,,,,,,,,,,,,,,,,{number},{reference},{day}/11/2026,{day}/11/2026,,,,,,P1,Book,1,10.00,,\
         10.00,200,{tax},,,,,,SAR,{kind},Sent,{status}"
    )
}

fn invoice(number: &str, day: u32) -> String {
    row(number, "", day, "15% Output VAT", "Paid")
}

fn note(number: &str, invoice: &str) -> String {
    row(number, invoice, 21, "15% Output VAT", "Paid")
}

/// The authority and the ledger: invoices it is told to reject are rejected, those it is told
/// to leave unanswered fail (sent), the rest accepted and remembered with their issue date;
/// `issued` holds invoices issued before, with their date.
#[derive(Default)]
struct Authority {
    reject: Vec<&'static str>,
    unanswered: Vec<&'static str>,
    issued: Arc<Mutex<HashMap<String, NaiveDate>>>,
    /// Each dispatch: the numbers sent, with their billing references.
    calls: Vec<Vec<(String, Option<String>)>>,
    /// The numbers of the invalid documents asked about.
    asked: Vec<String>,
}

impl Authority {
    fn issued_before(self, number: &str, date: NaiveDate) -> Self {
        self.issued.lock().unwrap().insert(number.into(), date);
        self
    }
}

impl Dispatch for Authority {
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        self.calls.push(
            docs.iter()
                .map(|d| (d.number.clone(), d.billing_reference.clone()))
                .collect(),
        );
        docs.iter()
            .map(|d| {
                if self.reject.contains(&d.number.as_str()) {
                    return Verdict {
                        status: Some(RowStatus::Rejected),
                        errors: vec!["BR-KSA-05: no".into()],
                        codes: vec!["BR-KSA-05".into()],
                        ..Verdict::default()
                    };
                }
                if self.unanswered.contains(&d.number.as_str()) {
                    return Verdict {
                        status: Some(RowStatus::Failed),
                        errors: vec!["INV-SUBMIT-UNKNOWN: no answer".into()],
                        codes: vec!["INV-SUBMIT-UNKNOWN".into()],
                        ..Verdict::default()
                    };
                }
                if d.kind == DocumentKind::Invoice {
                    self.issued.lock().unwrap().insert(d.number.clone(), d.issue_date);
                }
                Verdict {
                    status: Some(RowStatus::Accepted),
                    uuid: format!("u-{}", d.number),
                    ..Verdict::default()
                }
            })
            .collect()
    }

    fn originals(&self) -> Option<Originals> {
        let issued = self.issued.clone();
        let lookup = move |n: &str, _: Option<&str>| issued.lock().unwrap().get(n).copied();
        Some(Originals(Arc::new(lookup)))
    }

    fn issued(&mut self, invalid: Vec<Held>) -> Vec<Option<Verdict>> {
        self.asked.extend(invalid.iter().map(|h| h.document.number.clone()));
        Vec::new()
    }
}

/// Each result row: number, status, errors, warnings.
type Rows = Vec<[String; 4]>;

/// `files` (name, rows) run through `run`'s stages with `authority` (`None`: checked), in order,
/// with one set of options: each file's result rows.
fn run_files(files: &[(&str, Vec<String>)], mut authority: Option<&mut Authority>) -> Vec<Rows> {
    let dir = tempfile::tempdir().unwrap();
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
        .unwrap()
        .into();
    let opts = CheckOptions::new(now, crate::model::example::seller());
    let mut out = Vec::new();
    for (name, lines) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("{HEADER}\n{}\n", lines.join("\n"))).unwrap();
        // Walk-in buyers: a customers table of its header alone (none has a VAT number).
        std::fs::write(
            path.with_file_name("customers.csv"),
            crate::mapping::tests::XERO_CUSTOMERS,
        )
        .unwrap();
        let mapping = Arc::new(crate::mapping::bundled::get("xero").unwrap().unwrap());
        let prepared = prepare(&path, mapping, &crate::config::Config::default()).unwrap();
        let results = dir.path().join("r");
        let mut writer = ResultWriter::create(&results, &path, &prepared.bound.headers.names()).unwrap();
        let mut summary = FileSummary::default();
        let d = authority.as_deref_mut().map(|a| a as &mut dyn Dispatch);
        check_stream(prepared.input, prepared.bound, &opts, &mut writer, &mut summary, d).unwrap();
        let finished = writer.finish().unwrap();
        let mut r = csv::Reader::from_path(&finished.result_csv).unwrap();
        let h: Vec<String> = r
            .headers()
            .unwrap()
            .iter()
            .map(|h| h.trim_start_matches('\u{feff}').into())
            .collect();
        let rows: Vec<BTreeMap<String, String>> = r
            .records()
            .map(|rec| h.iter().cloned().zip(rec.unwrap().iter().map(String::from)).collect())
            .collect();
        out.push(
            rows.into_iter()
                .map(|r| ["result_document", "result_status", "result_errors", "result_warnings"].map(|c| r[c].clone()))
                .collect(),
        );
    }
    out
}

fn of<'r>(rows: &'r Rows, number: &str) -> &'r [String; 4] {
    rows.iter()
        .find(|r| r[0] == number)
        .unwrap_or_else(|| panic!("no {number} in {rows:?}"))
}

fn reference(number: &str, day: u32) -> Option<String> {
    Some(format!(
        "Invoice Number: {number}; Invoice Issue Date: 2026-11-{day:02}"
    ))
}

#[test]
fn a_note_above_its_invoice_waits_for_its_answer_and_takes_its_date() {
    let mut a = Authority::default();
    let rows = run_files(
        &[("a.csv", vec![note("CN-1", "INV-1"), invoice("INV-1", 20)])],
        Some(&mut a),
    );
    assert_eq!(
        a.calls,
        [
            vec![("INV-1".to_string(), None)],
            vec![("CN-1".to_string(), reference("INV-1", 20))]
        ]
    );
    let cn = of(&rows[0], "CN-1");
    assert_eq!(cn[1], "accepted", "{cn:?}");
    assert!(!cn[3].contains("INV-MAP-REFERENCE"), "{cn:?}");
}

#[test]
fn a_note_whose_invoice_is_not_issued_is_held_back_naming_it() {
    // INV-1 invalid, INV-2 voided, INV-3 rejected by the authority (the note above it waits
    // for that answer), INV-4 without an answer.
    let lines = vec![
        row("INV-1", "", 20, "12% VAT", "Paid"),
        note("CN-1", "INV-1"),
        row("INV-2", "", 20, "15% Output VAT", "Voided"),
        note("CN-2", "INV-2"),
        note("CN-3", "INV-3"),
        invoice("INV-3", 20),
        invoice("INV-4", 20),
        note("CN-4", "INV-4"),
    ];
    let mut a = Authority {
        reject: vec!["INV-3"],
        unanswered: vec!["INV-4"],
        ..Authority::default()
    };
    let rows = run_files(&[("a.csv", lines)], Some(&mut a));
    let sent: Vec<&str> = a.calls.iter().flatten().map(|(n, _)| n.as_str()).collect();
    assert_eq!(sent, ["INV-3", "INV-4"], "no note is sent");
    // The notes held back are asked about as invalid documents (an older build may have issued
    // them).
    assert_eq!(a.asked, ["INV-1", "CN-1", "CN-2", "CN-3"]);
    let rows = &rows[0];
    for (cn, status, says) in [
        (
            "CN-1",
            "invalid",
            "invoice INV-1 (line 2 of this file), which is not issued (it is invalid: BR-KSA-84 on line 2)",
        ),
        (
            "CN-2",
            "invalid",
            "invoice INV-2 (line 4 of this file), which is not issued (it is skipped: Status \"Voided\")",
        ),
        (
            "CN-3",
            "invalid",
            "invoice INV-3 (line 7 of this file), which is not issued (the authority rejected it: BR-KSA-05)",
        ),
        (
            "CN-4",
            "failed",
            "INV-SUBMIT-NOT-SENT: not sent: the invoice it corrects, invoice INV-4 (line 8 of this file), was sent without a final answer",
        ),
    ] {
        let r = of(rows, cn);
        assert_eq!(r[1], status, "{r:?}");
        assert!(r[2].contains(says), "{r:?}");
        if status == "invalid" {
            assert!(
                r[2].starts_with(&format!(
                    "INV-REFERENCE-NOT-ISSUED Reference \"INV-{}\": this credit note corrects",
                    &cn[3..]
                )),
                "{r:?}"
            );
        }
    }
    assert!(of(rows, "CN-2")[2].contains("if it is not, this note corrects nothing: take it out of the export"));
}

#[test]
fn a_note_whose_invoice_is_issued_references_the_issued_date() {
    // INV-1 was issued on the 19th; the export now says the 20th.
    let mut a = Authority::default().issued_before("INV-1", NaiveDate::from_ymd_opt(2026, 11, 19).unwrap());
    let rows = run_files(
        &[("a.csv", vec![invoice("INV-1", 20), note("CN-1", "INV-1")])],
        Some(&mut a),
    );
    let sent = a.calls.concat();
    assert!(sent.contains(&("CN-1".to_string(), reference("INV-1", 19))), "{sent:?}");
    let cn = of(&rows[0], "CN-1");
    assert_eq!(cn[1], "accepted", "{cn:?}");
    assert!(
        cn[3].contains(
            "INV-REFERENCE-DATE Reference \"INV-1\": invoice INV-1 was issued dated 2026-11-19 (as the ledger holds \
             it), but the export gives it 2026-11-20 (on the invoice's row)"
        ),
        "{cn:?}"
    );
}

#[test]
fn a_note_dated_before_the_date_its_invoice_was_issued_with_is_warned() {
    assert!(crate::validate::rule(super::FORM_CODE).is_some());
    // INV-1 issued on the 22nd; the export says the 20th, and its note is of the 21st.
    let mut a = Authority::default().issued_before("INV-1", NaiveDate::from_ymd_opt(2026, 11, 22).unwrap());
    let rows = run_files(
        &[("a.csv", vec![invoice("INV-1", 20), note("CN-1", "INV-1")])],
        Some(&mut a),
    );
    let cn = of(&rows[0], "CN-1");
    assert!(
        cn[3].contains(
            "INV-BILLING-REFERENCE-FORM Reference \"INV-1\": invoice INV-1 was issued dated 2026-11-22 (as the \
             ledger holds it), after this note (2026-11-21)"
        ),
        "{cn:?}"
    );
    // The export's date after the note, the issued one before it: the export's warning goes.
    let mut a = Authority::default().issued_before("INV-1", NaiveDate::from_ymd_opt(2026, 11, 19).unwrap());
    let rows = run_files(
        &[("a.csv", vec![invoice("INV-1", 23), note("CN-1", "INV-1")])],
        Some(&mut a),
    );
    let cn = of(&rows[0], "CN-1");
    assert!(!cn[3].contains("INV-BILLING-REFERENCE-FORM"), "{cn:?}");
    assert!(cn[3].contains("INV-REFERENCE-DATE"), "{cn:?}");
}

#[test]
fn an_invoice_not_issued_in_an_earlier_file_holds_back_its_note_until_one_is_issued() {
    let mut a = Authority::default();
    let rows = run_files(
        &[
            ("a.csv", vec![row("INV-1", "", 20, "12% VAT", "Paid")]),
            ("b.csv", vec![note("CN-1", "INV-1")]),
            ("c.csv", vec![invoice("INV-1", 20)]),
            ("d.csv", vec![note("CN-2", "INV-1")]),
        ],
        Some(&mut a),
    );
    let cn = of(&rows[1], "CN-1");
    assert_eq!(cn[1], "invalid", "{cn:?}");
    assert!(
        cn[2].contains("invoice INV-1 (line 2 of ") && cn[2].contains("a.csv), which is not issued"),
        "{cn:?}"
    );
    let cn = of(&rows[3], "CN-2");
    assert_eq!((cn[1].as_str(), cn[2].as_str()), ("accepted", ""), "{cn:?}");
}

#[test]
fn check_holds_back_a_note_of_an_invalid_or_skipped_invoice_and_forgets_one_found_valid() {
    let rows = run_files(
        &[
            (
                "a.csv",
                vec![
                    row("INV-1", "", 20, "12% VAT", "Paid"),
                    note("CN-1", "INV-1"),
                    row("INV-2", "", 20, "15% Output VAT", "Draft"),
                    note("CN-2", "INV-2"),
                    invoice("INV-3", 20),
                    note("CN-3", "INV-3"),
                ],
            ),
            ("b.csv", vec![invoice("INV-1", 20), note("CN-4", "INV-1")]),
        ],
        None,
    );
    let status = |rows: &Rows, n: &str| of(rows, n)[1].clone();
    assert_eq!(status(&rows[0], "CN-1"), "invalid");
    assert!(of(&rows[0], "CN-1")[2].contains("it is invalid: BR-KSA-84 on line 2"));
    assert_eq!(status(&rows[0], "CN-2"), "invalid");
    assert!(of(&rows[0], "CN-2")[2].contains("it is skipped: Status \"Draft\""));
    assert_eq!(status(&rows[0], "CN-3"), "valid");
    assert_eq!(status(&rows[1], "CN-4"), "valid", "INV-1 is valid in b.csv");
}

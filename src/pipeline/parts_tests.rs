//! Documents in parts read together, through `run`'s stages with a ledger that answers from a
//! list: only the numbers it holds are kept and asked about, each as one document, counted
//! once on its first part's first row; nothing of them is sent.

use super::*;
use crate::model::{Document, DocumentKind};
use std::collections::BTreeMap;

const HEADER: &str = "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,\
PORegion,POPostalCode,POCountry,SAAddressLine1,SAAddressLine2,SAAddressLine3,SAAddressLine4,SACity,SARegion,\
SAPostalCode,SACountry,InvoiceNumber,Reference,InvoiceDate,DueDate,PlannedDate,Total,TaxTotal,InvoiceAmountPaid,\
InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,\
TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status";

/// A Xero line of a simplified invoice `number`: item `item`, 10.00 net.
fn line(number: &str, item: &str) -> String {
    format!(
        "Walk-in customer,,,,,,,,,,,,,,,,,,{number},,21/11/2026,21/11/2026,,,,,,{item},Book,1,10.00,,10.00,200,\
         15% Output VAT,,,,,,SAR,Sales Invoice,Sent,Awaiting Payment"
    )
}

/// A ledger answering from lists: `issued` numbers are accepted, `maybe` ones sent without a
/// final answer; what it was asked and sent is kept.
#[derive(Default)]
struct Listed {
    issued: Vec<&'static str>,
    maybe: Vec<&'static str>,
    asked: Vec<String>,
    /// Each document looked up: its number, lines and errors.
    looked_up: Vec<(String, usize, usize)>,
    sent: Vec<String>,
}

impl Dispatch for Listed {
    fn dispatch(&mut self, docs: Vec<Document>) -> Vec<Verdict> {
        docs.iter()
            .map(|d| {
                self.sent.push(d.number.clone());
                Verdict {
                    status: Some(RowStatus::Accepted),
                    uuid: format!("new-{}", d.number),
                    ..Verdict::default()
                }
            })
            .collect()
    }

    fn holds(&mut self, numbers: &[(String, Option<DocumentKind>)], _seller_vat: Option<&str>) -> Vec<bool> {
        self.asked.extend(numbers.iter().map(|(n, _)| n.clone()));
        let n = |(n, _): &(String, _)| self.issued.contains(&n.as_str()) || self.maybe.contains(&n.as_str());
        numbers.iter().map(n).collect()
    }

    fn issued(&mut self, invalid: Vec<Held>) -> Vec<Option<Verdict>> {
        invalid
            .into_iter()
            .map(|h| {
                let number = h.document.number.clone();
                self.looked_up
                    .push((number.clone(), h.document.invoice_lines.len(), h.failing.len()));
                if self.issued.contains(&number.as_str()) {
                    Some(Verdict {
                        status: Some(RowStatus::Accepted),
                        uuid: format!("u-{number}"),
                        ..Verdict::default()
                    })
                } else if self.maybe.contains(&number.as_str()) {
                    Some(Verdict {
                        status: Some(RowStatus::Failed),
                        errors: vec!["INV-SUBMIT-UNKNOWN: not sent: sent earlier".into()],
                        codes: vec!["INV-SUBMIT-UNKNOWN".into()],
                        ..Verdict::default()
                    })
                } else {
                    None
                }
            })
            .collect()
    }
}

/// `lines` run through `run`'s stages with `ledger`, as `run` does: the split numbers found,
/// those the ledger holds read together. The result rows (number, status, uuid, errors,
/// warnings), the documents CSV's rows (number, status, rows), the counts, and how many parts
/// were read together.
#[allow(clippy::type_complexity)]
fn run(lines: &[String], ledger: &mut Listed) -> (Vec<[String; 5]>, Vec<[String; 3]>, Counts, usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.csv");
    std::fs::write(&path, format!("{HEADER}\n{}\n", lines.join("\n"))).unwrap();
    // Walk-in buyers: a customers table of its header alone (none has a VAT number).
    std::fs::write(
        path.with_file_name("customers.csv"),
        crate::mapping::tests::XERO_CUSTOMERS,
    )
    .unwrap();
    let mapping = Arc::new(crate::mapping::bundled::get("xero").unwrap().unwrap());
    let mut prepared = prepare(&path, mapping, &crate::config::Config::default()).unwrap();
    let splits = Arc::new(split_keys(&path, &prepared.bound).unwrap());
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
        .unwrap()
        .into();
    let opts = CheckOptions::new(now, crate::model::example::seller());
    let results = dir.path().join("r");
    let mut writer = ResultWriter::create(&results, &path, &prepared.bound.headers.names()).unwrap();
    let assembled = assemble(&path, &prepared.bound, &splits, &opts, &mut writer, ledger);
    let parts = assembled.as_ref().map_or(0, |a| a.len());
    prepared.input.splits = Some(splits);
    prepared.input.assembled = assembled.clone();
    let mut summary = FileSummary::default();
    check_stream(
        prepared.input,
        prepared.bound,
        &opts,
        &mut writer,
        &mut summary,
        Some(ledger),
    )
    .unwrap();
    assert!(
        assembled.is_none_or(|a| a.is_empty()),
        "every part read together is taken"
    );
    let finished = writer.finish().unwrap();
    let read = |p: &std::path::Path| -> Vec<BTreeMap<String, String>> {
        let mut r = csv::Reader::from_path(p).unwrap();
        let h: Vec<String> = r
            .headers()
            .unwrap()
            .iter()
            .map(|h| h.trim_start_matches('\u{feff}').into())
            .collect();
        r.records()
            .map(|rec| h.iter().cloned().zip(rec.unwrap().iter().map(String::from)).collect())
            .collect()
    };
    let rows = read(&finished.result_csv)
        .into_iter()
        .map(|r| {
            [
                "result_document",
                "result_status",
                "result_uuid",
                "result_errors",
                "result_warnings",
            ]
            .map(|c| r[c].clone())
        })
        .collect();
    let docs = read(&finished.documents_csv)
        .into_iter()
        .map(|d| ["document", "status", "rows"].map(|c| d[c].clone()))
        .collect();
    (rows, docs, summary.documents, parts)
}

#[test]
fn an_issued_number_in_parts_is_reported_issued_once_from_its_parts_read_together() {
    // A-1 apart (lines 2 and 5) and issued; A-2 together; A-3 apart (lines 6 and 8), never
    // issued; A-4 apart (lines 7 and 9), sent earlier without a final answer.
    let lines = [
        line("A-1", "P1"),
        line("A-2", "P1"),
        line("A-2", "P2"),
        line("A-1", "P2"),
        line("A-3", "P1"),
        line("A-4", "P1"),
        line("A-3", "P2"),
        line("A-4", "P2"),
    ];
    let mut ledger = Listed {
        issued: vec!["A-1"],
        maybe: vec!["A-4"],
        ..Listed::default()
    };
    let (rows, docs, counts, parts) = run(&lines, &mut ledger);
    ledger.asked.sort();
    assert_eq!(
        ledger.asked,
        ["A-1", "A-3", "A-4"],
        "only the split numbers are asked about"
    );
    assert_eq!(parts, 4, "only the parts of the numbers the ledger holds are kept");
    assert_eq!(ledger.sent, ["A-2"], "no part of a document apart is sent");
    // Each asked about once, whole (both its lines), as a document that passes the checks.
    assert_eq!(ledger.looked_up, [("A-1".to_string(), 2, 0), ("A-4".to_string(), 2, 0)]);
    assert_eq!(
        counts,
        Counts {
            accepted: 2,
            invalid: 2,
            failed: 1,
            ..Counts::default()
        }
    );
    let docs: Vec<String> = docs.iter().map(|d| d.join(" ")).collect();
    assert_eq!(
        docs,
        [
            "A-1 accepted 2",
            "A-2 accepted 2",
            "A-3 invalid 1",
            "A-4 failed 2",
            "A-3 invalid 1"
        ]
    );
    // A-1: accepted on every row, said apart on each part's first row, counted on line 2.
    for i in [0, 3] {
        assert_eq!(
            (rows[i][1].as_str(), rows[i][2].as_str(), rows[i][3].as_str()),
            ("accepted", "u-A-1", "")
        );
        assert!(
            rows[i][4].contains(
                "INV-MAP-SPLIT InvoiceNumber \"A-1\": this document's rows are not together in the file (its 2 parts \
                 start at lines 2 and 5); read together, they are what was issued under its number"
            ),
            "{:?}",
            rows[i]
        );
    }
    assert!(!rows[0][4].contains("INV-DOCUMENT"), "{:?}", rows[0]);
    assert!(
        rows[3][4].contains("INV-DOCUMENT: a part of the document counted on line 2, its first row"),
        "{:?}",
        rows[3]
    );
    // A-3: never issued, invalid on every part as before.
    for i in [4, 6] {
        assert_eq!(rows[i][1], "invalid");
        assert!(rows[i][3].contains("no part of it is issued"), "{:?}", rows[i]);
    }
    // A-4: failed on every row, the rows apart an error, counted on line 7.
    for i in [5, 7] {
        assert_eq!(rows[i][1], "failed", "{:?}", rows[i]);
        assert!(rows[i][3].contains("INV-SUBMIT-UNKNOWN: not sent"), "{:?}", rows[i]);
        assert!(
            rows[i][3].contains("INV-MAP-SPLIT InvoiceNumber \"A-4\""),
            "{:?}",
            rows[i]
        );
    }
    assert!(
        rows[7][3].contains("INV-DOCUMENT: a part of the document counted on line 7"),
        "{:?}",
        rows[7]
    );
}

#[test]
fn nothing_is_read_again_when_the_ledger_holds_no_split_number() {
    let lines = [line("A-1", "P1"), line("A-2", "P1"), line("A-1", "P2")];
    let mut ledger = Listed::default();
    let (rows, _, counts, parts) = run(&lines, &mut ledger);
    assert_eq!(ledger.asked, ["A-1"]);
    assert_eq!(parts, 0);
    assert!(ledger.looked_up.is_empty());
    assert_eq!(ledger.sent, ["A-2"]);
    assert_eq!((counts.invalid, counts.accepted), (2, 1));
    assert!(rows[2][3].starts_with("INV-MAP-SPLIT"), "{:?}", rows[2]);
}

#[test]
fn a_part_is_given_its_results_only_when_its_rows_are_those_read_together() {
    use crate::mapping::tests::{SIMPLE, bound, rows_from_csv};
    // A1's parts start at lines 2, 4 and 6.
    let csv = "No,Date,Customer,VAT,Item,Qty,Price,Tax\n\
               A1,05/11/2026,X,,Pen,1,1,\nA2,05/11/2026,X,,Pen,1,1,\nA1,05/11/2026,X,,Cup,1,1,\n\
               A3,05/11/2026,X,,Cup,1,1,\nA1,05/11/2026,X,,Ink,1,1,\n";
    let (h, rows) = rows_from_csv(csv, 1);
    let b = bound(SIMPLE, &h);
    let mut scan = crate::mapping::KeyScan::new(b.clone());
    rows.iter().for_each(|r| scan.push(r));
    let mut g = crate::mapping::Grouper::with_splits(b.clone(), Some(Arc::new(scan.finish())));
    let mut units: Vec<Unit> = rows.into_iter().flat_map(|r| g.push(r)).collect();
    units.extend(g.finish());
    assert_eq!(units.len(), 5);
    let part = |line: u64, head: bool| Part {
        lines: vec![Some(line)],
        results: vec![ResultRow::new(RowStatus::Accepted, "t")],
        head: head.then(|| Head {
            brief: DocBrief {
                number: "A1".into(),
                kind: "invoice".into(),
                invoice_type: "simplified".into(),
                status: RowStatus::Accepted,
                payable: None,
                lines: 3,
                first_line: 2,
                conflict: false,
                issued: None,
                issued_before: false,
            },
            record: None,
            codes: vec![crate::mapping::SPLIT_CODE.into()],
        }),
    };
    let assembled = Assembled::default();
    {
        let mut parts = assembled.parts.lock().unwrap();
        parts.insert(("A1".into(), 2), part(2, true));
        // Read together from other rows than the file's pass finds (the file changed between).
        parts.insert(("A1".into(), 4), part(9, false));
        parts.insert(("A1".into(), 6), part(6, false));
    }
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z").unwrap();
    let opts = CheckOptions::new(now.into(), crate::model::example::seller());
    let side = super::stamp::SideWatch::new(&b, false);
    let mut evaluated = Vec::new();
    let mut outcomes = Vec::new();
    for (i, mut u) in units.into_iter().enumerate() {
        if i == 4
            && let Unit::Document(d) = &mut u
        {
            // A part held back (its file changed while read) is evaluated as any other.
            let changed = crate::mapping::Issue::error(FILE_CHANGED_CODE, None, None, "changed");
            d.rows[0].issues.push(changed);
        }
        outcomes.push(outcome(Some(&assembled), u, |u| {
            evaluated.push(i);
            evaluate(u, &b, &opts, "t", false, &side)
        }));
    }
    assert_eq!(evaluated, [1, 2, 3, 4], "only A1's first part is as read together");
    let first = &outcomes[0];
    assert_eq!(first.rows[0].result.status, RowStatus::Accepted);
    assert!(first.rows[0].row.is_some(), "the part's own row is written");
    assert_eq!(first.brief.as_ref().map(|b| b.lines), Some(3));
    assert_eq!(first.codes, [crate::mapping::SPLIT_CODE]);
    for i in [2, 4] {
        assert_eq!(outcomes[i].rows[0].result.status, RowStatus::Invalid);
    }
    assert_eq!(assembled.len(), 2, "the parts not taken stay");
}

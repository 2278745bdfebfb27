//! The writer as `run` will use it: accepted, rejected and failed documents, artefacts staged and
//! swapped in as a whole, and nothing half-written when a run is interrupted.

use super::common::{payload, read_csv, response, tree};
use chrono::{NaiveDate, NaiveTime};
use invoicedrop::compute::compute_document;
use invoicedrop::model::{Message, Messages, example};
use invoicedrop::results::documents::read_documents;
use invoicedrop::results::{DocumentRecord, ResultRow, ResultWriter, ResultsError, RowStatus, Summary};
use std::path::Path;

const T: &str = "2026-11-21T09:00:00Z";

fn headers() -> Vec<String> {
    vec!["No".into(), "Amount".into()]
}

fn date() -> (NaiveDate, NaiveTime) {
    (
        NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
        NaiveTime::from_hms_opt(10, 30, 0).unwrap(),
    )
}

fn computed(number: &str) -> invoicedrop::model::Document {
    let mut doc = example::standard_invoice(number);
    compute_document(&mut doc).unwrap();
    doc
}

/// One run over `sales.csv`: each `(number, status)` becomes one row and one document.
fn run(dir: &Path, docs: &[(&str, RowStatus)]) -> Result<invoicedrop::results::Finished, ResultsError> {
    let mut w = ResultWriter::create(dir, Path::new("in/sales.csv"), &headers()).unwrap();
    w.set_mapping("test");
    for (i, (number, status)) in docs.iter().enumerate() {
        let doc = computed(number);
        let cells = vec![number.to_string(), "115".into()];
        let mut record = DocumentRecord::from_document(&doc, *status);
        let row = match status {
            RowStatus::Accepted => {
                let resp = response(
                    number,
                    &format!("<Invoice><ID>{number}</ID></Invoice>"),
                    &payload(i as u8),
                );
                let (d, t) = date();
                let files = w.write_accepted("399999999900003", number, d, t, &resp)?;
                record = record.with_artefacts(&files);
                record.uuid = resp.id.clone().unwrap();
                ResultRow::accepted(T, number, &resp, &files, 1)
            }
            RowStatus::Rejected => {
                let mut resp = response(number, "", "");
                resp.status = "Failure".into();
                resp.errors = Messages(vec![Message::error("BR-KSA-40", "KSA", "the VAT number is wrong")]);
                ResultRow::rejected(T, number, &resp, 1)
            }
            RowStatus::Failed => ResultRow::failed(T, number, "no answer after 5 attempts", 5),
            other => {
                let mut r = ResultRow::new(*other, T);
                r.document = (*number).into();
                r
            }
        };
        record.first_line = Some(i as u64 + 2);
        record.rows = 1;
        record.add_codes(&row.findings());
        w.write_row(&cells, &row, Some(i as u64 + 2)).unwrap();
        w.document(&record).unwrap();
    }
    w.finish()
}

fn summary_of(dir: &Path) -> Summary {
    serde_json::from_slice(&std::fs::read(dir.join("sales.summary.json")).unwrap()).unwrap()
}

#[test]
fn accepted_rejected_and_failed_documents_in_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let finished = run(
        dir.path(),
        &[
            ("A-1", RowStatus::Accepted),
            ("B-2", RowStatus::Rejected),
            ("C-3", RowStatus::Failed),
        ],
    )
    .unwrap();
    assert!(finished.result_xlsx.is_none());
    let rows = read_csv(&dir.path().join("sales.result.csv"));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let (a, b, c) = (&rows[1], &rows[2], &rows[3]);
    assert_eq!(
        [
            &a[col("result_status")],
            &b[col("result_status")],
            &c[col("result_status")]
        ],
        ["accepted", "rejected", "failed"]
    );
    assert_eq!(a[col("result_uuid")], "uuid-A-1");
    assert_eq!(a[col("result_qr")], payload(0));
    assert_eq!(
        a[col("result_xml_file")],
        "sales/399999999900003_20261120T103000_A-1.xml"
    );
    assert_eq!(
        a[col("result_qr_file")],
        "sales/399999999900003_20261120T103000_A-1.png"
    );
    assert_eq!(b[col("result_errors")], "BR-KSA-40: the VAT number is wrong");
    assert_eq!(b[col("result_xml_file")], "");
    assert_eq!(c[col("result_errors")], "INV-SUBMIT-FAILED: no answer after 5 attempts");
    assert_eq!(c[col("result_attempts")], "5");
    let xml = std::fs::read_to_string(dir.path().join(&a[col("result_xml_file")])).unwrap();
    assert_eq!(
        xml, "<Invoice><ID>A-1</ID></Invoice>",
        "the authority's bytes, unchanged"
    );
    assert!(dir.path().join(&a[col("result_qr_file")]).is_file());

    let docs = read_documents(&finished.documents_csv).unwrap();
    let statuses: Vec<RowStatus> = docs.iter().map(|d| d.status).collect();
    assert_eq!(statuses, [RowStatus::Accepted, RowStatus::Rejected, RowStatus::Failed]);
    assert_eq!(docs[0].xml_file, a[col("result_xml_file")]);
    assert_eq!(docs[1].errors, ["BR-KSA-40"]);

    let s = summary_of(dir.path());
    assert_eq!(s, finished.summary);
    assert_eq!(s.mapping, "test");
    for status in [RowStatus::Accepted, RowStatus::Rejected, RowStatus::Failed] {
        assert_eq!(s.count(status), 1, "{status}");
        assert_eq!(s.rows_by_status[&status], 1);
        let gross = s.by_status[&status].amounts["SAR"].gross;
        assert_eq!(gross, computed("X").legal_monitory_total.tax_inclusive_amount);
    }
    assert_eq!(s.rejections["BR-KSA-40"].documents[&RowStatus::Rejected], 1);
    assert_eq!(s.rejections["INV-SUBMIT-FAILED"].documents[&RowStatus::Failed], 1);
    assert!(s.render("", true).contains("rejections by rule:"));
}

#[test]
fn a_rerun_replaces_the_artefacts_folder_keeping_every_issued_document() {
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        &[
            ("A-1", RowStatus::Accepted),
            ("B-2", RowStatus::Accepted),
            ("C-3", RowStatus::Accepted),
        ],
    )
    .unwrap();
    let files = |dir: &Path| {
        tree(dir)
            .into_iter()
            .filter(|p| p.starts_with("sales/") && (p.ends_with(".xml") || p.ends_with(".png")))
            .collect::<Vec<_>>()
    };
    let before = files(dir.path());
    assert_eq!(before.len(), 6);
    let issued = read_documents(&dir.path().join("sales.documents.csv")).unwrap();
    // B is gone from the export; C is not accepted now (a run whose ledger did not issue it):
    // issued, both are kept as issued, their XML and QR with them.
    let f = run(
        dir.path(),
        &[("A-1", RowStatus::Accepted), ("C-3", RowStatus::Rejected)],
    )
    .unwrap();
    assert_eq!(files(dir.path()), before);
    assert_eq!((f.kept.not_in_export, f.kept.in_export), (1, 1));
    assert_eq!(f.kept.not_in_export_examples, ["B-2"]);
    let docs = read_documents(&f.documents_csv).unwrap();
    let seen: Vec<(&str, RowStatus)> = docs.iter().map(|d| (d.document.as_str(), d.status)).collect();
    assert_eq!(
        seen,
        [
            ("A-1", RowStatus::Accepted),
            ("C-3", RowStatus::Rejected),
            ("B-2", RowStatus::Accepted),
            ("C-3", RowStatus::Accepted),
        ]
    );
    let mut b = issued[1].clone();
    b.first_line = None;
    b.rows = 0;
    b.warnings.push("INV-NOT-IN-EXPORT".into());
    assert_eq!(docs[2], b, "as issued, said gone from the export");
    assert_eq!((docs[3].uuid.as_str(), docs[3].rows), (issued[2].uuid.as_str(), 0));
    let s = summary_of(dir.path());
    assert_eq!(s, f.summary);
    // C-3 counts once, as issued: its rejected record is left out of the figures.
    assert_eq!((s.count(RowStatus::Accepted), s.count(RowStatus::Rejected)), (3, 0));
    assert_eq!(s.documents.documents, 3);
    assert_eq!(s.rows_by_status[&RowStatus::Rejected], 1, "its row stays rejected");
    assert_eq!(s.rows_by_status[&RowStatus::Accepted], 1, "kept documents have no row");
    assert_eq!(s.warnings["INV-NOT-IN-EXPORT"].examples, ["B-2"]);
    assert_eq!(s.notes, f.kept.notes);
    assert!(
        s.notes[0].starts_with("INV-NOT-IN-EXPORT: B-2 issued earlier"),
        "{:?}",
        s.notes
    );
    assert!(
        s.notes[1].starts_with("C-3 issued earlier and still in this export"),
        "{:?}",
        s.notes
    );
    // Nothing accepted (a check of the same file): every issued document stays, once.
    let f = run(dir.path(), &[("A-1", RowStatus::Valid)]).unwrap();
    assert_eq!(files(dir.path()), before);
    assert_eq!((f.kept.not_in_export, f.kept.in_export), (2, 1));
    assert_eq!(f.summary.count(RowStatus::Accepted), 3);
    assert!(
        tree(dir.path()).iter().all(|p| !p.starts_with('.')),
        "{:?}",
        tree(dir.path())
    );
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    tree(dir)
        .into_iter()
        .filter(|p| dir.join(p).is_file())
        .map(|p| {
            let bytes = std::fs::read(dir.join(&p)).unwrap();
            (p, bytes)
        })
        .collect()
}

#[test]
fn an_interrupted_run_leaves_the_previous_results_whole() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &[("A-1", RowStatus::Accepted)]).unwrap();
    let before = snapshot(dir.path());
    let path = dir.path().to_path_buf();
    let outcome = std::panic::catch_unwind(move || {
        let mut w = ResultWriter::create(&path, Path::new("sales.csv"), &headers()).unwrap();
        let resp = response("Z-9", "<Invoice/>", &payload(3));
        let (d, t) = date();
        let files = w.write_accepted("399999999900003", "Z-9", d, t, &resp).unwrap();
        for _ in 0..10_000 {
            w.write(&["Z-9", "1"], &ResultRow::accepted(T, "Z-9", &resp, &files, 1))
                .unwrap();
        }
        panic!("the process is interrupted before finishing");
    });
    assert!(outcome.is_err());
    assert_eq!(snapshot(dir.path()), before, "old results untouched, no temporary left");
}

#[test]
fn a_foreign_folder_in_the_way_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sales")).unwrap();
    std::fs::write(dir.path().join("sales/notes.txt"), "mine").unwrap();
    let err = run(dir.path(), &[("A-1", RowStatus::Accepted)]).unwrap_err();
    assert!(matches!(err, ResultsError::InTheWay { .. }), "{err}");
    assert_eq!(tree(dir.path()), ["sales", "sales/notes.txt"]);
    // Images without our marker are not ours either.
    std::fs::remove_file(dir.path().join("sales/notes.txt")).unwrap();
    std::fs::write(dir.path().join("sales/logo.png"), "png").unwrap();
    let err = run(dir.path(), &[("A-1", RowStatus::Valid)]).unwrap_err();
    assert!(matches!(err, ResultsError::InTheWay { .. }), "{err}");
    assert_eq!(tree(dir.path()), ["sales", "sales/logo.png"]);
}

//! What the server answers is what the authority accepts: the signed XML returned over HTTP for a
//! standard invoice, a simplified invoice, a credit note and a debit note (Arabic names, mixed
//! categories) passes the authority's schema and rules (`shared/tools/zatca-validate`).

use super::common::*;
use invoicedrop::model::{Document, example};
use reqwest::StatusCode;
use std::path::PathBuf;
use std::process::Command;

fn validator() -> PathBuf {
    if let Some(dir) = std::env::var_os("INVOICEDROP_SHARED") {
        return PathBuf::from(dir).join("tools/zatca-validate");
    }
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|d| d.join("shared/tools/zatca-validate"))
        .find(|p| p.is_file())
        .expect("shared/tools/zatca-validate above the crate (or set INVOICEDROP_SHARED)")
}

#[tokio::test]
async fn documents_issued_over_http_pass_the_authoritys_validator() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, onboard_id) = api.device("validator-device").await;
    let docs: Vec<Document> = vec![
        issued_hours_ago(example::standard_invoice("HTTP-STD-1"), 1),
        issued_hours_ago(example::simplified_invoice("HTTP-SIM-1"), 1),
        issued_hours_ago(example::credit_note("HTTP-CN-1", "HTTP-STD-1"), 1),
        issued_hours_ago(example::debit_note("HTTP-DN-1", "HTTP-STD-1"), 1),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for doc in &docs {
        let (status, bytes) = api.submit(&token, &onboard_id, doc, None).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{}: {}",
            doc.number,
            String::from_utf8_lossy(&bytes)
        );
        let xml = xml_of(&parse(&bytes));
        let path = dir.path().join(format!("{}.xml", doc.number));
        std::fs::write(&path, xml).unwrap();
        files.push(path);
    }
    let out = Command::new(validator())
        .args(&files)
        .output()
        .expect("zatca-validate runs (needs java and Saxon-HE)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("4 files, 0 errors"),
        "the authority's validator rejected what the sandbox issued:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

//! Arbitrary input through the CSV reader and the mapping never panics: random bytes, and random
//! cell text under a valid Xero header line.

use invoicedrop::config::Config;
use invoicedrop::mapping::bundled;
use invoicedrop::pipeline::{self, CheckOptions, FileSummary};
use invoicedrop::results::ResultWriter;
use proptest::prelude::*;
use std::sync::Arc;

const XERO_HEADERS: &str = "ContactName,EmailAddress,POAddressLine1,POCity,POPostalCode,POCountry,InvoiceNumber,Reference,InvoiceDate,DueDate,Total,TaxTotal,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,Currency,Type,Status";

/// Check one file with the Xero mapping; any outcome but a panic is fine.
fn check_bytes(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, bytes).unwrap();
    let mapping = Arc::new(bundled::get("xero").unwrap().unwrap());
    let Ok(prepared) = pipeline::prepare(&input, mapping, &Config::default()) else {
        return;
    };
    let opts = CheckOptions::new(
        chrono::DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
            .unwrap()
            .into(),
        invoicedrop::model::example::seller(),
    );
    let headers = prepared.bound.headers.names();
    let mut writer = ResultWriter::create(&dir.path().join("results"), &input, &headers).unwrap();
    let mut summary = FileSummary::default();
    pipeline::check_stream(prepared.input, prepared.bound, &opts, &mut writer, &mut summary, None).unwrap();
    let rows = writer.rows();
    writer.finish().unwrap();
    assert_eq!(rows, summary.rows);
}

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[0-9]{1,3}",
        "-?[0-9]{0,6}[.,][0-9]{0,4}",
        "-?[0-9]{20,30}(\\.[0-9]{1,9})?",
        "[0-9]{1,2}/[0-9]{1,2}/[0-9]{2,4}",
        Just("15% Output VAT".to_string()),
        Just("Zero Rated Exports".to_string()),
        Just("Voided".to_string()),
        Just("Sales Credit Note".to_string()),
        "INV-[0-9]",
        "\\PC{0,12}",
        "[ \"',;\\n\\r]{0,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        check_bytes(&bytes);
    }

    #[test]
    fn arbitrary_cells_under_xero_headers_never_panic(
        rows in proptest::collection::vec(proptest::collection::vec(cell(), 24), 0..12)
    ) {
        let mut text = String::from(XERO_HEADERS);
        text.push('\n');
        for r in rows {
            let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
            w.write_record(&r).unwrap();
            text.push_str(&String::from_utf8(w.into_inner().unwrap()).unwrap());
        }
        check_bytes(text.as_bytes());
    }
}

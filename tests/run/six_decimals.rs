//! Quantities and unit prices go to the API with at most 6 decimals (decisions D12), through the
//! real binary and a sandbox on loopback (which refuses more, as the API would): a quantity of 7
//! decimals is issued rounded to 6, said on its cell (`INV-MAP-DECIMALS`, a warning), and the
//! document passes the authority's validator.

use super::support::*;
use invoicedrop::sandbox::SandboxConfig;

#[test]
fn a_quantity_of_seven_decimals_is_issued_to_six_and_said_on_its_cell() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    let path = d.join("a.csv");
    xero_export_lines(&path, 2, 1);
    // T-00001: 1 at 10.25 becomes 1.2345678 at 10.25, line amount 12.65 (12.6543...).
    let t = std::fs::read_to_string(&path).unwrap();
    let edited = t.replacen(",1,10.25,,10.25,", ",1.2345678,10.25,,12.65,", 1);
    assert_ne!(edited, t);
    std::fs::write(&path, edited).unwrap();
    let o = run(d, &env, &["run", "a.csv", "--results", "r"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(server.accepted(), 2, "{out}");
    let rows = results(&d.join("r/a.result.csv"));
    assert_eq!(rows[0]["result_status"], "accepted", "{:?}", rows[0]);
    // The walk-in buyer's INV-MAP-LOOKUP is on both rows; INV-MAP-DECIMALS on the edited one.
    let said = |r: usize| {
        rows[r]["result_warnings"]
            .split(" | ")
            .find(|w| w.starts_with("INV-MAP-DECIMALS"))
    };
    assert_eq!(
        said(0),
        Some(
            "INV-MAP-DECIMALS Quantity \"1.2345678\": 7 decimals where the API takes at most 6: issued as \
             1.234568; give it with 6 decimals in the export to issue it as it is"
        )
    );
    assert_eq!(said(1), None, "{:?}", rows[1]);
    let xml_path = d.join("r").join(&rows[0]["result_xml_file"]);
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    assert!(xml.contains(">1.234568</cbc:InvoicedQuantity>"), "{xml}");
    assert!(
        xml.contains("<cbc:LineExtensionAmount currencyID=\"SAR\">12.65<"),
        "{xml}"
    );
    authority_accepts(&[xml_path], false);
}

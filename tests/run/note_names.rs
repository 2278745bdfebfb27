//! A credit note that names no invoice, through the real binary and a sandbox on loopback: a
//! mapping reading `original_number` from the number's own column (each note names itself), and
//! a note naming another credit note (above it in its file, in a file checked before it, or
//! issued in an earlier run): `INV-MAP-REFERENCE`, an error on the note's reference cell, and
//! nothing issued for it.

use super::support::*;
use chrono::{Duration, FixedOffset, NaiveDate, Utc};
use invoicedrop::sandbox::SandboxConfig;
use std::path::Path;

/// A home-grown ERP's export: `;`, decimal comma, German words, the corrected invoice in `Bezug`.
const MAPPING: &str = r#"name = "fakturix"
[input]
encoding = "utf-8"
delimiter = ";"
[defaults]
date_format = ["%d.%m.%Y"]
decimal_comma = true
thousands = "."
[fields]
number = "BelegNr"
kind = { column = "Belegart", map = { "Rechnung" = "invoice", "Gutschrift" = "credit_note" } }
issue_date = "Datum"
original_number = { column = "Bezug", optional = true }
note_reason = { column = "Grund", optional = true }
buyer.name = "Kunde"
buyer.vat_number = { lookup = "customers", key = "Kunde", get = "vat_number" }
buyer.street = { lookup = "customers", key = "Kunde", get = "street" }
buyer.building_number = { lookup = "customers", key = "Kunde", get = "building_number" }
buyer.district = { lookup = "customers", key = "Kunde", get = "district" }
buyer.city = { lookup = "customers", key = "Kunde", get = "city" }
buyer.postal_zone = { lookup = "customers", key = "Kunde", get = "postal_zone" }
line.item_name = "Artikel"
line.quantity = "Menge"
line.unit_price = "Einzelpreis"
line.tax = "Steuerschluessel"
[taxes]
"Normal 15" = { category = "S", percent = 15 }
[lookups.customers]
file = "customers.csv"
key_column = "name"
"#;

const CUSTOMERS: &str = "name,vat_number,street,building_number,district,city,postal_zone\n\
    Al Ofuq Trading Co.,310122393500003,King Fahd Road,7421,Al Olaya,Riyadh,12211\n";

const HEADER: &str = "BelegNr;Belegart;Datum;Kunde;Artikel;Menge;Einzelpreis;Steuerschluessel;Bezug;Grund\n";

/// Today in Riyadh, less `days`, as the export writes it.
fn day(days: i64) -> String {
    let d: NaiveDate = Utc::now()
        .with_timezone(&FixedOffset::east_opt(3 * 3600).unwrap())
        .date_naive()
        - Duration::days(days);
    d.format("%d.%m.%Y").to_string()
}

fn invoice(number: &str) -> String {
    format!(
        "{number};Rechnung;{};Al Ofuq Trading Co.;Laserdrucker;2;1.150,00;Normal 15;;\n",
        day(3)
    )
}

fn credit_note(number: &str, corrects: &str) -> String {
    format!(
        "{number};Gutschrift;{};Al Ofuq Trading Co.;Rueckgabe;1;10,00;Normal 15;{corrects};Beschaedigt\n",
        day(1)
    )
}

/// The mapping (with `original_number` read from `orig`), the customers table and the exports.
fn setup(dir: &Path, orig: &str, exports: &[(&str, Vec<String>)]) {
    let mapping = MAPPING.replace(
        "original_number = { column = \"Bezug\"",
        &format!("original_number = {{ column = \"{orig}\""),
    );
    std::fs::write(dir.join("fakturix.toml"), mapping).unwrap();
    std::fs::write(dir.join("customers.csv"), CUSTOMERS).unwrap();
    for (name, rows) in exports {
        std::fs::write(dir.join(name), format!("{HEADER}{}", rows.concat())).unwrap();
    }
}

/// The result row of document `number` in `file`'s results under `dir/results`.
fn result_of(dir: &Path, results: &str, file: &str, number: &str) -> std::collections::BTreeMap<String, String> {
    let rows = super::support::results(&dir.join(results).join(format!("{file}.result.csv")));
    rows.into_iter()
        .find(|r| r["BelegNr"] == number)
        .unwrap_or_else(|| panic!("no {number} in {file}"))
}

#[test]
fn a_mapping_reading_original_number_from_the_number_column_issues_no_note_naming_itself() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    setup(
        d,
        "BelegNr",
        &[(
            "export.csv",
            vec![invoice("FX-1001"), credit_note("FX-9001", "FX-1001")],
        )],
    );
    let o = run(
        d,
        &env,
        &["run", "export.csv", "--mapping", "fakturix.toml", "--results", "r"],
    );
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(server.accepted(), 1, "the invoice alone: {out}");
    let cn = result_of(d, "r", "export", "FX-9001");
    assert_eq!(cn["result_status"], "invalid", "{cn:?}");
    assert!(cn["result_xml_file"].is_empty(), "{cn:?}");
    assert!(
        cn["result_errors"].starts_with(
            "INV-MAP-REFERENCE BelegNr \"FX-9001\": this credit note names itself (FX-9001) as the invoice it \
             corrects: the mapping reads original_number from BelegNr, the column of the document's own number; \
             in fakturix.toml, set fields.original_number to the column holding the number of the invoice a note \
             corrects"
        ),
        "{cn:?}"
    );
    assert_eq!(result_of(d, "r", "export", "FX-1001")["result_status"], "accepted");
}

#[test]
fn a_note_naming_a_credit_note_is_not_issued_in_its_file_across_files_and_against_the_ledger() {
    let server = Server::start(SandboxConfig::default());
    let env = server.env();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    onboard(d, &env);
    setup(
        d,
        "Bezug",
        &[
            (
                "export.csv",
                vec![
                    invoice("FX-1001"),
                    credit_note("FX-9001", "FX-1001"),
                    credit_note("FX-9002", "FX-9001"),
                ],
            ),
            ("later.csv", vec![credit_note("FX-9003", "FX-9001")]),
        ],
    );
    let says = |r: &std::collections::BTreeMap<String, String>, at: &str| {
        assert_eq!(r["result_status"], "invalid", "{r:?}");
        assert!(
            r["result_errors"].starts_with(&format!(
                "INV-MAP-REFERENCE Bezug \"FX-9001\": FX-9001 {at}, not an invoice, and a note corrects an invoice, \
                 never another note: put in Bezug the number of the invoice this credit note corrects"
            )),
            "{r:?}"
        );
        assert!(!r["result_warnings"].contains("not above the note"), "{r:?}");
    };

    // `check` of both files: above the note in its file, and in the file checked before.
    let o = run(
        d,
        &[],
        &[
            "check",
            "export.csv",
            "later.csv",
            "--mapping",
            "fakturix.toml",
            "--results",
            "c",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    says(
        &result_of(d, "c", "export", "FX-9002"),
        "(line 3 of this file) is a credit note",
    );
    says(
        &result_of(d, "c", "later", "FX-9003"),
        "(line 3 of export.csv) is a credit note",
    );
    assert_eq!(result_of(d, "c", "export", "FX-9001")["result_status"], "valid");

    // `run`: the note above in its file; then, in a later run, the credit note the ledger holds.
    let o = run(
        d,
        &env,
        &["run", "export.csv", "--mapping", "fakturix.toml", "--results", "r"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    says(
        &result_of(d, "r", "export", "FX-9002"),
        "(line 3 of this file) is a credit note",
    );
    assert_eq!(result_of(d, "r", "export", "FX-9001")["result_status"], "accepted");
    let o = run(
        d,
        &env,
        &["run", "later.csv", "--mapping", "fakturix.toml", "--results", "r"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    says(
        &result_of(d, "r", "later", "FX-9003"),
        "is issued as a credit note (as the ledger holds it, with no invoice FX-9001)",
    );
    assert_eq!(server.accepted(), 2, "FX-1001 and FX-9001 only");
}

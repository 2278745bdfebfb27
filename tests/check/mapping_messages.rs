//! Mistakes in a custom mapping that a file shows: the error names the mapping key at fault,
//! the file, and what to write instead (QA16).

use super::check_json;
use std::path::Path;

/// The whole-file error of the one export checked in `dir` with `args`.
fn file_error(dir: &Path, args: &[&str]) -> String {
    let (_, report, stderr) = check_json(dir, args);
    report["files"][0]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{report:#}\n{stderr}"))
        .to_string()
}

const EXPORT: &str = "BelegNr;Datum;Kunde;Artikel;Menge;Einzelpreis;Steuer\n\
                      FX-1001;03.11.2026;Al Ofuq Trading Co.;Laserdrucker;2;1150,00;S\n";

/// A mapping of [`EXPORT`] whose buyer's VAT number comes from `[lookups.customers]` (`file`,
/// and the column `get`).
fn lookup_mapping(file: &str, get: &str) -> String {
    format!(
        "[input]\nencoding = \"utf-8\"\ndelimiter = \";\"\n[defaults]\ndate_format = [\"%d.%m.%Y\"]\n\
         decimal_comma = true\n[fields]\nnumber = \"BelegNr\"\nissue_date = \"Datum\"\nbuyer.name = \"Kunde\"\n\
         buyer.vat_number = {{ lookup = \"customers\", key = \"Kunde\", get = \"{get}\" }}\n\
         line.item_name = \"Artikel\"\nline.quantity = \"Menge\"\nline.unit_price = \"Einzelpreis\"\n\
         line.tax = \"Steuer\"\n[taxes]\nS = {{ category = \"S\", percent = 15 }}\n\
         [lookups.customers]\nfile = \"{file}\"\nkey_column = \"name\"\n"
    )
}

#[test]
fn a_lookup_file_not_found_names_its_key_the_folder_once_and_the_fixes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("export.csv"), EXPORT).unwrap();
    std::fs::write(dir.path().join("m.toml"), lookup_mapping("kunden.csv", "vat_number")).unwrap();
    // The mapping and the export in one folder, both named without it.
    let e = file_error(dir.path(), &["export.csv", "--mapping", "m.toml"]);
    let folder = dir.path().canonicalize().unwrap();
    let expected = format!(
        "kunden.csv: lookup table \"customers\" not found (lookups.customers.file = \"kunden.csv\" of mapping \
         m.toml; looked in {}): put kunden.csv beside the export or the mapping, give its path in \
         lookups.customers.file (absolute, or relative to the mapping's folder), or, when the table may be absent, \
         set optional = true in [lookups.customers] (see mappings/README.md)",
        folder.display()
    );
    assert!(e.ends_with(&expected), "{e}\nexpected the end:\n{expected}");
}

#[test]
fn a_lookup_column_not_in_the_table_names_the_field_and_the_closest_header() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("export.csv"), EXPORT).unwrap();
    std::fs::write(
        dir.path().join("customers.csv"),
        "name,vat_number,street\nAl Ofuq Trading Co.,310122393500003,King Fahd Road\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("m.toml"), lookup_mapping("customers.csv", "vat_no")).unwrap();
    let e = file_error(dir.path(), &["export.csv", "--mapping", "m.toml"]);
    assert!(
        e.ends_with(
            "customers.csv: no column \"vat_no\" (needed by fields.\"buyer.vat_number\".get of mapping m.toml); the \
             closest header is \"vat_number\": write it in fields.\"buyer.vat_number\".get, or add the column to \
             the table"
        ),
        "{e}"
    );
}

#[test]
fn an_export_read_in_the_wrong_encoding_names_the_encoding_that_reads_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let text = "رقم السند|تاريخ السند|البيان|الكمية|السعر|الضريبة\r\nS-501|2026/11/03|طابعة|2|1150.00|15%\r\n";
    let (bytes, _, bad) = encoding_rs::WINDOWS_1256.encode(text);
    assert!(!bad);
    std::fs::write(dir.path().join("sales.csv"), &bytes).unwrap();
    let mapping = |encoding: &str| {
        format!(
            "[input]\n{encoding}delimiter = \"|\"\n[defaults]\ndate_format = [\"%Y/%m/%d\"]\n[fields]\n\
             number = \"رقم السند\"\nissue_date = \"تاريخ السند\"\nline.item_name = \"البيان\"\n\
             line.quantity = \"الكمية\"\nline.unit_price = \"السعر\"\nline.tax = \"الضريبة\"\n"
        )
    };
    std::fs::write(dir.path().join("m.toml"), mapping("encoding = \"windows-1252\"\n")).unwrap();
    let e = file_error(dir.path(), &["sales.csv", "--mapping", "m.toml"]);
    assert!(
        e.contains(
            "the header read as windows-1252 (the mapping's [input] encoding) is \"ÑÞã ÇáÓäÏ\", \"ÊÇÑíÎ ÇáÓäÏ\", \
             \"ÇáÈíÇä\", ..., and read as windows-1256 it is \"رقم السند\", \"تاريخ السند\", \"البيان\", ..., with \
             6 of the mapping's 6 required columns: the file is in windows-1256, not windows-1252: set encoding = \
             \"windows-1256\" in the mapping's [input]"
        ) && !e.contains("header_row"),
        "{e}"
    );
    // The same mapping without an encoding: windows-1256 is assumed, and the file is read.
    std::fs::write(dir.path().join("m.toml"), mapping("")).unwrap();
    let (_, report, _) = check_json(dir.path(), &["sales.csv", "--mapping", "m.toml"]);
    assert!(report["files"][0]["error"].is_null(), "{report:#}");
}

#[test]
fn two_header_rows_under_merged_group_labels_name_columns_as_the_mapping_reads_them() {
    use rust_xlsxwriter::{Format, Workbook};
    let dir = tempfile::tempdir().unwrap();
    let mut book = Workbook::new();
    let sheet = book.add_worksheet().set_name("Register").unwrap();
    let plain = Format::new();
    sheet
        .merge_range(0, 0, 0, 7, "Najd Building Materials - Sales Register", &plain)
        .unwrap();
    // Row 3: group labels merged over the names (row 4) the mapping reads.
    sheet.merge_range(2, 0, 2, 2, "Document", &plain).unwrap();
    sheet.merge_range(2, 3, 2, 7, "Line", &plain).unwrap();
    let names = [
        "Doc No",
        "Doc Date",
        "Account",
        "Item",
        "Qty",
        "Rate",
        "VAT Class",
        "Line Total",
    ];
    for (c, n) in names.iter().enumerate() {
        sheet.write_string(3, c as u16, *n).unwrap();
    }
    // NB-1 without an item name, then a line without its number.
    let rows: [[&str; 8]; 2] = [
        ["NB-1", "03/11/2026", "Walk-in", "", "1", "100", "15%", "100"],
        ["", "03/11/2026", "Walk-in", "Paint", "1", "100", "15%", "100"],
    ];
    for (r, cells) in rows.iter().enumerate() {
        for (c, v) in cells.iter().enumerate().filter(|(_, v)| !v.is_empty()) {
            sheet.write_string(4 + r as u32, c as u16, *v).unwrap();
        }
    }
    book.save(dir.path().join("register.xlsx")).unwrap();
    std::fs::write(
        dir.path().join("m.toml"),
        "[defaults]\ndate_format = [\"%d/%m/%Y\"]\n[input]\nheader_row = 3\nheader_rows = 2\n[fields]\n\
         number = \"Doc No\"\nissue_date = \"Doc Date\"\nbuyer.name = \"Account\"\nline.item_name = \"Item\"\n\
         line.quantity = \"Qty\"\nline.unit_price = \"Rate\"\nline.tax = \"VAT Class\"\n\
         [taxes]\n\"15%\" = { category = \"S\", percent = 15 }\n[rules]\ninvoice_type = \"simplified\"\n",
    )
    .unwrap();
    let (_, report, stderr) = check_json(dir.path(), &["register.xlsx", "--mapping", "m.toml"]);
    let f = &report["files"][0];
    let notes: Vec<&str> = f["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(!notes.iter().any(|n| n.contains("have no name")), "{notes:?}");
    let rows = super::result_rows(&dir.path().join("results/register.result.csv"));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let errors = |line: usize| rows[line - 1][col("result_errors")].clone();
    assert!(
        errors(5).contains("INV-MAP-MISSING Item: no item name"),
        "{}\n{stderr}",
        errors(5)
    );
    assert!(
        errors(6).starts_with("INV-MAP-NUMBER Doc No: no document number"),
        "{}",
        errors(6)
    );
}

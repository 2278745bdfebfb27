//! Tests of side tables (`lookup.rs`).

use super::*;

#[test]
fn key_form_fast_path_matches_the_general_form() {
    let general = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    for k in [
        "  Al  Ofuq\tTrading\x0bCO. ",
        "",
        " ",
        "Walk-in",
        "شركة  الندى",
        "ΣΑΣ Ltd",
    ] {
        assert_eq!(key_form(k), general(k), "{k:?}");
    }
}

proptest::proptest! {
    /// The one-pass form is the general one, for any mix of scripts, cases and spaces.
    #[test]
    fn key_form_is_the_general_form(k in "[ \t\u{a0}\u{3000}aZ.ΣσςΑİẞДжعربي0-9]{0,16}") {
        let general = k.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        proptest::prop_assert_eq!(key_form(&k), general);
    }

    /// The same for ASCII keys (their own path), with every ASCII white space and control.
    #[test]
    fn ascii_key_form_is_the_general_form(k in "[ \t\n\r\x0b\x0c\x1c\x1faZmQ.0-9-]{0,24}") {
        let general = k.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        proptest::prop_assert_eq!(key_form(&k), general);
    }
}

#[test]
fn loads_a_customers_table_and_finds_keys_ignoring_case_and_spaces() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("customers.csv"),
        "\u{feff}name,vat_number,district\nAl Noor  Trading,300000000000003,Al Olaya\n",
    )
    .unwrap();
    let spec = LookupSpec {
        file: "customers.csv".into(),
        key_column: "Name".into(),
        optional: None,
    };
    let t = Table::load("customers", &spec, &[dir.path().to_path_buf()], "m.toml")
        .unwrap()
        .unwrap();
    let vat = t.column("VAT Number", "fields.\"buyer.vat_number\"", "m.toml").unwrap();
    assert_eq!(t.get(" al noor trading ", vat), Some("300000000000003"));
    assert_eq!(t.get("nobody", vat), None);
    let e = t
        .column("distrct", "fields.\"buyer.district\"", "m.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"district\""), "{e}");
}

#[test]
fn an_empty_table_says_it_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let spec = LookupSpec {
        file: "customers.csv".into(),
        key_column: "account".into(),
        optional: Some(true),
    };
    for body in ["", "\u{feff}", " \r\n"] {
        std::fs::write(dir.path().join("customers.csv"), body).unwrap();
        let e = Table::load("customers", &spec, &[dir.path().to_path_buf()], "m.toml")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("the file is empty: give it its header line at least (its key column \"account\""),
            "{body:?}: {e}"
        );
    }
}

#[test]
fn the_last_key_remembered_is_per_table_and_per_key() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let load = |file: &str, body: &str| -> Result<Table, Box<dyn std::error::Error>> {
        std::fs::write(dir.path().join(file), body)?;
        let spec = LookupSpec {
            file: file.into(),
            key_column: "name".into(),
            optional: None,
        };
        Table::load("t", &spec, &[dir.path().to_path_buf()], "m.toml")?.ok_or_else(|| "no table".into())
    };
    // A key written twice (once in another case): the first row, however it is asked for.
    let a = load("a.csv", "name,vat\nAcme,1\nZeta,2\n ACME ,3\n")?;
    let b = load("b.csv", "name,vat\nAcme,9\n")?;
    for _ in 0..2 {
        assert_eq!(a.get("Acme", 1), Some("1"));
        assert_eq!(a.get("acme ", 1), Some("1"));
        assert_eq!(b.get("acme ", 1), Some("9"));
        assert_eq!(b.get("Zeta", 1), None);
        assert_eq!(a.get("Zeta", 1), Some("2"));
        assert_eq!(a.get("Zeta", 0), Some("Zeta"));
        assert_eq!(a.get("", 1), None);
        assert_eq!(a.get("ACME", 1), Some("1"));
        assert_eq!(a.get("ACME  ", 1), Some("1"));
    }
    Ok(())
}

#[test]
fn a_missing_file_is_an_error_unless_optional() {
    let spec = LookupSpec {
        file: "nowhere.csv".into(),
        key_column: "name".into(),
        optional: None,
    };
    let e = Table::load("customers", &spec, &[PathBuf::from("/nonexistent")], "m.toml").unwrap_err();
    assert!(e.to_string().contains("nowhere.csv"), "{e}");
    assert!(
        e.to_string()
            .contains("lookups.customers.file = \"nowhere.csv\" of mapping m.toml"),
        "{e}"
    );
    let spec = LookupSpec {
        optional: Some(true),
        ..spec
    };
    assert!(Table::load("customers", &spec, &[], "m.toml").unwrap().is_none());
}

#[test]
fn a_missing_file_names_its_key_each_folder_once_and_the_fixes() {
    let dir = tempfile::tempdir().unwrap();
    let spec = LookupSpec {
        file: "kunden.csv".into(),
        key_column: "name".into(),
        optional: None,
    };
    // The mapping's folder and the export's, the same folder given twice (and once as
    // `a/./b`), and another.
    let d = dir.path().to_path_buf();
    let other = d.join("lookups");
    let dirs = [d.clone(), d.join("."), other.clone(), d.clone()];
    let e = Table::load("customers", &spec, &dirs, "fakturix.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "kunden.csv: lookup table \"customers\" not found (lookups.customers.file = \"kunden.csv\" of \
             mapping fakturix.toml; looked in {}, {}): put kunden.csv beside the export or the mapping, give \
             its path in lookups.customers.file (absolute, or relative to the mapping's folder), or, when the \
             table may be absent, set optional = true in [lookups.customers] (see mappings/README.md)",
            d.display(),
            other.display()
        )
    );
    // A file named without a folder: the current folder, in full.
    let here = std::env::current_dir().unwrap();
    assert_eq!(
        folders_searched(&[PathBuf::new(), PathBuf::from(".")]),
        vec![here.display().to_string()]
    );
}

#[test]
fn an_unknown_get_or_key_column_names_its_key_and_the_closest_header() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("customers.csv"), "name,vat_number,street\nAcme,1,x\n").unwrap();
    let mut spec = LookupSpec {
        file: "customers.csv".into(),
        key_column: "name".into(),
        optional: None,
    };
    let dirs = [dir.path().to_path_buf()];
    let t = Table::load("customers", &spec, &dirs, "m.toml").unwrap().unwrap();
    let field = "fields.\"buyer.vat_number\"";
    // Too many edits from vat_number to be the closest by spelling, but its start.
    let e = t.column("vat_no", field, "m.toml").unwrap_err().to_string();
    assert!(
        e.ends_with(
            "customers.csv: no column \"vat_no\" (needed by fields.\"buyer.vat_number\".get of mapping m.toml); \
             the closest header is \"vat_number\": write it in fields.\"buyer.vat_number\".get, or add the \
             column to the table"
        ),
        "{e}"
    );
    // Nothing close: the table's columns.
    let e = t.column("city", field, "m.toml").unwrap_err().to_string();
    assert!(
        e.ends_with(
            "the table's columns are \"name\", \"vat_number\", \"street\": write one of them in \
             fields.\"buyer.vat_number\".get, or add the column to the table"
        ),
        "{e}"
    );
    spec.key_column = "nme".into();
    let e = Table::load("customers", &spec, &dirs, "m.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(
            "customers.csv: no key column \"nme\" (lookups.customers.key_column of mapping m.toml); the closest \
             header is \"name\": write it in lookups.customers.key_column, or add the column to the table"
        ),
        "{e}"
    );
}

#[test]
fn a_key_given_twice_differently_is_known_with_its_lines_and_values() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(
        dir.path().join("c.csv"),
        "\u{feff}name,account,vat\r\nAcme,A1,300000000000003\r\n\"Zeta\nLtd\",Z1,311111111111113\r\n\
         Acme Co,a1 ,310122393500003\r\n\"Zeta\nLtd\",Z1,311111111111113\r\n",
    )?;
    let spec = LookupSpec {
        file: "c.csv".into(),
        key_column: "account".into(),
        optional: None,
    };
    let t = Table::load("customers", &spec, &[dir.path().to_path_buf()], "m.toml")?.ok_or("no table")?;
    assert!(t.has_duplicates());
    let a1 = t.row_of("A1").ok_or("no A1")?;
    let what = t.differing(a1, &[2, 0, 2]).ok_or("A1 not said")?;
    assert_eq!(
        what,
        r#"vat "300000000000003" on line 2, line 5 "310122393500003"; name "Acme" on line 2, line 5 "Acme Co""#
    );
    // Only the columns asked for count; the first record is still the one used.
    assert_eq!(t.differing(a1, &[1]), None);
    assert_eq!(t.get("A1", 2), Some("300000000000003"));
    // Z1 given twice alike (its key's case aside) is harmless.
    let z1 = t.row_of("z1").ok_or("no Z1")?;
    assert_eq!(t.differing(z1, &[0, 1, 2]), None);
    Ok(())
}

#[test]
fn a_table_with_one_record_per_key_or_alike_duplicates_has_none() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("c.csv"), "name,vat\nAcme,1\nZeta,2\nacme,1\n")?;
    let spec = LookupSpec {
        file: "c.csv".into(),
        key_column: "name".into(),
        optional: None,
    };
    let t = Table::load("customers", &spec, &[dir.path().to_path_buf()], "m.toml")?.ok_or("no table")?;
    assert!(!t.has_duplicates());
    assert_eq!(t.duplicates.capacity(), 0);
    Ok(())
}

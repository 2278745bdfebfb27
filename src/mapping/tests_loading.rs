//! Loading a mapping and binding it to a file's headers: what the errors name.
use super::*;

#[test]
fn loading_reports_the_key_and_what_was_expected() {
    let cases = [
        ("[fields]\nnumbr = \"No\"", "did you mean \"number\""),
        (
            "[fields]\nnumber = \"No\"\nissue_date = { column = \"D\", format = \"%Q\" }\nline.item_name = \"I\"\nline.unit_price = \"P\"",
            "fields.\"issue_date\".format",
        ),
        (
            "[fields]\nnumber = \"No\"\nissue_date = \"D\"\nline.item_name = \"I\"\nline.unit_price = \"P\"",
            "dates are never guessed",
        ),
        ("[fields]\nnumber = \"No\"", "fields.\"issue_date\": expected required"),
        (
            "[defaults]\ndate_format=\"%d/%m/%Y\"\n[fields]\nnumber = \"No\"\nissue_date = \"D\"\nline.item_name = \"I\"\nline.unit_price = \"P\"\n[taxes]\nZ = { category = \"Z\" }",
            "reason_code",
        ),
        ("[fields]\nnumber = { colum = \"No\" }", "unknown field `colum`"),
        ("[feilds]\n", "unknown field `feilds`"),
        ("name = \n", "line 1"),
    ];
    for (text, want) in cases {
        let e = Mapping::from_toml(text, Origin::File("my.toml".into()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("my.toml"), "{e}");
        assert!(e.contains(want), "want {want:?} in {e}");
    }
}

#[test]
fn binding_names_the_missing_column_and_the_closest_header() {
    let m = Mapping::from_toml(SIMPLE, Origin::File("m.toml".into())).unwrap();
    let headers = vec![vec![
        "No".to_string(),
        "Dat".into(),
        "Customer".into(),
        "Item".into(),
        "Qty".into(),
        "Price".into(),
        "Tax".into(),
    ]];
    let e = Bound::new(Arc::new(m), &headers, "in.csv", &[], None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("in.csv") && e.contains("\"Date\"") && e.contains("closest header is \"Dat\""),
        "{e}"
    );
}

#[test]
fn the_readme_example_is_a_valid_mapping() {
    let readme = include_str!("../../mappings/README.md");
    let start = readme.find("```toml\n").expect("a toml block") + 8;
    let end = start + readme[start..].find("```").expect("closed");
    let m = Mapping::from_toml(&readme[start..end], Origin::File("README.md".into())).unwrap();
    assert_eq!(m.name, "my-erp");
    assert_eq!(m.taxes.len(), 5);
    assert!(m.rule("buyer.district").is_some());
}

#[test]
fn a_mapping_whose_kind_is_a_constant_note_reads_notes_only() {
    let all = bundled::all().unwrap();
    let only: Vec<&str> = all.iter().filter(|m| m.notes_only()).map(|m| m.name.as_str()).collect();
    assert_eq!(only, ["zoho-books-credit-notes"]);
    let base = "[fields]\nnumber = \"No\"\nissue_date = { column = \"D\", format = \"%Y-%m-%d\" }\nline.item_name = \"I\"\nline.unit_price = \"P\"\n";
    for (kind, notes) in [
        ("kind = { value = \"debit note\" }\n", true),
        ("kind = { value = \"invoice\" }\n", false),
        ("kind = \"Type\"\n", false),
        ("", false),
    ] {
        let m = Mapping::from_toml(&format!("{base}{kind}"), Origin::Bundled("t".into())).unwrap();
        assert_eq!(m.notes_only(), notes, "{kind}");
    }
}

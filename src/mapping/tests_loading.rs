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
        (
            "[fields]\nnumber = \"No\"",
            "fields.\"issue_date\": missing: every mapping needs",
        ),
        (
            "[defaults]\ndate_format=\"%d/%m/%Y\"\n[fields]\nnumber = \"No\"\nissue_date = \"D\"\nline.item_name = \"I\"\nline.unit_price = \"P\"\n[taxes]\nZ = { category = \"Z\" }",
            "reason_code",
        ),
        (
            "[fields]\nnumber = { colum = \"No\" }",
            "fields.\"number\".colum: unknown key",
        ),
        (
            "[feilds]\n",
            "feilds (line 1, column 2): unknown key; did you mean \"fields\"?",
        ),
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

/// The fields every case below has, before its own lines.
const BASE: &str = "[fields]\nnumber = \"No\"\nissue_date = { column = \"D\", format = \"%d.%m.%Y\" }\n\
                    line.item_name = \"I\"\nline.unit_price = \"P\"\n";

fn load_error(text: &str) -> String {
    Mapping::from_toml(text, Origin::File("m.toml".into()))
        .unwrap_err()
        .to_string()
}

#[test]
fn an_unknown_field_is_named_with_the_closest_one() {
    assert_eq!(
        load_error(&BASE.replace("issue_date =", "issue_dat =")),
        "mapping m.toml: fields.\"issue_dat\": unknown field; did you mean \"issue_date\"? (the fields are listed in \
         mappings/README.md)"
    );
}

#[test]
fn a_missing_required_field_says_what_to_add() {
    assert_eq!(
        load_error(&BASE.replace("number = \"No\"\n", "")),
        "mapping m.toml: fields.\"number\": missing: every mapping needs the document number column; add number = \
         \"...\" under [fields]"
    );
}

#[test]
fn a_map_value_that_is_no_kind_is_to_be_changed_not_added() {
    let text = format!("{BASE}kind = {{ column = \"K\", map = {{ \"Gutschrift\" = \"creditnote\" }} }}\n");
    assert_eq!(
        load_error(&text),
        "mapping m.toml: fields.\"kind\".map.\"Gutschrift\": \"creditnote\" is not invoice, credit_note or debit_note; \
         change it to one of those"
    );
    let text = format!("{BASE}invoice_type = {{ column = \"T\", default = \"b2b\" }}\n");
    assert_eq!(
        load_error(&text),
        "mapping m.toml: fields.\"invoice_type\".default: \"b2b\" is not standard or simplified; change it to one of \
         those"
    );
}

#[test]
fn an_exemption_code_the_authority_does_not_list_for_the_category_is_refused_at_load() {
    let taxes =
        |cat: &str, code: &str| format!("{BASE}[taxes]\nT = {{ category = \"{cat}\", reason_code = \"{code}\" }}\n");
    assert_eq!(
        load_error(&taxes("O", "VATEX-SA-OUT")),
        "mapping m.toml: taxes.\"T\".reason_code: \"VATEX-SA-OUT\" is not an exemption reason code of category O; \
         category O takes VATEX-SA-OOS"
    );
    assert_eq!(
        load_error(&taxes("Z", "vatex-sa-32")),
        "mapping m.toml: taxes.\"T\".reason_code: \"vatex-sa-32\" is not an exemption reason code of category Z; \
         write it \"VATEX-SA-32\""
    );
    // An exempt supply's code is not a zero-rated one.
    let e = load_error(&taxes("Z", "VATEX-SA-29"));
    assert!(
        e.contains("\"VATEX-SA-29\" is not an exemption reason code of category Z; use one of VATEX-SA-32, "),
        "{e}"
    );
    for (cat, code) in [("Z", "VATEX-SA-32(bis)"), ("E", "VATEX-SA-29-7"), ("O", "VATEX-SA-OOS")] {
        Mapping::from_toml(&taxes(cat, code), Origin::File("m.toml".into())).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Every load error reads `mapping FILE: KEY: what is wrong; what to do`, never toml's or serde's
/// "expected ...".
#[test]
fn every_load_error_says_what_is_wrong_then_what_to_do() {
    let cases = [
        "name = \"x\n".to_string(),
        "[fields]\nnumber = \"No\"\nnumber = \"N\"\n".into(),
        "[fields]\nnumbr = \"No\"\n".into(),
        "[fields]\nnumber = { colum = \"No\" }\n".into(),
        "[fields]\nnumber = 5\n".into(),
        "[feilds]\n".into(),
        "[input]\nheader_row = \"3\"\n".into(),
        "[input]\nencoding = \"utf8x\"\n".into(),
        "[input]\ndelimiter = \";;\"\n".into(),
        "[defaults]\nthousands = \"ab\"\n".into(),
        "[defaults]\ndate_format = \"%Q\"\n".into(),
        "[[skip]]\ncolumn = \"S\"\n".into(),
        format!("{BASE}[rules]\ninvoice_type = \"automatic\"\n"),
        format!("{BASE}[taxes]\nX = {{ category = \"X\" }}\n"),
        format!("{BASE}[taxes]\nS = {{ category = \"S\" }}\n"),
        format!("{BASE}[taxes]\nZ = {{ category = \"Z\", percent = 5 }}\n"),
        format!("{BASE}[taxes]\nZ = {{ category = \"Z\" }}\n"),
        format!("{BASE}[taxes]\nZ = {{ category = \"Z\", reason_code = \"VATEX-SA-99\" }}\n"),
        format!("{BASE}note_reason = {{ column = \"R\", value = \"x\" }}\n"),
        format!("{BASE}note_reason = {{ pattern = \"(\", column = \"R\" }}\n"),
        format!("{BASE}note_reason = {{ template = \"{{A\" }}\n"),
        format!("{BASE}note_reason = {{ column = \"R\", format = \"%d\" }}\n"),
        format!("{BASE}note_reason = {{ lookup = \"c\", key = \"K\", get = \"r\" }}\n"),
        format!("{BASE}note_reason = {{ optional = true }}\n"),
        format!("{BASE}line.quantity = {{ column = \"Q\", default = \"many\" }}\n"),
        format!("{BASE}note_reason = {{ column = \"R\", when = {{ column = \"\", equals = [] }} }}\n"),
    ];
    for text in cases {
        let e = load_error(&text);
        let rest = e.strip_prefix("mapping m.toml: ").unwrap_or_else(|| panic!("{e}"));
        let (key, problem) = rest.split_once(": ").unwrap_or_else(|| panic!("{e}"));
        assert!(!key.is_empty() && !problem.starts_with("expected"), "{e}");
        assert!(problem.contains("; "), "what is wrong, then what to do: {e}");
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

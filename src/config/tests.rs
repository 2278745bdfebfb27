use super::*;

/// A complete Saudi seller, as the README's configuration section writes it.
const SELLER: &str = "[seller]
name = \"شركة أكمي | Acme Trading\"
vat_number = \"312345678900003\"
crn = \"1010123456\"
street = \"King Fahd Road\"
building_number = \"1234\"
plot = \"5678\"
district = \"Al Olaya\"
city = \"Riyadh\"
postal_zone = \"12211\"
";

fn load(text: &str) -> Result<Config, ConfigError> {
    Config::from_toml(text, Path::new("invoicedrop.toml"))
}

fn error(text: &str) -> String {
    load(text).unwrap_err().to_string()
}

/// The seller table with `key = value` in place of its line (or added).
fn with(key: &str, value: &str) -> String {
    let mut lines: Vec<String> = SELLER
        .lines()
        .filter(|l| !l.starts_with(&format!("{key} =")))
        .map(str::to_string)
        .collect();
    lines.push(format!("{key} = {value}"));
    lines.join("\n") + "\n"
}

#[test]
fn a_seller_table_becomes_the_supplier_party() {
    let c = load(
        "[seller]\nname = \"شركة\"\nvat_number = \"300000000000003\"\ncrn = \"1010101010\"\nbuilding_number = \"1234\"\n",
    )
    .unwrap();
    let (p, demo) = c.seller();
    assert!(!demo);
    assert_eq!(p.vat_number.as_deref(), Some("300000000000003"));
    assert_eq!(p.party_identification.unwrap().scheme, "CRN");
    assert_eq!(p.address.country, "SA");
}

#[test]
fn the_documented_forms_load() {
    let c = load(&format!(
        "lookups_dir = \"lookups\"\n\n{SELLER}country = \"SA\"\nsubentity = \"Riyadh Region\"\n"
    ))
    .unwrap();
    assert_eq!(c.lookups_dir.as_deref(), Some(Path::new("lookups")));
    assert!(load("").unwrap().seller.is_none());
    assert!(load("lookups_dir = \"x\"\n").is_ok());
    // Another identifier than a CRN, a seller abroad with its own address forms, a sparse address.
    assert!(load(&with("id_scheme", "\"MLS\"").replace("1010123456", "ML-2020/77")).is_ok());
    assert!(load(&with("crn", "\"7001234567\"").replace("postal_zone", "id_scheme = \"700\"\npostal_zone")).is_ok());
    let abroad = with("country", "\"AE\"")
        .replace("\"1234\"", "\"12\"")
        .replace("\"12211\"", "\"\"");
    assert!(load(&abroad).is_ok(), "{}", error(&abroad));
    assert!(load("[seller]\nname = \"Acme\"\nvat_number = \"312345678900003\"\n").is_ok());
    // A name of exactly 255 bytes fits the QR code.
    assert!(load(&with("name", &format!("\"{}\"", "a".repeat(255)))).is_ok());
    assert!(load(&with("country", "\" SA \"")).unwrap().seller().0.address.country == "SA");
}

#[test]
fn the_readmes_example_loads() {
    let readme = include_str!("../../README.md");
    let start = readme.find("```toml\n  lookups_dir").expect("the README's example") + "```toml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let c = load(&readme[start..end]).unwrap();
    assert_eq!(c.seller.unwrap().party().address.country_subentity, "Riyadh Region");
}

#[test]
fn the_demo_seller_passes_the_checks_a_configured_one_gets() {
    let p = crate::model::example::seller();
    let a = &p.address;
    let id = p.party_identification.as_ref().unwrap();
    let s = SellerConfig {
        name: p.registration_name.clone(),
        vat_number: p.vat_number.clone().unwrap(),
        crn: Some(id.id.clone()),
        id_scheme: Some(id.scheme.clone()),
        street: a.street_name.clone(),
        building_number: a.building_number.clone(),
        plot: a.plot_identification.clone(),
        district: a.city_subdivision_name.clone(),
        city: a.city_name.clone(),
        postal_zone: a.postal_zone.clone(),
        country: Some(a.country.clone()),
        subentity: a.country_subentity.clone(),
    };
    assert_eq!(s.check(), Ok(()));
    assert_eq!(s.party(), p);
}

#[test]
fn no_configuration_means_the_demo_seller() {
    let (p, demo) = Config::default().seller();
    assert!(demo);
    assert_eq!(p.vat_number.as_deref(), Some(crate::model::example::SELLER_VAT));
}

#[test]
fn a_bad_vat_number_is_an_error_naming_the_file() {
    let e = Config::from_toml("[seller]\nname = \"x\"\nvat_number = \"123\"\n", Path::new("c.toml")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "c.toml:3:14: [seller] vat_number: \"123\": expected the 15-digit VAT number, beginning and ending with 3 \
         (such as 300000000000003; BR-KSA-40)"
    );
}

#[test]
fn unknown_top_level_keys_and_tables_are_refused_with_the_closest() {
    let e = error(&format!("lookup_dir = \"lookups\"\n{SELLER}"));
    assert!(
        e.starts_with("invoicedrop.toml:1:1: unknown key lookup_dir; did you mean lookups_dir?"),
        "{e}"
    );
    assert!(e.contains("[seller] table and lookups_dir"), "{e}");
    let e = error(&SELLER.replace("[seller]", "\n[seler]"));
    assert!(
        e.starts_with("invoicedrop.toml:2:2: unknown table [seler]; did you mean [seller]?"),
        "{e}"
    );
    let e = error(&format!("{SELLER}\n[api]\nurl = \"https://x\"\n"));
    assert!(
        e.contains("unknown table [api]; the API is not set in this file but in the environment"),
        "{e}"
    );
    assert!(e.contains("INVOICEDROP_API_URL"), "{e}");
    let e = error("zzz = 1\nlookups_dri = \"x\"\n");
    assert!(e.starts_with("invoicedrop.toml:1:1: unknown key zzz. "), "{e}");
    assert!(e.ends_with("(also unknown: lookups_dri)"), "{e}");
}

#[test]
fn wrong_types_and_syntax_say_the_line_column_and_key() {
    let e = error(&with("building_number", "1234"));
    assert!(
        e.ends_with(":10:19: [seller] building_number: expected a string, found an integer"),
        "{e}"
    );
    let e = error("[seller]\nname = \"Acme\"\nvat_number = \"312345678900003\"\ncity = \"Riyadh\n");
    assert!(e.starts_with("invoicedrop.toml:4:"), "{e}");
    let e = error("[seller]\nvat_number = \"312345678900003\"\n");
    assert_eq!(e, "invoicedrop.toml:1:1: [seller]: missing field `name`");
    let e = error("lookups_dir = 3\n");
    assert_eq!(
        e,
        "invoicedrop.toml:1:15: lookups_dir: expected a string (a folder), found an integer"
    );
    let e = error(&with("buildng_number", "\"1234\""));
    assert!(e.contains("unknown field `buildng_number`"), "{e}");
    assert!(e.ends_with("did you mean `building_number`?"), "{e}");
}

#[test]
fn a_missing_file_says_the_os_error_once() {
    let e = anyhow::Error::from(Config::load(Some(Path::new("/nonexistent/nope.toml"))).unwrap_err());
    let text = format!("{e:#}");
    assert_eq!(text.matches("os error").count(), 1, "{text}");
    assert!(
        text.starts_with("/nonexistent/nope.toml: cannot read the configuration"),
        "{text}"
    );
}

#[test]
fn a_blank_or_too_long_seller_name_is_refused() {
    for blank in ["\"\"", "\"   \""] {
        let e = error(&with("name", blank));
        assert!(e.contains(":10:8: [seller] name: "), "{e}");
        assert!(e.contains("is empty"), "{e}");
    }
    // 185 characters, 259 bytes: the QA's bilingual legal name.
    let name = format!("{} | {}", "ش".repeat(74), "A".repeat(108));
    let e = error(&with("name", &format!("\"{name}\"")));
    assert!(e.contains("[seller] name: "), "{e}");
    assert!(e.contains("is 259 bytes in UTF-8 (185 characters)"), "{e}");
    assert!(e.contains("at most 255 bytes"), "{e}");
}

#[test]
fn a_character_xml_cannot_hold_is_refused_in_any_seller_text() {
    // A vertical tab from a multi-line cell, a form feed, U+FFFF: toml carries them in escapes.
    for (key, value, code, at) in [
        ("name", "\"Acme\\u000BTrading\"", "U+000B", 5),
        ("street", "\"King Fahd Rd\\u000C\"", "U+000C", 13),
        ("district", "\"Olaya\\uFFFF\"", "U+FFFF", 6),
        ("city", "\"Riyadh\\u0000\"", "U+0000", 7),
    ] {
        let e = error(&with(key, value));
        assert!(e.contains(&format!("[seller] {key}: ")), "{key}: {e}");
        assert!(
            e.contains(&format!("the character {code} at character {at}")),
            "{key}: {e}"
        );
        assert!(e.contains("remove it"), "{key}: {e}");
    }
    // Tabs and line breaks are text XML holds.
    assert!(load(&with("street", "\"King Fahd Rd\\tNorth\"")).is_ok());
}

#[test]
fn a_country_that_is_not_an_iso_code_is_refused_with_a_guess() {
    let e = error(&with("country", "\"Saudi Arabia\""));
    assert!(
        e.ends_with(
            "[seller] country: \"Saudi Arabia\" is not a two-letter ISO 3166 country code (BR-CL-14); write the \
             code: did you mean \"SA\"?"
        ),
        "{e}"
    );
    assert!(error(&with("country", "\"sa\"")).ends_with("did you mean \"SA\"?"));
    assert!(error(&with("country", "\"UAE\"")).contains("\"AE\""));
    assert!(error(&with("country", "\"Atlantis\"")).ends_with("write the code such as SA"));
    assert!(error(&with("country", "\"\"")).contains("[seller] country: \"\""));
}

#[test]
fn a_vat_number_not_beginning_and_ending_with_3_is_refused() {
    for vat in [
        "\"312345678900004\"",
        "\"212345678900003\"",
        "\"31234567890003\"",
        "\"3123-4567-890003\"",
    ] {
        let e = error(&with("vat_number", vat));
        assert!(e.contains("[seller] vat_number: "), "{e}");
        assert!(e.contains("beginning and ending with 3"), "{e}");
    }
    // Spaces around the number are trimmed, as they always were.
    assert!(load(&with("vat_number", "\" 312345678900003 \"")).is_ok());
}

#[test]
fn a_saudi_sellers_building_number_postal_code_and_crn_have_their_forms() {
    let e = error(&with("building_number", "\"12\""));
    assert!(
        e.ends_with("[seller] building_number: \"12\": a Saudi national address's building number is 4 digits, such as \"2322\" (BR-KSA-37)"),
        "{e}"
    );
    assert!(error(&with("building_number", "\"1234 \"")).contains("building_number"));
    let e = error(&with("postal_zone", "\"1221\""));
    assert!(
        e.contains("[seller] postal_zone: \"1221\": a Saudi postal code is 5 digits"),
        "{e}"
    );
    let e = error(&with("crn", "\"10101\""));
    assert!(
        e.contains("[seller] crn: \"10101\": a commercial registration number (CRN) is 10 digits"),
        "{e}"
    );
    assert!(error(&with("crn", "\"\"")).contains("[seller] crn: \"\""));
    let e = error(&with("id_scheme", "\"700\""));
    assert!(e.contains("a 700 number is 10 digits starting with 7"), "{e}");
    let e = error(&with("id_scheme", "\"crn\""));
    assert!(
        e.contains("[seller] id_scheme: \"crn\": expected one of CRN, MOM, MLS, SAG, OTH, 700"),
        "{e}"
    );
    assert!(e.ends_with("did you mean \"CRN\"?"), "{e}");
    // Stated as SA, the same.
    assert!(error(&format!("{}country = \"SA\"\n", with("postal_zone", "\"1\""))).contains("postal_zone"));
}

#[test]
fn the_seller_keys_are_the_tables_fields() {
    let table: String = SELLER_KEYS.iter().map(|k| format!("{k} = \"\"\n")).collect();
    let e = toml::from_str::<SellerConfig>(&table);
    assert!(e.is_ok(), "{e:?}");
}

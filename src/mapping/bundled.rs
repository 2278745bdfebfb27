//! The mappings bundled in the binary (the files of `mappings/`, embedded with `include_str!`).

use super::{Mapping, MappingError, Origin};

/// Every bundled mapping: (name, TOML text).
pub const BUNDLED: &[(&str, &str)] = &[
    ("xero", include_str!("../../mappings/xero.toml")),
    (
        "quickbooks-online",
        include_str!("../../mappings/quickbooks-online.toml"),
    ),
    ("zoho-books", include_str!("../../mappings/zoho-books.toml")),
    (
        "zoho-books-credit-notes",
        include_str!("../../mappings/zoho-books-credit-notes.toml"),
    ),
    ("odoo", include_str!("../../mappings/odoo.toml")),
    ("erpnext", include_str!("../../mappings/erpnext.toml")),
    ("sap-b1-dtw", include_str!("../../mappings/sap-b1-dtw.toml")),
    ("sage50", include_str!("../../mappings/sage50.toml")),
    ("tally", include_str!("../../mappings/tally.toml")),
    ("legacy-arabic", include_str!("../../mappings/legacy-arabic.toml")),
];

/// The TOML text of a bundled mapping.
pub fn text(name: &str) -> Option<&'static str> {
    BUNDLED
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, t)| *t)
}

/// The names of the bundled mappings.
pub fn names() -> Vec<&'static str> {
    BUNDLED.iter().map(|(n, _)| *n).collect()
}

/// Load a bundled mapping by name.
pub fn get(name: &str) -> Option<Result<Mapping, MappingError>> {
    let (n, t) = BUNDLED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))?;
    Some(Mapping::from_toml(t, Origin::Bundled((*n).to_string())))
}

/// Load every bundled mapping. Parsed once per process (a command may need them more than
/// once: `run` looks at its paths, then detects each file's mapping), then cloned.
pub fn all() -> Result<Vec<Mapping>, MappingError> {
    static ALL: std::sync::OnceLock<Result<Vec<Mapping>, MappingError>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        BUNDLED
            .iter()
            .map(|(n, t)| Mapping::from_toml(t, Origin::Bundled((*n).to_string())))
            .collect()
    })
    .clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_bundled_mapping_loads() {
        for (name, _) in super::BUNDLED {
            if let Some(Err(e)) = super::get(name) {
                panic!("{e}");
            }
        }
    }
}

//! Mapping files: which columns of an ERP export feed which document fields, with transforms,
//! rules and grouping. Mappings are data (TOML), bundled in `mappings/`.

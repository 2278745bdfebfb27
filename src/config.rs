//! `invoicedrop.toml`: the seller profile and other settings, from `--config FILE` or
//! `./invoicedrop.toml` when present. With no configuration the built-in demo seller of the
//! sandbox is used (VAT 399999999900003), and the commands say so.

use crate::model::{Address, Party, PartyIdentification};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{path}: cannot read the configuration: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// The `[seller]` table: the issuing company.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SellerConfig {
    /// Legal name (Arabic and/or English).
    pub name: String,
    /// 15-digit VAT number.
    pub vat_number: String,
    /// Commercial registration number (10 digits).
    pub crn: Option<String>,
    /// Scheme of `crn` when it is another identifier (MOM, MLS, 700, SAG, OTH); default CRN.
    pub id_scheme: Option<String>,
    /// Street.
    #[serde(default)]
    pub street: String,
    /// Building number (4 digits).
    #[serde(default)]
    pub building_number: String,
    /// Additional number.
    #[serde(default)]
    pub plot: String,
    /// District.
    #[serde(default)]
    pub district: String,
    /// City.
    #[serde(default)]
    pub city: String,
    /// Postal code (5 digits).
    #[serde(default)]
    pub postal_zone: String,
    /// Two-letter country code (default SA).
    pub country: Option<String>,
    /// Region.
    #[serde(default)]
    pub subentity: String,
}

impl SellerConfig {
    /// The seller as a document party.
    pub fn party(&self) -> Party {
        Party {
            vat_number: Some(self.vat_number.trim().to_string()),
            tax_type: "VAT".into(),
            registration_name: self.name.clone(),
            address: Address {
                street_name: self.street.clone(),
                building_number: self.building_number.clone(),
                plot_identification: self.plot.clone(),
                city_subdivision_name: self.district.clone(),
                city_name: self.city.clone(),
                postal_zone: self.postal_zone.clone(),
                country: self.country.clone().unwrap_or_else(|| "SA".into()),
                country_subentity: self.subentity.clone(),
            },
            party_identification: self.crn.as_ref().map(|id| PartyIdentification {
                scheme: self.id_scheme.clone().unwrap_or_else(|| "CRN".into()),
                id: id.clone(),
            }),
        }
    }
}

/// The configuration file. Tables other commands read are accepted and ignored here.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Config {
    /// The issuing company.
    pub seller: Option<SellerConfig>,
    /// Folder holding lookup files (customers.csv, ...), relative to the configuration file.
    pub lookups_dir: Option<PathBuf>,
    /// The file this came from (`None`: no configuration).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// Folders searched for lookup files after the configuration's own (`watch`: the inbox,
    /// where lookup tables are dropped beside the exports).
    #[serde(skip)]
    pub extra_lookup_dirs: Vec<PathBuf>,
}

impl Config {
    /// Load `explicit`, else `./invoicedrop.toml` when present, else the empty configuration.
    pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let p = PathBuf::from("invoicedrop.toml");
                if !p.is_file() {
                    return Ok(Config::default());
                }
                p
            }
        };
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Config::from_toml(&text, &path)
    }

    /// Parse a configuration's text.
    pub fn from_toml(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut c: Config = toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: path.display().to_string(),
            message: e.message().to_string(),
        })?;
        if let Some(s) = &c.seller {
            let vat = s.vat_number.trim();
            if vat.len() != 15 || !vat.chars().all(|c| c.is_ascii_digit()) {
                return Err(ConfigError::Invalid {
                    path: path.display().to_string(),
                    message: format!("[seller] vat_number: expected 15 digits, found {vat:?}"),
                });
            }
        }
        c.path = Some(path.to_path_buf());
        Ok(c)
    }

    /// The seller, and whether it is the built-in demo seller.
    pub fn seller(&self) -> (Party, bool) {
        match &self.seller {
            Some(s) => (s.party(), false),
            None => (crate::model::example::seller(), true),
        }
    }

    /// The folders lookup files are searched in, from the configuration.
    pub fn lookup_dirs(&self) -> Vec<PathBuf> {
        let base = self
            .path
            .as_ref()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut dirs = Vec::new();
        if let Some(d) = &self.lookups_dir {
            dirs.push(base.join(d));
        }
        if self.path.is_some() {
            dirs.push(base);
        }
        dirs.extend(self.extra_lookup_dirs.iter().cloned());
        dirs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seller_table_becomes_the_supplier_party() {
        let c = Config::from_toml(
            "[seller]\nname = \"شركة\"\nvat_number = \"300000000000003\"\ncrn = \"1010101010\"\nbuilding_number = \"1234\"\n\n[api]\nurl = \"x\"\n",
            Path::new("invoicedrop.toml"),
        )
        .unwrap();
        let (p, demo) = c.seller();
        assert!(!demo);
        assert_eq!(p.vat_number.as_deref(), Some("300000000000003"));
        assert_eq!(p.party_identification.unwrap().scheme, "CRN");
        assert_eq!(p.address.country, "SA");
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
        assert!(e.to_string().contains("c.toml"), "{e}");
    }
}

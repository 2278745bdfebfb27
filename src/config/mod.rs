//! `invoicedrop.toml`: the seller profile and other settings, from `--config FILE` or
//! `./invoicedrop.toml` when present. With no configuration the built-in demo seller of the
//! sandbox is used (VAT 399999999900003), and the commands say so.

mod position;
mod seller;
#[cfg(test)]
mod tests;

pub use seller::{QR_FIELD_MAX_BYTES, SELLER_KEYS, SellerConfig, SellerMistake};

use crate::mapping::headers::closest;
use crate::model::Party;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{path}: cannot read the configuration (give --config a file that exists, or leave it out)")]
    Read {
        /// The file.
        path: String,
        /// Why (the OS error, said once: it follows this one in the chain).
        source: std::io::Error,
    },
    /// The file is not valid.
    #[error("{path}{location}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// `:line:column` of the mistake, or empty when it has no place in the file.
        location: String,
        /// What is wrong: the key, and what it should be.
        message: String,
    },
}

/// The top-level keys and tables of `invoicedrop.toml` (every one any command reads).
pub const KNOWN_KEYS: [&str; 2] = ["seller", "lookups_dir"];

/// The configuration file. It is read here alone, for every command: a key or table it does not
/// know is refused (a misspelt `lookups_dir` or `[seller]` would otherwise be ignored).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
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

    /// Parse a configuration's text: unknown top-level keys, values of the wrong type and seller
    /// profile mistakes are errors naming the file, the line and column, and the key.
    pub fn from_toml(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let invalid = |offset: Option<usize>, message: String| ConfigError::Invalid {
            path: file.clone(),
            location: offset.map(|o| position::location(text, o)).unwrap_or_default(),
            message,
        };
        let table = toml::de::DeTable::parse(text).map_err(|e| {
            let (offset, message) = position::describe(&e);
            invalid(offset, message)
        })?;
        let table = table.get_ref();
        let mut unknown: Vec<_> = table
            .iter()
            .filter(|(k, _)| !KNOWN_KEYS.contains(&k.get_ref().as_ref()))
            .collect();
        unknown.sort_by_key(|(k, _)| k.span().start);
        if let Some((key, value)) = unknown.first() {
            let also: Vec<&str> = unknown[1..].iter().map(|(k, _)| k.get_ref().as_ref()).collect();
            let message = unknown_key(key.get_ref(), value.get_ref().is_table(), &also);
            return Err(invalid(Some(key.span().start), message));
        }
        let mut c: Config = toml::from_str(text).map_err(|e| {
            let (offset, message) = position::describe(&e);
            invalid(offset, message)
        })?;
        if let Some(s) = &c.seller {
            s.check().map_err(|m| {
                let at = table
                    .get("seller")
                    .and_then(|s| s.get_ref().as_table())
                    .and_then(|s| s.get(m.key))
                    .map(|v| v.span().start);
                invalid(at, m.message)
            })?;
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

/// The message for an unknown top-level key or table: the known ones, and the closest.
fn unknown_key(key: &str, table: bool, also: &[&str]) -> String {
    let shown = |k: &str| {
        if k == "seller" || (table && k == key) {
            format!("[{k}]")
        } else {
            k.to_string()
        }
    };
    let hint = match closest(key, KNOWN_KEYS) {
        Some(c) => format!("; did you mean {}?", shown(c)),
        None if key.eq_ignore_ascii_case("api") => "; the API is not set in this file but in the environment \
             (INVOICEDROP_API_URL, INVOICEDROP_VAT_NUMBER, INVOICEDROP_USERNAME, INVOICEDROP_SECRET or \
             INVOICEDROP_SECRET_FILE)"
            .to_string(),
        None => String::new(),
    };
    let also = if also.is_empty() {
        String::new()
    } else {
        format!(" (also unknown: {})", also.join(", "))
    };
    let mut said = format!("unknown {} {}{hint}", if table { "table" } else { "key" }, shown(key));
    said.push_str(if said.ends_with('?') { " " } else { ". " });
    said.push_str("The configuration holds the [seller] table and lookups_dir (see invoicedrop.toml in the README)");
    said + &also
}

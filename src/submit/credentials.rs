//! API credentials from the environment (D5): never from the command line or the config file.
//!
//! `INVOICEDROP_API_URL`, `INVOICEDROP_VAT_NUMBER`, `INVOICEDROP_USERNAME`, `INVOICEDROP_SECRET`
//! or `INVOICEDROP_SECRET_FILE`, `INVOICEDROP_ONBOARD_ID`.

use super::{ApiSettings, ApiUrl};
use crate::model::Secret;
use std::path::{Path, PathBuf};

/// Base URL of the API.
pub const ENV_API_URL: &str = "INVOICEDROP_API_URL";
/// The organisation's VAT number.
pub const ENV_VAT_NUMBER: &str = "INVOICEDROP_VAT_NUMBER";
/// The API user name.
pub const ENV_USERNAME: &str = "INVOICEDROP_USERNAME";
/// The API secret itself.
pub const ENV_SECRET: &str = "INVOICEDROP_SECRET";
/// A file holding the API secret.
pub const ENV_SECRET_FILE: &str = "INVOICEDROP_SECRET_FILE";
/// The device's onboard_id.
pub const ENV_ONBOARD_ID: &str = "INVOICEDROP_ONBOARD_ID";

/// Why credentials could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialsError {
    /// A required value is missing.
    #[error("{what} is not set: set the environment variable {var}")]
    Missing {
        /// What is missing, in words.
        what: &'static str,
        /// The variable to set.
        var: &'static str,
    },
    /// Both the secret and the secret file are set.
    #[error("both {ENV_SECRET} and {ENV_SECRET_FILE} are set: keep only one")]
    TwoSecrets,
    /// The secret file cannot be read. Its name is not kept, nor shown: it is often the secret
    /// itself, set in `INVOICEDROP_SECRET_FILE` instead of `INVOICEDROP_SECRET` by mistake.
    #[error(
        "{ENV_SECRET_FILE} does not name a file that can be read ({message}): it must hold the path of a file \
         containing the API secret, not the secret itself (put the secret in {ENV_SECRET} instead); its value \
         is not shown"
    )]
    SecretFile {
        /// The system's error (which never holds the file's name).
        message: String,
    },
    /// `INVOICEDROP_VAT_NUMBER` is not 15 digits. Its value is not shown (it might be something
    /// else put there by mistake); what it has is described.
    #[error(
        "{ENV_VAT_NUMBER} is not a VAT number: it must hold the organisation's 15-digit VAT number, digits only \
         without spaces or dashes (it has {found}; its value is not shown)"
    )]
    BadVatNumber {
        /// What the value has instead, in words (`14 digits`, `16 characters, not all digits`).
        found: String,
    },
    /// The secret file is empty.
    #[error("the API secret file {} is empty", path.display())]
    EmptySecretFile {
        /// The file.
        path: PathBuf,
    },
}

/// What the environment says about the API. Every field is optional here; no API URL means the
/// built-in sandbox. `Debug` never shows the secret, nor the user-info of the URL.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvCredentials {
    /// `INVOICEDROP_API_URL`.
    pub api_url: Option<ApiUrl>,
    /// `INVOICEDROP_VAT_NUMBER`.
    pub vat_number: Option<String>,
    /// `INVOICEDROP_USERNAME`.
    pub username: Option<String>,
    /// `INVOICEDROP_SECRET`, or the contents of `INVOICEDROP_SECRET_FILE`.
    pub secret: Option<Secret>,
    /// `INVOICEDROP_ONBOARD_ID`.
    pub onboard_id: Option<String>,
}

impl EnvCredentials {
    /// Read the process environment.
    pub fn from_env() -> Result<EnvCredentials, CredentialsError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Read through `lookup` (a variable name to its value); empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<EnvCredentials, CredentialsError> {
        let get = |name: &str| lookup(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        // The secret keeps its spaces (a secret may hold them, at either end); only a line end is
        // taken off, as from a secret file: an env file saved with CRLF leaves a CR after it.
        let secret = lookup(ENV_SECRET).map(|v| v.trim_end_matches(['\r', '\n']).to_string());
        let secret = match (secret.filter(|v| !v.is_empty()), get(ENV_SECRET_FILE)) {
            (Some(_), Some(_)) => return Err(CredentialsError::TwoSecrets),
            (Some(s), None) => Some(Secret::new(s)),
            (None, Some(file)) => Some(read_secret_file(Path::new(&file))?),
            (None, None) => None,
        };
        Ok(EnvCredentials {
            api_url: get(ENV_API_URL).map(ApiUrl::new),
            vat_number: get(ENV_VAT_NUMBER),
            username: get(ENV_USERNAME),
            secret,
            onboard_id: get(ENV_ONBOARD_ID),
        })
    }

    /// Settings with defaults for everything else; every credential must be present.
    pub fn into_settings(self) -> Result<ApiSettings, CredentialsError> {
        let api_url = self.api_url.ok_or(CredentialsError::Missing {
            what: "the API URL",
            var: ENV_API_URL,
        })?;
        let vat_number = self.vat_number.ok_or(CredentialsError::Missing {
            what: "the VAT number",
            var: ENV_VAT_NUMBER,
        })?;
        check_vat_number(&vat_number)?;
        let username = self.username.ok_or(CredentialsError::Missing {
            what: "the API user name",
            var: ENV_USERNAME,
        })?;
        let secret = self.secret.ok_or(CredentialsError::Missing {
            what: "the API secret",
            var: "INVOICEDROP_SECRET (or INVOICEDROP_SECRET_FILE)",
        })?;
        Ok(ApiSettings::new(api_url, vat_number, username, secret))
    }
}

/// Read a secret from a file (named in the environment or the config file): the whole content
/// without the trailing line break.
pub fn read_secret_file(path: &Path) -> Result<Secret, CredentialsError> {
    // The OS's message alone: `io::Error` from reading never holds the path.
    let text = std::fs::read_to_string(path).map_err(|e| CredentialsError::SecretFile { message: e.to_string() })?;
    let value = text.trim_end_matches(['\r', '\n']);
    if value.is_empty() {
        return Err(CredentialsError::EmptySecretFile {
            path: path.to_path_buf(),
        });
    }
    Ok(Secret::new(value))
}

/// `INVOICEDROP_VAT_NUMBER`: 15 ASCII digits, checked before it is sent (the API would answer
/// only "credentials rejected").
fn check_vat_number(vat: &str) -> Result<(), CredentialsError> {
    let chars = vat.chars().count();
    let digits = vat.bytes().filter(u8::is_ascii_digit).count();
    if chars == 15 && digits == 15 {
        return Ok(());
    }
    let found = if digits == chars {
        format!("{digits} digits")
    } else {
        format!("{chars} characters, {digits} of them digits")
    };
    Err(CredentialsError::BadVatNumber { found })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn everything_from_the_environment() {
        let env = EnvCredentials::from_lookup(lookup(&[
            (ENV_API_URL, "https://api.example.com"),
            (ENV_VAT_NUMBER, "399999999900003"),
            (ENV_USERNAME, "user"),
            (ENV_SECRET, "hunter2-secret"),
            (ENV_ONBOARD_ID, "abc=="),
        ]))
        .unwrap();
        assert_eq!(env.onboard_id.as_deref(), Some("abc=="));
        assert!(!format!("{env:?}").contains("hunter2-secret"));
        let with_password = EnvCredentials::from_lookup(lookup(&[(ENV_API_URL, "https://svc:pw-in-url@h")])).unwrap();
        let debug = format!("{with_password:?}");
        assert!(
            !debug.contains("pw-in-url") && debug.contains("https://***@h"),
            "{debug}"
        );
        let settings = env.into_settings().unwrap();
        assert_eq!(settings.secret.expose(), "hunter2-secret");
        assert!(!format!("{settings:?}").contains("hunter2-secret"));
    }

    #[test]
    fn the_secret_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secret");
        std::fs::write(&file, "from-file\n").unwrap();
        let env = EnvCredentials::from_lookup(lookup(&[(ENV_SECRET_FILE, file.to_str().unwrap())])).unwrap();
        assert_eq!(env.secret.unwrap().expose(), "from-file");

        let both = EnvCredentials::from_lookup(lookup(&[(ENV_SECRET, "x"), (ENV_SECRET_FILE, file.to_str().unwrap())]));
        assert_eq!(both.unwrap_err(), CredentialsError::TwoSecrets);

        std::fs::write(&file, "crlf-file\r\n").unwrap();
        assert_eq!(read_secret_file(&file).unwrap().expose(), "crlf-file");

        std::fs::write(&file, "\n").unwrap();
        assert!(matches!(
            read_secret_file(&file),
            Err(CredentialsError::EmptySecretFile { .. })
        ));
    }

    #[test]
    fn a_secret_given_as_the_secret_file_is_never_shown() {
        // The slip: the secret itself in INVOICEDROP_SECRET_FILE.
        let err = EnvCredentials::from_lookup(lookup(&[(ENV_SECRET_FILE, "Sup3r-S3cret-Value")])).unwrap_err();
        for text in [err.to_string(), format!("{err:?}")] {
            assert!(!text.contains("Sup3r-S3cret-Value"), "{text}");
        }
        let text = err.to_string();
        assert!(
            text.starts_with("INVOICEDROP_SECRET_FILE does not name a file that can be read (")
                && text.contains("the path of a file containing the API secret, not the secret itself")
                && text.contains("its value is not shown"),
            "{text}"
        );
        // Nor a path that is a folder, nor one under a folder that is missing.
        let dir = tempfile::tempdir().unwrap();
        for path in [dir.path().to_path_buf(), dir.path().join("no-such/secret")] {
            let err = read_secret_file(&path).unwrap_err();
            let shown = format!("{err} {err:?}");
            assert!(!shown.contains(dir.path().to_str().unwrap()), "{shown}");
        }
    }

    #[test]
    fn the_secret_loses_a_line_end_but_keeps_its_spaces() {
        for (given, kept) in [
            ("s3cret\r", "s3cret"),
            ("s3cret\r\n", "s3cret"),
            ("s3cret\n", "s3cret"),
            (" s3 cret ", " s3 cret "),
            (" s3cret \r\n", " s3cret "),
        ] {
            let env = EnvCredentials::from_lookup(lookup(&[(ENV_SECRET, given)])).unwrap();
            assert_eq!(env.secret.unwrap().expose(), kept, "{given:?}");
        }
        // Only a line end: no secret, as when it is empty.
        let env = EnvCredentials::from_lookup(lookup(&[(ENV_SECRET, "\r\n")])).unwrap();
        assert!(env.secret.is_none());
    }

    #[test]
    fn a_malformed_vat_number_is_refused_before_it_is_sent() {
        let settings = |vat: &str| {
            EnvCredentials::from_lookup(lookup(&[
                (ENV_API_URL, "https://h"),
                (ENV_VAT_NUMBER, vat),
                (ENV_USERNAME, "u"),
                (ENV_SECRET, "s"),
            ]))
            .unwrap()
            .into_settings()
        };
        assert_eq!(settings(" 312345678900003\r").unwrap().vat_number, "312345678900003");
        for (vat, found) in [
            ("31234567890003", "14 digits"),
            ("3123-4567-890003", "16 characters, 14 of them digits"),
            ("312 345 678 900 003", "19 characters, 15 of them digits"),
            ("٣١٢٣٤٥٦٧٨٩٠٠٠٠٣", "15 characters, 0 of them digits"),
        ] {
            let err = settings(vat).unwrap_err();
            assert_eq!(err, CredentialsError::BadVatNumber { found: found.into() }, "{vat}");
            let text = err.to_string();
            assert!(
                text.starts_with(
                    "INVOICEDROP_VAT_NUMBER is not a VAT number: it must hold the organisation's 15-digit"
                ) && text.contains(found)
                    && !text.contains(vat),
                "{text}"
            );
        }
    }

    #[test]
    fn missing_values_name_the_variable() {
        let err = EnvCredentials::from_lookup(lookup(&[(ENV_API_URL, "https://h")]))
            .unwrap()
            .into_settings()
            .unwrap_err();
        assert!(err.to_string().contains(ENV_VAT_NUMBER), "{err}");
        assert_eq!(
            EnvCredentials::from_lookup(lookup(&[])).unwrap(),
            EnvCredentials::default()
        );
    }
}

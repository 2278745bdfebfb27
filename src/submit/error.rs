//! Errors that stop a run (or prevent it from starting). A single document's failure is an
//! [`Outcome`](super::Outcome), never one of these.

use super::LedgerError;
use super::url::ApiUrl;

/// Where the onboard_id comes from, for messages.
const ONBOARD_ID_SOURCES: &str = "INVOICEDROP_ONBOARD_ID, or the onboard_id that `invoicedrop onboard` saved in the \
                                  state folder";

/// A condition that stops the whole run; every message says what to check or do. URLs are
/// [`ApiUrl`]s: shown without the user-info of `INVOICEDROP_API_URL`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubmitError {
    /// Settings that cannot work (URL, paths, missing values).
    #[error("configuration error: {0}")]
    Config(String),

    /// The API refused the credentials (a 401 on auth, or two 401s in a row on one request, D4).
    #[error(
        "credentials rejected by {url}: {detail}. Check INVOICEDROP_VAT_NUMBER, INVOICEDROP_USERNAME and \
         INVOICEDROP_SECRET (or the file in INVOICEDROP_SECRET_FILE) for this API"
    )]
    CredentialsRejected {
        /// The auth URL.
        url: ApiUrl,
        /// What the API said, if anything.
        detail: String,
    },

    /// The document endpoint answered 404: the API does not know this device (D16).
    #[error(
        "configuration error: the API answered 404 Not Found at {url}, so it does not know the device \
         onboard_id `{onboard_id}` (or the endpoint paths are wrong). Check {ONBOARD_ID_SOURCES}; run \
         `invoicedrop onboard` if this device was never onboarded with this API"
    )]
    UnknownDevice {
        /// The onboard_id used.
        onboard_id: String,
        /// The URL that answered 404.
        url: ApiUrl,
    },

    /// The API could not be reached when starting (connection refused, DNS, TLS, timeout).
    #[error(
        "cannot reach the API at {url}: {detail}. Check INVOICEDROP_API_URL (host, port, http/https), that the \
         server is running and reachable from here, and any proxy or firewall in between"
    )]
    Unreachable {
        /// The URL tried.
        url: ApiUrl,
        /// The transport error, without secrets.
        detail: String,
    },

    /// The API answered a request of this module with an error that the caller must act on
    /// (auth malformed, onboarding refused, an unexpected answer at start).
    #[error("the API at {url} refused the {what} request with HTTP {status}: {message}")]
    Api {
        /// The URL.
        url: ApiUrl,
        /// `auth`, `onboarding`.
        what: &'static str,
        /// The HTTP status.
        status: u16,
        /// What the API said, and what to do about it.
        message: String,
    },

    /// The ledger could not be written: without it exactly-once cannot be guaranteed.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl SubmitError {
    /// True when the error is a configuration problem the user must fix before any rerun
    /// (as opposed to an API that is down).
    pub fn is_configuration(&self) -> bool {
        matches!(
            self,
            SubmitError::Config(_) | SubmitError::CredentialsRejected { .. } | SubmitError::UnknownDevice { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_message_shows_the_password_of_the_api_url() {
        let url = "http://svc:TopSecretPw@127.0.0.1:19999/v1/e-invoicing/auth";
        let errors = [
            SubmitError::Unreachable {
                url: url.into(),
                detail: "connection refused".into(),
            },
            SubmitError::CredentialsRejected {
                url: url.into(),
                detail: "401".into(),
            },
            SubmitError::UnknownDevice {
                onboard_id: "abc".into(),
                url: url.into(),
            },
            SubmitError::Api {
                url: url.into(),
                what: "onboarding",
                status: 400,
                message: "bad OTP".into(),
            },
        ];
        for e in errors {
            let text = format!("{e} {e:?}");
            assert!(!text.contains("TopSecretPw"), "{text}");
            assert!(
                text.contains("http://***@127.0.0.1:19999/v1/e-invoicing/auth"),
                "{text}"
            );
        }
    }
}

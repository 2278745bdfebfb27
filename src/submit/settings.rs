//! What the submitter needs to know: the API's address and paths, the account, and the limits.

use super::SubmitError;
use super::url::ApiUrl;
use crate::model::{DocumentKind, Secret};
use reqwest::Url;
use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

/// The placeholder in document paths that is replaced by the percent-encoded `onboard_id`.
pub const ONBOARD_ID_PLACEHOLDER: &str = "{onboard_id}";

/// Paths of the endpoints, relative to the base URL (D1, D10). The provider may move them, so
/// they are configuration; the document paths must contain `{onboard_id}` once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointPaths {
    /// Authentication, default `/v1/e-invoicing/auth`.
    pub auth: String,
    /// Onboarding, default `/v1/e-invoicing/onboardings`.
    pub onboarding: String,
    /// Invoices, default `/v1/e-invoicing/{onboard_id}/invoices`.
    pub invoices: String,
    /// Credit notes, default `/v1/e-invoicing/{onboard_id}/credit-notes`.
    pub credit_notes: String,
    /// Debit notes, default `/v1/e-invoicing/{onboard_id}/debit-notes`.
    pub debit_notes: String,
}

impl Default for EndpointPaths {
    fn default() -> Self {
        EndpointPaths {
            auth: "/v1/e-invoicing/auth".into(),
            onboarding: "/v1/e-invoicing/onboardings".into(),
            invoices: "/v1/e-invoicing/{onboard_id}/invoices".into(),
            credit_notes: "/v1/e-invoicing/{onboard_id}/credit-notes".into(),
            debit_notes: "/v1/e-invoicing/{onboard_id}/debit-notes".into(),
        }
    }
}

impl EndpointPaths {
    /// The path template of a document kind's endpoint.
    pub fn document(&self, kind: DocumentKind) -> &str {
        match kind {
            DocumentKind::Invoice => &self.invoices,
            DocumentKind::CreditNote => &self.credit_notes,
            DocumentKind::DebitNote => &self.debit_notes,
        }
    }
}

/// Delays between repeats of a request whose outcome is unknown, and between probes while the
/// API is down: exponential from `min_delay`, doubling up to `max_delay`, with random jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The first delay (default 250 ms).
    pub min_delay: Duration,
    /// The largest delay (default 30 s).
    pub max_delay: Duration,
    /// How long an API that answers nothing is probed before the run stops waiting for it and
    /// reports the remaining documents as not sent (default 5 minutes).
    pub give_up_after: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            min_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(30),
            give_up_after: Duration::from_secs(300),
        }
    }
}

/// Everything the submitter needs to talk to the API. `Debug` never shows the secret (nor a
/// password written into the URL).
#[derive(Clone)]
pub struct ApiSettings {
    /// `https://host[:port]` (D1); plain `http://` only for loopback unless
    /// `allow_insecure_http` (D3). Shown everywhere without its user-info.
    pub base_url: ApiUrl,
    /// The organisation's VAT number (auth).
    pub vat_number: String,
    /// The API user name (auth).
    pub username: String,
    /// The API secret (auth); comes from the environment or a file (D5).
    pub secret: Secret,
    /// Whole-request timeout (default 60 s). A timeout is an unknown outcome.
    pub timeout: Duration,
    /// TCP/TLS connect timeout (default 10 s).
    pub connect_timeout: Duration,
    /// Documents per second (default 5); `None` or `Some(0)` means no limit.
    pub rate_per_second: Option<u32>,
    /// Requests in flight at once (default 8; at least 1).
    pub concurrency: usize,
    /// Requests per document whose outcome stays unknown before giving up on it for this run
    /// (default 8).
    pub max_attempts: u32,
    /// Delays between repeats and probes.
    pub backoff: Backoff,
    /// Allow plain `http://` to a host other than loopback (D3). Off by default.
    pub allow_insecure_http: bool,
    /// Endpoint paths.
    pub paths: EndpointPaths,
}

impl ApiSettings {
    /// Settings with the defaults above.
    pub fn new(
        base_url: impl Into<ApiUrl>,
        vat_number: impl Into<String>,
        username: impl Into<String>,
        secret: Secret,
    ) -> Self {
        ApiSettings {
            base_url: base_url.into(),
            vat_number: vat_number.into(),
            username: username.into(),
            secret,
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            rate_per_second: Some(5),
            concurrency: 8,
            max_attempts: 8,
            backoff: Backoff::default(),
            allow_insecure_http: false,
            paths: EndpointPaths::default(),
        }
    }

    /// The rate limit in documents per second, `None` when unlimited.
    pub fn rate(&self) -> Option<u32> {
        self.rate_per_second.filter(|r| *r > 0)
    }

    /// Check the URL (D3) and paths; the base URL without a trailing slash.
    pub(crate) fn checked_base(&self) -> Result<ApiUrl, SubmitError> {
        let url = Url::parse(self.base_url.to_send().trim()).map_err(|e| {
            SubmitError::Config(format!(
                "the API URL `{}` is not a valid URL ({e}); set INVOICEDROP_API_URL to https://host[:port]",
                self.base_url
            ))
        })?;
        match url.scheme() {
            "https" => {}
            "http" if self.allow_insecure_http || is_loopback(&url) => {}
            "http" => {
                return Err(SubmitError::Config(format!(
                    "refusing to send credentials over plain http to {}: use an https:// URL in \
                     INVOICEDROP_API_URL, or, if this host really is on a trusted network, pass --insecure to allow \
                     plain http to it",
                    url.host_str().unwrap_or("?")
                )));
            }
            other => {
                return Err(SubmitError::Config(format!(
                    "the API URL `{}` has scheme `{other}`; use https://host[:port]",
                    self.base_url
                )));
            }
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(SubmitError::Config(format!(
                "the API URL `{}` carries a user name or password (before the @): the API is signed into with \
                 INVOICEDROP_USERNAME and the secret, and a user-info would be sent as a second login with every \
                 request (which the API refuses); remove it from INVOICEDROP_API_URL",
                self.base_url
            )));
        }
        if url.query().is_some() || url.fragment().is_some() {
            // Not shown: a query may hold a key (`?api_key=...`).
            let mut shown = url.clone();
            shown.set_query(None);
            shown.set_fragment(None);
            let hidden = match (url.query().is_some(), url.fragment().is_some()) {
                (true, true) => "?...#...",
                (true, false) => "?...",
                _ => "#...",
            };
            return Err(SubmitError::Config(format!(
                "the API URL `{shown}{hidden}` must not carry a query or fragment (after `?` or `#`, not shown here): \
                 remove it from INVOICEDROP_API_URL; the API is signed into with INVOICEDROP_USERNAME and the secret"
            )));
        }
        for (name, path) in [
            ("invoices", &self.paths.invoices),
            ("credit notes", &self.paths.credit_notes),
            ("debit notes", &self.paths.debit_notes),
        ] {
            if path.matches(ONBOARD_ID_PLACEHOLDER).count() != 1 {
                return Err(SubmitError::Config(format!(
                    "the {name} path `{path}` must contain {ONBOARD_ID_PLACEHOLDER} exactly once"
                )));
            }
        }
        for (name, path) in [("auth", &self.paths.auth), ("onboarding", &self.paths.onboarding)] {
            if !path.starts_with('/') {
                return Err(SubmitError::Config(format!(
                    "the {name} path `{path}` must start with `/`"
                )));
            }
        }
        Ok(ApiUrl::new(url.as_str().trim_end_matches('/')))
    }
}

impl fmt::Debug for ApiSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiSettings")
            .field("base_url", &self.base_url)
            .field("vat_number", &self.vat_number)
            .field("username", &self.username)
            .field("secret", &self.secret)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("rate_per_second", &self.rate_per_second)
            .field("concurrency", &self.concurrency)
            .field("max_attempts", &self.max_attempts)
            .field("backoff", &self.backoff)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("paths", &self.paths)
            .finish()
    }
}

/// True for `localhost`, 127.0.0.0/8 and ::1.
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Percent-encode a value as ONE path segment (D2): everything but RFC 3986 unreserved
/// characters is encoded, so `/`, `+`, `=` and `%` can never change the path's meaning.
pub(crate) fn encode_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> ApiSettings {
        ApiSettings::new(url, "399999999900003", "u", Secret::new("s3cr3t-value"))
    }

    #[test]
    fn https_and_loopback_http_are_allowed() {
        assert_eq!(
            settings("https://api.example.com/").checked_base().unwrap().to_send(),
            "https://api.example.com"
        );
        assert!(settings("http://127.0.0.1:9090").checked_base().is_ok());
        assert!(settings("http://localhost:9090").checked_base().is_ok());
        assert!(settings("http://[::1]:9090").checked_base().is_ok());
        assert_eq!(
            settings("https://h/prefix/").checked_base().unwrap().to_send(),
            "https://h/prefix"
        );
    }

    #[test]
    fn plain_http_elsewhere_needs_the_flag() {
        let err = settings("http://api.example.com").checked_base().unwrap_err();
        assert!(
            err.to_string().contains("plain http to api.example.com") && err.to_string().contains("pass --insecure"),
            "{err}"
        );
        let mut s = settings("http://api.example.com");
        s.allow_insecure_http = true;
        assert!(s.checked_base().is_ok());
        assert!(settings("ftp://x").checked_base().is_err());
        assert!(settings("not a url").checked_base().is_err());
    }

    #[test]
    fn a_query_is_refused_without_showing_it() {
        for (url, shown) in [
            (
                "https://api.example.com/v1?api_key=S3cret-k",
                "`https://api.example.com/v1?...`",
            ),
            ("https://api.example.com/#S3cret-k", "`https://api.example.com/#...`"),
            (
                "https://api.example.com/?a=S3cret-k#S3cret-k",
                "`https://api.example.com/?...#...`",
            ),
        ] {
            let err = settings(url).checked_base().unwrap_err().to_string();
            assert!(
                err.contains(shown) && err.contains("must not carry a query or fragment") && !err.contains("S3cret"),
                "{err}"
            );
        }
    }

    #[test]
    fn document_paths_need_the_placeholder() {
        let mut s = settings("https://h");
        s.paths.credit_notes = "/v1/credit-notes".into();
        assert!(s.checked_base().unwrap_err().to_string().contains("{onboard_id}"));
    }

    #[test]
    fn segment_encoding_keeps_one_segment() {
        assert_eq!(encode_segment("a/b+c=="), "a%2Fb%2Bc%3D%3D");
        assert_eq!(encode_segment("AZaz09-._~"), "AZaz09-._~");
        assert_eq!(encode_segment("x y%"), "x%20y%25");
        assert_eq!(encode_segment("é"), "%C3%A9");
    }

    #[test]
    fn debug_hides_the_secret_and_url_password() {
        let s = settings("https://user:pw123@api.example.com");
        let text = format!("{s:?}");
        assert!(!text.contains("s3cr3t-value"), "{text}");
        assert!(!text.contains("pw123"), "{text}");
        assert!(
            text.contains("[redacted]") && text.contains("https://***@api.example.com"),
            "{text}"
        );
        // Nor does any error about the URL.
        for url in ["ftp://user:pw123@h", "https://user:pw123@h/?q", "not a url:pw123@h"] {
            let e = settings(url).checked_base().unwrap_err().to_string();
            assert!(!e.contains("pw123") && e.contains("***@h"), "{e}");
        }
    }
}

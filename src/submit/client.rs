//! The HTTP side: one reqwest client (rustls on ring), the endpoints' URLs, and the
//! classification of every answer per D16. Bodies are kept as raw bytes; nothing here logs a
//! body, a token or the secret.

use super::SubmitError;
pub(crate) use super::reply::{Reply, classify, failure_text};
use super::settings::{ApiSettings, ONBOARD_ID_PLACEHOLDER, encode_segment, is_loopback};
use super::url::{ApiUrl, scrub_user_info};
use crate::model::{Credentials, DocumentKind, Secret, Token};
use reqwest::Url;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use serde_json::Value;
use std::sync::Once;
use std::time::{Duration, Instant};

/// The longest `Retry-After` honoured; a larger value is taken as this.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);

/// Why authentication failed.
#[derive(Debug, Clone)]
pub(crate) enum AuthFailure {
    /// 401/403: wrong VAT number, user name or secret.
    Rejected { detail: String },
    /// Another 4xx, or an answer without a usable token.
    Refused { status: u16, message: String },
    /// 429, 5xx, timeout or reset: try again later.
    Transient { reason: String },
    /// The connection could not be opened.
    Unreachable { reason: String },
}

/// A raw HTTP answer.
struct RawReply {
    status: u16,
    retry_after: Option<Duration>,
    body: Vec<u8>,
}

/// A request that got no HTTP answer.
struct Transport {
    reason: String,
    not_sent: bool,
}

/// The API client: URLs, credentials and the connection pool. Its URLs are [`ApiUrl`]s: shown
/// (messages, logs) without the user-info the configured URL may carry.
pub(crate) struct ApiClient {
    http: reqwest::Client,
    base: ApiUrl,
    settings: ApiSettings,
}

static INSTALL_RING: Once = Once::new();

impl ApiClient {
    /// Check the settings (D3) and build the client; nothing is sent yet.
    pub(crate) fn new(settings: &ApiSettings) -> Result<ApiClient, SubmitError> {
        let base = settings.checked_base()?;
        INSTALL_RING.call_once(|| {
            // Fails only when a provider is already installed, which is fine.
            let _ = rustls::crypto::ring::default_provider().install_default();
        });
        let mut builder = reqwest::Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.connect_timeout)
            .pool_max_idle_per_host(settings.concurrency.max(1))
            .user_agent(concat!("invoicedrop/", env!("CARGO_PKG_VERSION")));
        if Url::parse(base.to_send()).is_ok_and(|u| is_loopback(&u)) {
            builder = builder.no_proxy();
        }
        let http = builder
            .build()
            .map_err(|e| SubmitError::Config(format!("cannot set up the HTTP client: {}", error_text(&e))))?;
        Ok(ApiClient {
            http,
            base,
            settings: settings.clone(),
        })
    }

    /// The settings this client was built from.
    pub(crate) fn settings(&self) -> &ApiSettings {
        &self.settings
    }

    /// The URL of the endpoint at `path` (relative to the base URL).
    fn endpoint(&self, path: &str) -> ApiUrl {
        ApiUrl::new(format!("{}{path}", self.base.to_send()))
    }

    /// The auth endpoint's URL.
    pub(crate) fn auth_url(&self) -> ApiUrl {
        self.endpoint(&self.settings.paths.auth)
    }

    /// The onboarding endpoint's URL.
    pub(crate) fn onboarding_url(&self) -> ApiUrl {
        self.endpoint(&self.settings.paths.onboarding)
    }

    /// A document endpoint's URL, with the onboard_id percent-encoded as one segment (D2).
    pub(crate) fn document_url(&self, onboard_id: &str, kind: DocumentKind) -> ApiUrl {
        let template = self.settings.paths.document(kind);
        self.endpoint(&template.replacen(ONBOARD_ID_PLACEHOLDER, &encode_segment(onboard_id), 1))
    }

    /// Exchange the credentials for a token (api.md 4.1).
    pub(crate) async fn authenticate(&self) -> Result<Token, AuthFailure> {
        let credentials = Credentials {
            vat_number: self.settings.vat_number.clone(),
            username: self.settings.username.clone(),
            secret: self.settings.secret.clone(),
        };
        let body = serde_json::to_vec(&credentials).map_err(|e| AuthFailure::Refused {
            status: 0,
            message: format!("cannot encode the credentials: {e}"),
        })?;
        let reply = match self.send(&self.auth_url(), None, None, body).await {
            Ok(r) => r,
            Err(t) if t.not_sent => return Err(AuthFailure::Unreachable { reason: t.reason }),
            Err(t) => return Err(AuthFailure::Transient { reason: t.reason }),
        };
        match reply.status {
            200..=299 => parse_token(&reply.body).ok_or_else(|| AuthFailure::Refused {
                status: reply.status,
                message: "the answer carried no token; is the auth path right?".into(),
            }),
            401 | 403 => Err(AuthFailure::Rejected {
                detail: failure_text(reply.status, &reply.body),
            }),
            408 | 429 | 500..=599 => Err(AuthFailure::Transient {
                reason: failure_text(reply.status, &reply.body),
            }),
            status => Err(AuthFailure::Refused {
                status,
                message: failure_text(status, &reply.body),
            }),
        }
    }

    /// Send a document body (the identical bytes on every repeat) and classify the answer.
    pub(crate) async fn post_document(
        &self,
        url: &ApiUrl,
        bearer: &HeaderValue,
        idempotency_key: &str,
        body: Vec<u8>,
    ) -> Reply {
        match self.send(url, Some(bearer), Some(idempotency_key), body).await {
            Ok(r) => classify(r.status, r.retry_after, r.body),
            Err(t) => Reply::Unknown {
                reason: t.reason,
                status: None,
                raw: None,
                not_sent: t.not_sent,
            },
        }
    }

    /// Send a JSON body to `url` with the bearer token; the status and raw answer, or why none came.
    pub(crate) async fn post_raw(
        &self,
        url: &ApiUrl,
        bearer: &HeaderValue,
        body: Vec<u8>,
    ) -> Result<(u16, Vec<u8>), String> {
        self.send(url, Some(bearer), None, body)
            .await
            .map(|r| (r.status, r.body))
            .map_err(|t| t.reason)
    }

    async fn send(
        &self,
        url: &ApiUrl,
        bearer: Option<&HeaderValue>,
        idempotency_key: Option<&str>,
        body: Vec<u8>,
    ) -> Result<RawReply, Transport> {
        let started = Instant::now();
        let mut request = self
            .http
            .post(url.to_send())
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(b) = bearer {
            request = request.header(AUTHORIZATION, b.clone());
        }
        if let Some(k) = idempotency_key {
            request = request.header("Idempotency-Key", k);
        }
        let response = request.send().await.map_err(|e| {
            tracing::trace!(url = %url, error = %error_text(&e), "request failed");
            Transport {
                reason: error_text(&e),
                not_sent: e.is_connect(),
            }
        })?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let body = response.bytes().await.map_err(|e| Transport {
            reason: format!("HTTP {status}, then the answer broke off: {}", error_text(&e)),
            not_sent: false,
        })?;
        tracing::trace!(url = %url, status, elapsed_ms = started.elapsed().as_millis() as u64, "answer");
        Ok(RawReply {
            status,
            retry_after,
            body: body.to_vec(),
        })
    }
}

/// The `Authorization` header for a token; marked sensitive so that no layer prints it.
pub(crate) fn bearer_header(token: &Secret) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose())).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// Read a token answer tolerantly: `token` (or `access_token`), `expires_in` as a number or a
/// numeric string, 3600 s when absent (api.md sample).
fn parse_token(raw: &[u8]) -> Option<Token> {
    let v: Value = serde_json::from_slice(raw).ok()?;
    let token = v
        .get("token")
        .or_else(|| v.get("access_token"))
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())?;
    let expires_in = match v.get("expires_in") {
        Some(Value::Number(n)) => n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok().map(|f| f.max(0.0) as u64),
        _ => None,
    }
    .unwrap_or(3600);
    Some(Token {
        token: Secret::new(token),
        expires_in,
    })
}

/// `Retry-After` as seconds (integer or decimal) or an HTTP date; capped at [`MAX_RETRY_AFTER`].
pub(crate) fn parse_retry_after(text: &str) -> Option<Duration> {
    let t = text.trim();
    let wait = if let Ok(secs) = t.parse::<f64>() {
        if !secs.is_finite() || secs < 0.0 {
            return None;
        }
        Duration::from_secs_f64(secs.min(MAX_RETRY_AFTER.as_secs_f64()))
    } else {
        let when = chrono::DateTime::parse_from_rfc2822(t).ok()?;
        let delta = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
        delta.to_std().unwrap_or(Duration::ZERO)
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// An error and its causes in one line (reqwest's top level alone says little), any URL in it
/// without its user-info (reqwest drops the API URL's; a proxy's may be quoted).
pub(crate) fn error_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    scrub_user_info(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submit::{BODY_TOO_LARGE_CODE, DUPLICATE_CODE};

    #[test]
    fn statuses_map_to_d16() {
        assert!(matches!(
            classify(200, None, br#"{"status":"Success","id":"u"}"#.to_vec()),
            Reply::Accepted { .. }
        ));
        assert!(matches!(classify(401, None, vec![]), Reply::Unauthorized));
        assert!(matches!(classify(404, None, b"<html>".to_vec()), Reply::UnknownDevice));
        assert!(matches!(
            classify(429, Some(Duration::from_secs(2)), vec![]),
            Reply::RateLimited { retry_after: Some(d) } if d == Duration::from_secs(2)
        ));
        for s in [500, 502, 503, 504, 408] {
            assert!(
                matches!(classify(s, None, vec![]), Reply::Unknown { not_sent: false, .. }),
                "{s}"
            );
        }
        // A 200 that is not JSON: maybe issued, maybe not. Repeat it with the same key.
        assert!(matches!(
            classify(200, None, b"<html>ok</html>".to_vec()),
            Reply::Unknown { .. }
        ));
    }

    #[test]
    fn rejections_always_say_why() {
        let Reply::Rejected { response, status, .. } = classify(
            422,
            None,
            br#"{"status":"Failure","errors":[{"code":"BR-KSA-40","message":"bad"}]}"#.to_vec(),
        ) else {
            panic!("422 is a rejection")
        };
        assert_eq!(status, 422);
        assert_eq!(response.errors.0[0].code.as_deref(), Some("BR-KSA-40"));

        let Reply::Rejected { response, .. } = classify(400, None, b"<html>Bad Request</html>".to_vec()) else {
            panic!("400 is a rejection")
        };
        assert!(response.errors.0[0].message.contains("Bad Request"), "{response:?}");

        let Reply::Rejected { response, .. } = classify(409, None, br#"{"status":"Failure"}"#.to_vec()) else {
            panic!("409 is a rejection")
        };
        assert_eq!(response.errors.0[0].code.as_deref(), Some(DUPLICATE_CODE));

        let Reply::Rejected { response, .. } = classify(
            413,
            None,
            br#"{"status":"Failure","message":"the body is larger than 1048576 bytes","errors":[{"type":"ERROR","code":"BODY-TOO-LARGE","category":"request","message":"send at most 1048576 bytes","status":"ERROR"}]}"#.to_vec(),
        ) else {
            panic!("413 is a rejection")
        };
        assert_eq!(response.errors.0.len(), 1, "{response:?}");
        assert_eq!(
            response.errors.0[0].message,
            "the API refused the request that sends this document as too large (HTTP 413: send at most 1048576 \
             bytes): the document has too many lines (or too long texts) for one request, so it is not issued. \
             Split it into several documents in the ERP and export again; `check` says how many lines fit \
             (INV-DOCUMENT-TOO-LARGE)"
        );
        let Reply::Rejected { response, .. } = classify(413, None, b"Payload Too Large".to_vec()) else {
            panic!("413 is a rejection")
        };
        assert_eq!(
            response.errors.0[0].code.as_deref(),
            Some(BODY_TOO_LARGE_CODE),
            "{response:?}"
        );
        assert!(
            response.errors.0[0].message.contains("Split it into several documents"),
            "{response:?}"
        );

        let Reply::Rejected { response, .. } = classify(400, None, Vec::new()) else {
            panic!("400 is a rejection")
        };
        assert!(response.errors.0[0].message.contains("400"));

        let Reply::Rejected { status, .. } = classify(200, None, br#"{"status":"Failure","errors":"x"}"#.to_vec())
        else {
            panic!("an explicit Failure is a rejection")
        };
        assert_eq!(status, 200);
    }

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(" 1.5 "), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after("99999"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO),
            "a date in the past means now"
        );
        let future = (chrono::Utc::now() + chrono::Duration::seconds(30)).to_rfc2822();
        let d = parse_retry_after(&future).unwrap();
        assert!(d > Duration::from_secs(25) && d <= Duration::from_secs(30), "{d:?}");
    }

    #[test]
    fn token_answers_are_read_tolerantly() {
        let t = parse_token(br#"{"token":"abc","expires_in":120}"#).unwrap();
        assert_eq!((t.token.expose(), t.expires_in), ("abc", 120));
        let t = parse_token(br#"{"access_token":"abc","expires_in":"60"}"#).unwrap();
        assert_eq!(t.expires_in, 60);
        assert_eq!(parse_token(br#"{"token":"abc"}"#).unwrap().expires_in, 3600);
        assert!(parse_token(br#"{"token":""}"#).is_none());
        assert!(parse_token(b"<html>").is_none());
    }

    #[test]
    fn bearer_header_is_sensitive() {
        let h = bearer_header(&Secret::new("tok-123")).unwrap();
        assert!(h.is_sensitive());
        assert!(!format!("{h:?}").contains("tok-123"));
        assert!(bearer_header(&Secret::new("bad\nvalue")).is_none());
    }

    #[test]
    fn document_urls_encode_the_onboard_id_as_one_segment() {
        let s = ApiSettings::new("http://127.0.0.1:9/base/", "v", "u", Secret::new("s"));
        let c = ApiClient::new(&s).unwrap();
        assert_eq!(
            c.document_url("ab/c+d==", DocumentKind::CreditNote).to_send(),
            "http://127.0.0.1:9/base/v1/e-invoicing/ab%2Fc%2Bd%3D%3D/credit-notes"
        );
        assert_eq!(c.auth_url().to_send(), "http://127.0.0.1:9/base/v1/e-invoicing/auth");
    }

    #[test]
    fn a_url_with_a_user_info_is_refused_and_named_without_it() {
        for url in [
            "http://svc:TopSecretPw@127.0.0.1:9",
            "http://TopSecretPw@127.0.0.1:9/base",
        ] {
            let s = ApiSettings::new(url, "v", "u", Secret::new("s"));
            let Err(e) = ApiClient::new(&s) else {
                panic!("{url} taken")
            };
            let said = format!("{e} {e:?}");
            assert!(
                !said.contains("TopSecretPw") && said.contains("`http://***@127.0.0.1:9"),
                "{said}"
            );
            assert!(said.contains("remove it from INVOICEDROP_API_URL"), "{said}");
        }
    }
}

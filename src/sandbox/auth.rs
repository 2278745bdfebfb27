//! `POST /v1/e-invoicing/auth` (api.md 4.1, D4 to D6): credentials compared in constant time,
//! random tokens that expire, and the bearer check of every other endpoint.

use super::fields::Problem;
use super::respond;
use super::server::Shared;
use super::{body, fields};
use crate::model::{Message, Secret};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, TimeDelta, Utc};
use rand::RngCore;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use subtle::ConstantTimeEq;

/// The sandbox account (D6).
#[derive(Debug, Clone)]
pub(crate) struct Account {
    pub(crate) vat_number: String,
    pub(crate) username: String,
    pub(crate) secret: Secret,
    pub(crate) otp: Secret,
}

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Equal in constant time: both sides are hashed first, so neither the length nor the position of
/// the first difference shows in the timing.
pub(crate) fn same(a: &str, b: &str) -> bool {
    bool::from(digest(a).ct_eq(&digest(b)))
}

impl Account {
    /// All three compared, without stopping at the first mismatch.
    fn accepts(&self, vat_number: &str, username: &str, secret: &str) -> bool {
        let vat = digest(vat_number).ct_eq(&digest(&self.vat_number));
        let user = digest(username).ct_eq(&digest(&self.username));
        let secret = digest(secret).ct_eq(&digest(self.secret.expose()));
        bool::from(vat & user & secret)
    }
}

/// The live tokens, kept by their SHA-256 (the token itself is stored nowhere) with their expiry.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    live: Mutex<HashMap<[u8; 32], DateTime<Utc>>>,
}

impl Tokens {
    /// A new random token (256 bits, base64url) valid for `ttl` seconds from `now`.
    pub(crate) fn issue(&self, now: DateTime<Utc>, ttl: u64) -> Secret {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        let token = URL_SAFE_NO_PAD.encode(bytes);
        let expires = i64::try_from(ttl)
            .ok()
            .and_then(TimeDelta::try_seconds)
            .and_then(|d| now.checked_add_signed(d))
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.retain(|_, until| *until > now);
        live.insert(digest(&token), expires);
        Secret::new(token)
    }

    /// Whether a token is live at `now`.
    pub(crate) fn check(&self, token: &str, now: DateTime<Utc>) -> bool {
        let live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.get(&digest(token)).is_some_and(|until| *until > now)
    }
}

/// Whether the request carries `Authorization: Bearer <live token>`.
pub(crate) fn authorised(shared: &Shared, headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let mut parts = value.trim().splitn(2, ' ');
    match (parts.next(), parts.next()) {
        (Some(scheme), Some(token)) if scheme.eq_ignore_ascii_case("bearer") => {
            shared.tokens.check(token.trim(), shared.clock.now())
        }
        _ => false,
    }
}

/// The text of a 401.
pub(crate) const UNAUTHORISED: &str = "missing, invalid or expired token";

/// The detail of a 401.
pub(crate) fn token_message() -> Message {
    Message::error(
        "INVALID-TOKEN",
        "authentication",
        "send `Authorization: Bearer <token>` with a token from /v1/e-invoicing/auth",
    )
}

/// The D15 body of a 401.
pub(crate) fn unauthorised() -> Response {
    respond::failure(StatusCode::UNAUTHORIZED, UNAUTHORISED, vec![token_message()])
}

/// `POST /v1/e-invoicing/auth`.
pub(crate) async fn authenticate(State(shared): State<Arc<Shared>>, request_body: Body) -> Response {
    let value = match body::read_json(request_body).await {
        Ok(v) => v,
        Err(e) => return e.failure(),
    };
    let problems = fields::check_strings(&value, &["vat_number", "username", "secret"]);
    if !problems.is_empty() {
        return respond::failure(
            StatusCode::BAD_REQUEST,
            "missing or invalid fields",
            Problem::messages(&problems),
        );
    }
    let text = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or_default();
    if !shared
        .account
        .accepts(text("vat_number"), text("username"), text("secret"))
    {
        return respond::failure(
            StatusCode::UNAUTHORIZED,
            "invalid VAT number, username or secret",
            vec![Message::error(
                "INVALID-CREDENTIALS",
                "authentication",
                "the VAT number, username or secret is wrong",
            )],
        );
    }
    let ttl = shared.faults.token_ttl();
    let token = shared.tokens.issue(shared.clock.now(), ttl);
    respond::json(StatusCode::OK, &crate::model::Token { token, expires_in: ttl })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_long_and_expire() {
        let tokens = Tokens::default();
        let now = Utc::now();
        let a = tokens.issue(now, 10);
        let b = tokens.issue(now, 10);
        assert_ne!(a, b);
        assert!(a.expose().len() >= 43, "256 bits in base64url");
        assert!(tokens.check(a.expose(), now));
        assert!(tokens.check(a.expose(), now + TimeDelta::seconds(9)));
        assert!(!tokens.check(a.expose(), now + TimeDelta::seconds(10)));
        assert!(!tokens.check("not-a-token", now));
    }

    #[test]
    fn credentials_must_all_match() {
        let account = Account {
            vat_number: "399999999900003".into(),
            username: "sandbox".into(),
            secret: Secret::new("sandbox-secret"),
            otp: Secret::new("123456"),
        };
        assert!(account.accepts("399999999900003", "sandbox", "sandbox-secret"));
        assert!(!account.accepts("399999999900003", "sandbox", "sandbox-secreT"));
        assert!(!account.accepts("399999999900003", "Sandbox", "sandbox-secret"));
        assert!(!account.accepts("399999999900004", "sandbox", "sandbox-secret"));
        assert!(same("123456", "123456") && !same("123456", "12345"));
    }
}

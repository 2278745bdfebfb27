//! The sandbox authority over real HTTP: every status code of api.md §7 and D16, replays, the hash
//! chain under concurrency, restarts with a state folder, faults, and the `invoicedrop sandbox`
//! binary (its help and its logs). The server runs in-process on an ephemeral port.

#[path = "sandbox_api/authority.rs"]
mod authority;
#[path = "sandbox_api/binary.rs"]
mod binary;
#[path = "sandbox_api/common.rs"]
mod common;
#[path = "sandbox_api/documents.rs"]
mod documents;
#[path = "sandbox_api/faults.rs"]
mod faults;
#[path = "sandbox_api/over_http.rs"]
mod over_http;
#[path = "sandbox_api/state.rs"]
mod state;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use common::*;
use invoicedrop::model::example;
use reqwest::StatusCode;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Authentication (api.md 4.1)

#[tokio::test]
async fn auth_gives_a_random_token_with_its_lifetime_in_seconds() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let creds = json!({"vat_number": "399999999900003", "username": "sandbox", "secret": "sandbox-secret"});
    let a: Value = api
        .post("/v1/e-invoicing/auth", None, &creds)
        .await
        .json()
        .await
        .unwrap();
    let b: Value = api
        .post("/v1/e-invoicing/auth", None, &creds)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(a["expires_in"], 3600);
    let (ta, tb) = (a["token"].as_str().unwrap(), b["token"].as_str().unwrap());
    assert_ne!(ta, tb);
    assert!(ta.len() >= 22, "at least 128 bits: {ta}");
}

#[tokio::test]
async fn auth_400_names_the_missing_field() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let r = api
        .post(
            "/v1/e-invoicing/auth",
            None,
            &json!({"vat_number": "399999999900003", "username": 7}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "Failure");
    let texts: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].as_str().unwrap())
        .collect();
    assert!(texts.iter().any(|t| t.starts_with("secret: missing")), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.starts_with("username: expected a string")),
        "{texts:?}"
    );
    let r = post_text(&api, "/v1/e-invoicing/auth", "not json").await;
    assert_eq!(r, StatusCode::BAD_REQUEST);
}

async fn post_text(api: &Api, path: &str, text: &'static str) -> StatusCode {
    api.http
        .post(format!("{}{path}", api.base))
        .body(text)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn auth_401_for_a_wrong_vat_number_username_or_secret() {
    let s = sandbox().await;
    let api = Api::new(&s);
    for (vat, user, secret) in [
        ("399999999900004", "sandbox", "sandbox-secret"),
        ("399999999900003", "sandbo", "sandbox-secret"),
        ("399999999900003", "sandbox", "sandbox-secreT"),
        ("399999999900003", "sandbox", ""),
    ] {
        let r = api
            .post(
                "/v1/e-invoicing/auth",
                None,
                &json!({"vat_number": vat, "username": user, "secret": secret}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{vat} {user} {secret}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["status"], "Failure");
        assert!(v.get("token").is_none());
    }
}

// ---------------------------------------------------------------------------------------------
// Onboarding (api.md 4.2, D2, D7, D8)

#[tokio::test]
async fn onboarding_401_without_or_with_a_bad_or_expired_token() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let body = Api::onboarding("till-1", "both");
    assert_eq!(
        api.post("/v1/e-invoicing/onboardings", None, &body).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api.post("/v1/e-invoicing/onboardings", Some("made-up"), &body)
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    let token = api.token().await;
    s.advance_clock(3601);
    let r = api.post("/v1/e-invoicing/onboardings", Some(&token), &body).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "Failure");
}

#[tokio::test]
async fn onboarding_400_for_missing_fields_and_a_wrong_otp() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let token = api.token().await;
    let mut body = Api::onboarding("till-1", "both");
    body.as_object_mut().unwrap().remove("email_id");
    body["invoice_type"] = json!("b2b");
    let r = api.post("/v1/e-invoicing/onboardings", Some(&token), &body).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    let text = v["errors"].to_string();
    assert!(
        text.contains("email_id: missing") && text.contains("invoice_type"),
        "{text}"
    );

    let mut wrong = Api::onboarding("till-1", "both");
    wrong["otp"] = json!("654321");
    let r = api.post("/v1/e-invoicing/onboardings", Some(&token), &wrong).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let v: Value = r.json().await.unwrap();
    assert_eq!(codes(&v, "errors"), vec!["INVALID-OTP"]);
    // Nothing was onboarded by the failures: the right OTP still works.
    api.onboard(&token, "till-1", "both").await;
}

#[tokio::test]
async fn onboarding_409_for_the_same_device_twice() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let token = api.token().await;
    let first = api.onboard(&token, "till-1", "standard").await;
    let r = api
        .post(
            "/v1/e-invoicing/onboardings",
            Some(&token),
            &Api::onboarding("till-1", "simplified"),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let v: Value = r.json().await.unwrap();
    assert_eq!(codes(&v, "errors"), vec!["DEVICE-ALREADY-ONBOARDED"]);
    let second = api.onboard(&token, "till-2", "standard").await;
    assert_ne!(first, second);
}

#[tokio::test]
async fn onboard_ids_are_opaque_and_work_percent_encoded() {
    let s = sandbox().await;
    let api = Api::new(&s);
    let token = api.token().await;
    let mut slashed = None;
    for device in ["pos?~", "pos??~", "pos???~"] {
        let id = api.onboard(&token, device, "both").await;
        assert!(id.contains(['=', '/', '+']), "{id}");
        let text = String::from_utf8(STANDARD.decode(&id).unwrap()).unwrap();
        assert!(text.ends_with(&format!(":399999999900003:{device}")), "{text}");
        if id.contains(['/', '+']) {
            slashed = Some(id);
        }
    }
    let id = slashed.expect("one of the ids has a / or a +");
    let doc = ready(example::standard_invoice("ENC-1"));
    let (status, bytes) = api.submit(&token, &id, &doc, None).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&bytes));
}

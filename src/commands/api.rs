//! Reaching the API: the one configured in the environment (D5), or, when none is, the built-in
//! sandbox started in-process on a free loopback port, with its state in `<state>/sandbox/` so
//! that its ledger never mixes with a real API's.

use crate::cli::ApiArgs;
use crate::model::{DeviceType, OnboardingRequest, Party, Secret};
use crate::sandbox::{self, SandboxConfig, SandboxHandle};
use crate::submit::{self, ApiSettings, EnvCredentials, Ledger};
use anyhow::Context as _;
use std::path::PathBuf;
use std::time::Duration;
use tokio::runtime::Runtime;

/// Where documents go, and where their ledger lives.
pub(super) struct Connection {
    /// The API and its settings.
    pub settings: ApiSettings,
    /// The folder of the ledger (and the remembered onboard_id).
    pub ledger_dir: PathBuf,
    /// `INVOICEDROP_ONBOARD_ID`, when set.
    pub onboard_id: Option<String>,
    /// The built-in sandbox, when no API is configured.
    pub sandbox: Option<SandboxHandle>,
}

/// A tokio runtime for the commands that talk to the API.
pub(super) fn runtime() -> anyhow::Result<Runtime> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The configured API, or the built-in sandbox.
pub(super) fn connect(rt: &Runtime, api: &ApiArgs, seller: &Party) -> anyhow::Result<Connection> {
    let env = EnvCredentials::from_env()?;
    let mut conn = if env.api_url.is_none() {
        let dir = api.state.join("sandbox");
        let vat = seller
            .vat_number
            .clone()
            .unwrap_or_else(|| sandbox::DEFAULT_VAT_NUMBER.to_string());
        let config = SandboxConfig {
            bind: "127.0.0.1".into(),
            port: 0,
            state: Some(dir.join("server")),
            vat_number: vat.clone(),
            ..SandboxConfig::default()
        };
        let handle = rt
            .block_on(sandbox::start(config))
            .context("cannot start the built-in sandbox")?;
        eprintln!(
            "note: no API configured (INVOICEDROP_API_URL is not set): using the built-in sandbox at {}. \
             Nothing is sent to the tax authority; documents are signed by the sandbox's own test key.",
            handle.base_url()
        );
        let mut settings = ApiSettings::new(
            handle.base_url(),
            vat,
            sandbox::DEFAULT_USERNAME,
            Secret::new(sandbox::DEFAULT_SECRET),
        );
        settings.rate_per_second = None;
        settings.concurrency = 16;
        Connection {
            settings,
            ledger_dir: dir.join("client"),
            onboard_id: None,
            sandbox: Some(handle),
        }
    } else {
        let onboard_id = env.onboard_id.clone();
        let settings = env.into_settings()?;
        Connection {
            settings,
            ledger_dir: api.state.clone(),
            onboard_id,
            sandbox: None,
        }
    };
    if let Some(rate) = api.rate {
        conn.settings.rate_per_second = (rate > 0).then_some(rate);
    }
    if let Some(c) = api.concurrency {
        conn.settings.concurrency = c.max(1);
    }
    conn.settings.timeout = Duration::from_secs(api.timeout.max(1));
    conn.settings.allow_insecure_http = api.insecure;
    Ok(conn)
}

/// The onboarding request for this seller (api.md 2.3).
pub(super) fn onboarding_request(
    seller: &Party,
    vat_number: &str,
    otp: Secret,
    device_id: &str,
    device_type: DeviceType,
    email: &str,
    business_category: &str,
) -> OnboardingRequest {
    let a = &seller.address;
    let address: Vec<&str> = [
        a.building_number.as_str(),
        a.street_name.as_str(),
        a.city_subdivision_name.as_str(),
        a.city_name.as_str(),
        a.postal_zone.as_str(),
    ]
    .into_iter()
    .filter(|p| !p.trim().is_empty())
    .collect();
    OnboardingRequest {
        otp,
        vat_number: vat_number.to_string(),
        device_id: device_id.to_string(),
        invoice_type: device_type,
        org_name: seller.registration_name.clone(),
        org_unit: if a.city_name.trim().is_empty() {
            "Head office".into()
        } else {
            a.city_name.clone()
        },
        business_category: business_category.to_string(),
        registered_address: address.join(", "),
        country_code: if a.country.trim().is_empty() {
            "SA".into()
        } else {
            a.country.clone()
        },
        email_id: email.to_string(),
    }
}

/// The device to send through: `INVOICEDROP_ONBOARD_ID`, else the one remembered in the ledger,
/// else (built-in sandbox only) a sandbox device onboarded now and remembered.
pub(super) fn device(rt: &Runtime, conn: &Connection, ledger: &Ledger, seller: &Party) -> anyhow::Result<String> {
    if let Some(id) = &conn.onboard_id {
        return Ok(id.clone());
    }
    if let Some(id) = ledger.remembered_onboard_id()? {
        return Ok(id);
    }
    if conn.sandbox.is_none() {
        anyhow::bail!(
            "no device is onboarded for this state folder ({}): run `invoicedrop onboard --otp OTP --device-id ID` once, \
             or set INVOICEDROP_ONBOARD_ID",
            conn.ledger_dir.display()
        );
    }
    let request = onboarding_request(
        seller,
        &conn.settings.vat_number,
        Secret::new(sandbox::DEFAULT_OTP),
        "invoicedrop-built-in",
        DeviceType::Both,
        "einvoicing@example.com",
        "Retail",
    );
    let answer = rt
        .block_on(submit::onboard(&conn.settings, request))
        .context("cannot onboard a device with the built-in sandbox")?;
    ledger.remember_onboard_id(&answer.onboard_id)?;
    Ok(answer.onboard_id)
}

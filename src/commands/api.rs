//! Reaching the API: the one configured in the environment (D5), or, when none is, the built-in
//! sandbox started in-process on a free loopback port, with its state in `<state>/sandbox/` so
//! that its ledger never mixes with a real API's.

use crate::cli::ApiArgs;
use crate::model::{DeviceType, OnboardingRequest, Party, Secret};
use crate::sandbox::{self, SandboxConfig, SandboxHandle};
use crate::submit::{self, ApiSettings, EnvCredentials, Ledger, OnboardedDevice, RememberedDevice};
use crate::validate::DeviceContext;
use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::runtime::Runtime;

/// Where documents go, and where their ledger lives.
pub(super) struct Connection {
    /// The API and its settings.
    pub settings: ApiSettings,
    /// The folder of the ledger (and the remembered onboard_id).
    pub ledger_dir: PathBuf,
    /// With the built-in sandbox, the ledger, opened (and its folder locked) before the sandbox
    /// starts: a second `invoicedrop` on the same state folder is refused before it starts a
    /// sandbox on the state the first one's sandbox is writing. With an API, opened by
    /// [`Connection::ledger`] once the command's own checks pass (a refused command makes no
    /// state folder).
    ledger: Option<Ledger>,
    /// `INVOICEDROP_ONBOARD_ID`, when set.
    pub onboard_id: Option<String>,
    /// The built-in sandbox, when no API is configured.
    pub sandbox: Option<SandboxHandle>,
}

impl Connection {
    /// The ledger of the state folder, locked for the life of this process.
    pub(super) fn ledger(&self) -> Result<Ledger, crate::submit::LedgerError> {
        match &self.ledger {
            Some(l) => Ok(l.clone()),
            None => Ledger::open(&self.ledger_dir),
        }
    }
}

/// A tokio runtime for the commands that talk to the API.
pub(super) fn runtime() -> anyhow::Result<Runtime> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Whether `INVOICEDROP_API_URL` names an API (an empty value counts as unset, as for
/// [`EnvCredentials`]).
pub(super) fn api_configured() -> bool {
    std::env::var(submit::ENV_API_URL).is_ok_and(|v| !v.trim().is_empty())
}

/// With no API configured, refuse a state folder that belongs to an API (QA8 #1): its ledger
/// (`<state>/ledger.sqlite`) records a device, which only a configured API can have put there
/// (the built-in sandbox keeps its ledger in `<state>/sandbox/`). Falling back to the sandbox
/// there would report sandbox answers as the API's, and overwrite the API's result files and
/// signed XML; a scheduler that lost its environment file would see success. Nothing is read or
/// written before this.
pub(super) fn no_sandbox_for_an_api_state(state: &Path) -> anyhow::Result<()> {
    super::folder::state_folder(state)?;
    if api_configured() {
        return Ok(());
    }
    let Some(onboard_id) = Ledger::recorded_device(state)? else {
        return Ok(());
    };
    Err(super::json::Fatal::new(
        super::json::ErrorKind::Config,
        format!(
            "the state folder {} belongs to an API: its device (onboard_id {onboard_id}) was onboarded with a \
             configured API, and INVOICEDROP_API_URL is not set, so the built-in sandbox would stand in for that \
             API; nothing was read, sent or written. Set the API environment (INVOICEDROP_API_URL, \
             INVOICEDROP_VAT_NUMBER, INVOICEDROP_USERNAME and INVOICEDROP_SECRET or INVOICEDROP_SECRET_FILE; \
             under cron or systemd, the environment file), or give --state another folder to try the built-in \
             sandbox",
            state.display()
        ),
    )
    .into())
}

/// The configured API, or the built-in sandbox (never for a state folder that belongs to an
/// API: [`no_sandbox_for_an_api_state`]).
pub(super) fn connect(rt: &Runtime, api: &ApiArgs, seller: &Party) -> anyhow::Result<Connection> {
    super::folder::state_folder(&api.state)?;
    let env = EnvCredentials::from_env()?;
    let mut conn = if env.api_url.is_none() {
        no_sandbox_for_an_api_state(&api.state)?;
        let dir = api.state.join("sandbox");
        let ledger = Some(Ledger::open(&dir.join("client"))?);
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
        crate::logging::note(format_args!(
            "no API configured (INVOICEDROP_API_URL is not set): using the built-in sandbox at {}. \
             Nothing is sent to the tax authority; documents are signed by the sandbox's own test key.",
            handle.base_url()
        ));
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
            ledger,
            onboard_id: None,
            sandbox: Some(handle),
        }
    } else {
        let onboard_id = env.onboard_id.clone();
        let settings = env.into_settings()?;
        Connection {
            settings,
            ledger: None,
            ledger_dir: api.state.clone(),
            onboard_id,
            sandbox: None,
        }
    };
    // The flags' ranges are checked when they are parsed (cli.rs): no limit is `--rate unlimited`.
    if let Some(rate) = api.rate {
        conn.settings.rate_per_second = rate.per_second();
    }
    if let Some(c) = api.concurrency {
        conn.settings.concurrency = c;
    }
    conn.settings.timeout = Duration::from_secs(api.timeout);
    conn.settings.backoff.give_up_after = Duration::from_secs(api.give_up_after);
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

/// Why the documents are not checked against the device before sending (D7, D21): its VAT
/// number and invoice type are not known. Said once, as a note; nothing is blocked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceChecksSkipped {
    /// `INVOICEDROP_ONBOARD_ID` names a device this state folder did not onboard.
    #[error(
        "the device comes from INVOICEDROP_ONBOARD_ID, and {} does not record which VAT number and invoice \
         type it was onboarded with, so documents are sent without checking them against it (D21): \
         the authority rejects those of another seller VAT number or of a type the device may not issue. \
         To have them checked, unset INVOICEDROP_ONBOARD_ID and give --state the folder the device was \
         onboarded into, which keeps both",
        state.display()
    )]
    Override {
        /// The state folder.
        state: PathBuf,
    },
    /// The device was onboarded by an earlier invoicedrop, which kept only its onboard_id.
    #[error(
        "{} records this device's onboard_id but not the VAT number and invoice type it was onboarded \
         with (an earlier invoicedrop onboarded it), so documents are sent without checking them against \
         it (D21): the authority rejects those of another seller VAT number or of a type the device may \
         not issue. Onboarding a new device into this state folder records both (the numbers this one \
         issued are not issued again through the new one)",
        state.display()
    )]
    NotRecorded {
        /// The state folder.
        state: PathBuf,
    },
}

/// The device to send through, and what each document is checked against before it is sent.
pub(super) struct Device {
    /// Its onboard_id.
    pub onboard_id: String,
    /// Its VAT number and invoice type, or why they are not known.
    pub checks: Result<DeviceContext, DeviceChecksSkipped>,
}

impl Device {
    fn known(d: OnboardedDevice) -> Device {
        Device {
            checks: Ok(DeviceContext {
                vat_number: d.vat_number,
                device_type: d.invoice_type,
            }),
            onboard_id: d.onboard_id,
        }
    }
}

/// The device to send through: `INVOICEDROP_ONBOARD_ID`, else the one remembered in the ledger,
/// else (built-in sandbox only) a sandbox device onboarded now and remembered. The override is
/// checked like the remembered device when it is the same one or an earlier device of this state
/// folder; otherwise its VAT number and type are unknown.
pub(super) fn device(rt: &Runtime, conn: &Connection, ledger: &Ledger, seller: &Party) -> anyhow::Result<Device> {
    let remembered = ledger.remembered_device()?;
    let state = || conn.ledger_dir.clone();
    if let Some(id) = &conn.onboard_id {
        return Ok(match remembered {
            Some(RememberedDevice::Known(d)) if d.onboard_id == *id => Device::known(d),
            Some(RememberedDevice::OnboardIdOnly(old)) if old == *id => Device {
                onboard_id: old,
                checks: Err(DeviceChecksSkipped::NotRecorded { state: state() }),
            },
            // An earlier device of this state folder (replaced by a later onboarding).
            _ if let Some(d) = ledger.device(id)? => Device::known(d),
            _ => Device {
                onboard_id: id.clone(),
                checks: Err(DeviceChecksSkipped::Override { state: state() }),
            },
        });
    }
    match remembered {
        Some(RememberedDevice::Known(d)) => return Ok(Device::known(d)),
        Some(RememberedDevice::OnboardIdOnly(id)) => {
            return Ok(Device {
                onboard_id: id,
                checks: Err(DeviceChecksSkipped::NotRecorded { state: state() }),
            });
        }
        None => {}
    }
    if conn.sandbox.is_none() {
        return Err(super::json::Fatal::new(
            super::json::ErrorKind::Device,
            format!(
                "no device is onboarded for this state folder ({}): run `invoicedrop onboard --otp OTP --device-id ID` \
                 once, or set INVOICEDROP_ONBOARD_ID",
                conn.ledger_dir.display()
            ),
        )
        .into());
    }
    // The built-in sandbox's device may issue both types, so that every export can be tried.
    let device_type = DeviceType::Both;
    let request = onboarding_request(
        seller,
        &conn.settings.vat_number,
        Secret::new(sandbox::DEFAULT_OTP),
        "invoicedrop-built-in",
        device_type,
        "einvoicing@example.com",
        "Retail",
    );
    let answer = rt
        .block_on(submit::onboard(&conn.settings, request))
        .context("cannot onboard a device with the built-in sandbox")?;
    let onboarded = OnboardedDevice {
        onboard_id: answer.onboard_id,
        vat_number: conn.settings.vat_number.clone(),
        invoice_type: device_type,
    };
    ledger.remember_device(&onboarded)?;
    Ok(Device::known(onboarded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::submit::OnboardedDevice;

    /// A connection to a configured API (nothing is sent by these tests), with the override.
    fn conn(state: &std::path::Path, onboard_id: Option<&str>, ledger: Option<Ledger>) -> Connection {
        Connection {
            settings: ApiSettings::new(
                "http://127.0.0.1:9",
                sandbox::DEFAULT_VAT_NUMBER,
                "user",
                Secret::new("not-used"),
            ),
            ledger_dir: state.to_path_buf(),
            ledger,
            onboard_id: onboard_id.map(str::to_string),
            sandbox: None,
        }
    }

    fn resolve(state: &std::path::Path, onboard_id: Option<&str>) -> anyhow::Result<Device> {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let ledger = Ledger::open(state).unwrap();
        device(
            &rt,
            &conn(state, onboard_id, Some(ledger.clone())),
            &ledger,
            &crate::model::example::seller(),
        )
    }

    fn standard_only() -> OnboardedDevice {
        OnboardedDevice {
            onboard_id: "b2b==".into(),
            vat_number: "300000000000003".into(),
            invoice_type: DeviceType::Standard,
        }
    }

    #[test]
    fn a_remembered_device_is_checked_also_when_the_override_names_it() {
        let dir = tempfile::tempdir().unwrap();
        Ledger::open(dir.path())
            .unwrap()
            .remember_device(&standard_only())
            .unwrap();
        let want = DeviceContext {
            vat_number: "300000000000003".into(),
            device_type: DeviceType::Standard,
        };
        for named in [None, Some("b2b==")] {
            let d = resolve(dir.path(), named).unwrap();
            assert_eq!(d.onboard_id, "b2b==");
            assert_eq!(d.checks, Ok(want.clone()), "{named:?}");
        }
        // Another device named by the override: its VAT number and type are not known here.
        let d = resolve(dir.path(), Some("other")).unwrap();
        assert_eq!(d.onboard_id, "other");
        let skipped = d.checks.unwrap_err();
        assert_eq!(
            skipped,
            DeviceChecksSkipped::Override {
                state: dir.path().to_path_buf()
            }
        );
        let note = skipped.to_string();
        assert!(
            note.contains("INVOICEDROP_ONBOARD_ID") && note.contains("sent without checking"),
            "{note}"
        );
    }

    #[test]
    fn an_earlier_device_of_the_state_folder_named_by_the_override_is_checked_as_onboarded() {
        let dir = tempfile::tempdir().unwrap();
        {
            let ledger = Ledger::open(dir.path()).unwrap();
            ledger.remember_device(&standard_only()).unwrap();
            ledger
                .remember_device(&OnboardedDevice {
                    onboard_id: "next==".into(),
                    vat_number: "300000000000003".into(),
                    invoice_type: DeviceType::Both,
                })
                .unwrap();
        }
        assert_eq!(resolve(dir.path(), None).unwrap().onboard_id, "next==");
        let d = resolve(dir.path(), Some("b2b==")).unwrap();
        assert_eq!(d.onboard_id, "b2b==");
        assert_eq!(
            d.checks,
            Ok(DeviceContext {
                vat_number: "300000000000003".into(),
                device_type: DeviceType::Standard,
            })
        );
    }

    #[test]
    fn a_device_remembered_by_an_earlier_version_is_not_checked_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        drop(Ledger::open(dir.path()).unwrap());
        {
            let db = rusqlite::Connection::open(dir.path().join("ledger.sqlite")).unwrap();
            db.execute("INSERT INTO meta (key, value) VALUES ('onboard_id', 'old==')", [])
                .unwrap();
        }
        for named in [None, Some("old==")] {
            let d = resolve(dir.path(), named).unwrap();
            assert_eq!(d.onboard_id, "old==");
            let skipped = d.checks.unwrap_err();
            assert!(matches!(skipped, DeviceChecksSkipped::NotRecorded { .. }), "{named:?}");
            let note = skipped.to_string();
            assert!(
                note.contains("an earlier invoicedrop onboarded it") && note.contains("records both"),
                "{note}"
            );
        }
    }

    #[test]
    fn without_a_device_a_configured_api_asks_to_onboard() {
        let dir = tempfile::tempdir().unwrap();
        let e = resolve(dir.path(), None).err().expect("no device");
        assert!(e.to_string().contains("invoicedrop onboard"), "{e}");
    }
}

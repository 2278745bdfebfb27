//! Onboarded devices and their ledgers (D20), in memory or under `--state DIR`:
//!
//! ```text
//! DIR/devices.json                  every onboarded device (rewritten aside, then renamed)
//! DIR/devices/<n>/identity/         the device's signing key and certificate
//! DIR/devices/<n>/journal.jsonl     one line per accepted document, appended and synced before
//!                                   the answer is sent (see [`journal`](super::journal))
//! ```

use super::issue::Identity;
use super::journal::{self, Journal};
use super::replay::Ledger;
use super::server::SandboxError;
use crate::model::DeviceType;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// What the caller told onboarding about a device (api.md 2.3 without the OTP).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Registration {
    /// The VAT number it is onboarded under (D21).
    pub(crate) vat_number: String,
    /// The caller's id of the device.
    pub(crate) device_id: String,
    /// Which documents it may issue (D7).
    pub(crate) invoice_type: DeviceType,
    /// Legal business name.
    pub(crate) org_name: String,
    /// Branch or unit.
    pub(crate) org_unit: String,
    /// Industry category.
    pub(crate) business_category: String,
    /// Registered address.
    pub(crate) registered_address: String,
    /// ISO country code.
    pub(crate) country_code: String,
    /// Contact e-mail.
    pub(crate) email_id: String,
}

/// An onboarded device as devices.json keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DeviceInfo {
    /// The opaque id of the document endpoints' paths (D2).
    pub(crate) onboard_id: String,
    /// The sandbox's own sequence number of the device, from 1.
    pub(crate) seq: u64,
    /// What the caller registered.
    #[serde(flatten)]
    pub(crate) registration: Registration,
    /// When it was onboarded.
    pub(crate) onboarded_at: DateTime<Utc>,
}

/// An onboarded device: what it is, its signing identity, its ledger and counters.
pub(crate) struct Device {
    pub(crate) info: DeviceInfo,
    pub(crate) identity: Identity,
    /// Held across "take position, issue, journal, record" so that no ICV or PIH is ever skipped
    /// or given twice. With a state folder the ledger holds the device's journal.
    pub(crate) ledger: Mutex<Ledger>,
    /// Repeats answered from the ledger since the start.
    pub(crate) replays: AtomicU64,
    /// Of those, the repeats whose idempotency key differs from the one the document was
    /// accepted with (D17: a client must repeat a document with its original key).
    pub(crate) rekeyed_replays: AtomicU64,
    /// Answers 400, 409, 413 and 422 since the start.
    pub(crate) rejections: AtomicU64,
}

impl Device {
    fn new(info: DeviceInfo, identity: Identity, ledger: Ledger) -> Device {
        Device {
            info,
            identity,
            ledger: Mutex::new(ledger),
            replays: AtomicU64::new(0),
            rekeyed_replays: AtomicU64::new(0),
            rejections: AtomicU64::new(0),
        }
    }
}

/// Why onboarding failed.
#[derive(Debug)]
pub(crate) enum OnboardError {
    /// The device id is already onboarded under this VAT number (409).
    AlreadyOnboarded,
    /// The state could not be written or the identity made (500).
    Internal(String),
}

/// Every onboarded device.
pub(crate) struct Devices {
    dir: Option<PathBuf>,
    by_id: RwLock<HashMap<String, Arc<Device>>>,
    /// Onboardings one at a time: the duplicate check, the sequence number and devices.json.
    onboarding: Mutex<()>,
}

/// The opaque id the provider gives (D2): base64 of `<id>:<vat>:<device>`. The id is chosen so
/// that the text's length is not a multiple of 3: the id then always ends in `=`, which callers
/// must percent-encode (and `/` or `+` appear too for many device ids).
fn onboard_id(seq: u64, vat_number: &str, device_id: &str) -> String {
    let mut text = format!("{seq}:{vat_number}:{device_id}");
    if text.len() % 3 == 0 {
        text = format!("0{text}");
    }
    STANDARD.encode(text)
}

fn state_error(path: &Path, message: impl std::fmt::Display) -> SandboxError {
    SandboxError::State {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

fn device_dir(dir: &Path, seq: u64) -> PathBuf {
    dir.join("devices").join(seq.to_string())
}

/// Write a file aside, sync it, and rename it into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    if let Some(parent) = path.parent()
        && let Ok(d) = File::open(parent)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

impl Devices {
    /// Open the state: empty in memory, or every device and ledger under `dir`.
    pub(crate) fn open(dir: Option<&Path>) -> Result<Devices, SandboxError> {
        let devices = Devices {
            dir: dir.map(Path::to_path_buf),
            by_id: RwLock::new(HashMap::new()),
            onboarding: Mutex::new(()),
        };
        let Some(dir) = dir else { return Ok(devices) };
        fs::create_dir_all(dir).map_err(|e| state_error(dir, e))?;
        let list = dir.join("devices.json");
        let infos: Vec<DeviceInfo> = match fs::read(&list) {
            Ok(b) => serde_json::from_slice(&b).map_err(|e| state_error(&list, e))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(state_error(&list, e)),
        };
        let mut map = HashMap::new();
        for info in infos {
            let ddir = device_dir(dir, info.seq);
            let identity_dir = ddir.join("identity");
            let reg = &info.registration;
            let identity = Identity::load_or_create(Some(&identity_dir), &reg.vat_number, &reg.org_name)
                .map_err(|e| state_error(&identity_dir, e))?;
            let path = ddir.join("journal.jsonl");
            let ledger = journal::load(&path).map_err(|e| state_error(&path, e))?;
            let id = info.onboard_id.clone();
            map.insert(id, Arc::new(Device::new(info, identity, ledger)));
        }
        *devices.by_id.write().unwrap_or_else(PoisonError::into_inner) = map;
        Ok(devices)
    }

    /// The device of an onboard id.
    pub(crate) fn get(&self, onboard_id: &str) -> Option<Arc<Device>> {
        self.by_id
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(onboard_id)
            .cloned()
    }

    /// Every device, in onboarding order.
    pub(crate) fn all(&self) -> Vec<Arc<Device>> {
        let mut all: Vec<Arc<Device>> = self
            .by_id
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect();
        all.sort_by_key(|d| d.info.seq);
        all
    }

    /// Onboard a device: refuse a device id already onboarded under the VAT number, make its
    /// identity, and record it (in devices.json first, when there is a state folder).
    pub(crate) fn onboard(&self, new: Registration, now: DateTime<Utc>) -> Result<Arc<Device>, OnboardError> {
        let _one_at_a_time = self.onboarding.lock().unwrap_or_else(PoisonError::into_inner);
        let existing = self.all();
        if existing
            .iter()
            .any(|d| d.info.registration.vat_number == new.vat_number && d.info.registration.device_id == new.device_id)
        {
            return Err(OnboardError::AlreadyOnboarded);
        }
        let seq = existing.iter().map(|d| d.info.seq).max().unwrap_or(0) + 1;
        let info = DeviceInfo {
            onboard_id: onboard_id(seq, &new.vat_number, &new.device_id),
            seq,
            registration: new,
            onboarded_at: now,
        };
        let (vat_number, org_name) = (&info.registration.vat_number, &info.registration.org_name);
        let internal = |e: &dyn std::fmt::Display| OnboardError::Internal(e.to_string());
        let (identity, journal) = match &self.dir {
            None => (
                Identity::load_or_create(None, vat_number, org_name).map_err(|e| internal(&e))?,
                None,
            ),
            Some(dir) => {
                let ddir = device_dir(dir, seq);
                // A folder for this number is a leftover of an onboarding that never reached
                // devices.json: start it afresh.
                if ddir.exists() {
                    fs::remove_dir_all(&ddir).map_err(|e| internal(&format!("{}: {e}", ddir.display())))?;
                }
                let identity_dir = ddir.join("identity");
                fs::create_dir_all(&identity_dir).map_err(|e| internal(&format!("{}: {e}", identity_dir.display())))?;
                let identity =
                    Identity::load_or_create(Some(&identity_dir), vat_number, org_name).map_err(|e| internal(&e))?;
                let path = ddir.join("journal.jsonl");
                let journal = Journal::open(&path).map_err(|e| internal(&format!("{}: {e}", path.display())))?;
                let mut infos: Vec<DeviceInfo> = existing.iter().map(|d| d.info.clone()).collect();
                infos.push(info.clone());
                let list = dir.join("devices.json");
                let bytes = serde_json::to_vec_pretty(&infos).map_err(|e| internal(&e))?;
                write_atomically(&list, &bytes).map_err(|e| internal(&format!("{}: {e}", list.display())))?;
                (identity, Some(journal))
            }
        };
        let device = Arc::new(Device::new(info, identity, Ledger::new(journal)));
        self.by_id
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(device.info.onboard_id.clone(), device.clone());
        Ok(device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onboard_ids_always_need_percent_encoding() {
        for device in ["a", "ab", "abc", "till-1", "POS/7", "x?y"] {
            let id = onboard_id(1, "399999999900003", device);
            assert!(id.contains(['=', '/', '+']), "{id}");
            let text = String::from_utf8(STANDARD.decode(&id).unwrap()).unwrap();
            assert!(text.ends_with(&format!(":399999999900003:{device}")), "{text}");
        }
    }
}

//! Authentication and onboarding bodies (api.md 2.1 to 2.4).

use super::Secret;
use serde::{Deserialize, Serialize};

/// The auth request (api.md 2.1).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Credentials {
    /// The organisation's 15-digit VAT number.
    pub vat_number: String,
    /// The API user name.
    pub username: String,
    /// The API secret; never printed.
    pub secret: Secret,
}

/// The auth response (api.md 2.2). `expires_in` is in seconds (D4).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Token {
    /// The bearer token; never printed.
    pub token: Secret,
    /// Lifetime in seconds.
    pub expires_in: u64,
}

/// What kind of documents a device may issue (api.md 2.3, D7).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum DeviceType {
    /// B2B documents, cleared in real time.
    Standard,
    /// B2C documents, reported within 24 hours.
    Simplified,
    /// Either.
    Both,
}

impl DeviceType {
    /// Whether a device of this type may issue a document of the given type.
    pub fn allows(self, t: super::InvoiceType) -> bool {
        matches!(
            (self, t),
            (DeviceType::Both, _)
                | (DeviceType::Standard, super::InvoiceType::Standard)
                | (DeviceType::Simplified, super::InvoiceType::Simplified)
        )
    }
}

/// The onboarding request (api.md 2.3); every field is required.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OnboardingRequest {
    /// One-time password; treated as a secret.
    pub otp: Secret,
    /// The organisation's VAT number.
    pub vat_number: String,
    /// The caller's identifier for this device.
    pub device_id: String,
    /// Which documents the device will issue.
    pub invoice_type: DeviceType,
    /// Legal business name.
    pub org_name: String,
    /// Branch or unit name.
    pub org_unit: String,
    /// Industry category.
    pub business_category: String,
    /// Registered business address.
    pub registered_address: String,
    /// ISO country code.
    pub country_code: String,
    /// Contact e-mail.
    pub email_id: String,
}

/// The onboarding response (api.md 2.4).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OnboardingResponse {
    /// Opaque device id for the document endpoints' paths (D2): never build or parse it.
    pub onboard_id: String,
    /// `success` on success.
    pub status: String,
}

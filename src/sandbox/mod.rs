//! The sandbox authority: the server side of the API (spec/api.md, spec/decisions.md), with the
//! authority's UBL XML, hash chain, signature and QR. Depends on `model`, `compute` and
//! `validate` only, never on the client side.
//!
//! [`start`] runs it in-process (tests, and `invoicedrop run` with no API configured);
//! `invoicedrop sandbox` runs it as a server. Endpoints:
//!
//! ```text
//! POST /v1/e-invoicing/auth                          token (D4 to D6)
//! POST /v1/e-invoicing/onboardings                   onboard_id (D2, D7, D8)
//! POST /v1/e-invoicing/{onboard_id}/invoices         \
//! POST /v1/e-invoicing/{onboard_id}/credit-notes      > issue a document (D10, D14 to D21)
//! POST /v1/e-invoicing/{onboard_id}/debit-notes      /
//! ```
//!
//! plus the test API of [`control`](self::control) under `/sandbox/`.

// Document production (UBL XML, invoice hash, XAdES signature, certificate, QR).
pub mod hash;
pub mod identity;
pub mod issue;
pub mod qr;
pub mod signature;
pub mod ubl;
mod xml;

// The server: routes, state, faults.
mod auth;
mod body;
mod conn;
pub mod control;
mod documents;
pub mod faults;
mod fields;
mod journal;
mod onboarding;
mod replay;
mod respond;
mod server;
mod state;

pub use control::{DeviceStats, DocumentSummary, Stats};
pub use faults::{Faults, FaultsUpdate};
pub use server::{
    DEFAULT_OTP, DEFAULT_SECRET, DEFAULT_USERNAME, DEFAULT_VAT_NUMBER, SECRET_ENV, SandboxConfig, SandboxError,
    SandboxHandle, start,
};

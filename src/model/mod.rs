//! The API's JSON documents, exactly as spec/api.md and spec/decisions.md name them.
//!
//! Amounts are [`rust_decimal::Decimal`] everywhere and travel as JSON numbers (D12).
//! This module depends on nothing else in the crate.

pub mod amount;
mod auth;
mod diff;
mod document;
mod response;
mod secret;

pub use auth::{Credentials, DeviceType, OnboardingRequest, OnboardingResponse, Token};
pub use diff::{differences, same_content};
pub use document::{
    Address, AllowanceCharge, AllowanceCharges, Code, CreditedBefore, CreditedNote, Document, DocumentKind,
    InvoiceType, IssuedTotal, Item, LegalMonetaryTotal, Line, LineAllowanceCharge, LineTaxTotal, Party,
    PartyIdentification, Price, PriceAllowanceCharge, TaxCategory, TaxSubtotal, TaxTotal,
};
pub use response::{FailureBody, Message, Messages, SubmissionResponse};
pub use secret::Secret;

pub mod example;

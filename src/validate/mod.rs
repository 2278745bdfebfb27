//! The authority's rules that can be checked before sending, plus this project's own (`INV-...`).
//!
//! Every finding has the authority's rule id as its code, a severity, the path of the field it is
//! about (`invoice_lines[2].price.price_per_unit`) and a message a clerk understands.
//!
//! TEMPORARY: this is a minimal stand-in with the interface of the `validate` branch, so that the
//! sandbox server can be built and tested in parallel. It checks only D21 (supplier VAT against
//! the device's), D7 (document type against the device's), BR-CO-15 and BR-KSA-98. The real module
//! replaces this file at merge.

mod finding;

pub use finding::{Finding, Severity};

use crate::model::{DeviceType, Document, InvoiceType};
use chrono::{DateTime, FixedOffset, TimeDelta, Utc};

/// What the rules need to know besides the document.
#[derive(Debug, Clone)]
pub struct Context {
    /// The time of the check (BR-KSA-98 and other date rules).
    pub now: DateTime<Utc>,
    /// The device the document will be sent from, when known (D7, D21).
    pub device: Option<DeviceContext>,
    /// The totals the ERP exported, to compare with the computed ones.
    pub erp: Option<ErpFigures>,
}

impl Context {
    /// A context with only the time.
    pub fn new(now: DateTime<Utc>) -> Self {
        Context {
            now,
            device: None,
            erp: None,
        }
    }
}

/// The onboarded device (D7, D21).
#[derive(Debug, Clone)]
pub struct DeviceContext {
    /// The VAT number the device was onboarded for.
    pub vat_number: String,
    /// Which documents it may issue.
    pub device_type: DeviceType,
}

/// Totals as the ERP exported them (TEMPORARY: empty in this stand-in).
#[derive(Debug, Clone, Default)]
pub struct ErpFigures {}

/// Check a document; every broken rule is one finding.
pub fn validate(doc: &Document, ctx: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(device) = &ctx.device {
        let seller = doc.supplier_info.vat_number.as_deref().unwrap_or_default();
        if seller != device.vat_number {
            out.push(Finding::error(
                "certificate-permissions",
                "supplier_info.vat_number",
                Some(seller.to_string()),
                format!(
                    "User only allowed to use the vat number that exists in the authentication certificate ({})",
                    device.vat_number
                ),
            ));
        }
        if !device.device_type.allows(doc.invoice_type) {
            out.push(Finding::error(
                "DEVICE-TYPE-NOT-ALLOWED",
                doc.kind.type_key(),
                Some(doc.invoice_type.to_string()),
                format!("the device is not onboarded for {} documents", doc.invoice_type),
            ));
        }
    }
    let lmt = &doc.legal_monitory_total;
    if lmt.tax_exclusive_amount.checked_add(doc.tax_total.tax_amount) != Some(lmt.tax_inclusive_amount) {
        out.push(Finding::error(
            "BR-CO-15",
            "legal_monitory_total.tax_inclusive_amount",
            Some(lmt.tax_inclusive_amount.to_string()),
            "the total with VAT must be the total without VAT plus the VAT total",
        ));
    }
    if doc.invoice_type == InvoiceType::Simplified {
        let riyadh = FixedOffset::east_opt(3 * 3600).expect("a valid offset");
        let issued = doc
            .issue_date
            .and_time(doc.issue_time)
            .and_local_timezone(riyadh)
            .single();
        if let Some(issued) = issued
            && ctx.now.signed_duration_since(issued) > TimeDelta::hours(24)
        {
            out.push(Finding::warning(
                "BR-KSA-98",
                "issue_date",
                Some(doc.issue_date.to_string()),
                "the simplified document is reported more than 24 hours after it was issued",
            ));
        }
    }
    out
}

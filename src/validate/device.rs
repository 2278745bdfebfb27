//! The device a document goes through (D7, D21): the seller's VAT number must be the one the
//! device was onboarded with, and the device must be onboarded for the document's type. The
//! client checks both before sending (a document that fails is `invalid`, never sent); the
//! sandbox answers 422 with the same findings.

use super::rules::*;
use super::support::val;
use super::{Context, Finding};
use crate::model::{DeviceType, Document, DocumentKind, InvoiceType};
use crate::text::Trimmed;

/// The code of a document of a type the device was not onboarded for (D7).
pub const TYPE_NOT_ALLOWED_CODE: &str = DEVICE_TYPE_NOT_ALLOWED.code;

/// Why a document may not go through a device; its text is the finding's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceMismatch {
    /// The device was not onboarded for this document type (D7).
    #[error(
        "this device (onboarded as {}-only) may not issue {document} {}s: onboard a {document}-only \
         device (--invoice-type {document}) in a state folder of its own and send them through it (not \
         --invoice-type both: another state folder's ledger does not know what this one issued, so a \
         device for both would issue this export's other documents a second time), or leave them out of \
         this export",
        device_name(*device),
        kind.label()
    )]
    TypeNotAllowed {
        /// What the device was onboarded for.
        device: DeviceType,
        /// The document's type.
        document: InvoiceType,
        /// Invoice, credit or debit note.
        kind: DocumentKind,
    },
    /// The seller's VAT number is not the device's (D21).
    #[error(
        "the seller VAT number {seller:?} is not {device:?}, the VAT number this device was onboarded \
         with: fix the seller's vat_number ([seller] in invoicedrop.toml), or onboard a device for \
         {seller:?} (INVOICEDROP_VAT_NUMBER) and send these documents through it"
    )]
    VatNumber {
        /// The document's seller VAT number (trimmed; empty when there is none).
        seller: String,
        /// The device's.
        device: String,
    },
}

fn device_name(t: DeviceType) -> &'static str {
    match t {
        DeviceType::Standard => "standard",
        DeviceType::Simplified => "simplified",
        DeviceType::Both => "both",
    }
}

/// What keeps `doc` from going through the device, VAT number first.
pub fn mismatches(doc: &Document, vat_number: &str, device_type: DeviceType) -> Vec<DeviceMismatch> {
    let mut out = Vec::new();
    let seller = doc.supplier_info.vat_number.as_deref().unwrap_or("").trimmed();
    if seller != vat_number.trimmed() {
        out.push(DeviceMismatch::VatNumber {
            seller: seller.to_string(),
            device: vat_number.trimmed().to_string(),
        });
    }
    if !device_type.allows(doc.invoice_type) {
        out.push(DeviceMismatch::TypeNotAllowed {
            device: device_type,
            document: doc.invoice_type,
            kind: doc.kind,
        });
    }
    out
}

pub(super) fn check(doc: &Document, ctx: &Context, out: &mut Vec<Finding>) {
    let Some(device) = &ctx.device else { return };
    for m in mismatches(doc, &device.vat_number, device.device_type) {
        let finding = match &m {
            DeviceMismatch::VatNumber { seller, .. } => {
                CERTIFICATE_PERMISSIONS.at("supplier_info.vat_number", val(seller), m.to_string())
            }
            DeviceMismatch::TypeNotAllowed { document, .. } => {
                DEVICE_TYPE_NOT_ALLOWED.at(doc.kind.type_key(), val(document.as_str()), m.to_string())
            }
        };
        out.push(finding);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{Context, DeviceContext, Severity};
    use super::*;

    fn with_device(vat: &str, device_type: DeviceType) -> Context {
        Context {
            device: Some(DeviceContext {
                vat_number: vat.into(),
                device_type,
            }),
            ..ctx()
        }
    }

    #[test]
    fn certificate_permissions() {
        let d = standard();
        let ok = super::super::validate(&d, &with_device(crate::model::example::SELLER_VAT, DeviceType::Both));
        assert!(ok.is_empty(), "{ok:?}");
        let bad = super::super::validate(&d, &with_device("300000000000003", DeviceType::Both));
        let f = assert_has(&bad, "certificate-permissions", Severity::Error);
        assert_eq!(f.path, "supplier_info.vat_number");
        assert_eq!(f.value.as_deref(), Some(crate::model::example::SELLER_VAT));
        assert_eq!(
            f.message,
            "the seller VAT number \"399999999900003\" is not \"300000000000003\", the VAT number this device \
             was onboarded with: fix the seller's vat_number ([seller] in invoicedrop.toml), or onboard a \
             device for \"399999999900003\" (INVOICEDROP_VAT_NUMBER) and send these documents through it"
        );
        // Surrounding spaces are no difference.
        let ok = super::super::validate(
            &d,
            &with_device(&format!(" {} ", crate::model::example::SELLER_VAT), DeviceType::Both),
        );
        assert_lacks(&ok, "certificate-permissions");
    }

    #[test]
    fn device_type_not_allowed() {
        let vat = crate::model::example::SELLER_VAT;
        let ok = super::super::validate(&simplified(), &with_device(vat, DeviceType::Simplified));
        assert_lacks(&ok, "DEVICE-TYPE-NOT-ALLOWED");
        let bad = super::super::validate(&standard(), &with_device(vat, DeviceType::Simplified));
        let f = assert_has(&bad, "DEVICE-TYPE-NOT-ALLOWED", Severity::Error);
        assert_eq!(f.path, "invoice_type");
        assert_eq!(f.value.as_deref(), Some("standard"));
        assert_eq!(
            f.message,
            "this device (onboarded as simplified-only) may not issue standard invoices: onboard a \
             standard-only device (--invoice-type standard) in a state folder of its own and send them \
             through it (not --invoice-type both: another state folder's ledger does not know what this one \
             issued, so a device for both would issue this export's other documents a second time), or leave \
             them out of this export"
        );
        let bad = super::super::validate(&credit(), &with_device(vat, DeviceType::Simplified));
        let f = assert_has(&bad, "DEVICE-TYPE-NOT-ALLOWED", Severity::Error);
        assert_eq!(f.path, "creditnote_type");
        assert!(
            f.message.contains("may not issue standard credit notes"),
            "{}",
            f.message
        );
        let bad = super::super::validate(&simplified(), &with_device(vat, DeviceType::Standard));
        let f = assert_has(&bad, "DEVICE-TYPE-NOT-ALLOWED", Severity::Error);
        assert!(
            f.message
                .starts_with("this device (onboarded as standard-only) may not issue simplified invoices: "),
            "{}",
            f.message
        );
    }

    #[test]
    fn a_device_for_both_types_and_the_sellers_vat_number_lets_everything_through() {
        let vat = crate::model::example::SELLER_VAT;
        for d in [standard(), simplified(), credit()] {
            assert!(mismatches(&d, vat, DeviceType::Both).is_empty());
        }
        // Without a device (an offline check), nothing is said of one.
        assert_lacks(
            &super::super::validate(&simplified(), &ctx()),
            "DEVICE-TYPE-NOT-ALLOWED",
        );
        assert_lacks(
            &super::super::validate(&simplified(), &ctx()),
            "certificate-permissions",
        );
    }

    #[test]
    fn both_mismatches_are_said_vat_number_first() {
        let m = mismatches(&simplified(), "300000000000003", DeviceType::Standard);
        assert!(
            matches!(
                m.as_slice(),
                [
                    DeviceMismatch::VatNumber { .. },
                    DeviceMismatch::TypeNotAllowed {
                        device: DeviceType::Standard,
                        document: InvoiceType::Simplified,
                        kind: DocumentKind::Invoice
                    }
                ]
            ),
            "{m:?}"
        );
    }
}

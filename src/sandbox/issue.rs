//! Issuing a document: the signed UBL 2.1 XML, its invoice hash, the QR payload and the file name.
//!
//! [`issue`] writes the canonical text the invoice hash covers once ([`super::ubl`]), hashes it,
//! signs the hash once, and inserts the signature block, the QR reference and `cac:Signature`
//! into that same text. No DOM and no canonicaliser run at issue time. It is a pure function of its
//! arguments and the [`Identity`], which is `Send + Sync`, so many threads can issue at once.

use super::hash::{base64, sha256};
use super::qr::{self, QrFields};
use super::signature::{self, SignatureParts};
use super::ubl::{self, DECLARATION, SIGNATURE_REFERENCE};
use super::xml::escaped;
use crate::model::Document;
use std::path::PathBuf;

pub use super::identity::Identity;
pub use super::qr::decode_tlv;

/// The previous invoice hash of a device's first document (zatca.md §4): base64 of the hex
/// SHA-256 of `"0"`.
pub const GENESIS_PIH: &str =
    "NWZlY2ViNjZmZmM4NmYzOGQ5NTI3ODZjNmQ2OTZjNzljMmRiYzIzOWRkNGU5MWI0NjcyOWQ3M2EyN2ZiNTdlOQ==";

/// Where a document sits in its device's chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainPosition {
    /// The invoice counter value (KSA-16) of this document.
    pub icv: u64,
    /// The previous document's invoice hash (KSA-13), base64; [`GENESIS_PIH`] for the first.
    pub pih: String,
}

/// An issued document.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The document's UUID (KSA-1), as passed in.
    pub uuid: uuid::Uuid,
    /// The signed UBL XML, UTF-8.
    pub xml: Vec<u8>,
    /// The invoice hash: base64 of the raw SHA-256; the next document's PIH.
    pub invoice_hash: String,
    /// The QR payload: base64 of the TLV records.
    pub qr: String,
    /// The file name the authority's standard gives the XML (zatca.md §1.14).
    pub file_name: String,
}

/// Why a document could not be issued, or an identity loaded.
#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    /// Reading or writing an identity file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The private key could not be read or written.
    #[error("signing key: {0}")]
    Key(String),
    /// The certificate could not be read, built or written.
    #[error("certificate: {0}")]
    Certificate(String),
    /// The stored certificate is not the stored key's.
    #[error("the certificate in {} does not belong to the private key beside it", dir.display())]
    KeyMismatch {
        /// The identity folder (empty when the key and certificate were given directly).
        dir: PathBuf,
    },
    /// Only one of the two identity files exists.
    #[error("{} exists but {} does not; restore it or remove both to create a new identity", present.display(), missing.display())]
    IncompleteIdentity {
        /// The file that exists.
        present: PathBuf,
        /// The file that is missing.
        missing: PathBuf,
    },
    /// A value holds a character XML cannot carry.
    #[error("{element}: the character U+{code_point:04X} cannot appear in XML; remove it from the value")]
    InvalidCharacter {
        /// The XML element of the value.
        element: String,
        /// The character.
        code_point: u32,
    },
    /// The seller has no VAT number.
    #[error("supplier_info.vat_number is missing")]
    MissingSellerVat,
    /// A foreign-currency document lacks its VAT total in the tax currency (BT-111).
    #[error(
        "tax_total.tax_amount_in_tax_currency is missing: a document in {currency} needs its VAT total in {tax_currency}"
    )]
    MissingTaxCurrencyTotal {
        /// The document currency.
        currency: String,
        /// The tax currency.
        tax_currency: String,
    },
    /// `payment_means` is neither a code nor a known alias (D13).
    #[error("payment_means {0:?} is neither a UN/ECE 4461 code nor one of cash, credit, bank-payment, card")]
    UnknownPaymentMeans(String),
    /// A price-level charge, which the authority forbids (BR-KSA-EN16931-06).
    #[error("invoice_lines[{line}].price.allowance_charge: a price-level charge is not allowed (BR-KSA-EN16931-06)")]
    PriceLevelCharge {
        /// The index of the line.
        line: usize,
    },
    /// A QR value does not fit the one-byte TLV length.
    #[error("QR tag {tag}: the value is {len} bytes, a QR field holds at most 255 (shorten the seller name?)")]
    QrFieldTooLong {
        /// The TLV tag.
        tag: u8,
        /// The value's length in bytes.
        len: usize,
    },
    /// The QR payload is longer than the authority accepts (BR-CL-KSA-14).
    #[error("the QR payload is {len} base64 characters; at most 1000 are accepted (BR-CL-KSA-14)")]
    QrTooLong {
        /// Its length.
        len: usize,
    },
    /// TLV bytes cut short.
    #[error("QR data is cut short in the record at byte {offset}")]
    MalformedTlv {
        /// Where the broken record starts.
        offset: usize,
    },
    /// The signing operation failed.
    #[error("signing failed: {0}")]
    Signing(String),
    /// A signature does not verify.
    #[error("the signature does not match the invoice hash and certificate")]
    BadSignature,
}

/// Build the signed UBL XML of a computed, validated document.
///
/// `signing_time` is the `xades:SigningTime` (local Riyadh time, no zone). The XML, hash and QR
/// depend only on the arguments: the same inputs give the same bytes (ECDSA is deterministic).
pub fn issue(
    doc: &Document,
    uuid: uuid::Uuid,
    chain: &ChainPosition,
    identity: &Identity,
    signing_time: chrono::NaiveDateTime,
) -> Result<Issued, IssueError> {
    let seller_vat = doc
        .supplier_info
        .vat_number
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or(IssueError::MissingSellerVat)?;
    let file_name = file_name(seller_vat, doc);
    let unsigned = ubl::write_unsigned(doc, &uuid, chain)?;

    let raw_hash = sha256(unsigned.body.as_bytes());
    let hash = base64(&raw_hash);
    let signature_value = signature::sign(identity, &raw_hash)?;
    let signing_time = signing_time.format("%Y-%m-%dT%H:%M:%S").to_string();
    let issuer_name = escaped(identity.issuer_name(), "ds:X509IssuerName")?;
    let signed_properties_digest = signature::signed_properties_digest(
        &signing_time,
        identity.certificate_digest(),
        &issuer_name,
        identity.serial_decimal(),
    );
    let extensions = signature::ubl_extensions(
        identity,
        &SignatureParts {
            invoice_hash: &hash,
            signature_value: &signature_value,
            signing_time: &signing_time,
            issuer_name: &issuer_name,
            signed_properties_digest: &signed_properties_digest,
        },
    );

    let timestamp = format!(
        "{}T{}",
        doc.issue_date.format("%Y-%m-%d"),
        doc.issue_time.format("%H:%M:%S")
    );
    let qr = qr::payload(&QrFields {
        seller_name: &doc.supplier_info.registration_name,
        seller_vat,
        timestamp: &timestamp,
        payable: &unsigned.payable_text,
        vat_total: &unsigned.vat_in_tax_currency_text,
        invoice_hash: &hash,
        signature_value: &signature_value,
        public_key: identity.public_key_der(),
        certificate_signature: ubl::is_simplified(doc).then(|| identity.certificate_signature()),
    })?;
    let qr_element = ubl::qr_reference(&qr);

    let body = &unsigned.body;
    let mut xml = String::with_capacity(
        DECLARATION.len() + body.len() + extensions.len() + qr_element.len() + SIGNATURE_REFERENCE.len(),
    );
    xml.push_str(DECLARATION);
    xml.push_str(&body[..unsigned.extensions_at]);
    xml.push_str(&extensions);
    xml.push_str(&body[unsigned.extensions_at..unsigned.qr_at]);
    xml.push_str(&qr_element);
    xml.push_str(&body[unsigned.qr_at..unsigned.signature_at]);
    xml.push_str(SIGNATURE_REFERENCE);
    xml.push_str(&body[unsigned.signature_at..]);

    Ok(Issued {
        uuid,
        xml: xml.into_bytes(),
        invoice_hash: hash,
        qr,
        file_name,
    })
}

/// The file name of a document's XML (zatca.md §1.14):
/// `<seller VAT>_<yyyymmdd>T<hhmmss>_<number>.xml`, where every character of the number other
/// than an ASCII letter or digit becomes `-`.
pub fn file_name(seller_vat: &str, doc: &Document) -> String {
    let number: String = doc
        .number
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!(
        "{}_{}T{}_{}.xml",
        seller_vat.trim(),
        doc.issue_date.format("%Y%m%d"),
        doc.issue_time.format("%H%M%S"),
        number
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::compute_document;
    use crate::model::example;

    fn identity() -> &'static Identity {
        static ID: std::sync::OnceLock<Identity> = std::sync::OnceLock::new();
        ID.get_or_init(|| Identity::load_or_create(None, example::SELLER_VAT, "Sandbox").unwrap())
    }

    fn chain() -> ChainPosition {
        ChainPosition {
            icv: 1,
            pih: GENESIS_PIH.into(),
        }
    }

    fn time() -> chrono::NaiveDateTime {
        chrono::NaiveDate::from_ymd_opt(2026, 11, 1)
            .and_then(|d| d.and_hms_opt(10, 30, 5))
            .unwrap()
    }

    fn computed(mut doc: Document) -> Document {
        compute_document(&mut doc).unwrap();
        doc
    }

    #[test]
    fn identity_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Identity>();
        check::<Issued>();
    }

    #[test]
    fn file_name_per_the_standard() {
        let mut doc = example::standard_invoice("2021-05-26/23555 ش");
        doc.issue_time = chrono::NaiveTime::from_hms_opt(13, 24, 0).unwrap();
        assert_eq!(
            file_name(example::SELLER_VAT, &doc),
            "399999999900003_20261101T132400_2021-05-26-23555--.xml"
        );
    }

    #[test]
    fn same_inputs_give_the_same_bytes() {
        let doc = computed(example::standard_invoice("INV-1"));
        let uuid = uuid::Uuid::from_u128(7);
        let a = issue(&doc, uuid, &chain(), identity(), time()).unwrap();
        let b = issue(&doc, uuid, &chain(), identity(), time()).unwrap();
        assert_eq!(a.xml, b.xml);
        assert_eq!(a.invoice_hash, b.invoice_hash);
        assert_eq!(a.file_name, "399999999900003_20261101T103000_INV-1.xml");
    }

    #[test]
    fn the_hash_ignores_signature_qr_and_signing_time_but_not_content() {
        let doc = computed(example::standard_invoice("INV-1"));
        let uuid = uuid::Uuid::from_u128(7);
        let a = issue(&doc, uuid, &chain(), identity(), time()).unwrap();
        let later = time() + chrono::Duration::seconds(1);
        let b = issue(&doc, uuid, &chain(), identity(), later).unwrap();
        assert_eq!(a.invoice_hash, b.invoice_hash);
        assert_ne!(a.xml, b.xml);
        let next = ChainPosition {
            icv: 2,
            pih: a.invoice_hash.clone(),
        };
        let c = issue(&doc, uuid, &next, identity(), time()).unwrap();
        assert_ne!(a.invoice_hash, c.invoice_hash);
    }

    #[test]
    fn escaping_and_arabic_text() {
        let mut doc = example::standard_invoice("A&B<1>");
        doc.note = Some("a \"quoted\" & <tagged> note\r\nسطر".into());
        let doc = computed(doc);
        let issued = issue(&doc, uuid::Uuid::from_u128(1), &chain(), identity(), time()).unwrap();
        let xml = String::from_utf8(issued.xml).unwrap();
        assert!(xml.contains("<cbc:ID>A&amp;B&lt;1&gt;</cbc:ID>"));
        assert!(xml.contains("<cbc:Note>a \"quoted\" &amp; &lt;tagged&gt; note&#xD;\nسطر</cbc:Note>"));
        assert!(xml.contains("قلم رصاص | Pencil"));
        assert!(!xml.contains("/>\n    <cbc:ProfileID"));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let mut doc = computed(example::standard_invoice("X"));
        doc.invoice_lines[0].item.name = "bell\u{7}".into();
        let err = issue(&doc, uuid::Uuid::nil(), &chain(), identity(), time()).unwrap_err();
        assert!(matches!(err, IssueError::InvalidCharacter { .. }), "{err}");

        let mut doc = computed(example::standard_invoice("X"));
        doc.payment_means = Some("cheque please".into());
        let err = issue(&doc, uuid::Uuid::nil(), &chain(), identity(), time()).unwrap_err();
        assert!(matches!(err, IssueError::UnknownPaymentMeans(_)), "{err}");

        let mut doc = computed(example::standard_invoice("X"));
        std::sync::Arc::make_mut(&mut doc.supplier_info).registration_name = "ش".repeat(130);
        let err = issue(&doc, uuid::Uuid::nil(), &chain(), identity(), time()).unwrap_err();
        assert!(matches!(err, IssueError::QrFieldTooLong { tag: 1, len: 260 }), "{err}");

        let mut doc = computed(example::standard_invoice("X"));
        std::sync::Arc::make_mut(&mut doc.supplier_info).vat_number = None;
        let err = issue(&doc, uuid::Uuid::nil(), &chain(), identity(), time()).unwrap_err();
        assert!(matches!(err, IssueError::MissingSellerVat), "{err}");

        let mut doc = computed(example::standard_invoice("X"));
        doc.doc_currency_code = "USD".into();
        doc.tax_total.tax_amount_in_tax_currency = None;
        let err = issue(&doc, uuid::Uuid::nil(), &chain(), identity(), time()).unwrap_err();
        assert!(matches!(err, IssueError::MissingTaxCurrencyTotal { .. }), "{err}");
    }

    #[test]
    fn payment_means_aliases() {
        for (alias, code) in [
            ("cash", "10"),
            ("credit", "30"),
            ("bank-payment", "42"),
            ("card", "48"),
            ("42", "42"),
        ] {
            assert_eq!(ubl::payment_means_code(alias).unwrap(), code);
        }
    }
}

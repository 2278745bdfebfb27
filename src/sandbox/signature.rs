//! The XAdES signature block of zatca.md §5, and ECDSA signing and verification.
//!
//! What the authority signs is not standard XMLDSig: `ds:SignatureValue` is the DER ECDSA
//! secp256k1 signature, "SHA256withECDSA", over the **32 raw bytes of the invoice hash**, i.e.
//! ECDSA over SHA-256(raw invoice hash) (zatca.md §5.2, verified against the SDK samples). With
//! k256 that is `Signer::sign(&raw_hash)`, which hashes its message with SHA-256 itself, and
//! `Verifier::verify(&raw_hash, ..)` on the other side.
//!
//! The SignedProperties digest is the SHA-256 of a literal text (not of its C14N form), given as
//! base64 of the lowercase hex (zatca.md §5.4); [`signed_properties_text`] builds that text.

use super::hash::{base64, hex_digest_base64};
use super::identity::Identity;
use super::issue::IssueError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use k256::ecdsa::signature::{Signer, Verifier};
use k256::ecdsa::{DerSignature, Signature, VerifyingKey};
use k256::pkcs8::DecodePublicKey;
use x509_cert::Certificate;
use x509_cert::der::{Decode, Encode};

/// The SignedProperties text whose digest the authority checks, with the values filled in.
/// `issuer_name` is the text as it appears in the XML (escaped). Indentation, the repeated
/// `xmlns:ds` and the self-closed `ds:DigestMethod` are part of what is hashed.
pub fn signed_properties_text(signing_time: &str, certificate_digest: &str, issuer_name: &str, serial: &str) -> String {
    const DS: &str = "xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"";
    let i = |n: usize| " ".repeat(n);
    let mut s = String::with_capacity(1800);
    s.push_str(
        "<xades:SignedProperties xmlns:xades=\"http://uri.etsi.org/01903/v1.3.2#\" Id=\"xadesSignedProperties\">\n",
    );
    s.push_str(&format!("{}<xades:SignedSignatureProperties>\n", i(36)));
    s.push_str(&format!(
        "{}<xades:SigningTime>{signing_time}</xades:SigningTime>\n",
        i(40)
    ));
    s.push_str(&format!("{}<xades:SigningCertificate>\n", i(40)));
    s.push_str(&format!("{}<xades:Cert>\n", i(44)));
    s.push_str(&format!("{}<xades:CertDigest>\n", i(48)));
    s.push_str(&format!(
        "{}<ds:DigestMethod {DS} Algorithm=\"http://www.w3.org/2001/04/xmlenc#sha256\"/>\n",
        i(52)
    ));
    s.push_str(&format!(
        "{}<ds:DigestValue {DS}>{certificate_digest}</ds:DigestValue>\n",
        i(52)
    ));
    s.push_str(&format!("{}</xades:CertDigest>\n", i(48)));
    s.push_str(&format!("{}<xades:IssuerSerial>\n", i(48)));
    s.push_str(&format!(
        "{}<ds:X509IssuerName {DS}>{issuer_name}</ds:X509IssuerName>\n",
        i(52)
    ));
    s.push_str(&format!(
        "{}<ds:X509SerialNumber {DS}>{serial}</ds:X509SerialNumber>\n",
        i(52)
    ));
    s.push_str(&format!("{}</xades:IssuerSerial>\n", i(48)));
    s.push_str(&format!("{}</xades:Cert>\n", i(44)));
    s.push_str(&format!("{}</xades:SigningCertificate>\n", i(40)));
    s.push_str(&format!("{}</xades:SignedSignatureProperties>\n", i(36)));
    s.push_str(&format!("{}</xades:SignedProperties>", i(32)));
    s
}

/// The SignedProperties digest (second `ds:Reference`), the authority's way.
pub fn signed_properties_digest(
    signing_time: &str,
    certificate_digest: &str,
    issuer_name: &str,
    serial: &str,
) -> String {
    hex_digest_base64(signed_properties_text(signing_time, certificate_digest, issuer_name, serial).as_bytes())
}

/// `ds:SignatureValue`: base64 of the DER ECDSA signature over the raw invoice hash bytes.
pub(crate) fn sign(identity: &Identity, raw_hash: &[u8; 32]) -> Result<String, IssueError> {
    let signature: DerSignature = identity
        .signing_key()
        .try_sign(raw_hash)
        .map_err(|e| IssueError::Signing(e.to_string()))?;
    Ok(base64(signature.as_bytes()))
}

/// Check a `ds:SignatureValue` (base64 DER) against an invoice hash (base64 of the raw SHA-256)
/// with the public key of a DER certificate, the way zatca.md §5.2 says the authority signs.
/// Signatures with a high `s` (as Java produces) are accepted: they are normalised first.
pub fn verify(certificate_der: &[u8], invoice_hash: &str, signature_value: &str) -> Result<(), IssueError> {
    let cert = Certificate::from_der(certificate_der).map_err(|e| IssueError::Certificate(e.to_string()))?;
    let spki = cert
        .tbs_certificate()
        .subject_public_key_info()
        .to_der()
        .map_err(|e| IssueError::Certificate(e.to_string()))?;
    let key = VerifyingKey::from_public_key_der(&spki)
        .map_err(|e| IssueError::Certificate(format!("not a secp256k1 public key: {e}")))?;
    let hash = STANDARD
        .decode(invoice_hash.trim())
        .map_err(|_| IssueError::BadSignature)?;
    let der = STANDARD
        .decode(signature_value.trim())
        .map_err(|_| IssueError::BadSignature)?;
    let signature = Signature::from_der(&der).map_err(|_| IssueError::BadSignature)?;
    key.verify(&hash, &signature.normalize_s())
        .map_err(|_| IssueError::BadSignature)
}

/// The values of one signature.
pub(crate) struct SignatureParts<'a> {
    /// The invoice hash, base64 (first `ds:DigestValue`).
    pub invoice_hash: &'a str,
    /// `ds:SignatureValue`.
    pub signature_value: &'a str,
    /// `xades:SigningTime`, `YYYY-MM-DDTHH:MM:SS`.
    pub signing_time: &'a str,
    /// `ds:X509IssuerName` as written in the XML (escaped).
    pub issuer_name: &'a str,
    /// The SignedProperties digest.
    pub signed_properties_digest: &'a str,
}

/// The `ext:UBLExtensions` element, laid out like the authority's samples (it is not hashed).
pub(crate) fn ubl_extensions(identity: &Identity, p: &SignatureParts<'_>) -> String {
    format!(
        r##"<ext:UBLExtensions>
    <ext:UBLExtension>
        <ext:ExtensionURI>urn:oasis:names:specification:ubl:dsig:enveloped:xades</ext:ExtensionURI>
        <ext:ExtensionContent>
            <sig:UBLDocumentSignatures xmlns:sig="urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2" xmlns:sac="urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2" xmlns:sbc="urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2">
                <sac:SignatureInformation>
                    <cbc:ID>urn:oasis:names:specification:ubl:signature:1</cbc:ID>
                    <sbc:ReferencedSignatureID>urn:oasis:names:specification:ubl:signature:Invoice</sbc:ReferencedSignatureID>
                    <ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="signature">
                        <ds:SignedInfo>
                            <ds:CanonicalizationMethod Algorithm="http://www.w3.org/2006/12/xml-c14n11"/>
                            <ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"/>
                            <ds:Reference Id="invoiceSignedData" URI="">
                                <ds:Transforms>
                                    <ds:Transform Algorithm="http://www.w3.org/TR/1999/REC-xpath-19991116">
                                        <ds:XPath>not(//ancestor-or-self::ext:UBLExtensions)</ds:XPath>
                                    </ds:Transform>
                                    <ds:Transform Algorithm="http://www.w3.org/TR/1999/REC-xpath-19991116">
                                        <ds:XPath>not(//ancestor-or-self::cac:Signature)</ds:XPath>
                                    </ds:Transform>
                                    <ds:Transform Algorithm="http://www.w3.org/TR/1999/REC-xpath-19991116">
                                        <ds:XPath>not(//ancestor-or-self::cac:AdditionalDocumentReference[cbc:ID='QR'])</ds:XPath>
                                    </ds:Transform>
                                    <ds:Transform Algorithm="http://www.w3.org/2006/12/xml-c14n11"/>
                                </ds:Transforms>
                                <ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
                                <ds:DigestValue>{invoice_hash}</ds:DigestValue>
                            </ds:Reference>
                            <ds:Reference Type="http://www.w3.org/2000/09/xmldsig#SignatureProperties" URI="#xadesSignedProperties">
                                <ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
                                <ds:DigestValue>{signed_properties_digest}</ds:DigestValue>
                            </ds:Reference>
                        </ds:SignedInfo>
                        <ds:SignatureValue>{signature_value}</ds:SignatureValue>
                        <ds:KeyInfo>
                            <ds:X509Data>
                                <ds:X509Certificate>{certificate}</ds:X509Certificate>
                            </ds:X509Data>
                        </ds:KeyInfo>
                        <ds:Object>
                            <xades:QualifyingProperties xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" Target="signature">
                                <xades:SignedProperties Id="xadesSignedProperties">
                                    <xades:SignedSignatureProperties>
                                        <xades:SigningTime>{signing_time}</xades:SigningTime>
                                        <xades:SigningCertificate>
                                            <xades:Cert>
                                                <xades:CertDigest>
                                                    <ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
                                                    <ds:DigestValue>{certificate_digest}</ds:DigestValue>
                                                </xades:CertDigest>
                                                <xades:IssuerSerial>
                                                    <ds:X509IssuerName>{issuer_name}</ds:X509IssuerName>
                                                    <ds:X509SerialNumber>{serial}</ds:X509SerialNumber>
                                                </xades:IssuerSerial>
                                            </xades:Cert>
                                        </xades:SigningCertificate>
                                    </xades:SignedSignatureProperties>
                                </xades:SignedProperties>
                            </xades:QualifyingProperties>
                        </ds:Object>
                    </ds:Signature>
                </sac:SignatureInformation>
            </sig:UBLDocumentSignatures>
        </ext:ExtensionContent>
    </ext:UBLExtension>
</ext:UBLExtensions>"##,
        invoice_hash = p.invoice_hash,
        signed_properties_digest = p.signed_properties_digest,
        signature_value = p.signature_value,
        certificate = identity.certificate_base64(),
        signing_time = p.signing_time,
        certificate_digest = identity.certificate_digest(),
        issuer_name = p.issuer_name,
        serial = identity.serial_decimal(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::hash::sha256;

    #[test]
    fn signed_properties_template_has_the_documented_indentation() {
        let text = signed_properties_text("T", "D", "I", "S");
        let indents: Vec<usize> = text.lines().map(|l| l.len() - l.trim_start().len()).collect();
        assert_eq!(
            indents,
            [0, 36, 40, 40, 44, 48, 52, 52, 48, 48, 52, 52, 48, 44, 40, 36, 32]
        );
        assert!(!text.ends_with('\n'));
    }

    #[test]
    fn signature_verifies_over_the_raw_hash_and_not_over_other_bytes() {
        let id = Identity::load_or_create(None, "399999999900003", "Org").unwrap();
        let raw = sha256(b"document");
        let sig = sign(&id, &raw).unwrap();
        verify(id.certificate_der(), &base64(&raw), &sig).unwrap();
        let other = base64(&sha256(b"other"));
        assert!(matches!(
            verify(id.certificate_der(), &other, &sig),
            Err(IssueError::BadSignature)
        ));
    }
}

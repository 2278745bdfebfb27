//! The digests of zatca.md §4 and §5.4.
//!
//! - The invoice hash is SHA-256 over the canonical (C14N 1.1) text of the document without
//!   `ext:UBLExtensions`, the QR reference and `cac:Signature`, written as base64 of the 32 raw
//!   bytes. The UBL writer produces that canonical text directly, so no canonicalisation happens
//!   here.
//! - The certificate digest and the SignedProperties digest are the authority's own variant:
//!   base64 of the *lowercase hex text* of the SHA-256.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// Standard, padded base64.
pub fn base64(data: &[u8]) -> String {
    STANDARD.encode(data)
}

/// The invoice hash (KSA-13, DigestValue, QR tag 6, the next PIH) of the canonical text the
/// hash covers: base64 of the raw SHA-256.
pub fn invoice_hash(canonical: &[u8]) -> String {
    base64(&sha256(canonical))
}

/// The authority's digest for certificates and SignedProperties: base64 of the lowercase hex of
/// the SHA-256 of `data` (zatca.md §5.4).
pub fn hex_digest_base64(data: &[u8]) -> String {
    base64(hex::encode(sha256(data)).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genesis_pih_is_base64_of_the_hex_sha256_of_zero() {
        assert_eq!(hex_digest_base64(b"0"), crate::sandbox::issue::GENESIS_PIH);
    }

    #[test]
    fn invoice_hash_is_base64_of_raw_bytes() {
        // SHA-256("abc") = ba7816bf...
        assert_eq!(invoice_hash(b"abc"), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
    }
}

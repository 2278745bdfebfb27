//! The QR payload (KSA-14, zatca.md §6): TLV records (one byte tag, one byte length, the value),
//! base64-encoded.
//!
//! | tag | value |
//! |---|---|
//! | 1 | seller name, UTF-8 |
//! | 2 | seller VAT number |
//! | 3 | issue date and time, `YYYY-MM-DDTHH:MM:SS` |
//! | 4 | `PayableAmount` text as in the XML |
//! | 5 | VAT total in SAR, text as in the XML |
//! | 6 | invoice hash, base64 text |
//! | 7 | `ds:SignatureValue`, base64 text |
//! | 8 | public key, DER SubjectPublicKeyInfo |
//! | 9 | the certificate's signature bytes: simplified documents (and their notes) only |
//!
//! A value longer than 255 bytes cannot be encoded and is an error, as is a payload longer than
//! the 1000 base64 characters the authority accepts (BR-CL-KSA-14).

use super::hash::base64;
use super::issue::IssueError;

/// The most base64 characters the authority accepts in the QR element (BR-CL-KSA-14, SDK 3.4.5).
pub const MAX_QR_BASE64: usize = 1000;

/// Encode TLV records. A value over 255 bytes is an error naming its tag.
pub fn encode_tlv(fields: &[(u8, &[u8])]) -> Result<Vec<u8>, IssueError> {
    let mut out = Vec::with_capacity(fields.iter().map(|(_, v)| v.len() + 2).sum());
    for (tag, value) in fields {
        let len = u8::try_from(value.len()).map_err(|_| IssueError::QrFieldTooLong {
            tag: *tag,
            len: value.len(),
        })?;
        out.push(*tag);
        out.push(len);
        out.extend_from_slice(value);
    }
    Ok(out)
}

/// Decode TLV records (the inverse of [`encode_tlv`]); a record cut short is an error.
pub fn decode_tlv(bytes: &[u8]) -> Result<Vec<(u8, Vec<u8>)>, IssueError> {
    let mut fields = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (Some(&tag), Some(&len)) = (bytes.get(at), bytes.get(at + 1)) else {
            return Err(IssueError::MalformedTlv { offset: at });
        };
        let start = at + 2;
        let end = start + usize::from(len);
        let value = bytes.get(start..end).ok_or(IssueError::MalformedTlv { offset: at })?;
        fields.push((tag, value.to_vec()));
        at = end;
    }
    Ok(fields)
}

/// The values of a document's QR code.
pub(crate) struct QrFields<'a> {
    pub seller_name: &'a str,
    pub seller_vat: &'a str,
    pub timestamp: &'a str,
    pub payable: &'a str,
    pub vat_total: &'a str,
    pub invoice_hash: &'a str,
    pub signature_value: &'a str,
    pub public_key: &'a [u8],
    /// Tag 9, for simplified documents.
    pub certificate_signature: Option<&'a [u8]>,
}

/// The base64 QR payload.
pub(crate) fn payload(f: &QrFields<'_>) -> Result<String, IssueError> {
    let mut fields: Vec<(u8, &[u8])> = vec![
        (1, f.seller_name.as_bytes()),
        (2, f.seller_vat.as_bytes()),
        (3, f.timestamp.as_bytes()),
        (4, f.payable.as_bytes()),
        (5, f.vat_total.as_bytes()),
        (6, f.invoice_hash.as_bytes()),
        (7, f.signature_value.as_bytes()),
        (8, f.public_key),
    ];
    if let Some(cert_sig) = f.certificate_signature {
        fields.push((9, cert_sig));
    }
    let encoded = base64(&encode_tlv(&fields)?);
    if encoded.len() > MAX_QR_BASE64 {
        return Err(IssueError::QrTooLong { len: encoded.len() });
    }
    Ok(encoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_arabic_byte_lengths() {
        let name = "شركة | Co";
        let tlv = encode_tlv(&[(1, name.as_bytes()), (2, b"399999999900003")]).unwrap();
        assert_eq!(tlv[1] as usize, name.len());
        assert_eq!(name.chars().count(), 9);
        assert_eq!(name.len(), 13, "Arabic letters are two bytes each in UTF-8");
        let back = decode_tlv(&tlv).unwrap();
        assert_eq!(
            back,
            vec![(1, name.as_bytes().to_vec()), (2, b"399999999900003".to_vec())]
        );
    }

    #[test]
    fn a_field_over_255_bytes_is_an_error_not_a_panic() {
        let long = "ش".repeat(128); // 256 bytes
        let err = encode_tlv(&[(1, long.as_bytes())]).unwrap_err();
        assert!(matches!(err, IssueError::QrFieldTooLong { tag: 1, len: 256 }), "{err}");
        assert!(encode_tlv(&[(1, &[b'a'; 255])]).is_ok());
    }

    #[test]
    fn truncated_tlv_is_an_error() {
        assert!(matches!(decode_tlv(&[1]), Err(IssueError::MalformedTlv { offset: 0 })));
        assert!(matches!(
            decode_tlv(&[1, 1, b'a', 2, 5, b'b']),
            Err(IssueError::MalformedTlv { offset: 3 })
        ));
        assert_eq!(decode_tlv(&[]).unwrap(), vec![]);
    }
}

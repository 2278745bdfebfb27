//! Issue 3 "Must show", over real HTTP: every document the sandbox answers 200 is checked from
//! its bytes alone, with no trust in the server's own figures. The invoice hash is recomputed with
//! `xmllint --c14n11` (zatca.md §4) and must be the XML's DigestValue and the next document's PIH;
//! the signature verifies with the certificate embedded in the XML (§5.2); the QR code of the
//! answer, decoded as TLV here, carries the XML's values (§6.1).
//!
//! Needs xmllint (Debian `libxml2-utils`); a missing tool fails the test saying what to install.

// The oracles of tests/sandbox_xml.rs; this test uses only some of them.
#[allow(dead_code)]
#[path = "../sandbox_xml/support.rs"]
mod support;

use super::common::*;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use invoicedrop::model::{Document, DocumentKind, InvoiceType, SubmissionResponse};
use invoicedrop::sandbox::issue::GENESIS_PIH;
use reqwest::StatusCode;
use support::{between, documents, require_tool, verify_from_xml, xmllint_hash};
use x509_cert::Certificate;
use x509_cert::der::{Decode, Encode};

#[tokio::test]
async fn documents_answered_over_http_carry_a_recomputable_hash_chain_signature_and_qr() {
    require_tool("xmllint", "--version", "libxml2-utils");
    let docs = documents();
    // What this test must cover, whatever support::documents() becomes.
    for (kind, invoice_type) in [
        (DocumentKind::Invoice, InvoiceType::Standard),
        (DocumentKind::Invoice, InvoiceType::Simplified),
        (DocumentKind::CreditNote, InvoiceType::Standard),
        (DocumentKind::DebitNote, InvoiceType::Simplified),
    ] {
        assert!(
            docs.iter()
                .any(|(_, d)| d.kind == kind && d.invoice_type == invoice_type),
            "no {invoice_type:?} {kind:?} among the documents under test"
        );
    }
    let categories: Vec<&str> = docs
        .iter()
        .flat_map(|(_, d)| d.invoice_lines.iter())
        .map(|l| l.item.classified_tax_category.id.as_str())
        .collect();
    for category in ["S", "Z", "E", "O"] {
        assert!(categories.contains(&category), "no {category} line: {categories:?}");
    }

    let s = sandbox().await;
    let api = Api::new(&s);
    let (token, onboard_id) = api.device("over-http").await;
    // The hash of the previous accepted document, recomputed here; the genesis value at first.
    let mut previous = GENESIS_PIH.to_string();
    for (n, (name, doc)) in docs.iter().enumerate() {
        let (status, bytes) = api.submit(&token, &onboard_id, doc, None).await;
        assert_eq!(status, StatusCode::OK, "{name}: {}", String::from_utf8_lossy(&bytes));
        let answer = parse(&bytes);
        let xml = xml_of(&answer);

        // The chain: this document's PIH is the previous document's recomputed hash.
        let (icv, pih) = icv_pih(&xml);
        assert_eq!(icv, n as u64 + 1, "{name}");
        assert_eq!(pih, previous, "{name}: the PIH is not the previous document's hash");

        // The hash, recomputed from the XML alone, is the invoiceSignedData DigestValue.
        let hash = xmllint_hash(&xml);
        let reference = between(&xml, "Id=\"invoiceSignedData\"", "</ds:Reference>");
        assert_eq!(
            between(reference, "<ds:DigestValue>", "</ds:DigestValue>"),
            hash,
            "{name}"
        );
        // verify_from_xml checks the signature over the first DigestValue: make sure that is it.
        assert_eq!(between(&xml, "<ds:DigestValue>", "</ds:DigestValue>"), hash, "{name}");
        verify_from_xml(&xml);
        if n == 0 {
            // The recomputation sees the content: another invoice number gives another hash.
            let number = format!("<cbc:ID>{}</cbc:ID>", doc.number);
            assert!(xml.contains(&number), "{name}");
            let changed = xml.replacen(&number, "<cbc:ID>OTHER-1</cbc:ID>", 1);
            assert_ne!(xmllint_hash(&changed), hash, "{name}");
        }

        check_qr(name, doc, &answer, &xml, &hash);
        previous = hash;
    }
    assert_eq!(api.documents(&onboard_id).await.len(), docs.len());
}

/// The QR code of the HTTP answer against the XML of the same answer (zatca.md §6.1).
fn check_qr(name: &str, doc: &Document, answer: &SubmissionResponse, xml: &str, hash: &str) {
    let qr = answer.qr_code.as_deref().expect("a qr_code in the answer");
    let in_xml = between(xml, "<cbc:ID>QR</cbc:ID>", "</cbc:EmbeddedDocumentBinaryObject>");
    assert!(
        in_xml.ends_with(&format!(">{qr}")),
        "{name}: the answer's QR is not the XML's"
    );
    let payload = STANDARD.decode(qr).expect("base64 QR");
    let tlv = decode_tlv(&payload);
    let tags: Vec<u8> = tlv.iter().map(|(t, _)| *t).collect();
    let simplified = doc.invoice_type == InvoiceType::Simplified;
    let expected: Vec<u8> = if simplified {
        (1..=9).collect()
    } else {
        (1..=8).collect()
    };
    assert_eq!(tags, expected, "{name}");
    let text = |i: usize| String::from_utf8(tlv[i].1.clone()).expect("UTF-8 QR text");

    // 1: the seller's name, in UTF-8 bytes (the length byte counts bytes, not characters).
    let supplier = between(xml, "<cac:AccountingSupplierParty>", "</cac:AccountingSupplierParty>");
    let seller = unescape(leaf(supplier, "cbc:RegistrationName").1);
    assert!(
        seller.len() > seller.chars().count(),
        "{name}: an Arabic seller name: {seller}"
    );
    assert_eq!(seller, doc.supplier_info.registration_name, "{name}");
    assert_eq!(text(0), seller, "{name}");
    assert_eq!(usize::from(payload[1]), seller.len(), "{name}: tag 1 length in bytes");
    // 2: the seller's VAT number.
    let vat = leaf(supplier, "cbc:CompanyID").1;
    assert_eq!(vat.len(), 15, "{name}: {vat}");
    assert_eq!(text(1), vat, "{name}");
    // 3: IssueDate T IssueTime.
    let stamp = format!("{}T{}", leaf(xml, "cbc:IssueDate").1, leaf(xml, "cbc:IssueTime").1);
    assert_eq!(text(2), stamp, "{name}");
    // 4: the total with VAT as the authority's own samples carry it: PayableAmount (BT-115), not
    // TaxInclusiveAmount where a prepayment or rounding makes them differ (zatca.md §6).
    assert_eq!(text(3), leaf(xml, "cbc:PayableAmount").1, "{name}");
    // 5: the VAT total in SAR (the first TaxTotal, in the tax currency).
    let (attrs, vat_total) = leaf(between(xml, "<cac:TaxTotal>", "</cac:TaxTotal>"), "cbc:TaxAmount");
    assert!(attrs.contains("currencyID=\"SAR\""), "{name}: {attrs}");
    assert_eq!(text(4), vat_total, "{name}");
    // 6: the invoice hash recomputed by the caller.
    assert_eq!(text(5), hash, "{name}");
    // 7: the signature value; 8: the public key of the certificate in the XML.
    assert_eq!(
        text(6),
        between(xml, "<ds:SignatureValue>", "</ds:SignatureValue>"),
        "{name}"
    );
    let cert_b64 = between(xml, "<ds:X509Certificate>", "</ds:X509Certificate>");
    let cert = Certificate::from_der(&STANDARD.decode(cert_b64).unwrap()).unwrap();
    let spki = cert.tbs_certificate().subject_public_key_info().to_der().unwrap();
    assert_eq!(tlv[7].1, spki, "{name}: tag 8");
    // 9 (simplified documents only): the certificate's signature.
    if simplified {
        assert_eq!(tlv[8].1, cert.signature().raw_bytes(), "{name}: tag 9");
    }
}

/// TLV records, decoded here rather than by the library under test: one byte tag, one byte
/// length, the value.
fn decode_tlv(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let [tag, len, tail @ ..] = rest {
        let len = usize::from(*len);
        assert!(
            tail.len() >= len,
            "tag {tag}: {len} bytes announced, {} left",
            tail.len()
        );
        out.push((*tag, tail[..len].to_vec()));
        rest = &tail[len..];
    }
    assert!(rest.is_empty(), "a record cut short at the end: {rest:?}");
    out
}

/// The attributes and the text of the first element `name` in `xml`.
fn leaf<'a>(xml: &'a str, name: &str) -> (&'a str, &'a str) {
    let open = format!("<{name}");
    let mut from = 0;
    let start = loop {
        let at = from + xml[from..].find(&open).unwrap_or_else(|| panic!("no <{name}>"));
        let after = at + open.len();
        if xml[after..].starts_with(['>', ' ']) {
            break after;
        }
        from = after;
    };
    let gt = start + xml[start..].find('>').unwrap();
    let end = gt + xml[gt..].find(&format!("</{name}>")).unwrap();
    (&xml[start..gt], &xml[gt + 1..end])
}

/// XML text as text: the escapes the issuer writes (src/sandbox/xml.rs).
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#xD;", "\r")
        .replace("&amp;", "&")
}

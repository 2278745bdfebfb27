//! The sandbox authority's documents checked against outside oracles: the authority's own rules
//! (`shared/tools/zatca-validate`: UBL schema + EN 16931 + KSA schematron), `xmllint --c14n11` for
//! the invoice hash, the authority SDK's signed sample and test key pair, and OpenSSL for the
//! signature.
//!
//! Needs Java (the validator), xmllint (Debian `libxml2-utils`) and openssl. A missing tool fails
//! the test with a message saying what to install; nothing is skipped. `SANDBOX_XML_KEEP=DIR`
//! keeps a copy of the validated documents in DIR.

#[path = "sandbox_xml/support.rs"]
mod support;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::NaiveDateTime;
use invoicedrop::model::{DocumentKind, InvoiceType, example};
use invoicedrop::sandbox::issue::{GENESIS_PIH, Identity, decode_tlv, issue};
use invoicedrop::sandbox::signature;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::process::Command;
use support::*;
use x509_cert::Certificate;
use x509_cert::der::{Decode, Encode};

#[test]
fn the_authority_rules_accept_every_document() {
    require_tool("java", "-version", "default-jre-headless libsaxonhe-java");
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, _, issued) in issue_all() {
        let path = dir.path().join(format!("{name}--{}", issued.file_name));
        std::fs::write(&path, &issued.xml).unwrap();
        files.push(path);
    }
    let keep = std::env::var_os("SANDBOX_XML_KEEP").map(PathBuf::from);
    if let Some(keep) = &keep {
        std::fs::create_dir_all(keep).unwrap();
        for f in &files {
            std::fs::copy(f, keep.join(f.file_name().unwrap())).unwrap();
        }
    }
    let out = Command::new(shared_dir().join("tools/zatca-validate"))
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(
        out.status.success() && summary.contains(", 0 errors"),
        "zatca-validate found errors (exit {:?}):\n{stdout}{stderr}",
        out.status.code()
    );
    assert!(summary.starts_with(&format!("{} files", files.len())), "{summary}");
}

#[test]
fn the_hash_pipeline_reproduces_the_sdk_sample_digest() {
    // zatca.md §4 VERIFIED: this sample's DigestValue is the hash of its stripped C14N 1.1 form.
    let xml = std::fs::read_to_string(sdk("samples/standard/invoice/standard-invoice.xml")).unwrap();
    let digest = between(&xml, "<ds:DigestValue>", "</ds:DigestValue>");
    assert_eq!(digest, "f+0WCqnPkInI+eL9G3LAry12fTPf+toC9UX07F4fI+s=");
    assert_eq!(xmllint_hash(&xml), digest);
}

#[test]
fn the_invoice_hash_equals_xmllint_c14n11_and_chains_into_the_next_pih() {
    let issued = issue_all();
    for (name, _, doc) in &issued {
        let xml = std::str::from_utf8(&doc.xml).unwrap();
        assert_eq!(xmllint_hash(xml), doc.invoice_hash, "{name}");
        assert_eq!(
            between(xml, "<ds:DigestValue>", "</ds:DigestValue>"),
            doc.invoice_hash,
            "{name}"
        );
    }
    let first_pih = between(
        std::str::from_utf8(&issued[0].2.xml).unwrap(),
        "<cbc:ID>PIH</cbc:ID>",
        "</cbc:EmbeddedDocumentBinaryObject>",
    );
    assert!(first_pih.ends_with(GENESIS_PIH));
    for pair in issued.windows(2) {
        let next = std::str::from_utf8(&pair[1].2.xml).unwrap();
        let pih = between(next, "<cbc:ID>PIH</cbc:ID>", "</cbc:EmbeddedDocumentBinaryObject>");
        let previous_recomputed = xmllint_hash(std::str::from_utf8(&pair[0].2.xml).unwrap());
        assert!(pih.ends_with(&format!(">{previous_recomputed}")), "{pih}");
    }
}

#[test]
fn signatures_verify_with_the_certificate_in_the_xml() {
    for (name, _, issued) in issue_all() {
        let xml = std::str::from_utf8(&issued.xml).unwrap();
        verify_from_xml(xml);
        // The certificate digest and the SignedProperties digest, recomputed from the XML.
        let cert_b64 = between(xml, "<ds:X509Certificate>", "</ds:X509Certificate>");
        let cert_digest = STANDARD.encode(hex::encode(Sha256::digest(cert_b64.as_bytes())));
        let signed_props = between(xml, "<xades:SignedProperties", "</xades:SignedProperties>");
        assert!(
            signed_props.contains(&format!("<ds:DigestValue>{cert_digest}</ds:DigestValue>")),
            "{name}"
        );
        let expected = signature::signed_properties_digest(
            between(signed_props, "<xades:SigningTime>", "</xades:SigningTime>"),
            &cert_digest,
            between(signed_props, "<ds:X509IssuerName>", "</ds:X509IssuerName>"),
            between(signed_props, "<ds:X509SerialNumber>", "</ds:X509SerialNumber>"),
        );
        let reference = between(xml, "URI=\"#xadesSignedProperties\">", "</ds:Reference>");
        assert!(
            reference.contains(&format!("<ds:DigestValue>{expected}</ds:DigestValue>")),
            "{name}"
        );
    }
}

#[test]
fn openssl_verifies_the_signature_over_the_raw_hash() {
    require_tool("openssl", "version", "openssl");
    let (_, _, issued) = issue_all().remove(1);
    let xml = std::str::from_utf8(&issued.xml).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cert = STANDARD
        .decode(between(xml, "<ds:X509Certificate>", "</ds:X509Certificate>"))
        .unwrap();
    std::fs::write(dir.path().join("cert.der"), cert).unwrap();
    std::fs::write(
        dir.path().join("hash.bin"),
        STANDARD.decode(&issued.invoice_hash).unwrap(),
    )
    .unwrap();
    let sig = STANDARD
        .decode(between(xml, "<ds:SignatureValue>", "</ds:SignatureValue>"))
        .unwrap();
    std::fs::write(dir.path().join("sig.der"), sig).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&[
        "x509", "-inform", "DER", "-in", "cert.der", "-pubkey", "-noout", "-out", "pub.pem",
    ]);
    let text = run(&["x509", "-inform", "DER", "-in", "cert.der", "-noout", "-text"]);
    assert!(
        text.contains("secp256k1") && text.contains("ecdsa-with-SHA256"),
        "{text}"
    );
    let verified = run(&[
        "dgst",
        "-sha256",
        "-verify",
        "pub.pem",
        "-signature",
        "sig.der",
        "hash.bin",
    ]);
    assert!(verified.contains("Verified OK"), "{verified}");
}

#[test]
fn golden_sdk_key_pair_reproduces_the_sample_signature_properties() {
    let key = std::fs::read_to_string(sdk("certificates/ec-secp256k1-priv-key.pem")).unwrap();
    let cert = std::fs::read_to_string(sdk("certificates/cert.pem")).unwrap();
    let sdk_identity = Identity::from_pem(&key, &cert).unwrap();
    let sample = std::fs::read_to_string(sdk("samples/standard/invoice/standard-invoice.xml")).unwrap();
    // The sample's own signature verifies (a high-s signature from Java; normalised first).
    verify_from_xml(&sample);

    // Issue a document with the SDK identity at the sample's signing time: the certificate
    // digest, issuer, serial and SignedProperties digest must be the sample's, byte for byte.
    let (_, doc) = documents().remove(0);
    let time = NaiveDateTime::parse_from_str("2024-01-14T10:21:40", "%Y-%m-%dT%H:%M:%S").unwrap();
    let issued = issue(&doc, uuid::Uuid::new_v4(), &chain(1, GENESIS_PIH), &sdk_identity, time).unwrap();
    let xml = std::str::from_utf8(&issued.xml).unwrap();
    let props = |x: &str| {
        between(
            x,
            "<xades:SignedProperties Id=\"xadesSignedProperties\">",
            "</xades:SignedProperties>",
        )
        .to_string()
    };
    assert_eq!(props(xml), props(&sample));
    let sp_digest = |x: &str| between(x, "URI=\"#xadesSignedProperties\">", "</ds:Reference>").to_string();
    assert_eq!(sp_digest(xml), sp_digest(&sample));
    assert!(
        sp_digest(xml)
            .contains("ODQwNTg1NTBhMjMzM2YxY2ZkZjVkYzdlNTZiZjY0ODJjMjNkYWI4MTUzNjdmNDVjMjAwZTBjODc2YTNhMWQ1Ng==")
    );
    assert!(xml.contains("<ds:X509IssuerName>CN=PRZEINVOICESCA4-CA, DC=extgazt, DC=gov, DC=local</ds:X509IssuerName>"));
    assert!(xml.contains("<ds:X509SerialNumber>379112742831380471835263969587287663520528387</ds:X509SerialNumber>"));
    verify_from_xml(xml);

    // QR tag 8 of the sample is the SDK certificate's public key, as the identity gives it.
    let qr = between(&sample, "<cbc:ID>QR</cbc:ID>", "</cbc:EmbeddedDocumentBinaryObject>");
    let qr = &qr[qr.rfind('>').unwrap() + 1..];
    let tlv = decode_tlv(&STANDARD.decode(qr).unwrap()).unwrap();
    let tag8 = tlv.iter().find(|(t, _)| *t == 8).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(tag8, sdk_identity.public_key_der());
}

#[test]
fn the_qr_payload_carries_the_document_values() {
    for (name, doc, issued) in issue_all() {
        let xml = std::str::from_utf8(&issued.xml).unwrap();
        let in_xml = between(xml, "<cbc:ID>QR</cbc:ID>", "</cbc:EmbeddedDocumentBinaryObject>");
        assert!(in_xml.ends_with(&format!(">{}", issued.qr)), "{name}");
        let tlv = decode_tlv(&STANDARD.decode(&issued.qr).unwrap()).unwrap();
        let simplified = doc.invoice_type == InvoiceType::Simplified;
        let tags: Vec<u8> = tlv.iter().map(|(t, _)| *t).collect();
        let expected: Vec<u8> = if simplified {
            (1..=9).collect()
        } else {
            (1..=8).collect()
        };
        assert_eq!(tags, expected, "{name}");
        let text = |i: usize| String::from_utf8(tlv[i].1.clone()).unwrap();
        let seller = &doc.supplier_info.registration_name;
        assert_eq!(text(0), *seller);
        assert_eq!(tlv[0].1.len(), seller.len());
        assert!(
            seller.len() > seller.chars().count(),
            "Arabic seller name: bytes, not characters"
        );
        assert_eq!(text(1), example::SELLER_VAT);
        assert_eq!(
            text(2),
            format!(
                "{}T{}",
                doc.issue_date.format("%Y-%m-%d"),
                doc.issue_time.format("%H:%M:%S")
            )
        );
        let payable = between(xml, "<cbc:PayableAmount currencyID=\"", "</cbc:PayableAmount>");
        assert_eq!(text(3), payable[payable.find('>').unwrap() + 1..]);
        assert_eq!(
            text(4),
            between(xml, "<cbc:TaxAmount currencyID=\"SAR\">", "</cbc:TaxAmount>")
        );
        assert_eq!(text(5), issued.invoice_hash);
        assert_eq!(text(6), between(xml, "<ds:SignatureValue>", "</ds:SignatureValue>"));
        assert_eq!(tlv[7].1, identity().public_key_der());
        let cert = Certificate::from_der(identity().certificate_der()).unwrap();
        assert_eq!(
            tlv[7].1,
            cert.tbs_certificate().subject_public_key_info().to_der().unwrap()
        );
        if simplified {
            assert_eq!(tlv[8].1, cert.signature().raw_bytes());
        }
        if doc.kind == DocumentKind::Invoice && doc.doc_currency_code == "USD" {
            assert_eq!(text(4), "77.74", "VAT in SAR = 20.73 × 3.75");
        }
    }
}

#[test]
fn the_identity_reloads_to_the_same_certificate_and_hides_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let first = Identity::load_or_create(Some(&state), example::SELLER_VAT, "شركة & Co").unwrap();
    let key_pem = std::fs::read_to_string(state.join("sandbox-key.pem")).unwrap();
    assert!(key_pem.starts_with("-----BEGIN EC PRIVATE KEY-----"), "{key_pem}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(state.join("sandbox-key.pem"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the key file is private");
    }
    let again = Identity::load_or_create(Some(&state), "300000000000003", "other").unwrap();
    assert_eq!(first.certificate_der(), again.certificate_der());
    assert_eq!(first.public_key_der(), again.public_key_der());
    // Signatures of the reloaded identity verify with the first certificate.
    let (_, doc) = documents().remove(0);
    let issued = issue(&doc, uuid::Uuid::new_v4(), &chain(1, GENESIS_PIH), &again, riyadh_now()).unwrap();
    signature::verify(
        first.certificate_der(),
        &issued.invoice_hash,
        between(
            std::str::from_utf8(&issued.xml).unwrap(),
            "<ds:SignatureValue>",
            "</ds:SignatureValue>",
        ),
    )
    .unwrap();

    let debug = format!("{first:?} {again:?}");
    let key_body: String = key_pem.lines().filter(|l| !l.starts_with("-----")).collect();
    assert!(!debug.contains(&key_body[..20]), "{debug}");
    let der = STANDARD.decode(&key_body).unwrap();
    // SEC1: the 32-byte private scalar follows the version and OCTET STRING header.
    let scalar = hex::encode(&der[7..39]);
    assert!(!debug.to_lowercase().contains(&scalar[..16]), "{debug}");
}

#[test]
fn many_threads_issue_at_once() {
    let docs = documents();
    let per_thread = 100;
    let start = std::time::Instant::now();
    let hashes: Vec<Vec<(String, Vec<u8>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|t| {
                let docs = &docs;
                s.spawn(move || {
                    (0..per_thread)
                        .map(|i| {
                            let doc = &docs[(i + t) % docs.len()].1;
                            let issued = issue(
                                doc,
                                uuid::Uuid::new_v4(),
                                &chain(i as u64 + 1, GENESIS_PIH),
                                identity(),
                                riyadh_now(),
                            )
                            .unwrap();
                            (issued.invoice_hash, issued.xml)
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = start.elapsed();
    let total = 2 * per_thread;
    println!(
        "issued {total} documents on 2 threads in {elapsed:?}: {:.0} µs per document, {:.0} documents/s",
        elapsed.as_secs_f64() * 1e6 / total as f64,
        total as f64 / elapsed.as_secs_f64()
    );
    for (hash, xml) in hashes.iter().flatten().step_by(25) {
        let xml = std::str::from_utf8(xml).unwrap();
        assert_eq!(between(xml, "<ds:DigestValue>", "</ds:DigestValue>"), hash);
        verify_from_xml(xml);
    }
}

#[test]
fn the_hash_survives_tricky_text_and_attribute_values() {
    // Escaping corner cases checked against xmllint's canonical form (no rule validation here).
    let texts = [
        "a & b < c > d \" e ' f",
        "CR alone\rCRLF\r\nLF\ntab\tend",
        "]]> &amp; &#x41; <![CDATA[x]]>",
        "\u{85}\u{2028}\u{FEFF}\u{200F} combining e\u{301} emoji 🧾 𝔘",
        "  leading and trailing spaces  ",
    ];
    let attrs = ["a\"b", "a&b<c>d", "tab\tnl\ncr\r", "quote' sp ace"];
    let (_, mut doc) = documents().remove(0);
    for (i, text) in texts.iter().enumerate() {
        doc.note = Some((*text).into());
        doc.invoice_lines[0].item.name = format!("{text} {i}");
        doc.invoice_lines[0].unit_code = attrs[i % attrs.len()].into();
        std::sync::Arc::make_mut(&mut doc.supplier_info)
            .party_identification
            .as_mut()
            .unwrap()
            .scheme = attrs[(i + 1) % attrs.len()].into();
        let issued = issue(
            &doc,
            uuid::Uuid::new_v4(),
            &chain(1, GENESIS_PIH),
            identity(),
            riyadh_now(),
        )
        .unwrap();
        let xml = std::str::from_utf8(&issued.xml).unwrap();
        assert_eq!(xmllint_hash(xml), issued.invoice_hash, "{text:?}");
    }
}

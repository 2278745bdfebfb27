//! The sandbox authority's documents checked against outside oracles: the authority's own rules
//! (`shared/tools/zatca-validate`: UBL schema + EN 16931 + KSA schematron), `xmllint --c14n11` for
//! the invoice hash, the authority SDK's signed sample and test key pair, and OpenSSL for the
//! signature.
//!
//! Needs Java (the validator), xmllint (Debian `libxml2-utils`) and openssl. A missing tool fails
//! the test with a message saying what to install; nothing is skipped.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{Duration, NaiveDateTime, Timelike};
use invoicedrop::compute::compute_document;
use invoicedrop::model::{
    AllowanceCharge, Document, DocumentKind, InvoiceType, LineAllowanceCharge, Party, PartyIdentification,
    PriceAllowanceCharge, TaxCategory, example,
};
use invoicedrop::sandbox::issue::{ChainPosition, GENESIS_PIH, Identity, Issued, decode_tlv, issue};
use invoicedrop::sandbox::signature;
use k256::ecdsa::signature::Verifier;
use k256::ecdsa::{Signature, VerifyingKey};
use k256::pkcs8::DecodePublicKey;
use rust_decimal_macros::dec;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use x509_cert::Certificate;
use x509_cert::der::{Decode, Encode};

// ---------------------------------------------------------------------------------------------
// Helpers

/// The project's `shared/` folder: `$INVOICEDROP_SHARED`, or the first `shared/` with the
/// validator found walking up from the crate (beside /work/main, or above a worktree).
fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("INVOICEDROP_SHARED") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in manifest.ancestors() {
        let candidate = dir.join("shared");
        if candidate.join("tools/zatca-validate").is_file() {
            return candidate;
        }
    }
    panic!(
        "shared/tools/zatca-validate not found above {}; set INVOICEDROP_SHARED to the shared folder",
        manifest.display()
    );
}

fn sdk(path: &str) -> PathBuf {
    shared_dir().join("reference/zatca-sdk").join(path)
}

fn require_tool(program: &str, arg: &str, install: &str) {
    let ok = Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "`{program}` is needed by this test and was not found: apt-get install -y {install}"
    );
}

fn identity() -> &'static Identity {
    static ID: OnceLock<Identity> = OnceLock::new();
    ID.get_or_init(|| Identity::load_or_create(None, example::SELLER_VAT, "شركة التوريد السريع").unwrap())
}

/// Now in Riyadh (UTC+3, no daylight saving), minus a few minutes, to the second.
fn riyadh_now() -> NaiveDateTime {
    let t = chrono::Utc::now().naive_utc() + Duration::hours(3) - Duration::minutes(5);
    t.with_nanosecond(0).unwrap()
}

fn dated(mut doc: Document) -> Document {
    let now = riyadh_now();
    doc.issue_date = now.date();
    doc.actual_delivery_date = now.date();
    doc.issue_time = now.time();
    if let Some(reference) = &mut doc.billing_reference {
        *reference = Document::billing_reference_for("INV-0001", now.date());
    }
    compute_document(&mut doc).unwrap();
    doc
}

/// The documents under test: every kind, standard and simplified, Arabic text, all four VAT
/// categories, document and line discounts and charges, a price discount, a foreign currency.
fn documents() -> Vec<(&'static str, Document)> {
    let standard = example::standard_invoice("INV-0001");

    let mut simplified = example::simplified_invoice("SIM-0001");
    simplified.payment_means = Some("cash".into());
    simplified.invoice_lines.push(example::line(
        4,
        "تأمين | Insurance",
        dec!(1),
        dec!(50),
        example::exempt_financial(),
    ));

    let mut credit = example::credit_note("CRN-0001", "INV-0001");
    credit.payment_means = Some("bank-payment".into());
    credit.invoice_lines.push(example::line(
        2,
        "رسوم حكومية | Government fee",
        dec!(1),
        dec!(25),
        example::out_of_scope(),
    ));
    credit.invoice_lines.push(example::line(
        3,
        "خدمة مالية | Financial service",
        dec!(2),
        dec!(12.5),
        example::exempt_financial(),
    ));

    let mut debit = example::debit_note("DBN-0001", "SIM-0001");
    debit.invoice_type = InvoiceType::Simplified;
    debit.customer_info = Party::default();
    debit.payment_means = None;
    debit.invoice_lines.push(example::line(
        2,
        "كتاب | Book",
        dec!(1),
        dec!(40),
        TaxCategory::new("S", dec!(5)),
    ));
    debit.invoice_lines.push(example::line(
        3,
        "شحن دولي | Int'l freight",
        dec!(1),
        dec!(10),
        example::zero_rated_export(),
    ));

    // Line discount and charge, a price discount with base quantity, a document charge.
    let mut detailed = example::standard_invoice("INV/2026 #7 & Co");
    detailed.payment_means = Some("card".into());
    detailed.note = Some("ملاحظة: <مهم> & \"عاجل\"\r\n\tline two ]]> end".into());
    detailed.customer_info.party_identification = Some(PartyIdentification {
        scheme: "CRN".into(),
        id: "1010010001".into(),
    });
    let line = &mut detailed.invoice_lines[0];
    line.allowance_charges = vec![
        LineAllowanceCharge {
            charge_indicator: false,
            reason: "Loyalty discount | خصم".into(),
            reason_code: Some("95".into()),
            amount: dec!(5),
        },
        LineAllowanceCharge {
            charge_indicator: true,
            reason: "Packing".into(),
            reason_code: Some("ABL".into()),
            amount: dec!(2.5),
        },
    ];
    let line = &mut detailed.invoice_lines[1];
    line.price.base_quantity = Some(dec!(1));
    line.price.allowance_charge = Some(PriceAllowanceCharge {
        charge_indicator: false,
        reason: "discount".into(),
        amount: dec!(2.5),
        base_amount: dec!(60),
        currency: "SAR".into(),
    });
    detailed.allowance_charge.0.push(AllowanceCharge {
        charge_indicator: true,
        reason: "Freight | شحن".into(),
        reason_code: Some("FC".into()),
        amount: dec!(20),
        base_amount: None,
        multiplier_factor: None,
        currency: "SAR".into(),
        tax_category: TaxCategory::new("S", dec!(15)),
    });

    let mut foreign = example::standard_invoice("USD-0001");
    foreign.doc_currency_code = "USD".into();
    foreign.tax_exchange_rate = Some(dec!(3.75));

    vec![
        ("standard-invoice", standard),
        ("simplified-invoice", simplified),
        ("standard-credit-note", credit),
        ("simplified-debit-note", debit),
        ("standard-invoice-detailed", detailed),
        ("standard-invoice-usd", foreign),
    ]
    .into_iter()
    .map(|(name, doc)| (name, dated(doc)))
    .collect()
}

fn chain(icv: u64, pih: &str) -> ChainPosition {
    ChainPosition { icv, pih: pih.into() }
}

fn issue_all() -> Vec<(&'static str, Document, Issued)> {
    let mut pih = GENESIS_PIH.to_string();
    let mut out = Vec::new();
    for (i, (name, doc)) in documents().into_iter().enumerate() {
        let issued = issue(
            &doc,
            uuid::Uuid::new_v4(),
            &chain(i as u64 + 1, &pih),
            identity(),
            riyadh_now(),
        )
        .unwrap();
        pih = issued.invoice_hash.clone();
        out.push((name, doc, issued));
    }
    out
}

/// The text between the first `start` and the next `end`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap_or_else(|| panic!("{start} not found")) + start.len();
    let to = from + text[from..].find(end).unwrap_or_else(|| panic!("{end} not found"));
    &text[from..to]
}

/// Remove the element that starts at `open` (first occurrence after `from`) through its `close`.
fn cut(text: &str, open_at: usize, close: &str) -> String {
    let end = open_at + text[open_at..].find(close).unwrap() + close.len();
    format!("{}{}", &text[..open_at], &text[end..])
}

/// Strip the three elements the hash leaves out (zatca.md §4), textually, keeping whitespace.
fn strip_for_hash(xml: &str) -> String {
    let xml = cut(xml, xml.find("<ext:UBLExtensions>").unwrap(), "</ext:UBLExtensions>");
    let qr_id = xml.find("<cbc:ID>QR</cbc:ID>").unwrap();
    let qr_start = xml[..qr_id].rfind("<cac:AdditionalDocumentReference>").unwrap();
    let xml = cut(&xml, qr_start, "</cac:AdditionalDocumentReference>");
    cut(&xml, xml.find("<cac:Signature>").unwrap(), "</cac:Signature>")
}

/// The invoice hash recomputed independently: strip, `xmllint --c14n11`, SHA-256, base64.
fn xmllint_hash(xml: &str) -> String {
    require_tool("xmllint", "--version", "libxml2-utils");
    let mut child = Command::new("xmllint")
        .args(["--c14n11", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(strip_for_hash(xml).as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "xmllint: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    STANDARD.encode(Sha256::digest(&out.stdout))
}

// ---------------------------------------------------------------------------------------------
// Tests

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

/// Verify a document's signature with nothing but the XML: the certificate it carries, its
/// DigestValue and SignatureValue (ECDSA over SHA-256 of the raw hash bytes, zatca.md §5.2).
fn verify_from_xml(xml: &str) {
    let cert_b64 = between(xml, "<ds:X509Certificate>", "</ds:X509Certificate>");
    let cert = Certificate::from_der(&STANDARD.decode(cert_b64).unwrap()).unwrap();
    let spki = cert.tbs_certificate().subject_public_key_info().to_der().unwrap();
    let key = VerifyingKey::from_public_key_der(&spki).unwrap();
    let hash = STANDARD
        .decode(between(xml, "<ds:DigestValue>", "</ds:DigestValue>"))
        .unwrap();
    assert_eq!(hash.len(), 32);
    let sig = STANDARD
        .decode(between(xml, "<ds:SignatureValue>", "</ds:SignatureValue>"))
        .unwrap();
    let sig = Signature::from_der(&sig).unwrap().normalize_s();
    key.verify(&hash, &sig).expect("signature over the raw hash bytes");
    // The same check through the library's verifier.
    signature::verify(
        &STANDARD.decode(cert_b64).unwrap(),
        &STANDARD.encode(&hash),
        between(xml, "<ds:SignatureValue>", "</ds:SignatureValue>"),
    )
    .unwrap();
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

//! Helpers of tests/sandbox_xml.rs: the documents under test, the shared folder, and the
//! outside oracles (xmllint, the certificate in the XML).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{Duration, NaiveDateTime, Timelike};
use invoicedrop::compute::compute_document;
use invoicedrop::model::{
    AllowanceCharge, Document, InvoiceType, LineAllowanceCharge, Party, PartyIdentification, PriceAllowanceCharge,
    TaxCategory, example,
};
use invoicedrop::sandbox::issue::{ChainPosition, GENESIS_PIH, Identity, Issued, issue};
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
pub fn shared_dir() -> PathBuf {
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

pub fn sdk(path: &str) -> PathBuf {
    shared_dir().join("reference/zatca-sdk").join(path)
}

pub fn require_tool(program: &str, arg: &str, install: &str) {
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

pub fn identity() -> &'static Identity {
    static ID: OnceLock<Identity> = OnceLock::new();
    ID.get_or_init(|| Identity::load_or_create(None, example::SELLER_VAT, "شركة التوريد السريع").unwrap())
}

/// Now in Riyadh (UTC+3, no daylight saving), minus a few minutes, to the second.
pub fn riyadh_now() -> NaiveDateTime {
    let t = chrono::Utc::now().naive_utc() + Duration::hours(3) - Duration::minutes(5);
    t.with_nanosecond(0).unwrap()
}

pub fn dated(mut doc: Document) -> Document {
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
pub fn documents() -> Vec<(&'static str, Document)> {
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

pub fn chain(icv: u64, pih: &str) -> ChainPosition {
    ChainPosition { icv, pih: pih.into() }
}

pub fn issue_all() -> Vec<(&'static str, Document, Issued)> {
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
pub fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap_or_else(|| panic!("{start} not found")) + start.len();
    let to = from + text[from..].find(end).unwrap_or_else(|| panic!("{end} not found"));
    &text[from..to]
}

/// Remove the text from `open_at` through the next `close`.
pub fn cut(text: &str, open_at: usize, close: &str) -> String {
    let end = open_at + text[open_at..].find(close).unwrap() + close.len();
    format!("{}{}", &text[..open_at], &text[end..])
}

/// Strip the three elements the hash leaves out (zatca.md §4), textually, keeping whitespace.
pub fn strip_for_hash(xml: &str) -> String {
    let xml = cut(xml, xml.find("<ext:UBLExtensions>").unwrap(), "</ext:UBLExtensions>");
    let qr_id = xml.find("<cbc:ID>QR</cbc:ID>").unwrap();
    let qr_start = xml[..qr_id].rfind("<cac:AdditionalDocumentReference>").unwrap();
    let xml = cut(&xml, qr_start, "</cac:AdditionalDocumentReference>");
    cut(&xml, xml.find("<cac:Signature>").unwrap(), "</cac:Signature>")
}

/// The invoice hash recomputed independently: strip, `xmllint --c14n11`, SHA-256, base64.
pub fn xmllint_hash(xml: &str) -> String {
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

/// Verify a document's signature with nothing but the XML: the certificate it carries, its
/// DigestValue and SignatureValue (ECDSA over SHA-256 of the raw hash bytes, zatca.md §5.2).
pub fn verify_from_xml(xml: &str) {
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

//! The sandbox authority's signing identity: a secp256k1 key and a self-signed certificate
//! (ECDSA with SHA-256), with everything a signature needs computed once.
//!
//! On disk (when the sandbox has a state folder) the key is `sandbox-key.pem` (SEC1
//! `EC PRIVATE KEY` PEM, readable by OpenSSL; owner-only permissions on Unix) and the certificate
//! `sandbox-cert.pem`. Both are loaded back as they are, so a restarted sandbox signs with the same
//! certificate bytes. Loading also accepts PKCS#8 PEM keys and the authority SDK's unarmoured base64
//! DER files.

use super::hash::{base64, hex_digest_base64};
use super::issue::IssueError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use k256::SecretKey;
use k256::ecdsa::{DerSignature, SigningKey};
use k256::pkcs8::{DecodePrivateKey, EncodePublicKey};
use rand::RngCore;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;
use x509_cert::Certificate;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::certificate::TbsCertificate;
use x509_cert::der::pem::LineEnding;
use x509_cert::der::{Decode, DecodePem, Encode, EncodePem};
use x509_cert::ext::pkix::{BasicConstraints, KeyUsage, KeyUsages, SubjectKeyIdentifier};
use x509_cert::ext::{Extension, ToExtension};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{SubjectPublicKeyInfoOwned, SubjectPublicKeyInfoRef};
use x509_cert::time::Validity;

/// File name of the stored private key.
pub const KEY_FILE: &str = "sandbox-key.pem";
/// File name of the stored certificate.
pub const CERT_FILE: &str = "sandbox-cert.pem";

/// How long a new certificate is valid.
const VALIDITY: Duration = Duration::from_secs(10 * 365 * 24 * 60 * 60);

/// The sandbox's signing key and self-signed secp256k1 certificate.
pub struct Identity {
    key: SigningKey,
    certificate_der: Vec<u8>,
    certificate_base64: String,
    certificate_digest: String,
    issuer_name: String,
    serial_decimal: String,
    public_key_der: Vec<u8>,
    certificate_signature: Vec<u8>,
    subject: String,
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("subject", &self.subject)
            .field("serial", &self.serial_decimal)
            .field("certificate_digest", &self.certificate_digest)
            .field("key", &"<redacted>")
            .finish()
    }
}

impl Identity {
    /// Load key and certificate from `dir` ([`KEY_FILE`], [`CERT_FILE`]) or, when neither exists,
    /// create them for `vat_number` and `org_name` and store them there; in memory only when `dir`
    /// is `None`. One file without the other is an error (nothing is overwritten).
    pub fn load_or_create(dir: Option<&Path>, vat_number: &str, org_name: &str) -> Result<Identity, IssueError> {
        let Some(dir) = dir else {
            return Identity::create(vat_number, org_name).map(|(identity, _)| identity);
        };
        let key_path = dir.join(KEY_FILE);
        let cert_path = dir.join(CERT_FILE);
        match (key_path.exists(), cert_path.exists()) {
            (true, true) => {
                let key = read(&key_path)?;
                let cert = read(&cert_path)?;
                Identity::from_pem(&key, &cert).map_err(|e| match e {
                    IssueError::KeyMismatch { .. } => IssueError::KeyMismatch { dir: dir.to_path_buf() },
                    other => other,
                })
            }
            (false, false) => {
                let (identity, key_pem) = Identity::create(vat_number, org_name)?;
                std::fs::create_dir_all(dir).map_err(|source| io(dir, source))?;
                let cert_pem = Certificate::from_der(&identity.certificate_der)
                    .and_then(|c| c.to_pem(LineEnding::LF))
                    .map_err(|e| IssueError::Certificate(e.to_string()))?;
                write_atomic(&key_path, key_pem.as_bytes(), true)?;
                write_atomic(&cert_path, cert_pem.as_bytes(), false)?;
                Ok(identity)
            }
            (key_present, _) => {
                let (present, missing) = if key_present {
                    (key_path, cert_path)
                } else {
                    (cert_path, key_path)
                };
                Err(IssueError::IncompleteIdentity { present, missing })
            }
        }
    }

    /// An identity from a private key and its certificate: PEM (SEC1 `EC PRIVATE KEY`, PKCS#8
    /// `PRIVATE KEY`, `CERTIFICATE`) or bare base64 DER as the authority's SDK ships them. The
    /// certificate must carry the key's public key.
    pub fn from_pem(key: &str, certificate: &str) -> Result<Identity, IssueError> {
        let key = parse_key(key)?;
        let cert = parse_certificate(certificate)?;
        Identity::from_parts(key, &cert)
    }

    /// The certificate, DER.
    pub fn certificate_der(&self) -> &[u8] {
        &self.certificate_der
    }

    /// The certificate as `ds:X509Certificate` carries it: base64 of the DER.
    pub fn certificate_base64(&self) -> &str {
        &self.certificate_base64
    }

    /// The public key as DER SubjectPublicKeyInfo (QR tag 8).
    pub fn public_key_der(&self) -> &[u8] {
        &self.public_key_der
    }

    pub(crate) fn signing_key(&self) -> &SigningKey {
        &self.key
    }

    /// `xades:CertDigest/ds:DigestValue`: base64 of the hex SHA-256 of the base64 certificate text.
    pub(crate) fn certificate_digest(&self) -> &str {
        &self.certificate_digest
    }

    /// `ds:X509IssuerName`: the issuer's RDNs in RFC 4514 (reversed) order, joined by `", "`.
    pub(crate) fn issuer_name(&self) -> &str {
        &self.issuer_name
    }

    /// `ds:X509SerialNumber`: the certificate serial in decimal.
    pub(crate) fn serial_decimal(&self) -> &str {
        &self.serial_decimal
    }

    /// The certificate's signature bytes (QR tag 9).
    pub(crate) fn certificate_signature(&self) -> &[u8] {
        &self.certificate_signature
    }

    fn from_parts(key: SigningKey, cert: &Certificate) -> Result<Identity, IssueError> {
        let cert_err = |e: x509_cert::der::Error| IssueError::Certificate(e.to_string());
        let tbs = cert.tbs_certificate();
        let public_key_der = tbs.subject_public_key_info().to_der().map_err(cert_err)?;
        let own_public_key = key
            .verifying_key()
            .to_public_key_der()
            .map_err(|e| IssueError::Key(e.to_string()))?;
        if own_public_key.as_bytes() != public_key_der.as_slice() {
            return Err(IssueError::KeyMismatch { dir: PathBuf::new() });
        }
        let certificate_der = cert.to_der().map_err(cert_err)?;
        let certificate_base64 = base64(&certificate_der);
        Ok(Identity {
            certificate_digest: hex_digest_base64(certificate_base64.as_bytes()),
            issuer_name: rfc4514_reversed(tbs.issuer()),
            serial_decimal: to_decimal(tbs.serial_number().as_bytes()),
            certificate_signature: cert.signature().raw_bytes().to_vec(),
            subject: tbs.subject().to_string(),
            key,
            certificate_der,
            certificate_base64,
            public_key_der,
        })
    }

    /// A new key and self-signed certificate; returns the key's PEM too.
    fn create(vat_number: &str, org_name: &str) -> Result<(Identity, String), IssueError> {
        let key = random_key();
        let org = org_name.trim();
        let org = if org.is_empty() { "invoicedrop sandbox" } else { org };
        let subject = format!(
            "CN={},OU={},O={},C=SA",
            rfc4514_escape(&format!("SANDBOX-{}", vat_number.trim())),
            rfc4514_escape("invoicedrop sandbox authority"),
            rfc4514_escape(org)
        );
        let subject = Name::from_str(&subject).map_err(|e| IssueError::Certificate(format!("subject: {e}")))?;
        let mut serial = [0u8; 16];
        rand::rng().fill_bytes(&mut serial);
        serial[0] = (serial[0] & 0x3f) | 0x40; // positive, 16 significant bytes
        let build_err = |e: x509_cert::builder::Error| IssueError::Certificate(e.to_string());
        let serial = SerialNumber::new(&serial).map_err(|e| IssueError::Certificate(e.to_string()))?;
        let validity = Validity::from_now(VALIDITY).map_err(|e| IssueError::Certificate(e.to_string()))?;
        let spki = SubjectPublicKeyInfoOwned::from_key(key.verifying_key())
            .map_err(|e| IssueError::Certificate(e.to_string()))?;
        let cert = CertificateBuilder::new(SandboxProfile { subject }, serial, validity, spki)
            .map_err(build_err)?
            .build::<_, DerSignature>(&key)
            .map_err(build_err)?;
        let key_pem = SecretKey::from(key.as_nonzero_scalar())
            .to_sec1_pem(LineEnding::LF)
            .map_err(|e| IssueError::Key(e.to_string()))?;
        let identity = Identity::from_parts(key, &cert)?;
        Ok((identity, key_pem.to_string()))
    }
}

/// The certificate profile: self-issued, a signing (not CA) certificate.
struct SandboxProfile {
    subject: Name,
}

impl BuilderProfile for SandboxProfile {
    fn get_issuer(&self, subject: &Name) -> Name {
        subject.clone()
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        let mut extensions = Vec::new();
        let ski = SubjectKeyIdentifier::try_from(spk)?;
        extensions.push(ski.to_extension(tbs.subject(), &extensions)?);
        let bc = BasicConstraints {
            ca: false,
            path_len_constraint: None,
        };
        extensions.push(bc.to_extension(tbs.subject(), &extensions)?);
        let ku = KeyUsage(KeyUsages::DigitalSignature | KeyUsages::NonRepudiation);
        extensions.push(ku.to_extension(tbs.subject(), &extensions)?);
        Ok(extensions)
    }
}

fn random_key() -> SigningKey {
    let mut rng = rand::rng();
    loop {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        // Fails only for zero or a value ≥ the group order (probability ~2⁻¹²⁸): draw again.
        if let Ok(key) = SigningKey::from_slice(&bytes) {
            return key;
        }
    }
}

fn io(path: &Path, source: std::io::Error) -> IssueError {
    IssueError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn read(path: &Path) -> Result<String, IssueError> {
    std::fs::read_to_string(path).map_err(|source| io(path, source))
}

/// Write `bytes` beside `path` and rename into place, so a crash never leaves half a file.
fn write_atomic(path: &Path, bytes: &[u8], private: bool) -> Result<(), IssueError> {
    let tmp = path.with_extension("pem.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options.open(&tmp).map_err(|source| io(&tmp, source))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|source| io(&tmp, source))?;
    std::fs::rename(&tmp, path).map_err(|source| io(path, source))
}

/// Base64 DER from text that is either PEM with the given label or bare base64.
fn der_from_text(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .flat_map(|l| l.chars())
        .filter(|c| !c.is_whitespace())
        .collect();
    STANDARD.decode(body)
}

fn parse_key(text: &str) -> Result<SigningKey, IssueError> {
    let err = |what: &str| IssueError::Key(format!("not a secp256k1 private key ({what})"));
    let text = text.trim();
    if text.contains("-----BEGIN PRIVATE KEY-----") {
        return SigningKey::from_pkcs8_pem(text).map_err(|_| err("PKCS#8"));
    }
    let der = der_from_text(text).map_err(|_| err("base64"))?;
    if let Ok(secret) = SecretKey::from_sec1_der(&der) {
        return Ok(SigningKey::from(secret));
    }
    SigningKey::from_pkcs8_der(&der).map_err(|_| err("SEC1 or PKCS#8 DER"))
}

fn parse_certificate(text: &str) -> Result<Certificate, IssueError> {
    let text = text.trim();
    if text.starts_with("-----BEGIN CERTIFICATE-----") {
        return Certificate::from_pem(text).map_err(|e| IssueError::Certificate(e.to_string()));
    }
    let der = der_from_text(text).map_err(|e| IssueError::Certificate(format!("base64: {e}")))?;
    Certificate::from_der(&der).map_err(|e| IssueError::Certificate(e.to_string()))
}

/// Escape a value for an RFC 4514 string.
fn rfc4514_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | '"' | '+' | ',' | ';' | '<' | '>' | '=' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The name as `ds:X509IssuerName` shows it: RDNs last to first (RFC 4514 order), `", "` between.
fn rfc4514_reversed(name: &Name) -> String {
    let rdns: Vec<String> = name.iter_rdn().map(|rdn| rdn.to_string()).collect();
    let mut out = String::new();
    for (i, rdn) in rdns.iter().rev().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(rdn);
    }
    out
}

/// A big-endian unsigned integer in decimal.
fn to_decimal(be: &[u8]) -> String {
    let mut digits: Vec<u8> = Vec::new(); // little-endian base 10⁹ limbs would be faster; serials are short
    let mut number: Vec<u8> = be.iter().copied().skip_while(|b| *b == 0).collect();
    while !number.is_empty() {
        let mut rem: u32 = 0;
        let mut quotient = Vec::with_capacity(number.len());
        for &b in &number {
            let acc = (rem << 8) | u32::from(b);
            let q = (acc / 10) as u8;
            rem = acc % 10;
            if !(quotient.is_empty() && q == 0) {
                quotient.push(q);
            }
        }
        digits.push(b'0' + rem as u8);
        number = quotient;
    }
    if digits.is_empty() {
        return "0".to_string();
    }
    digits.iter().rev().map(|d| char::from(*d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_of_big_serials() {
        assert_eq!(to_decimal(&[]), "0");
        assert_eq!(to_decimal(&[0, 0]), "0");
        assert_eq!(to_decimal(&[1, 0]), "256");
        assert_eq!(to_decimal(&u64::MAX.to_be_bytes()), u64::MAX.to_string());
        // zatca.md §5.4: hex 6f00007fcb…7fcb.
        let sdk = hex::decode("1100003803c5f74023b3fc5c5f000100003803").unwrap();
        assert_eq!(to_decimal(&sdk), "379112742831380471835263969587287663520528387");
    }

    #[test]
    fn a_new_identity_is_self_signed_with_the_vat_in_its_subject() {
        let id = Identity::load_or_create(None, "399999999900003", "شركة & Co, \"Ltd\"").unwrap();
        assert!(id.subject.contains("SANDBOX-399999999900003"), "{}", id.subject);
        assert!(
            id.issuer_name.starts_with("CN=SANDBOX-399999999900003, OU="),
            "{}",
            id.issuer_name
        );
        assert!(id.issuer_name.ends_with(", C=SA"), "{}", id.issuer_name);
        assert!(id.issuer_name.contains("شركة & Co"), "{}", id.issuer_name);
        assert!((38..=39).contains(&id.serial_decimal.len()), "{}", id.serial_decimal);
        assert_eq!(id.public_key_der.len(), 88);
        let cert = Certificate::from_der(id.certificate_der()).unwrap();
        assert_eq!(cert.tbs_certificate().issuer(), cert.tbs_certificate().subject());
    }

    #[test]
    fn debug_does_not_print_the_key() {
        let id = Identity::load_or_create(None, "399999999900003", "Org").unwrap();
        let debug = format!("{id:?}");
        let scalar = hex::encode(id.key.to_bytes());
        assert!(!debug.contains(&scalar));
        assert!(!debug.to_lowercase().contains(&scalar[..16]));
        assert!(debug.contains("redacted"));
    }

    #[test]
    fn half_an_identity_on_disk_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CERT_FILE), "x").unwrap();
        let err = Identity::load_or_create(Some(dir.path()), "399999999900003", "Org").unwrap_err();
        assert!(matches!(err, IssueError::IncompleteIdentity { .. }), "{err}");
    }

    #[test]
    fn a_certificate_of_another_key_is_refused() {
        let a = Identity::load_or_create(None, "399999999900003", "A").unwrap();
        let b = Identity::load_or_create(None, "399999999900003", "B").unwrap();
        let key_pem = SecretKey::from(a.key.as_nonzero_scalar())
            .to_sec1_pem(LineEnding::LF)
            .unwrap();
        let err = Identity::from_pem(&key_pem, b.certificate_base64()).unwrap_err();
        assert!(matches!(err, IssueError::KeyMismatch { .. }), "{err}");
    }
}

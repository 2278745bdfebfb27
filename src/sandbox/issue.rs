// TEMPORARY stand-in: replaced by the sandbox-xml branch at merge
//! Issuing a document: UBL XML, invoice hash, signature and QR (stand-in).
//!
//! This file only keeps the interface of the real module so that the server can be built and tested
//! in parallel. The XML it makes is a placeholder that carries the same ICV and PIH fragments as the
//! real one; the hash is the SHA-256 of those bytes and the QR is the base64 of the number.

use crate::model::Document;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The previous-invoice hash of the first document of a device (SHA-256 of `"0"`, base64 of its hex).
pub const GENESIS_PIH: &str =
    "NWZlY2ViNjZmZmM4NmYzOGQ5NTI3ODZjNmQ2OTZjNzljMmRiYzIzOWRkNGU5MWI0NjcyOWQ3M2EyN2ZiNTdlOQ==";

/// The signing key and certificate of one device (stand-in: no key at all).
#[derive(Debug)]
pub struct Identity {
    certificate: Vec<u8>,
}

impl Identity {
    /// Load the identity kept in `dir`, or create one (and keep it there when `dir` is given).
    pub fn load_or_create(
        dir: Option<&std::path::Path>,
        vat_number: &str,
        org_name: &str,
    ) -> Result<Identity, IssueError> {
        if let Some(dir) = dir {
            std::fs::create_dir_all(dir).map_err(|e| IssueError::Identity(format!("{}: {e}", dir.display())))?;
        }
        Ok(Identity {
            certificate: format!("stand-in certificate {vat_number} {org_name}").into_bytes(),
        })
    }

    /// The certificate, DER.
    pub fn certificate_der(&self) -> &[u8] {
        &self.certificate
    }
}

/// Where a document sits in its device's chain: its counter (ICV) and the previous hash (PIH).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainPosition {
    /// The invoice counter value, from 1.
    pub icv: u64,
    /// The previous invoice's hash, base64; [`GENESIS_PIH`] for the first.
    pub pih: String,
}

/// An issued document.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The document's UUID.
    pub uuid: uuid::Uuid,
    /// The signed XML.
    pub xml: Vec<u8>,
    /// The invoice hash, base64: the next document's PIH.
    pub invoice_hash: String,
    /// The QR payload, base64.
    pub qr: String,
    /// The authority's file name for the XML.
    pub file_name: String,
}

/// Why a document could not be issued.
#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    /// The identity could not be loaded or created.
    #[error("identity: {0}")]
    Identity(String),
    /// A value holds a character XML cannot carry.
    #[error("{element}: the character U+{code_point:04X} cannot appear in XML; remove it from the value")]
    InvalidCharacter {
        /// The XML element of the value.
        element: String,
        /// The character.
        code_point: u32,
    },
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Issue a document at a chain position.
pub fn issue(
    doc: &Document,
    uuid: uuid::Uuid,
    chain: &ChainPosition,
    _identity: &Identity,
    signing_time: chrono::NaiveDateTime,
) -> Result<Issued, IssueError> {
    for (element, value) in [("cbc:ID", Some(doc.number.as_str())), ("cbc:Note", doc.note.as_deref())] {
        if let Some(c) = value
            .unwrap_or_default()
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        {
            return Err(IssueError::InvalidCharacter {
                element: element.into(),
                code_point: c as u32,
            });
        }
    }
    let xml = format!(
        "<Invoice><cbc:ID>{}</cbc:ID><cbc:UUID>{uuid}</cbc:UUID><cbc:IssueDate>{}</cbc:IssueDate>\
         <cac:AdditionalDocumentReference><cbc:ID>ICV</cbc:ID><cbc:UUID>{}</cbc:UUID></cac:AdditionalDocumentReference>\
         <cac:AdditionalDocumentReference><cbc:ID>PIH</cbc:ID><cac:Attachment>\
         <cbc:EmbeddedDocumentBinaryObject mimeCode=\"text/plain\">{}</cbc:EmbeddedDocumentBinaryObject>\
         </cac:Attachment></cac:AdditionalDocumentReference><SigningTime>{}</SigningTime></Invoice>",
        escape(&doc.number),
        doc.issue_date.format("%Y-%m-%d"),
        chain.icv,
        escape(&chain.pih),
        signing_time.format("%Y-%m-%dT%H:%M:%S"),
    )
    .into_bytes();
    let invoice_hash = STANDARD.encode(Sha256::digest(&xml));
    let file_name = format!(
        "{}_{}_{}.xml",
        doc.supplier_info.vat_number.as_deref().unwrap_or_default(),
        doc.issue_date.format("%Y%m%d"),
        doc.number
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
    );
    Ok(Issued {
        uuid,
        xml,
        invoice_hash,
        qr: STANDARD.encode(doc.number.as_bytes()),
        file_name,
    })
}

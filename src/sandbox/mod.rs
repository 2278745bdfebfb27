//! The sandbox authority: the server side of the API (spec/api.md, spec/decisions.md), with the
//! authority's UBL XML, hash chain, signature and QR. Depends on `model`, `compute` and
//! `validate` only, never on the client side.

// Document production (UBL XML, invoice hash, XAdES signature, certificate, QR).
pub mod hash;
pub mod identity;
pub mod issue;
pub mod qr;
pub mod signature;
pub mod ubl;
mod xml;

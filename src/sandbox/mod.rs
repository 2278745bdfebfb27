//! The sandbox authority: the server side of the API (spec/api.md, spec/decisions.md), with the
//! authority's UBL XML, hash chain, signature and QR. Depends on `model`, `compute` and
//! `validate` only, never on the client side.

//! The authority's rules that can be checked before sending, plus this project's own (`INV-...`).
//!
//! Every finding has the authority's rule id as its code, a severity, the path of the field it is
//! about (`invoice_lines[2].price.price_per_unit`) and a message a clerk understands.

mod finding;

pub use finding::{Finding, Severity};

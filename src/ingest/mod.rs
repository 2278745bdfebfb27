//! Rows from CSV files and spreadsheets, streamed, with their source position.
//!
//! This module knows nothing about invoices: it yields header-keyed cells.

mod row;

pub use row::{Cell, Row, SourceRef};

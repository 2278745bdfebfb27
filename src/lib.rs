//! invoicedrop: ERP invoice exports in, legally issued e-invoices out.
//!
//! The pipeline (see `design.md`): ingest → mapping → group → compute ∥ validate → submit →
//! results. This crate is the library behind the `invoicedrop` binary; the sandbox authority
//! lives here too so that tests and a first run need no network.

#![warn(missing_docs)]

pub mod alloc;
pub mod cli;
pub mod commands;
pub mod compute;
pub mod config;
pub mod generate;
pub mod ingest;
pub mod logging;
pub mod mapping;
pub mod model;
pub mod pipeline;
pub mod results;
pub mod sandbox;
pub mod submit;
pub mod text;
pub mod validate;
pub mod watch;

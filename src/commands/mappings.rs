//! `invoicedrop mappings`.

use super::Status;
use crate::cli::*;

/// Run `invoicedrop mappings`.
pub fn mappings(_args: MappingsArgs, _cli: &Cli) -> anyhow::Result<Status> {
    anyhow::bail!("`invoicedrop mappings` is not built yet")
}

//! `invoicedrop check`.

use super::Status;
use crate::cli::*;

/// Run `invoicedrop check`.
pub fn check(_args: CheckArgs, _cli: &Cli) -> anyhow::Result<Status> {
    anyhow::bail!("`invoicedrop check` is not built yet")
}

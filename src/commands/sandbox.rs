//! `invoicedrop sandbox`.

use super::Status;
use crate::cli::*;

/// Run `invoicedrop sandbox`.
pub fn sandbox(_args: SandboxArgs, _cli: &Cli) -> anyhow::Result<Status> {
    anyhow::bail!("`invoicedrop sandbox` is not built yet")
}

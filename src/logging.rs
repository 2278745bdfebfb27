//! Logs go through `tracing` to stderr; `RUST_LOG` overrides the level the flags choose.

use tracing_subscriber::EnvFilter;

/// Install the stderr logger: warnings by default, errors only with `-q`, info with `-v`,
/// debug with `-vv`. `watch` also logs one line per file taken, done or failed (info) unless
/// `-q`.
pub fn init(quiet: bool, verbose: u8, watch: bool) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        let mut directives = format!("invoicedrop={level},{level}");
        if watch && !quiet && verbose == 0 {
            directives.push_str(",invoicedrop::commands::watch=info");
        }
        EnvFilter::new(directives)
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

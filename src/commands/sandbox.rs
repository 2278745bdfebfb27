//! `invoicedrop sandbox`: the sandbox authority as a server, until Ctrl-C or SIGTERM.

use super::Status;
use crate::cli::*;
use crate::model::Secret;
use crate::sandbox::{self, SandboxConfig};
use anyhow::Context as _;
use std::io::Write;

/// Run `invoicedrop sandbox`.
pub fn sandbox(args: SandboxArgs, cli: &Cli) -> anyhow::Result<Status> {
    let secret_from_env = std::env::var(sandbox::SECRET_ENV).ok().filter(|s| !s.is_empty());
    let config = SandboxConfig {
        bind: args.bind,
        port: args.port,
        state: args.state,
        token_ttl: args.token_ttl,
        rate: args.rate,
        fail_rate: args.fail_rate,
        drop_rate: args.drop_rate,
        delay_ms: args.delay_ms,
        vat_number: args.vat_number,
        username: args.username,
        secret: Secret::new(secret_from_env.as_deref().unwrap_or(sandbox::DEFAULT_SECRET)),
        otp: Secret::new(args.otp),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let banner = Banner::new(&config, secret_from_env.is_some());
        let handle = sandbox::start(config).await?;
        banner.print(&handle.base_url(), cli.json)?;
        stop_signal().await;
        if !cli.quiet {
            eprintln!("invoicedrop sandbox: stopping");
        }
        handle.shutdown().await;
        Ok(Status::Success)
    })
}

/// What the start-up message shows; the secret only when it is the documented default.
struct Banner {
    vat_number: String,
    username: String,
    secret: Option<String>,
    otp: String,
    state: String,
    faults: String,
}

impl Banner {
    fn new(config: &SandboxConfig, secret_from_env: bool) -> Banner {
        let f = config.faults();
        let mut faults = Vec::new();
        if f.rate > 0 {
            faults.push(format!("rate {}/s", f.rate));
        }
        if f.fail_rate > 0.0 {
            faults.push(format!("fail-rate {}", f.fail_rate));
        }
        if f.drop_rate > 0.0 {
            faults.push(format!("drop-rate {}", f.drop_rate));
        }
        if f.delay_ms > 0 {
            faults.push(format!("delay {} ms", f.delay_ms));
        }
        Banner {
            vat_number: config.vat_number.clone(),
            username: config.username.clone(),
            secret: (!secret_from_env).then(|| config.secret.expose().to_string()),
            otp: config.otp.expose().to_string(),
            state: config
                .state
                .as_ref()
                .map_or_else(|| "in memory (lost at exit)".to_string(), |p| p.display().to_string()),
            faults: if faults.is_empty() {
                "none".into()
            } else {
                faults.join(", ")
            },
        }
    }

    fn print(&self, url: &str, json: bool) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        if json {
            let v = serde_json::json!({
                "url": url,
                "vat_number": self.vat_number,
                "username": self.username,
                "secret": self.secret,
                "secret_env": self.secret.is_none().then_some(sandbox::SECRET_ENV),
                "otp": self.otp,
                "state": self.state,
                "faults": self.faults,
            });
            // One line: scripts read it while the sandbox runs.
            drop(out);
            return super::json::emit_line(&v);
        } else {
            let secret = match &self.secret {
                Some(s) => s.clone(),
                None => format!("(from {})", sandbox::SECRET_ENV),
            };
            writeln!(out, "invoicedrop sandbox listening on {url}")?;
            writeln!(out, "  API base URL  {url}  (paths /v1/e-invoicing/...)")?;
            writeln!(out, "  VAT number    {}", self.vat_number)?;
            writeln!(out, "  username      {}", self.username)?;
            writeln!(out, "  secret        {secret}")?;
            writeln!(out, "  OTP           {}", self.otp)?;
            writeln!(out, "  state         {}", self.state)?;
            writeln!(out, "  faults        {}", self.faults)?;
            writeln!(
                out,
                "  test API      GET {url}/sandbox/stats, GET|POST {url}/sandbox/faults, POST {url}/sandbox/clock"
            )?;
            writeln!(out, "Ctrl-C stops it; -v logs one line per request.")?;
        }
        out.flush()?;
        Ok(())
    }
}

/// Ctrl-C, or SIGTERM on Unix.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

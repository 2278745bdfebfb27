//! SIGINT and SIGTERM during a `run`: the first stops the sending (no request starts after it,
//! the waits between requests end, the requests on the wire are answered or time out) and lets
//! the run finish its result files and summary; a second one quits at once (the ledger is
//! always consistent: the next run repeats what was left without an answer).

use super::runner::Runner;
use anyhow::Context as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// The signals a `run` listens for, once they are registered.
pub(super) struct Interrupt {
    flag: Arc<AtomicBool>,
    /// 0: none; 2: SIGINT; 15: SIGTERM.
    signal: Arc<AtomicU8>,
}

impl Interrupt {
    /// Listen for SIGINT and SIGTERM on `runner`'s runtime.
    pub(super) fn listen(runner: &Runner) -> anyhow::Result<Interrupt> {
        let flag = Arc::new(AtomicBool::new(false));
        let signal = Arc::new(AtomicU8::new(0));
        let (raised, which, sending) = (flag.clone(), signal.clone(), runner.halt());
        let _in_runtime = runner.runtime().enter();
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal as listen};
            let mut term = listen(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
            let mut int = listen(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
            runner.runtime().spawn(async move {
                let n = tokio::select! {
                    _ = int.recv() => 2,
                    _ = term.recv() => 15,
                };
                which.store(n, Ordering::SeqCst);
                raised.store(true, Ordering::SeqCst);
                sending.raise();
                crate::logging::line(format_args!(
                    "interrupted ({}): nothing more is sent; finishing the result files (again to quit at once)",
                    name(n)
                ));
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                std::process::exit(128 + i32::from(n));
            });
        }
        #[cfg(not(unix))]
        runner.runtime().spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                which.store(2, Ordering::SeqCst);
                raised.store(true, Ordering::SeqCst);
                sending.raise();
                let _ = tokio::signal::ctrl_c().await;
                std::process::exit(130);
            }
        });
        Ok(Interrupt { flag, signal })
    }

    /// Raised once a signal came.
    pub(super) fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// The signal that came (`SIGINT`, `SIGTERM`), if one did.
    pub(super) fn received(&self) -> Option<&'static str> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            n => Some(name(n)),
        }
    }
}

fn name(n: u8) -> &'static str {
    if n == 15 { "SIGTERM" } else { "SIGINT" }
}

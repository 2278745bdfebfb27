//! Starting and stopping the server: configuration, routes, the request log, graceful shutdown.

use super::auth::{self, Account, Tokens};
use super::conn::{Connection, KillableListener};
use super::control::{self, DocumentSummary, Stats};
use super::documents::{self, Dropped};
use super::faults::{Clock, FaultControl, Faults};
use super::onboarding;
use super::respond;
use super::state::Devices;
use crate::model::{Message, Secret};
use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The sandbox's default VAT number (D6).
pub const DEFAULT_VAT_NUMBER: &str = "399999999900003";
/// The sandbox's default user name (D6).
pub const DEFAULT_USERNAME: &str = "sandbox";
/// The sandbox's default secret (D6); `INVOICEDROP_SANDBOX_SECRET` replaces it for the command.
pub const DEFAULT_SECRET: &str = "sandbox-secret";
/// The sandbox's default OTP (D6).
pub const DEFAULT_OTP: &str = "123456";
/// The environment variable that sets the secret of `invoicedrop sandbox` (never a flag, D5).
pub const SECRET_ENV: &str = "INVOICEDROP_SANDBOX_SECRET";

/// Everything `invoicedrop sandbox` takes; `Default` gives the flags' defaults.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Address to listen on.
    pub bind: String,
    /// Port to listen on; 0 picks a free one.
    pub port: u16,
    /// Folder for devices, keys and accepted documents; in memory when `None`.
    pub state: Option<PathBuf>,
    /// Token lifetime in seconds.
    pub token_ttl: u64,
    /// Document requests per second beyond which the answer is 429 (0 = no limit).
    pub rate: u32,
    /// Fraction (0 to 1) of document requests answered 500 or 503.
    pub fail_rate: f64,
    /// Fraction (0 to 1) of accepted documents whose connection is dropped without an answer.
    pub drop_rate: f64,
    /// Delay added to every document request, in milliseconds.
    pub delay_ms: u64,
    /// The account's VAT number.
    pub vat_number: String,
    /// The account's user name.
    pub username: String,
    /// The account's secret.
    pub secret: Secret,
    /// The OTP onboarding accepts.
    pub otp: Secret,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        let f = Faults::default();
        SandboxConfig {
            bind: "127.0.0.1".into(),
            port: 9090,
            state: None,
            token_ttl: f.token_ttl,
            rate: f.rate,
            fail_rate: f.fail_rate,
            drop_rate: f.drop_rate,
            delay_ms: f.delay_ms,
            vat_number: DEFAULT_VAT_NUMBER.into(),
            username: DEFAULT_USERNAME.into(),
            secret: Secret::new(DEFAULT_SECRET),
            otp: Secret::new(DEFAULT_OTP),
        }
    }
}

impl SandboxConfig {
    /// The fault settings of this configuration.
    pub fn faults(&self) -> Faults {
        Faults {
            rate: self.rate,
            fail_rate: self.fail_rate,
            drop_rate: self.drop_rate,
            delay_ms: self.delay_ms,
            token_ttl: self.token_ttl,
        }
    }
}

/// Why the sandbox could not start.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}")]
    Bind {
        /// `bind:port` as configured.
        addr: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The state folder could not be read or written.
    #[error("sandbox state {}: {message}", path.display())]
    State {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A setting is out of range.
    #[error("invalid sandbox setting: {0}")]
    Config(String),
}

/// What the handlers share.
pub(crate) struct Shared {
    pub(crate) account: Account,
    pub(crate) tokens: Tokens,
    pub(crate) clock: Clock,
    pub(crate) faults: FaultControl,
    pub(crate) devices: Devices,
}

/// A running sandbox. Dropping it stops the server too (without waiting).
pub struct SandboxHandle {
    /// The address it listens on.
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for SandboxHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxHandle")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl SandboxHandle {
    /// `http://<addr>`: the base URL for the client (paths start with `/v1/e-invoicing`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stop accepting connections, let the requests under way finish (at most 10 s), and return.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let abort = self.task.abort_handle();
        if tokio::time::timeout(Duration::from_secs(10), &mut self.task)
            .await
            .is_err()
        {
            tracing::warn!("sandbox: requests still running after 10 s; stopping anyway");
            abort.abort();
        }
    }

    /// Per-device counts and fault counts.
    pub fn stats(&self) -> Stats {
        control::stats(&self.shared)
    }

    /// The accepted documents of a device in ICV order; `None` for an unknown onboard id.
    pub fn documents(&self, onboard_id: &str) -> Option<Vec<DocumentSummary>> {
        control::documents(&self.shared, onboard_id)
    }

    /// The fault settings.
    pub fn faults(&self) -> Faults {
        self.shared.faults.get()
    }

    /// Replace the fault settings.
    pub fn set_faults(&self, faults: Faults) -> Result<(), SandboxError> {
        self.shared.faults.set(faults).map(|_| ()).map_err(SandboxError::Config)
    }

    /// Move the sandbox's clock by `seconds` (token expiry, BR-KSA-98) instead of waiting.
    pub fn advance_clock(&self, seconds: i64) {
        self.shared.clock.advance(seconds);
    }
}

/// One line per request: method, path, status, milliseconds. Never a header, a body or a query.
async fn log_request(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let ms = started.elapsed().as_millis();
    let status = response.status().as_u16();
    if response.extensions().get::<Dropped>().is_some() {
        tracing::info!("{method} {path} {status} {ms}ms (connection dropped: drop fault)");
    } else {
        tracing::info!("{method} {path} {status} {ms}ms");
    }
    response
}

async fn no_route() -> Response {
    respond::failure(
        StatusCode::NOT_FOUND,
        "no such endpoint",
        vec![Message::error(
            "NOT-FOUND",
            "HTTP-Errors",
            "see spec/api.md for the endpoints",
        )],
    )
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/e-invoicing/auth", post(auth::authenticate))
        .route("/v1/e-invoicing/onboardings", post(onboarding::onboard))
        .route("/v1/e-invoicing/{onboard_id}/{endpoint}", post(documents::submit))
        .route("/sandbox/faults", get(control::get_faults).post(control::set_faults))
        .route("/sandbox/stats", get(control::get_stats))
        .route("/sandbox/devices/{onboard_id}/documents", get(control::get_documents))
        .route("/sandbox/clock", post(control::move_clock))
        .fallback(no_route)
        .layer(middleware::from_fn(log_request))
        .with_state(shared)
}

/// Start the sandbox on `config.bind:config.port` (port 0 picks a free one) and serve in a tokio
/// task until [`SandboxHandle::shutdown`] or the handle is dropped.
pub async fn start(config: SandboxConfig) -> Result<SandboxHandle, SandboxError> {
    let faults = config.faults();
    faults.check().map_err(SandboxError::Config)?;
    let state = config.state.clone();
    let devices = tokio::task::spawn_blocking(move || Devices::open(state.as_deref()))
        .await
        .map_err(|e| SandboxError::Config(format!("opening the state failed: {e}")))??;
    let addr = format!("{}:{}", config.bind, config.port);
    let listener = tokio::net::TcpListener::bind((config.bind.as_str(), config.port))
        .await
        .map_err(|source| SandboxError::Bind {
            addr: addr.clone(),
            source,
        })?;
    let local = listener
        .local_addr()
        .map_err(|source| SandboxError::Bind { addr, source })?;
    let shared = Arc::new(Shared {
        account: Account {
            vat_number: config.vat_number,
            username: config.username,
            secret: config.secret,
            otp: config.otp,
        },
        tokens: Tokens::default(),
        clock: Clock::default(),
        faults: FaultControl::new(faults),
        devices,
    });
    let app = router(shared.clone()).into_make_service_with_connect_info::<Connection>();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = axum::serve(KillableListener::new(listener), app).with_graceful_shutdown(async move {
        // A send or a dropped handle both stop the server.
        let _ = stopped.await;
    });
    let task = tokio::spawn(async move {
        if let Err(e) = server.await {
            tracing::error!("sandbox: the server stopped: {e}");
        }
    });
    tracing::info!("sandbox: listening on http://{local}");
    Ok(SandboxHandle {
        addr: local,
        shared,
        stop: Some(stop),
        task,
    })
}

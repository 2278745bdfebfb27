//! Sending documents to the e-invoicing API exactly once.
//!
//! The pieces, each in its own file:
//! - [`ApiSettings`] (`settings.rs`): where the API is, who we are, how fast we may go.
//! - [`ApiUrl`] (`url.rs`): a URL of the API, sent as configured and shown everywhere without the
//!   user name and password `INVOICEDROP_API_URL` may carry.
//! - the HTTP client (`client.rs`): auth, onboarding and the three document endpoints, with every
//!   answer classified per D16 and its raw bytes kept.
//! - the token (`token.rs`): one bearer token shared by every request, refreshed before it expires
//!   (single-flight) and once after a 401 (D4).
//! - the rate limit (`limit.rs`): a governor limiter that halves on 429 and recovers slowly, and a
//!   pause that holds every worker until `Retry-After` has passed.
//! - the retry policy (`retry.rs`): exponential backoff with jitter for unknown outcomes, and a
//!   breaker that switches to one probe at a time while the API is down.
//! - the stop request (`halt.rs`): a [`Halt`] raised by the watcher's SIGTERM ends every wait
//!   between requests at once and starts no new request; the documents not settled stay in the
//!   ledger for the next start.
//! - the scheduler (`schedule.rs`): oldest simplified documents first, a bounded set of workers,
//!   the life of one document from ledger to answer.
//! - who settles a document left without a final answer (`later.rs`): the next run, or the
//!   running watcher, and the words that say so.
//! - the [`Ledger`] (`ledger/`): SQLite in the state folder, written before every request leaves and
//!   after it returns, so that a crash or a rerun never sends an accepted document again and never
//!   loses one.
//! - documents that are not sent (`issued.rs`): what the ledger holds under their numbers, so
//!   that a number already issued is reported issued whatever its export says now; and
//!   documents a skip rule keeps from being issued (`withdrawn.rs`), so that an issued number
//!   marked `Voided` or `Draft` in the ERP is still reported issued; and which numbers the ledger
//!   holds at all ([`Submitter::holds`], `withdrawn.rs`), so that only the parts of those a
//!   document in parts has are kept to be read together.
//!
//! Entry points: [`Submitter::connect`], [`Submitter::submit_all`], [`Submitter::resume_unresolved`],
//! [`Submitter::issued_before`], [`Submitter::withdrawn_before`], [`Submitter::holds`] and
//! [`onboard`].

mod client;
mod credentials;
mod earlier;
mod error;
mod exported;
mod halt;
mod issued;
mod later;
mod ledger;
mod limit;
mod order;
mod outcome;
mod reply;
mod retry;
mod schedule;
mod settings;
mod submitter;
mod token;
mod url;
mod withdrawn;

pub use credentials::{CredentialsError, ENV_API_URL, ENV_VAT_NUMBER, EnvCredentials, read_secret_file};
pub use error::SubmitError;
pub use halt::Halt;
pub use ledger::{
    DocumentKey, Ledger, LedgerEntry, LedgerError, LedgerState, LedgerStats, OnboardedDevice, RememberedDevice,
    idempotency_key,
};
pub use outcome::{
    BODY_TOO_LARGE_CODE, CONFLICT_CODE, DUPLICATE_CODE, NOT_SENT_CODE, Outcome, Outgoing, SubmitEvent, UNKNOWN_CODE,
    failed_code,
};
pub use settings::{ApiSettings, Backoff, EndpointPaths};
pub use submitter::{Submitter, onboard};
pub use url::{ApiUrl, HIDDEN_USER_INFO};
pub use withdrawn::{Standing, Withdrawn};

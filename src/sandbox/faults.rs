//! Switchable faults (D19): a request rate beyond which documents get 429, injected 500/503
//! answers, a delay, connections dropped after acceptance, and the token lifetime. All off by
//! default; set by the flags of `invoicedrop sandbox` and at runtime by `POST /sandbox/faults`.
//! Also the sandbox's clock, which tests can move forward.

use chrono::{DateTime, TimeDelta, Utc};
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde::{Deserialize, Serialize};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The fault settings. `Default` is "no fault" with a token lifetime of one hour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Faults {
    /// Document requests per second beyond which the answer is 429 with `Retry-After` (0 = no
    /// limit).
    pub rate: u32,
    /// Fraction (0 to 1) of document requests answered 500 or 503 before anything is done.
    pub fail_rate: f64,
    /// Fraction (0 to 1) of accepted documents whose connection is closed without an answer.
    pub drop_rate: f64,
    /// Milliseconds added to every document request, after the document was handled and before
    /// the answer.
    pub delay_ms: u64,
    /// Lifetime of new tokens, in seconds.
    pub token_ttl: u64,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            rate: 0,
            fail_rate: 0.0,
            drop_rate: 0.0,
            delay_ms: 0,
            token_ttl: 3600,
        }
    }
}

/// A partial change of the fault settings: the body of `POST /sandbox/faults`. Absent fields keep
/// their value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsUpdate {
    /// New [`Faults::rate`].
    pub rate: Option<u32>,
    /// New [`Faults::fail_rate`].
    pub fail_rate: Option<f64>,
    /// New [`Faults::drop_rate`].
    pub drop_rate: Option<f64>,
    /// New [`Faults::delay_ms`].
    pub delay_ms: Option<u64>,
    /// New [`Faults::token_ttl`].
    pub token_ttl: Option<u64>,
}

impl Faults {
    /// Check the ranges: the rates are fractions between 0 and 1, the token lives at least a second.
    pub fn check(&self) -> Result<(), String> {
        for (name, value) in [("fail_rate", self.fail_rate), ("drop_rate", self.drop_rate)] {
            if !(0.0..=1.0).contains(&value) {
                return Err(format!("{name} must be between 0 and 1, not {value}"));
            }
        }
        if self.token_ttl == 0 {
            return Err("token_ttl must be at least 1 second".into());
        }
        Ok(())
    }

    /// These settings with an update applied.
    pub fn updated(&self, u: &FaultsUpdate) -> Faults {
        Faults {
            rate: u.rate.unwrap_or(self.rate),
            fail_rate: u.fail_rate.unwrap_or(self.fail_rate),
            drop_rate: u.drop_rate.unwrap_or(self.drop_rate),
            delay_ms: u.delay_ms.unwrap_or(self.delay_ms),
            token_ttl: u.token_ttl.unwrap_or(self.token_ttl),
        }
    }
}

/// What the gate decided for a document request, before anything else is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Go on.
    Pass,
    /// 429; retry after this many seconds.
    RateLimited(u64),
    /// An injected failure with this status (500 or 503).
    Fail(u16),
}

/// The live fault settings and the counters of what they did.
pub(crate) struct FaultControl {
    settings: Mutex<(Faults, Option<Arc<DefaultDirectRateLimiter>>)>,
    pub(crate) rate_limited: AtomicU64,
    pub(crate) injected_failures: AtomicU64,
    pub(crate) dropped: AtomicU64,
}

fn limiter(rate: u32) -> Option<Arc<DefaultDirectRateLimiter>> {
    NonZeroU32::new(rate).map(|n| Arc::new(RateLimiter::direct(Quota::per_second(n))))
}

impl FaultControl {
    pub(crate) fn new(faults: Faults) -> Self {
        let l = limiter(faults.rate);
        FaultControl {
            settings: Mutex::new((faults, l)),
            rate_limited: AtomicU64::new(0),
            injected_failures: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// The current settings.
    pub(crate) fn get(&self) -> Faults {
        self.settings.lock().unwrap_or_else(PoisonError::into_inner).0.clone()
    }

    /// Replace the settings (checked first). A new rate starts a fresh limiter.
    pub(crate) fn set(&self, faults: Faults) -> Result<Faults, String> {
        faults.check()?;
        let mut s = self.settings.lock().unwrap_or_else(PoisonError::into_inner);
        if s.0.rate != faults.rate {
            s.1 = limiter(faults.rate);
        }
        s.0 = faults.clone();
        Ok(faults)
    }

    /// The rate limit, then the injected failures.
    pub(crate) fn gate(&self) -> Gate {
        let (faults, limiter) = {
            let s = self.settings.lock().unwrap_or_else(PoisonError::into_inner);
            (s.0.clone(), s.1.clone())
        };
        if let Some(l) = limiter
            && let Err(not_until) = l.check()
        {
            self.rate_limited.fetch_add(1, Ordering::Relaxed);
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            return Gate::RateLimited(wait.as_secs_f64().ceil().max(1.0) as u64);
        }
        if faults.fail_rate > 0.0 && rand::random_bool(faults.fail_rate) {
            self.injected_failures.fetch_add(1, Ordering::Relaxed);
            return Gate::Fail(if rand::random_bool(0.5) { 500 } else { 503 });
        }
        Gate::Pass
    }

    /// The delay to add to a document request.
    pub(crate) fn delay(&self) -> Duration {
        Duration::from_millis(self.settings.lock().unwrap_or_else(PoisonError::into_inner).0.delay_ms)
    }

    /// Whether to drop the connection of this accepted document (counted when yes).
    pub(crate) fn drop_now(&self) -> bool {
        let rate = self.settings.lock().unwrap_or_else(PoisonError::into_inner).0.drop_rate;
        let drop = rate > 0.0 && rand::random_bool(rate);
        if drop {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
        drop
    }

    /// The lifetime of a new token.
    pub(crate) fn token_ttl(&self) -> u64 {
        self.settings.lock().unwrap_or_else(PoisonError::into_inner).0.token_ttl
    }
}

/// The sandbox's clock: the real time plus an offset that tests move forward (token expiry,
/// BR-KSA-98) instead of waiting.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    offset_ms: AtomicI64,
}

impl Clock {
    /// Now, as the sandbox sees it.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        Utc::now() + TimeDelta::milliseconds(self.offset_ms.load(Ordering::SeqCst))
    }

    /// Move the clock forward (or back, with a negative value) by `seconds`.
    pub(crate) fn advance(&self, seconds: i64) {
        self.offset_ms.fetch_add(seconds.saturating_mul(1000), Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_outside_zero_to_one_are_refused() {
        let bad = Faults {
            fail_rate: 1.5,
            ..Faults::default()
        };
        assert!(bad.check().is_err());
        let nan = Faults {
            drop_rate: f64::NAN,
            ..Faults::default()
        };
        assert!(nan.check().is_err());
        assert!(Faults::default().check().is_ok());
    }

    #[test]
    fn the_limiter_answers_429_beyond_the_rate() {
        let control = FaultControl::new(Faults {
            rate: 2,
            ..Faults::default()
        });
        let gates: Vec<Gate> = (0..5).map(|_| control.gate()).collect();
        assert_eq!(&gates[..2], &[Gate::Pass, Gate::Pass]);
        assert!(gates[2..].iter().all(|g| matches!(g, Gate::RateLimited(s) if *s >= 1)));
        assert_eq!(control.rate_limited.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_fail_rate_of_one_always_fails_and_zero_never() {
        let control = FaultControl::new(Faults {
            fail_rate: 1.0,
            ..Faults::default()
        });
        assert!((0..20).all(|_| matches!(control.gate(), Gate::Fail(500 | 503))));
        control.set(Faults::default()).unwrap();
        assert!((0..20).all(|_| control.gate() == Gate::Pass));
    }
}

//! The rate limit: a governor limiter (documents per second, burst 1) that halves when the API
//! answers 429 and climbs back slowly, and a pause that holds every worker until the
//! `Retry-After` of a 429 has passed.

use governor::clock::DefaultClock;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Jitter, Quota, RateLimiter};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

type Limiter = RateLimiter<NotKeyed, InMemoryState, DefaultClock>;

/// The pause after a 429 without `Retry-After`.
const DEFAULT_PAUSE: Duration = Duration::from_secs(1);
/// Time without a 429 before the rate climbs one step.
const RECOVERY_STEP: Duration = Duration::from_secs(2);
/// Above this, a rate that was configured as unlimited is unlimited again.
const UNLIMITED_AGAIN: u32 = 10_000;

struct State {
    /// The rate in force; `None` = unlimited.
    rate: Option<u32>,
    limiter: Option<Arc<Limiter>>,
    /// Until when every worker waits.
    pause_until: Option<Instant>,
    /// The last time the rate changed (down or up).
    last_change: Instant,
    /// Requests admitted in the current and the previous second, to estimate the pace when
    /// running unlimited.
    window_start: Instant,
    window_count: u32,
    previous_count: u32,
}

/// What a 429 did to the shared state.
pub(crate) struct Throttled {
    /// The pause now in force.
    pub(crate) until: Instant,
    /// True when this 429 started or extended the pause (report it once).
    pub(crate) extended: bool,
    /// The new rate, when this 429 lowered it.
    pub(crate) lowered_to: Option<u32>,
}

/// Rate limit and pause, shared by all workers.
pub(crate) struct RateControl {
    ceiling: Option<u32>,
    state: Mutex<State>,
}

impl RateControl {
    /// A limit of `rate` documents per second (`None` = unlimited).
    pub(crate) fn new(rate: Option<u32>) -> RateControl {
        let now = Instant::now();
        let rate = rate.filter(|r| *r > 0);
        RateControl {
            ceiling: rate,
            state: Mutex::new(State {
                rate,
                limiter: rate.map(|r| Arc::new(limiter(r))),
                pause_until: None,
                last_change: now,
                window_start: now,
                window_count: 0,
                previous_count: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The rate in force (`None` = unlimited).
    pub(crate) fn current_rate(&self) -> Option<u32> {
        self.lock().rate
    }

    /// Until when sending is paused, if it is.
    pub(crate) fn paused_until(&self) -> Option<Instant> {
        self.lock().pause_until.filter(|u| *u > Instant::now())
    }

    /// Wait out any pause, then for the limiter. Returns once this request may go.
    pub(crate) async fn admit(&self) {
        loop {
            if let Some(until) = self.paused_until() {
                tokio::time::sleep_until(until.into()).await;
                continue;
            }
            let limiter = self.lock().limiter.clone();
            if let Some(limiter) = limiter {
                let period = Duration::from_secs(1) / self.current_rate().unwrap_or(1).max(1);
                limiter
                    .until_ready_with_jitter(Jitter::up_to((period / 10).min(Duration::from_millis(10))))
                    .await;
            }
            // A 429 may have arrived while waiting for the limiter.
            if self.paused_until().is_none() {
                self.count_admission();
                return;
            }
        }
    }

    fn count_admission(&self) {
        let mut s = self.lock();
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(s.window_start);
        if elapsed >= Duration::from_secs(2) {
            s.previous_count = 0;
            s.window_count = 0;
            s.window_start = now;
        } else if elapsed >= Duration::from_secs(1) {
            s.previous_count = s.window_count;
            s.window_count = 0;
            s.window_start = now;
        }
        s.window_count += 1;
    }

    /// A 429: pause everyone for `retry_after` (1 s when absent) and halve the rate, at most
    /// once per pause.
    pub(crate) fn throttled(&self, retry_after: Option<Duration>) -> Throttled {
        let now = Instant::now();
        let mut s = self.lock();
        let until = now + retry_after.unwrap_or(DEFAULT_PAUSE);
        let already = s.pause_until.filter(|u| *u > now);
        let extended = already.is_none_or(|u| until > u);
        if extended {
            s.pause_until = Some(already.map_or(until, |u| u.max(until)));
        }
        let mut lowered_to = None;
        // Requests that were in flight together all come back 429: halve once for them.
        if already.is_none() {
            let pace = s.rate.unwrap_or_else(|| s.previous_count.max(s.window_count).max(2));
            let new_rate = (pace / 2).max(1);
            if s.rate != Some(new_rate) {
                s.rate = Some(new_rate);
                s.limiter = Some(Arc::new(limiter(new_rate)));
                lowered_to = Some(new_rate);
            }
            s.last_change = now;
        }
        Throttled {
            until: s.pause_until.unwrap_or(until),
            extended,
            lowered_to,
        }
    }

    /// A request that was not throttled: climb back towards the configured rate, one step per
    /// [`RECOVERY_STEP`] without a 429 (a quarter more, at least one).
    pub(crate) fn succeeded(&self) {
        let now = Instant::now();
        let mut s = self.lock();
        let Some(rate) = s.rate else { return };
        if self.ceiling == Some(rate) || now.saturating_duration_since(s.last_change) < RECOVERY_STEP {
            return;
        }
        let next = rate.saturating_add((rate / 4).max(1));
        let next = match self.ceiling {
            Some(c) => Some(next.min(c)),
            None if next >= UNLIMITED_AGAIN => None,
            None => Some(next),
        };
        s.rate = next;
        s.limiter = next.map(|r| Arc::new(limiter(r)));
        s.last_change = now;
        tracing::debug!(rate = ?next, "rate limit raised");
    }
}

fn limiter(rate: u32) -> Limiter {
    let per_second = NonZeroU32::new(rate.max(1)).unwrap_or(NonZeroU32::MIN);
    RateLimiter::direct(Quota::per_second(per_second).allow_burst(NonZeroU32::MIN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_429_halves_once_per_pause_and_recovery_is_gradual() {
        let rc = RateControl::new(Some(20));
        let t = rc.throttled(Some(Duration::from_millis(50)));
        assert!(t.extended);
        assert_eq!(t.lowered_to, Some(10));
        // The other requests of the same burst come back 429 too: no further halving.
        let t2 = rc.throttled(Some(Duration::from_millis(10)));
        assert!(!t2.extended);
        assert_eq!(t2.lowered_to, None);
        assert_eq!(rc.current_rate(), Some(10));
        assert!(rc.paused_until().is_some());
        // No recovery right away.
        rc.succeeded();
        assert_eq!(rc.current_rate(), Some(10));
        // Pretend the last change was long ago.
        rc.lock().last_change = Instant::now() - RECOVERY_STEP;
        rc.succeeded();
        assert_eq!(rc.current_rate(), Some(12));
        for _ in 0..10 {
            rc.lock().last_change = Instant::now() - RECOVERY_STEP;
            rc.succeeded();
        }
        assert_eq!(rc.current_rate(), Some(20), "never above the configured rate");
    }

    #[test]
    fn unlimited_gets_a_limit_from_the_observed_pace() {
        let rc = RateControl::new(None);
        assert_eq!(rc.current_rate(), None);
        {
            let mut s = rc.lock();
            s.previous_count = 300;
        }
        let t = rc.throttled(None);
        assert_eq!(t.lowered_to, Some(150));
        assert!(t.until > Instant::now() + Duration::from_millis(900));
    }

    #[tokio::test]
    async fn admit_waits_for_the_pause() {
        let rc = RateControl::new(None);
        let started = Instant::now();
        rc.throttled(Some(Duration::from_millis(120)));
        rc.lock().rate = None;
        rc.lock().limiter = None;
        rc.admit().await;
        assert!(started.elapsed() >= Duration::from_millis(120));
    }
}

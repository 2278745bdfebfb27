//! When to repeat: exponential backoff with jitter for a document whose outcome is unknown, and
//! a breaker for an API that is down. After several unknown outcomes in a row (or a refused
//! connection) the breaker opens: requests then go one at a time, as probes spaced by a growing
//! delay, until one gets a real answer; after `give_up_after` of silence the run stops waiting.
//! Given up lasts until the scope ends ([`Breaker::rearm`]: a `run`'s end, the watcher's next
//! file): a later batch in it fails its documents at once, except for one probe when the
//! probes' pace says one is due ([`Breaker::next_batch`]); an answer ends it at once.

use super::Backoff;
use backon::{BackoffBuilder, ExponentialBuilder};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::{Mutex as AsyncMutex, MutexGuard as AsyncMutexGuard};

/// Unknown outcomes in a row (over all documents) that open the breaker.
pub(crate) const DOWN_AFTER: u32 = 5;

/// The delays between repeats of one document: `min_delay`, doubling to `max_delay`, each with
/// up to the same again of random jitter.
pub(crate) fn delays(backoff: Backoff) -> impl Iterator<Item = Duration> + Send {
    ExponentialBuilder::default()
        .with_min_delay(backoff.min_delay)
        .with_max_delay(backoff.max_delay.max(backoff.min_delay))
        .with_jitter()
        .without_max_times()
        .build()
}

/// What a result did to the breaker, for events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transition {
    None,
    /// The breaker opened (or a probe failed): the next probe goes at this time.
    Down(Instant),
    /// A real answer came back while the breaker was open.
    Up,
}

struct State {
    /// Times the breaker opened: which outage this is.
    outages: u64,
    consecutive_unknown: u32,
    down: bool,
    down_since: Instant,
    failed_probes: u32,
    next_probe_at: Instant,
    probe_delays: Box<dyn Iterator<Item = Duration> + Send>,
    /// Set by [`Breaker::probe_once`] and [`Breaker::next_batch`] (the failed probes then): the
    /// first probe that fails after it gives up again at once.
    one_probe: Option<u32>,
}

/// The shared breaker.
pub(crate) struct Breaker {
    backoff: Backoff,
    state: Mutex<State>,
    probe: AsyncMutex<()>,
}

/// Permission to send while the API is down: only one holder at a time.
pub(crate) struct Probe<'a> {
    _guard: AsyncMutexGuard<'a, ()>,
}

impl Breaker {
    pub(crate) fn new(backoff: Backoff) -> Breaker {
        Breaker {
            backoff,
            state: Mutex::new(State {
                outages: 0,
                consecutive_unknown: 0,
                down: false,
                down_since: Instant::now(),
                failed_probes: 0,
                next_probe_at: Instant::now(),
                probe_delays: Box::new(delays(backoff)),
                one_probe: None,
            }),
            probe: AsyncMutex::new(()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True while the API is considered down.
    pub(crate) fn is_down(&self) -> bool {
        self.lock().down
    }

    fn exhausted(&self, s: &State) -> bool {
        s.down
            && match s.one_probe {
                Some(before) => s.failed_probes > before,
                None => s.failed_probes > 0 && s.down_since.elapsed() >= self.backoff.give_up_after,
            }
    }

    /// True when the API stayed silent for `give_up_after` (and a probe failed after that):
    /// stop waiting for it.
    pub(crate) fn gave_up(&self) -> bool {
        self.exhausted(&self.lock())
    }

    /// Which outage the breaker is in or was in last (1 for the first; 0 before any).
    pub(crate) fn outage(&self) -> u64 {
        self.lock().outages
    }

    /// How long the API has been down.
    pub(crate) fn down_for(&self) -> std::time::Duration {
        let s = self.lock();
        if s.down { s.down_since.elapsed() } else { Duration::ZERO }
    }

    /// At the start of a new scope (the watcher's next file): an API given up on gets the usual
    /// patience again (the breaker stays open, so the first request is a probe, at once).
    pub(crate) fn rearm(&self) {
        let mut s = self.lock();
        if self.exhausted(&s) {
            s.failed_probes = 0;
            s.down_since = Instant::now();
            s.next_probe_at = Instant::now();
            s.probe_delays = Box::new(delays(self.backoff));
        }
        s.one_probe = None;
    }

    /// At the start of a batch in the same scope: given up stays given up (its documents fail
    /// at once), except that one probe goes when the probes' pace says one is due; if it fails
    /// too, the breaker gives up again at once. Nothing changes otherwise.
    pub(crate) fn next_batch(&self) {
        let mut s = self.lock();
        if self.exhausted(&s) && Instant::now() >= s.next_probe_at {
            s.one_probe = Some(s.failed_probes);
        }
    }

    /// At the start of a look whether an API given up on answers again (the watcher's): when the
    /// last batch gave up waiting, one probe may go now, and if it fails too the breaker gives up
    /// again at once instead of probing for `give_up_after`. Nothing changes otherwise.
    pub(crate) fn probe_once(&self) {
        let mut s = self.lock();
        if self.exhausted(&s) {
            s.next_probe_at = Instant::now();
            s.one_probe = Some(s.failed_probes);
        }
    }

    /// Probes that failed since the API went down.
    pub(crate) fn failed_probes(&self) -> u32 {
        self.lock().failed_probes
    }

    /// While down: wait for the probe slot and its time. `None` when the API came back up in
    /// the meantime (send normally) or when the run gave up waiting (check [`Breaker::gave_up`]):
    /// `give_up_after` ends the wait for the next probe once a probe has failed.
    pub(crate) async fn probe(&self) -> Option<Probe<'_>> {
        let guard = self.probe.lock().await;
        let at = {
            let s = self.lock();
            if !s.down || self.exhausted(&s) {
                return None;
            }
            match s.one_probe {
                None if s.failed_probes > 0 => s.next_probe_at.min(s.down_since + self.backoff.give_up_after),
                _ => s.next_probe_at,
            }
        };
        tokio::time::sleep_until(at.into()).await;
        let s = self.lock();
        if !s.down || self.exhausted(&s) {
            return None;
        }
        drop(s);
        Some(Probe { _guard: guard })
    }

    /// A real answer (any HTTP status but 5xx/408): the API is up.
    pub(crate) fn answered(&self) -> Transition {
        let mut s = self.lock();
        s.consecutive_unknown = 0;
        if s.down {
            s.down = false;
            s.failed_probes = 0;
            s.one_probe = None;
            s.probe_delays = Box::new(delays(self.backoff));
            tracing::info!("the API answers again; resuming");
            Transition::Up
        } else {
            Transition::None
        }
    }

    /// No answer (5xx, timeout, reset); `refused` when the connection could not be opened.
    pub(crate) fn unanswered(&self, refused: bool, was_probe: bool) -> Transition {
        let mut s = self.lock();
        s.consecutive_unknown = s.consecutive_unknown.saturating_add(1);
        let now = Instant::now();
        if s.down {
            if was_probe {
                s.failed_probes += 1;
                let delay = s.probe_delays.next().unwrap_or(self.backoff.max_delay);
                s.next_probe_at = now + delay;
                return Transition::Down(s.next_probe_at);
            }
            return Transition::None;
        }
        if refused || s.consecutive_unknown >= DOWN_AFTER {
            s.down = true;
            s.outages += 1;
            s.down_since = now;
            s.failed_probes = 0;
            s.one_probe = None;
            let delay = s.probe_delays.next().unwrap_or(self.backoff.max_delay);
            s.next_probe_at = now + delay;
            tracing::warn!(
                unknown_in_a_row = s.consecutive_unknown,
                refused,
                "the API does not answer; sending one probe at a time"
            );
            return Transition::Down(s.next_probe_at);
        }
        Transition::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick() -> Backoff {
        Backoff {
            min_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(40),
            give_up_after: Duration::ZERO,
        }
    }

    #[test]
    fn delays_grow_with_jitter_up_to_the_cap() {
        let d: Vec<Duration> = delays(quick()).take(6).collect();
        assert_eq!(d.len(), 6);
        assert!(
            d[0] >= Duration::from_millis(10) && d[0] <= Duration::from_millis(20),
            "{d:?}"
        );
        assert!(d[1] >= Duration::from_millis(20), "{d:?}");
        assert!(d.iter().all(|x| *x <= Duration::from_millis(80)), "{d:?}");
    }

    #[test]
    fn opens_after_several_unknowns_or_a_refusal_and_closes_on_an_answer() {
        let b = Breaker::new(Backoff {
            give_up_after: Duration::from_secs(60),
            ..quick()
        });
        for _ in 0..DOWN_AFTER - 1 {
            assert_eq!(b.unanswered(false, false), Transition::None);
        }
        assert!(matches!(b.unanswered(false, false), Transition::Down(_)));
        assert!(b.is_down());
        assert_eq!(b.answered(), Transition::Up);
        assert!(!b.is_down());
        assert!(
            matches!(b.unanswered(true, false), Transition::Down(_)),
            "refused opens at once"
        );
        b.answered();
        assert!(!b.gave_up(), "patience is a minute");
        let b2 = Breaker::new(quick());
        b2.unanswered(true, false);
        assert!(!b2.gave_up(), "a probe must fail first");
        b2.unanswered(false, false);
        assert!(!b2.gave_up(), "only probes count");
        b2.unanswered(false, true);
        assert!(b2.gave_up());
        b2.rearm();
        assert!(!b2.gave_up() && b2.is_down(), "the next batch starts with a probe");
    }

    #[test]
    fn after_giving_up_one_probe_is_allowed_and_its_failure_gives_up_at_once() {
        let b = Breaker::new(Backoff {
            give_up_after: Duration::from_millis(30),
            ..quick()
        });
        b.unanswered(true, false);
        b.probe_once();
        assert!(!b.gave_up(), "not given up yet: patience as usual");
        std::thread::sleep(Duration::from_millis(40));
        b.unanswered(false, true);
        assert!(b.gave_up());
        b.probe_once();
        assert!(!b.gave_up() && b.is_down(), "one probe may go");
        let down_for = b.down_for();
        assert!(
            down_for >= Duration::from_millis(40),
            "still down since the start: {down_for:?}"
        );
        b.unanswered(false, true);
        assert!(b.gave_up(), "its failure gives up at once");
        b.probe_once();
        assert_eq!(b.answered(), Transition::Up);
        b.unanswered(true, false);
        b.unanswered(false, true);
        assert!(!b.gave_up(), "an answer ends the single probe: patience again");
        b.rearm();
        assert!(!b.gave_up());
    }

    #[test]
    fn given_up_lasts_for_the_later_batches_but_for_one_probe_when_due_until_the_scope_ends() {
        let b = Breaker::new(Backoff {
            min_delay: Duration::from_millis(30),
            max_delay: Duration::from_millis(30),
            give_up_after: Duration::from_millis(20),
        });
        b.unanswered(true, false);
        std::thread::sleep(Duration::from_millis(25));
        b.unanswered(false, true);
        assert!(b.gave_up());
        let probes = b.failed_probes();
        b.next_batch();
        assert!(b.gave_up(), "the next probe is not due yet: the batch fails at once");
        std::thread::sleep(Duration::from_millis(65));
        b.next_batch();
        assert!(!b.gave_up() && b.is_down(), "one probe is due");
        b.unanswered(false, true);
        assert!(
            b.gave_up(),
            "its failure gives up at once, not after `give_up_after` again"
        );
        assert_eq!(b.failed_probes(), probes + 1, "the failed probes keep counting");
        assert!(b.down_for() >= Duration::from_millis(90), "down since the start");
        b.rearm();
        assert!(!b.gave_up() && b.is_down(), "a new scope: patience again");
        assert!(b.down_for() < Duration::from_millis(80), "{:?}", b.down_for());
        b.unanswered(false, true);
        assert!(!b.gave_up(), "a probe failed, but patience is not out yet");
        b.next_batch();
        std::thread::sleep(Duration::from_millis(25));
        assert!(b.gave_up(), "patience out");
        b.next_batch();
        assert!(b.gave_up(), "the next probe is not due yet");
        assert_eq!(b.answered(), Transition::Up, "an answer ends it");
        assert!(!b.gave_up() && !b.is_down());
    }

    #[tokio::test]
    async fn the_wait_for_the_next_probe_ends_when_patience_runs_out() {
        let b = Breaker::new(Backoff {
            min_delay: Duration::from_secs(30),
            max_delay: Duration::from_secs(30),
            give_up_after: Duration::from_millis(50),
        });
        b.unanswered(true, false);
        b.unanswered(false, true);
        let started = Instant::now();
        assert!(b.probe().await.is_none(), "given up: no probe");
        assert!(b.gave_up());
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[tokio::test]
    async fn one_probe_at_a_time() {
        let b = Breaker::new(Backoff {
            give_up_after: Duration::from_secs(60),
            ..quick()
        });
        b.unanswered(true, false);
        let p = b.probe().await;
        assert!(p.is_some());
        assert!(b.probe.try_lock().is_err(), "a second caller waits");
        drop(p);
        b.answered();
        assert!(b.probe().await.is_none(), "up again: send normally");
    }
}

//! A request to stop sending (the watcher's SIGTERM): raised once, seen by every worker at once.
//! No request starts after it; the waits between requests (backoff, the breaker's probes, a 429's
//! pause, the rate limit, a token) end at once, and the documents not settled come back
//! [`Outcome::Failed`](super::Outcome::Failed) with `halted` set. A request already on the wire
//! is left to finish (or time out): its answer is recorded like any other.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::Notify;

#[derive(Default)]
struct Inner {
    raised: AtomicBool,
    notify: Notify,
}

/// A handle on a submitter's stop request; clones share it.
#[derive(Clone, Default)]
pub struct Halt(Arc<Inner>);

impl std::fmt::Debug for Halt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Halt").field(&self.is_raised()).finish()
    }
}

impl Halt {
    /// Ask to stop sending, for good; wakes every wait at once.
    pub fn raise(&self) {
        self.0.raised.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    /// Whether a stop was asked for.
    pub fn is_raised(&self) -> bool {
        self.0.raised.load(Ordering::SeqCst)
    }

    /// Resolves once a stop is asked for (at once if it already was).
    pub async fn raised(&self) {
        loop {
            let notified = self.0.notify.notified();
            tokio::pin!(notified);
            // Registered before the flag is read: a raise in between is not missed.
            notified.as_mut().enable();
            if self.is_raised() {
                return;
            }
            notified.await;
        }
    }

    /// `work`'s result, or `None` when a stop is asked for first (`work` is then dropped).
    pub(crate) async fn unless_raised<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        if self.is_raised() {
            return None;
        }
        tokio::select! {
            biased;
            () = self.raised() => None,
            v = work => Some(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_raise_ends_a_long_wait_at_once() {
        let halt = Halt::default();
        let waiting = {
            let halt = halt.clone();
            tokio::spawn(async move { halt.unless_raised(tokio::time::sleep(Duration::from_secs(3600))).await })
        };
        tokio::task::yield_now().await;
        halt.raise();
        let ended = tokio::time::timeout(Duration::from_secs(10), waiting).await;
        assert_eq!(ended.expect("ended by the halt, not by its hour").unwrap(), None);
        assert!(halt.is_raised());
        halt.raised().await;
        assert_eq!(halt.unless_raised(async { 1 }).await, None, "nothing starts after it");
    }

    #[tokio::test]
    async fn work_done_before_a_raise_gives_its_result() {
        let halt = Halt::default();
        assert_eq!(halt.unless_raised(async { 7 }).await, Some(7));
        assert!(!halt.is_raised());
    }
}

//! One bearer token for every request (D4): refreshed when less than 10% of its life (at most
//! 60 s) remains, by one caller while the others wait (single-flight), and replaced once after a
//! 401.

use super::client::{ApiClient, AuthFailure, bearer_header};
use reqwest::header::HeaderValue;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// The longest margin before expiry at which the token is refreshed.
const MAX_MARGIN: Duration = Duration::from_secs(60);

/// A token ready to send: the header and the generation it belongs to.
#[derive(Clone)]
pub(crate) struct Bearer {
    pub(crate) header: HeaderValue,
    pub(crate) generation: u64,
}

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bearer")
            .field("header", &"[redacted]")
            .field("generation", &self.generation)
            .finish()
    }
}

struct Cached {
    bearer: Bearer,
    obtained: Instant,
    life: Duration,
}

impl Cached {
    fn fresh(&self, now: Instant) -> bool {
        !needs_refresh(self.life, now.saturating_duration_since(self.obtained))
    }
}

/// True when a token of lifetime `life`, `age` old, should be replaced: less than 10% of its
/// life, and never more than 60 s, remains.
pub(crate) fn needs_refresh(life: Duration, age: Duration) -> bool {
    let margin = (life / 10).min(MAX_MARGIN);
    life.saturating_sub(age) <= margin
}

/// The shared token.
pub(crate) struct TokenManager {
    client: Arc<ApiClient>,
    current: Mutex<Option<Cached>>,
}

impl TokenManager {
    pub(crate) fn new(client: Arc<ApiClient>) -> TokenManager {
        TokenManager {
            client,
            current: Mutex::new(None),
        }
    }

    /// A token that is not about to expire; authenticates when needed. Concurrent callers wait
    /// for a single refresh.
    pub(crate) async fn bearer(&self) -> Result<Bearer, AuthFailure> {
        let mut guard = self.current.lock().await;
        if let Some(c) = guard.as_ref().filter(|c| c.fresh(Instant::now())) {
            return Ok(c.bearer.clone());
        }
        self.refresh(&mut guard).await
    }

    /// After a 401 with `stale`: a new token, unless another caller already replaced it.
    pub(crate) async fn after_unauthorized(&self, stale: &Bearer) -> Result<Bearer, AuthFailure> {
        let mut guard = self.current.lock().await;
        if let Some(c) = guard
            .as_ref()
            .filter(|c| c.bearer.generation != stale.generation && c.fresh(Instant::now()))
        {
            return Ok(c.bearer.clone());
        }
        self.refresh(&mut guard).await
    }

    async fn refresh(&self, slot: &mut Option<Cached>) -> Result<Bearer, AuthFailure> {
        let generation = slot.as_ref().map_or(1, |c| c.bearer.generation + 1);
        let requested = Instant::now();
        let token = self.client.authenticate().await?;
        let header = bearer_header(&token.token).ok_or_else(|| AuthFailure::Refused {
            status: 200,
            message: "the token holds characters that cannot travel in an HTTP header".into(),
        })?;
        let life = Duration::from_secs(token.expires_in);
        tracing::debug!(generation, expires_in = token.expires_in, "new access token");
        let bearer = Bearer { header, generation };
        *slot = Some(Cached {
            bearer: bearer.clone(),
            // Counted from the request, not the answer: errs on the side of refreshing early.
            obtained: requested,
            life,
        });
        Ok(bearer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_margin_is_a_tenth_capped_at_a_minute() {
        let hour = Duration::from_secs(3600);
        assert!(!needs_refresh(hour, Duration::from_secs(3539)));
        assert!(needs_refresh(hour, Duration::from_secs(3540)));
        let short = Duration::from_secs(10);
        assert!(!needs_refresh(short, Duration::from_millis(8_999)));
        assert!(needs_refresh(short, Duration::from_secs(9)));
        assert!(
            needs_refresh(Duration::ZERO, Duration::ZERO),
            "a token without life is used once"
        );
        assert!(needs_refresh(short, Duration::from_secs(60)));
    }
}

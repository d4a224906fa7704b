//! Draining for a graceful restart. On SIGTERM the server first says it is
//! not ready (`/readyz` answers 503, so a load balancer stops sending it new
//! requests) while it keeps serving; once every request that was in flight at
//! the signal has finished and no new one has come for a moment (the
//! balancer has noticed), it stops accepting connections and lets the rest
//! finish, all within the drain timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Shared by the request middleware, `/readyz` and the serve loop.
#[derive(Clone, Debug, Default)]
pub struct Lifecycle(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    draining: AtomicBool,
    /// Requests in flight that started before the drain (0) and after (1).
    in_flight: [AtomicUsize; 2],
    /// Woken when the last request started before the drain ends.
    earlier_done: Notify,
    /// When the last request other than a health check started, in
    /// milliseconds since `born`.
    last_traffic: AtomicU64,
    born: Instant,
}

impl Default for Inner {
    fn default() -> Self {
        Self {
            draining: AtomicBool::new(false),
            in_flight: Default::default(),
            earlier_done: Notify::new(),
            last_traffic: AtomicU64::new(0),
            born: Instant::now(),
        }
    }
}

/// Counts one request as in flight until dropped.
#[must_use]
pub struct InFlight {
    lifecycle: Lifecycle,
    epoch: usize,
}

impl Lifecycle {
    pub fn is_draining(&self) -> bool {
        self.0.draining.load(Ordering::SeqCst)
    }

    /// From now on `/readyz` answers 503 and new requests count as late.
    pub fn start_draining(&self) {
        self.0.draining.store(true, Ordering::SeqCst);
    }

    /// Counts a request that is starting. Health checks are not traffic:
    /// a load balancer goes on probing a server it no longer sends requests.
    pub fn request(&self, health_check: bool) -> InFlight {
        if !health_check {
            self.0
                .last_traffic
                .store(self.since_born(), Ordering::Relaxed);
        }
        let epoch = usize::from(self.is_draining());
        self.0.in_flight[epoch].fetch_add(1, Ordering::SeqCst);
        InFlight {
            lifecycle: self.clone(),
            epoch,
        }
    }

    fn since_born(&self) -> u64 {
        u64::try_from(self.0.born.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Resolves once no request (health checks aside) has started for
    /// `quiet`: the load balancer has stopped sending any.
    pub async fn quiet_for(&self, quiet: Duration) {
        loop {
            let last = self.0.last_traffic.load(Ordering::Relaxed);
            let since = Duration::from_millis(self.since_born().saturating_sub(last));
            if since >= quiet {
                return;
            }
            tokio::time::sleep(quiet - since).await;
        }
    }

    /// Requests in flight now, whenever they started.
    pub fn in_flight(&self) -> usize {
        self.0
            .in_flight
            .iter()
            .map(|count| count.load(Ordering::SeqCst))
            .sum()
    }

    /// Resolves once every request that started before the drain has ended.
    /// A request that raced the signal and is counted a moment later is
    /// still waited for by the server's own graceful shutdown.
    pub async fn earlier_requests_done(&self) {
        loop {
            let notified = self.0.earlier_done.notified();
            tokio::pin!(notified);
            // Registered before the check, so a wake-up in between is kept.
            notified.as_mut().enable();
            if self.0.in_flight[0].load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let before = self.lifecycle.0.in_flight[self.epoch].fetch_sub(1, Ordering::SeqCst);
        if self.epoch == 0 && before == 1 {
            self.lifecycle.0.earlier_done.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn the_drain_waits_for_earlier_requests_only() {
        let lifecycle = Lifecycle::default();
        let earlier = lifecycle.request(false);
        lifecycle.start_draining();
        let later = lifecycle.request(false);
        assert_eq!(lifecycle.in_flight(), 2);
        let waiting = tokio::spawn({
            let lifecycle = lifecycle.clone();
            async move { lifecycle.earlier_requests_done().await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "an earlier request is in flight");
        drop(earlier);
        tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("the wait ends with the last earlier request")
            .unwrap();
        assert_eq!(lifecycle.in_flight(), 1);
        drop(later);
        assert_eq!(lifecycle.in_flight(), 0);
    }

    #[tokio::test]
    async fn quiet_means_no_request_but_health_checks() {
        let lifecycle = Lifecycle::default();
        drop(lifecycle.request(false));
        let started = Instant::now();
        let waiting = tokio::spawn({
            let lifecycle = lifecycle.clone();
            async move { lifecycle.quiet_for(Duration::from_millis(200)).await }
        });
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            drop(lifecycle.request(true));
        }
        waiting.await.unwrap();
        let waited = started.elapsed();
        assert!(
            (Duration::from_millis(190)..Duration::from_millis(400)).contains(&waited),
            "{waited:?}"
        );
        drop(lifecycle.request(false));
        let started = Instant::now();
        lifecycle.quiet_for(Duration::from_millis(100)).await;
        assert!(started.elapsed() >= Duration::from_millis(90));
    }
}

//! Draining for a graceful restart. On SIGTERM the server first says it is
//! not ready (`/readyz` answers 503, so a load balancer stops sending it new
//! requests) while it keeps serving; once every request that was in flight at
//! the signal has finished, it stops accepting connections and lets the rest
//! finish, all within the drain timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::sync::Notify;

/// Shared by the request middleware, `/readyz` and the serve loop.
#[derive(Clone, Debug, Default)]
pub struct Lifecycle(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    draining: AtomicBool,
    /// Requests in flight that started before the drain (0) and after (1).
    in_flight: [AtomicUsize; 2],
    /// Woken when the last request started before the drain ends.
    earlier_done: Notify,
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

    /// Counts a request that is starting.
    pub fn request(&self) -> InFlight {
        let epoch = usize::from(self.is_draining());
        self.0.in_flight[epoch].fetch_add(1, Ordering::SeqCst);
        InFlight {
            lifecycle: self.clone(),
            epoch,
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
        let earlier = lifecycle.request();
        lifecycle.start_draining();
        let later = lifecycle.request();
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
}

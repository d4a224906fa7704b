//! Per-address rate limits: how often one client may make the server do
//! costly work before anyone knows who it is (sign in, register an OAuth
//! client, fetch a client's metadata document).

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// How often (in checks) a limiter forgets addresses whose limits have
/// refilled, so that requests from many addresses do not grow it unbounded.
const FORGET_EVERY: u32 = 1024;

/// A refusal: the caller may try again after `retry_after`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany {
    pub retry_after: Duration,
}

impl TooMany {
    /// Whole seconds, at least one, for a `Retry-After` header.
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after.as_secs_f64().ceil().max(1.0) as u64
    }
}

/// A token bucket per key that forgets refilled keys now and then.
struct Buckets<K: std::hash::Hash + Eq + Clone> {
    limiter: DefaultKeyedRateLimiter<K>,
    checks: AtomicU32,
}

impl<K: std::hash::Hash + Eq + Clone> Buckets<K> {
    fn new(quota: Quota) -> Self {
        Self {
            limiter: DefaultKeyedRateLimiter::keyed(quota),
            checks: AtomicU32::new(0),
        }
    }

    fn check(&self, key: &K) -> Result<(), TooMany> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(key).map_err(|not_until| TooMany {
            retry_after: not_until.wait_time_from(DefaultClock::default().now()),
        })
    }
}

/// A token bucket per client address: `burst` at once, then one per
/// `period`.
pub struct AddressLimit(Buckets<IpAddr>);

impl std::fmt::Debug for AddressLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddressLimit").finish_non_exhaustive()
    }
}

impl AddressLimit {
    pub fn new(burst: u32, period: Duration) -> Self {
        let quota = Quota::with_period(period)
            .expect("a non-zero period")
            .allow_burst(NonZeroU32::new(burst).expect("a non-zero burst"));
        Self(Buckets::new(quota))
    }

    /// Counts one request from `address`, or says how long to wait.
    pub fn check(&self, address: Option<IpAddr>) -> Result<(), TooMany> {
        self.0.check(&limit_key(address))
    }
}

/// Calls per minute per credential (an API key, or an OAuth grant whose
/// access tokens all count together): the whole minute's calls may come at
/// once, then they refill evenly, so one runaway agent cannot crowd out the
/// rest.
pub struct CredentialLimit {
    buckets: Buckets<uuid::Uuid>,
    per_minute: NonZeroU32,
}

impl std::fmt::Debug for CredentialLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialLimit")
            .field("per_minute", &self.per_minute)
            .finish_non_exhaustive()
    }
}

impl CredentialLimit {
    pub fn per_minute(calls: NonZeroU32) -> Self {
        Self {
            buckets: Buckets::new(Quota::per_minute(calls)),
            per_minute: calls,
        }
    }

    /// Counts one call made with `credential`, or says how long to wait.
    pub fn check(&self, credential: uuid::Uuid) -> Result<(), TooMany> {
        self.buckets.check(&credential)
    }
}

/// What one client is counted as. An IPv6 host usually has a whole /64 to
/// pick addresses from, so the /64 is one client; an IPv4 address written as
/// IPv6 is that IPv4 address. Requests without a known address share one
/// bucket rather than escaping the limit.
fn limit_key(address: Option<IpAddr>) -> IpAddr {
    match address.map(|ip| ip.to_canonical()) {
        Some(IpAddr::V6(v6)) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(prefix))
        }
        Some(v4) => v4,
        None => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_slash_64_is_one_client() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(limit_key(Some(a)), limit_key(Some(b)));
        assert_ne!(limit_key(Some(a)), limit_key(Some(c)));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(
            limit_key(Some(mapped)),
            "192.0.2.7".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn each_credential_has_its_own_minute() {
        let limit = CredentialLimit::per_minute(NonZeroU32::new(3).unwrap());
        let (one, other) = (uuid::Uuid::from_u128(1), uuid::Uuid::from_u128(2));
        for _ in 0..3 {
            assert!(limit.check(one).is_ok());
        }
        let refused = limit.check(one).unwrap_err();
        // A third of a minute until one more call is allowed.
        assert!(
            (1..=20).contains(&refused.retry_after_secs()),
            "{refused:?}"
        );
        assert!(limit.check(other).is_ok());
    }

    #[test]
    fn a_burst_then_a_wait() {
        let limit = AddressLimit::new(2, Duration::from_secs(60));
        let one = Some("192.0.2.1".parse().unwrap());
        let other = Some("192.0.2.2".parse().unwrap());
        assert!(limit.check(one).is_ok());
        assert!(limit.check(one).is_ok());
        let refused = limit.check(one).unwrap_err();
        assert!(refused.retry_after_secs() >= 1);
        assert!(limit.check(other).is_ok());
        assert!(limit.check(None).is_ok());
    }
}

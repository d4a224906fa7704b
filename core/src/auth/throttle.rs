//! Limits on signing in. Each attempt costs an Argon2 verification (19 MiB and
//! tens of milliseconds of a core), so unlimited attempts are both a way to
//! guess passwords and a way to take the CPU from everyone else.

use super::{AddressLimit, PasswordHash, TooMany};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// Emails longer than this are cut before they key the failure record.
const MAX_KEYED_EMAIL: usize = 320;

/// Failures on one account before it waits between attempts.
const FREE_FAILURES: u32 = 4;

/// The longest wait: past it, guessing stays at one attempt per wait.
const MAX_LOCK: Duration = Duration::from_secs(15 * 60);

/// Accounts with recent failures that are remembered at most; beyond it, the
/// oldest are forgotten first.
const MAX_TRACKED_ACCOUNTS: usize = 100_000;

/// Rate limits on sign-in attempts and a bound on concurrent verifications,
/// shared by every sign-in of a server.
pub struct SignInThrottle {
    /// Every attempt from one address counts: thirty at once, then one every
    /// two seconds. Successes count too, so this is generous.
    by_address: AddressLimit,
    /// Failures per account, whatever address they came from. Only failures
    /// count and a success forgets them, which a token bucket cannot express,
    /// so this one is kept by hand.
    failures: Mutex<HashMap<String, Failures>>,
    verifications: Arc<Semaphore>,
}

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    locked_until: Instant,
}

impl std::fmt::Debug for SignInThrottle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInThrottle")
            .field(
                "free_verifications",
                &self.verifications.available_permits(),
            )
            .finish_non_exhaustive()
    }
}

impl Default for SignInThrottle {
    fn default() -> Self {
        // One core stays free for everything else the server does.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::new(cores.saturating_sub(1).max(1))
    }
}

impl SignInThrottle {
    /// At most `concurrent` verifications run at once; the rest wait their
    /// turn without holding a worker.
    pub fn new(concurrent: usize) -> Self {
        Self {
            by_address: AddressLimit::new(30, Duration::from_secs(2)),
            failures: Mutex::new(HashMap::new()),
            verifications: Arc::new(Semaphore::new(concurrent.max(1))),
        }
    }

    /// Counts an attempt from `address` on `email`, or says how long to wait.
    pub fn admit(&self, address: Option<IpAddr>, email: &str) -> Result<(), TooMany> {
        self.by_address.check(address)?;
        let now = Instant::now();
        match self.failures().get(&account_key(email)) {
            Some(failures) if failures.locked_until > now => Err(TooMany {
                retry_after: failures.locked_until - now,
            }),
            _ => Ok(()),
        }
    }

    /// Records how an admitted attempt on `email` ended. After
    /// [`FREE_FAILURES`] failures each one doubles the wait before the next
    /// attempt (2 s, 4 s, 8 s, ... up to [`MAX_LOCK`]); a success forgets them.
    pub fn record(&self, email: &str, succeeded: bool) {
        let key = account_key(email);
        let mut failures = self.failures();
        if succeeded {
            failures.remove(&key);
            return;
        }
        let now = Instant::now();
        if failures.len() >= MAX_TRACKED_ACCOUNTS && !failures.contains_key(&key) {
            failures.retain(|_, f| f.locked_until > now);
            if failures.len() >= MAX_TRACKED_ACCOUNTS
                && let Some(oldest) = failures
                    .iter()
                    .min_by_key(|(_, f)| f.locked_until)
                    .map(|(k, _)| k.clone())
            {
                failures.remove(&oldest);
            }
        }
        let entry = failures.entry(key).or_insert(Failures {
            count: 0,
            locked_until: now,
        });
        entry.count = entry.count.saturating_add(1);
        if let Some(over) = entry.count.checked_sub(FREE_FAILURES).filter(|&n| n > 0) {
            let lock = Duration::from_secs(1u64 << over.min(20)).min(MAX_LOCK);
            entry.locked_until = now + lock;
        }
    }

    fn failures(&self) -> std::sync::MutexGuard<'_, HashMap<String, Failures>> {
        // A panic while holding the lock leaves counts that are still counts.
        self.failures.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `password` matches `hash`, checked on a blocking thread once a
    /// verification slot is free. Without a hash (no such account) it spends
    /// the same time and fails, so timing does not tell which accounts exist.
    pub async fn verify(&self, hash: Option<PasswordHash>, password: &str) -> bool {
        let Ok(_slot) = self.verifications.acquire().await else {
            return false;
        };
        let password = password.to_owned();
        tokio::task::spawn_blocking(move || match hash {
            Some(hash) => hash.verify(&password),
            None => {
                PasswordHash::spend_verification_time(&password);
                false
            }
        })
        .await
        .unwrap_or(false)
    }
}

fn account_key(email: &str) -> String {
    email
        .trim()
        .chars()
        .take(MAX_KEYED_EMAIL)
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_on_an_account_make_it_wait_longer_each_time() {
        let throttle = SignInThrottle::new(1);
        let address = Some("192.0.2.1".parse().unwrap());
        for _ in 0..FREE_FAILURES {
            assert!(throttle.admit(address, "A@example.com").is_ok());
            throttle.record("A@example.com", false);
        }
        assert!(throttle.admit(address, "a@example.com").is_ok());
        throttle.record("a@example.com ", false);
        let first = throttle.admit(address, "a@example.com").unwrap_err();
        assert_eq!(first.retry_after_secs(), 2);
        // From another address too, and each failure doubles the wait.
        throttle.record("a@example.com", false);
        let elsewhere = Some("192.0.2.9".parse().unwrap());
        let second = throttle.admit(elsewhere, "a@example.com").unwrap_err();
        assert_eq!(second.retry_after_secs(), 4);
        // Other accounts are not affected, and a success forgets the failures.
        assert!(throttle.admit(address, "b@example.com").is_ok());
        throttle.record("a@example.com", true);
        assert!(throttle.admit(address, "a@example.com").is_ok());
    }

    #[test]
    fn an_address_gets_thirty_quick_attempts_across_accounts() {
        let throttle = SignInThrottle::new(1);
        let address = Some("192.0.2.1".parse().unwrap());
        for n in 0..30 {
            assert!(throttle.admit(address, &format!("{n}@example.com")).is_ok());
        }
        let refused = throttle.admit(address, "x@example.com").unwrap_err();
        assert!(
            (1..=2).contains(&refused.retry_after.as_secs()),
            "{refused:?}"
        );
        let elsewhere = Some("192.0.2.2".parse().unwrap());
        assert!(throttle.admit(elsewhere, "x@example.com").is_ok());
    }
}

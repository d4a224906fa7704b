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

/// What a caller is told to wait when its attempt on an account is refused
/// because others on it are still being checked: about one verification.
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(1);

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
    /// Failures per account, whatever address they came from, and the
    /// attempts on it still being checked. Only failures count and a success
    /// forgets them, which a token bucket cannot express, so this one is kept
    /// by hand.
    failures: Mutex<HashMap<String, Failures>>,
    verifications: Arc<Semaphore>,
}

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    locked_until: Instant,
    /// Admitted attempts not yet recorded: each may still fail, so they
    /// count against the free failures as if they had.
    in_flight: u32,
}

/// An admitted sign-in attempt on one account, holding its place among the
/// account's free failures until [`Attempt::record`] says how it ended.
/// Dropped unrecorded (the request was abandoned), it gives the place back.
#[derive(Debug)]
#[must_use = "an attempt holds its account's place until it is recorded"]
pub struct Attempt<'a> {
    throttle: &'a SignInThrottle,
    key: String,
    recorded: bool,
}

impl Attempt<'_> {
    /// Records how the attempt ended. After [`FREE_FAILURES`] failures each
    /// one doubles the wait before the next attempt (2 s, 4 s, 8 s, ... up
    /// to [`MAX_LOCK`]); a success forgets them.
    pub fn record(mut self, succeeded: bool) {
        self.recorded = true;
        self.throttle.record(&self.key, succeeded);
    }
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        if !self.recorded {
            self.throttle.release(&self.key);
        }
    }
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

    /// Counts an attempt from `address` on `email` and reserves its place
    /// among the account's free failures, or says how long to wait.
    ///
    /// The place is taken here, before the password is checked, so attempts
    /// arriving together cannot all pass while none has failed yet: past the
    /// free failures, an account is guessed one attempt at a time.
    pub fn admit(&self, address: Option<IpAddr>, email: &str) -> Result<Attempt<'_>, TooMany> {
        self.by_address.check(address)?;
        let key = account_key(email);
        let now = Instant::now();
        let mut failures = self.failures();
        match failures.get_mut(&key) {
            Some(account) if account.locked_until > now => {
                return Err(TooMany {
                    retry_after: account.locked_until - now,
                });
            }
            Some(account)
                if account.in_flight > 0
                    && account.count.saturating_add(account.in_flight) >= FREE_FAILURES =>
            {
                return Err(TooMany {
                    retry_after: IN_FLIGHT_WAIT,
                });
            }
            Some(account) => account.in_flight += 1,
            None => {
                make_room(&mut failures, now);
                failures.insert(
                    key.clone(),
                    Failures {
                        count: 0,
                        locked_until: now,
                        in_flight: 1,
                    },
                );
            }
        }
        Ok(Attempt {
            throttle: self,
            key,
            recorded: false,
        })
    }

    fn record(&self, key: &str, succeeded: bool) {
        let mut failures = self.failures();
        if succeeded {
            failures.remove(key);
            return;
        }
        let now = Instant::now();
        if !failures.contains_key(key) {
            make_room(&mut failures, now);
        }
        let entry = failures.entry(key.to_owned()).or_insert(Failures {
            count: 0,
            locked_until: now,
            in_flight: 1,
        });
        entry.in_flight = entry.in_flight.saturating_sub(1);
        entry.count = entry.count.saturating_add(1);
        if let Some(over) = entry.count.checked_sub(FREE_FAILURES).filter(|&n| n > 0) {
            let lock = Duration::from_secs(1u64 << over.min(20)).min(MAX_LOCK);
            entry.locked_until = now + lock;
        }
    }

    /// Gives back the place of an attempt that ended without a verdict.
    fn release(&self, key: &str) {
        let mut failures = self.failures();
        if let Some(entry) = failures.get_mut(key) {
            entry.in_flight = entry.in_flight.saturating_sub(1);
            if entry.count == 0 && entry.in_flight == 0 {
                failures.remove(key);
            }
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

/// Makes room for one more account once [`MAX_TRACKED_ACCOUNTS`] are
/// remembered: first those no longer waiting and with nothing in flight, then
/// the one whose wait ends first.
fn make_room(failures: &mut HashMap<String, Failures>, now: Instant) {
    if failures.len() < MAX_TRACKED_ACCOUNTS {
        return;
    }
    failures.retain(|_, f| f.locked_until > now || f.in_flight > 0);
    if failures.len() >= MAX_TRACKED_ACCOUNTS
        && let Some(oldest) = failures
            .iter()
            .min_by_key(|(_, f)| f.locked_until)
            .map(|(k, _)| k.clone())
    {
        failures.remove(&oldest);
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

    /// One failed attempt on `email`, admitted and recorded.
    fn fail(throttle: &SignInThrottle, address: Option<IpAddr>, email: &str) {
        throttle.admit(address, email).unwrap().record(false);
    }

    #[test]
    fn failures_on_an_account_make_it_wait_longer_each_time() {
        let throttle = SignInThrottle::new(1);
        let address = Some("192.0.2.1".parse().unwrap());
        for _ in 0..FREE_FAILURES {
            fail(&throttle, address, "A@example.com");
        }
        fail(&throttle, address, "a@example.com ");
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
    fn attempts_being_checked_count_as_failures_until_they_end() {
        let throttle = SignInThrottle::new(1);
        let address = Some("192.0.2.1".parse().unwrap());
        let email = "a@example.com";
        // As many at once as there are free failures, and no more.
        let mut checking: Vec<_> = (0..FREE_FAILURES)
            .map(|_| throttle.admit(address, email).unwrap())
            .collect();
        let refused = throttle.admit(address, email).unwrap_err();
        assert_eq!(refused.retry_after_secs(), 1);
        // One ends in failure: the others still hold their places.
        checking.pop().unwrap().record(false);
        assert!(throttle.admit(address, email).is_err());
        // An abandoned attempt gives its place back.
        checking.pop();
        let again = throttle.admit(address, email).unwrap();
        assert!(throttle.admit(address, email).is_err());
        // Once all have failed, the next waits as after any failures.
        again.record(false);
        for attempt in checking.drain(..) {
            attempt.record(false);
        }
        let last = throttle.admit(address, email).unwrap();
        assert!(throttle.admit(address, email).is_err(), "one at a time now");
        last.record(false);
        let locked = throttle.admit(address, email).unwrap_err();
        assert_eq!(locked.retry_after_secs(), 2);
        // Abandoned attempts on other accounts leave nothing behind.
        drop(throttle.admit(address, "b@example.com").unwrap());
        assert!(!throttle.failures().contains_key("b@example.com"));
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

//! Points in time as the domain sees them.
//!
//! Core never reads the clock: callers pass `now`, so tests can move time
//! forward without sleeping.

use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, UTC. Stored as a BIGINT on every backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(i64);

impl Timestamp {
    pub const fn from_millis(millis: i64) -> Self {
        Self(millis)
    }

    pub const fn as_millis(self) -> i64 {
        self.0
    }

    pub fn from_system_time(time: SystemTime) -> Self {
        let millis = match time.duration_since(UNIX_EPOCH) {
            Ok(since) => i64::try_from(since.as_millis()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
        };
        Self(millis)
    }

    #[must_use]
    /// "2026-12-01 04:20 UTC", for lists people read.
    #[cfg(feature = "ssr")]
    pub fn to_utc_minutes(self) -> String {
        chrono::DateTime::from_timestamp_millis(self.0)
            .map(|time| time.format("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_default()
    }

    pub fn saturating_add(self, duration: Duration) -> Self {
        let millis = i64::try_from(duration.as_millis()).unwrap_or(i64::MAX);
        Self(self.0.saturating_add(millis))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_a_duration_moves_forward_in_millis() {
        let t = Timestamp::from_millis(1_000);
        assert_eq!(t.saturating_add(Duration::from_secs(2)).as_millis(), 3_000);
        assert!(
            Timestamp::from_millis(i64::MAX).saturating_add(Duration::from_secs(1))
                == Timestamp::from_millis(i64::MAX)
        );
    }

    #[test]
    fn system_time_converts_both_sides_of_the_epoch() {
        let after = UNIX_EPOCH + Duration::from_millis(1_500);
        let before = UNIX_EPOCH - Duration::from_millis(1_500);
        assert_eq!(Timestamp::from_system_time(after).as_millis(), 1_500);
        assert_eq!(Timestamp::from_system_time(before).as_millis(), -1_500);
    }
}

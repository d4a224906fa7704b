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

    /// The calendar day in UTC this instant falls on.
    pub fn utc_day(self) -> Day {
        Day::from_days_since_epoch(self.0.div_euclid(86_400_000))
    }
}

/// A calendar day (proleptic Gregorian, UTC), for reading "last year" or
/// "the past 30 days" in a question against the caller's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day {
    pub year: i64,
    pub month: u32,
    pub day: u32,
}

impl Day {
    /// Days since 1970-01-01 to the civil date (Howard Hinnant's algorithm).
    pub fn from_days_since_epoch(days: i64) -> Self {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Day { year, month, day }
    }

    pub fn days_since_epoch(self) -> i64 {
        let year = self.year - i64::from(self.month <= 2);
        let era = year.div_euclid(400);
        let yoe = year.rem_euclid(400);
        let month = i64::from(self.month);
        let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5
            + i64::from(self.day)
            - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    #[must_use]
    pub fn minus_days(self, days: i64) -> Self {
        Day::from_days_since_epoch(self.days_since_epoch() - days)
    }

    /// "2026-12-01".
    pub fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
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
    fn days_convert_to_and_from_calendar_dates() {
        let day = Timestamp::from_millis(1_796_083_200_000).utc_day();
        assert_eq!(day.iso(), "2026-12-01");
        assert_eq!(Day::from_days_since_epoch(0).iso(), "1970-01-01");
        assert_eq!(day.minus_days(1).iso(), "2026-11-30");
        assert_eq!(
            Day {
                year: 2024,
                month: 3,
                day: 1
            }
            .minus_days(1)
            .iso(),
            "2024-02-29"
        );
        for days in [-800_000, -1, 0, 59, 60, 11_016, 20_788, 700_000] {
            assert_eq!(Day::from_days_since_epoch(days).days_since_epoch(), days);
        }
    }

    #[test]
    fn system_time_converts_both_sides_of_the_epoch() {
        let after = UNIX_EPOCH + Duration::from_millis(1_500);
        let before = UNIX_EPOCH - Duration::from_millis(1_500);
        assert_eq!(Timestamp::from_system_time(after).as_millis(), 1_500);
        assert_eq!(Timestamp::from_system_time(before).as_millis(), -1_500);
    }
}

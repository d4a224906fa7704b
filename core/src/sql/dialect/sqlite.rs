//! SQLite: dates are ISO text, read by `strftime` and `date` as they are.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::SQLiteDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct Sqlite;

impl SqlDialect for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &SQLiteDialect {}
    }

    fn year_of(&self) -> &'static str {
        "CAST(strftime('%Y', cassis_value) AS INTEGER)"
    }

    fn month_number_of(&self) -> &'static str {
        "CAST(strftime('%m', cassis_value) AS INTEGER)"
    }

    fn month_of(&self) -> &'static str {
        "strftime('%Y-%m', cassis_value)"
    }

    fn quarter_of(&self) -> &'static str {
        "strftime('%Y', cassis_value) || '-Q' || ((CAST(strftime('%m', cassis_value) AS INTEGER) + 2) / 3)"
    }

    fn week_of(&self) -> &'static str {
        "date(cassis_value, 'weekday 0', '-6 days')"
    }

    fn day_of(&self) -> &'static str {
        "date(cassis_value)"
    }

    fn add_months(&self, months: i64) -> String {
        format!("date(cassis_value, 'start of month', '{months:+} months')")
    }

    fn add_days(&self, days: i64) -> String {
        format!("date(cassis_value, '{days:+} days')")
    }

    /// Each side's date first, as the other dialects cast to a date: a
    /// timestamp late one evening and one early the next morning are a day
    /// apart, not the fraction of one Julian days would give.
    fn days_between(&self) -> &'static str {
        "CAST(julianday(date(cassis_end)) - julianday(date(cassis_start)) AS INTEGER)"
    }

    fn casts_text_to_date(&self) -> bool {
        false
    }

    fn callable(&self) -> &'static [&'static [&'static str]] {
        &[super::functions::COMMON, super::functions::SQLITE]
    }

    fn names_schema(&self) -> bool {
        false
    }
}

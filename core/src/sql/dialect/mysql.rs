//! MySQL and MariaDB: backquoted names, `DATE_FORMAT` and `DATE_ADD`.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::MySqlDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct MySql;

impl SqlDialect for MySql {
    fn dialect(&self) -> Dialect {
        Dialect::MySql
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &MySqlDialect {}
    }

    /// `"x"` is a string in MySQL.
    fn identifier_quote(&self) -> char {
        '`'
    }

    /// MySQL casts to `SIGNED`, not `INTEGER`.
    fn integer_of_text(&self) -> &'static str {
        "CAST(cassis_value AS SIGNED)"
    }

    fn year_of(&self) -> &'static str {
        "EXTRACT(YEAR FROM cassis_value)"
    }

    fn month_number_of(&self) -> &'static str {
        "EXTRACT(MONTH FROM cassis_value)"
    }

    fn month_of(&self) -> &'static str {
        "DATE_FORMAT(cassis_value, '%Y-%m')"
    }

    fn quarter_of(&self) -> &'static str {
        "CONCAT(YEAR(cassis_value), '-Q', QUARTER(cassis_value))"
    }

    fn week_of(&self) -> &'static str {
        "DATE_FORMAT(DATE_SUB(cassis_value, INTERVAL WEEKDAY(cassis_value) DAY), '%Y-%m-%d')"
    }

    fn day_of(&self) -> &'static str {
        "DATE_FORMAT(cassis_value, '%Y-%m-%d')"
    }

    fn add_months(&self, months: i64) -> String {
        format!("DATE_ADD(DATE_FORMAT(cassis_value, '%Y-%m-01'), INTERVAL {months} MONTH)")
    }

    fn days_between(&self) -> &'static str {
        "DATEDIFF(cassis_end, cassis_start)"
    }

    fn add_days(&self, days: i64) -> String {
        format!("DATE_ADD(cassis_value, INTERVAL {days} DAY)")
    }

    /// MySQL has no TEXT type to cast to; CHAR is its text.
    fn text_type(&self) -> &'static str {
        "CHAR"
    }

    fn callable(&self) -> &'static [&'static [&'static str]] {
        &[
            super::functions::COMMON,
            super::functions::STATISTICS,
            super::functions::MATH,
            super::functions::MYSQL,
        ]
    }
}

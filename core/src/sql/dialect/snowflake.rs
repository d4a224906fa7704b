//! Snowflake: unquoted names fold to upper case; `DATEADD` and `QUARTER`.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::SnowflakeDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct Snowflake;

impl SqlDialect for Snowflake {
    fn dialect(&self) -> Dialect {
        Dialect::Snowflake
    }

    fn own_functions(&self) -> &'static [&'static str] {
        super::functions::SNOWFLAKE
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &SnowflakeDialect {}
    }

    fn folds_unquoted_to_upper_case(&self) -> bool {
        true
    }

    fn quarter_of(&self) -> &'static str {
        "TO_CHAR(cassis_value, 'YYYY') || '-Q' || QUARTER(cassis_value)"
    }

    fn add_months(&self, months: i64) -> String {
        format!("DATEADD(month, {months}, DATE_TRUNC('MONTH', cassis_value))")
    }

    fn days_between(&self) -> &'static str {
        "DATEDIFF(day, CAST(cassis_start AS DATE), CAST(cassis_end AS DATE))"
    }

    fn add_days(&self, days: i64) -> String {
        format!("DATEADD(day, {days}, cassis_value)")
    }

    fn names_database(&self) -> bool {
        true
    }
}

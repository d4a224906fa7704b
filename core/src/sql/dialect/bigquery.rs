//! BigQuery: backquoted names, `FORMAT_DATE` over dates only.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::BigQueryDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct BigQuery;

impl SqlDialect for BigQuery {
    fn dialect(&self) -> Dialect {
        Dialect::BigQuery
    }

    fn own_functions(&self) -> &'static [&'static str] {
        super::functions::BIGQUERY
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &BigQueryDialect {}
    }

    fn identifier_quote(&self) -> char {
        '`'
    }

    fn year_of(&self) -> &'static str {
        "EXTRACT(YEAR FROM cassis_value)"
    }

    fn month_number_of(&self) -> &'static str {
        "EXTRACT(MONTH FROM cassis_value)"
    }

    fn month_of(&self) -> &'static str {
        "FORMAT_DATE('%Y-%m', cassis_value)"
    }

    fn quarter_of(&self) -> &'static str {
        "FORMAT_DATE('%Y-Q%Q', cassis_value)"
    }

    fn week_of(&self) -> &'static str {
        "FORMAT_DATE('%Y-%m-%d', DATE_TRUNC(cassis_value, ISOWEEK))"
    }

    fn day_of(&self) -> &'static str {
        "FORMAT_DATE('%Y-%m-%d', cassis_value)"
    }

    fn add_months(&self, months: i64) -> String {
        format!("DATE_ADD(DATE_TRUNC(cassis_value, MONTH), INTERVAL {months} MONTH)")
    }

    fn days_between(&self) -> &'static str {
        "DATE_DIFF(CAST(cassis_end AS DATE), CAST(cassis_start AS DATE), DAY)"
    }

    fn add_days(&self, days: i64) -> String {
        format!("DATE_ADD(cassis_value, INTERVAL {days} DAY)")
    }

    fn casts_timestamp_to_date(&self) -> bool {
        true
    }

    fn text_type(&self) -> &'static str {
        "STRING"
    }

    fn names_database(&self) -> bool {
        true
    }
}

//! Databricks (Spark SQL): backquoted names, Java date patterns.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::DatabricksDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct Databricks;

impl SqlDialect for Databricks {
    fn dialect(&self) -> Dialect {
        Dialect::Databricks
    }

    fn own_functions(&self) -> &'static [&'static str] {
        super::functions::DATABRICKS
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &DatabricksDialect {}
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
        "date_format(cassis_value, 'yyyy-MM')"
    }

    fn quarter_of(&self) -> &'static str {
        "CONCAT(YEAR(cassis_value), '-Q', QUARTER(cassis_value))"
    }

    fn week_of(&self) -> &'static str {
        "date_format(date_trunc('WEEK', cassis_value), 'yyyy-MM-dd')"
    }

    fn day_of(&self) -> &'static str {
        "date_format(cassis_value, 'yyyy-MM-dd')"
    }

    fn add_months(&self, months: i64) -> String {
        format!("add_months(trunc(cassis_value, 'MM'), {months})")
    }

    fn days_between(&self) -> &'static str {
        "datediff(CAST(cassis_end AS DATE), CAST(cassis_start AS DATE))"
    }

    fn add_days(&self, days: i64) -> String {
        format!("date_add(cassis_value, {days})")
    }

    fn names_database(&self) -> bool {
        true
    }
}

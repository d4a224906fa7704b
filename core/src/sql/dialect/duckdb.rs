//! DuckDB: PostgreSQL's intervals, its own `strftime(date, format)`.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::DuckDbDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct DuckDb;

impl SqlDialect for DuckDb {
    fn dialect(&self) -> Dialect {
        Dialect::DuckDb
    }

    fn own_functions(&self) -> &'static [&'static str] {
        super::functions::DUCKDB
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &DuckDbDialect {}
    }

    fn month_of(&self) -> &'static str {
        "strftime(cassis_value, '%Y-%m')"
    }

    fn quarter_of(&self) -> &'static str {
        "CONCAT(strftime(cassis_value, '%Y'), '-Q', quarter(cassis_value))"
    }

    fn week_of(&self) -> &'static str {
        "strftime(date_trunc('week', cassis_value), '%Y-%m-%d')"
    }

    fn day_of(&self) -> &'static str {
        "strftime(cassis_value, '%Y-%m-%d')"
    }
}

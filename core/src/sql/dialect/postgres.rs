//! PostgreSQL: the standard reading every default of [`SqlDialect`] is.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::PostgreSqlDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct Postgres;

impl SqlDialect for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &PostgreSqlDialect {}
    }

    fn own_functions(&self) -> &'static [&'static str] {
        super::functions::POSTGRES
    }

    fn quoted_names_are_exact(&self) -> bool {
        true
    }
}

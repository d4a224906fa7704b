//! Amazon Redshift: PostgreSQL's functions, its own parser.

use super::SqlDialect;
use crate::project::Dialect;
use sqlparser::dialect::RedshiftSqlDialect;

#[derive(Clone, Copy, Debug, Default)]
pub struct Redshift;

impl SqlDialect for Redshift {
    fn dialect(&self) -> Dialect {
        Dialect::Redshift
    }

    fn own_functions(&self) -> &'static [&'static str] {
        super::functions::REDSHIFT
    }

    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect {
        &RedshiftSqlDialect {}
    }
}

//! One object per SQL dialect: every rule in which the engines Cassis
//! writes SQL for differ (how a name is quoted, which words are reserved,
//! how a date is read at a grain or moved by a period, how rows are
//! limited). The compiler and the draft bootstrap ask these objects and
//! never match on [`Dialect`] themselves.
//!
//! As in `sqlparser`'s dialects, [`SqlDialect`]'s default methods are the
//! standard (PostgreSQL) reading, and each struct overrides only where its
//! engine differs.
//!
//! Date rules are SQL templates over the placeholder [`VALUE`], constant
//! text that the compiler parses in the dialect and fills with its own
//! rendering of a date; no text from outside ever goes into one.

use crate::project::Dialect;
use sqlparser::ast::{Expr, Ident, LimitClause, Offset, OffsetRows, Value};

mod bigquery;
mod databricks;
mod duckdb;
pub mod functions;
mod mysql;
mod postgres;
mod redshift;
mod snowflake;
mod sqlite;

pub use bigquery::BigQuery;
pub use databricks::Databricks;
pub use duckdb::DuckDb;
pub use mysql::MySql;
pub use postgres::Postgres;
pub use redshift::Redshift;
pub use snowflake::Snowflake;
pub use sqlite::Sqlite;

/// The placeholder a date template is applied to.
pub const VALUE: &str = "cassis_value";

/// The placeholders of [`SqlDialect::days_between`]: the date counted
/// from and the date counted to.
pub const START: &str = "cassis_start";
pub const END: &str = "cassis_end";

/// How one SQL dialect writes what the compiler needs.
pub trait SqlDialect: Send + Sync + std::fmt::Debug {
    /// The dialect as a data source stores it.
    fn dialect(&self) -> Dialect;

    /// The `sqlparser` dialect that reads this source's SQL.
    fn parser(&self) -> &'static dyn sqlparser::dialect::Dialect;

    /// The character that quotes a name: `"` in standard SQL.
    fn identifier_quote(&self) -> char {
        '"'
    }

    /// Whether the engine folds unquoted names to upper case (Snowflake),
    /// so a lower-case name that must be quoted is quoted in upper case.
    fn folds_unquoted_to_upper_case(&self) -> bool {
        false
    }

    /// Words that cannot stand bare as a name or an alias, in lower case.
    /// Most other keywords (`year`, `name`, `public`) read fine bare, and
    /// quoting them would only add noise.
    fn reserved_words(&self) -> &'static [&'static str] {
        RESERVED
    }

    /// Whether `name` (in any case) is one of [`Self::reserved_words`].
    fn is_reserved(&self, name: &str) -> bool {
        self.reserved_words()
            .contains(&name.to_ascii_lowercase().as_str())
    }

    /// A name as this dialect reads it back: bare when it is plain lower
    /// snake case and not reserved, quoted otherwise.
    fn ident(&self, name: &str) -> Ident {
        if super::is_lower_snake_case(name) && !self.is_reserved(name) {
            Ident::new(name)
        } else {
            self.quoted_ident(name)
        }
    }

    /// A name always quoted, as the engine reads it: a name from the
    /// catalog, whatever its case or spelling. Where unquoted names fold to
    /// upper case, a lower-case name means the folded one, also quoted.
    fn quoted_ident(&self, name: &str) -> Ident {
        if self.folds_unquoted_to_upper_case() && super::is_lower_snake_case(name) {
            Ident::with_quote(self.identifier_quote(), name.to_ascii_uppercase())
        } else {
            Ident::with_quote(self.identifier_quote(), name)
        }
    }

    /// The type a value is cast to to be read as text.
    fn text_type(&self) -> &'static str {
        "TEXT"
    }

    /// `LIMIT rows [OFFSET skipped]`: every dialect Cassis writes for has
    /// it; an engine with `TOP` or `FETCH FIRST` only would override this.
    fn limit(&self, rows: u32, skipped: Option<u32>) -> LimitClause {
        let number = |n: u32| Expr::value(Value::Number(n.to_string(), false));
        LimitClause::LimitOffset {
            limit: Some(number(rows)),
            offset: skipped.map(|n| Offset {
                value: number(n),
                rows: OffsetRows::None,
            }),
            limit_by: Vec::new(),
        }
    }

    /// The year of a date, as a number.
    fn year_of(&self) -> &'static str {
        "CAST(EXTRACT(YEAR FROM cassis_value) AS INTEGER)"
    }

    /// The month of a date as `1997-03`, which sorts as the months do.
    fn month_of(&self) -> &'static str {
        "TO_CHAR(cassis_value, 'YYYY-MM')"
    }

    /// The month of a date as a number, 1 for January.
    fn month_number_of(&self) -> &'static str {
        "CAST(EXTRACT(MONTH FROM cassis_value) AS INTEGER)"
    }

    /// The quarter of a date as `1997-Q1`.
    fn quarter_of(&self) -> &'static str {
        "TO_CHAR(cassis_value, 'YYYY-\"Q\"Q')"
    }

    /// The week of a date, named by its Monday (ISO weeks, Monday to
    /// Sunday, in every dialect) as `1997-03-10`.
    fn week_of(&self) -> &'static str {
        "TO_CHAR(DATE_TRUNC('week', cassis_value), 'YYYY-MM-DD')"
    }

    /// The day of a date or timestamp as `1997-03-14`.
    fn day_of(&self) -> &'static str {
        "TO_CHAR(cassis_value, 'YYYY-MM-DD')"
    }

    /// The first of the date's month moved `months` later (earlier when
    /// negative): from the first, so 31 January plus a month is in
    /// February, never in March.
    fn add_months(&self, months: i64) -> String {
        format!("DATE_TRUNC('month', cassis_value) + INTERVAL '{months} months'")
    }

    /// The date moved `days` later (earlier when negative).
    fn add_days(&self, days: i64) -> String {
        format!("cassis_value + INTERVAL '{days} days'")
    }

    /// The whole days from [`START`] to [`END`] (negative when the end is
    /// earlier), each a date, a timestamp or ISO text: what an ontology's
    /// `days_between(start, end)` stands for in this dialect.
    fn days_between(&self) -> &'static str {
        "CAST(cassis_end AS DATE) - CAST(cassis_start AS DATE)"
    }

    /// Digits held as text read as an integer.
    fn integer_of_text(&self) -> &'static str {
        "CAST(cassis_value AS INTEGER)"
    }

    /// Whether ISO dates held as text are cast to dates before the date
    /// functions read them (SQLite's functions read the text itself).
    fn casts_text_to_date(&self) -> bool {
        true
    }

    /// Whether timestamps are cast to dates before the date functions read
    /// them (BigQuery's date formats take dates only).
    fn casts_timestamp_to_date(&self) -> bool {
        false
    }

    /// The lists of functions SQL written outside Cassis may call in this
    /// dialect (see [`functions`]); the standard statistics and scalars
    /// where the engine has them.
    fn callable(&self) -> &'static [&'static [&'static str]] {
        &[
            functions::COMMON,
            functions::STATISTICS,
            functions::MATH,
            functions::STANDARD,
        ]
    }

    /// The engine's own functions beside [`Self::callable`]'s shared
    /// lists: the date functions its templates write (`DATEADD`).
    fn own_functions(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether a function called `name` (in any case) is in
    /// [`Self::callable`] or [`Self::own_functions`].
    fn may_call(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        self.callable()
            .iter()
            .chain([&self.own_functions()])
            .any(|list| list.contains(&name.as_str()))
    }

    /// Whether a quoted name is compared exactly, case and all, when SQL
    /// written outside Cassis is checked against the ontology's names
    /// (PostgreSQL folds only unquoted names, so `"Name"` is not `name`);
    /// elsewhere names are compared without case.
    fn quoted_names_are_exact(&self) -> bool {
        false
    }

    /// Whether a table is named by its database too (`db.schema.table`),
    /// where the engine reaches across databases (Snowflake, BigQuery,
    /// Databricks).
    fn names_database(&self) -> bool {
        false
    }

    /// Whether a table is named by its schema (`schema.table`); SQLite
    /// names tables alone.
    fn names_schema(&self) -> bool {
        true
    }
}

impl Dialect {
    /// The rules Cassis writes this dialect's SQL by.
    pub fn sql(self) -> &'static dyn SqlDialect {
        match self {
            Dialect::Sqlite => &Sqlite,
            Dialect::Postgres => &Postgres,
            Dialect::Snowflake => &Snowflake,
            Dialect::BigQuery => &BigQuery,
            Dialect::Databricks => &Databricks,
            Dialect::Redshift => &Redshift,
            Dialect::MySql => &MySql,
            Dialect::DuckDb => &DuckDb,
        }
    }
}

/// Words reserved in at least one of the dialects (PostgreSQL's reserved
/// key words, which cover the others' common ones): a name or alias among
/// them is quoted everywhere, which every dialect reads back.
const RESERVED: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "between",
    "both",
    "by",
    "case",
    "cast",
    "check",
    "collate",
    "column",
    "constraint",
    "create",
    "cross",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "default",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "false",
    "fetch",
    "for",
    "foreign",
    "from",
    "full",
    "grant",
    "group",
    "having",
    "in",
    "inner",
    "intersect",
    "into",
    "is",
    "join",
    "lateral",
    "leading",
    "left",
    "like",
    "limit",
    "natural",
    "not",
    "null",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "primary",
    "references",
    "right",
    "select",
    "table",
    "then",
    "to",
    "trailing",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "when",
    "where",
    "window",
    "with",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parse_expression;

    #[test]
    fn names_are_quoted_only_where_the_dialect_needs_it() {
        let ident = |dialect: Dialect, name: &str| dialect.sql().ident(name).to_string();
        assert_eq!(ident(Dialect::Postgres, "race_id"), "race_id");
        assert_eq!(ident(Dialect::Postgres, "order"), "\"order\"");
        assert_eq!(ident(Dialect::Postgres, "My Table"), "\"My Table\"");
        assert_eq!(ident(Dialect::MySql, "Order"), "`Order`");
        assert_eq!(ident(Dialect::BigQuery, "group"), "`group`");
        assert_eq!(ident(Dialect::Databricks, "Name"), "`Name`");
        assert_eq!(ident(Dialect::Snowflake, "order"), "\"ORDER\"");
        assert_eq!(ident(Dialect::Snowflake, "Mixed"), "\"Mixed\"");
        assert_eq!(ident(Dialect::Snowflake, "year"), "year");
        let quoted = |dialect: Dialect, name: &str| dialect.sql().quoted_ident(name).to_string();
        assert_eq!(quoted(Dialect::Postgres, "year"), "\"year\"");
        assert_eq!(quoted(Dialect::MySql, "year"), "`year`");
        assert_eq!(quoted(Dialect::Snowflake, "year"), "\"YEAR\"");
        assert_eq!(quoted(Dialect::Snowflake, "Year"), "\"Year\"");
    }

    /// Each date template of `rules` over [`VALUE`].
    fn date_templates(rules: &dyn SqlDialect) -> [String; 9] {
        [
            rules.year_of().to_owned(),
            rules.month_of().to_owned(),
            rules.month_number_of().to_owned(),
            rules.quarter_of().to_owned(),
            rules.week_of().to_owned(),
            rules.day_of().to_owned(),
            rules.add_months(-3),
            rules.add_days(7),
            rules.integer_of_text().to_owned(),
        ]
    }

    #[test]
    fn every_date_template_parses_in_its_dialect() {
        for dialect in Dialect::ALL {
            let rules = dialect.sql();
            assert_eq!(rules.dialect(), dialect);
            for template in date_templates(rules) {
                assert!(template.contains(VALUE), "{dialect:?}: {template}");
                parse_expression(dialect, &template)
                    .unwrap_or_else(|e| panic!("{dialect:?}: {template}: {e}"));
            }
            let between = rules.days_between();
            assert!(
                between.contains(START) && between.contains(END),
                "{dialect:?}: {between}"
            );
            parse_expression(dialect, between)
                .unwrap_or_else(|e| panic!("{dialect:?}: {between}: {e}"));
        }
    }

    /// A compiled query is checked against the dialect's allowlist before
    /// it runs, so every function of its own templates must be on it.
    #[test]
    fn every_template_calls_only_functions_the_dialect_allows() {
        use sqlparser::ast::{Expr, visit_expressions};
        use std::ops::ControlFlow;
        for dialect in Dialect::ALL {
            let rules = dialect.sql();
            let templates = date_templates(rules)
                .into_iter()
                .chain([rules.days_between().to_owned()]);
            for template in templates {
                let expr = parse_expression(dialect, &template).unwrap();
                let _ = visit_expressions(&expr, |e| {
                    if let Expr::Function(function) = e {
                        let name = function.name.to_string();
                        assert!(rules.may_call(&name), "{dialect:?}: {name} in {template}");
                    }
                    ControlFlow::<()>::Continue(())
                });
            }
        }
    }

    #[test]
    fn rows_are_limited_with_limit() {
        for dialect in Dialect::ALL {
            assert_eq!(dialect.sql().limit(5, None).to_string(), " LIMIT 5");
            assert_eq!(
                dialect.sql().limit(1, Some(2)).to_string(),
                " LIMIT 1 OFFSET 2"
            );
        }
    }
}

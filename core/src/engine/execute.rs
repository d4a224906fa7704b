//! Runs a compiled query read-only: at most [`MAX_ROWS`] rows and
//! [`MAX_RESULT_BYTES`] come back, the total is counted in the same statement,
//! and the question timeout cancels the statement (how is the warehouse's
//! business: see [`Warehouse::fetch_rows`]). Nothing here knows which
//! engine runs it.

use crate::engine::compile::CompiledQuery;
use crate::engine::response::ResultSet;
use crate::engine::written_sql::{self, SqlRejection};
use crate::project::Dialect;
use crate::warehouse::{Budget, FetchError, Warehouse};
use serde_json::Value as Json;
use sqlparser::ast::{Expr, GroupByExpr, LimitClause, Query, SelectItem, SetExpr, Value};
use std::time::Duration;

pub use crate::warehouse::{MAX_CELL_BYTES, MAX_RESULT_BYTES, ResultTooLarge};

/// Rows returned inline; the rest are counted, not sent.
pub const MAX_ROWS: usize = 100;
const TOTAL_COLUMN: &str = "cassis_total_rows";

#[derive(Debug, thiserror::Error)]
pub enum ExecuteError {
    #[error("the query took longer than the question timeout of {} seconds", .0.as_secs())]
    Timeout(Duration),
    #[error("the data source refused the query: {0}")]
    Query(#[from] sqlx::Error),
    #[error("the data source refused the query: {0}")]
    Remote(Box<dyn std::error::Error + Send + Sync>),
    #[error("Cassis refused to run the query: {0}")]
    Refused(#[from] SqlRejection),
    #[error(transparent)]
    TooLarge(#[from] ResultTooLarge),
}

impl ExecuteError {
    /// What a failed read means for a statement run under `timeout`.
    fn of_fetch(error: FetchError, timeout: Duration) -> Self {
        if error.is_statement_timeout() {
            return ExecuteError::Timeout(timeout);
        }
        match error {
            FetchError::Query(error) => ExecuteError::Query(error),
            FetchError::Remote(error) => ExecuteError::Remote(error),
            FetchError::TooLarge(too_large) => ExecuteError::TooLarge(too_large),
            FetchError::Timeout => ExecuteError::Timeout(timeout),
        }
    }
}

/// The statement that is run: the compiled query with a count of all its rows
/// and the row cap. Public so tests and the playground can show it.
pub fn executed_query(compiled: &CompiledQuery) -> Query {
    let mut query = compiled.query.clone();
    if let SetExpr::Select(select) = query.body.as_mut() {
        // COUNT(*) OVER () runs before DISTINCT; grouping by every shown
        // column means the same and counts what is shown.
        if select.distinct.take().is_some() {
            let columns: Vec<Expr> = select
                .projection
                .iter()
                .filter_map(|item| match item {
                    SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                        Some(e.clone())
                    }
                    _ => None,
                })
                .collect();
            select.group_by = GroupByExpr::Expressions(columns, Vec::new());
        }
        let total = crate::sql::parse_expression(Dialect::Postgres, "COUNT(*) OVER ()")
            .expect("the window template parses");
        select.projection.push(SelectItem::ExprWithAlias {
            expr: total,
            alias: sqlparser::ast::Ident::new(TOTAL_COLUMN),
        });
    }
    let cap = MAX_ROWS as u64;
    if limit_of(&query).is_none_or(|n| n > cap) {
        query.limit_clause = Some(LimitClause::LimitOffset {
            limit: Some(Expr::value(Value::Number(cap.to_string(), false))),
            offset: None,
            limit_by: Vec::new(),
        });
    }
    query
}

/// The query's `LIMIT n`, if it has a literal one.
fn limit_of(query: &Query) -> Option<u64> {
    match &query.limit_clause {
        Some(LimitClause::LimitOffset {
            limit: Some(Expr::Value(v)),
            ..
        }) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a query may run: it locks no rows and calls only the functions
/// written SQL may call, checked by the same function. The compiler emits
/// nothing else; this is the last line of defence for its queries and the
/// model's alike.
pub fn runnable(query: &Query, dialect: Dialect) -> Result<(), SqlRejection> {
    if !query.locks.is_empty() {
        return Err(SqlRejection::Unsupported("row locks (FOR UPDATE)"));
    }
    written_sql::check_calls(dialect, query)
}

/// The text of `query`, once it reads back as the very tree that was checked.
/// The SQL printer doubles a quote in a text value except after a backslash
/// or beside another quote, and never escapes a backslash: a value such as
/// `\' OR 1=1 --` would otherwise end its literal early where backslashes
/// are plain characters (PostgreSQL, SQLite) and the rest would run
/// unchecked, and a value ending in a backslash would swallow what follows
/// where a backslash escapes (MySQL). Such values are refused instead.
pub fn faithful_text(query: &Query, dialect: Dialect) -> Result<String, SqlRejection> {
    let text = query.to_string();
    match crate::sql::parse_select(dialect, &text) {
        Ok(reread) if reread == *query => Ok(text),
        _ => Err(SqlRejection::Unfaithful),
    }
}

pub async fn execute(
    warehouse: &Warehouse,
    compiled: &CompiledQuery,
    timeout: Duration,
) -> Result<ResultSet, ExecuteError> {
    runnable(&compiled.query, warehouse.dialect())?;
    let sql = faithful_text(&executed_query(compiled), warehouse.dialect())?;
    let run = warehouse.fetch_rows(sql, timeout, Budget::capped());
    let rows = within(timeout, run).await?;
    // A limit the question asked for ("top 3") bounds what the query matched.
    let asked_limit = limit_of(&compiled.query);
    let mut total_rows = 0u64;
    let rows: Vec<Vec<Json>> = rows
        .into_iter()
        .map(|mut row| {
            if let Some(Json::Number(n)) = row.pop() {
                total_rows = n.as_u64().unwrap_or(0);
            }
            row
        })
        .collect();
    if let Some(limit) = asked_limit {
        total_rows = total_rows.min(limit);
    }
    Ok(ResultSet {
        columns: compiled.columns.clone(),
        truncated: total_rows > rows.len() as u64,
        total_rows,
        rows,
    })
}

/// The rows `run` fetches, or a timeout whether the source stopped the
/// statement (PostgreSQL's `statement_timeout`, SQLite's interrupt, MySQL's
/// and MariaDB's time limits) or Cassis gave up waiting first (and dropping
/// `run` cancels the statement).
async fn within(
    timeout: Duration,
    run: impl Future<Output = Result<Vec<Vec<Json>>, FetchError>>,
) -> Result<Vec<Vec<Json>>, ExecuteError> {
    match tokio::time::timeout(timeout, run).await {
        Ok(result) => result.map_err(|e| ExecuteError::of_fetch(e, timeout)),
        Err(_) => Err(ExecuteError::Timeout(timeout)),
    }
}

/// Every row of a read-only query, decoded as the engine decodes results: how
/// the evaluation reads gold SQL and the engine reads known values.
pub async fn all_rows(
    warehouse: &Warehouse,
    sql: &str,
    timeout: Duration,
) -> Result<Vec<Vec<Json>>, ExecuteError> {
    let run = warehouse.fetch_rows(sql.to_owned(), timeout, Budget::unlimited());
    within(timeout, run).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql;
    use sqlx::sqlite::SqlitePoolOptions;

    /// An in-memory SQLite source with `notes(id, body)`: `rows` rows whose
    /// body holds `bytes` bytes of text. One connection, so every use sees
    /// the same database.
    async fn notes(rows: u32, bytes: usize) -> Warehouse {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        sqlx::query("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            .execute(&pool)
            .await
            .unwrap();
        for id in 0..rows {
            sqlx::query("INSERT INTO notes (id, body) VALUES (?, ?)")
                .bind(id)
                .bind("x".repeat(bytes))
                .execute(&pool)
                .await
                .unwrap();
        }
        Warehouse::from_connector(crate::warehouse::sqlite::SqliteSource::from_pool(pool))
    }

    fn query(text: &str) -> CompiledQuery {
        let query = sql::parse_select(Dialect::Sqlite, text).unwrap();
        let columns = match query.body.as_ref() {
            SetExpr::Select(select) => select.projection.iter().map(|i| i.to_string()).collect(),
            _ => Vec::new(),
        };
        CompiledQuery {
            sql: query.to_string(),
            query,
            columns,
            objects: vec!["notes".into()],
        }
    }

    const TIMEOUT: Duration = Duration::from_secs(30);

    #[tokio::test]
    async fn a_result_within_the_caps_comes_back_whole() {
        let warehouse = notes(3, 1000).await;
        let result = execute(&warehouse, &query("SELECT id, body FROM notes"), TIMEOUT)
            .await
            .unwrap();
        assert_eq!(result.rows.len(), 3);
        assert_eq!(result.rows[0][1], Json::from("x".repeat(1000)));
    }

    #[tokio::test]
    async fn a_value_over_the_cell_cap_fails_the_result() {
        let warehouse = notes(1, MAX_CELL_BYTES + 1).await;
        let error = execute(&warehouse, &query("SELECT id, body FROM notes"), TIMEOUT)
            .await
            .unwrap_err();
        assert!(
            matches!(error, ExecuteError::TooLarge(ResultTooLarge::Cell)),
            "{error}"
        );
        assert!(error.to_string().starts_with("the result is too large"));
    }

    #[tokio::test]
    async fn values_over_the_result_cap_together_fail_the_result() {
        // Every value under the cell cap, but 100 rows of three of them
        // come to more than the result's cap.
        let bytes = MAX_CELL_BYTES - 1;
        assert!(MAX_ROWS * 3 * bytes > MAX_RESULT_BYTES);
        let warehouse = notes(MAX_ROWS as u32, bytes).await;
        let error = execute(
            &warehouse,
            &query("SELECT body AS a, body AS b, body AS c FROM notes"),
            TIMEOUT,
        )
        .await
        .unwrap_err();
        assert!(
            matches!(error, ExecuteError::TooLarge(ResultTooLarge::Total)),
            "{error}"
        );
    }

    #[tokio::test]
    async fn the_execute_time_check_refuses_what_written_sql_refuses() {
        let warehouse = notes(1, 10).await;
        for text in [
            "SELECT randomblob(1000000000) AS b FROM notes",
            "SELECT zeroblob(1000000000) AS b FROM notes",
            "SELECT load_extension('/tmp/evil.so') AS e FROM notes",
            "SELECT \"readfile\"('/etc/passwd') AS f FROM notes",
            "SELECT id FROM notes WHERE id IN (SELECT sqlite_version())",
            "SELECT x FROM generate_series(1, 10) AS x",
        ] {
            let error = execute(&warehouse, &query(text), TIMEOUT)
                .await
                .unwrap_err();
            assert!(matches!(error, ExecuteError::Refused(_)), "{text}: {error}");
        }
        let compiled = query("SELECT strftime('%Y', 'now') AS y, COUNT(*) AS n FROM notes");
        assert!(execute(&warehouse, &compiled, TIMEOUT).await.is_ok());
    }

    #[tokio::test]
    async fn a_value_that_would_end_its_literal_early_never_runs() {
        let warehouse = notes(3, 10).await;
        let mut compiled = query("SELECT id FROM notes WHERE body = 'x'");
        let _ = sqlparser::ast::visit_expressions_mut(&mut compiled.query, |expr| {
            if let Expr::Value(value) = expr {
                // Printed as '\' OR 1=1 -- ': on SQLite the literal is `\`
                // and the rest is SQL that would match every note.
                value.value = Value::SingleQuotedString(r"\' OR 1=1 -- ".to_owned());
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        let outcome = execute(&warehouse, &compiled, TIMEOUT).await;
        assert!(
            matches!(
                outcome,
                Err(ExecuteError::Refused(SqlRejection::Unfaithful))
            ),
            "{outcome:?}"
        );
    }

    #[test]
    fn values_that_would_not_read_back_as_themselves_are_refused() {
        let with_value = |dialect: Dialect, text: &str| {
            let mut query =
                sql::parse_select(dialect, "SELECT n FROM t WHERE label = 'x'").unwrap();
            let _ = sqlparser::ast::visit_expressions_mut(&mut query, |expr| {
                if let Expr::Value(value) = expr {
                    value.value = Value::SingleQuotedString(text.to_owned());
                }
                std::ops::ControlFlow::<()>::Continue(())
            });
            faithful_text(&query, dialect)
        };
        for dialect in [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql] {
            for ordinary in ["O'Brien", "'quoted'", "Pérez", "50% off", "a;b -- c"] {
                let text = with_value(dialect, ordinary).unwrap();
                assert!(text.contains(&ordinary.replace('\'', "''")), "{text}");
            }
            for (value, why) in [
                (r"\' OR 1=1 -- ", "a quote after a backslash is not doubled"),
                ("it''s", "two quotes in a row are not doubled"),
                (
                    r"C:\",
                    "a trailing backslash escapes the closing quote in MySQL",
                ),
            ] {
                if dialect != Dialect::MySql && why.contains("MySQL") {
                    continue;
                }
                assert_eq!(
                    with_value(dialect, value),
                    Err(SqlRejection::Unfaithful),
                    "{dialect:?} {value}: {why}"
                );
            }
        }
    }

    #[test]
    fn runnable_is_the_written_sql_allowlist() {
        for (dialect, text) in [
            (Dialect::Postgres, "SELECT pg_read_file('/etc/passwd') AS f"),
            (
                Dialect::Postgres,
                "SELECT pg_catalog.pg_read_file('/etc/passwd') AS f",
            ),
            (Dialect::Postgres, "SELECT \"dblink\"('x', 'y') AS d"),
            (Dialect::Postgres, "SELECT nextval('s') AS n"),
            (Dialect::Postgres, "SELECT 1 AS one FOR UPDATE"),
            (Dialect::Sqlite, "SELECT randomblob(10) AS b"),
        ] {
            let query = sql::parse_select(dialect, text).unwrap();
            assert!(runnable(&query, dialect).is_err(), "{text}");
        }
        let query = sql::parse_select(
            Dialect::Postgres,
            "SELECT DATE_TRUNC('year', date) AS y, COUNT(*) OVER () AS n FROM races",
        )
        .unwrap();
        assert_eq!(runnable(&query, Dialect::Postgres), Ok(()));
    }
}

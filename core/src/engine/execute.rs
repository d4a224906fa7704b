//! Runs a compiled query read-only: at most [`MAX_ROWS`] rows and
//! [`MAX_RESULT_BYTES`] come back, the total is counted in the same statement,
//! and the question timeout cancels the statement on PostgreSQL
//! (`statement_timeout`) and abandons it on SQLite.

use crate::engine::compile::CompiledQuery;
use crate::engine::response::ResultSet;
use crate::engine::written_sql::{self, SqlRejection};
use crate::project::Dialect;
use crate::warehouse::Warehouse;
use serde_json::Value as Json;
use sqlparser::ast::{Expr, GroupByExpr, LimitClause, Query, SelectItem, SetExpr, Value};
use sqlx::{AssertSqlSafe, Row, TypeInfo, ValueRef};
use std::time::Duration;

/// Rows returned inline; the rest are counted, not sent.
pub const MAX_ROWS: usize = 100;
const TOTAL_COLUMN: &str = "cassis_total_rows";
/// The most bytes one value of a result may hold: a long description fits,
/// a document or a generated blob does not.
pub const MAX_CELL_BYTES: usize = 64 * 1024;
/// The most bytes the values of a result may hold together, so what is sent,
/// shown and kept in the chat stays small whatever the query selects.
pub const MAX_RESULT_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ExecuteError {
    #[error("the query took longer than the question timeout of {} seconds", .0.as_secs())]
    Timeout(Duration),
    #[error("the data source refused the query: {0}")]
    Query(#[from] sqlx::Error),
    #[error("Cassis refused to run the query: {0}")]
    Refused(#[from] SqlRejection),
    #[error(transparent)]
    TooLarge(#[from] ResultTooLarge),
}

/// A result over [`MAX_CELL_BYTES`] or [`MAX_RESULT_BYTES`]: refused whole,
/// as a silently cut value or a missing row would be a wrong answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResultTooLarge {
    #[error(
        "the result is too large: one of its values holds more than {} KiB",
        MAX_CELL_BYTES / 1024
    )]
    Cell,
    #[error(
        "the result is too large: its values hold more than {} MiB together",
        MAX_RESULT_BYTES / (1024 * 1024)
    )]
    Total,
}

/// What is left of a result's allowance of bytes.
struct Budget {
    cell: usize,
    left: usize,
}

impl Budget {
    fn capped() -> Self {
        Budget {
            cell: MAX_CELL_BYTES,
            left: MAX_RESULT_BYTES,
        }
    }

    /// Reads Cassis runs for itself (gold SQL, known values) are not answers
    /// to a user and are bounded by their own queries.
    fn unlimited() -> Self {
        Budget {
            cell: usize::MAX,
            left: usize::MAX,
        }
    }

    fn spend(&mut self, bytes: usize) -> Result<(), ResultTooLarge> {
        if bytes > self.cell {
            return Err(ResultTooLarge::Cell);
        }
        self.left = self.left.checked_sub(bytes).ok_or(ResultTooLarge::Total)?;
        Ok(())
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

pub async fn execute(
    warehouse: &Warehouse,
    compiled: &CompiledQuery,
    timeout: Duration,
) -> Result<ResultSet, ExecuteError> {
    runnable(&compiled.query, warehouse.dialect())?;
    let sql = executed_query(compiled).to_string();
    let run = fetch_rows(warehouse, sql, Some(timeout), Budget::capped());
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

/// A row's values, once their bytes fit in `budget`.
fn sqlite_row(
    row: &sqlx::sqlite::SqliteRow,
    budget: &mut Budget,
) -> Result<Vec<Json>, ResultTooLarge> {
    for i in 0..row.columns().len() {
        // Text and blobs by their length; numbers are a few bytes.
        budget.spend(row.try_get::<&[u8], _>(i).map_or(8, <[u8]>::len))?;
    }
    let values = (0..row.columns().len())
        .map(|i| {
            let null = row.try_get_raw(i).map(|v| v.is_null()).unwrap_or(true);
            if null {
                Json::Null
            } else if let Ok(n) = row.try_get::<i64, _>(i) {
                Json::from(n)
            } else if let Ok(x) = row.try_get::<f64, _>(i) {
                number(x)
            } else if let Ok(s) = row.try_get::<String, _>(i) {
                Json::from(s)
            } else {
                Json::Null
            }
        })
        .collect();
    Ok(values)
}

/// A row's values, once their bytes fit in `budget`.
fn pg_row(row: &sqlx::postgres::PgRow, budget: &mut Budget) -> Result<Vec<Json>, ResultTooLarge> {
    for i in 0..row.columns().len() {
        let raw = row.try_get_raw(i).ok();
        budget.spend(raw.and_then(|v| v.as_bytes().ok()).map_or(0, <[u8]>::len))?;
    }
    let values = (0..row.columns().len())
        .map(|i| {
            let Ok(raw) = row.try_get_raw(i) else {
                return Json::Null;
            };
            if raw.is_null() {
                return Json::Null;
            }
            let kind = raw.type_info().name().to_owned();
            let value = match kind.as_str() {
                "INT8" => row.try_get::<i64, _>(i).map(Json::from).ok(),
                "INT4" => row.try_get::<i32, _>(i).map(Json::from).ok(),
                "INT2" => row.try_get::<i16, _>(i).map(Json::from).ok(),
                "FLOAT8" => row.try_get::<f64, _>(i).map(number).ok(),
                "FLOAT4" => row.try_get::<f32, _>(i).map(|x| number(f64::from(x))).ok(),
                "NUMERIC" => row.try_get::<rust_decimal::Decimal, _>(i).ok().map(decimal),
                "BOOL" => row.try_get::<bool, _>(i).map(Json::from).ok(),
                "DATE" => row
                    .try_get::<chrono::NaiveDate, _>(i)
                    .map(|d| Json::from(d.to_string()))
                    .ok(),
                "TIMESTAMP" => row
                    .try_get::<chrono::NaiveDateTime, _>(i)
                    .map(|d| Json::from(d.to_string()))
                    .ok(),
                "TIMESTAMPTZ" => row
                    .try_get::<chrono::DateTime<chrono::Utc>, _>(i)
                    .map(|d| Json::from(d.to_rfc3339()))
                    .ok(),
                _ => row.try_get::<String, _>(i).map(Json::from).ok(),
            };
            value.unwrap_or(Json::Null)
        })
        .collect();
    Ok(values)
}

/// Whole numbers as integers, so 860.0 points reads as 860.
fn number(x: f64) -> Json {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Json::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
    }
}

fn decimal(d: rust_decimal::Decimal) -> Json {
    use rust_decimal::prelude::ToPrimitive;
    if d.fract().is_zero() {
        d.to_i64()
            .map_or_else(|| Json::from(d.to_string()), Json::from)
    } else {
        number(d.round_dp(6).to_f64().unwrap_or(f64::NAN))
    }
}

/// Every row of `sql`, decoded within `budget`; on PostgreSQL in a read-only
/// transaction that the server itself cancels after `timeout`.
async fn fetch_rows(
    warehouse: &Warehouse,
    sql: String,
    timeout: Option<Duration>,
    mut budget: Budget,
) -> Result<Vec<Vec<Json>>, ExecuteError> {
    match warehouse {
        Warehouse::Sqlite(pool) => {
            let mut connection = crate::warehouse::sqlite_connection(pool, timeout).await?;
            let rows = sqlx::query(AssertSqlSafe(sql))
                .fetch_all(&mut *connection)
                .await?;
            let decoded = rows.iter().map(|row| sqlite_row(row, &mut budget));
            Ok(decoded.collect::<Result<_, _>>()?)
        }
        Warehouse::Postgres(pool) => {
            let mut tx = read_only_transaction(pool).await?;
            if let Some(timeout) = timeout {
                // A number we format ourselves, not input.
                let limit = format!(
                    "SET LOCAL statement_timeout = {}",
                    timeout.as_millis().max(1)
                );
                sqlx::query(AssertSqlSafe(limit)).execute(&mut *tx).await?;
            }
            let rows = sqlx::query(AssertSqlSafe(sql)).fetch_all(&mut *tx).await?;
            tx.rollback().await?;
            let decoded = rows.iter().map(|row| pg_row(row, &mut budget));
            Ok(decoded.collect::<Result<_, _>>()?)
        }
    }
}

async fn read_only_transaction(
    pool: &sqlx::PgPool,
) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION READ ONLY")
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

/// The planner's estimate of a query's total cost, where the source offers
/// one (PostgreSQL's EXPLAIN); `None` elsewhere.
pub async fn estimated_cost(warehouse: &Warehouse, sql: &str) -> Result<Option<f64>, sqlx::Error> {
    let Warehouse::Postgres(pool) = warehouse else {
        return Ok(None);
    };
    let mut tx = read_only_transaction(pool).await?;
    // The compiled query, from the AST: not input.
    let explain = format!("EXPLAIN (FORMAT JSON) {sql}");
    let plan: Json = sqlx::query_scalar(AssertSqlSafe(explain))
        .fetch_one(&mut *tx)
        .await?;
    tx.rollback().await?;
    Ok(plan
        .get(0)
        .and_then(|p| p.get("Plan"))
        .and_then(|p| p.get("Total Cost"))
        .and_then(Json::as_f64))
}

/// The rows `run` fetches, or a timeout whether the source stopped the
/// statement (PostgreSQL's `statement_timeout`, SQLite's interrupt) or Cassis
/// gave up waiting first.
async fn within(
    timeout: Duration,
    run: impl Future<Output = Result<Vec<Vec<Json>>, ExecuteError>>,
) -> Result<Vec<Vec<Json>>, ExecuteError> {
    match tokio::time::timeout(timeout, run).await {
        Ok(Err(ExecuteError::Query(e))) if crate::warehouse::is_statement_timeout(&e) => {
            Err(ExecuteError::Timeout(timeout))
        }
        Ok(result) => result,
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
    let run = fetch_rows(
        warehouse,
        sql.to_owned(),
        Some(timeout),
        Budget::unlimited(),
    );
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
        Warehouse::Sqlite(pool)
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

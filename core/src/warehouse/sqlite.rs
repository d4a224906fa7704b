//! SQLite files, opened read-only. SQLite has no statement timeout: a
//! progress handler interrupts a statement once its deadline passes, so an
//! abandoned query stops using the CPU.

use super::catalog::{Catalog, ColumnSchema, ForeignKey, TableSchema};
use super::connector::{Fetched, Source};
use super::rows::{Budget, sqlite_row};
use super::{POOL_CONNECTIONS, POOL_WAIT, PoolUsage, WarehouseError, metadata_table_list};
use crate::project::{Dialect, redact_url};
use sqlx::pool::PoolConnection;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{AssertSqlSafe, Row, Sqlite, SqlitePool};
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Virtual machine steps between checks of a SQLite query's deadline.
const SQLITE_PROGRESS_STEPS: i32 = 10_000;

/// A read-only pool on one SQLite file.
#[derive(Clone, Debug)]
pub struct SqliteSource {
    pool: SqlitePool,
}

impl SqliteSource {
    pub(super) async fn connect(url: &str) -> Result<Self, WarehouseError> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|_| WarehouseError::UnsupportedUrl(redact_url(url)))?
            .read_only(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(POOL_CONNECTIONS)
            .acquire_timeout(POOL_WAIT)
            .connect_with(options)
            .await
            .map_err(WarehouseError::Connect)?;
        Ok(SqliteSource { pool })
    }

    /// A source on a pool opened elsewhere (an in-memory database in tests).
    pub fn from_pool(pool: SqlitePool) -> Self {
        SqliteSource { pool }
    }
}

impl Source for SqliteSource {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn pool_usage(&self) -> PoolUsage {
        PoolUsage::of(&self.pool)
    }

    async fn holds_metadata(&self) -> Result<bool, WarehouseError> {
        let names = metadata_table_list(false);
        // Constant table names, not input.
        let sql =
            format!("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({names})");
        let found: Vec<String> = sqlx::query_scalar(AssertSqlSafe(sql))
            .fetch_all(&self.pool)
            .await?;
        Ok(super::is_metadata(&found))
    }

    async fn catalog(&self, _schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        sqlite_catalog(&self.pool).await
    }

    async fn fetch_rows(&self, sql: String, timeout: Duration, mut budget: Budget) -> Fetched {
        let mut connection = sqlite_connection(&self.pool, Some(timeout)).await?;
        let rows = sqlx::query(AssertSqlSafe(sql))
            .fetch_all(&mut *connection)
            .await?;
        let decoded = rows.iter().map(|row| sqlite_row(row, &mut budget));
        Ok(decoded.collect::<Result<_, _>>()?)
    }

    async fn close(&self) {
        self.pool.close().await
    }
}

/// A connection to a SQLite source whose statements stop at `timeout` (none
/// without one). Set or cleared on every use, since an earlier use may have
/// left a handler behind on this connection.
pub(crate) async fn sqlite_connection(
    pool: &SqlitePool,
    timeout: Option<Duration>,
) -> Result<PoolConnection<Sqlite>, sqlx::Error> {
    let mut connection = pool.acquire().await?;
    {
        let mut handle = connection.lock_handle().await?;
        match timeout {
            Some(timeout) => {
                let deadline = Instant::now() + timeout;
                handle
                    .set_progress_handler(SQLITE_PROGRESS_STEPS, move || Instant::now() < deadline);
            }
            None => handle.remove_progress_handler(),
        }
    }
    Ok(connection)
}

async fn sqlite_catalog(pool: &SqlitePool) -> Result<Catalog, WarehouseError> {
    let tables = sqlx::query(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') \
         AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .fetch_all(pool)
    .await?;
    let mut catalog = Catalog::default();
    for row in tables {
        let name: String = row.try_get("name")?;
        let mut table = TableSchema {
            name: name.clone(),
            ..Default::default()
        };
        let columns = sqlx::query("SELECT name, type, pk FROM pragma_table_info($1) ORDER BY cid")
            .bind(&name)
            .fetch_all(pool)
            .await?;
        let mut key: Vec<(i64, String)> = Vec::new();
        for column in columns {
            let column_name: String = column.try_get("name")?;
            let position: i64 = column.try_get("pk")?;
            if position > 0 {
                key.push((position, column_name.clone()));
            }
            table.columns.push(ColumnSchema {
                name: column_name,
                sql_type: column.try_get("type")?,
                sample_values: Vec::new(),
            });
        }
        key.sort();
        table.primary_key = key.into_iter().map(|(_, c)| c).collect();
        let keys = sqlx::query(
            r#"SELECT id, "table", "from", "to" FROM pragma_foreign_key_list($1) ORDER BY id, seq"#,
        )
        .bind(&name)
        .fetch_all(pool)
        .await?;
        let mut current: Option<(i64, ForeignKey)> = None;
        for key in keys {
            let id: i64 = key.try_get("id")?;
            if current.as_ref().is_none_or(|(c, _)| *c != id) {
                table.foreign_keys.extend(current.take().map(|(_, fk)| fk));
                let referenced_table: String = key.try_get("table")?;
                current = Some((
                    id,
                    ForeignKey {
                        referenced_table,
                        ..Default::default()
                    },
                ));
            }
            if let Some((_, fk)) = current.as_mut() {
                fk.columns.push(key.try_get("from")?);
                // `to` is NULL when the key refers to the primary key.
                if let Some(to) = key.try_get::<Option<String>, _>("to")? {
                    fk.referenced_columns.push(to);
                }
            }
        }
        table.foreign_keys.extend(current.map(|(_, fk)| fk));
        catalog.tables.push(table);
    }
    Ok(catalog)
}

//! MySQL and MariaDB sources. Every session is read-only (`SET SESSION
//! TRANSACTION READ ONLY`) and carries a statement time limit that each use sets anew: MySQL's
//! `max_execution_time` or MariaDB's `max_statement_time`, which differ in
//! name and unit, so the server is told apart once per connection. A
//! statement Cassis stops waiting for is killed (`KILL QUERY`), so an
//! abandoned question stops using the server at once.

use super::connector::{Fetched, Source};
use super::rows::{Budget, mysql_row};
use super::{HOUSEKEEPING_TIMEOUT, PoolUsage, WarehouseError, metadata_table_list};
use crate::project::Dialect;
use crate::project::redact_url;
use crate::warehouse::catalog::{Catalog, ColumnSchema, ForeignKey};
use sqlx::mysql::{MySqlConnectOptions, MySqlConnection, MySqlPoolOptions};
use sqlx::pool::PoolConnection;
use sqlx::{AssertSqlSafe, Connection, MySql, MySqlPool, Row};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub use sqlx::mysql::MySqlRow;

/// MariaDB's "Query execution was interrupted (max_statement_time exceeded)".
const MARIADB_STATEMENT_TIMEOUT: u16 = 1969;
/// MySQL's "Query execution was interrupted, maximum statement execution
/// time exceeded".
const MYSQL_QUERY_TIMEOUT: u16 = 3024;

/// Which server speaks the protocol: they name their statement time limits
/// differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    MariaDb,
    MySql,
}

impl Server {
    fn of_version(version: &str) -> Self {
        if version.to_ascii_lowercase().contains("mariadb") {
            Server::MariaDb
        } else {
            Server::MySql
        }
    }

    /// The statement that limits the session's next statements to `timeout`.
    /// A number we format ourselves, not input.
    fn time_limit(self, timeout: Duration) -> String {
        match self {
            // Seconds, with microsecond precision.
            Server::MariaDb => format!(
                "SET SESSION max_statement_time = {:.3}",
                timeout.as_secs_f64().max(0.001)
            ),
            // Milliseconds; applies to read-only SELECTs, all Cassis runs.
            Server::MySql => format!(
                "SET SESSION max_execution_time = {}",
                timeout.as_millis().max(1)
            ),
        }
    }
}

/// A connection pool to a MySQL or MariaDB database whose sessions are all
/// read-only.
#[derive(Clone, Debug)]
pub struct MySqlSource {
    pool: MySqlPool,
    server: Server,
}

/// Whether a statement stopped at its time limit.
pub(crate) fn is_statement_timeout(error: &sqlx::Error) -> bool {
    let sqlx::Error::Database(e) = error else {
        return false;
    };
    e.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
        .is_some_and(|e| matches!(e.number(), MARIADB_STATEMENT_TIMEOUT | MYSQL_QUERY_TIMEOUT))
}

/// Sets up a fresh session: read-only, with the housekeeping time limit
/// until a use sets its own.
async fn prepare_session(connection: &mut MySqlConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SET SESSION TRANSACTION READ ONLY")
        .execute(&mut *connection)
        .await?;
    // The session reads SQL as the parser Cassis checks it with reads
    // MySQL: backslashes escape in literals (the server's default; the
    // engine refuses a value whose printed literal would read back
    // differently), `"…"` is a string, and `||` concatenates (the driver
    // sets PIPES_AS_CONCAT).
    let version: String = sqlx::query_scalar("SELECT VERSION()")
        .fetch_one(&mut *connection)
        .await?;
    let limit = Server::of_version(&version).time_limit(HOUSEKEEPING_TIMEOUT);
    sqlx::query(AssertSqlSafe(limit))
        .execute(&mut *connection)
        .await?;
    Ok(())
}

impl MySqlSource {
    pub(super) async fn connect(url: &str) -> Result<Self, WarehouseError> {
        let options = MySqlConnectOptions::from_str(url)
            .map_err(|_| WarehouseError::UnsupportedUrl(redact_url(url)))?;
        // The driver signs in as `root` without a password when the URL
        // names no user: never what a data team configured.
        let named_user = url::Url::parse(url).is_ok_and(|u| !u.username().is_empty());
        if !named_user {
            return Err(WarehouseError::NoUser(redact_url(url)));
        }
        let pool = MySqlPoolOptions::new()
            .max_connections(super::POOL_CONNECTIONS)
            .acquire_timeout(super::POOL_WAIT)
            .after_connect(|connection, _| Box::pin(prepare_session(connection)))
            .connect_with(options)
            .await
            .map_err(WarehouseError::Connect)?;
        let version: String = sqlx::query_scalar("SELECT VERSION()")
            .fetch_one(&pool)
            .await
            .map_err(WarehouseError::Connect)?;
        Ok(MySqlSource {
            pool,
            server: Server::of_version(&version),
        })
    }

    pub fn server(&self) -> Server {
        self.server
    }

    /// Whether any database the user can see is a Cassis metadata database.
    async fn holds_metadata(&self) -> Result<bool, sqlx::Error> {
        let names = metadata_table_list(false);
        // Constant table names, not input.
        let sql = format!(
            "SELECT CAST(table_schema AS CHAR), CAST(table_name AS CHAR) \
             FROM information_schema.tables WHERE table_name IN ({names})"
        );
        let found: Vec<(String, String)> = sqlx::query_as(AssertSqlSafe(sql))
            .fetch_all(&self.pool)
            .await?;
        let mut by_schema: std::collections::HashMap<&str, Vec<&str>> = Default::default();
        for (schema, table) in &found {
            by_schema.entry(schema).or_default().push(table);
        }
        Ok(by_schema.values().any(|tables| super::is_metadata(tables)))
    }

    /// A connection whose statements stop at `timeout`, with the server's id
    /// of its session (to kill a statement on it).
    async fn connection(
        &self,
        timeout: Duration,
    ) -> Result<(PoolConnection<MySql>, u64), sqlx::Error> {
        let mut connection = self.pool.acquire().await?;
        sqlx::query(AssertSqlSafe(self.server.time_limit(timeout)))
            .execute(&mut *connection)
            .await?;
        let id: u64 = sqlx::query_scalar("SELECT CONNECTION_ID()")
            .fetch_one(&mut *connection)
            .await?;
        Ok((connection, id))
    }

    /// Every row of `sql`, stopped by the server after `timeout`, and killed
    /// if the caller stops waiting first.
    pub(super) async fn fetch_all(
        &self,
        sql: String,
        timeout: Duration,
    ) -> Result<Vec<MySqlRow>, sqlx::Error> {
        let (mut connection, id) = self.connection(timeout).await?;
        let mut guard = KillOnDrop {
            options: self.pool.connect_options(),
            id,
            armed: true,
        };
        let rows = sqlx::query(AssertSqlSafe(sql))
            .fetch_all(&mut *connection)
            .await;
        guard.armed = false;
        rows
    }

    /// The tables and views of `schema` (a database), or of every database
    /// the user can see but the server's own, with their columns and keys.
    async fn catalog(&self, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        let (mut connection, _) = self.connection(HOUSEKEEPING_TIMEOUT).await?;
        let columns = sqlx::query(
            "SELECT c.table_schema AS table_schema, c.table_name AS table_name, \
                    c.column_name AS column_name, c.data_type AS data_type \
             FROM information_schema.columns c \
             JOIN information_schema.tables t \
               ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
             WHERE c.table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') \
               AND (? IS NULL OR c.table_schema = ?) \
             ORDER BY c.table_schema, c.table_name, c.ordinal_position",
        )
        .bind(schema)
        .bind(schema)
        .fetch_all(&mut *connection)
        .await?;
        let mut catalog = Catalog::default();
        for row in columns {
            catalog.push_column(
                text(&row, "table_schema")?,
                text(&row, "table_name")?,
                ColumnSchema {
                    name: text(&row, "column_name")?,
                    sql_type: text(&row, "data_type")?,
                    sample_values: Vec::new(),
                },
            );
        }

        // Primary and foreign keys, column pairs in key order. A primary key
        // is always named PRIMARY; a foreign key's rows name what it refers
        // to; other rows are unique keys. (TABLE_CONSTRAINTS would say so
        // too, but MariaDB shows it empty to a user with only SELECT.)
        let keys = sqlx::query(
            "SELECT k.constraint_name AS constraint_name, k.table_schema AS table_schema, \
                    k.table_name AS table_name, k.column_name AS column_name, \
                    k.referenced_table_schema AS ref_schema, k.referenced_table_name AS ref_table, \
                    k.referenced_column_name AS ref_column \
             FROM information_schema.key_column_usage k \
             WHERE (k.constraint_name = 'PRIMARY' OR k.referenced_table_name IS NOT NULL) \
               AND k.table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') \
               AND (? IS NULL OR k.table_schema = ?) \
             ORDER BY k.table_schema, k.table_name, k.constraint_name, k.ordinal_position",
        )
        .bind(schema)
        .bind(schema)
        .fetch_all(&mut *connection)
        .await?;
        let mut last_constraint = String::new();
        for key in keys {
            let (table_schema, table_name) =
                (text(&key, "table_schema")?, text(&key, "table_name")?);
            let Some(table) = catalog.tables.iter_mut().find(|t| {
                t.schema.as_deref() == Some(table_schema.as_str()) && t.name == table_name
            }) else {
                continue;
            };
            let constraint = text(&key, "constraint_name")?;
            let column = text(&key, "column_name")?;
            if constraint == "PRIMARY" {
                table.primary_key.push(column);
                continue;
            }
            let continues = constraint == last_constraint && !table.foreign_keys.is_empty();
            if !continues {
                table.foreign_keys.push(ForeignKey {
                    referenced_schema: optional_text(&key, "ref_schema")?,
                    referenced_table: optional_text(&key, "ref_table")?.unwrap_or_default(),
                    ..Default::default()
                });
            }
            let fk = table
                .foreign_keys
                .last_mut()
                .expect("a key was just pushed");
            fk.columns.push(column);
            fk.referenced_columns
                .extend(optional_text(&key, "ref_column")?);
            last_constraint = constraint;
        }
        Ok(catalog)
    }
}

impl Source for MySqlSource {
    fn dialect(&self) -> Dialect {
        Dialect::MySql
    }

    fn pool_usage(&self) -> PoolUsage {
        PoolUsage::of(&self.pool)
    }

    async fn holds_metadata(&self) -> Result<bool, WarehouseError> {
        Ok(MySqlSource::holds_metadata(self).await?)
    }

    async fn catalog(&self, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        MySqlSource::catalog(self, schema).await
    }

    async fn fetch_rows(&self, sql: String, timeout: Duration, mut budget: Budget) -> Fetched {
        let rows = self.fetch_all(sql, timeout).await?;
        let decoded = rows.iter().map(|row| mysql_row(row, &mut budget));
        Ok(decoded.collect::<Result<_, _>>()?)
    }

    async fn close(&self) {
        self.pool.close().await
    }
}

/// A text column of information_schema. MySQL 8 reports some of its
/// columns as binary strings, which decode as bytes rather than text.
fn text(row: &MySqlRow, column: &str) -> Result<String, sqlx::Error> {
    Ok(optional_text(row, column)?.unwrap_or_default())
}

fn optional_text(row: &MySqlRow, column: &str) -> Result<Option<String>, sqlx::Error> {
    match row.try_get::<Option<String>, _>(column) {
        Ok(value) => Ok(value),
        Err(_) => Ok(row
            .try_get::<Option<Vec<u8>>, _>(column)?
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())),
    }
}

/// Kills the statement running on session `id` when dropped armed: when the
/// future running it is dropped, because Cassis stopped waiting (the question
/// timeout) or the caller went away. Killing needs a session of the same
/// user, opened apart from the pool, which may be full of busy sessions.
struct KillOnDrop {
    options: Arc<MySqlConnectOptions>,
    id: u64,
    armed: bool,
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (options, id) = (self.options.clone(), self.id);
        runtime.spawn(async move {
            let kill = async {
                let mut connection = MySqlConnection::connect_with(&options).await?;
                // The server's own session id, not input.
                sqlx::query(AssertSqlSafe(format!("KILL QUERY {id}")))
                    .execute(&mut connection)
                    .await?;
                connection.close().await
            };
            match tokio::time::timeout(Duration::from_secs(10), kill).await {
                Ok(Ok(())) => tracing::debug!(id, "killed an abandoned statement"),
                Ok(Err(error)) => {
                    tracing::warn!(id, %error, "killing an abandoned statement failed")
                }
                Err(_) => tracing::warn!(id, "killing an abandoned statement timed out"),
            }
        });
    }
}

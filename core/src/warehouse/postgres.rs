//! PostgreSQL (and engines that speak its protocol). Every session is
//! read-only (`default_transaction_read_only`) and each statement runs in a
//! read-only transaction under its own `statement_timeout` (the question
//! timeout), so the server itself stops it at the deadline.

use super::catalog::{Catalog, ColumnSchema, ForeignKey};
use super::connector::{Cost, Fetched, Source};
use super::rows::{Budget, FetchError, pg_row};
use super::{
    HOUSEKEEPING_TIMEOUT, POOL_CONNECTIONS, POOL_WAIT, PoolUsage, WarehouseError,
    metadata_table_list,
};
use crate::project::{Dialect, redact_url};
use serde_json::Value as Json;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgSslMode};
use sqlx::{AssertSqlSafe, PgPool, Row};
use std::time::Duration;

/// Environment variables sqlx applies to every PostgreSQL connection and
/// offers no way to undo: the server's client certificate and key, its
/// trusted roots and its session options. Set, they would reach every
/// warehouse an admin names, so PostgreSQL sources are refused until they
/// are unset. The others (`PGHOST`, `PGUSER`, `PGPASSWORD`, ...) are
/// overridden one by one in [`postgres_options`].
const AMBIENT_POSTGRES_SETTINGS: [&str; 4] =
    ["PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT", "PGOPTIONS"];

/// A pool of read-only sessions on one PostgreSQL database.
#[derive(Clone, Debug)]
pub struct PostgresSource {
    pool: PgPool,
}

impl PostgresSource {
    pub(super) async fn connect(url: &str) -> Result<Self, WarehouseError> {
        // A query that sets no timeout of its own stops at the
        // housekeeping one; questions set theirs per transaction.
        let options = postgres_options(url)?.options([
            ("default_transaction_read_only", "on"),
            (
                "statement_timeout",
                &HOUSEKEEPING_TIMEOUT.as_millis().to_string(),
            ),
        ]);
        let pool = PgPoolOptions::new()
            .max_connections(POOL_CONNECTIONS)
            .acquire_timeout(POOL_WAIT)
            .connect_with(options)
            .await
            .map_err(WarehouseError::Connect)?;
        Ok(PostgresSource { pool })
    }
}

impl Source for PostgresSource {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn pool_usage(&self) -> PoolUsage {
        PoolUsage::of(&self.pool)
    }

    async fn holds_metadata(&self) -> Result<bool, WarehouseError> {
        let names = metadata_table_list(false);
        // Constant table names, not input.
        let sql = format!(
            "SELECT DISTINCT relname::text FROM pg_catalog.pg_class \
                 WHERE relkind IN ('r', 'p', 'v', 'm', 'f') AND relname IN ({names})"
        );
        let found: Vec<String> = sqlx::query_scalar(AssertSqlSafe(sql))
            .fetch_all(&self.pool)
            .await?;
        Ok(super::is_metadata(&found))
    }

    async fn catalog(&self, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        postgres_catalog(&self.pool, schema).await
    }

    async fn fetch_rows(&self, sql: String, timeout: Duration, mut budget: Budget) -> Fetched {
        let mut tx = read_only_transaction(&self.pool).await?;
        // A number we format ourselves, not input.
        let limit = format!(
            "SET LOCAL statement_timeout = {}",
            timeout.as_millis().max(1)
        );
        sqlx::query(AssertSqlSafe(limit)).execute(&mut *tx).await?;
        let rows = sqlx::query(AssertSqlSafe(sql)).fetch_all(&mut *tx).await?;
        tx.rollback().await?;
        let decoded = rows.iter().map(|row| pg_row(row, &mut budget));
        Ok(decoded.collect::<Result<_, _>>()?)
    }

    /// The planner's estimate of the query's total cost (EXPLAIN).
    async fn estimated_cost(&self, sql: String) -> Result<Option<Cost>, FetchError> {
        let mut tx = read_only_transaction(&self.pool).await?;
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
            .and_then(Json::as_f64)
            .map(Cost::PlannerUnits))
    }

    async fn close(&self) {
        self.pool.close().await
    }
}

async fn read_only_transaction(
    pool: &PgPool,
) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION READ ONLY")
        .execute(&mut *tx)
        .await?;
    Ok(tx)
}

async fn postgres_catalog(pool: &PgPool, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
    let columns = sqlx::query(
        "SELECT c.table_schema, c.table_name, c.column_name, c.data_type FROM information_schema.columns c \
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
         WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.table_schema NOT LIKE 'pg\\_%' \
         AND ($1::text IS NULL OR c.table_schema = $1) \
         ORDER BY c.table_schema, c.table_name, c.ordinal_position",
    )
    .bind(schema)
    .fetch_all(pool)
    .await?;
    let mut catalog = Catalog::default();
    for row in columns {
        catalog.push_column(
            row.try_get("table_schema")?,
            row.try_get("table_name")?,
            ColumnSchema {
                name: row.try_get("column_name")?,
                sql_type: row.try_get("data_type")?,
                sample_values: Vec::new(),
            },
        );
    }

    // Primary and foreign keys from the system catalog, column pairs in key order.
    let keys = sqlx::query(
        "SELECT c.conname, c.contype::text AS kind, ns.nspname AS table_schema, cl.relname AS table_name, \
                a.attname AS column_name, fns.nspname AS ref_schema, fcl.relname AS ref_table, fa.attname AS ref_column \
         FROM pg_constraint c \
         JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_namespace ns ON ns.oid = cl.relnamespace \
         CROSS JOIN LATERAL unnest(c.conkey, COALESCE(c.confkey, c.conkey)) WITH ORDINALITY AS k(attnum, fattnum, ord) \
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum \
         LEFT JOIN pg_class fcl ON fcl.oid = c.confrelid LEFT JOIN pg_namespace fns ON fns.oid = fcl.relnamespace \
         LEFT JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = k.fattnum \
         WHERE c.contype IN ('p', 'f') AND ($1::text IS NULL OR ns.nspname = $1) \
         ORDER BY ns.nspname, cl.relname, c.conname, k.ord",
    )
    .bind(schema)
    .fetch_all(pool)
    .await?;
    let mut last_constraint = String::new();
    for key in keys {
        let (table_schema, table_name): (String, String) =
            (key.try_get("table_schema")?, key.try_get("table_name")?);
        let Some(table) = catalog
            .tables
            .iter_mut()
            .find(|t| t.schema.as_deref() == Some(table_schema.as_str()) && t.name == table_name)
        else {
            continue;
        };
        let constraint: String = key.try_get("conname")?;
        let column: String = key.try_get("column_name")?;
        if key.try_get::<String, _>("kind")? == "p" {
            table.primary_key.push(column);
            continue;
        }
        let continues = constraint == last_constraint && !table.foreign_keys.is_empty();
        if !continues {
            table.foreign_keys.push(ForeignKey {
                referenced_schema: key.try_get("ref_schema")?,
                referenced_table: key
                    .try_get::<Option<String>, _>("ref_table")?
                    .unwrap_or_default(),
                ..Default::default()
            });
        }
        let fk = table
            .foreign_keys
            .last_mut()
            .expect("a key was just pushed");
        fk.columns.push(column);
        fk.referenced_columns
            .extend(key.try_get::<Option<String>, _>("ref_column")?);
        last_constraint = constraint;
    }
    Ok(catalog)
}

/// The first of [`AMBIENT_POSTGRES_SETTINGS`] the server's environment sets:
/// while one is, PostgreSQL sources are refused.
pub fn ambient_postgres_setting() -> Option<&'static str> {
    AMBIENT_POSTGRES_SETTINGS
        .into_iter()
        .find(|name| std::env::var_os(name).is_some())
}

/// The connection a `postgres://` URL names, and nothing from the server's
/// environment: sqlx starts from `PGHOST`, `PGUSER`, `PGPASSWORD`,
/// `PGDATABASE`, `PGSSLMODE`, `PGAPPNAME` and `~/.pgpass`, the server's own
/// settings and credentials, which may well open its metadata database. So
/// every one of them is set here from the URL (an empty password when it
/// names none), and what cannot be set back is refused:
/// [`AMBIENT_POSTGRES_SETTINGS`] in the environment, a socket instead of a
/// host (peer or trust authentication as the server's own user), and query
/// parameters naming the server's files or session options (`sslcert`,
/// `sslkey`, `sslrootcert`, `host`, `hostaddr`, `options`).
fn postgres_options(url: &str) -> Result<PgConnectOptions, WarehouseError> {
    if let Some(name) = ambient_postgres_setting() {
        return Err(WarehouseError::AmbientSetting(name));
    }
    let unsupported = || WarehouseError::UnsupportedUrl(redact_url(url));
    let parsed = url::Url::parse(url).map_err(|_| unsupported())?;
    let decode = |text: &str| {
        percent_encoding::percent_decode_str(text)
            .decode_utf8()
            .map(|t| t.into_owned())
            .map_err(|_| unsupported())
    };
    let host = parsed
        .host_str()
        .filter(|host| !host.is_empty() && !decode(host).is_ok_and(|h| h.starts_with('/')))
        .ok_or_else(|| WarehouseError::NoHost(redact_url(url)))?;
    let user = decode(parsed.username())?;
    if user.is_empty() {
        return Err(WarehouseError::NoUser(redact_url(url)));
    }
    let password = match parsed.password() {
        Some(password) => decode(password)?,
        None => String::new(),
    };
    // libpq's default database is the one named like the user.
    let database = match decode(parsed.path().trim_start_matches('/'))? {
        database if database.is_empty() => user.clone(),
        database => database,
    };
    let mut options = PgConnectOptions::new_without_pgpass()
        .host(host)
        .port(parsed.port().unwrap_or(5432))
        .username(&user)
        .password(&password)
        .database(&database)
        .ssl_mode(PgSslMode::Prefer)
        .application_name("cassis");
    for (parameter, value) in parsed.query_pairs() {
        options = match &*parameter {
            "sslmode" | "ssl-mode" => options.ssl_mode(value.parse().map_err(|_| unsupported())?),
            "application_name" => options.application_name(&value),
            _ => {
                return Err(WarehouseError::RefusedParameter {
                    url: redact_url(url),
                    parameter: parameter.into_owned(),
                });
            }
        };
    }
    Ok(options)
}

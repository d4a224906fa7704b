//! Connections to the data sources Cassis answers from. Every connection is
//! read-only: SQLite files are opened read-only, PostgreSQL sessions start with
//! read-only transactions, MySQL and MariaDB sessions are read-only.
//! Snowflake has no read-only session: its documented setup is a role that
//! may only SELECT, and Cassis runs only checked SELECTs on it.

pub mod csv_load;
mod introspect;
pub mod mysql;
mod rows;
pub mod snowflake;

pub use rows::{Budget, FetchError, MAX_CELL_BYTES, MAX_RESULT_BYTES, ResultTooLarge};

use crate::ontology::bootstrap::Catalog;
use crate::project::{Dialect, redact_url};
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgSslMode};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{AssertSqlSafe, PgPool, Sqlite, SqlitePool};
use std::str::FromStr;
use std::time::{Duration, Instant};

/// How long one query Cassis runs for itself may take (reading the catalog,
/// sampling known values, reading a version's values): long enough for a
/// full scan of a large table, short enough that a slow source cannot hold a
/// pool connection for everyone else. Questions set their own timeout.
pub const HOUSEKEEPING_TIMEOUT: Duration = Duration::from_secs(30);

/// How long all of Cassis's own queries for one task (sampling a catalog's
/// known values, reading a version's values) may take together; what is
/// left when it runs out goes without values rather than failing.
const HOUSEKEEPING_BUDGET: Duration = Duration::from_secs(60);

/// The time left for a series of housekeeping queries.
#[derive(Clone, Copy, Debug)]
pub struct HousekeepingBudget {
    deadline: Instant,
}

impl HousekeepingBudget {
    pub fn start() -> Self {
        Self {
            deadline: Instant::now() + HOUSEKEEPING_BUDGET,
        }
    }

    /// The timeout of the next query: the housekeeping timeout, or less when
    /// the budget is nearly spent; `None` once it is.
    pub fn next_timeout(&self) -> Option<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        (!left.is_zero()).then(|| left.min(HOUSEKEEPING_TIMEOUT))
    }
}

/// Whether the source stopped a statement at its deadline: PostgreSQL's
/// `statement_timeout` (57014), SQLite's interrupt (9), or MySQL's and
/// MariaDB's statement time limits.
pub(crate) fn is_statement_timeout(error: &sqlx::Error) -> bool {
    mysql::is_statement_timeout(error)
        || matches!(error, sqlx::Error::Database(e) if matches!(e.code().as_deref(), Some("57014") | Some("9")))
}

/// Connections a source's pool holds at most. One user's questions may hold
/// only some of them (`engine::admission::QUESTIONS_PER_USER`).
pub const POOL_CONNECTIONS: u32 = 4;

/// How long a query waits for a free connection before it is told the
/// project is busy.
pub const POOL_WAIT: Duration = Duration::from_secs(10);

/// Tables a Cassis metadata database holds: [`is_metadata`] says which of
/// them together mark one.
const METADATA_TABLES: [&str; 6] = [
    "users",
    "sessions",
    "api_keys",
    "oauth_signing_keys",
    "instance_settings",
    "ontology_versions",
];

/// Whether tables named `found` (in one database or schema) make a Cassis
/// metadata database: accounts and sessions, with a table only Cassis has.
/// Every version of it has `users`, `sessions` and `instance_settings` (the
/// first migration), so one from before the signing keys is recognised too,
/// while an application's own `users` and `sessions` are not enough.
pub(crate) fn is_metadata<S: AsRef<str>>(found: &[S]) -> bool {
    let has = |name: &str| found.iter().any(|f| f.as_ref() == name);
    has("users")
        && has("sessions")
        && [
            "instance_settings",
            "oauth_signing_keys",
            "ontology_versions",
        ]
        .into_iter()
        .any(has)
}

/// Environment variables sqlx applies to every PostgreSQL connection and
/// offers no way to undo: the server's client certificate and key, its
/// trusted roots and its session options. Set, they would reach every
/// warehouse an admin names, so PostgreSQL sources are refused until they
/// are unset. The others (`PGHOST`, `PGUSER`, `PGPASSWORD`, ...) are
/// overridden one by one in [`postgres_options`].
const AMBIENT_POSTGRES_SETTINGS: [&str; 4] =
    ["PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT", "PGOPTIONS"];

/// Virtual machine steps between checks of a SQLite query's deadline.
const SQLITE_PROGRESS_STEPS: i32 = 10_000;

#[derive(Debug, thiserror::Error)]
pub enum WarehouseError {
    #[error(
        "Cassis cannot connect to `{0}`: use sqlite://PATH, postgres://..., mysql://... or snowflake://..."
    )]
    UnsupportedUrl(String),
    #[error("cannot connect to the data source: {0}")]
    Connect(#[source] sqlx::Error),
    #[error("reading the data source failed: {0}")]
    Query(#[from] sqlx::Error),
    #[error("the data source did not answer within {} seconds", .0.as_secs())]
    Timeout(Duration),
    #[error(
        "`{0}` names no user: a PostgreSQL or MySQL source needs its user (and password) in the URL"
    )]
    NoUser(String),
    #[error("cannot connect to the data source: {0}")]
    SnowflakeConnect(#[source] snowflake::SnowflakeError),
    #[error("reading the data source failed: {0}")]
    Snowflake(#[from] snowflake::SnowflakeError),
    #[error(
        "this is a Cassis metadata database, with its users, sessions and keys: Cassis does not answer questions from it"
    )]
    MetadataDatabase,
    #[error(
        "the project was deleted or given another data source while Cassis connected to it; ask again"
    )]
    SourceChanged,
    #[error(
        "`{0}` names no host, or a local socket: a PostgreSQL source needs a host name or address (over a socket, the database would see the Cassis server's own operating-system user)"
    )]
    NoHost(String),
    #[error(
        "`{parameter}` in `{url}` is not taken: it would have Cassis use the server's own files or settings; a PostgreSQL source's URL may set sslmode and application_name"
    )]
    RefusedParameter { url: String, parameter: String },
    #[error(
        "the Cassis server's environment sets {0}, which every PostgreSQL source would use: unset it to connect PostgreSQL sources (the metadata database can take the setting in its URL)"
    )]
    AmbientSetting(&'static str),
}

/// An open, read-only connection pool to a data source.
#[derive(Clone, Debug)]
pub enum Warehouse {
    Sqlite(SqlitePool),
    Postgres(PgPool),
    /// MySQL or MariaDB.
    MySql(mysql::MySqlSource),
    Snowflake(snowflake::SnowflakeSource),
}

/// How many connections a warehouse pool holds and how many of them are idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolUsage {
    pub open: u32,
    pub idle: usize,
}

impl Warehouse {
    pub fn pool_usage(&self) -> PoolUsage {
        match self {
            Warehouse::Sqlite(pool) => PoolUsage {
                open: pool.size(),
                idle: pool.num_idle(),
            },
            Warehouse::Postgres(pool) => PoolUsage {
                open: pool.size(),
                idle: pool.num_idle(),
            },
            Warehouse::MySql(source) => source.pool_usage(),
            // One session over HTTP: no pool of connections to report.
            Warehouse::Snowflake(_) => PoolUsage { open: 0, idle: 0 },
        }
    }

    pub async fn connect(url: &str) -> Result<Self, WarehouseError> {
        let unsupported = || WarehouseError::UnsupportedUrl(redact_url(url));
        if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)
                .map_err(|_| unsupported())?
                .read_only(true);
            let pool = SqlitePoolOptions::new()
                .max_connections(POOL_CONNECTIONS)
                .acquire_timeout(POOL_WAIT)
                .connect_with(options)
                .await
                .map_err(WarehouseError::Connect)?;
            Warehouse::Sqlite(pool).unless_metadata().await
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
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
            Warehouse::Postgres(pool).unless_metadata().await
        } else if url.starts_with("mysql://") || url.starts_with("mariadb://") {
            let source = mysql::MySqlSource::connect(url).await?;
            Warehouse::MySql(source).unless_metadata().await
        } else if url.starts_with("snowflake://") {
            let source = snowflake::SnowflakeSource::connect(url).await?;
            Warehouse::Snowflake(source).unless_metadata().await
        } else {
            Err(unsupported())
        }
    }

    /// Refuses (and closes) a pool whose database is a Cassis metadata
    /// database, this server's or any other's: its password hashes and
    /// signing keys would become known values every viewer and the model see.
    /// Judged by the tables it holds, so no path, host alias or copy gets
    /// past it.
    async fn unless_metadata(self) -> Result<Self, WarehouseError> {
        let names = METADATA_TABLES
            .iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", ");
        // Constant table names, not input.
        let metadata = match &self {
            Warehouse::Sqlite(pool) => {
                let sql = format!(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({names})"
                );
                let found: Vec<String> = sqlx::query_scalar(AssertSqlSafe(sql))
                    .fetch_all(pool)
                    .await?;
                is_metadata(&found)
            }
            Warehouse::Postgres(pool) => {
                let sql = format!(
                    "SELECT DISTINCT relname::text FROM pg_catalog.pg_class \
                     WHERE relkind IN ('r', 'p', 'v', 'm', 'f') AND relname IN ({names})"
                );
                let found: Vec<String> = sqlx::query_scalar(AssertSqlSafe(sql))
                    .fetch_all(pool)
                    .await?;
                is_metadata(&found)
            }
            Warehouse::MySql(source) => source.holds_metadata().await?,
            Warehouse::Snowflake(source) => source.holds_metadata().await?,
        };
        if metadata {
            self.close().await;
            return Err(WarehouseError::MetadataDatabase);
        }
        Ok(self)
    }

    pub fn dialect(&self) -> Dialect {
        match self {
            Warehouse::Sqlite(_) => Dialect::Sqlite,
            Warehouse::Postgres(_) => Dialect::Postgres,
            Warehouse::MySql(_) => Dialect::MySql,
            Warehouse::Snowflake(_) => Dialect::Snowflake,
        }
    }

    /// The tables and views, their columns and keys, and a sample of the
    /// values of low-cardinality text columns. `schema` limits PostgreSQL and
    /// Snowflake to one schema and MySQL to one database; SQLite has one.
    pub async fn catalog(&self, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        let read = async {
            match self {
                Warehouse::Sqlite(pool) => introspect::sqlite_catalog(pool).await,
                Warehouse::Postgres(pool) => introspect::postgres_catalog(pool, schema).await,
                Warehouse::MySql(source) => source.catalog(schema).await,
                Warehouse::Snowflake(source) => source.catalog(schema).await,
            }
        };
        let mut catalog = tokio::time::timeout(HOUSEKEEPING_TIMEOUT, read)
            .await
            .map_err(|_| WarehouseError::Timeout(HOUSEKEEPING_TIMEOUT))??;
        introspect::sample_known_values(self, &mut catalog).await?;
        Ok(catalog)
    }

    /// Connects, reads the catalog and disconnects: what bootstrapping and a
    /// connection test need from a source Cassis holds no pool for.
    pub async fn read_catalog(url: &str, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        let warehouse = Warehouse::connect(url).await?;
        let catalog = warehouse.catalog(schema).await;
        warehouse.close().await;
        catalog
    }

    pub async fn close(&self) {
        match self {
            Warehouse::Sqlite(pool) => pool.close().await,
            Warehouse::Postgres(pool) => pool.close().await,
            Warehouse::MySql(source) => source.close().await,
            Warehouse::Snowflake(source) => source.close().await,
        }
    }
}

/// A connection to a SQLite source whose statements stop at `timeout` (none
/// without one). SQLite has no statement timeout: a progress handler
/// interrupts the statement once the deadline passes, so an abandoned query
/// stops using the CPU. Set or cleared on every use, since an earlier use may
/// have left a handler behind on this connection.
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

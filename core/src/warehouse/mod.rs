//! Connections to the data sources Cassis answers from. Every connection is
//! read-only: SQLite files are opened read-only, PostgreSQL sessions start with
//! read-only transactions, MySQL and MariaDB sessions are read-only.
//! Snowflake and BigQuery have no read-only session: their documented setup
//! is a role that may only read, and Cassis runs only checked SELECTs on
//! them. Each engine is one [`Connector`]; nothing outside this module
//! names one.

pub mod bigquery;
pub mod catalog;
pub mod connector;
pub mod csv_load;
pub mod http_url;
mod introspect;
pub mod key_pair;
pub mod mysql;
pub mod postgres;
mod rows;
pub mod snowflake;
pub mod sqlite;

pub use connector::{Connector, Cost};
pub use postgres::ambient_postgres_setting;
pub use rows::{Budget, FetchError, MAX_CELL_BYTES, MAX_RESULT_BYTES, ResultTooLarge};

use crate::project::{Dialect, redact_url};
use catalog::Catalog;
use serde_json::Value as Json;
use std::sync::Arc;
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

/// [`METADATA_TABLES`] as an SQL list of string literals (`'users', …`),
/// upper-cased for engines that fold unquoted names to upper case. The
/// names are constants, never input, so they are written into the SQL.
fn metadata_table_list(upper: bool) -> String {
    METADATA_TABLES
        .iter()
        .map(|t| {
            if upper {
                format!("'{}'", t.to_uppercase())
            } else {
                format!("'{t}'")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

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

#[derive(Debug, thiserror::Error)]
pub enum WarehouseError {
    #[error(
        "Cassis cannot connect to `{0}`: use sqlite://PATH, postgres://..., mysql://..., snowflake://... or bigquery://..."
    )]
    UnsupportedUrl(String),
    #[error("cannot connect to the data source: {0}")]
    Connect(#[source] sqlx::Error),
    #[error("reading the data source failed: {0}")]
    Query(#[from] sqlx::Error),
    #[error("reading the data source failed: {0}")]
    Read(FetchError),
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
    #[error("cannot connect to the data source: {0}")]
    BigQueryConnect(#[source] bigquery::BigQueryError),
    #[error("reading the data source failed: {0}")]
    BigQuery(#[from] bigquery::BigQueryError),
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

/// An open, read-only connection to a data source: one [`Connector`], so
/// nothing above this module names an engine. Clones share it.
#[derive(Clone, Debug)]
pub struct Warehouse {
    connector: Arc<dyn Connector>,
}

/// How many connections a warehouse pool holds and how many of them are idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolUsage {
    pub open: u32,
    pub idle: usize,
}

impl PoolUsage {
    /// The usage of a sqlx pool (SQLite, PostgreSQL, MySQL).
    pub fn of<DB: sqlx::Database>(pool: &sqlx::Pool<DB>) -> Self {
        PoolUsage {
            open: pool.size(),
            idle: pool.num_idle(),
        }
    }
}

impl Warehouse {
    /// A warehouse on a connector opened elsewhere (tests, in-memory sources).
    pub fn from_connector(connector: impl Connector + 'static) -> Self {
        Warehouse {
            connector: Arc::new(connector),
        }
    }

    pub fn pool_usage(&self) -> PoolUsage {
        self.connector.pool_usage()
    }

    /// Connects to what `url` names, by its scheme: the one place that
    /// knows which engines there are. Refuses a Cassis metadata database.
    pub async fn connect(url: &str) -> Result<Self, WarehouseError> {
        let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        let warehouse = match scheme.as_deref() {
            Some("sqlite") => Self::from_connector(sqlite::SqliteSource::connect(url).await?),
            Some("postgres" | "postgresql") if url.contains("://") => {
                Self::from_connector(postgres::PostgresSource::connect(url).await?)
            }
            Some("mysql" | "mariadb") if url.contains("://") => {
                Self::from_connector(mysql::MySqlSource::connect(url).await?)
            }
            Some("snowflake") => {
                Self::from_connector(snowflake::SnowflakeSource::connect(url).await?)
            }
            Some("bigquery") => Self::from_connector(bigquery::BigQuerySource::connect(url).await?),
            _ => return Err(WarehouseError::UnsupportedUrl(redact_url(url))),
        };
        warehouse.unless_metadata().await
    }

    /// Refuses (and closes) a source whose database is a Cassis metadata
    /// database, this server's or any other's: its password hashes and
    /// signing keys would become known values every viewer and the model see.
    /// Judged by the tables it holds, so no path, host alias or copy gets
    /// past it.
    async fn unless_metadata(self) -> Result<Self, WarehouseError> {
        if self.connector.holds_metadata().await? {
            self.close().await;
            return Err(WarehouseError::MetadataDatabase);
        }
        Ok(self)
    }

    pub fn dialect(&self) -> Dialect {
        self.connector.dialect()
    }

    /// The tables and views, their columns and keys, and a sample of the
    /// values of low-cardinality text columns. `schema` limits PostgreSQL and
    /// Snowflake to one schema, MySQL and BigQuery to one database or
    /// dataset; SQLite has one.
    pub async fn catalog(&self, schema: Option<&str>) -> Result<Catalog, WarehouseError> {
        let read = self.connector.catalog(schema);
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

    /// Every row of one read-only statement, decoded within `budget` and
    /// stopped by the source after `timeout`: SQLite's interrupt,
    /// PostgreSQL's `statement_timeout` in a read-only transaction, MySQL's
    /// and MariaDB's statement time limits (and a `KILL QUERY` when Cassis
    /// stops waiting first), Snowflake's `STATEMENT_TIMEOUT_IN_SECONDS` (and
    /// an abort request), BigQuery's job timeout (and `jobs.cancel`).
    pub async fn fetch_rows(
        &self,
        sql: String,
        timeout: Duration,
        budget: Budget,
    ) -> Result<Vec<Vec<Json>>, FetchError> {
        self.connector.fetch_rows(sql, timeout, budget).await
    }

    /// The source's estimate of what a query costs, where it offers one
    /// without running it (PostgreSQL's EXPLAIN, BigQuery's dry run,
    /// Snowflake's EXPLAIN); `None` elsewhere. MariaDB's EXPLAIN has no cost
    /// before 11.0, and MySQL's is in other units than any limit Cassis has.
    pub async fn estimated_cost(&self, sql: &str) -> Result<Option<Cost>, FetchError> {
        self.connector.estimated_cost(sql.to_owned()).await
    }

    pub async fn close(&self) {
        self.connector.close().await
    }
}

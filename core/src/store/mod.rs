//! The metadata database: organizations, users, sessions, projects.
//!
//! One [`Store`] serves SQLite (the embedded default) and PostgreSQL (for
//! several instances behind a load balancer). Queries are written once in the
//! SQL both understand and run through sqlx's `Any` driver; the backends differ
//! only in their migrations (`migrations/{sqlite,postgres}`), so a query can
//! never drift between them.

mod api_keys;
pub mod backup;
mod changes;
mod chats;
mod oauth;
mod ontologies;
mod organizations;
mod projects;
mod sessions;
mod settings;
mod tool_calls;
mod users;

pub use api_keys::NewApiKey;
pub use changes::{CHANNEL, Change, ChangeFeed};
pub use chats::{ActivityFilter, Chat, ChatSummary, ChatTurn};
pub use ontologies::{
    DRAFT_HISTORY_KEPT, Draft, DraftBase, DraftRevision, DraftStamp, PublishedVersion, VersionInfo,
};
pub use settings::InstanceFlag;
pub use tool_calls::ToolCall;
pub use users::{NewUser, UserUpdate};

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Which database the metadata lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("unsupported metadata database URL `{0}`: use sqlite://PATH or postgres://...")]
    UnsupportedUrl(String),
    #[error("cannot create the directory for the SQLite database at {path}: {source}")]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot connect to the metadata database: {0}")]
    Connect(#[source] sqlx::Error),
    #[error("migrating the metadata database failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0} already exists")]
    Conflict(&'static str),
    #[error("{0} does not exist")]
    NotFound(&'static str),
    /// A save named the draft it replaces, and someone saved another since.
    #[error(
        "the draft was changed by {} at {} since it was read (now revision {})",
        .0.saved_by(),
        .0.saved_at.to_utc_minutes(),
        .0.revision
    )]
    StaleDraft(DraftStamp),
    #[error("the metadata database holds an invalid {column}: {detail}")]
    Corrupt {
        column: &'static str,
        detail: String,
    },
    #[error("metadata database error: {0}")]
    Database(#[from] sqlx::Error),
}

impl StoreError {
    /// Whether the database could not be reached at all (down, restarting,
    /// the network broken, no connection within the acquire timeout), as
    /// opposed to refusing or failing one statement: the caller may say
    /// "unavailable, try again" rather than "failed".
    pub fn is_unreachable(&self) -> bool {
        let error = match self {
            StoreError::Connect(error) | StoreError::Database(error) => error,
            _ => return false,
        };
        match error {
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::WorkerCrashed => true,
            // PostgreSQL's classes 08 (connection exception) and 57P
            // (shutting down, starting up, terminated by the administrator).
            sqlx::Error::Database(db) => db
                .code()
                .is_some_and(|code| code.starts_with("08") || code.starts_with("57P")),
            _ => false,
        }
    }

    /// Maps a unique-constraint violation to [`StoreError::Conflict`], so callers
    /// can tell "already exists" from a broken database.
    fn conflict_or(error: sqlx::Error, what: &'static str) -> Self {
        match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(what),
            _ => StoreError::Database(error),
        }
    }
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// Cheap to clone: clones share one connection pool.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// A PostgreSQL URL, for the connection that listens for changes.
    url: Option<Arc<str>>,
}

/// Without the URL, which may carry a password.
impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Connects to `sqlite://PATH` (created if missing) or `postgres://...`.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(StoreError::UnsupportedUrl(crate::project::redact_url(url)));
        };
        let url = match backend {
            Backend::Sqlite => prepare_sqlite_url(url)?,
            Backend::Postgres => url.to_owned(),
        };
        let pool = AnyPoolOptions::new()
            .max_connections(match backend {
                // SQLite takes one writer at a time; a few readers are plenty.
                Backend::Sqlite => 4,
                Backend::Postgres => 10,
            })
            // A request waits this long for a connection before it is told
            // the database is unavailable (503): while PostgreSQL restarts,
            // sqlx keeps retrying refused connections until then. Long
            // enough for a burst of load to queue; SQLite's file is never
            // away, but its one writer may be busy for a while.
            .acquire_timeout(match backend {
                Backend::Sqlite => Duration::from_secs(10),
                Backend::Postgres => Duration::from_secs(3),
            })
            .connect(&url)
            .await
            .map_err(StoreError::Connect)?;
        if backend == Backend::Sqlite {
            // Readers no longer block the writer. The setting lives in the file.
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await?;
        }
        let url = (backend == Backend::Postgres).then(|| url.into());
        Ok(Self { pool, backend, url })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Applies every pending migration; a no-op when the schema is current.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        match self.backend {
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&self.pool).await?,
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&self.pool).await?,
        }
        Ok(())
    }

    /// Whether the database answers a trivial query.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Waits for in-flight queries, then closes every connection.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Accepts `sqlite://relative/path`, `sqlite:///absolute/path` and
/// `sqlite:path`, creates the parent directory, and asks sqlx to create the
/// file when it is missing.
fn prepare_sqlite_url(url: &str) -> Result<String, StoreError> {
    let rest = url.trim_start_matches("sqlite:").trim_start_matches("//");
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    if path.is_empty() {
        return Err(StoreError::UnsupportedUrl(url.to_owned()));
    }
    if path != ":memory:"
        && let Some(parent) = Path::new(path).parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(|source| StoreError::CreateDir {
            path: parent.display().to_string(),
            source,
        })?;
    }
    let query = if query.contains("mode=") {
        query.to_owned()
    } else {
        join_query(query, "mode=rwc")
    };
    Ok(format!("sqlite://{path}?{query}"))
}

fn join_query(query: &str, param: &str) -> String {
    if query.is_empty() {
        param.to_owned()
    } else {
        format!("{query}&{param}")
    }
}

/// Reads a UUID stored as text.
fn uuid_column(row: &AnyRow, column: &'static str) -> Result<Uuid, StoreError> {
    let text: String = row.try_get(column)?;
    Uuid::parse_str(&text).map_err(|e| StoreError::Corrupt {
        column,
        detail: e.to_string(),
    })
}

/// Reads a text column holding one of an enum's names.
fn parsed_column<T>(row: &AnyRow, column: &'static str) -> Result<T, StoreError>
where
    T: FromStr,
    T::Err: std::fmt::Display,
{
    let text: String = row.try_get(column)?;
    text.parse().map_err(|e: T::Err| StoreError::Corrupt {
        column,
        detail: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_are_normalised_to_create_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/meta.sqlite");
        let url = prepare_sqlite_url(&format!("sqlite://{}", path.display())).unwrap();
        assert_eq!(url, format!("sqlite://{}?mode=rwc", path.display()));
        assert!(path.parent().unwrap().is_dir());
        assert_eq!(
            prepare_sqlite_url("sqlite:x.db?mode=ro").unwrap(),
            "sqlite://x.db?mode=ro"
        );
        assert!(matches!(
            prepare_sqlite_url("sqlite://"),
            Err(StoreError::UnsupportedUrl(_))
        ));
    }

    #[tokio::test]
    async fn unknown_schemes_are_refused_without_leaking_passwords() {
        let err = Store::connect("mysql://root:hunter2@db/x")
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::UnsupportedUrl(_)));
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }
}

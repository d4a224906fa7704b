//! Backups of a SQLite metadata database: a consistent copy taken while the
//! server runs, and a restore that checks the copy before it replaces
//! anything. PostgreSQL has `pg_dump` for both.

use super::{Backend, SQLITE_MIGRATIONS, Store, StoreError};
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection, Row};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Tables every Cassis metadata database has, whatever its version.
const METADATA_TABLES: [&str; 5] = [
    "_sqlx_migrations",
    "organizations",
    "users",
    "projects",
    "api_keys",
];

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(
        "the metadata database is PostgreSQL: back it up with pg_dump and restore it with pg_restore (the README lists what each table holds)"
    )]
    Postgres,
    #[error("there is no metadata database at {0}")]
    Missing(PathBuf),
    #[error("{0} exists; pass --force to replace it")]
    Exists(PathBuf),
    #[error("{path} is not a Cassis metadata database: {why}")]
    NotMetadata { path: PathBuf, why: String },
    #[error(
        "{path} was written by a newer Cassis (migration {found}; this one knows up to {known}): restore it with that version"
    )]
    Newer {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error(
        "a Cassis server is using {0}: stop it before restoring (a backup can be taken while it runs)"
    )]
    InUse(PathBuf),
    #[error("{0} is being restored from a backup; start the server when that is done")]
    Restoring(PathBuf),
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("copying the database failed: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The file of a `sqlite://PATH` URL; `None` for PostgreSQL or memory.
pub fn sqlite_path(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite:")?.trim_start_matches("//");
    let path = rest.split_once('?').map_or(rest, |(path, _)| path);
    (!path.is_empty() && path != ":memory:").then(|| PathBuf::from(path))
}

/// The lock a serving process holds shared on its SQLite database, and a
/// restore exclusively, so a restore cannot pull the file from under a
/// running server.
pub fn serve_lock_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Holds the database for a serving process until dropped. Several servers
/// may share it; a restore may not.
#[derive(Debug)]
pub struct ServeLock(#[allow(dead_code)] std::fs::File);

impl ServeLock {
    /// Takes the shared lock of the SQLite database at `url`; `None` for
    /// PostgreSQL.
    pub fn take(url: &str) -> Result<Option<Self>, BackupError> {
        let Some(database) = sqlite_path(url) else {
            return Ok(None);
        };
        let path = serve_lock_path(&database);
        let file = lock_file(&path)?;
        match file.try_lock_shared() {
            Ok(()) => Ok(Some(Self(file))),
            // A restore is running: starting now would open a half-replaced file.
            Err(std::fs::TryLockError::WouldBlock) => Err(BackupError::Restoring(database)),
            Err(std::fs::TryLockError::Error(source)) => Err(BackupError::Io {
                action: "locking",
                path,
                source,
            }),
        }
    }
}

fn lock_file(path: &Path) -> Result<std::fs::File, BackupError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| BackupError::Io {
            action: "creating",
            path: parent.to_owned(),
            source,
        })?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| BackupError::Io {
            action: "opening",
            path: path.to_owned(),
            source,
        })
}

impl Store {
    /// Writes a consistent copy of the SQLite database to `destination`
    /// (`VACUUM INTO`: one read transaction, so writers go on and the copy
    /// is the database as of one moment, compacted).
    pub async fn back_up_into(&self, destination: &Path) -> Result<(), BackupError> {
        if self.backend != Backend::Sqlite {
            return Err(BackupError::Postgres);
        }
        let target = destination.to_str().ok_or_else(|| BackupError::Io {
            action: "naming",
            path: destination.to_owned(),
            source: std::io::Error::other("the path is not UTF-8"),
        })?;
        // A bound value, not SQL text: VACUUM INTO takes any expression.
        sqlx::query("VACUUM INTO ?")
            .bind(target.to_owned())
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Takes a backup of the SQLite database at `url` into `destination`.
pub async fn back_up(url: &str, destination: &Path, force: bool) -> Result<(), BackupError> {
    let database = sqlite_path(url).ok_or(BackupError::Postgres)?;
    if !database.exists() {
        return Err(BackupError::Missing(database));
    }
    replaceable(destination, force)?;
    let store = Store::connect(url).await?;
    let copied = store.back_up_into(destination).await;
    store.close().await;
    copied?;
    // Proves the copy opens and is what it should be.
    check_backup(destination).await
}

/// Replaces the SQLite database at `url` by the backup at `source`, once the
/// backup proves to be a whole Cassis metadata database this version can
/// run, and no server holds the database.
pub async fn restore(url: &str, source: &Path, force: bool) -> Result<(), BackupError> {
    let database = sqlite_path(url).ok_or(BackupError::Postgres)?;
    check_backup(source).await?;
    if database.exists() && !force {
        return Err(BackupError::Exists(database));
    }
    let lock_path = serve_lock_path(&database);
    let lock = lock_file(&lock_path)?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Err(BackupError::InUse(database)),
        Err(std::fs::TryLockError::Error(source)) => {
            return Err(BackupError::Io {
                action: "locking",
                path: lock_path,
                source,
            });
        }
    }
    // Copied next to the database first, through SQLite, so the rename
    // below swaps one whole file for another on the same file system.
    let staged = with_suffix(&database, ".restoring");
    remove_if_present(&staged)?;
    let mut connection = open_read_only(source).await?;
    sqlx::query("VACUUM INTO ?")
        .bind(staged.to_string_lossy().into_owned())
        .execute(&mut connection)
        .await?;
    connection.close().await?;
    // The old database's write-ahead log belongs to the old file: left
    // beside the new one, SQLite would replay it into it.
    for suffix in ["-wal", "-shm"] {
        remove_if_present(&with_suffix(&database, suffix))?;
    }
    std::fs::rename(&staged, &database).map_err(|source| BackupError::Io {
        action: "replacing",
        path: database.clone(),
        source,
    })?;
    drop(lock);
    Ok(())
}

/// Whether `path` is a whole Cassis metadata database of a version this
/// binary can run.
pub async fn check_backup(path: &Path) -> Result<(), BackupError> {
    let not_metadata = |why: String| BackupError::NotMetadata {
        path: path.to_owned(),
        why,
    };
    if !path.is_file() {
        return Err(not_metadata("no such file".into()));
    }
    let mut connection = open_read_only(path)
        .await
        .map_err(|e| not_metadata(e.to_string()))?;
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut connection)
        .await
        .map_err(|e| not_metadata(format!("not a SQLite database ({e})")))?;
    if integrity != "ok" {
        return Err(not_metadata(format!("integrity check: {integrity}")));
    }
    let tables: Vec<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table'")
            .fetch_all(&mut connection)
            .await?;
    let missing: Vec<&str> = METADATA_TABLES
        .into_iter()
        .filter(|table| !tables.iter().any(|t| t == table))
        .collect();
    if !missing.is_empty() {
        return Err(not_metadata(format!(
            "it has no {} table",
            missing.join(", ")
        )));
    }
    let found: i64 = sqlx::query("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations")
        .fetch_one(&mut connection)
        .await?
        .try_get(0)?;
    let known = SQLITE_MIGRATIONS
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0);
    connection.close().await?;
    if found > known {
        return Err(BackupError::Newer {
            path: path.to_owned(),
            found,
            known,
        });
    }
    Ok(())
}

async fn open_read_only(path: &Path) -> Result<SqliteConnection, sqlx::Error> {
    SqliteConnectOptions::from_str("sqlite://")?
        .filename(path)
        .read_only(true)
        .connect()
        .await
}

fn replaceable(path: &Path, force: bool) -> Result<(), BackupError> {
    if path.exists() {
        if !force {
            return Err(BackupError::Exists(path.to_owned()));
        }
        remove_if_present(path)?;
    }
    Ok(())
}

fn remove_if_present(path: &Path) -> Result<(), BackupError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(BackupError::Io {
            action: "removing",
            path: path.to_owned(),
            source,
        }),
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sqlite_files_have_a_path() {
        assert_eq!(
            sqlite_path("sqlite:///srv/cassis/cassis.sqlite?mode=rwc"),
            Some(PathBuf::from("/srv/cassis/cassis.sqlite"))
        );
        assert_eq!(
            sqlite_path("sqlite://data/cassis.sqlite"),
            Some(PathBuf::from("data/cassis.sqlite"))
        );
        assert_eq!(sqlite_path("sqlite::memory:"), None);
        assert_eq!(sqlite_path("postgres://u@h/db"), None);
    }
}

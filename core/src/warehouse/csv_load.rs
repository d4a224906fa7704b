//! Loads a folder of CSV exports into a SQLite, PostgreSQL, MySQL, MariaDB
//! or Snowflake database, one table per file, because data teams try tools
//! on CSV exports first.
//!
//! Each file is read twice, streaming: once to infer column types and find a
//! primary key, once to insert. A file's table is written in one transaction,
//! so a failure leaves no half-loaded table behind (on MySQL, where creating
//! a table commits, and on Snowflake, where every statement commits, the
//! table is dropped again).

use crate::sql::snake_case;
use sqlparser::ast::Ident;
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, AssertSqlSafe};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum CsvLoadError {
    #[error(
        "Cassis can load CSV files only into sqlite://PATH, postgres://..., mysql://... or snowflake://... databases, not `{0}`"
    )]
    UnsupportedUrl(String),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} has no CSV files")]
    NoFiles { path: PathBuf },
    #[error("{path}, line {line}: {message}")]
    Csv {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("{path} has no header row")]
    NoHeader { path: PathBuf },
    #[error("the table {table} already exists: pass --replace to load over it")]
    TableExists { table: String },
    #[error("cannot connect to the database: {0}")]
    Connect(#[source] sqlx::Error),
    #[error("writing {table} failed: {source}")]
    Write { table: String, source: sqlx::Error },
    #[error(transparent)]
    ConnectSnowflake(super::WarehouseError),
    #[error("writing {table} failed: {source}")]
    WriteSnowflake {
        table: String,
        source: super::snowflake::SnowflakeError,
    },
}

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// PostgreSQL schema (MySQL database) to create the tables in, created
    /// when missing.
    pub schema: Option<String>,
    /// `raceId` becomes `race_id`, `Race Results.csv` becomes `race_results`.
    pub snake_case: bool,
    /// Drop a table of the same name first.
    pub replace: bool,
}

/// What one file became.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedTable {
    pub file: PathBuf,
    pub table: String,
    pub rows: u64,
    pub columns: Vec<(String, ColumnType)>,
    pub primary_key: Option<String>,
    pub elapsed: Duration,
}

/// The type inferred for a column from every value in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    Integer,
    Real,
    Date,
    Text,
}

/// `\N` (the MySQL and Ergast convention) and empty fields are NULL.
fn is_null(value: &str) -> bool {
    value.is_empty() || value == "\\N"
}

fn is_date(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn type_of(value: &str) -> ColumnType {
    if value.parse::<i64>().is_ok() {
        ColumnType::Integer
    } else if value.parse::<f64>().is_ok_and(f64::is_finite)
        && !value.chars().any(char::is_alphabetic)
    {
        ColumnType::Real
    } else if is_date(value) {
        ColumnType::Date
    } else {
        ColumnType::Text
    }
}

fn merge(seen: Option<ColumnType>, value: ColumnType) -> ColumnType {
    match (seen, value) {
        (None, t) => t,
        (Some(a), b) if a == b => a,
        (Some(ColumnType::Integer), ColumnType::Real)
        | (Some(ColumnType::Real), ColumnType::Integer) => ColumnType::Real,
        _ => ColumnType::Text,
    }
}

/// The database a URL opens, as far as loading differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Sqlite,
    Postgres,
    MySql,
}

impl Engine {
    fn of_url(url: &str) -> Option<Engine> {
        match crate::project::Dialect::of_url(url)? {
            crate::project::Dialect::Sqlite => Some(Engine::Sqlite),
            crate::project::Dialect::Postgres => Some(Engine::Postgres),
            crate::project::Dialect::MySql => Some(Engine::MySql),
            _ => None,
        }
    }

    /// An identifier as the engine reads it: MySQL reads `"x"` as a string.
    fn quoted(self, identifier: &str) -> String {
        let quote = if self == Engine::MySql { '`' } else { '"' };
        Ident::with_quote(quote, identifier).to_string()
    }

    fn column_type(self, column: ColumnType, key: bool) -> &'static str {
        match (column, self) {
            (ColumnType::Integer, _) => "BIGINT",
            (ColumnType::Real, Engine::Postgres) => "DOUBLE PRECISION",
            (ColumnType::Real, Engine::MySql) => "DOUBLE",
            (ColumnType::Real, Engine::Sqlite) => "REAL",
            (ColumnType::Date, _) => "DATE",
            // MySQL indexes TEXT only by a prefix, so a text key has a length.
            (ColumnType::Text, Engine::MySql) if key => "VARCHAR(255)",
            (ColumnType::Text, _) => "TEXT",
        }
    }
}

/// Loads every `*.csv` file in `dir`, in name order, calling `progress` after each.
pub async fn load_csv_dir(
    url: &str,
    dir: &Path,
    options: &LoadOptions,
    progress: &mut dyn FnMut(&LoadedTable),
) -> Result<Vec<LoadedTable>, CsvLoadError> {
    let snowflake =
        crate::project::Dialect::of_url(url) == Some(crate::project::Dialect::Snowflake);
    let engine = match Engine::of_url(url) {
        Some(engine) => Some(engine),
        None if snowflake => None,
        None => {
            return Err(CsvLoadError::UnsupportedUrl(crate::project::redact_url(
                url,
            )));
        }
    };
    let io = |source| CsvLoadError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ext.eq_ignore_ascii_case("csv"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(CsvLoadError::NoFiles {
            path: dir.to_owned(),
        });
    }

    let Some(engine) = engine else {
        return snowflake_load::load(url, &files, options, progress).await;
    };
    sqlx::any::install_default_drivers();
    let url = if engine != Engine::Sqlite || url.contains("mode=") {
        url.to_owned()
    } else {
        format!("{url}?mode=rwc")
    };
    let pool = AnyPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .map_err(CsvLoadError::Connect)?;
    if let (Engine::Postgres | Engine::MySql, Some(schema)) = (engine, &options.schema) {
        let sql = format!("CREATE SCHEMA IF NOT EXISTS {}", engine.quoted(schema));
        sqlx::query(AssertSqlSafe(sql))
            .execute(&pool)
            .await
            .map_err(|source| CsvLoadError::Write {
                table: schema.clone(),
                source,
            })?;
    }
    let mut loaded = Vec::new();
    for file in files {
        let table = load_file(&pool, engine, &file, options).await?;
        progress(&table);
        loaded.push(table);
    }
    pool.close().await;
    Ok(loaded)
}

struct Shape {
    columns: Vec<String>,
    types: Vec<ColumnType>,
    primary_key: Option<usize>,
}

fn reader(path: &Path) -> Result<csv::Reader<std::fs::File>, CsvLoadError> {
    let file = std::fs::File::open(path).map_err(|source| CsvLoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    // Exports often end short rows early; missing trailing fields are NULL.
    Ok(csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(file))
}

fn csv_error(path: &Path, error: csv::Error) -> CsvLoadError {
    let line = error.position().map_or(0, |p| p.line());
    CsvLoadError::Csv {
        path: path.to_owned(),
        line,
        message: error.to_string(),
    }
}

/// The first pass: column names and types, and the primary key: the first
/// column named like an id whose values are all present and distinct.
fn infer_shape(path: &Path, options: &LoadOptions) -> Result<Shape, CsvLoadError> {
    let mut reader = reader(path)?;
    let headers = reader.headers().map_err(|e| csv_error(path, e))?.clone();
    if headers.is_empty() {
        return Err(CsvLoadError::NoHeader {
            path: path.to_owned(),
        });
    }
    let columns: Vec<String> = headers
        .iter()
        .map(|h| {
            if options.snake_case {
                snake_case(h)
            } else {
                h.trim().to_owned()
            }
        })
        .collect();
    // `id`, `race_id` or `raceId`; not `grid`.
    let id_like: Vec<bool> = columns
        .iter()
        .map(|c| c.eq_ignore_ascii_case("id") || c.ends_with("_id") || c.ends_with("Id"))
        .collect();
    let mut seen: Vec<Option<ColumnType>> = vec![None; columns.len()];
    let mut distinct: Vec<Option<HashSet<String>>> =
        id_like.iter().map(|&id| id.then(HashSet::new)).collect();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, e))?;
        for (i, value) in record.iter().enumerate().take(columns.len()) {
            if is_null(value) {
                distinct[i] = None; // a key is never NULL
                continue;
            }
            seen[i] = Some(merge(seen[i], type_of(value)));
            if let Some(values) = distinct[i].as_mut()
                && !values.insert(value.to_owned())
            {
                distinct[i] = None;
            }
        }
    }
    let types = seen
        .into_iter()
        .map(|t| t.unwrap_or(ColumnType::Text))
        .collect();
    let primary_key = distinct
        .iter()
        .position(|d| d.as_ref().is_some_and(|v| !v.is_empty()));
    Ok(Shape {
        columns,
        types,
        primary_key,
    })
}

async fn load_file(
    pool: &AnyPool,
    engine: Engine,
    path: &Path,
    options: &LoadOptions,
) -> Result<LoadedTable, CsvLoadError> {
    let started = Instant::now();
    let shape = infer_shape(path, options)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let table_name = if options.snake_case {
        snake_case(&stem)
    } else {
        stem
    };
    let quoted = |name: &str| engine.quoted(name);
    let table = match (&options.schema, engine) {
        (Some(schema), Engine::Postgres | Engine::MySql) => {
            format!("{}.{}", quoted(schema), quoted(&table_name))
        }
        _ => quoted(&table_name),
    };
    let shown = table.replace(['"', '`'], "");
    let write = |source| CsvLoadError::Write {
        table: shown.clone(),
        source,
    };

    let mut tx = pool.begin().await.map_err(write)?;
    if options.replace {
        sqlx::query(AssertSqlSafe(format!("DROP TABLE IF EXISTS {table}")))
            .execute(&mut *tx)
            .await
            .map_err(write)?;
    }
    let definitions: Vec<String> = shape
        .columns
        .iter()
        .zip(&shape.types)
        .enumerate()
        .map(|(i, (name, t))| {
            let sql_type = engine.column_type(*t, shape.primary_key == Some(i));
            format!("{} {sql_type}", quoted(name))
        })
        .chain(
            shape
                .primary_key
                .map(|i| format!("PRIMARY KEY ({})", quoted(&shape.columns[i]))),
        )
        .collect();
    // MySQL's tables take the server's default character set, often latin1:
    // names from anywhere in the world need utf8mb4.
    let charset = if engine == Engine::MySql {
        " DEFAULT CHARSET = utf8mb4"
    } else {
        ""
    };
    let create = format!("CREATE TABLE {table} ({}){charset}", definitions.join(", "));
    if let Err(source) = sqlx::query(AssertSqlSafe(create)).execute(&mut *tx).await {
        let exists = source
            .as_database_error()
            .is_some_and(|e| e.message().contains("already exists"));
        return Err(if exists {
            CsvLoadError::TableExists { table: shown }
        } else {
            write(source)
        });
    }

    // Multi-row inserts, kept under both databases' limits on bound parameters.
    let per_row = shape.columns.len();
    let batch_rows = (30_000 / per_row).max(1);
    let column_list = shape
        .columns
        .iter()
        .map(|c| quoted(c))
        .collect::<Vec<_>>()
        .join(", ");
    let mut reader = reader(path)?;
    let mut batch: Vec<csv::StringRecord> = Vec::with_capacity(batch_rows);
    let mut rows = 0u64;
    let mut records = reader.records();
    loop {
        let next = records.next().transpose().map_err(|e| csv_error(path, e))?;
        let done = next.is_none();
        batch.extend(next);
        if batch.len() == batch_rows || (done && !batch.is_empty()) {
            let placeholders: Vec<String> = (0..batch.len())
                .map(|r| {
                    let cells: Vec<String> = (0..per_row)
                        .map(|c| {
                            let n = r * per_row + c + 1;
                            // SQLite looks `$N` up by name, linearly, which makes
                            // a statement with thousands of them quadratic; `?` is not.
                            match (shape.types[c], engine) {
                                (ColumnType::Date, Engine::Postgres) => {
                                    format!("CAST(${n} AS DATE)")
                                }
                                (_, Engine::Postgres) => format!("${n}"),
                                _ => "?".to_owned(),
                            }
                        })
                        .collect();
                    format!("({})", cells.join(", "))
                })
                .collect();
            let sql = format!(
                "INSERT INTO {table} ({column_list}) VALUES {}",
                placeholders.join(", ")
            );
            // Not cached: a cached statement keeps the parameter types of the
            // first batch, where a column of NULLs says nothing about its type.
            let mut query = sqlx::query(AssertSqlSafe(sql)).persistent(false);
            for record in &batch {
                for (c, column_type) in shape.types.iter().enumerate() {
                    let value = record.get(c).filter(|v| !is_null(v));
                    query = match column_type {
                        ColumnType::Integer => {
                            query.bind(value.and_then(|v| v.parse::<i64>().ok()))
                        }
                        ColumnType::Real => query.bind(value.and_then(|v| v.parse::<f64>().ok())),
                        ColumnType::Date | ColumnType::Text => query.bind(value.map(str::to_owned)),
                    };
                }
            }
            if let Err(source) = query.execute(&mut *tx).await {
                drop(tx);
                if engine == Engine::MySql {
                    // CREATE TABLE committed; the rollback kept only the table.
                    let drop_table = format!("DROP TABLE IF EXISTS {table}");
                    if let Err(error) = sqlx::query(AssertSqlSafe(drop_table)).execute(pool).await {
                        tracing::warn!(%error, table = %shown, "dropping a half-loaded table failed");
                    }
                }
                return Err(write(source));
            }
            rows += batch.len() as u64;
            batch.clear();
        }
        if done {
            break;
        }
    }
    tx.commit().await.map_err(write)?;
    Ok(LoadedTable {
        file: path.to_owned(),
        table: shown,
        rows,
        primary_key: shape.primary_key.map(|i| shape.columns[i].clone()),
        columns: shape.columns.into_iter().zip(shape.types).collect(),
        elapsed: started.elapsed(),
    })
}

/// Loading into Snowflake, over the same protocol Cassis reads it with:
/// no transactions around DDL, so a failed table is dropped again.
mod snowflake_load {
    use super::*;
    use crate::warehouse::snowflake::{Binding, SnowflakeSource, identifier};

    /// Bound values per INSERT, well under what one request carries.
    const BINDINGS_PER_STATEMENT: usize = 8_000;

    fn column_type(column: ColumnType) -> &'static str {
        match column {
            ColumnType::Integer => "NUMBER(38, 0)",
            ColumnType::Real => "DOUBLE",
            ColumnType::Date => "DATE",
            ColumnType::Text => "TEXT",
        }
    }

    pub(super) async fn load(
        url: &str,
        files: &[PathBuf],
        options: &LoadOptions,
        progress: &mut dyn FnMut(&LoadedTable),
    ) -> Result<Vec<LoadedTable>, CsvLoadError> {
        let source = SnowflakeSource::connect(url)
            .await
            .map_err(CsvLoadError::ConnectSnowflake)?;
        let outcome = async {
            if let Some(schema) = &options.schema {
                let sql = format!("CREATE SCHEMA IF NOT EXISTS {}", identifier(schema));
                source
                    .execute_statement(&sql, &[])
                    .await
                    .map_err(|source| CsvLoadError::WriteSnowflake {
                        table: schema.clone(),
                        source,
                    })?;
            }
            let mut loaded = Vec::new();
            for file in files {
                let table = load_file(&source, file, options).await?;
                progress(&table);
                loaded.push(table);
            }
            Ok(loaded)
        }
        .await;
        source.close().await;
        outcome
    }

    async fn load_file(
        source: &SnowflakeSource,
        path: &Path,
        options: &LoadOptions,
    ) -> Result<LoadedTable, CsvLoadError> {
        let started = Instant::now();
        let shape = infer_shape(path, options)?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let table_name = if options.snake_case {
            snake_case(&stem)
        } else {
            stem
        };
        let (table, shown) = match &options.schema {
            Some(schema) => (
                format!("{}.{}", identifier(schema), identifier(&table_name)),
                format!("{schema}.{table_name}"),
            ),
            None => (identifier(&table_name).to_string(), table_name.clone()),
        };
        let write = |source| CsvLoadError::WriteSnowflake {
            table: shown.clone(),
            source,
        };
        if options.replace {
            source
                .execute_statement(&format!("DROP TABLE IF EXISTS {table}"), &[])
                .await
                .map_err(write)?;
        }
        let definitions: Vec<String> = shape
            .columns
            .iter()
            .zip(&shape.types)
            .map(|(name, t)| format!("{} {}", identifier(name), column_type(*t)))
            .chain(
                shape
                    .primary_key
                    .map(|i| format!("PRIMARY KEY ({})", identifier(&shape.columns[i]))),
            )
            .collect();
        let create = format!("CREATE TABLE {table} ({})", definitions.join(", "));
        if let Err(error) = source.execute_statement(&create, &[]).await {
            return Err(if error.to_string().contains("already exists") {
                CsvLoadError::TableExists { table: shown }
            } else {
                write(error)
            });
        }
        let inserted = insert_rows(source, path, &shape, &table).await;
        let rows = match inserted {
            Ok(rows) => rows,
            Err(error) => {
                let drop_table = format!("DROP TABLE IF EXISTS {table}");
                if let Err(error) = source.execute_statement(&drop_table, &[]).await {
                    tracing::warn!(%error, table = %shown, "dropping a half-loaded table failed");
                }
                return Err(match error {
                    Ok(csv) => csv,
                    Err(error) => write(error),
                });
            }
        };
        Ok(LoadedTable {
            file: path.to_owned(),
            table: shown,
            rows,
            primary_key: shape.primary_key.map(|i| shape.columns[i].clone()),
            columns: shape.columns.into_iter().zip(shape.types).collect(),
            elapsed: started.elapsed(),
        })
    }

    /// Multi-row INSERTs with bound values; the error is the file's (`Ok`)
    /// or Snowflake's (`Err`).
    async fn insert_rows(
        source: &SnowflakeSource,
        path: &Path,
        shape: &Shape,
        table: &str,
    ) -> Result<u64, Result<CsvLoadError, crate::warehouse::snowflake::SnowflakeError>> {
        let per_row = shape.columns.len();
        let batch_rows = (BINDINGS_PER_STATEMENT / per_row).max(1);
        let column_list = shape
            .columns
            .iter()
            .map(|c| identifier(c).to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let row_placeholders = format!("({})", vec!["?"; per_row].join(", "));
        let mut reader = reader(path).map_err(Ok)?;
        let mut records = reader.records();
        let mut rows = 0u64;
        let mut batch: Vec<csv::StringRecord> = Vec::with_capacity(batch_rows);
        loop {
            let next = records
                .next()
                .transpose()
                .map_err(|e| Ok(csv_error(path, e)))?;
            let done = next.is_none();
            batch.extend(next);
            if batch.len() == batch_rows || (done && !batch.is_empty()) {
                let sql = format!(
                    "INSERT INTO {table} ({column_list}) VALUES {}",
                    vec![row_placeholders.as_str(); batch.len()].join(", ")
                );
                let mut bindings = Vec::with_capacity(batch.len() * per_row);
                for record in &batch {
                    for (c, column_type) in shape.types.iter().enumerate() {
                        let value = record.get(c).filter(|v| !is_null(v));
                        bindings.push(match column_type {
                            ColumnType::Integer => {
                                Binding::Integer(value.and_then(|v| v.parse().ok()))
                            }
                            ColumnType::Real => Binding::Real(value.and_then(|v| v.parse().ok())),
                            ColumnType::Date | ColumnType::Text => {
                                Binding::Text(value.map(str::to_owned))
                            }
                        });
                    }
                }
                source
                    .execute_statement(&sql, &bindings)
                    .await
                    .map_err(Err)?;
                rows += batch.len() as u64;
                batch.clear();
            }
            if done {
                return Ok(rows);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_widen_as_values_demand() {
        assert_eq!(merge(None, type_of("12")), ColumnType::Integer);
        assert_eq!(
            merge(Some(ColumnType::Integer), type_of("1.5")),
            ColumnType::Real
        );
        assert_eq!(
            merge(Some(ColumnType::Date), type_of("2023-03-05")),
            ColumnType::Date
        );
        assert_eq!(
            merge(Some(ColumnType::Date), type_of("12")),
            ColumnType::Text
        );
        assert_eq!(type_of("1:34:50.616"), ColumnType::Text);
        assert_eq!(type_of("+5.478"), ColumnType::Real);
        assert_eq!(type_of("NaN"), ColumnType::Text);
        assert!(is_null("\\N") && is_null(""));
    }
}

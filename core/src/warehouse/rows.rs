//! Reading a read-only statement's rows from each engine, as JSON values,
//! within an allowance of bytes: the part of execution that differs per
//! engine. The engine decides what to run and what the rows mean.

use super::mysql;
use serde_json::Value as Json;
use sqlx::{Row, TypeInfo, ValueRef};

/// The most bytes one value of a result may hold: a long description fits,
/// a document or a generated blob does not.
pub const MAX_CELL_BYTES: usize = 64 * 1024;
/// The most bytes the values of a result may hold together, so what is sent,
/// shown and kept in the chat stays small whatever the query selects.
pub const MAX_RESULT_BYTES: usize = 8 * 1024 * 1024;

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

/// Why reading a statement's rows failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// An engine Cassis speaks to through sqlx (SQLite, PostgreSQL, MySQL,
    /// MariaDB); kept as it is so a pool's wait can be told apart.
    #[error(transparent)]
    Query(#[from] sqlx::Error),
    /// An engine Cassis speaks to over HTTP (Snowflake, BigQuery), with its
    /// message already in plain words.
    #[error(transparent)]
    Remote(Box<dyn std::error::Error + Send + Sync>),
    /// The engine stopped the statement at its time limit.
    #[error("the statement reached its time limit and was cancelled")]
    Timeout,
    #[error(transparent)]
    TooLarge(#[from] ResultTooLarge),
}

impl FetchError {
    /// Whether the source stopped the statement at its time limit.
    pub fn is_statement_timeout(&self) -> bool {
        match self {
            FetchError::Query(error) => super::is_statement_timeout(error),
            FetchError::Timeout => true,
            FetchError::Remote(_) | FetchError::TooLarge(_) => false,
        }
    }
}

/// What is left of a result's allowance of bytes.
#[derive(Debug)]
pub struct Budget {
    cell: usize,
    left: usize,
}

impl Budget {
    pub fn capped() -> Self {
        Budget {
            cell: MAX_CELL_BYTES,
            left: MAX_RESULT_BYTES,
        }
    }

    /// Reads Cassis runs for itself (gold SQL, known values) are not answers
    /// to a user and are bounded by their own queries.
    pub fn unlimited() -> Self {
        Budget {
            cell: usize::MAX,
            left: usize::MAX,
        }
    }

    pub(super) fn spend(&mut self, bytes: usize) -> Result<(), ResultTooLarge> {
        if bytes > self.cell {
            return Err(ResultTooLarge::Cell);
        }
        self.left = self.left.checked_sub(bytes).ok_or(ResultTooLarge::Total)?;
        Ok(())
    }
}

/// A row's values, once their bytes fit in `budget`.
pub(super) fn sqlite_row(
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
pub(super) fn pg_row(
    row: &sqlx::postgres::PgRow,
    budget: &mut Budget,
) -> Result<Vec<Json>, ResultTooLarge> {
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

/// A row's values, once their bytes fit in `budget`. Types by the names the
/// driver gives MySQL's column types; `SUM` of integers is a DECIMAL.
pub(super) fn mysql_row(
    row: &mysql::MySqlRow,
    budget: &mut Budget,
) -> Result<Vec<Json>, ResultTooLarge> {
    for i in 0..row.columns().len() {
        // Text and blobs by their length; numbers are a few bytes.
        budget.spend(row.try_get::<&[u8], _>(i).map_or(8, <[u8]>::len))?;
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
                "BOOLEAN" => row.try_get::<bool, _>(i).map(Json::from).ok(),
                "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "BIGINT" | "YEAR" => {
                    row.try_get::<i64, _>(i).map(Json::from).ok()
                }
                "TINYINT UNSIGNED" | "SMALLINT UNSIGNED" | "MEDIUMINT UNSIGNED"
                | "INT UNSIGNED" | "BIGINT UNSIGNED" => {
                    row.try_get::<u64, _>(i).map(Json::from).ok()
                }
                "DOUBLE" => row.try_get::<f64, _>(i).map(number).ok(),
                "FLOAT" => row.try_get::<f32, _>(i).map(|x| number(f64::from(x))).ok(),
                "DECIMAL" => row.try_get::<rust_decimal::Decimal, _>(i).ok().map(decimal),
                "DATE" => row
                    .try_get::<chrono::NaiveDate, _>(i)
                    .map(|d| Json::from(d.to_string()))
                    .ok(),
                "DATETIME" => row
                    .try_get::<chrono::NaiveDateTime, _>(i)
                    .map(|d| Json::from(d.to_string()))
                    .ok(),
                // The session's time zone is UTC (the driver sets it).
                "TIMESTAMP" => row
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

/// The first value of every row as text: counts arrive as numbers, and a
/// NULL is no value, so it is left out.
pub(super) fn first_column_texts(rows: Vec<Vec<Json>>) -> Vec<String> {
    rows.into_iter()
        .filter_map(|row| match row.into_iter().next() {
            Some(Json::String(s)) => Some(s),
            Some(Json::Null) | None => None,
            Some(other) => Some(other.to_string()),
        })
        .collect()
}

/// Whole numbers as integers, so 860.0 points reads as 860.
pub(super) fn number(x: f64) -> Json {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Json::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
    }
}

pub(super) fn decimal(d: rust_decimal::Decimal) -> Json {
    use rust_decimal::prelude::ToPrimitive;
    if d.fract().is_zero() {
        d.to_i64()
            .map_or_else(|| Json::from(d.to_string()), Json::from)
    } else {
        number(d.round_dp(6).to_f64().unwrap_or(f64::NAN))
    }
}

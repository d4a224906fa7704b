//! The one interface every engine Cassis connects to implements, and all
//! that the rest of Cassis knows of an engine: test it, read its catalog,
//! run one read-only statement under a timeout (stopping it there), and
//! estimate what a statement costs.
//!
//! A trait object rather than an enum, so adding an engine touches its own
//! module and [`super::Warehouse::connect`] only. `async fn` in a trait
//! makes it unusable as `dyn`, so [`Connector`]'s methods return boxed
//! futures (what the `async-trait` crate would write, without the
//! dependency); one allocation per statement is nothing beside a round trip
//! to a warehouse. Each engine writes plain `async fn`s, as a [`Source`],
//! and the one blanket impl here boxes them.

use super::catalog::Catalog;
use super::rows::{Budget, FetchError};
use super::{PoolUsage, WarehouseError};
use crate::project::Dialect;
use serde_json::Value as Json;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Every row of one statement, decoded, or why not.
pub type Fetched = Result<Vec<Vec<Json>>, FetchError>;

/// What a source estimates a statement will cost, in its own units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cost {
    /// The planner's units (PostgreSQL's EXPLAIN `Total Cost`).
    PlannerUnits(f64),
    /// Bytes the statement would read (BigQuery's dry run, Snowflake's
    /// EXPLAIN): what the bill follows on a cloud warehouse.
    BytesScanned(u64),
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cost::PlannerUnits(units) => write!(f, "cost {units:.0}"),
            Cost::BytesScanned(bytes) => write!(f, "{} to read", bytes_text(*bytes)),
        }
    }
}

/// `512 B`, `3.2 MiB`, `10.0 GiB`.
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// An open connection (or pool, or session) to one engine. Every statement
/// it runs is read-only: the connector opens read-only sessions where the
/// engine has them, and Cassis hands it only checked SELECTs.
pub trait Connector: Send + Sync + std::fmt::Debug {
    /// The SQL dialect the engine reads.
    fn dialect(&self) -> Dialect;

    /// Connections held and idle, for the metrics endpoint; none for
    /// engines spoken to over HTTP.
    fn pool_usage(&self) -> PoolUsage;

    /// Whether the source is (or holds) a Cassis metadata database, which
    /// Cassis refuses to answer from: see [`super::is_metadata`].
    fn holds_metadata(&self) -> BoxFuture<'_, Result<bool, WarehouseError>>;

    /// The tables, columns and keys, in `schema` where the engine has
    /// schemas (known values are sampled afterwards, the same way for all).
    fn catalog<'a>(
        &'a self,
        schema: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Catalog, WarehouseError>>;

    /// Every row of one read-only statement, decoded within `budget`,
    /// stopped by the engine itself after `timeout` and cancelled there when
    /// the future is dropped first (the caller stopped waiting).
    fn fetch_rows(&self, sql: String, timeout: Duration, budget: Budget) -> BoxFuture<'_, Fetched>;

    /// The engine's estimate of what `sql` costs, where it offers one
    /// without running it.
    fn estimated_cost(&self, sql: String) -> BoxFuture<'_, Result<Option<Cost>, FetchError>>;

    /// Ends the connections or session.
    fn close(&self) -> BoxFuture<'_, ()>;
}

/// One engine's connection as its module writes it, in `async fn`s: every
/// `Source` is a [`Connector`] (see there for what each method promises).
pub trait Source: Send + Sync + std::fmt::Debug {
    fn dialect(&self) -> Dialect;

    fn pool_usage(&self) -> PoolUsage {
        PoolUsage { open: 0, idle: 0 }
    }

    fn holds_metadata(&self) -> impl Future<Output = Result<bool, WarehouseError>> + Send;

    fn catalog(
        &self,
        schema: Option<&str>,
    ) -> impl Future<Output = Result<Catalog, WarehouseError>> + Send;

    fn fetch_rows(
        &self,
        sql: String,
        timeout: Duration,
        budget: Budget,
    ) -> impl Future<Output = Fetched> + Send;

    fn estimated_cost(
        &self,
        sql: String,
    ) -> impl Future<Output = Result<Option<Cost>, FetchError>> + Send {
        let _ = sql;
        async { Ok(None) }
    }

    fn close(&self) -> impl Future<Output = ()> + Send;
}

impl<S: Source> Connector for S {
    fn dialect(&self) -> Dialect {
        Source::dialect(self)
    }

    fn pool_usage(&self) -> PoolUsage {
        Source::pool_usage(self)
    }

    fn holds_metadata(&self) -> BoxFuture<'_, Result<bool, WarehouseError>> {
        Box::pin(Source::holds_metadata(self))
    }

    fn catalog<'a>(
        &'a self,
        schema: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Catalog, WarehouseError>> {
        Box::pin(Source::catalog(self, schema))
    }

    fn fetch_rows(&self, sql: String, timeout: Duration, budget: Budget) -> BoxFuture<'_, Fetched> {
        Box::pin(Source::fetch_rows(self, sql, timeout, budget))
    }

    fn estimated_cost(&self, sql: String) -> BoxFuture<'_, Result<Option<Cost>, FetchError>> {
        Box::pin(Source::estimated_cost(self, sql))
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(Source::close(self))
    }
}

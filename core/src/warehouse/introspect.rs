//! Sampling the known values of a catalog's text columns, the same way on
//! every engine: through [`Warehouse::fetch_rows`], under the housekeeping
//! budget.

use super::catalog::{Catalog, TypeClass};
use super::rows::{Budget, FetchError, first_column_texts};
use super::{HousekeepingBudget, Warehouse, WarehouseError};
use crate::project::Dialect;
use std::time::Duration;

/// A text column with at most this many distinct values lists them as known values.
const MAX_KNOWN_VALUES: i64 = 50;

/// Lists the values of text columns with few distinct values, so questions
/// that name them ("in GERMANY", "the AUTOMOBILE segment") ground, within one
/// housekeeping budget.
pub(super) async fn sample_known_values(
    warehouse: &Warehouse,
    catalog: &mut Catalog,
) -> Result<(), WarehouseError> {
    let budget = HousekeepingBudget::start();
    let dialect = warehouse.dialect();
    let quoted = |name: &str| quoted(dialect, name);
    let text = dialect.sql().text_type();
    for table in &mut catalog.tables {
        let from = match &table.schema {
            Some(schema) => format!("{}.{}", quoted(schema), quoted(&table.name)),
            None => quoted(&table.name),
        };
        for column in &mut table.columns {
            if TypeClass::of(&column.sql_type) != TypeClass::Text {
                continue;
            }
            let Some(timeout) = budget.next_timeout() else {
                tracing::warn!(table = %table.name, "sampling known values ran out of time; later columns have none");
                return Ok(());
            };
            let col = quoted(&column.name);
            // Identifiers are quoted by the SQL library; nothing else is spliced.
            let count_sql = format!("SELECT COUNT(DISTINCT {col}) AS n FROM {from}");
            let values_sql = format!(
                "SELECT DISTINCT CAST({col} AS {text}) AS v FROM {from} WHERE {col} IS NOT NULL ORDER BY 1 LIMIT {MAX_KNOWN_VALUES}"
            );
            let distinct = match warehouse.first_column(count_sql, timeout).await {
                Ok(rows) => rows
                    .first()
                    .and_then(|n| n.parse::<i64>().ok())
                    .unwrap_or(0),
                Err(WarehouseError::Timeout(_)) => continue,
                Err(error) => return Err(error),
            };
            if distinct == 0 || distinct > MAX_KNOWN_VALUES {
                continue;
            }
            match warehouse.first_column(values_sql, timeout).await {
                Ok(values) => column.sample_values = values,
                Err(WarehouseError::Timeout(_)) => continue,
                Err(error) => return Err(error),
            }
        }
    }
    Ok(())
}

impl Warehouse {
    /// The first column of every row as text, within `timeout`.
    pub(super) async fn first_column(
        &self,
        sql: String,
        timeout: Duration,
    ) -> Result<Vec<String>, WarehouseError> {
        let read = self.fetch_rows(sql, timeout, Budget::unlimited());
        let rows = match tokio::time::timeout(timeout, read).await {
            Ok(Err(error)) if error.is_statement_timeout() => {
                return Err(WarehouseError::Timeout(timeout));
            }
            Ok(Err(FetchError::Query(error))) => return Err(WarehouseError::Query(error)),
            Ok(Err(error)) => return Err(WarehouseError::Read(error)),
            Ok(Ok(rows)) => rows,
            Err(_) => return Err(WarehouseError::Timeout(timeout)),
        };
        Ok(first_column_texts(rows))
    }
}

/// An identifier as the source reads it, always quoted.
fn quoted(dialect: Dialect, identifier: &str) -> String {
    dialect.sql().quoted_ident(identifier).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_runaway_housekeeping_query_stops_at_its_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.sqlite");
        std::fs::File::create(&path).unwrap();
        let warehouse = Warehouse::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
                       SELECT COUNT(*) FROM c"
            .to_owned();
        let outcome = warehouse
            .first_column(endless, Duration::from_millis(200))
            .await;
        assert!(
            matches!(outcome, Err(WarehouseError::Timeout(_))),
            "{outcome:?}"
        );
        // The statement itself was interrupted: the connection is free again.
        let answer = warehouse
            .first_column("SELECT 42".to_owned(), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(answer, ["42"]);
    }
}

//! Reading a live source's schema.

use super::{HousekeepingBudget, Warehouse, WarehouseError};
use crate::ontology::DataType;
use crate::ontology::bootstrap::{Catalog, ColumnSchema, ForeignKey, TableSchema, data_type_of};
use crate::project::Dialect;
use sqlparser::ast::Ident;
use sqlx::{AssertSqlSafe, PgPool, Row, SqlitePool};
use std::time::Duration;

/// A text column with at most this many distinct values lists them as known values.
const MAX_KNOWN_VALUES: i64 = 50;

pub(super) async fn sqlite_catalog(pool: &SqlitePool) -> Result<Catalog, WarehouseError> {
    let tables = sqlx::query(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') \
         AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .fetch_all(pool)
    .await?;
    let mut catalog = Catalog::default();
    for row in tables {
        let name: String = row.try_get("name")?;
        let mut table = TableSchema {
            name: name.clone(),
            ..Default::default()
        };
        let columns = sqlx::query("SELECT name, type, pk FROM pragma_table_info($1) ORDER BY cid")
            .bind(&name)
            .fetch_all(pool)
            .await?;
        let mut key: Vec<(i64, String)> = Vec::new();
        for column in columns {
            let column_name: String = column.try_get("name")?;
            let position: i64 = column.try_get("pk")?;
            if position > 0 {
                key.push((position, column_name.clone()));
            }
            table.columns.push(ColumnSchema {
                name: column_name,
                sql_type: column.try_get("type")?,
                sample_values: Vec::new(),
            });
        }
        key.sort();
        table.primary_key = key.into_iter().map(|(_, c)| c).collect();
        let keys = sqlx::query(
            r#"SELECT id, "table", "from", "to" FROM pragma_foreign_key_list($1) ORDER BY id, seq"#,
        )
        .bind(&name)
        .fetch_all(pool)
        .await?;
        let mut current: Option<(i64, ForeignKey)> = None;
        for key in keys {
            let id: i64 = key.try_get("id")?;
            if current.as_ref().is_none_or(|(c, _)| *c != id) {
                table.foreign_keys.extend(current.take().map(|(_, fk)| fk));
                let referenced_table: String = key.try_get("table")?;
                current = Some((
                    id,
                    ForeignKey {
                        referenced_table,
                        ..Default::default()
                    },
                ));
            }
            if let Some((_, fk)) = current.as_mut() {
                fk.columns.push(key.try_get("from")?);
                // `to` is NULL when the key refers to the primary key.
                if let Some(to) = key.try_get::<Option<String>, _>("to")? {
                    fk.referenced_columns.push(to);
                }
            }
        }
        table.foreign_keys.extend(current.map(|(_, fk)| fk));
        catalog.tables.push(table);
    }
    Ok(catalog)
}

pub(super) async fn postgres_catalog(
    pool: &PgPool,
    schema: Option<&str>,
) -> Result<Catalog, WarehouseError> {
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
    // MySQL has no TEXT type to cast to; CHAR is its text.
    let text = if dialect == Dialect::MySql {
        "CHAR"
    } else {
        "TEXT"
    };
    for table in &mut catalog.tables {
        let from = match &table.schema {
            Some(schema) => format!("{}.{}", quoted(schema), quoted(&table.name)),
            None => quoted(&table.name),
        };
        for column in &mut table.columns {
            if data_type_of(&column.sql_type) != DataType::Text {
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
    async fn first_column(
        &self,
        sql: String,
        timeout: Duration,
    ) -> Result<Vec<String>, WarehouseError> {
        if let Warehouse::Snowflake(source) = self {
            return match tokio::time::timeout(timeout, source.first_column(&sql, timeout)).await {
                Ok(result) => result,
                Err(_) => Err(WarehouseError::Timeout(timeout)),
            };
        }
        let read = async {
            match self {
                Warehouse::Snowflake(_) => unreachable!("answered above"),
                Warehouse::Sqlite(pool) => {
                    let mut connection = super::sqlite_connection(pool, Some(timeout)).await?;
                    let rows = sqlx::query(AssertSqlSafe(sql))
                        .fetch_all(&mut *connection)
                        .await?;
                    rows.iter().map(text_of_first).collect()
                }
                // The pool's sessions carry the housekeeping statement timeout.
                Warehouse::Postgres(pool) => sqlx::query(AssertSqlSafe(sql))
                    .fetch_all(pool)
                    .await?
                    .iter()
                    .map(text_of_first)
                    .collect(),
                Warehouse::MySql(source) => source
                    .fetch_all(sql, timeout)
                    .await?
                    .iter()
                    .map(text_of_first)
                    .collect(),
            }
        };
        match tokio::time::timeout(timeout, read).await {
            Ok(Err(error)) if super::is_statement_timeout(&error) => {
                Err(WarehouseError::Timeout(timeout))
            }
            Ok(result) => result.map_err(WarehouseError::Query),
            Err(_) => Err(WarehouseError::Timeout(timeout)),
        }
    }
}

/// The first column of a row as text: counts arrive as integers.
fn text_of_first<R: Row>(row: &R) -> Result<String, sqlx::Error>
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    row.try_get::<String, _>(0)
        .or_else(|_| row.try_get::<i64, _>(0).map(|n| n.to_string()))
}

/// An identifier as the source reads it: MySQL reads `"x"` as a string;
/// Snowflake reads a quoted lower-case name as written, not folded.
fn quoted(dialect: Dialect, identifier: &str) -> String {
    if dialect == Dialect::Snowflake {
        return super::snowflake::identifier(identifier).to_string();
    }
    let quote = if dialect == Dialect::MySql { '`' } else { '"' };
    Ident::with_quote(quote, identifier).to_string()
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

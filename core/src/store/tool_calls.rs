use super::{Backend, Store, StoreError};
use crate::time::Timestamp;
use sqlx::AssertSqlSafe;
use uuid::Uuid;

/// One MCP tool call as the audit trail keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub api_key_id: Option<Uuid>,
    /// A tool's name: the server's own, never the caller's text.
    pub tool: &'static str,
    /// The project asked about, when the caller named an existing-looking one:
    /// what was sent is not stored unless it is a project id, so a caller
    /// cannot fill the audit trail with megabytes of text.
    pub project_id: Option<Uuid>,
    /// `ok` for `ping` and `list_projects`; the response status for `ask_question`.
    pub status: &'static str,
    pub duration_ms: i64,
    pub created_at: Timestamp,
}

impl Store {
    /// Stores calls in one transaction.
    pub async fn record_tool_calls(&self, calls: &[ToolCall]) -> Result<(), StoreError> {
        // One multi-row INSERT per chunk: under load a batch holds thousands
        // of calls, and a statement per row would cost a round trip each to
        // SQLite's worker thread.
        let mut tx = self.pool.begin().await?;
        for chunk in calls.chunks(ROWS_PER_INSERT) {
            let sql = insert_statement(self.backend, chunk.len());
            let mut query = sqlx::query(AssertSqlSafe(sql));
            for call in chunk {
                // Time-ordered ids append to the primary key's index instead
                // of landing at random places in it.
                query = query
                    .bind(Uuid::now_v7().to_string())
                    .bind(call.organization_id.to_string())
                    .bind(call.user_id.to_string())
                    .bind(call.api_key_id.map(|id| id.to_string()))
                    .bind(call.tool)
                    .bind(call.project_id.map(|id| id.to_string()))
                    .bind(call.status)
                    .bind(call.duration_ms)
                    .bind(call.created_at.as_millis());
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// Rows per statement: 9 parameters each stays far below every backend's limit.
const ROWS_PER_INSERT: usize = 100;
const COLUMNS: usize = 9;

/// `INSERT ... VALUES ($1, ..., $9), ($10, ...)` for `rows` rows: placeholders
/// only, built from a count, never from input. SQLite gets positional `?`,
/// which it binds without looking each name up.
fn insert_statement(backend: Backend, rows: usize) -> String {
    let mut sql = String::from(
        "INSERT INTO tool_calls (id, organization_id, user_id, api_key_id, tool, project_id, \
         status, duration_ms, created_at) VALUES ",
    );
    for row in 0..rows {
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for column in 0..COLUMNS {
            if column > 0 {
                sql.push_str(", ");
            }
            match backend {
                Backend::Sqlite => sql.push('?'),
                Backend::Postgres => sql.push_str(&format!("${}", row * COLUMNS + column + 1)),
            }
        }
        sql.push(')');
    }
    sql
}

#[cfg(test)]
mod tests {
    use super::insert_statement;
    use crate::store::Backend;

    #[test]
    fn placeholders_number_every_row() {
        assert!(
            insert_statement(Backend::Sqlite, 2)
                .ends_with("VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        );
        let sql = insert_statement(Backend::Postgres, 2);
        assert!(sql.ends_with("VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9), ($10, $11, $12, $13, $14, $15, $16, $17, $18)"), "{sql}");
    }
}

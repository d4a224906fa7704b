use super::{Store, StoreError};
use crate::time::Timestamp;
use uuid::Uuid;

/// One MCP tool call as the audit trail keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub api_key_id: Option<Uuid>,
    pub tool: String,
    pub project_id: Option<String>,
    /// `ok` for `ping` and `list_projects`; the response status for `ask_question`.
    pub status: String,
    pub duration_ms: i64,
    pub created_at: Timestamp,
}

impl Store {
    /// Stores calls in one transaction.
    pub async fn record_tool_calls(&self, calls: &[ToolCall]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        for call in calls {
            Self::insert_tool_call(&mut tx, call).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn insert_tool_call(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        call: &ToolCall,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO tool_calls (id, organization_id, user_id, api_key_id, tool, project_id, \
             status, duration_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(Uuid::new_v4().to_string())
        .bind(call.organization_id.to_string())
        .bind(call.user_id.to_string())
        .bind(call.api_key_id.map(|id| id.to_string()))
        .bind(&call.tool)
        .bind(call.project_id.as_deref())
        .bind(&call.status)
        .bind(call.duration_ms)
        .bind(call.created_at.as_millis())
        .execute(&mut **tx)
        .await?;
        Ok(())
    }
}

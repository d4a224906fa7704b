use super::{Store, StoreError, uuid_column};
use crate::time::Timestamp;
use sqlx::Row;
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

    pub async fn record_tool_call(&self, call: &ToolCall) -> Result<(), StoreError> {
        self.record_tool_calls(std::slice::from_ref(call)).await
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

    /// The organization's most recent calls, newest first.
    pub async fn recent_tool_calls(
        &self,
        organization_id: Uuid,
        limit: i64,
    ) -> Result<Vec<ToolCall>, StoreError> {
        sqlx::query(
            "SELECT organization_id, user_id, api_key_id, tool, project_id, status, duration_ms, \
             created_at FROM tool_calls WHERE organization_id = $1 \
             ORDER BY created_at DESC, id LIMIT $2",
        )
        .bind(organization_id.to_string())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(ToolCall {
                organization_id: uuid_column(row, "organization_id")?,
                user_id: uuid_column(row, "user_id")?,
                api_key_id: row
                    .try_get::<Option<String>, _>("api_key_id")?
                    .map(|id| {
                        Uuid::parse_str(&id).map_err(|e| StoreError::Corrupt {
                            column: "tool_calls.api_key_id",
                            detail: e.to_string(),
                        })
                    })
                    .transpose()?,
                tool: row.try_get("tool")?,
                project_id: row.try_get("project_id")?,
                status: row.try_get("status")?,
                duration_ms: row.try_get("duration_ms")?,
                created_at: Timestamp::from_millis(row.try_get("created_at")?),
            })
        })
        .collect()
    }
}

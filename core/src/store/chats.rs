use super::{Store, StoreError, uuid_column};
use crate::chat::{AskStatus, Client};
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

/// The one place the stored text of a chat's client and a turn's status is
/// read back into their enums; they are written with `as_str`.
fn client_column(row: &AnyRow) -> Result<Client, StoreError> {
    let text: String = row.try_get("client")?;
    text.parse()
        .map_err(|e: crate::chat::Unknown| StoreError::Corrupt {
            column: "chats.client",
            detail: e.to_string(),
        })
}

fn status_column(row: &AnyRow, column: &'static str) -> Result<AskStatus, StoreError> {
    let text: String = row.try_get(column)?;
    text.parse()
        .map_err(|e: crate::chat::Unknown| StoreError::Corrupt {
            column: "chat_turns.status",
            detail: e.to_string(),
        })
}

/// A chat's header: whose it is and which ontology version it is pinned to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chat {
    pub id: String,
    pub organization_id: Uuid,
    pub project_id: Uuid,
    pub user_id: Uuid,
    pub ontology_version: i64,
    pub client: Client,
    pub created_at: Timestamp,
}

impl Chat {
    /// Who may read a chat's turns: its owner, or an admin of its
    /// organization; nobody from another organization.
    pub fn readable_by(&self, user: &crate::account::User) -> bool {
        self.organization_id == user.organization_id && (user.is_admin() || self.user_id == user.id)
    }

    /// Who may add turns to a chat or run its pending plan: its owner only.
    /// An admin reads others' chats but does not speak in them.
    pub fn continuable_by(&self, user: &crate::account::User) -> bool {
        self.organization_id == user.organization_id && self.user_id == user.id
    }
}

/// One question and what came of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatTurn {
    pub turn: i64,
    pub question: String,
    pub status: AskStatus,
    /// The semantic plan as JSON.
    pub plan: Option<String>,
    /// Whether this turn executed a plan the user approved.
    pub approval: bool,
    /// The response as JSON.
    pub response: String,
    pub duration_ms: i64,
    pub created_at: Timestamp,
}

impl Store {
    pub async fn chat(&self, id: &str) -> Result<Option<Chat>, StoreError> {
        let row = sqlx::query(
            "SELECT id, organization_id, project_id, user_id, ontology_version, client, created_at \
             FROM chats WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            Ok(Chat {
                id: row.try_get("id")?,
                organization_id: uuid_column(&row, "organization_id")?,
                project_id: uuid_column(&row, "project_id")?,
                user_id: uuid_column(&row, "user_id")?,
                ontology_version: row.try_get("ontology_version")?,
                client: client_column(&row)?,
                created_at: Timestamp::from_millis(row.try_get("created_at")?),
            })
        })
        .transpose()
    }

    pub async fn chat_turns(&self, chat_id: &str) -> Result<Vec<ChatTurn>, StoreError> {
        sqlx::query(
            "SELECT turn, question, status, plan, approval, response, duration_ms, created_at \
             FROM chat_turns WHERE chat_id = $1 ORDER BY turn",
        )
        .bind(chat_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(ChatTurn {
                turn: row.try_get("turn")?,
                question: row.try_get("question")?,
                status: status_column(row, "status")?,
                plan: row.try_get("plan")?,
                approval: row.try_get::<i64, _>("approval")? != 0,
                response: row.try_get("response")?,
                duration_ms: row.try_get("duration_ms")?,
                created_at: Timestamp::from_millis(row.try_get("created_at")?),
            })
        })
        .collect()
    }

    /// Appends a turn, creating the chat with it when `chat` is new. Two
    /// concurrent turns of one chat cannot take the same number: the second
    /// fails with a conflict.
    pub async fn append_chat_turn(
        &self,
        chat: &Chat,
        new_chat: bool,
        turn: &ChatTurn,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        if new_chat {
            sqlx::query(
                "INSERT INTO chats (id, organization_id, project_id, user_id, ontology_version, client, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&chat.id)
            .bind(chat.organization_id.to_string())
            .bind(chat.project_id.to_string())
            .bind(chat.user_id.to_string())
            .bind(chat.ontology_version)
            .bind(chat.client.as_str())
            .bind(chat.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(|e| StoreError::conflict_or(e, "the chat"))?;
        }
        sqlx::query(
            "INSERT INTO chat_turns (chat_id, turn, question, status, plan, approval, response, duration_ms, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&chat.id)
        .bind(turn.turn)
        .bind(&turn.question)
        .bind(turn.status.as_str())
        .bind(turn.plan.as_deref())
        .bind(i64::from(turn.approval))
        .bind(&turn.response)
        .bind(turn.duration_ms)
        .bind(turn.created_at.as_millis())
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::conflict_or(e, "this turn of the chat"))?;
        tx.commit().await?;
        Ok(())
    }
}

/// A chat as the activity list shows it: where, who, and its latest turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatSummary {
    pub chat: Chat,
    pub project_name: String,
    pub user_email: String,
    pub turns: i64,
    /// What the chat started with.
    pub first_question: String,
    pub last_question: String,
    pub last_status: AskStatus,
    pub last_duration_ms: i64,
    pub last_at: Timestamp,
}

/// Which chats the activity list shows; `None` means any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActivityFilter {
    pub project_id: Option<Uuid>,
    pub user_id: Option<Uuid>,
    /// The status of the chat's latest turn.
    pub status: Option<AskStatus>,
}

impl Store {
    /// The organization's most recent chats, newest activity first.
    pub async fn recent_chats(
        &self,
        organization_id: Uuid,
        filter: &ActivityFilter,
        limit: i64,
    ) -> Result<Vec<ChatSummary>, StoreError> {
        let rows = sqlx::query(
            "SELECT c.id, c.organization_id, c.project_id, c.user_id, c.ontology_version, c.client, \
             c.created_at, p.name AS project_name, u.email AS user_email, \
             (SELECT COUNT(*) FROM chat_turns n WHERE n.chat_id = c.id) AS turns, \
             (SELECT f.question FROM chat_turns f WHERE f.chat_id = c.id AND f.turn = 1) AS first_question, \
             t.question AS last_question, t.status AS last_status, t.duration_ms AS last_duration_ms, \
             t.created_at AS last_at \
             FROM chats c \
             JOIN projects p ON p.id = c.project_id \
             JOIN users u ON u.id = c.user_id \
             JOIN chat_turns t ON t.chat_id = c.id \
               AND t.turn = (SELECT MAX(m.turn) FROM chat_turns m WHERE m.chat_id = c.id) \
             WHERE c.organization_id = $1 \
               AND ($2 IS NULL OR c.project_id = $2) \
               AND ($3 IS NULL OR c.user_id = $3) \
               AND ($4 IS NULL OR t.status = $4) \
             ORDER BY t.created_at DESC, c.id DESC LIMIT $5",
        )
        .bind(organization_id.to_string())
        .bind(filter.project_id.map(|id| id.to_string()))
        .bind(filter.user_id.map(|id| id.to_string()))
        .bind(filter.status.map(AskStatus::as_str))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(ChatSummary {
                    chat: Chat {
                        id: row.try_get("id")?,
                        organization_id: uuid_column(row, "organization_id")?,
                        project_id: uuid_column(row, "project_id")?,
                        user_id: uuid_column(row, "user_id")?,
                        ontology_version: row.try_get("ontology_version")?,
                        client: client_column(row)?,
                        created_at: Timestamp::from_millis(row.try_get("created_at")?),
                    },
                    project_name: row.try_get("project_name")?,
                    user_email: row.try_get("user_email")?,
                    turns: row.try_get("turns")?,
                    first_question: row.try_get("first_question")?,
                    last_question: row.try_get("last_question")?,
                    last_status: status_column(row, "last_status")?,
                    last_duration_ms: row.try_get("last_duration_ms")?,
                    last_at: Timestamp::from_millis(row.try_get("last_at")?),
                })
            })
            .collect()
    }
}

//! What was asked, through MCP, the playground or the CLI: chats with their
//! latest turn, and a chat's turns in full.

use crate::error::AppError;
use cassis_core::chat::{AskStatus, Client};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActivityRow {
    pub chat_id: String,
    pub project: String,
    pub user: String,
    pub client: Client,
    pub ontology_version: i64,
    pub turns: i64,
    pub first_question: String,
    pub last_question: String,
    pub last_status: AskStatus,
    pub last_duration_ms: i64,
    pub last_at: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRow {
    pub turn: i64,
    pub question: String,
    pub status: AskStatus,
    pub answer: String,
    pub sql: Option<String>,
    pub duration_ms: i64,
}

/// Admins see the organization's chats; everyone else their own.
#[server(endpoint = "list_activity")]
pub async fn list_activity(
    #[server(default)] project_id: String,
    #[server(default)] status: String,
    #[server(default)] user_id: String,
) -> Result<Vec<ActivityRow>, AppError> {
    use cassis_core::store::ActivityFilter;
    let user = crate::ssr::require_user().await?;
    // Admins may look at anyone's chats; everyone else sees their own.
    let asked_by = if user.is_admin() {
        uuid::Uuid::parse_str(user_id.trim()).ok()
    } else {
        Some(user.id)
    };
    let filter = ActivityFilter {
        project_id: uuid::Uuid::parse_str(project_id.trim()).ok(),
        user_id: asked_by,
        status: match status.trim() {
            "" => None,
            // No chat has a status that is not one.
            status => match status.parse() {
                Ok(status) => Some(status),
                Err(_) => return Ok(Vec::new()),
            },
        },
    };
    let store = crate::ssr::context()?.store;
    let chats = store
        .recent_chats(user.organization_id, &filter, 200)
        .await?;
    // A project closed to the user since takes its chats out of view.
    let accessible: std::collections::HashSet<uuid::Uuid> = store
        .accessible_projects(&user)
        .await?
        .into_iter()
        .map(|p| p.id)
        .collect();
    Ok(chats
        .into_iter()
        .filter(|c| accessible.contains(&c.chat.project_id))
        .map(|c| ActivityRow {
            chat_id: c.chat.id,
            project: c.project_name,
            user: c.user_email,
            client: c.chat.client,
            ontology_version: c.chat.ontology_version,
            turns: c.turns,
            first_question: c.first_question,
            last_question: c.last_question,
            last_status: c.last_status,
            last_duration_ms: c.last_duration_ms,
            last_at: c.last_at.to_utc_minutes(),
        })
        .collect())
}

#[server(endpoint = "chat_turns")]
pub async fn chat_turns(chat_id: String) -> Result<Vec<TurnRow>, AppError> {
    use cassis_core::engine::AskResponse;
    let user = crate::ssr::require_user().await?;
    let chat = crate::ssr::visible_chat(&user, &chat_id).await?;
    let store = crate::ssr::context()?.store;
    Ok(store
        .chat_turns(&chat.id)
        .await?
        .into_iter()
        .map(|turn| {
            let response = serde_json::from_str::<AskResponse>(&turn.response).ok();
            TurnRow {
                turn: turn.turn,
                question: turn.question,
                status: turn.status,
                answer: response
                    .as_ref()
                    .map(|r| r.answer.clone())
                    .unwrap_or_default(),
                sql: response.and_then(|r| r.sql),
                duration_ms: turn.duration_ms,
            }
        })
        .collect())
}

/// Makes an answered turn a verified question of its project's draft: the
/// question as asked (for an approval, the question approved) and the SQL
/// that answered it. Returns false when the draft verifies it already.
#[server(endpoint = "verify_question")]
pub async fn verify_question(chat_id: String, turn: i64) -> Result<bool, AppError> {
    use cassis_core::engine::AskResponse;
    let user = crate::ssr::require_editor().await?;
    let store = crate::ssr::context()?.store;
    let invalid = |message: &str| crate::ssr::respond_with(AppError::Invalid(message.to_owned()));
    let chat = store
        .chat(chat_id.trim())
        .await?
        .filter(|chat| chat.readable_by(&user))
        .ok_or_else(|| crate::ssr::respond_with(AppError::NotFound("chat".to_owned())))?;
    // The project may have been closed to this editor since.
    crate::ssr::project_of(&user, &chat.project_id.to_string()).await?;
    let turns = store.chat_turns(&chat.id).await?;
    let position = turns
        .iter()
        .position(|t| t.turn == turn)
        .ok_or_else(|| crate::ssr::respond_with(AppError::NotFound("turn".to_owned())))?;
    let response = serde_json::from_str::<AskResponse>(&turns[position].response)
        .map_err(|_| AppError::Internal)?;
    let sql = match (response.status, response.sql) {
        (AskStatus::Answered, Some(sql)) => sql,
        _ => {
            return Err(invalid(
                "Only an answered question with SQL can become a verified question.",
            ));
        }
    };
    let question = if turns[position].approval && position > 0 {
        turns[position - 1].question.clone()
    } else {
        turns[position].question.clone()
    };
    let (mut ontology, base) = match store.draft(chat.project_id).await? {
        Some(draft) => (draft.ontology, draft.revision),
        None => (
            store
                .latest_version(chat.project_id)
                .await?
                .map(|v| v.ontology)
                .unwrap_or_default(),
            0,
        ),
    };
    let description = format!("Verified from chat {} by {}", chat.id, user.email);
    if !ontology.verify_question(&question, &sql, &description) {
        return Ok(false);
    }
    // Only over the draft read: a save in between is reported, not lost.
    store
        .save_draft(
            chat.project_id,
            &ontology,
            cassis_core::store::DraftBase::Revision(base),
            user.id,
            "verified a question from a chat",
            crate::ssr::now(),
        )
        .await?;
    tracing::info!(user = %user.id, project = %chat.project_id, chat = %chat.id, "verified a question");
    Ok(true)
}

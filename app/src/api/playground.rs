//! The playground asks through the same engine as the MCP tool, so what the
//! data team sees here is what agents get.

use crate::error::AppError;
use cassis_core::engine::AskResponse;
use leptos::prelude::*;

#[server(endpoint = "ask")]
pub async fn ask(
    project_id: String,
    #[server(default)] question: String,
    #[server(default)] chat_id: Option<String>,
    #[server(default)] execute_pending_plan: bool,
    #[server(default)] version: Option<u32>,
) -> Result<AskResponse, AppError> {
    use cassis_core::engine::{AskRequest, Client};
    let user = crate::ssr::require_user().await?;
    let ctx = crate::ssr::context()?;
    let request = AskRequest {
        project_id,
        question,
        chat_id: chat_id.filter(|id| !id.trim().is_empty()),
        execute_pending_plan,
        version,
    };
    Ok(ctx
        .engine
        .ask(&user, Client::Playground, request, crate::ssr::now())
        .await)
}

/// A playground chat as it stands, so a reload or a bookmark picks it up
/// where it was: its project, the version it is pinned to, and its turns.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResumedChat {
    pub chat_id: String,
    pub project_id: String,
    pub version: u32,
    pub turns: Vec<ResumedTurn>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResumedTurn {
    pub question: String,
    pub response: AskResponse,
}

#[server(endpoint = "resume_chat")]
pub async fn resume_chat(chat_id: String) -> Result<ResumedChat, AppError> {
    let user = crate::ssr::require_user().await?;
    let chat = crate::ssr::visible_chat(&user, &chat_id).await?;
    // The project may have been closed to this user since.
    let project = crate::ssr::project_of(&user, &chat.project_id.to_string()).await?;
    let turns = crate::ssr::context()?
        .store
        .chat_turns(&chat.id)
        .await?
        .into_iter()
        // A turn whose stored response no longer reads (an older format) is
        // left out rather than failing the whole chat.
        .filter_map(|turn| {
            let response = serde_json::from_str::<AskResponse>(&turn.response).ok()?;
            Some(ResumedTurn {
                question: turn.question,
                response,
            })
        })
        .collect();
    Ok(ResumedChat {
        chat_id: chat.id,
        project_id: project.id.to_string(),
        version: u32::try_from(chat.ontology_version).unwrap_or(0),
        turns,
    })
}

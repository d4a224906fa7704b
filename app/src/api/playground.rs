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

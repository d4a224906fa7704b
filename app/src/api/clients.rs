//! MCP clients connected through OAuth: who connected what, and
//! disconnecting one (which revokes its grant and every token of it).

use crate::error::AppError;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectedClient {
    pub grant_id: String,
    pub client_name: String,
    pub user_email: String,
    pub connected_at: String,
    pub last_used_at: String,
    pub active: bool,
}

/// The caller's own connections; an admin sees the whole organization's.
#[server(endpoint = "list_connected_clients")]
pub async fn list_connected_clients() -> Result<Vec<ConnectedClient>, AppError> {
    let user = crate::ssr::require_user().await?;
    let grants = crate::ssr::context()?
        .store
        .oauth_grants_in(user.organization_id)
        .await?;
    Ok(grants
        .into_iter()
        .filter(|(grant, _)| user.is_admin() || grant.user_id == user.id)
        .map(|(grant, user_email)| ConnectedClient {
            grant_id: grant.id.to_string(),
            client_name: grant.client_name,
            user_email,
            connected_at: grant.created_at.to_utc_minutes(),
            last_used_at: grant.last_used_at.to_utc_minutes(),
            active: grant.revoked_at.is_none(),
        })
        .collect())
}

/// Revokes a connection: the caller's own, or any in the organization for an admin.
#[server(endpoint = "disconnect_client")]
pub async fn disconnect_client(grant_id: String) -> Result<(), AppError> {
    let user = crate::ssr::require_user().await?;
    let ctx = crate::ssr::context()?;
    let grant = match uuid::Uuid::parse_str(grant_id.trim()) {
        Ok(id) => ctx.store.oauth_grant(id).await?,
        Err(_) => None,
    };
    let Some(grant) = grant.filter(|g| {
        g.organization_id == user.organization_id && (user.is_admin() || g.user_id == user.id)
    }) else {
        return Err(crate::ssr::respond_with(AppError::Forbidden));
    };
    ctx.store
        .revoke_oauth_grant(grant.id, crate::ssr::now())
        .await?;
    tracing::info!(user = %user.id, grant = %grant.id, client = %grant.client_name, "disconnected an MCP client");
    Ok(())
}

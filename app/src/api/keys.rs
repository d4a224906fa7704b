//! API keys for agents and scripts: created here by admins, shown once,
//! listed with their last use, revoked.

use crate::error::AppError;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeyRow {
    pub id: String,
    pub name: String,
    /// `sk-k6-` and the first characters, to tell keys apart.
    pub prefix: String,
    pub user_email: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub last_used_at: Option<String>,
    pub revoked: bool,
    pub expired: bool,
}

/// A key just created: the only time its secret is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedKey {
    pub name: String,
    pub key: String,
    /// `claude mcp add ...` with the URL and key filled in.
    pub command: String,
}

/// The lifetimes the form offers; empty means no expiry.
pub const LIFETIMES: [(&str, &str); 4] = [
    ("30d", "30 days"),
    ("90d", "90 days"),
    ("365d", "1 year"),
    ("", "Never"),
];

#[server(endpoint = "list_api_keys")]
pub async fn list_api_keys() -> Result<Vec<ApiKeyRow>, AppError> {
    let admin = crate::ssr::require_admin().await?;
    let now = crate::ssr::now();
    let keys = crate::ssr::context()?
        .store
        .list_api_keys(admin.organization_id)
        .await?;
    Ok(keys
        .into_iter()
        .map(|key| ApiKeyRow {
            id: key.id.to_string(),
            name: key.name,
            prefix: key.display_prefix,
            user_email: key.user_email,
            created_at: key.created_at.to_utc_minutes(),
            expires_at: key.expires_at.map(|t| t.to_utc_minutes()),
            last_used_at: key.last_used_at.map(|t| t.to_utc_minutes()),
            revoked: key.revoked_at.is_some(),
            expired: key.expires_at.is_some_and(|end| end <= now),
        })
        .collect())
}

/// Creates a key acting for the admin who creates it.
#[server(endpoint = "create_api_key")]
pub async fn create_api_key(name: String, expires: String) -> Result<CreatedKey, AppError> {
    use cassis_core::auth::{ApiKeySecret, parse_lifetime};
    use cassis_core::store::NewApiKey;
    let admin = crate::ssr::require_admin().await?;
    let ctx = crate::ssr::context()?;
    let name = name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(crate::ssr::respond_with(AppError::Invalid(
            "Give the key a name of 1 to 100 characters, such as the agent that will use it."
                .to_owned(),
        )));
    }
    let now = crate::ssr::now();
    let expires_at = match expires.trim() {
        "" => None,
        text => {
            let lifetime = parse_lifetime(text)
                .map_err(|e| crate::ssr::respond_with(AppError::Invalid(e.to_string())))?;
            Some(now.saturating_add(lifetime))
        }
    };
    let secret = ApiKeySecret::generate();
    let new = NewApiKey {
        organization_id: admin.organization_id,
        user_id: admin.id,
        name: &name,
        expires_at,
    };
    let id = ctx.store.create_api_key(new, &secret, now).await?;
    tracing::info!(user = %admin.id, key = %id, "created an API key");
    let key = secret.expose().to_owned();
    Ok(CreatedKey {
        command: format!(
            "claude mcp add --transport http cassis {} --header \"Authorization: Bearer {key}\"",
            ctx.mcp_url()
        ),
        name,
        key,
    })
}

#[server(endpoint = "revoke_api_key")]
pub async fn revoke_api_key(id: String) -> Result<(), AppError> {
    let admin = crate::ssr::require_admin().await?;
    let ctx = crate::ssr::context()?;
    let Ok(id) = uuid::Uuid::parse_str(id.trim()) else {
        return Err(crate::ssr::respond_with(AppError::Invalid(
            "That is not an API key id.".to_owned(),
        )));
    };
    ctx.store
        .revoke_api_key(admin.organization_id, id, crate::ssr::now())
        .await?;
    tracing::info!(user = %admin.id, key = %id, "revoked an API key");
    Ok(())
}

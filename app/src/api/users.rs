use crate::error::AppError;
use cassis_core::account::Role;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRow {
    pub email: String,
    pub role: Role,
    pub disabled: bool,
}

/// Every user of the caller's organization; admins only.
#[server(endpoint = "list_users")]
pub async fn list_users() -> Result<Vec<UserRow>, AppError> {
    let admin = crate::ssr::require_admin().await?;
    let users = crate::ssr::context()?
        .store
        .list_users(admin.organization_id)
        .await?;
    Ok(users
        .into_iter()
        .map(|u| UserRow {
            email: u.email.to_string(),
            role: u.role,
            disabled: u.disabled_at.is_some(),
        })
        .collect())
}

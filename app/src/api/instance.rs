use crate::error::AppError;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// Facts about this installation that the Settings page shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceSummary {
    pub version: String,
    pub public_url: String,
    pub mcp_url: String,
    pub metadata_backend: String,
}

#[server(endpoint = "instance_info")]
pub async fn instance_info() -> Result<InstanceSummary, AppError> {
    crate::ssr::require_user().await?;
    let ctx = crate::ssr::context()?;
    let backend = match ctx.store.backend() {
        cassis_core::store::Backend::Sqlite => "SQLite",
        cassis_core::store::Backend::Postgres => "PostgreSQL",
    };
    Ok(InstanceSummary {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        mcp_url: ctx.mcp_url(),
        public_url: ctx.public_url.to_string(),
        metadata_backend: backend.to_owned(),
    })
}

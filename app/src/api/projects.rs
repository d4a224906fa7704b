use crate::error::AppError;
use cassis_core::project::Dialect;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A project as the project list shows it: never the connection's password.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProjectSummary {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    pub dialect: Option<Dialect>,
    /// Whether Cassis can run SQL on the data source (false for schema-only).
    pub executable: bool,
    pub connection: Option<String>,
}

#[server(endpoint = "list_projects")]
pub async fn list_projects() -> Result<Vec<ProjectSummary>, AppError> {
    let user = crate::ssr::require_user().await?;
    let projects = crate::ssr::context()?
        .store
        .list_projects(user.organization_id)
        .await?;
    Ok(projects
        .into_iter()
        .map(|p| ProjectSummary {
            id: p.id,
            name: p.name,
            description: p.description,
            dialect: p.data_source.as_ref().map(|s| s.dialect),
            executable: p.data_source.as_ref().is_some_and(|s| s.is_executable()),
            connection: p.data_source.as_ref().and_then(|s| s.redacted_url()),
        })
        .collect())
}

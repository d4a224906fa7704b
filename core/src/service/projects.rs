//! Projects as people and agents find them.

use super::Services;
use crate::account::User;
use crate::project::ProjectSummary;
use crate::store::StoreError;

impl Services {
    /// The projects `user` may use, as the app's lists and the MCP tool
    /// `list_projects` show them.
    pub async fn projects_of(&self, user: &User) -> Result<Vec<ProjectSummary>, StoreError> {
        Ok(self
            .store
            .accessible_projects(user)
            .await?
            .into_iter()
            .map(|project| ProjectSummary::shown_to(project, user.role))
            .collect())
    }
}

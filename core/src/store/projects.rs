use super::{Store, StoreError, parsed_column, uuid_column};
use crate::account::User;
use crate::project::{DataSource, Dialect, Project, ProjectAccess, ProjectName};
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

/// A project joined with its data source, as [`project_from_row`] reads it.
macro_rules! select_projects {
    () => {
        "SELECT p.id, p.organization_id, p.name, p.description, p.created_at, p.access, d.dialect, d.connection_url \
         FROM projects p LEFT JOIN data_sources d ON d.project_id = p.id "
    };
}

impl Store {
    /// Creates a project and its data source together, or neither.
    pub async fn create_project(
        &self,
        organization_id: Uuid,
        name: &ProjectName,
        description: &str,
        data_source: Option<DataSource>,
        now: Timestamp,
    ) -> Result<Project, StoreError> {
        let project = Project {
            id: Uuid::new_v4(),
            organization_id,
            name: name.as_str().to_owned(),
            description: description.trim().to_owned(),
            created_at: now,
            data_source,
            access: ProjectAccess::Organization,
        };
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO projects (id, organization_id, name, description, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(project.id.to_string())
        .bind(organization_id.to_string())
        .bind(&project.name)
        .bind(&project.description)
        .bind(now.as_millis())
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::conflict_or(e, "a project with this name"))?;
        if let Some(source) = &project.data_source {
            sqlx::query("INSERT INTO data_sources (project_id, dialect, connection_url, created_at) VALUES ($1, $2, $3, $4)")
                .bind(project.id.to_string())
                .bind(source.dialect.as_str())
                .bind(source.connection_url.as_deref())
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(project)
    }

    pub async fn list_projects(&self, organization_id: Uuid) -> Result<Vec<Project>, StoreError> {
        sqlx::query(concat!(
            select_projects!(),
            "WHERE p.organization_id = $1 ORDER BY p.name, p.id"
        ))
        .bind(organization_id.to_string())
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(project_from_row)
        .collect()
    }

    /// A project, looked up within one organization only.
    pub async fn project(
        &self,
        organization_id: Uuid,
        id: Uuid,
    ) -> Result<Option<Project>, StoreError> {
        sqlx::query(concat!(
            select_projects!(),
            "WHERE p.organization_id = $1 AND p.id = $2"
        ))
        .bind(organization_id.to_string())
        .bind(id.to_string())
        .fetch_optional(&self.pool)
        .await?
        .map(|row| project_from_row(&row))
        .transpose()
    }
}

impl Store {
    /// Renames a project, rewrites its description and replaces its data
    /// source; false when the organization has no such project.
    pub async fn update_project(
        &self,
        organization_id: Uuid,
        id: Uuid,
        name: &ProjectName,
        description: &str,
        data_source: &DataSource,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let updated = sqlx::query(
            "UPDATE projects SET name = $1, description = $2 WHERE organization_id = $3 AND id = $4",
        )
        .bind(name.as_str())
        .bind(description.trim())
        .bind(organization_id.to_string())
        .bind(id.to_string())
        .execute(&mut *tx)
        .await
        .map_err(|e| StoreError::conflict_or(e, "a project with this name"))?
        .rows_affected();
        if updated == 0 {
            return Ok(false);
        }
        sqlx::query("DELETE FROM data_sources WHERE project_id = $1")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO data_sources (project_id, dialect, connection_url, created_at) VALUES ($1, $2, $3, $4)")
            .bind(id.to_string())
            .bind(data_source.dialect.as_str())
            .bind(data_source.connection_url.as_deref())
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Deletes a project with its data source, draft, versions and chats;
    /// false when the organization has no such project. The audit log of
    /// tool calls keeps its rows.
    pub async fn delete_project(
        &self,
        organization_id: Uuid,
        id: Uuid,
    ) -> Result<bool, StoreError> {
        let deleted = sqlx::query("DELETE FROM projects WHERE organization_id = $1 AND id = $2")
            .bind(organization_id.to_string())
            .bind(id.to_string())
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(deleted > 0)
    }

    /// A project by its exact name within one organization.
    pub async fn project_by_name(
        &self,
        organization_id: Uuid,
        name: &str,
    ) -> Result<Option<Project>, StoreError> {
        sqlx::query(concat!(
            select_projects!(),
            "WHERE p.organization_id = $1 AND p.name = $2"
        ))
        .bind(organization_id.to_string())
        .bind(name.trim())
        .fetch_optional(&self.pool)
        .await?
        .map(|row| project_from_row(&row))
        .transpose()
    }
}

/// Whether `user` may see and ask `project`: admins always; others when the
/// project is open to the organization or lists them as members.
fn may_use(user: &User, project: &Project, members: &[Uuid]) -> bool {
    project.organization_id == user.organization_id
        && (user.is_admin()
            || project.access == ProjectAccess::Organization
            || members.contains(&user.id))
}

impl Store {
    /// The projects `user` may see and ask, by name.
    pub async fn accessible_projects(&self, user: &User) -> Result<Vec<Project>, StoreError> {
        let projects = self.list_projects(user.organization_id).await?;
        if user.is_admin()
            || projects
                .iter()
                .all(|p| p.access == ProjectAccess::Organization)
        {
            return Ok(projects);
        }
        let granted = self.projects_granted(user.id).await?;
        Ok(projects
            .into_iter()
            .filter(|p| may_use(user, p, &[]) || granted.contains(&p.id))
            .collect())
    }

    /// A project `user` may see and ask; `None` both when it does not exist
    /// and when it is closed to them, so callers cannot tell the two apart.
    pub async fn accessible_project(
        &self,
        user: &User,
        id: Uuid,
    ) -> Result<Option<Project>, StoreError> {
        let Some(project) = self.project(user.organization_id, id).await? else {
            return Ok(None);
        };
        if may_use(user, &project, &[]) {
            return Ok(Some(project));
        }
        let members = self.project_members(project.id).await?;
        Ok(may_use(user, &project, &members).then_some(project))
    }

    /// Opens a project to the organization or limits it to its members.
    pub async fn set_project_access(
        &self,
        organization_id: Uuid,
        id: Uuid,
        access: ProjectAccess,
    ) -> Result<bool, StoreError> {
        let updated =
            sqlx::query("UPDATE projects SET access = $1 WHERE organization_id = $2 AND id = $3")
                .bind(access.as_str())
                .bind(organization_id.to_string())
                .bind(id.to_string())
                .execute(&self.pool)
                .await?
                .rows_affected();
        Ok(updated > 0)
    }

    /// Replaces a project's members with `users`; users of other
    /// organizations are ignored.
    pub async fn set_project_members(
        &self,
        project: &Project,
        users: &[Uuid],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM project_members WHERE project_id = $1")
            .bind(project.id.to_string())
            .execute(&mut *tx)
            .await?;
        for user in users {
            sqlx::query(
                "INSERT INTO project_members (project_id, user_id, granted_at) \
                 SELECT $1, id, $2 FROM users WHERE id = $3 AND organization_id = $4",
            )
            .bind(project.id.to_string())
            .bind(now.as_millis())
            .bind(user.to_string())
            .bind(project.organization_id.to_string())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn project_members(&self, project_id: Uuid) -> Result<Vec<Uuid>, StoreError> {
        sqlx::query("SELECT user_id FROM project_members WHERE project_id = $1 ORDER BY user_id")
            .bind(project_id.to_string())
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|row| uuid_column(row, "user_id"))
            .collect()
    }

    async fn projects_granted(&self, user_id: Uuid) -> Result<Vec<Uuid>, StoreError> {
        sqlx::query("SELECT project_id FROM project_members WHERE user_id = $1")
            .bind(user_id.to_string())
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|row| uuid_column(row, "project_id"))
            .collect()
    }
}

fn project_from_row(row: &AnyRow) -> Result<Project, StoreError> {
    let dialect: Option<String> = row.try_get("dialect")?;
    let data_source = match dialect {
        Some(_) => Some(DataSource {
            dialect: parsed_column::<Dialect>(row, "dialect")?,
            connection_url: row.try_get("connection_url")?,
        }),
        None => None,
    };
    Ok(Project {
        id: uuid_column(row, "id")?,
        organization_id: uuid_column(row, "organization_id")?,
        name: row.try_get("name")?,
        description: row.try_get("description")?,
        created_at: Timestamp::from_millis(row.try_get("created_at")?),
        data_source,
        access: parsed_column::<ProjectAccess>(row, "access")?,
    })
}

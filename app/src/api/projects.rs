use crate::error::AppError;
use cassis_core::project::Dialect;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use cassis_core::project::ProjectSummary;

#[server(endpoint = "list_projects")]
pub async fn list_projects() -> Result<Vec<ProjectSummary>, AppError> {
    let user = crate::ssr::require_user().await?;
    Ok(crate::ssr::context()?.services().projects_of(&user).await?)
}

/// One project as its settings page shows it: the password never comes back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProjectDetail {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    pub dialect: Dialect,
    /// The connection URL with its credentials replaced by `***`; none for
    /// a viewer.
    pub connection: Option<String>,
    /// Admins manage data sources; editors shape the ontology.
    pub can_manage: bool,
    pub can_edit: bool,
    /// Who may use the project; the users are listed for admins only.
    pub access: AccessView,
}

#[server(endpoint = "get_project")]
pub async fn get_project(id: String) -> Result<ProjectDetail, AppError> {
    use cassis_core::account::Role;
    use cassis_core::project::dialect_of;
    let user = crate::ssr::require_user().await?;
    let project = crate::ssr::project_of(&user, &id).await?;
    // One request for the whole settings page: a second resource nested in
    // the first one's view did not always hydrate with its own data.
    let access = if user.is_admin() {
        access_view(&user, &project).await?
    } else {
        AccessView {
            access: project.access,
            users: Vec::new(),
        }
    };
    Ok(ProjectDetail {
        connection: project.connection_shown_to(user.role),
        access,
        id: project.id,
        dialect: dialect_of(&project),
        name: project.name,
        description: project.description,
        can_manage: user.is_admin(),
        can_edit: user.role != Role::Viewer,
    })
}

/// What a connection test found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConnectionReport {
    pub dialect: Dialect,
    /// The tables and views Cassis can read, schema-qualified where the
    /// source has schemas.
    pub tables: Vec<String>,
}

/// The data source a form describes: a dialect (or one implied by the URL)
/// and a connection URL, or a schema-only source; `stored` stands when the
/// form names it again (see `DataSource::parse_change`).
#[cfg(feature = "ssr")]
fn data_source_of(
    stored: Option<&cassis_core::project::DataSource>,
    dialect: &str,
    connection_url: &str,
    schema_only: bool,
) -> Result<cassis_core::project::DataSource, AppError> {
    use cassis_core::project::DataSource;
    let invalid = |message: String| crate::ssr::respond_with(AppError::Invalid(message));
    let chosen = match dialect.trim() {
        "" => None,
        name => Some(
            name.parse::<Dialect>()
                .map_err(|e| invalid(e.to_string()))?,
        ),
    };
    let url = (!schema_only).then_some(connection_url);
    DataSource::parse_change(stored, chosen, url, &crate::ssr::context()?.warehouse_dir)
        .map_err(|e| invalid(e.to_string()))
}

#[cfg(feature = "ssr")]
async fn read_catalog(url: &str) -> Result<cassis_core::ontology::bootstrap::Catalog, AppError> {
    cassis_core::warehouse::Warehouse::read_catalog(url, None)
        .await
        .map_err(|error| {
            tracing::info!(%error, "a data source could not be read");
            crate::ssr::respond_with(AppError::Invalid(format!("{error}.")))
        })
}

#[cfg(feature = "ssr")]
fn table_names(catalog: &cassis_core::ontology::bootstrap::Catalog) -> Vec<String> {
    catalog
        .tables
        .iter()
        .map(|t| match &t.schema {
            Some(schema) => format!("{schema}.{}", t.name),
            None => t.name.clone(),
        })
        .collect()
}

/// Connects to a data source read-only and lists its tables. With a project
/// id and a blank URL, tests the project's stored connection, whose password
/// the page never sees.
#[server(endpoint = "test_connection")]
pub async fn test_connection(
    #[server(default)] project_id: String,
    #[server(default)] dialect: String,
    #[server(default)] connection_url: String,
) -> Result<ConnectionReport, AppError> {
    let user = crate::ssr::require_admin().await?;
    let url = if connection_url.trim().is_empty() && !project_id.trim().is_empty() {
        let project = crate::ssr::project_of(&user, &project_id).await?;
        project
            .data_source
            .and_then(|s| s.connection_url)
            .ok_or_else(|| {
                crate::ssr::respond_with(AppError::Invalid(
                    "This project's source is schema-only: there is nothing to connect to."
                        .to_owned(),
                ))
            })?
    } else {
        connection_url
    };
    let source = data_source_of(None, &dialect, &url, false)?;
    let catalog = read_catalog(source.connection_url.as_deref().unwrap_or_default()).await?;
    Ok(ConnectionReport {
        dialect: source.dialect,
        tables: table_names(&catalog),
    })
}

/// Creates a project and, if asked, bootstraps its draft from the source's
/// tables or from DDL; returns its id. Nothing is created when the source
/// cannot be read.
#[server(endpoint = "create_project")]
pub async fn create_project(
    name: String,
    #[server(default)] description: String,
    #[server(default)] source: String,
    #[server(default)] dialect: String,
    #[server(default)] connection_url: String,
    #[server(default)] bootstrap: String,
    #[server(default)] ddl: String,
) -> Result<Uuid, AppError> {
    use cassis_core::ontology::bootstrap::{catalog_from_ddl, draft_from_catalog};
    use cassis_core::project::ProjectName;
    use cassis_core::store::StoreError;
    let user = crate::ssr::require_admin().await?;
    let ctx = crate::ssr::context()?;
    let invalid = |message: String| crate::ssr::respond_with(AppError::Invalid(message));
    let name = ProjectName::parse(&name)
        .map_err(|e| invalid(format!("{}.", capitalized(&e.to_string()))))?;
    let data_source = data_source_of(None, &dialect, &connection_url, source == "schema_only")?;
    let draft = match bootstrap.as_str() {
        "source" => {
            let url = data_source.connection_url.as_deref().ok_or_else(|| {
                invalid(
                    "A schema-only source has no tables to read: bootstrap from DDL instead."
                        .to_owned(),
                )
            })?;
            Some(draft_from_catalog(
                &read_catalog(url).await?,
                data_source.dialect,
            ))
        }
        "ddl" => {
            let catalog = catalog_from_ddl(data_source.dialect, &ddl)
                .map_err(|e| invalid(format!("The DDL {e}.")))?;
            if catalog.tables.is_empty() {
                return Err(invalid("The DDL has no CREATE TABLE statement.".to_owned()));
            }
            Some(draft_from_catalog(&catalog, data_source.dialect))
        }
        _ => None,
    };
    let now = crate::ssr::now();
    let project = match ctx
        .store
        .create_project(
            user.organization_id,
            &name,
            &description,
            Some(data_source),
            now,
        )
        .await
    {
        Ok(project) => project,
        Err(StoreError::Conflict(_)) => {
            return Err(invalid(format!(
                "A project named {} already exists.",
                name.as_str()
            )));
        }
        Err(error) => return Err(error.into()),
    };
    if let Some(draft) = draft {
        ctx.store
            .save_draft(
                project.id,
                &draft,
                cassis_core::store::DraftBase::Revision(0),
                user.id,
                "bootstrapped when the project was created",
                now,
            )
            .await?;
    }
    tracing::info!(user = %user.id, project = %project.id, "created a project");
    Ok(project.id)
}

#[cfg(feature = "ssr")]
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Renames a project and changes its data source. A blank URL keeps the
/// stored connection (and its password).
#[server(endpoint = "update_project")]
pub async fn update_project(
    id: String,
    name: String,
    #[server(default)] description: String,
    #[server(default)] source: String,
    #[server(default)] dialect: String,
    #[server(default)] connection_url: String,
) -> Result<(), AppError> {
    use cassis_core::project::ProjectName;
    use cassis_core::store::StoreError;
    let user = crate::ssr::require_admin().await?;
    let project = crate::ssr::project_of(&user, &id).await?;
    let invalid = |message: String| crate::ssr::respond_with(AppError::Invalid(message));
    let name = ProjectName::parse(&name)
        .map_err(|e| invalid(format!("{}.", capitalized(&e.to_string()))))?;
    let schema_only = source == "schema_only";
    let url = match connection_url.trim() {
        "" if !schema_only => project
            .data_source
            .as_ref()
            .and_then(|s| s.connection_url.clone())
            .unwrap_or_default(),
        url => url.to_owned(),
    };
    let data_source = data_source_of(project.data_source.as_ref(), &dialect, &url, schema_only)?;
    let ctx = crate::ssr::context()?;
    match ctx
        .store
        .update_project(
            user.organization_id,
            project.id,
            &name,
            &description,
            &data_source,
            crate::ssr::now(),
        )
        .await
    {
        Ok(true) => {
            // A new connection URL leaves the old pool and the values read
            // through it behind.
            if project.data_source != Some(data_source) {
                ctx.engine.forget_project(project.id).await;
            }
            tracing::info!(user = %user.id, project = %project.id, "changed a project");
            Ok(())
        }
        Ok(false) => Err(crate::ssr::respond_with(AppError::NotFound(
            "project".to_owned(),
        ))),
        Err(StoreError::Conflict(_)) => Err(invalid(format!(
            "A project named {} already exists.",
            name.as_str()
        ))),
        Err(error) => Err(error.into()),
    }
}

/// Deletes a project with its ontology and chats; the name must be typed
/// again, as a confirmation.
#[server(endpoint = "delete_project")]
pub async fn delete_project(
    id: String,
    #[server(default)] confirm: String,
) -> Result<(), AppError> {
    let user = crate::ssr::require_admin().await?;
    let project = crate::ssr::project_of(&user, &id).await?;
    if confirm.trim() != project.name {
        return Err(crate::ssr::respond_with(AppError::Invalid(format!(
            "Type the project's name, {}, to confirm.",
            project.name
        ))));
    }
    let ctx = crate::ssr::context()?;
    ctx.store
        .delete_project(user.organization_id, project.id)
        .await?;
    ctx.engine.forget_project(project.id).await;
    tracing::info!(user = %user.id, project = %project.id, name = %project.name, "deleted a project");
    Ok(())
}

/// A user as the project's access list shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRow {
    pub id: String,
    pub email: String,
    pub role: cassis_core::account::Role,
    pub member: bool,
}

/// Who may use a project, and every user who could be listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessView {
    pub access: cassis_core::project::ProjectAccess,
    /// Users who are not admins (admins always have access).
    pub users: Vec<MemberRow>,
}

#[server(endpoint = "get_project_access")]
pub async fn get_project_access(id: String) -> Result<AccessView, AppError> {
    let admin = crate::ssr::require_admin().await?;
    let project = crate::ssr::project_of(&admin, &id).await?;
    access_view(&admin, &project).await
}

#[cfg(feature = "ssr")]
async fn access_view(
    admin: &cassis_core::account::User,
    project: &cassis_core::project::Project,
) -> Result<AccessView, AppError> {
    let store = crate::ssr::context()?.store;
    let members = store.project_members(project.id).await?;
    let users = store
        .list_users(admin.organization_id)
        .await?
        .into_iter()
        .filter(|u| !u.is_admin() && u.disabled_at.is_none())
        .map(|u| MemberRow {
            member: members.contains(&u.id),
            id: u.id.to_string(),
            email: u.email.to_string(),
            role: u.role,
        })
        .collect();
    Ok(AccessView {
        access: project.access,
        users,
    })
}

/// Opens the project to the organization, or limits it to admins and `members`.
#[server(endpoint = "set_project_access")]
pub async fn set_project_access(
    id: String,
    access: String,
    #[server(default)] members: Vec<String>,
) -> Result<(), AppError> {
    use cassis_core::project::ProjectAccess;
    let admin = crate::ssr::require_admin().await?;
    let project = crate::ssr::project_of(&admin, &id).await?;
    let access: ProjectAccess =
        access
            .parse()
            .map_err(|e: cassis_core::project::UnknownProjectAccess| {
                crate::ssr::respond_with(AppError::Invalid(e.to_string()))
            })?;
    let members: Vec<Uuid> = members
        .iter()
        .filter_map(|m| Uuid::parse_str(m.trim()).ok())
        .collect();
    let store = crate::ssr::context()?.store;
    store
        .set_project_members(&project, &members, crate::ssr::now())
        .await?;
    store
        .set_project_access(admin.organization_id, project.id, access)
        .await?;
    tracing::info!(admin = %admin.id, project = %project.id, access = access.as_str(), members = members.len(), "changed who may use a project");
    Ok(())
}

use super::open_store;
use crate::clock;
use crate::config::Settings;
use crate::startup;
use anyhow::{Context, bail};
use cassis_core::account::Role;
use cassis_core::ontology::bootstrap;
use cassis_core::project::{DataSource, Dialect, ProjectName, ProjectSummary, redact_url};
use cassis_core::store::{DraftBase, StoreError};
use cassis_core::warehouse::Warehouse;
use serde_json::json;
use std::path::PathBuf;

/// Where a new project's data lives.
pub struct NewSource {
    /// `None` for a schema-only source.
    pub warehouse: Option<String>,
    pub dialect: Option<Dialect>,
}

/// How a new project's first draft is made.
pub enum Bootstrap {
    None,
    Introspect { schema: Option<String> },
    Ddl(PathBuf),
}

/// Creates a project, bootstraps its draft if asked, and prints its id.
pub async fn create(
    settings: &Settings,
    name: &str,
    source: NewSource,
    description: &str,
    bootstrap: Bootstrap,
) -> anyhow::Result<()> {
    let name = ProjectName::parse(name)?;
    let data_source = DataSource::parse(
        source.dialect,
        source.warehouse.as_deref(),
        &settings.warehouse_dir,
    )?;
    let dialect = data_source.dialect;
    // Read the schema before creating anything, so a bad URL or file leaves no project behind.
    let draft = match &bootstrap {
        Bootstrap::None => None,
        Bootstrap::Introspect { schema } => {
            let url = source
                .warehouse
                .as_deref()
                .context("--introspect needs --warehouse")?;
            tracing::info!(warehouse = %redact_url(url), "introspecting the data source");
            let catalog = Warehouse::read_catalog(url, schema.as_deref()).await?;
            Some(bootstrap::draft_from_catalog(&catalog, dialect))
        }
        Bootstrap::Ddl(file) => {
            let ddl = std::fs::read_to_string(file)
                .with_context(|| format!("reading {}", file.display()))?;
            let catalog = bootstrap::catalog_from_ddl(dialect, &ddl)
                .map_err(|e| anyhow::anyhow!("{}: the DDL {e}", file.display()))?;
            Some(bootstrap::draft_from_catalog(&catalog, dialect))
        }
    };
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    let project = match store
        .create_project(org.id, &name, description, Some(data_source), clock::now())
        .await
    {
        Ok(project) => project,
        Err(StoreError::Conflict(what)) => bail!("{what} already exists"),
        Err(e) => return Err(e.into()),
    };
    if let Some(draft) = draft {
        let admin = store
            .first_admin(org.id)
            .await?
            .context("no admin exists: create one with `cassis user create`")?;
        store
            .save_draft(
                project.id,
                &draft,
                DraftBase::Revision(0),
                admin.id,
                "bootstrapped when the project was created",
                clock::now(),
            )
            .await?;
        let problems = cassis_core::ontology::validate(&draft, dialect);
        eprintln!(
            "bootstrapped the draft: {} objects, {} relationships{}",
            draft.objects.len(),
            draft.relationships.len(),
            if problems.is_empty() {
                String::new()
            } else {
                format!(", {} problem(s) to fix before publishing", problems.len())
            }
        );
    }
    println!("{}", project.id);
    Ok(())
}

pub async fn list(settings: &Settings, as_json: bool) -> anyhow::Result<()> {
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    // The command line is the operators': every project, as an admin sees it.
    let projects: Vec<ProjectSummary> = store
        .list_projects(org.id)
        .await?
        .into_iter()
        .map(|p| ProjectSummary::shown_to(p, Role::Admin))
        .collect();
    if as_json {
        let rows: Vec<_> = projects
            .iter()
            .map(|p| {
                json!({
                    "id": p.id,
                    "name": p.name,
                    "dialect": p.dialect,
                    "connected": p.executable,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    if projects.is_empty() {
        println!("no projects");
        return Ok(());
    }
    println!("{:<36}  {:<24}  SOURCE", "ID", "NAME");
    for p in projects {
        let source = match p.dialect {
            Some(dialect) if p.executable => format!("{dialect} (connected)"),
            Some(dialect) => format!("{dialect} (schema only)"),
            None => "none".to_owned(),
        };
        println!("{:<36}  {:<24}  {source}", p.id, p.name);
    }
    Ok(())
}

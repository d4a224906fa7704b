use super::open_store;
use crate::clock;
use crate::config::Settings;
use crate::startup;
use anyhow::{Context, bail};
use cassis_core::project::{DataSource, Dialect, ProjectName};
use cassis_core::store::StoreError;
use serde_json::json;

/// Creates a project; `warehouse` is `None` for a schema-only source.
pub async fn create(
    settings: &Settings,
    name: &str,
    warehouse: Option<&str>,
    dialect: Option<Dialect>,
    description: &str,
) -> anyhow::Result<()> {
    let name = ProjectName::parse(name)?;
    let dialect = match (dialect, warehouse) {
        (Some(dialect), _) => dialect,
        (None, Some(url)) => dialect_of_url(url).with_context(|| {
            format!(
                "cannot tell the dialect of `{}`: pass --dialect",
                cassis_core::project::redact_url_password(url)
            )
        })?,
        (None, None) => bail!("a schema-only project needs --dialect"),
    };
    let source = DataSource {
        dialect,
        connection_url: warehouse.map(str::to_owned),
    };
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    match store
        .create_project(org.id, &name, description, Some(source), clock::now())
        .await
    {
        Ok(project) => {
            println!("{}", project.id);
            Ok(())
        }
        Err(StoreError::Conflict(what)) => bail!("{what} already exists"),
        Err(e) => Err(e.into()),
    }
}

fn dialect_of_url(url: &str) -> Option<Dialect> {
    let scheme = url.split_once(':')?.0;
    match scheme {
        "sqlite" => Some(Dialect::Sqlite),
        "postgres" | "postgresql" => Some(Dialect::Postgres),
        "mysql" => Some(Dialect::MySql),
        _ => None,
    }
}

pub async fn list(settings: &Settings, as_json: bool) -> anyhow::Result<()> {
    let store = open_store(settings).await?;
    let org = startup::organization(&store).await?;
    let projects = store.list_projects(org.id).await?;
    if as_json {
        let rows: Vec<_> = projects
            .iter()
            .map(|p| {
                json!({
                    "id": p.id,
                    "name": p.name,
                    "dialect": p.data_source.as_ref().map(|s| s.dialect),
                    "connected": p.data_source.as_ref().is_some_and(|s| s.is_executable()),
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
        let source = match &p.data_source {
            Some(s) if s.is_executable() => format!("{} (connected)", s.dialect),
            Some(s) => format!("{} (schema only)", s.dialect),
            None => "none".to_owned(),
        };
        println!("{:<36}  {:<24}  {source}", p.id, p.name);
    }
    Ok(())
}

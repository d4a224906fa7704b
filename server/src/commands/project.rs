use super::open_store;
use crate::config::Settings;
use crate::startup;
use serde_json::json;

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

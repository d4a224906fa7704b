//! One module per subcommand group; each opens the store it needs.

pub mod apikey;
pub mod ask;
pub mod backup;
pub mod eval;
pub mod ontology;
pub mod project;
pub mod semantic_layers;
pub mod serve;
pub mod user;
pub mod warehouse;

use crate::config::Settings;
use anyhow::Context;
use cassis_core::store::Store;

/// Connects to the metadata database and brings its schema up to date.
pub async fn open_store(settings: &Settings) -> anyhow::Result<Store> {
    let store = Store::connect(&settings.database_url)
        .await
        .with_context(|| {
            format!(
                "opening {}",
                cassis_core::project::redact_url(&settings.database_url)
            )
        })?;
    store.migrate().await?;
    Ok(store)
}

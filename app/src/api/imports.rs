//! A file chosen in the editor's import: Cassis YAML as it is, or a dbt
//! semantic layer (one or more of its YAML files) or a Snowflake Cortex
//! Analyst semantic model converted to Cassis YAML, with a warning for each
//! item that has no Cassis equivalent. Nothing is saved: the editor shows
//! the YAML and the warnings, and saving it is the import.

use super::ontology_form::{OntologyForm, ontology_form};
use crate::error::AppError;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What the chosen files became.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvertedImport {
    pub yaml: String,
    /// `file:line: item: what happened`, one per item not carried over as it was.
    pub warnings: Vec<String>,
}

ontology_form!(ConvertImport);

/// Reads `texts` (named by `names`) for the project's dialect.
#[server(endpoint = "convert_import", input = OntologyForm)]
pub async fn convert_import(
    project_id: String,
    names: Vec<String>,
    texts: Vec<String>,
) -> Result<ConvertedImport, AppError> {
    let user = crate::ssr::require_editor().await?;
    let project = crate::ssr::project_of(&user, &project_id).await?;
    let max_bytes = crate::ssr::context()?.max_ontology_bytes;
    let dialect = cassis_core::project::dialect_of(&project);
    cassis_core::ontology::on_ontology_worker(move || {
        ssr::convert(names, texts, dialect, max_bytes)
    })
    .await
    .map_err(|why| {
        crate::ssr::respond_with(AppError::Invalid(format!("Nothing was imported: {why}")))
    })
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::ConvertedImport;
    use cassis_core::ontology::import::dbt::ProjectFile;
    use cassis_core::service::imports::convert_files;

    pub fn convert(
        names: Vec<String>,
        texts: Vec<String>,
        dialect: cassis_core::project::Dialect,
        max_bytes: usize,
    ) -> Result<ConvertedImport, String> {
        if names.len() != texts.len() || texts.is_empty() {
            return Err("choose the files to import".to_owned());
        }
        let files: Vec<ProjectFile> = names
            .into_iter()
            .zip(texts)
            .map(|(name, text)| ProjectFile { name, text })
            .collect();
        // The response's status is set by the server function, on its own thread.
        match convert_files(&files, dialect, max_bytes).map_err(|e| e.to_string())? {
            None => Ok(ConvertedImport {
                yaml: files.into_iter().next().map(|f| f.text).unwrap_or_default(),
                warnings: Vec::new(),
            }),
            Some(imported) => Ok(ConvertedImport {
                yaml: cassis_core::ontology::to_yaml(&imported.ontology),
                warnings: imported.warnings.iter().map(ToString::to_string).collect(),
            }),
        }
    }
}

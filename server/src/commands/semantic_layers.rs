//! `cassis ontology import --from dbt|snowflake` and `export --to
//! snowflake`: the ontology read from and written for other semantic layers.

use crate::config::Settings;
use anyhow::Context;
use cassis_core::ontology::export::{CortexOptions, to_cortex};
use cassis_core::ontology::import::{Imported, cortex, dbt};
use cassis_core::ontology::{self, Ontology};
use cassis_core::project::Dialect;
use cassis_core::service::imports::verify_saved_queries;
use std::path::Path;

/// Where an ontology is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ImportFormat {
    /// Cassis's own YAML
    Cassis,
    /// A dbt project's folder: semantic_models, metrics and saved_queries
    Dbt,
    /// A Snowflake Cortex Analyst semantic model YAML file
    Snowflake,
}

/// What an ontology is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Cassis's own YAML
    Cassis,
    /// A Snowflake Cortex Analyst semantic model
    Snowflake,
}

/// Reads `path` as `format` for a project in `dialect`, on an ontology
/// worker; prints each warning to standard error.
pub async fn read(
    settings: &Settings,
    format: ImportFormat,
    path: &Path,
    dialect: Dialect,
) -> anyhow::Result<Imported> {
    let max_bytes = settings.max_ontology_bytes;
    let path = path.to_path_buf();
    let imported = ontology::on_ontology_worker(move || -> anyhow::Result<Imported> {
        let mut imported = match format {
            ImportFormat::Dbt => {
                anyhow::ensure!(
                    path.is_dir(),
                    "{}: --from dbt reads a dbt project's folder",
                    path.display()
                );
                let files = dbt::read_project(&path, max_bytes)?;
                dbt::from_dbt(&files, max_bytes)?
            }
            ImportFormat::Snowflake => {
                let size = std::fs::metadata(&path)
                    .with_context(|| format!("reading {}", path.display()))?
                    .len();
                anyhow::ensure!(
                    size <= max_bytes as u64,
                    "{}: the file is {size} bytes; a file may be at most {max_bytes} bytes",
                    path.display()
                );
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                cortex::from_cortex(&path.display().to_string(), &text, dialect, max_bytes)?
            }
            ImportFormat::Cassis => unreachable!("Cassis YAML is read by `import` itself"),
        };
        verify_saved_queries(&mut imported, dialect);
        Ok(imported)
    })
    .await?;
    for warning in &imported.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(imported)
}

/// The draft's history note for an import: where from, and every warning,
/// so they stay where the draft's readers look.
pub fn reason(format: ImportFormat, path: &Path, imported: &Imported) -> String {
    let from = match format {
        ImportFormat::Dbt => "the dbt project",
        ImportFormat::Snowflake => "the Snowflake semantic model",
        ImportFormat::Cassis => "",
    };
    let name = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy();
    let mut reason = format!("imported from {from} {name}");
    if !imported.warnings.is_empty() {
        reason.push_str(&format!(" with {} warning(s):", imported.warnings.len()));
        for warning in imported.warnings.iter().take(50) {
            reason.push_str(&format!("\n{warning}"));
        }
        if imported.warnings.len() > 50 {
            reason.push_str(&format!("\nand {} more", imported.warnings.len() - 50));
        }
    }
    reason
}

/// Prints `ontology` as a Cortex semantic model named `name`; what Cortex
/// will not see goes to standard error.
pub fn print_cortex(
    ontology: &Ontology,
    name: &str,
    database: Option<String>,
    schema: Option<String>,
) {
    let export = to_cortex(
        ontology,
        &CortexOptions {
            name: name.to_owned(),
            database,
            schema,
        },
    );
    for note in &export.notes {
        eprintln!("note: {note}");
    }
    print!("{}", export.yaml);
}

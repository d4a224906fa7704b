//! `cassis warehouse`: loading data to try Cassis on.

use cassis_core::project::redact_url;
use cassis_core::warehouse::csv_load::{self, LoadOptions, LoadedTable};
use std::path::Path;

pub async fn load_csv(url: &str, dir: &Path, options: &LoadOptions) -> anyhow::Result<()> {
    tracing::info!(warehouse = %redact_url(url), dir = %dir.display(), "loading CSV files");
    let mut progress = |t: &LoadedTable| {
        let key = t
            .primary_key
            .as_deref()
            .map(|k| format!(", primary key {k}"))
            .unwrap_or_default();
        eprintln!(
            "loaded {} into {}: {} rows, {} columns{key} ({} ms)",
            t.file
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            t.table,
            t.rows,
            t.columns.len(),
            t.elapsed.as_millis()
        );
    };
    let tables = csv_load::load_csv_dir(url, dir, options, &mut progress).await?;
    let rows: u64 = tables.iter().map(|t| t.rows).sum();
    println!("loaded {} tables, {rows} rows", tables.len());
    Ok(())
}

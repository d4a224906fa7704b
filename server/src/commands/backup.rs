//! `cassis backup` and `cassis restore`: the SQLite metadata database to a
//! file and back.

use crate::config::Settings;
use cassis_core::project::redact_url;
use cassis_core::store::backup;
use std::path::Path;

pub async fn back_up(settings: &Settings, file: &Path, force: bool) -> anyhow::Result<()> {
    backup::back_up(&settings.database_url, file, force).await?;
    println!(
        "backed up {} to {}",
        redact_url(&settings.database_url),
        file.display()
    );
    Ok(())
}

pub async fn restore(settings: &Settings, file: &Path, force: bool) -> anyhow::Result<()> {
    backup::restore(&settings.database_url, file, force).await?;
    println!(
        "restored {} from {}",
        redact_url(&settings.database_url),
        file.display()
    );
    Ok(())
}

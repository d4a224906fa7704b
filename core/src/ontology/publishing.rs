//! Drafts become immutable versions only when they validate.

use super::{Ontology, Problem, validate};
use crate::project::{Dialect, Project};
use crate::store::{Store, StoreError};
use crate::time::Timestamp;
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("the project has no draft to publish")]
    NoDraft,
    #[error("version {0} does not exist")]
    NoSuchVersion(u32),
    #[error("the ontology has {} problem(s); nothing was published", .0.len())]
    Invalid(Vec<Problem>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The dialect a project's SQL is read in. A project without a data source
/// yet is read as PostgreSQL, the closest to standard SQL.
pub fn dialect_of(project: &Project) -> Dialect {
    project
        .data_source
        .as_ref()
        .map_or(Dialect::Postgres, |source| source.dialect)
}

/// Validates `ontology` against the project and stores it as the next version.
pub async fn publish(
    store: &Store,
    project: &Project,
    ontology: &Ontology,
    user_id: Uuid,
    note: &str,
    now: Timestamp,
) -> Result<u32, PublishError> {
    let problems = validate(ontology, dialect_of(project));
    if !problems.is_empty() {
        return Err(PublishError::Invalid(problems));
    }
    Ok(store
        .publish_version(project.id, ontology, user_id, note, now)
        .await?)
}

/// Publishes the project's draft as it stands.
pub async fn publish_draft(
    store: &Store,
    project: &Project,
    user_id: Uuid,
    note: &str,
    now: Timestamp,
) -> Result<u32, PublishError> {
    let draft = store
        .draft(project.id)
        .await?
        .ok_or(PublishError::NoDraft)?;
    publish(store, project, &draft.ontology, user_id, note, now).await
}

/// Rolling back is publishing an old version's content as a new version; the
/// draft follows, so the next edit starts from what is live.
pub async fn roll_back(
    store: &Store,
    project: &Project,
    to: u32,
    user_id: Uuid,
    note: &str,
    now: Timestamp,
) -> Result<u32, PublishError> {
    let old = store
        .version(project.id, to)
        .await?
        .ok_or(PublishError::NoSuchVersion(to))?;
    let note = if note.trim().is_empty() {
        format!("Roll back to version {to}")
    } else {
        note.to_owned()
    };
    let number = publish(store, project, &old.ontology, user_id, &note, now).await?;
    store
        .save_draft(project.id, &old.ontology, user_id, now)
        .await?;
    Ok(number)
}

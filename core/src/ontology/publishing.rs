//! Drafts become immutable versions only when they validate.

use super::{Ontology, Problem, validate};
use crate::account::User;
use crate::engine::Engine;
use crate::engine::regression::{self, RegressionCheck};
use crate::project::{Dialect, Project};
use crate::store::{DraftBase, Store, StoreError};
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
    let (checked, dialect) = (ontology.clone(), dialect_of(project));
    let problems = super::on_ontology_worker(move || validate(&checked, dialect)).await;
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
/// draft follows, so the next edit starts from what is live, and the draft it
/// replaces can be restored from the draft history.
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
    // Over whatever the draft is: the replaced draft stays in its history.
    store
        .save_draft(
            project.id,
            &old.ontology,
            DraftBase::Current,
            user_id,
            &format!("rolled back to version {to}"),
            now,
        )
        .await?;
    Ok(number)
}

/// The verified questions of `draft` and of the latest version, each
/// answered under both, compared: what a publish would change for people who
/// rely on them. Questions the latest version verified and the draft dropped
/// are checked too.
pub async fn check_regressions(
    store: &Store,
    engine: &Engine,
    caller: &User,
    project: &Project,
    draft: &Ontology,
    now: Timestamp,
) -> Result<Vec<RegressionCheck>, StoreError> {
    let latest = store.latest_version(project.id).await?.map(|v| v.ontology);
    let mut questions: Vec<String> = Vec::new();
    let verified = draft
        .verified_questions
        .iter()
        .chain(latest.iter().flat_map(|l| &l.verified_questions));
    for question in verified {
        if !questions
            .iter()
            .any(|q| q.eq_ignore_ascii_case(question.question.trim()))
        {
            questions.push(question.question.trim().to_owned());
        }
    }
    let under_draft = engine
        .rehearse(caller, project, draft.clone(), &questions, now)
        .await;
    let under_latest = match latest {
        Some(latest) => Some(
            engine
                .rehearse(caller, project, latest, &questions, now)
                .await,
        ),
        None => None,
    };
    Ok(questions
        .iter()
        .enumerate()
        .map(|(i, question)| {
            regression::compare(
                question,
                &under_draft[i],
                under_latest.as_ref().map(|responses| &responses[i]),
            )
        })
        .collect())
}

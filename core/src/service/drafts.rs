//! Changing a draft without losing anyone's work: small edits are applied to
//! the draft as it is when they are saved, and any replaced draft can be
//! restored from the history.

use crate::ontology::{Ontology, on_ontology_worker};
use crate::store::{DraftBase, Store, StoreError};
use crate::time::Timestamp;
use uuid::Uuid;

/// How often a small edit is applied again when someone saved in between.
const EDIT_ATTEMPTS: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error(
        "revision {0} is not in the draft history: `cassis ontology history` lists the revisions kept"
    )]
    NoSuchRevision(u64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Applies `edit` to the current draft (an empty one if there is none) and
/// saves it over exactly the revision it read. When another save got in
/// between, the edit is applied again to the newer draft: an edit names what
/// it changes ("add metric wins", "remove objects.race"), so applying it to
/// the newer draft keeps both changes, where a read-modify-write would drop
/// the other one. An edit that leaves the draft as it was saves nothing, so
/// an edit refused for its own problems can undo itself and keep the history
/// clean. Returns what the last application of `edit` returned.
///
/// `edit` runs on an ontology worker ([`on_ontology_worker`]), since it and
/// the comparison after it walk the whole draft (an edit that validates it
/// walks it twice): it cannot reach the calling task's context.
pub async fn edit<T, E, F>(
    store: &Store,
    project_id: Uuid,
    user_id: Uuid,
    reason: &str,
    now: Timestamp,
    mut edit: F,
) -> Result<T, E>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
    F: FnMut(&mut Ontology) -> Result<T, E> + Send + 'static,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        let draft = store.draft(project_id).await?;
        let base = draft.as_ref().map_or(0, |d| d.revision);
        let before = draft.map(|d| d.ontology).unwrap_or_default();
        let (returned, applied) = on_ontology_worker(move || {
            let mut ontology = before.clone();
            let applied = edit(&mut ontology)
                .map(|outcome| (outcome, (ontology != before).then_some(ontology)));
            (edit, applied)
        })
        .await;
        edit = returned;
        let (outcome, changed) = applied?;
        let Some(ontology) = changed else {
            return Ok(outcome);
        };
        let saved = store
            .save_draft(
                project_id,
                &ontology,
                DraftBase::Revision(base),
                user_id,
                reason,
                now,
            )
            .await;
        match saved {
            Ok(_) => return Ok(outcome),
            Err(StoreError::StaleDraft(_)) if attempt < EDIT_ATTEMPTS => continue,
            Err(error) => return Err(error.into()),
        }
    }
}

/// Makes a replaced draft from the history the draft again and returns the
/// new revision. The draft it replaces goes to the history like any other,
/// so a restore can itself be undone.
pub async fn restore(
    store: &Store,
    project_id: Uuid,
    revision: u64,
    user_id: Uuid,
    now: Timestamp,
) -> Result<u64, RestoreError> {
    let ontology = store
        .draft_revision(project_id, revision)
        .await?
        .ok_or(RestoreError::NoSuchRevision(revision))?;
    Ok(store
        .save_draft(
            project_id,
            &ontology,
            DraftBase::Current,
            user_id,
            &format!("restored revision {revision}"),
            now,
        )
        .await?)
}

use super::{Store, StoreError, uuid_column};
use crate::ontology::{Ontology, on_ontology_worker};
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

/// A project's editable ontology.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub ontology: Ontology,
    /// Counts the saves: 1 for the first draft, one more for each save.
    pub revision: u64,
    pub updated_by: Option<Uuid>,
    pub updated_by_email: Option<String>,
    pub updated_at: Timestamp,
    /// Why the draft was last saved ("saved in the editor", ...).
    pub reason: String,
}

/// Which draft a save replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DraftBase {
    /// The draft at this revision, as the saver read it; 0 means "no draft
    /// yet". A save over any other revision is refused with
    /// [`StoreError::StaleDraft`], so nobody's work is silently replaced.
    Revision(u64),
    /// Whatever the draft is now: for deliberate overwrites (rolling back,
    /// bootstrapping, importing, restoring). The replaced draft is still
    /// kept in the history.
    Current,
}

/// A saved draft as the history lists it: the body it had is read with
/// [`Store::draft_revision`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftRevision {
    pub revision: u64,
    pub saved_by: Option<Uuid>,
    pub saved_by_email: Option<String>,
    pub saved_at: Timestamp,
    pub reason: String,
}

/// The draft a stale save found in its way: who saved it and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftStamp {
    pub revision: u64,
    pub saved_by_email: Option<String>,
    pub saved_at: Timestamp,
}

impl DraftStamp {
    /// Who saved it, for messages; a draft saved before users were recorded
    /// has nobody.
    pub fn saved_by(&self) -> &str {
        self.saved_by_email.as_deref().unwrap_or("someone")
    }
}

/// How many replaced drafts each project keeps; older ones are pruned by the
/// save that replaces the next.
pub const DRAFT_HISTORY_KEPT: u64 = 50;

/// How often a save over the current draft retries when another save took
/// that revision first.
const SAVE_ATTEMPTS: usize = 20;

/// An immutable published ontology.
#[derive(Clone, Debug, PartialEq)]
pub struct PublishedVersion {
    pub number: u32,
    pub ontology: Ontology,
    pub info: VersionInfo,
}

/// Who published a version, when and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionInfo {
    pub number: u32,
    pub published_by: Uuid,
    pub published_by_email: String,
    pub published_at: Timestamp,
    pub note: String,
}

/// How often publishing retries when another publish took the same number.
const PUBLISH_ATTEMPTS: usize = 20;

/// An ontology as its row stores it. A body is as large as the largest
/// ontology allowed (megabytes), so it is written on an ontology worker
/// ([`on_ontology_worker`]) like the YAML it was read from, not on the async
/// workers that serve MCP and the pages.
async fn encode(ontology: &Ontology) -> String {
    let ontology = ontology.clone();
    on_ontology_worker(move || {
        serde_json::to_string(&ontology).expect("an ontology always serializes to JSON")
    })
    .await
}

/// A stored body read back, on an ontology worker like [`encode`]. The body
/// is taken from the row at once, so the row is not held while it waits.
fn decode(row: &AnyRow) -> impl Future<Output = Result<Ontology, StoreError>> + Send + 'static {
    let body: Result<String, _> = row.try_get("body");
    async move {
        let body = body?;
        on_ontology_worker(move || {
            serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
                column: "ontology body",
                detail: e.to_string(),
            })
        })
        .await
    }
}

fn version_number(row: &AnyRow) -> Result<u32, StoreError> {
    let number: i64 = row.try_get("version")?;
    u32::try_from(number).map_err(|e| StoreError::Corrupt {
        column: "ontology_versions.version",
        detail: e.to_string(),
    })
}

fn version_info(row: &AnyRow) -> Result<VersionInfo, StoreError> {
    Ok(VersionInfo {
        number: version_number(row)?,
        published_by: uuid_column(row, "published_by")?,
        published_by_email: row.try_get("email")?,
        published_at: Timestamp::from_millis(row.try_get("published_at")?),
        note: row.try_get("note")?,
    })
}

/// One save of a draft, whatever revision it ends up replacing.
struct DraftSave<'a> {
    project_id: Uuid,
    body: String,
    user_id: Uuid,
    reason: &'a str,
    now: Timestamp,
}

fn revision_of(row: &AnyRow) -> Result<u64, StoreError> {
    let revision: i64 = row.try_get("revision")?;
    u64::try_from(revision).map_err(|e| StoreError::Corrupt {
        column: "ontology_drafts.revision",
        detail: e.to_string(),
    })
}

/// A revision as the database stores it (BIGINT).
fn revision_column(revision: u64) -> Result<i64, StoreError> {
    i64::try_from(revision).map_err(|_| StoreError::NotFound("draft revision"))
}

impl Store {
    /// Replaces the project's draft with `ontology` and returns the new
    /// revision; the replaced draft goes to the history. With
    /// [`DraftBase::Revision`] the save succeeds only over that revision.
    pub async fn save_draft(
        &self,
        project_id: Uuid,
        ontology: &Ontology,
        base: DraftBase,
        user_id: Uuid,
        reason: &str,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let save = DraftSave {
            project_id,
            body: encode(ontology).await,
            user_id,
            reason: reason.trim(),
            now,
        };
        match base {
            DraftBase::Revision(revision) => match self.replace_draft(&save, revision).await? {
                Some(saved) => Ok(saved),
                None => Err(self.stale_draft(project_id).await),
            },
            DraftBase::Current => {
                for _ in 0..SAVE_ATTEMPTS {
                    let current = self
                        .draft_stamp(project_id)
                        .await?
                        .map_or(0, |s| s.revision);
                    if let Some(saved) = self.replace_draft(&save, current).await? {
                        return Ok(saved);
                    }
                }
                Err(StoreError::Conflict("a draft saved at the same moment"))
            }
        }
    }

    /// Saves over revision `base` (0: no draft yet), or returns `None` when
    /// the draft is no longer at that revision. One conditional write each,
    /// so of two saves over the same revision exactly one wins.
    async fn replace_draft(
        &self,
        save: &DraftSave<'_>,
        base: u64,
    ) -> Result<Option<u64>, StoreError> {
        let project_id = save.project_id.to_string();
        let base_column = revision_column(base)?;
        if base == 0 {
            let inserted = sqlx::query(
                "INSERT INTO ontology_drafts (project_id, body, updated_by, updated_at, reason, revision) \
                 VALUES ($1, $2, $3, $4, $5, 1)",
            )
            .bind(&project_id)
            .bind(&save.body)
            .bind(save.user_id.to_string())
            .bind(save.now.as_millis())
            .bind(save.reason)
            .execute(&self.pool)
            .await;
            return match inserted {
                Ok(_) => Ok(Some(1)),
                Err(sqlx::Error::Database(db)) if db.is_unique_violation() => Ok(None),
                Err(e) => Err(e.into()),
            };
        }
        let mut tx = self.pool.begin().await?;
        // The history is written first. On SQLite a transaction whose first
        // statement writes waits for the write lock instead of failing on a
        // stale snapshot; on PostgreSQL a concurrent save over the same
        // revision waits on this row's key, then fails as a duplicate.
        let kept = sqlx::query(
            "INSERT INTO ontology_draft_history (project_id, revision, body, saved_by, saved_at, reason) \
             SELECT project_id, revision, body, updated_by, updated_at, reason FROM ontology_drafts \
             WHERE project_id = $1 AND revision = $2",
        )
        .bind(&project_id)
        .bind(base_column)
        .execute(&mut *tx)
        .await;
        match kept {
            Ok(_) => {}
            Err(sqlx::Error::Database(db)) if db.is_unique_violation() => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let updated = sqlx::query(
            "UPDATE ontology_drafts SET body = $3, updated_by = $4, updated_at = $5, reason = $6, \
             revision = revision + 1 WHERE project_id = $1 AND revision = $2",
        )
        .bind(&project_id)
        .bind(base_column)
        .bind(&save.body)
        .bind(save.user_id.to_string())
        .bind(save.now.as_millis())
        .bind(save.reason)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            // Dropping the transaction rolls the history row back.
            return Ok(None);
        }
        // Revisions count up by one, so the newest DRAFT_HISTORY_KEPT are
        // those above base - DRAFT_HISTORY_KEPT.
        sqlx::query("DELETE FROM ontology_draft_history WHERE project_id = $1 AND revision <= $2")
            .bind(&project_id)
            .bind(base_column - revision_column(DRAFT_HISTORY_KEPT)?)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(base + 1))
    }

    /// The error for a save that lost: who saved the draft in its way.
    async fn stale_draft(&self, project_id: Uuid) -> StoreError {
        match self.draft_stamp(project_id).await {
            Ok(Some(stamp)) => StoreError::StaleDraft(stamp),
            Ok(None) => StoreError::NotFound("draft"),
            Err(error) => error,
        }
    }

    /// The current draft's revision, author and time, without its body.
    async fn draft_stamp(&self, project_id: Uuid) -> Result<Option<DraftStamp>, StoreError> {
        sqlx::query(
            "SELECT d.revision, d.updated_at, u.email FROM ontology_drafts d \
             LEFT JOIN users u ON u.id = d.updated_by WHERE d.project_id = $1",
        )
        .bind(project_id.to_string())
        .fetch_optional(&self.pool)
        .await?
        .map(|row| {
            Ok(DraftStamp {
                revision: revision_of(&row)?,
                saved_by_email: row.try_get("email")?,
                saved_at: Timestamp::from_millis(row.try_get("updated_at")?),
            })
        })
        .transpose()
    }

    pub async fn draft(&self, project_id: Uuid) -> Result<Option<Draft>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT d.body, d.revision, d.updated_by, d.updated_at, d.reason, u.email \
             FROM ontology_drafts d LEFT JOIN users u ON u.id = d.updated_by WHERE d.project_id = $1",
        )
        .bind(project_id.to_string())
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let updated_by: Option<String> = row.try_get("updated_by")?;
        Ok(Some(Draft {
            ontology: decode(&row).await?,
            revision: revision_of(&row)?,
            updated_by: updated_by.and_then(|id| Uuid::parse_str(&id).ok()),
            updated_by_email: row.try_get("email")?,
            updated_at: Timestamp::from_millis(row.try_get("updated_at")?),
            reason: row.try_get("reason")?,
        }))
    }

    /// The replaced drafts kept for the project, newest first.
    pub async fn draft_history(&self, project_id: Uuid) -> Result<Vec<DraftRevision>, StoreError> {
        sqlx::query(
            "SELECT h.revision, h.saved_by, h.saved_at, h.reason, u.email \
             FROM ontology_draft_history h LEFT JOIN users u ON u.id = h.saved_by \
             WHERE h.project_id = $1 ORDER BY h.revision DESC",
        )
        .bind(project_id.to_string())
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            let saved_by: Option<String> = row.try_get("saved_by")?;
            Ok(DraftRevision {
                revision: revision_of(row)?,
                saved_by: saved_by.and_then(|id| Uuid::parse_str(&id).ok()),
                saved_by_email: row.try_get("email")?,
                saved_at: Timestamp::from_millis(row.try_get("saved_at")?),
                reason: row.try_get("reason")?,
            })
        })
        .collect()
    }

    /// The body of a replaced draft still kept in the history.
    pub async fn draft_revision(
        &self,
        project_id: Uuid,
        revision: u64,
    ) -> Result<Option<Ontology>, StoreError> {
        let row = sqlx::query(
            "SELECT body FROM ontology_draft_history WHERE project_id = $1 AND revision = $2",
        )
        .bind(project_id.to_string())
        .bind(revision_column(revision)?)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => Ok(Some(decode(&row).await?)),
            None => Ok(None),
        }
    }

    /// Stores `ontology` as the project's next version and returns its number.
    /// Two publishers at once get consecutive numbers: the primary key refuses
    /// the second insert of a number, which then retries with the next one.
    pub async fn publish_version(
        &self,
        project_id: Uuid,
        ontology: &Ontology,
        user_id: Uuid,
        note: &str,
        now: Timestamp,
    ) -> Result<u32, StoreError> {
        let body = encode(ontology).await;
        for _ in 0..PUBLISH_ATTEMPTS {
            let inserted = sqlx::query(
                "INSERT INTO ontology_versions (project_id, version, body, published_by, published_at, note) \
                 SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4, $5 FROM ontology_versions \
                 WHERE project_id = $1 RETURNING version",
            )
            .bind(project_id.to_string())
            .bind(&body)
            .bind(user_id.to_string())
            .bind(now.as_millis())
            .bind(note.trim())
            .fetch_one(&self.pool)
            .await;
            match inserted {
                Ok(row) => return version_number(&row),
                Err(sqlx::Error::Database(db)) if db.is_unique_violation() => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Conflict(
            "a version published at the same moment",
        ))
    }

    pub async fn version(
        &self,
        project_id: Uuid,
        number: u32,
    ) -> Result<Option<PublishedVersion>, StoreError> {
        let row = sqlx::query(
            "SELECT v.version, v.body, v.published_by, v.published_at, v.note, u.email \
             FROM ontology_versions v JOIN users u ON u.id = v.published_by \
             WHERE v.project_id = $1 AND v.version = $2",
        )
        .bind(project_id.to_string())
        .bind(i64::from(number))
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(Some(PublishedVersion {
            number: version_number(&row)?,
            ontology: decode(&row).await?,
            info: version_info(&row)?,
        }))
    }

    /// The newest published version, if any.
    pub async fn latest_version(
        &self,
        project_id: Uuid,
    ) -> Result<Option<PublishedVersion>, StoreError> {
        match self.latest_version_number(project_id).await? {
            Some(number) => self.version(project_id, number).await,
            None => Ok(None),
        }
    }

    pub async fn latest_version_number(&self, project_id: Uuid) -> Result<Option<u32>, StoreError> {
        let row = sqlx::query(
            "SELECT MAX(version) AS version FROM ontology_versions WHERE project_id = $1",
        )
        .bind(project_id.to_string())
        .fetch_one(&self.pool)
        .await?;
        let latest: Option<i64> = row.try_get("version")?;
        latest
            .map(|n| {
                u32::try_from(n).map_err(|e| StoreError::Corrupt {
                    column: "ontology_versions.version",
                    detail: e.to_string(),
                })
            })
            .transpose()
    }

    /// Every published version of a project, newest first.
    pub async fn list_versions(&self, project_id: Uuid) -> Result<Vec<VersionInfo>, StoreError> {
        sqlx::query(
            "SELECT v.version, v.published_by, v.published_at, v.note, u.email \
             FROM ontology_versions v JOIN users u ON u.id = v.published_by \
             WHERE v.project_id = $1 ORDER BY v.version DESC",
        )
        .bind(project_id.to_string())
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(version_info)
        .collect()
    }
}

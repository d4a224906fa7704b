use super::{Store, StoreError, uuid_column};
use crate::ontology::Ontology;
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

/// A project's editable ontology.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub ontology: Ontology,
    pub updated_by: Option<Uuid>,
    pub updated_at: Timestamp,
}

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

fn encode(ontology: &Ontology) -> String {
    serde_json::to_string(ontology).expect("an ontology always serializes to JSON")
}

fn decode(row: &AnyRow) -> Result<Ontology, StoreError> {
    let body: String = row.try_get("body")?;
    serde_json::from_str(&body).map_err(|e| StoreError::Corrupt {
        column: "ontology body",
        detail: e.to_string(),
    })
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

impl Store {
    /// Replaces the project's draft.
    pub async fn save_draft(
        &self,
        project_id: Uuid,
        ontology: &Ontology,
        user_id: Uuid,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO ontology_drafts (project_id, body, updated_by, updated_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (project_id) DO UPDATE SET body = excluded.body, updated_by = excluded.updated_by, \
             updated_at = excluded.updated_at",
        )
        .bind(project_id.to_string())
        .bind(encode(ontology))
        .bind(user_id.to_string())
        .bind(now.as_millis())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn draft(&self, project_id: Uuid) -> Result<Option<Draft>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT body, updated_by, updated_at FROM ontology_drafts WHERE project_id = $1",
        )
        .bind(project_id.to_string())
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let updated_by: Option<String> = row.try_get("updated_by")?;
        Ok(Some(Draft {
            ontology: decode(&row)?,
            updated_by: updated_by.and_then(|id| Uuid::parse_str(&id).ok()),
            updated_at: Timestamp::from_millis(row.try_get("updated_at")?),
        }))
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
        let body = encode(ontology);
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
        sqlx::query(
            "SELECT v.version, v.body, v.published_by, v.published_at, v.note, u.email \
             FROM ontology_versions v JOIN users u ON u.id = v.published_by \
             WHERE v.project_id = $1 AND v.version = $2",
        )
        .bind(project_id.to_string())
        .bind(i64::from(number))
        .fetch_optional(&self.pool)
        .await?
        .map(|row| {
            Ok(PublishedVersion {
                number: version_number(&row)?,
                ontology: decode(&row)?,
                info: version_info(&row)?,
            })
        })
        .transpose()
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

use super::{Store, StoreError, uuid_column};
use crate::auth::{ApiKey, ApiKeySecret};
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

macro_rules! select_api_keys {
    () => {
        "SELECT k.id, k.organization_id, k.user_id, u.email, k.name, k.display_prefix, k.created_at, \
         k.expires_at, k.last_used_at, k.revoked_at FROM api_keys k JOIN users u ON u.id = k.user_id "
    };
}

fn millis(row: &AnyRow, column: &str) -> Result<Option<Timestamp>, StoreError> {
    Ok(row
        .try_get::<Option<i64>, _>(column)?
        .map(Timestamp::from_millis))
}

fn api_key_from_row(row: &AnyRow) -> Result<ApiKey, StoreError> {
    Ok(ApiKey {
        id: uuid_column(row, "id")?,
        organization_id: uuid_column(row, "organization_id")?,
        user_id: uuid_column(row, "user_id")?,
        user_email: row.try_get("email")?,
        name: row.try_get("name")?,
        display_prefix: row.try_get("display_prefix")?,
        created_at: Timestamp::from_millis(row.try_get("created_at")?),
        expires_at: millis(row, "expires_at")?,
        last_used_at: millis(row, "last_used_at")?,
        revoked_at: millis(row, "revoked_at")?,
    })
}

/// A key to store: who it acts for, what it is called, when it ends.
pub struct NewApiKey<'a> {
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub name: &'a str,
    pub expires_at: Option<Timestamp>,
}

impl Store {
    /// Stores the hash of `secret`; the secret itself is never written.
    pub async fn create_api_key(
        &self,
        new: NewApiKey<'_>,
        secret: &ApiKeySecret,
        now: Timestamp,
    ) -> Result<Uuid, StoreError> {
        let id = Uuid::new_v4();
        sqlx::query(
            "INSERT INTO api_keys (id, organization_id, user_id, name, key_hash, display_prefix, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(id.to_string())
        .bind(new.organization_id.to_string())
        .bind(new.user_id.to_string())
        .bind(new.name.trim())
        .bind(secret.hash())
        .bind(secret.display_prefix())
        .bind(now.as_millis())
        .bind(new.expires_at.map(Timestamp::as_millis))
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    /// The organization's keys, newest first, revoked ones included.
    pub async fn list_api_keys(&self, organization_id: Uuid) -> Result<Vec<ApiKey>, StoreError> {
        sqlx::query(concat!(
            select_api_keys!(),
            "WHERE k.organization_id = $1 ORDER BY k.created_at DESC, k.id"
        ))
        .bind(organization_id.to_string())
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(api_key_from_row)
        .collect()
    }

    pub async fn api_key_by_hash(&self, key_hash: &str) -> Result<Option<ApiKey>, StoreError> {
        sqlx::query(concat!(select_api_keys!(), "WHERE k.key_hash = $1"))
            .bind(key_hash)
            .fetch_optional(&self.pool)
            .await?
            .map(|row| api_key_from_row(&row))
            .transpose()
    }

    pub async fn touch_api_key(&self, id: Uuid, now: Timestamp) -> Result<(), StoreError> {
        sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2")
            .bind(now.as_millis())
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Revokes a key of the organization; false when there is no such key or
    /// it was revoked already.
    pub async fn revoke_api_key(
        &self,
        organization_id: Uuid,
        id: Uuid,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND organization_id = $3 AND revoked_at IS NULL",
        )
        .bind(now.as_millis())
        .bind(id.to_string())
        .bind(organization_id.to_string())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}

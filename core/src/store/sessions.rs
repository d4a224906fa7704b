use super::users::user_from_row;
use super::{Store, StoreError};
use crate::account::User;
use crate::auth::SessionTokenHash;
use crate::time::Timestamp;
use uuid::Uuid;

impl Store {
    pub async fn create_session(
        &self,
        user_id: Uuid,
        token_hash: &SessionTokenHash,
        now: Timestamp,
        expires_at: Timestamp,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)")
            .bind(&token_hash.0)
            .bind(user_id.to_string())
            .bind(now.as_millis())
            .bind(expires_at.as_millis())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The enabled user behind an unexpired session.
    pub async fn session_user(
        &self,
        token_hash: &SessionTokenHash,
        now: Timestamp,
    ) -> Result<Option<User>, StoreError> {
        sqlx::query(
            "SELECT u.id, u.organization_id, u.email, u.role, u.created_at, u.disabled_at \
             FROM sessions s JOIN users u ON u.id = s.user_id \
             WHERE s.token_hash = $1 AND s.expires_at > $2 AND u.disabled_at IS NULL",
        )
        .bind(&token_hash.0)
        .bind(now.as_millis())
        .fetch_optional(&self.pool)
        .await?
        .map(|row| user_from_row(&row))
        .transpose()
    }

    pub async fn delete_session(&self, token_hash: &SessionTokenHash) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(&token_hash.0)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Removes sessions that ended before `now`; returns how many.
    pub async fn delete_expired_sessions(&self, now: Timestamp) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now.as_millis())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}

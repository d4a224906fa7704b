//! OAuth state: signing keys, clients, single-use codes, grants and their
//! rotating refresh tokens. Codes and refresh tokens are stored as hashes.

use super::{Store, StoreError, uuid_column};
use crate::auth::oauth::{
    AuthorizationCode, ClientKind, Grant, OAuthClient, Rotation, SealingKey, SigningKey, is_sealed,
};
use crate::time::Timestamp;
use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

fn client_from_row(row: &AnyRow) -> Result<OAuthClient, StoreError> {
    let uris: String = row.try_get("redirect_uris")?;
    Ok(OAuthClient {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        redirect_uris: serde_json::from_str(&uris).map_err(|e| StoreError::Corrupt {
            column: "redirect_uris",
            detail: e.to_string(),
        })?,
        kind: ClientKind::parse(&row.try_get::<String, _>("kind")?),
        created_at: Timestamp::from_millis(row.try_get("created_at")?),
    })
}

/// A registered client (`$1`) no authorization code was ever issued to:
/// codes are kept after use, and every grant starts from one.
macro_rules! unused_client {
    () => {
        "kind = $1 AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.client_id = oauth_clients.id)"
    };
}

macro_rules! select_grants {
    () => {
        "SELECT g.id, g.client_id, c.name AS client_name, g.organization_id, g.user_id, g.resource, \
         g.scope, g.created_at, g.last_used_at, g.revoked_at, u.email AS user_email \
         FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id JOIN users u ON u.id = g.user_id "
    };
}

fn grant_from_row(row: &AnyRow) -> Result<Grant, StoreError> {
    Ok(Grant {
        id: uuid_column(row, "id")?,
        client_id: row.try_get("client_id")?,
        client_name: row.try_get("client_name")?,
        organization_id: uuid_column(row, "organization_id")?,
        user_id: uuid_column(row, "user_id")?,
        resource: row.try_get("resource")?,
        scope: row.try_get("scope")?,
        created_at: Timestamp::from_millis(row.try_get("created_at")?),
        last_used_at: Timestamp::from_millis(row.try_get("last_used_at")?),
        revoked_at: row
            .try_get::<Option<i64>, _>("revoked_at")?
            .map(Timestamp::from_millis),
    })
}

impl Store {
    /// Every signing key, newest first, opened with `sealing`; creates the
    /// first one when there is none. A key kept unsealed (by a Cassis from
    /// before keys were sealed) is sealed in place as it is read.
    pub async fn oauth_signing_keys(
        &self,
        sealing: &SealingKey,
        now: Timestamp,
    ) -> Result<Vec<SigningKey>, StoreError> {
        let read = || async {
            let rows = sqlx::query(
                "SELECT id, private_key FROM oauth_signing_keys ORDER BY created_at DESC, id",
            )
            .fetch_all(&self.pool)
            .await?;
            let mut keys = Vec::with_capacity(rows.len());
            for row in &rows {
                let id: String = row.try_get("id")?;
                let stored: String = row.try_get("private_key")?;
                if is_sealed(&stored) {
                    keys.push(
                        SigningKey::from_sealed(&stored, sealing).ok_or(StoreError::Corrupt {
                            column: "oauth_signing_keys.private_key",
                            detail: "sealed under another secret: give the server the \
                                     CASSIS_SIGNING_KEY_SECRET (or the data directory's \
                                     signing-key.secret) it was sealed with"
                                .to_owned(),
                        })?,
                    );
                    continue;
                }
                let key = SigningKey::from_stored(&stored).ok_or(StoreError::Corrupt {
                    column: "oauth_signing_keys.private_key",
                    detail: "not an Ed25519 PKCS#8 key".to_owned(),
                })?;
                // Only the unsealed value is replaced: an instance sealing it
                // at the same moment wins, with the same key.
                sqlx::query(
                    "UPDATE oauth_signing_keys SET private_key = $1 WHERE id = $2 AND private_key = $3",
                )
                .bind(key.sealed_private_key(sealing))
                .bind(&id)
                .bind(&stored)
                .execute(&self.pool)
                .await?;
                keys.push(key);
            }
            Ok::<_, StoreError>(keys)
        };
        let keys = read().await?;
        if !keys.is_empty() {
            return Ok(keys);
        }
        // Two instances starting at once may both add one; both keys verify.
        let key = SigningKey::generate();
        sqlx::query(
            "INSERT INTO oauth_signing_keys (id, private_key, public_key, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(&key.id)
        .bind(key.sealed_private_key(sealing))
        .bind(key.stored_public_key())
        .bind(now.as_millis())
        .execute(&self.pool)
        .await?;
        read().await
    }

    /// Stores a client, or replaces a metadata document's earlier copy.
    pub async fn save_oauth_client(
        &self,
        client: &OAuthClient,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let uris = serde_json::to_string(&client.redirect_uris).expect("strings serialize");
        let fetched = (client.kind == ClientKind::MetadataDocument).then_some(now.as_millis());
        sqlx::query(
            "INSERT INTO oauth_clients (id, name, redirect_uris, kind, created_at, fetched_at) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris, \
             fetched_at = excluded.fetched_at",
        )
        .bind(&client.id)
        .bind(&client.name)
        .bind(uris)
        .bind(client.kind.as_str())
        .bind(client.created_at.as_millis())
        .bind(fetched)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Forgets registered clients that never received an authorization code
    /// and were registered before `before`; how many.
    pub async fn delete_unused_oauth_clients(&self, before: Timestamp) -> Result<u64, StoreError> {
        let done = sqlx::query(concat!(
            "DELETE FROM oauth_clients WHERE created_at < $2 AND ",
            unused_client!()
        ))
        .bind(ClientKind::Registered.as_str())
        .bind(before.as_millis())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Forgets clients read from metadata documents that never received an
    /// authorization code: those fetched before `before`, and all but the
    /// `keep` newest. Any of them is fetched again from its URL when next
    /// used, so forgetting costs a fetch, while keeping every URL an
    /// anonymous caller names would grow the table without bound. How many.
    pub async fn forget_unused_metadata_clients(
        &self,
        before: Timestamp,
        keep: usize,
    ) -> Result<u64, StoreError> {
        let done = sqlx::query(concat!(
            "DELETE FROM oauth_clients WHERE ",
            unused_client!(),
            " AND (created_at < $2 OR id NOT IN (SELECT id FROM oauth_clients WHERE ",
            unused_client!(),
            " ORDER BY created_at DESC, id LIMIT $3))"
        ))
        .bind(ClientKind::MetadataDocument.as_str())
        .bind(before.as_millis())
        .bind(i64::try_from(keep).unwrap_or(i64::MAX))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Registered clients that never received an authorization code.
    pub async fn count_unused_oauth_clients(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query(concat!(
            "SELECT COUNT(*) AS n FROM oauth_clients WHERE ",
            unused_client!()
        ))
        .bind(ClientKind::Registered.as_str())
        .fetch_one(&self.pool)
        .await?
        .try_get("n")?)
    }

    /// A client and, for a metadata document, when it was fetched.
    pub async fn oauth_client(
        &self,
        id: &str,
    ) -> Result<Option<(OAuthClient, Option<Timestamp>)>, StoreError> {
        let row = sqlx::query(
            "SELECT id, name, redirect_uris, kind, created_at, fetched_at FROM oauth_clients WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            let fetched = row
                .try_get::<Option<i64>, _>("fetched_at")?
                .map(Timestamp::from_millis);
            Ok((client_from_row(&row)?, fetched))
        })
        .transpose()
    }

    pub async fn create_authorization_code(
        &self,
        code_hash: &str,
        code: &AuthorizationCode,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO oauth_codes (code_hash, client_id, organization_id, user_id, redirect_uri, \
             code_challenge, resource, scope, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(code_hash)
        .bind(&code.client_id)
        .bind(code.organization_id.to_string())
        .bind(code.user_id.to_string())
        .bind(&code.redirect_uri)
        .bind(&code.code_challenge)
        .bind(&code.resource)
        .bind(&code.scope)
        .bind(now.as_millis())
        .bind(code.expires_at.as_millis())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Marks a code used and returns it, once. A second presentation gets
    /// `Err(Some(grant))` naming the grant the first one started, which the
    /// caller revokes (RFC 6749 §4.1.2); an unknown code gets `Err(None)`.
    pub async fn use_authorization_code(
        &self,
        code_hash: &str,
        now: Timestamp,
    ) -> Result<Result<AuthorizationCode, Option<Uuid>>, StoreError> {
        let used = sqlx::query(
            "UPDATE oauth_codes SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL \
             RETURNING client_id, organization_id, user_id, redirect_uri, code_challenge, resource, scope, expires_at",
        )
        .bind(now.as_millis())
        .bind(code_hash)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(row) = used {
            return Ok(Ok(AuthorizationCode {
                client_id: row.try_get("client_id")?,
                organization_id: uuid_column(&row, "organization_id")?,
                user_id: uuid_column(&row, "user_id")?,
                redirect_uri: row.try_get("redirect_uri")?,
                code_challenge: row.try_get("code_challenge")?,
                resource: row.try_get("resource")?,
                scope: row.try_get("scope")?,
                expires_at: Timestamp::from_millis(row.try_get("expires_at")?),
            }));
        }
        let replayed: Option<Option<String>> =
            sqlx::query_scalar("SELECT grant_id FROM oauth_codes WHERE code_hash = $1")
                .bind(code_hash)
                .fetch_optional(&self.pool)
                .await?;
        Ok(Err(replayed
            .flatten()
            .and_then(|id| Uuid::parse_str(&id).ok())))
    }

    /// Starts a grant from an exchanged code, with its first refresh token.
    pub async fn create_oauth_grant(
        &self,
        code_hash: &str,
        code: &AuthorizationCode,
        refresh_hash: &str,
        refresh_expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<Uuid, StoreError> {
        let id = Uuid::new_v4();
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO oauth_grants (id, client_id, organization_id, user_id, resource, scope, created_at, last_used_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
        )
        .bind(id.to_string())
        .bind(&code.client_id)
        .bind(code.organization_id.to_string())
        .bind(code.user_id.to_string())
        .bind(&code.resource)
        .bind(&code.scope)
        .bind(now.as_millis())
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE oauth_codes SET grant_id = $1 WHERE code_hash = $2")
            .bind(id.to_string())
            .bind(code_hash)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(refresh_hash)
        .bind(id.to_string())
        .bind(now.as_millis())
        .bind(refresh_expires_at.as_millis())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    pub async fn oauth_grant(&self, id: Uuid) -> Result<Option<Grant>, StoreError> {
        sqlx::query(concat!(select_grants!(), "WHERE g.id = $1"))
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(grant_from_row)
            .transpose()
    }

    /// A user's grants, newest use first, revoked ones included.
    pub async fn oauth_grants_of(&self, user_id: Uuid) -> Result<Vec<Grant>, StoreError> {
        sqlx::query(concat!(
            select_grants!(),
            "WHERE g.user_id = $1 ORDER BY g.last_used_at DESC, g.id"
        ))
        .bind(user_id.to_string())
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(grant_from_row)
        .collect()
    }

    /// The organization's grants with their user's email, most recently
    /// used first, revoked ones included.
    pub async fn oauth_grants_in(
        &self,
        organization_id: Uuid,
    ) -> Result<Vec<(Grant, String)>, StoreError> {
        sqlx::query(concat!(
            select_grants!(),
            "WHERE g.organization_id = $1 ORDER BY g.last_used_at DESC, g.id"
        ))
        .bind(organization_id.to_string())
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| Ok((grant_from_row(row)?, row.try_get("user_email")?)))
        .collect()
    }

    /// Records that a grant's access token was used.
    pub async fn touch_oauth_grant(&self, id: Uuid, now: Timestamp) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE oauth_grants SET last_used_at = $1 WHERE id = $2 AND last_used_at < $1",
        )
        .bind(now.as_millis())
        .bind(id.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Ends a grant and every refresh token of it. Idempotent.
    pub async fn revoke_oauth_grant(&self, id: Uuid, now: Timestamp) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
            .bind(now.as_millis())
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE oauth_refresh_tokens SET retired_at = $1 WHERE grant_id = $2 AND retired_at IS NULL",
        )
        .bind(now.as_millis())
        .bind(id.to_string())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The grant a refresh token belongs to, whatever its state.
    pub async fn refresh_token_grant(&self, token_hash: &str) -> Result<Option<Uuid>, StoreError> {
        let id: Option<String> =
            sqlx::query_scalar("SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(&self.pool)
                .await?;
        Ok(id.and_then(|id| Uuid::parse_str(&id).ok()))
    }

    /// Retires a current refresh token and stores its successor, in one
    /// transaction; a retired token revokes its grant instead.
    pub async fn rotate_refresh_token(
        &self,
        old_hash: &str,
        new_hash: &str,
        new_expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<Rotation, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Retiring first makes two concurrent presentations race on one row:
        // exactly one of them sees it still current.
        let current: Option<String> = sqlx::query_scalar(
            "UPDATE oauth_refresh_tokens SET retired_at = $1 \
             WHERE token_hash = $2 AND retired_at IS NULL AND expires_at > $1 RETURNING grant_id",
        )
        .bind(now.as_millis())
        .bind(old_hash)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(grant_id) = current else {
            tx.rollback().await?;
            let known = sqlx::query(
                "SELECT grant_id, retired_at FROM oauth_refresh_tokens WHERE token_hash = $1",
            )
            .bind(old_hash)
            .fetch_optional(&self.pool)
            .await?;
            return match known {
                Some(row) if row.try_get::<Option<i64>, _>("retired_at")?.is_some() => {
                    let grant = uuid_column(&row, "grant_id")?;
                    self.revoke_oauth_grant(grant, now).await?;
                    Ok(Rotation::Replayed)
                }
                _ => Ok(Rotation::Invalid),
            };
        };
        let touched = sqlx::query(
            "UPDATE oauth_grants SET last_used_at = $1 WHERE id = $2 AND revoked_at IS NULL",
        )
        .bind(now.as_millis())
        .bind(&grant_id)
        .execute(&mut *tx)
        .await?;
        if touched.rows_affected() == 0 {
            tx.rollback().await?;
            return Ok(Rotation::Invalid);
        }
        sqlx::query(
            "INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(new_hash)
        .bind(&grant_id)
        .bind(now.as_millis())
        .bind(new_expires_at.as_millis())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        let id = Uuid::parse_str(&grant_id).map_err(|e| StoreError::Corrupt {
            column: "grant_id",
            detail: e.to_string(),
        })?;
        match self.oauth_grant(id).await? {
            Some(grant) => Ok(Rotation::Rotated(grant)),
            None => Ok(Rotation::Invalid),
        }
    }
}

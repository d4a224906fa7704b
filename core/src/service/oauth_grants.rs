//! The grants behind OAuth tokens: redeeming an authorization code starts
//! one, presenting a refresh token continues it with a new token. The token
//! endpoint parses the request, authenticates the client, calls one of these
//! and signs the access token; the rules of a code (client, expiry,
//! redirect, PKCE) are `AuthorizationCode::check_redemption`'s.

use super::Services;
use crate::auth::hash_key;
use crate::auth::oauth::{OAuthSecret, REFRESH_TOKEN_LIFETIME, Rotation};
use crate::store::StoreError;
use crate::time::Timestamp;
use uuid::Uuid;

/// Why a code or refresh token gets no tokens: RFC 6749's `invalid_grant`,
/// with the description the client is told.
#[derive(Debug, thiserror::Error)]
pub enum GrantRefused {
    #[error("{0}")]
    Invalid(String),
    /// The code or refresh token was used before, so it may have been
    /// stolen: the grant it belongs to is now revoked, and whatever caches
    /// credentials of that grant must forget them.
    #[error("{reason}")]
    Replayed { grant: Uuid, reason: &'static str },
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid(description: impl Into<String>) -> GrantRefused {
    GrantRefused::Invalid(description.into())
}

/// A grant's new tokens: who the access token speaks for, and the refresh
/// token, shown to the client once.
#[derive(Debug)]
pub struct Issued {
    pub grant: Uuid,
    pub user_id: Uuid,
    pub organization_id: Uuid,
    pub client_id: String,
    pub scope: String,
    pub refresh_token: OAuthSecret,
}

impl Services {
    /// Exchanges an authorization code presented by `client_id` (already
    /// authenticated) for a new grant. A code works once: presented again, it
    /// revokes the grant it started (RFC 6749 §4.1.2).
    pub async fn redeem_code(
        &self,
        client_id: &str,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
        now: Timestamp,
    ) -> Result<Issued, GrantRefused> {
        let code_hash = hash_key(code);
        let approved = match self.store.use_authorization_code(&code_hash, now).await? {
            Ok(approved) => approved,
            Err(Some(grant)) => {
                self.store.revoke_oauth_grant(grant, now).await?;
                tracing::warn!(%grant, "an authorization code was presented twice; its grant is revoked");
                return Err(GrantRefused::Replayed {
                    grant,
                    reason: "the authorization code was already used",
                });
            }
            Err(None) => return Err(invalid("the authorization code is not valid")),
        };
        approved
            .check_redemption(client_id, redirect_uri, verifier, now)
            .map_err(|rejected| invalid(rejected.to_string()))?;
        self.check_user_is_active(approved.user_id).await?;
        let refresh_token = OAuthSecret::generate();
        let grant = self
            .store
            .create_oauth_grant(
                &code_hash,
                &approved,
                &refresh_token.hash(),
                now.saturating_add(REFRESH_TOKEN_LIFETIME),
                now,
            )
            .await?;
        tracing::info!(%grant, client_id = %client_id, user = %approved.user_id, "issued OAuth tokens");
        Ok(Issued {
            grant,
            user_id: approved.user_id,
            organization_id: approved.organization_id,
            client_id: client_id.to_owned(),
            scope: approved.scope,
            refresh_token,
        })
    }

    /// Retires the refresh token `client_id` (already authenticated) presents
    /// and issues its successor. A retired token presented again revokes the
    /// grant.
    pub async fn refresh_grant(
        &self,
        client_id: &str,
        presented: &str,
        now: Timestamp,
    ) -> Result<Issued, GrantRefused> {
        let old_hash = hash_key(presented);
        // The token must belong to the client presenting it before anything changes.
        let Some(grant_id) = self.store.refresh_token_grant(&old_hash).await? else {
            return Err(invalid("the refresh token is not valid"));
        };
        match self.store.oauth_grant(grant_id).await? {
            Some(grant) if grant.client_id == client_id => {}
            _ => return Err(invalid("the refresh token was issued to another client")),
        }
        let refresh_token = OAuthSecret::generate();
        let rotation = self
            .store
            .rotate_refresh_token(
                &old_hash,
                &refresh_token.hash(),
                now.saturating_add(REFRESH_TOKEN_LIFETIME),
                now,
            )
            .await?;
        let grant = match rotation {
            Rotation::Rotated(grant) => grant,
            Rotation::Replayed => {
                tracing::warn!(grant = %grant_id, "a retired refresh token was presented; its grant is revoked");
                return Err(GrantRefused::Replayed {
                    grant: grant_id,
                    reason: "the refresh token was already used; the client must sign in again",
                });
            }
            Rotation::Invalid => return Err(invalid("the refresh token is not valid")),
        };
        self.check_user_is_active(grant.user_id).await?;
        Ok(Issued {
            grant: grant.id,
            user_id: grant.user_id,
            organization_id: grant.organization_id,
            client_id: client_id.to_owned(),
            scope: grant.scope,
            refresh_token,
        })
    }

    async fn check_user_is_active(&self, user_id: Uuid) -> Result<(), GrantRefused> {
        let active = self
            .store
            .user(user_id)
            .await?
            .is_some_and(|user| user.disabled_at.is_none());
        if active {
            Ok(())
        } else {
            Err(invalid("the user's account is disabled"))
        }
    }
}

//! Signing in and out, and the credentials a request presents: a browser
//! session or an API key, checked against the store.

use crate::account::{Email, User};
use crate::auth::{
    ApiKey, SESSION_LIFETIME, SessionToken, SignInThrottle, TooMany, hash_key, is_well_formed,
};
use crate::store::{Store, StoreError};
use crate::time::Timestamp;

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// Deliberately one variant for an unknown email, a wrong password and a
    /// disabled account, so that sign-in does not reveal which accounts exist.
    #[error("incorrect email or password")]
    InvalidCredentials,
    /// Refused before any password was checked: too many recent attempts from
    /// the address or on the account.
    #[error("too many sign-in attempts; try again in {} seconds", .0.retry_after_secs())]
    TooManyAttempts(TooMany),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A session started by a successful sign-in. The token goes to the browser
/// once; only its hash is stored.
#[derive(Debug)]
pub struct SignedIn {
    pub user: User,
    pub token: SessionToken,
    pub expires_at: Timestamp,
}

/// Checks an email and password from a client at `address` and opens a
/// session, within the throttle's limits.
pub async fn sign_in(
    store: &Store,
    throttle: &SignInThrottle,
    address: Option<std::net::IpAddr>,
    email: &str,
    password: &str,
    now: Timestamp,
) -> Result<SignedIn, SignInError> {
    let attempt = throttle.admit(address, email).map_err(|refused| {
        metrics::counter!("cassis_sign_in_failures_total", "reason" => "throttled").increment(1);
        SignInError::TooManyAttempts(refused)
    })?;
    let credentials = match Email::parse(email) {
        Ok(email) => store.user_credentials(&email).await?,
        Err(_) => None,
    };
    let (user, hash) = match credentials {
        Some((user, hash)) => (Some(user), Some(hash)),
        None => (None, None),
    };
    let matches = throttle.verify(hash, password).await;
    attempt.record(matches);
    let Some(user) = user.filter(|user| matches && user.disabled_at.is_none()) else {
        metrics::counter!("cassis_sign_in_failures_total", "reason" => "invalid_credentials")
            .increment(1);
        return Err(SignInError::InvalidCredentials);
    };
    let token = SessionToken::generate();
    let expires_at = now.saturating_add(SESSION_LIFETIME);
    store
        .create_session(user.id, &token.hash(), now, expires_at)
        .await?;
    Ok(SignedIn {
        user,
        token,
        expires_at,
    })
}

/// The user a browser session belongs to, if the session is valid now.
pub async fn session_user(
    store: &Store,
    token: &str,
    now: Timestamp,
) -> Result<Option<User>, StoreError> {
    store.session_user(&SessionToken::hash_of(token), now).await
}

/// Ends a browser session. Ending an unknown or already ended session is not an error.
pub async fn sign_out(store: &Store, token: &str) -> Result<(), StoreError> {
    store.delete_session(&SessionToken::hash_of(token)).await
}

/// Why a presented API key was refused. The variants are for logs; callers
/// answer all of them with the same 401.
#[derive(Debug, thiserror::Error)]
pub enum ApiKeyRejected {
    #[error("the credential is not an API key")]
    Malformed,
    #[error("no such API key")]
    Unknown,
    #[error("the API key expired")]
    Expired,
    #[error("the API key was revoked")]
    Revoked,
    #[error("the API key's user is disabled")]
    UserDisabled,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The key and the user it acts for, if `presented` is a valid key now.
/// Records the use.
pub async fn authenticate_api_key(
    store: &Store,
    presented: &str,
    now: Timestamp,
) -> Result<(ApiKey, User), ApiKeyRejected> {
    if !is_well_formed(presented) {
        return Err(ApiKeyRejected::Malformed);
    }
    let key = store
        .api_key_by_hash(&hash_key(presented))
        .await?
        .ok_or(ApiKeyRejected::Unknown)?;
    if key.revoked_at.is_some() {
        return Err(ApiKeyRejected::Revoked);
    }
    if key.expires_at.is_some_and(|end| end <= now) {
        return Err(ApiKeyRejected::Expired);
    }
    let user = store
        .user(key.user_id)
        .await?
        .ok_or(ApiKeyRejected::Unknown)?;
    if user.disabled_at.is_some() {
        return Err(ApiKeyRejected::UserDisabled);
    }
    store.touch_api_key(key.id, now).await?;
    Ok((key, user))
}

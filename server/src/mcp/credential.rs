//! Who is calling: every MCP request carries `Authorization: Bearer` with an
//! API key or an OAuth access token Cassis issued for this resource. Anything
//! else is answered with 401 and a pointer to the protected-resource
//! metadata, before the MCP layer sees the request.

use crate::availability::{self, Unreachable};
use crate::router::AppState;
use crate::{clock, oauth};
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, RETRY_AFTER, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cassis_core::account::User;
use cassis_core::auth;
use cassis_core::auth::oauth::{MCP_SCOPE, looks_like_jwt};
use cassis_core::service::credentials::{self, ApiKeyRejected};
use cassis_core::time::Timestamp;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How long a verified key is trusted without asking the database again.
/// On PostgreSQL every instance also hears of a revoked key, grant or user
/// at once (see [`crate::changes`]); this bounds what a missed notice costs.
const KEY_CACHE_TTL: Duration = Duration::from_secs(5);
/// Past this many cached keys the cache starts over, so a flood of distinct
/// keys cannot grow memory.
const KEY_CACHE_CAPACITY: usize = 10_000;

/// Keys verified in the last few seconds, by their SHA-256 hash, so a busy
/// agent's requests skip the database (and the last-use write) per call.
#[derive(Clone, Debug)]
pub struct KeyCache(Arc<Cached>);

#[derive(Debug)]
struct Cached {
    keys: Mutex<HashMap<[u8; 32], CachedKey>>,
    /// Bumped by every [`KeyCache::clear`]: a caller verified against the
    /// database before a clear is not cached after it, or a revocation
    /// heard while the check ran would be undone.
    generation: AtomicU64,
    /// Whether changes made elsewhere are heard. While they are not (the
    /// listening connection is lost), nothing is served from the cache.
    heard: AtomicBool,
}

impl Default for KeyCache {
    fn default() -> Self {
        Self(Arc::new(Cached {
            keys: Mutex::default(),
            generation: AtomicU64::new(0),
            heard: AtomicBool::new(true),
        }))
    }
}

#[derive(Clone, Debug)]
struct CachedKey {
    caller: Caller,
    expires_at: Option<Timestamp>,
    verified: Instant,
}

impl KeyCache {
    fn get(&self, hash: &[u8; 32], now: Timestamp) -> Option<Caller> {
        if !self.0.heard.load(Ordering::Acquire) {
            return None;
        }
        let cache = self.0.keys.lock().expect("not poisoned");
        let cached = cache.get(hash)?;
        let fresh = cached.verified.elapsed() < KEY_CACHE_TTL
            && cached.expires_at.is_none_or(|end| now < end);
        fresh.then(|| cached.caller.clone())
    }

    /// Drops every cached access token of a revoked grant, so revocation
    /// takes effect at once on this instance.
    pub fn forget_grant(&self, grant: Uuid) {
        self.0
            .keys
            .lock()
            .expect("not poisoned")
            .retain(|_, cached| cached.caller.grant_id != Some(grant));
    }

    /// Drops every cached credential: a key, grant or user changed.
    pub fn clear(&self) {
        let mut keys = self.0.keys.lock().expect("not poisoned");
        self.0.generation.fetch_add(1, Ordering::AcqRel);
        keys.clear();
    }

    /// Whether changes made by other instances are heard; while they are
    /// not, every request asks the database.
    pub fn set_heard(&self, heard: bool) {
        self.clear();
        self.0.heard.store(heard, Ordering::Release);
    }

    /// The generation to pass to [`KeyCache::put`], read before the
    /// database is asked.
    fn generation(&self) -> u64 {
        self.0.generation.load(Ordering::Acquire)
    }

    fn put(&self, hash: [u8; 32], caller: Caller, expires_at: Option<Timestamp>, generation: u64) {
        let mut cache = self.0.keys.lock().expect("not poisoned");
        if self.0.generation.load(Ordering::Acquire) != generation {
            return;
        }
        if cache.len() >= KEY_CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(
            hash,
            CachedKey {
                caller,
                expires_at,
                verified: Instant::now(),
            },
        );
    }
}

/// The authenticated principal of one MCP request, put in the request's
/// extensions for the tools.
#[derive(Clone, Debug)]
pub struct Caller {
    /// Shared, so a cached caller is handed to a request for a reference count.
    pub user: Arc<User>,
    /// The API key used; `None` for an OAuth access token.
    pub api_key_id: Option<Uuid>,
    /// The OAuth grant of an access token; `None` for an API key.
    pub grant_id: Option<Uuid>,
    /// This request's: set by a tool that could not reach the database.
    pub unreachable: Unreachable,
}

pub async fn require_credential(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    if state.availability.is_down() {
        return availability::unavailable();
    }
    let mut caller = match authenticate(&state, request.headers()).await {
        Ok(caller) => caller,
        Err(refusal) => return refusal,
    };
    if let Some(refusal) = over_limit(&state, &caller) {
        return refusal;
    }
    // A cached caller is shared; the flag is this request's own.
    let unreachable = Unreachable::default();
    caller.unreachable = unreachable.clone();
    request.extensions_mut().insert(caller);
    let response = next.run(request).await;
    if unreachable.is_set() {
        state.availability.report_down();
        return availability::unavailable();
    }
    response
}

/// Counts the call against its credential's minute; beyond it, the 429
/// with `Retry-After` that answers it. The unauthenticated conformance mode
/// has no credential to count.
fn over_limit(state: &AppState, caller: &Caller) -> Option<Response> {
    let limit = state.mcp_limit.as_ref()?;
    let credential = caller.api_key_id.or(caller.grant_id)?;
    let refused = limit.check(credential).err()?;
    metrics::counter!("cassis_mcp_rate_limited_total").increment(1);
    let seconds = refused.retry_after_secs();
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        format!("too many MCP calls with this credential; try again in {seconds} seconds"),
    )
        .into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds));
    Some(response)
}

/// The caller the request's credential speaks for, or the response that
/// refuses it.
async fn authenticate(state: &AppState, headers: &HeaderMap) -> Result<Caller, Response> {
    let challenge = || unauthorized(&state.app.public_url);
    if state.mcp_without_auth {
        return match Box::pin(first_admin(state)).await {
            Some(user) => Ok(Caller {
                user: user.into(),
                api_key_id: None,
                grant_id: None,
                unreachable: Unreachable::default(),
            }),
            None => Err(availability::unavailable()),
        };
    }
    let Some(token) = bearer_token(headers) else {
        return Err(challenge());
    };
    let now = clock::now();
    let is_api_key = auth::is_well_formed(token);
    // The raw digest, not its hex: no allocation on the cached path.
    let hash = (is_api_key || looks_like_jwt(token)).then(|| auth::key_digest(token));
    if let Some(caller) = hash.as_ref().and_then(|h| state.key_cache.get(h, now)) {
        return Ok(caller);
    }
    let generation = state.key_cache.generation();
    if let (false, Some(hash)) = (is_api_key, hash) {
        // The slow paths are boxed: their futures hold database queries, and
        // an unboxed one would make every cached request's future as large.
        return match Box::pin(access_token_caller(state, token, now)).await {
            Ok((caller, expires_at)) => {
                state
                    .key_cache
                    .put(hash, caller.clone(), Some(expires_at), generation);
                Ok(caller)
            }
            Err(AccessRefused::Unavailable(error)) => {
                state.availability.report(&error);
                Err(availability::unavailable())
            }
            Err(AccessRefused::Scope) => Err(insufficient_scope(&state.app.public_url)),
            Err(AccessRefused::Invalid(reason)) => {
                tracing::info!(%reason, "refused an MCP access token");
                Err(challenge())
            }
        };
    }
    match Box::pin(credentials::authenticate_api_key(state.store(), token, now)).await {
        Ok((key, user)) => {
            let caller = Caller {
                user: user.into(),
                api_key_id: Some(key.id),
                grant_id: None,
                unreachable: Unreachable::default(),
            };
            if let Some(hash) = hash {
                state
                    .key_cache
                    .put(hash, caller.clone(), key.expires_at, generation);
            }
            Ok(caller)
        }
        Err(ApiKeyRejected::Store(error)) => {
            tracing::error!(%error, "checking an API key failed");
            state.availability.report(&error);
            Err(availability::unavailable())
        }
        Err(reason) => {
            // The reason is for the operator; the caller learns nothing more
            // than that the credential does not work.
            tracing::info!(%reason, "refused an MCP credential");
            Err(challenge())
        }
    }
}

enum AccessRefused {
    Invalid(String),
    Scope,
    Unavailable(cassis_core::store::StoreError),
}

/// The caller an OAuth access token speaks for: signed by one of our keys,
/// for this issuer and resource, unexpired, carrying the MCP scope, and its
/// grant and user still in good standing.
async fn access_token_caller(
    state: &AppState,
    token: &str,
    now: Timestamp,
) -> Result<(Caller, Timestamp), AccessRefused> {
    let unavailable = |error: cassis_core::store::StoreError| {
        tracing::error!(%error, "checking an access token failed");
        AccessRefused::Unavailable(error)
    };
    let public_url = &state.app.public_url;
    let keys = state
        .oauth
        .keys
        .for_token(state.store(), token, now)
        .await
        .map_err(unavailable)?;
    let claims = keys
        .verifying
        .verify(
            token,
            &oauth::issuer(public_url),
            &oauth::resource(public_url),
        )
        .map_err(|e| AccessRefused::Invalid(e.to_string()))?;
    if !claims.scope.split_whitespace().any(|s| s == MCP_SCOPE) {
        return Err(AccessRefused::Scope);
    }
    let invalid = |why: &str| AccessRefused::Invalid(why.to_owned());
    let grant_id = Uuid::parse_str(&claims.gid).map_err(|_| invalid("no grant id"))?;
    let grant = state
        .store()
        .oauth_grant(grant_id)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| invalid("unknown grant"))?;
    if grant.revoked_at.is_some() || grant.user_id.to_string() != claims.sub {
        return Err(invalid("the grant was revoked"));
    }
    let user = state
        .store()
        .user(grant.user_id)
        .await
        .map_err(unavailable)?
        .filter(|user| user.disabled_at.is_none() && user.organization_id.to_string() == claims.org)
        .ok_or_else(|| invalid("the user is disabled"))?;
    // At most once per cache lifetime per token: what "last used" shows.
    if let Err(error) = state.store().touch_oauth_grant(grant_id, now).await {
        tracing::warn!(%error, "recording a grant's use failed");
    }
    let expires_at = Timestamp::from_millis((claims.exp as i64).saturating_mul(1000));
    Ok((
        Caller {
            user: user.into(),
            api_key_id: None,
            grant_id: Some(grant_id),
            unreachable: Unreachable::default(),
        },
        expires_at,
    ))
}

async fn first_admin(state: &AppState) -> Option<User> {
    let org = state.store().first_organization().await.ok()??;
    state.store().first_admin(org.id).await.ok()?
}

/// The token of an `Authorization: Bearer TOKEN` header; the scheme is
/// case-insensitive (RFC 7235).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

pub fn resource_metadata_url(public_url: &str) -> String {
    format!("{public_url}/.well-known/oauth-protected-resource/mcp/")
}

/// A valid token without the MCP scope (RFC 6750 §3.1).
fn insufficient_scope(public_url: &str) -> Response {
    let challenge = format!(
        "Bearer error=\"insufficient_scope\", scope=\"{MCP_SCOPE}\", resource_metadata=\"{}\"",
        resource_metadata_url(public_url)
    );
    let mut response = (
        StatusCode::FORBIDDEN,
        "the access token does not carry the mcp scope",
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

fn unauthorized(public_url: &str) -> Response {
    let challenge = format!(
        "Bearer resource_metadata=\"{}\"",
        resource_metadata_url(public_url)
    );
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "a valid credential is required: Authorization: Bearer with an API key (sk-k6-...) or an OAuth access token",
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::{Caller, KeyCache, Unreachable, bearer_token};
    use axum::http::{HeaderMap, HeaderValue, header::AUTHORIZATION};
    use cassis_core::account::{Email, Role, User};
    use cassis_core::time::Timestamp;
    use uuid::Uuid;

    const NOW: Timestamp = Timestamp::from_millis(1_790_000_000_000);

    fn caller() -> Caller {
        Caller {
            user: User {
                id: Uuid::new_v4(),
                organization_id: Uuid::new_v4(),
                email: Email::parse("ada@example.com").unwrap(),
                role: Role::Viewer,
                created_at: NOW,
                disabled_at: None,
            }
            .into(),
            api_key_id: Some(Uuid::new_v4()),
            grant_id: None,
            unreachable: Unreachable::default(),
        }
    }

    #[test]
    fn a_check_that_began_before_a_clear_is_not_cached_after_it() {
        let cache = KeyCache::default();
        let before = cache.generation();
        cache.put([1; 32], caller(), None, before);
        assert!(cache.get(&[1; 32], NOW).is_some());
        // A key is revoked while another request checks a key against the
        // database: what that check read may be from before the revocation.
        let checking = cache.generation();
        cache.clear();
        assert!(cache.get(&[1; 32], NOW).is_none());
        cache.put([2; 32], caller(), None, checking);
        assert!(cache.get(&[2; 32], NOW).is_none());
        cache.put([2; 32], caller(), None, cache.generation());
        assert!(cache.get(&[2; 32], NOW).is_some());
    }

    #[test]
    fn nothing_is_served_from_the_cache_while_changes_go_unheard() {
        let cache = KeyCache::default();
        cache.put([1; 32], caller(), None, cache.generation());
        cache.set_heard(false);
        assert!(cache.get(&[1; 32], NOW).is_none());
        cache.put([1; 32], caller(), None, cache.generation());
        assert!(cache.get(&[1; 32], NOW).is_none());
        // Heard again: what was cached meanwhile is dropped too.
        cache.set_heard(true);
        assert!(cache.get(&[1; 32], NOW).is_none());
        cache.put([1; 32], caller(), None, cache.generation());
        assert!(cache.get(&[1; 32], NOW).is_some());
    }

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn only_bearer_tokens_are_read() {
        assert_eq!(
            bearer_token(&headers("Bearer sk-k6-abc")),
            Some("sk-k6-abc")
        );
        assert_eq!(
            bearer_token(&headers("bearer sk-k6-abc")),
            Some("sk-k6-abc")
        );
        assert_eq!(bearer_token(&headers("Basic dXNlcjpwYXNz")), None);
        assert_eq!(bearer_token(&headers("Bearer ")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }
}

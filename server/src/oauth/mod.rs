//! Cassis as the OAuth 2.1 authorization server of its own MCP endpoint,
//! following the MCP authorization specification: protected-resource and
//! authorization-server metadata, client registration (dynamic or by
//! metadata document), the authorization-code flow with PKCE and a consent
//! page, rotating refresh tokens, revocation, and JWT access tokens that the
//! MCP endpoint verifies. The rules live in `cassis_core::auth::oauth`.

mod authorize;
mod clients;
mod fetch;
mod keys;
pub mod limits;
mod metadata;
mod token;

pub use keys::KeyRing;

use crate::error::ApiError;
pub(crate) use crate::error::no_store;
use crate::router::AppState;
use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use cassis_core::auth::oauth::OAuthError;
use std::time::Duration;

/// Registrations one client address may make: ten at once, then one every
/// thirty seconds. A real client registers once per connection it sets up.
const REGISTRATION_BURST: u32 = 10;
const REGISTRATION_PERIOD: Duration = Duration::from_secs(30);

/// Registered clients that were never used kept at most, unless configured.
pub const DEFAULT_MAX_UNUSED_CLIENTS: usize = 1000;

/// OAuth state shared by every request.
#[derive(Debug)]
pub struct OAuthState {
    pub keys: KeyRing,
    pub fetcher: fetch::MetadataFetcher,
    /// Registrations per client address.
    pub registrations: limits::AddressLimit,
    /// Registered clients no authorization code was issued to, kept at most.
    pub max_unused_clients: usize,
}

impl Default for OAuthState {
    /// With a secret of its own, which nothing else knows: keys it seals are
    /// readable by this process only (for tests of the router alone).
    fn default() -> Self {
        let sealing = cassis_core::auth::oauth::SealingKey::from_secret(
            &cassis_core::auth::oauth::SealingKey::generate_secret(),
        )
        .expect("a generated secret is long enough");
        Self::new(DEFAULT_MAX_UNUSED_CLIENTS, sealing)
    }
}

impl OAuthState {
    pub fn new(max_unused_clients: usize, sealing: cassis_core::auth::oauth::SealingKey) -> Self {
        Self {
            keys: KeyRing::new(sealing),
            fetcher: fetch::MetadataFetcher::default(),
            registrations: limits::AddressLimit::new(REGISTRATION_BURST, REGISTRATION_PERIOD),
            max_unused_clients,
        }
    }
}

/// Endpoints that clients call from anywhere without a cookie, so the
/// same-origin rule for browser writes does not apply to them.
pub fn is_cross_origin_endpoint(path: &str) -> bool {
    matches!(path, "/oauth/token" | "/oauth/register" | "/oauth/revoke")
}

/// The authorization server's identifier: the public URL, byte for byte the
/// same in both metadata documents and every token.
pub fn issuer(public_url: &str) -> String {
    public_url.to_owned()
}

/// The MCP endpoint as a protected resource: what tokens are bound to.
pub fn resource(public_url: &str) -> String {
    format!("{public_url}/mcp/")
}

/// Whether a `resource` parameter (RFC 8707) names the MCP endpoint, with or
/// without its trailing slash.
fn names_mcp_resource(public_url: &str, asked: &str) -> bool {
    let canonical = resource(public_url);
    asked == canonical || asked == canonical.trim_end_matches('/')
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/.well-known/oauth-protected-resource",
            get(metadata::protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(metadata::protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp/",
            get(metadata::protected_resource),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(metadata::authorization_server),
        )
        .route(
            "/.well-known/openid-configuration",
            get(metadata::authorization_server),
        )
        .route("/oauth/jwks.json", get(metadata::jwks))
        .route("/oauth/register", post(clients::register))
        .route(
            "/oauth/authorize",
            get(authorize::show).post(authorize::decide),
        )
        .route("/oauth/token", post(token::token))
        .route("/oauth/revoke", post(token::revoke))
}

/// An OAuth error the client is told, never cached.
fn oauth_error(status: StatusCode, error: OAuthError, description: &str) -> Response {
    ApiError::oauth(status, error, description).into_response()
}

/// `429 Too Many Requests` as an OAuth error, with `Retry-After`.
fn too_many(refused: limits::TooMany, description: &str) -> Response {
    let mut response = oauth_error(
        StatusCode::TOO_MANY_REQUESTS,
        OAuthError::TemporarilyUnavailable,
        description,
    );
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(refused.retry_after_secs()),
    );
    response
}

//! Cassis as the OAuth 2.1 authorization server of its own MCP endpoint,
//! following the MCP authorization specification: protected-resource and
//! authorization-server metadata, client registration (dynamic or by
//! metadata document), the authorization-code flow with PKCE and a consent
//! page, rotating refresh tokens, revocation, and JWT access tokens that the
//! MCP endpoint verifies. The rules live in `cassis_core::auth::oauth`.

mod authorize;
mod clients;
mod keys;
mod metadata;
mod token;

pub use keys::KeyRing;

use crate::router::AppState;
use axum::Json;
use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

/// OAuth state shared by every request: cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct OAuthState {
    pub keys: KeyRing,
    pub fetcher: clients::MetadataFetcher,
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

/// An OAuth error body (RFC 6749 §5.2), never cached.
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    no_store(
        (
            status,
            Json(serde_json::json!({"error": error, "error_description": description})),
        )
            .into_response(),
    )
}

/// Token responses must not be cached (RFC 6749 §5.1).
fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

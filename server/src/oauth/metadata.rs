//! Discovery: protected-resource metadata (RFC 9728), authorization-server
//! metadata (RFC 8414, also at the OpenID path) and the JWKS.

use super::{issuer, resource};
use crate::clock;
use crate::router::AppState;
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use cassis_core::auth::oauth::MCP_SCOPE;
use serde_json::json;

pub async fn protected_resource(State(state): State<AppState>) -> Response {
    let public_url = &state.app.public_url;
    Json(json!({
        "resource": resource(public_url),
        "authorization_servers": [issuer(public_url)],
        "scopes_supported": [MCP_SCOPE],
        "bearer_methods_supported": ["header"],
        "resource_name": "Cassis",
    }))
    .into_response()
}

pub async fn authorization_server(State(state): State<AppState>) -> Response {
    let public_url = &state.app.public_url;
    Json(json!({
        "issuer": issuer(public_url),
        "authorization_endpoint": format!("{public_url}/oauth/authorize"),
        "token_endpoint": format!("{public_url}/oauth/token"),
        "registration_endpoint": format!("{public_url}/oauth/register"),
        "revocation_endpoint": format!("{public_url}/oauth/revoke"),
        "jwks_uri": format!("{public_url}/oauth/jwks.json"),
        "scopes_supported": [MCP_SCOPE],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "client_id_metadata_document_supported": true,
    }))
    .into_response()
}

pub async fn jwks(State(state): State<AppState>) -> Response {
    match state.oauth.keys.get(state.store(), clock::now()).await {
        Ok(loaded) => Json(json!({
            "keys": loaded.all.iter().map(|key| key.jwk()).collect::<Vec<_>>()
        }))
        .into_response(),
        Err(error) => {
            crate::error::ApiError::unavailable("reading the signing keys", error).into_response()
        }
    }
}

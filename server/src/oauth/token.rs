//! `/oauth/token` (authorization code with PKCE, refresh with rotation) and
//! `/oauth/revoke` (RFC 7009). Every failure is an RFC 6749 error body.

use super::clients::{ClientLookupError, find_client};
use super::limits::{ClientAddress, TooMany};
use super::{issuer, names_mcp_resource, no_store, oauth_error, resource, too_many};
use crate::clock;
use crate::error::ApiError;
use crate::router::AppState;
use axum::Form;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use cassis_core::auth::hash_key;
use cassis_core::auth::oauth::{ACCESS_TOKEN_LIFETIME, AccessClaims, OAuthError, looks_like_jwt};
use cassis_core::service::oauth_grants::{GrantRefused, Issued};
use cassis_core::store::StoreError;
use cassis_core::time::Timestamp;
use serde::Deserialize;
use serde_json::json;
use std::net::IpAddr;
use uuid::Uuid;

#[derive(Debug, Default, Deserialize)]
pub struct TokenRequest {
    grant_type: Option<String>,
    client_id: Option<String>,
    code: Option<String>,
    redirect_uri: Option<String>,
    code_verifier: Option<String>,
    refresh_token: Option<String>,
    resource: Option<String>,
}

pub async fn token(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    Form(request): Form<TokenRequest>,
) -> Response {
    let outcome = match request.grant_type.as_deref() {
        Some("authorization_code") => exchange_code(&state, &request, address).await,
        Some("refresh_token") => refresh(&state, &request, address).await,
        Some(other) => Err(TokenError::Grant(
            OAuthError::UnsupportedGrantType,
            format!("the grant type `{other}` is not supported"),
        )),
        None => Err(TokenError::Request("grant_type is required".to_owned())),
    };
    match outcome {
        Ok(response) => response,
        Err(TokenError::Request(description)) => oauth_error(
            StatusCode::BAD_REQUEST,
            OAuthError::InvalidRequest,
            &description,
        ),
        Err(TokenError::Grant(code, description)) => {
            tracing::info!(error = %code, %description, "refused a token request");
            oauth_error(StatusCode::BAD_REQUEST, code, &description)
        }
        Err(TokenError::Client(description)) => oauth_error(
            StatusCode::UNAUTHORIZED,
            OAuthError::InvalidClient,
            &description,
        ),
        Err(TokenError::TooMany(refused)) => too_many(
            refused,
            "too many client metadata documents fetched for this address; try again later",
        ),
        Err(TokenError::Store(error)) => {
            ApiError::oauth_unavailable("a token request's database work", error).into_response()
        }
    }
}

enum TokenError {
    Request(String),
    /// An error of RFC 6749 §5.2 and its description.
    Grant(OAuthError, String),
    Client(String),
    /// This address started too many metadata document fetches.
    TooMany(TooMany),
    Store(StoreError),
}

impl From<StoreError> for TokenError {
    fn from(error: StoreError) -> Self {
        TokenError::Store(error)
    }
}

fn invalid_grant(description: &str) -> TokenError {
    TokenError::Grant(OAuthError::InvalidGrant, description.to_owned())
}

fn required<'a>(value: &'a Option<String>, name: &str) -> Result<&'a str, TokenError> {
    value
        .as_deref()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| TokenError::Request(format!("{name} is required")))
}

async fn client_of(
    state: &AppState,
    request: &TokenRequest,
    address: Option<IpAddr>,
) -> Result<String, TokenError> {
    let client_id = required(&request.client_id, "client_id")?;
    match find_client(state, client_id, address).await {
        Ok(client) => Ok(client.id),
        Err(ClientLookupError::Store(error)) => Err(TokenError::Store(error)),
        Err(ClientLookupError::TooManyFetches(refused)) => Err(TokenError::TooMany(refused)),
        Err(error) => Err(TokenError::Client(error.to_string())),
    }
}

fn check_resource(state: &AppState, request: &TokenRequest) -> Result<(), TokenError> {
    match request.resource.as_deref() {
        None => Ok(()),
        Some(asked) if names_mcp_resource(&state.app.public_url, asked) => Ok(()),
        Some(_) => Err(TokenError::Grant(
            OAuthError::InvalidTarget,
            "resource must be this server's MCP endpoint".to_owned(),
        )),
    }
}

async fn exchange_code(
    state: &AppState,
    request: &TokenRequest,
    address: Option<IpAddr>,
) -> Result<Response, TokenError> {
    let client_id = client_of(state, request, address).await?;
    let code = required(&request.code, "code")?;
    let verifier = required(&request.code_verifier, "code_verifier")?;
    let redirect_uri = required(&request.redirect_uri, "redirect_uri")?;
    check_resource(state, request)?;
    let now = clock::now();
    let issued = state
        .app
        .services()
        .redeem_code(&client_id, code, redirect_uri, verifier, now)
        .await;
    token_response(state, refused_unless_issued(state, issued)?, now).await
}

async fn refresh(
    state: &AppState,
    request: &TokenRequest,
    address: Option<IpAddr>,
) -> Result<Response, TokenError> {
    let client_id = client_of(state, request, address).await?;
    let presented = required(&request.refresh_token, "refresh_token")?;
    check_resource(state, request)?;
    let now = clock::now();
    let issued = state
        .app
        .services()
        .refresh_grant(&client_id, presented, now)
        .await;
    token_response(state, refused_unless_issued(state, issued)?, now).await
}

/// A refused grant as the token endpoint answers it; a replay's grant is
/// revoked, so the credentials cached for it go too.
fn refused_unless_issued(
    state: &AppState,
    issued: Result<Issued, GrantRefused>,
) -> Result<Issued, TokenError> {
    match issued {
        Ok(issued) => Ok(issued),
        Err(GrantRefused::Replayed { grant, reason }) => {
            state.key_cache.forget_grant(grant);
            Err(invalid_grant(reason))
        }
        Err(GrantRefused::Invalid(description)) => Err(invalid_grant(&description)),
        Err(GrantRefused::Store(error)) => Err(TokenError::Store(error)),
    }
}

async fn token_response(
    state: &AppState,
    issued: Issued,
    now: Timestamp,
) -> Result<Response, TokenError> {
    let keys = state.oauth.keys.get(state.store(), now).await?;
    let issued_at = (now.as_millis() / 1000) as u64;
    let claims = AccessClaims {
        iss: issuer(&state.app.public_url),
        sub: issued.user_id.to_string(),
        aud: resource(&state.app.public_url),
        exp: issued_at + ACCESS_TOKEN_LIFETIME.as_secs(),
        iat: issued_at,
        jti: Uuid::new_v4().to_string(),
        org: issued.organization_id.to_string(),
        client_id: issued.client_id,
        scope: issued.scope.clone(),
        gid: issued.grant.to_string(),
    };
    Ok(no_store(
        Json(json!({
            "access_token": keys.signing.sign(&claims),
            "token_type": "Bearer",
            "expires_in": ACCESS_TOKEN_LIFETIME.as_secs(),
            "refresh_token": issued.refresh_token.expose(),
            "scope": issued.scope,
        }))
        .into_response(),
    ))
}

#[derive(Debug, Deserialize)]
pub struct RevokeRequest {
    token: Option<String>,
}

/// Ends the grant behind an access or refresh token. Unknown tokens are not
/// an error (RFC 7009 §2.2), so the answer reveals nothing.
pub async fn revoke(State(state): State<AppState>, Form(request): Form<RevokeRequest>) -> Response {
    let Some(token) = request.token.filter(|t| !t.is_empty()) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            OAuthError::InvalidRequest,
            "token is required",
        );
    };
    let now = clock::now();
    let grant = if looks_like_jwt(&token) {
        match state.oauth.keys.for_token(state.store(), &token, now).await {
            Ok(keys) => keys
                .verifying
                .verify(
                    &token,
                    &issuer(&state.app.public_url),
                    &resource(&state.app.public_url),
                )
                .ok()
                .and_then(|claims| Uuid::parse_str(&claims.gid).ok()),
            Err(error) => return unavailable(error),
        }
    } else {
        match state.store().refresh_token_grant(&hash_key(&token)).await {
            Ok(grant) => grant,
            Err(error) => return unavailable(error),
        }
    };
    if let Some(grant) = grant {
        if let Err(error) = state.store().revoke_oauth_grant(grant, now).await {
            return unavailable(error);
        }
        state.key_cache.forget_grant(grant);
        tracing::info!(%grant, "revoked an OAuth grant");
    }
    no_store(StatusCode::OK.into_response())
}

fn unavailable(error: StoreError) -> Response {
    ApiError::oauth_unavailable("a revocation's database work", error).into_response()
}

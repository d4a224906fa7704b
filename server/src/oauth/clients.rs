//! Who the clients are: dynamic registration (RFC 7591) and client ids that
//! are the https URL of a metadata document, fetched with limits and kept.

use super::{no_store, oauth_error};
use crate::clock;
use crate::router::AppState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use cassis_core::auth::oauth::{
    ClientKind, ClientRegistration, OAuthClient, is_client_metadata_url, parse_metadata_document,
};
use cassis_core::store::StoreError;
use cassis_core::time::Timestamp;
use serde_json::json;
use std::time::Duration;

/// A metadata document is small; anything bigger is refused unread.
const MAX_DOCUMENT_BYTES: usize = 64 * 1024;
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// A fetched document is used this long before it is fetched again.
const DOCUMENT_TTL: Duration = Duration::from_secs(60 * 60);

/// `POST /oauth/register`: a public client, its id returned once.
pub async fn register(State(state): State<AppState>, body: Bytes) -> Response {
    let request: ClientRegistration = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                &format!("the registration request is not valid JSON: {error}"),
            );
        }
    };
    let now = clock::now();
    let id = format!("cassis-{}", uuid::Uuid::new_v4().simple());
    let client = match request.into_client(id, ClientKind::Registered, now) {
        Ok(client) => client,
        Err(invalid) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                invalid.error_code(),
                &invalid.to_string(),
            );
        }
    };
    if let Err(error) = state.store().save_oauth_client(&client, now).await {
        tracing::error!(%error, "storing a registered client failed");
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    tracing::info!(client_id = %client.id, client_name = %client.name, "registered an OAuth client");
    no_store(
        (
            StatusCode::CREATED,
            Json(json!({
                "client_id": client.id,
                "client_id_issued_at": now.as_millis() / 1000,
                "client_name": client.name,
                "redirect_uris": client.redirect_uris,
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            })),
        )
            .into_response(),
    )
}

#[derive(Debug, thiserror::Error)]
pub enum ClientLookupError {
    #[error("no client is registered with this id")]
    Unknown,
    #[error("the client's metadata document could not be used: {0}")]
    Document(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The client `client_id` names: registered, or a metadata document fetched
/// now if never seen or stale.
pub async fn find_client(
    state: &AppState,
    client_id: &str,
) -> Result<OAuthClient, ClientLookupError> {
    let now = clock::now();
    let stored = state.store().oauth_client(client_id).await?;
    if !is_client_metadata_url(client_id) {
        return stored
            .map(|(client, _)| client)
            .ok_or(ClientLookupError::Unknown);
    }
    let fresh = |fetched: Option<Timestamp>| {
        fetched.is_some_and(|at| now.as_millis() - at.as_millis() < DOCUMENT_TTL.as_millis() as i64)
    };
    if let Some((client, fetched)) = &stored
        && fresh(*fetched)
    {
        return Ok(client.clone());
    }
    let body = state
        .oauth
        .fetcher
        .fetch(client_id)
        .await
        .map_err(ClientLookupError::Document)?;
    let mut client = parse_metadata_document(client_id, &body, now)
        .map_err(|e| ClientLookupError::Document(e.to_string()))?;
    if let Some((known, _)) = stored {
        client.created_at = known.created_at;
    }
    state.store().save_oauth_client(&client, now).await?;
    Ok(client)
}

/// Fetches client metadata documents: https only, no redirects, a size cap
/// and a short timeout, since the URL comes from whoever starts a flow.
#[derive(Clone, Debug)]
pub struct MetadataFetcher(reqwest::Client);

impl Default for MetadataFetcher {
    fn default() -> Self {
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .https_only(true)
            .user_agent(concat!("cassis/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the TLS backend initialises");
        Self(client)
    }
}

impl MetadataFetcher {
    async fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        let mut response = self
            .0
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("fetching it failed: {e}"))?;
        if !response.status().is_success() {
            return Err(format!(
                "fetching it returned HTTP {}",
                response.status().as_u16()
            ));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("reading it failed: {e}"))?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_DOCUMENT_BYTES {
                return Err(format!("it is larger than {MAX_DOCUMENT_BYTES} bytes"));
            }
        }
        Ok(body)
    }
}

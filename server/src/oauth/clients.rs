//! Who the clients are: dynamic registration (RFC 7591) and client ids that
//! are the https URL of a metadata document, fetched with limits and kept.

use super::fetch::FetchFailure;
use super::limits::{ClientAddress, TooMany};
use super::{no_store, oauth_error, too_many};
use crate::clock;
use crate::error::ApiError;
use crate::router::AppState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use cassis_core::auth::oauth::OAuthError;
use cassis_core::auth::oauth::{
    ClientKind, ClientRegistration, OAuthClient, is_client_metadata_url, parse_metadata_document,
};
use cassis_core::store::StoreError;
use cassis_core::time::Timestamp;
use serde_json::json;
use std::net::IpAddr;
use std::time::Duration;

/// A fetched document is used this long before it is fetched again.
const DOCUMENT_TTL: Duration = Duration::from_secs(60 * 60);

/// A registration that no authorization code was issued to within a day was
/// abandoned: it is forgotten, so that it no longer counts against
/// `--oauth-max-unused-clients`.
const UNUSED_CLIENT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// `POST /oauth/register`: a public client, its id returned once.
///
/// Registering needs no credential and stores a row, so each client address
/// may register only so often, and Cassis keeps at most
/// `--oauth-max-unused-clients` registrations that no authorization code was
/// ever issued to. Beyond that it refuses rather than evicting: evicting
/// would let a flood of registrations cancel the sign-in of a real client
/// that registered a moment earlier, while a refusal leaves every client that
/// is already connected, and every metadata-document client, working.
/// Unused registrations are forgotten after a day, which ends the refusal.
pub async fn register(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    body: Bytes,
) -> Response {
    if let Err(refused) = state.oauth.registrations.check(address) {
        tracing::warn!(
            ?address,
            "refused a client registration: too many from this address"
        );
        return too_many(
            refused,
            "too many client registrations from this address; try again later",
        );
    }
    let request: ClientRegistration = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                OAuthError::InvalidClientMetadata,
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
    match room_for_a_client(&state, now).await {
        Ok(true) => {}
        Ok(false) => {
            let max = state.oauth.max_unused_clients;
            tracing::warn!(
                max,
                "refused a client registration: too many unused registrations"
            );
            return oauth_error(
                StatusCode::SERVICE_UNAVAILABLE,
                OAuthError::TemporarilyUnavailable,
                &format!(
                    "Cassis already keeps {max} client registrations that were never used, \
                     the most it keeps; unused registrations are forgotten after a day. \
                     Try again later, or use the URL of a client metadata document as client_id."
                ),
            );
        }
        Err(error) => {
            return ApiError::unavailable("counting unused clients", error).into_response();
        }
    }
    if let Err(error) = state.store().save_oauth_client(&client, now).await {
        return ApiError::unavailable("storing a registered client", error).into_response();
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

/// Whether one more unused registration fits, after forgetting those
/// abandoned for [`UNUSED_CLIENT_TTL`].
async fn room_for_a_client(state: &AppState, now: Timestamp) -> Result<bool, StoreError> {
    let before = Timestamp::from_millis(now.as_millis() - UNUSED_CLIENT_TTL.as_millis() as i64);
    let forgotten = state.store().delete_unused_oauth_clients(before).await?;
    if forgotten > 0 {
        tracing::info!(
            clients = forgotten,
            "forgot client registrations that were never used"
        );
    }
    let unused = state.store().count_unused_oauth_clients().await?;
    Ok(unused < i64::try_from(state.oauth.max_unused_clients).unwrap_or(i64::MAX))
}

#[derive(Debug, thiserror::Error)]
pub enum ClientLookupError {
    #[error("no client is registered with this id")]
    Unknown,
    /// Whatever went wrong (a refused address, DNS, a timeout, the status,
    /// the size, the JSON): the reason is logged, never shown, or the
    /// answers would map the network Cassis runs in.
    #[error("its client metadata document could not be fetched or used")]
    Document,
    #[error("this address started too many metadata document fetches")]
    TooManyFetches(TooMany),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The client `client_id` names: registered, or a metadata document fetched
/// now, for a request from `address`, if never seen or stale.
pub async fn find_client(
    state: &AppState,
    client_id: &str,
    address: Option<IpAddr>,
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
    let fetcher = &state.oauth.fetcher;
    if fetcher.failed_recently(client_id) {
        return Err(ClientLookupError::Document);
    }
    fetcher
        .admit(address)
        .map_err(ClientLookupError::TooManyFetches)?;
    let mut client = match fetch_document(state, client_id, now).await {
        Ok(client) => client,
        Err(reason) => {
            tracing::warn!(client_id, ?address, %reason, "a client metadata document could not be used");
            fetcher.remember_failure(client_id);
            return Err(ClientLookupError::Document);
        }
    };
    if let Some((known, _)) = stored {
        client.created_at = known.created_at;
    }
    state.store().save_oauth_client(&client, now).await?;
    let before = Timestamp::from_millis(now.as_millis() - UNUSED_CLIENT_TTL.as_millis() as i64);
    let forgotten = state
        .store()
        .forget_unused_metadata_clients(before, state.oauth.max_unused_clients)
        .await?;
    if forgotten > 0 {
        tracing::info!(
            clients = forgotten,
            "forgot clients read from metadata documents that were never used"
        );
    }
    Ok(client)
}

/// Why a metadata document was not used, for the log.
#[derive(Debug, thiserror::Error)]
enum DocumentFailure {
    #[error("fetching it failed: {0}")]
    Fetch(#[from] FetchFailure),
    #[error("it is not a valid client metadata document: {0}")]
    Invalid(String),
}

async fn fetch_document(
    state: &AppState,
    url: &str,
    now: Timestamp,
) -> Result<OAuthClient, DocumentFailure> {
    let body = state.oauth.fetcher.fetch(url).await?;
    parse_metadata_document(url, &body, now).map_err(|e| DocumentFailure::Invalid(e.to_string()))
}

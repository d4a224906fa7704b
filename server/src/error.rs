//! How the server's own handlers (OAuth, the ontology download, the page
//! guard) answer a failure, in one place: the OAuth error body, and "log
//! what failed, answer 503" when Cassis cannot reach its database or keys,
//! whose details the client is never told.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use cassis_core::auth::oauth::OAuthError;
use std::fmt::Display;

#[derive(Debug)]
pub enum ApiError {
    /// Something Cassis needs is unreachable: logged with what was being
    /// done, answered `503` with no body.
    Unavailable { doing: &'static str, error: String },
    /// The same on an OAuth endpoint, whose clients expect an RFC 6749 body.
    OAuthUnavailable { doing: &'static str, error: String },
    /// An OAuth error the client is told.
    OAuth {
        status: StatusCode,
        error: OAuthError,
        description: String,
    },
}

impl ApiError {
    pub fn unavailable(doing: &'static str, error: impl Display) -> Self {
        ApiError::Unavailable {
            doing,
            error: error.to_string(),
        }
    }

    pub fn oauth_unavailable(doing: &'static str, error: impl Display) -> Self {
        ApiError::OAuthUnavailable {
            doing,
            error: error.to_string(),
        }
    }

    pub fn oauth(status: StatusCode, error: OAuthError, description: impl Into<String>) -> Self {
        ApiError::OAuth {
            status,
            error,
            description: description.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Unavailable { doing, error } => {
                tracing::error!(%error, "{doing} failed");
                StatusCode::SERVICE_UNAVAILABLE.into_response()
            }
            ApiError::OAuthUnavailable { doing, error } => {
                tracing::error!(%error, "{doing} failed");
                oauth_body(
                    StatusCode::SERVICE_UNAVAILABLE,
                    OAuthError::TemporarilyUnavailable,
                    "Cassis could not reach its database",
                )
            }
            ApiError::OAuth {
                status,
                error,
                description,
            } => oauth_body(status, error, &description),
        }
    }
}

/// An OAuth error body (RFC 6749 §5.2), never cached.
fn oauth_body(status: StatusCode, error: OAuthError, description: &str) -> Response {
    no_store(
        (
            status,
            Json(serde_json::json!({"error": error.as_str(), "error_description": description})),
        )
            .into_response(),
    )
}

/// Token responses must not be cached (RFC 6749 §5.1).
pub fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

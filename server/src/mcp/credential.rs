//! Who is calling: every MCP request carries `Authorization: Bearer` with an
//! API key. Anything else is answered with 401 and a pointer to the
//! protected-resource metadata, before the MCP layer sees the request.

use crate::clock;
use crate::router::AppState;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cassis_core::account::User;
use cassis_core::auth::{self, ApiKeyRejected};
use uuid::Uuid;

/// The authenticated principal of one MCP request, put in the request's
/// extensions for the tools.
#[derive(Clone, Debug)]
pub struct Caller {
    pub user: User,
    /// The API key used; `None` for an OAuth access token.
    pub api_key_id: Option<Uuid>,
}

pub async fn require_credential(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let challenge = || unauthorized(&state.app.public_url);
    if state.mcp_without_auth {
        return match first_admin(&state).await {
            Some(user) => {
                request.extensions_mut().insert(Caller {
                    user,
                    api_key_id: None,
                });
                next.run(request).await
            }
            None => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        };
    }
    let Some(token) = bearer_token(request.headers()) else {
        return challenge();
    };
    match auth::authenticate_api_key(state.store(), token, clock::now()).await {
        Ok((key, user)) => {
            request.extensions_mut().insert(Caller {
                user,
                api_key_id: Some(key.id),
            });
            next.run(request).await
        }
        Err(ApiKeyRejected::Store(error)) => {
            tracing::error!(%error, "checking an API key failed");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
        Err(reason) => {
            // The reason is for the operator; the caller learns nothing more
            // than that the credential does not work.
            tracing::info!(%reason, "refused an MCP credential");
            challenge()
        }
    }
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

fn unauthorized(public_url: &str) -> Response {
    let challenge = format!(
        "Bearer resource_metadata=\"{}\"",
        resource_metadata_url(public_url)
    );
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "a valid credential is required: Authorization: Bearer sk-k6-...",
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::bearer_token;
    use axum::http::{HeaderMap, HeaderValue, header::AUTHORIZATION};

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

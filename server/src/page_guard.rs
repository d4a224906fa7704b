//! Pages of the admin app need a signed-in user; the login page and the
//! assets it needs do not. Server functions check the session themselves,
//! and only same-origin browsers may call them.

use crate::clock;
use crate::router::AppState;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::http::StatusCode;
use axum::http::header::{HOST, ORIGIN};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use cassis_app::ssr::session_token;
use cassis_core::service::credentials;

pub const LOGIN_PATH: &str = "/login";

fn is_public(path: &str) -> bool {
    path == LOGIN_PATH
        || path.starts_with("/api/")
        || path.starts_with("/pkg/")
        // Static files from the assets directory, such as /favicon.ico.
        || path.rsplit('/').next().is_some_and(|last| last.contains('.'))
}

pub async fn require_session(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    // Pages and server functions all read the database: while it is known
    // to be away they are told so at once (assets are still served).
    let is_asset = is_public(&path) && path != LOGIN_PATH && !path.starts_with("/api/");
    if state.availability.is_down() && !is_asset {
        return crate::availability::unavailable();
    }
    if request.method() != Method::GET || (is_public(&path) && path != LOGIN_PATH) {
        return next.run(request).await;
    }
    let user = match signed_in_user(&state, request.headers()).await {
        Ok(user) => user,
        Err(error) => {
            state.availability.report(&error);
            return crate::error::ApiError::unavailable("checking the session", error)
                .into_response();
        }
    };
    match (user, path == LOGIN_PATH) {
        // Signed in already: on to where the login page would send them.
        (Some(_), true) => {
            let next = request.uri().query().and_then(|query| {
                url::form_urlencoded::parse(query.as_bytes())
                    .find(|(name, _)| name == "next")
                    .map(|(_, value)| value.into_owned())
            });
            let destination =
                cassis_app::api::session::local_destination(next.as_deref(), &state.app.public_url)
                    .unwrap_or("/projects");
            Redirect::to(destination).into_response()
        }
        (Some(_), false) | (None, true) => next.run(request).await,
        (None, false) => Redirect::to(LOGIN_PATH).into_response(),
    }
}

/// The user whose browser session cookie the request carries, if it is valid.
pub async fn signed_in_user(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<Option<cassis_core::account::User>, cassis_core::store::StoreError> {
    match session_token(headers) {
        Some(token) => credentials::session_user(state.store(), &token, clock::now()).await,
        None => Ok(None),
    }
}

/// Refuses state-changing requests that a browser sent from another site.
/// Together with the `SameSite=Lax` session cookie this makes every form and
/// server function CSRF-safe without tokens in the markup.
pub async fn same_origin_writes(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let origin = request.headers().get(ORIGIN).and_then(|v| v.to_str().ok());
    let host = request.headers().get(HOST).and_then(|v| v.to_str().ok());
    let open_endpoint = crate::oauth::is_cross_origin_endpoint(request.uri().path());
    match origin {
        Some(origin)
            if !safe && !open_endpoint && !origin_allowed(origin, host, &state.app.public_url) =>
        {
            tracing::warn!(origin, "refused a cross-site request");
            (StatusCode::FORBIDDEN, "cross-site requests are not allowed").into_response()
        }
        _ => next.run(request).await,
    }
}

/// The origin (scheme, host, port) of the public URL, without its path.
pub fn public_origin(public_url: &str) -> Option<String> {
    url::Url::parse(public_url)
        .ok()
        .map(|url| url.origin().ascii_serialization())
}

/// An origin is ours when it is the public URL's, or when it names the host
/// the request was sent to (the same server reached by another name, such as
/// localhost for 127.0.0.1).
fn origin_allowed(origin: &str, host: Option<&str>, public_url: &str) -> bool {
    let Some(public_origin) = public_origin(public_url) else {
        return false;
    };
    if origin == public_origin {
        return true;
    }
    let origin_host = origin.split_once("://").map(|(_, host)| host);
    matches!((origin_host, host), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b))
}

#[cfg(test)]
mod tests {
    use super::{is_public, origin_allowed};

    #[test]
    fn only_our_own_origins_may_write() {
        let public = "https://cassis.example.com/base";
        assert!(origin_allowed("https://cassis.example.com", None, public));
        assert!(origin_allowed(
            "http://localhost:3000",
            Some("localhost:3000"),
            public
        ));
        assert!(!origin_allowed(
            "https://evil.example",
            Some("cassis.example.com"),
            public
        ));
        assert!(!origin_allowed("null", Some("cassis.example.com"), public));
    }

    #[test]
    fn assets_and_server_functions_are_public_pages_are_not() {
        for public in ["/login", "/api/login123", "/pkg/cassis.js", "/favicon.ico"] {
            assert!(is_public(public), "{public}");
        }
        for private in [
            "/",
            "/projects",
            "/keys",
            "/users",
            "/settings",
            "/projects/abc",
        ] {
            assert!(!is_public(private), "{private}");
        }
    }
}

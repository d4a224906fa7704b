//! Server-side plumbing for server functions: the services they call, the
//! clock, and the session cookie.

use crate::error::AppError;
use cassis_core::account::User;
use cassis_core::auth::SESSION_LIFETIME;
use cassis_core::engine::Engine;
use cassis_core::service::credentials::{self, SignedIn};
use cassis_core::store::Store;
use cassis_core::time::Timestamp;
use http::header::{COOKIE, SET_COOKIE};
use http::{HeaderMap, HeaderValue};
use leptos::prelude::*;
use std::time::SystemTime;

/// The name of the cookie that carries the browser's session token.
pub const SESSION_COOKIE: &str = "cassis_session";

/// What server functions need from the running server; provided as context
/// by the router for every page render and server function call.
#[derive(Clone, Debug)]
pub struct AppContext {
    pub store: Store,
    /// The question engine the playground and the MCP tool share.
    pub engine: Engine,
    /// The public base URL, without a trailing slash.
    pub public_url: std::sync::Arc<str>,
    /// Bytes an ontology YAML document may have.
    pub max_ontology_bytes: usize,
    /// The folder SQLite data sources must be in.
    pub warehouse_dir: std::sync::Arc<std::path::Path>,
    /// Rate limits on signing in, shared by every request.
    pub sign_in_throttle: std::sync::Arc<cassis_core::auth::SignInThrottle>,
}

impl AppContext {
    /// The use cases, on this context's store and engine.
    pub fn services(&self) -> cassis_core::service::Services {
        cassis_core::service::Services::new(self.store.clone(), self.engine.clone())
    }

    /// The MCP endpoint clients connect to.
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp/", self.public_url)
    }

    /// Cookies are `Secure` whenever the public URL is https.
    pub fn secure_cookies(&self) -> bool {
        self.public_url.starts_with("https://")
    }
}

pub fn context() -> Result<AppContext, AppError> {
    use_context::<AppContext>().ok_or_else(|| {
        tracing::error!("AppContext was not provided to the server function");
        AppError::Internal
    })
}

/// The only place the admin app reads the clock.
pub fn now() -> Timestamp {
    Timestamp::from_system_time(SystemTime::now())
}

/// The session token in a request's `Cookie` headers, if any.
pub fn session_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, token)| token.to_owned())
        .filter(|token| !token.is_empty())
}

/// The signed-in user of the current request, if the session is valid.
pub async fn current_user() -> Result<Option<User>, AppError> {
    let ctx = context()?;
    let Some(token) =
        use_context::<http::request::Parts>().and_then(|parts| session_token(&parts.headers))
    else {
        return Ok(None);
    };
    Ok(credentials::session_user(&ctx.store, &token, now()).await?)
}

pub async fn require_user() -> Result<User, AppError> {
    current_user()
        .await?
        .ok_or_else(|| respond_with(AppError::Unauthenticated))
}

pub async fn require_admin() -> Result<User, AppError> {
    let user = require_user().await?;
    if user.is_admin() {
        Ok(user)
    } else {
        Err(respond_with(AppError::Forbidden))
    }
}

/// Editors and admins shape ontologies; viewers only ask.
pub async fn require_editor() -> Result<User, AppError> {
    let user = require_user().await?;
    if user.role == cassis_core::account::Role::Viewer {
        Err(respond_with(AppError::EditorsOnly))
    } else {
        Ok(user)
    }
}

/// A project of the caller's organization by the id a page sent.
pub async fn project_of(user: &User, id: &str) -> Result<cassis_core::project::Project, AppError> {
    let missing = || respond_with(AppError::NotFound("project".to_owned()));
    let id = uuid::Uuid::parse_str(id.trim()).map_err(|_| missing())?;
    context()?
        .store
        .accessible_project(user, id)
        .await?
        .ok_or_else(missing)
}

/// A chat the caller may read: their own, or any of the organization's for
/// an admin, on a project still open to them. Anything else is refused the
/// same way, so ids cannot be probed.
pub async fn visible_chat(user: &User, id: &str) -> Result<cassis_core::store::Chat, AppError> {
    let store = context()?.store;
    let refused = || respond_with(AppError::Forbidden);
    let chat = store
        .chat(id.trim())
        .await?
        .filter(|chat| chat.readable_by(user))
        .ok_or_else(refused)?;
    store
        .accessible_project(user, chat.project_id)
        .await?
        .ok_or_else(refused)?;
    Ok(chat)
}

/// The address of the client that sent the request being served, as the
/// connection shows it.
pub fn client_address() -> Option<std::net::IpAddr> {
    use_context::<http::request::Parts>()?
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip())
}

/// Sets the response status for a failing server function, so a refused
/// sign-in is a 401 in the logs rather than a server error.
pub fn respond_with(error: AppError) -> AppError {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>()
        && let Ok(status) = http::StatusCode::from_u16(error.status_code())
    {
        response.set_status(status);
        let retry_after_secs = match &error {
            AppError::TooManyAttempts { retry_after_secs } => Some(*retry_after_secs),
            AppError::Unavailable => Some(1),
            _ => None,
        };
        if let Some(value) =
            retry_after_secs.and_then(|secs| http::HeaderValue::from_str(&secs.to_string()).ok())
        {
            response.insert_header(http::header::RETRY_AFTER, value);
        }
    }
    error
}

/// `HttpOnly` keeps scripts away from the token; `SameSite=Lax` keeps other
/// sites from posting forms with it.
pub fn session_cookie(token: &str, max_age_secs: u64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}{secure}"
    )
}

pub fn set_session_cookie(signed_in: &SignedIn, secure: bool) {
    set_cookie(&session_cookie(
        signed_in.token.expose(),
        SESSION_LIFETIME.as_secs(),
        secure,
    ));
}

pub fn clear_session_cookie(secure: bool) {
    set_cookie(&session_cookie("", 0, secure));
}

fn set_cookie(cookie: &str) {
    let response = expect_context::<leptos_axum::ResponseOptions>();
    match HeaderValue::from_str(cookie) {
        Ok(value) => response.append_header(SET_COOKIE, value),
        Err(error) => tracing::error!(%error, "session cookie is not a valid header value"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_token_is_found_among_other_cookies() {
        let mut headers = HeaderMap::new();
        headers.append(
            COOKIE,
            HeaderValue::from_static("theme=dark; cassis_session=abc-_123"),
        );
        headers.append(COOKIE, HeaderValue::from_static("other=1"));
        assert_eq!(session_token(&headers).as_deref(), Some("abc-_123"));
    }

    #[test]
    fn a_missing_or_empty_session_cookie_is_no_session() {
        let mut headers = HeaderMap::new();
        assert_eq!(session_token(&headers), None);
        headers.insert(
            COOKIE,
            HeaderValue::from_static("cassis_session=; x_cassis_session=abc"),
        );
        assert_eq!(session_token(&headers), None);
    }

    #[test]
    fn the_cookie_is_http_only_lax_and_secure_over_https() {
        let cookie = session_cookie("tok", 60, true);
        assert_eq!(
            cookie,
            "cassis_session=tok; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure"
        );
        assert!(!session_cookie("tok", 60, false).contains("Secure"));
    }
}

use crate::error::AppError;
use cassis_core::account::Role;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// Who is signed in, as the layout shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionUser {
    pub email: String,
    pub role: Role,
}

/// Where to go after signing in: a path on this server (such as the OAuth
/// consent page that sent the user here), never another site.
pub fn local_destination(next: Option<&str>) -> Option<&str> {
    next.filter(|n| n.starts_with('/') && !n.starts_with("//") && !n.contains('\\'))
}

/// Signs in. A plain form post is redirected; the hydrated page gets the
/// destination back when it is outside the app (the OAuth consent page),
/// which needs a full page load rather than the router's navigation.
#[server(endpoint = "login")]
pub async fn login(
    email: String,
    password: String,
    #[server(default)] next: Option<String>,
) -> Result<Option<String>, AppError> {
    let ctx = crate::ssr::context()?;
    let signed_in = cassis_core::auth::sign_in(
        &ctx.store,
        &ctx.sign_in_throttle,
        crate::ssr::client_address(),
        &email,
        &password,
        crate::ssr::now(),
    )
    .await
    .map_err(|e| crate::ssr::respond_with(e.into()))?;
    tracing::info!(user = %signed_in.user.id, "signed in");
    crate::ssr::set_session_cookie(&signed_in, ctx.secure_cookies());
    let plain_form = use_context::<http::request::Parts>().is_some_and(|parts| {
        parts
            .headers
            .get(http::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("text/html"))
    });
    match local_destination(next.as_deref()) {
        Some(destination) if !plain_form => Ok(Some(destination.to_owned())),
        Some(destination) => {
            leptos_axum::redirect(destination);
            Ok(None)
        }
        None => {
            leptos_axum::redirect("/projects");
            Ok(None)
        }
    }
}

#[server(endpoint = "logout")]
pub async fn logout() -> Result<(), AppError> {
    let ctx = crate::ssr::context()?;
    let token = use_context::<http::request::Parts>()
        .and_then(|parts| crate::ssr::session_token(&parts.headers));
    if let Some(token) = token {
        cassis_core::auth::sign_out(&ctx.store, &token).await?;
    }
    crate::ssr::clear_session_cookie(ctx.secure_cookies());
    leptos_axum::redirect("/login");
    Ok(())
}

#[server(endpoint = "current_user")]
pub async fn current_user() -> Result<Option<SessionUser>, AppError> {
    let user = crate::ssr::current_user().await?;
    Ok(user.map(|user| SessionUser {
        email: user.email.to_string(),
        role: user.role,
    }))
}

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
///
/// Browsers are lenient with what follows `Location`: they drop tabs and
/// newlines, read `\\` as `/`, and proxies or servers may decode `%2F`, so
/// `/\t/evil.example` becomes `//evil.example`. So `next` must resolve, as a
/// browser resolves it, to `public_url`'s origin; it may hold no whitespace,
/// control character or backslash; and its path may not decode to one or to
/// a leading `//`. The query may decode to spaces: OAuth requests carry
/// encoded values such as `scope=mcp%20other`. Pure, so the browser side
/// compiles it too.
pub fn local_destination<'a>(next: Option<&'a str>, public_url: &str) -> Option<&'a str> {
    let next = next?;
    if next.chars().any(unsafe_char) {
        return None;
    }
    let split = next.find(['?', '#']).unwrap_or(next.len());
    let (path, rest) = next.split_at(split);
    // A few rounds catch double encoding; no login link has more layers.
    let (mut path, mut rest) = (path.to_owned(), rest.to_owned());
    for _ in 0..4 {
        if !path.starts_with('/')
            || path.starts_with("//")
            || path.chars().any(unsafe_char)
            || rest.chars().any(|c| c.is_control() || c == '\\')
        {
            return None;
        }
        let (path_once, rest_once) = (percent_decode(&path), percent_decode(&rest));
        if path_once == path && rest_once == rest {
            let base = url::Url::parse(public_url).ok()?;
            let resolved = base.join(next).ok()?;
            return (resolved.origin() == base.origin()).then_some(next);
        }
        (path, rest) = (path_once, rest_once);
    }
    None
}

/// What a browser strips, rewrites or reads as a separator in a URL.
fn unsafe_char(c: char) -> bool {
    c.is_control() || c.is_whitespace() || c == '\\'
}

/// `%XX` sequences decoded to bytes; invalid UTF-8 shows as U+FFFD.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((high * 16 + low) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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
    let signed_in = cassis_core::service::credentials::sign_in(
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
    match local_destination(next.as_deref(), &ctx.public_url) {
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
        cassis_core::service::credentials::sign_out(&ctx.store, &token).await?;
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

#[cfg(test)]
mod tests {
    use super::local_destination;

    const PUBLIC_URL: &str = "https://cassis.example.com";

    #[test]
    fn known_open_redirect_bypasses_are_refused() {
        for next in [
            "/\t/evil.example",
            "/%09/evil.example",
            "/%5Cevil.example",
            "/%5cevil.example",
            "//evil.example",
            "/\\evil.example",
            "\\/evil.example",
            "https://evil.example",
            "https://evil.example/projects",
            "/%2F%2Fevil.example",
            "/%2Fevil.example",
            "/%252F%252Fevil.example",
            "/%2509/evil.example",
            " /x",
            "/x ",
            "/x\r\nLocation: https://evil.example",
            "/x%0d%0aLocation:%20https://evil.example",
            "/x?a=%0d%0aLocation:%20https://evil.example",
            "/x?a=%5C",
            "/\u{a0}/evil.example",
            "/\u{2028}/evil.example",
            "\t//evil.example",
            "evil.example",
            "javascript:alert(1)",
            "",
        ] {
            assert_eq!(local_destination(Some(next), PUBLIC_URL), None, "{next:?}");
        }
        assert_eq!(local_destination(None, PUBLIC_URL), None);
    }

    #[test]
    fn paths_on_this_server_pass_unchanged() {
        for next in [
            "/projects",
            "/projects/0b6f7c1e-2a51-4a89-9a1f-3e4b5c6d7e8f?tab=settings",
            "/oauth/authorize?response_type=code&client_id=cassis-0123&redirect_uri=https%3A%2F%2Fclient.example%2Fcallback&state=a%20b&scope=mcp",
            "/oauth/authorize?client_id=https%3A%2F%2Fclient.example%2Fmeta.json&redirect_uri=http%3A%2F%2F127.0.0.1%3A45454%2Fcallback&scope=mcp%20other+more",
            "/keys#new",
        ] {
            assert_eq!(
                local_destination(Some(next), PUBLIC_URL),
                Some(next),
                "{next}"
            );
        }
    }
}

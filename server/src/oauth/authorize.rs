//! `/oauth/authorize`: the user signs in (the admin app's login page), sees
//! which client asks to act for them, and approves or denies. Until the
//! client and its redirect URI are known good, errors are shown here; after,
//! they go back to the client as the spec says, with `state` and `iss`.

use super::clients::{ClientLookupError, find_client};
use super::limits::{ClientAddress, TooMany};
use super::{issuer, names_mcp_resource, resource};
use crate::clock;
use crate::page_guard::{LOGIN_PATH, signed_in_user};
use crate::router::AppState;
use crate::router::CONTENT_SECURITY_POLICY;
use axum::Form;
use axum::extract::{Query, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use cassis_app::ssr::session_token;
use cassis_core::account::User;
use cassis_core::auth::hash_key;
use cassis_core::auth::oauth::OAuthError;
use cassis_core::auth::oauth::{
    AuthorizationCode, CODE_LIFETIME, OAuthClient, OAuthSecret, granted_scope,
};
use serde::Deserialize;
use subtle::ConstantTimeEq;

/// The parameters of an authorization request, as sent (RFC 6749 §4.1.1,
/// RFC 7636, RFC 8707).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct AuthorizeParams {
    response_type: Option<String>,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    state: Option<String>,
    resource: Option<String>,
    scope: Option<String>,
}

/// The consent form: the request again, the decision and the CSRF token.
#[derive(Debug, Deserialize)]
pub struct Decision {
    #[serde(flatten)]
    params: AuthorizeParams,
    csrf: Option<String>,
    decision: Option<String>,
}

/// A request that passed every check.
struct Valid {
    client: OAuthClient,
    redirect_uri: String,
    code_challenge: String,
    resource: String,
    scope: String,
    state: Option<String>,
}

enum Refusal {
    /// The client or redirect URI cannot be trusted: never redirect.
    Page(StatusCode, String),
    /// Tell the client, at its redirect URI.
    Redirect {
        redirect_uri: String,
        state: Option<String>,
        error: OAuthError,
        description: String,
    },
    Unavailable,
    /// This address started too many metadata document fetches.
    TooMany(TooMany),
}

pub async fn show(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    Query(params): Query<AuthorizeParams>,
) -> Response {
    let valid = match validate(&state, &params, address).await {
        Ok(valid) => valid,
        Err(refusal) => return refuse(&state, refusal),
    };
    let Some(user) = signed_in(&state, &headers).await else {
        // Back here after signing in, with the same request.
        let back = format!("/oauth/authorize?{}", query.unwrap_or_default());
        let login = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("next", &back)
            .finish();
        return Redirect::to(&format!("{LOGIN_PATH}?{login}")).into_response();
    };
    let token = session_token(&headers).unwrap_or_default();
    let mut response =
        Html(consent_page(&valid, &user, &params, &csrf_token(&token))).into_response();
    if let Ok(policy) = HeaderValue::from_str(&consent_policy(&valid.redirect_uri)) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    response
}

/// The policy of every page, except that the consent form may also end at
/// the client: browsers check `form-action` on the redirect that follows a
/// form post, and approving redirects to the client's redirect URI.
fn consent_policy(redirect_uri: &str) -> String {
    let Some(target) = form_target(redirect_uri) else {
        return CONTENT_SECURITY_POLICY.to_owned();
    };
    CONTENT_SECURITY_POLICY.replace(
        "form-action 'self'",
        &format!("form-action 'self' {target}"),
    )
}

/// A CSP source naming the redirect URI's origin: `scheme://host:port` when
/// the host fits the host-source grammar, else the scheme alone (a native
/// app's `com.example.app:`, or an IPv6 literal, which CSP cannot name).
fn form_target(redirect_uri: &str) -> Option<String> {
    let url = url::Url::parse(redirect_uri).ok()?;
    let scheme = url.scheme();
    let host = url.host_str().filter(|host| {
        !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
    });
    Some(match (host, url.port_or_known_default()) {
        (Some(host), Some(port)) => format!("{scheme}://{host}:{port}"),
        _ => format!("{scheme}:"),
    })
}

pub async fn decide(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    Form(form): Form<Decision>,
) -> Response {
    let valid = match validate(&state, &form.params, address).await {
        Ok(valid) => valid,
        Err(refusal) => return refuse(&state, refusal),
    };
    let Some(user) = signed_in(&state, &headers).await else {
        return page(
            StatusCode::UNAUTHORIZED,
            "Your session ended",
            "Sign in again from your MCP client to connect it.",
        );
    };
    let expected = csrf_token(&session_token(&headers).unwrap_or_default());
    let presented = form.csrf.unwrap_or_default();
    if !bool::from(presented.as_bytes().ct_eq(expected.as_bytes())) {
        tracing::warn!(user = %user.id, "refused a consent form without a valid CSRF token");
        return page(
            StatusCode::FORBIDDEN,
            "This approval did not come from Cassis",
            "The form was not the one Cassis showed you. Start again from your MCP client.",
        );
    }
    if form.decision.as_deref() != Some("approve") {
        tracing::info!(user = %user.id, client_id = %valid.client.id, "the user denied an OAuth client");
        return refuse(
            &state,
            Refusal::Redirect {
                redirect_uri: valid.redirect_uri,
                state: valid.state,
                error: OAuthError::AccessDenied,
                description: "The user denied the request.".to_owned(),
            },
        );
    }
    let now = clock::now();
    let secret = OAuthSecret::generate();
    let code = AuthorizationCode {
        client_id: valid.client.id.clone(),
        organization_id: user.organization_id,
        user_id: user.id,
        redirect_uri: valid.redirect_uri.clone(),
        code_challenge: valid.code_challenge,
        resource: valid.resource,
        scope: valid.scope,
        expires_at: now.saturating_add(CODE_LIFETIME),
    };
    if let Err(error) = state
        .store()
        .create_authorization_code(&secret.hash(), &code, now)
        .await
    {
        tracing::error!(%error, "storing an authorization code failed");
        return refuse(&state, Refusal::Unavailable);
    }
    tracing::info!(user = %user.id, client_id = %valid.client.id, "the user approved an OAuth client");
    let mut pairs = vec![("code", secret.expose().to_owned())];
    if let Some(client_state) = valid.state {
        pairs.push(("state", client_state));
    }
    pairs.push(("iss", issuer(&state.app.public_url)));
    Redirect::to(&with_query(&valid.redirect_uri, &pairs)).into_response()
}

async fn validate(
    state: &AppState,
    params: &AuthorizeParams,
    address: Option<std::net::IpAddr>,
) -> Result<Valid, Refusal> {
    let client_id = params.client_id.as_deref().unwrap_or_default();
    if client_id.is_empty() {
        return Err(Refusal::Page(
            StatusCode::BAD_REQUEST,
            "The request does not say which client is asking (client_id is missing).".to_owned(),
        ));
    }
    let client = match find_client(state, client_id, address).await {
        Ok(client) => client,
        Err(ClientLookupError::Store(error)) => {
            tracing::error!(%error, "reading an OAuth client failed");
            return Err(Refusal::Unavailable);
        }
        Err(ClientLookupError::TooManyFetches(refused)) => return Err(Refusal::TooMany(refused)),
        Err(error) => {
            return Err(Refusal::Page(
                StatusCode::BAD_REQUEST,
                format!("The client that sent you here is not known to Cassis: {error}."),
            ));
        }
    };
    let redirect_uri = params.redirect_uri.clone().unwrap_or_default();
    if !client.allows_redirect(&redirect_uri) {
        return Err(Refusal::Page(
            StatusCode::BAD_REQUEST,
            format!(
                "The redirect URI is not one that {} registered, so Cassis will not send you there.",
                client.name
            ),
        ));
    }
    let to_client = |error: OAuthError, description: &str| Refusal::Redirect {
        redirect_uri: redirect_uri.clone(),
        state: params.state.clone(),
        error,
        description: description.to_owned(),
    };
    if params.response_type.as_deref() != Some("code") {
        return Err(to_client(
            OAuthError::UnsupportedResponseType,
            "response_type must be code",
        ));
    }
    let challenge = params.code_challenge.clone().unwrap_or_default();
    if challenge.is_empty() {
        return Err(to_client(
            OAuthError::InvalidRequest,
            "code_challenge is required: Cassis requires PKCE",
        ));
    }
    if params.code_challenge_method.as_deref() != Some("S256") {
        return Err(to_client(
            OAuthError::InvalidRequest,
            "code_challenge_method must be S256",
        ));
    }
    if challenge.len() != 43
        || !challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(to_client(
            OAuthError::InvalidRequest,
            "code_challenge is not a base64url SHA-256 digest",
        ));
    }
    match params.resource.as_deref() {
        Some(asked) if names_mcp_resource(&state.app.public_url, asked) => {}
        Some(_) => {
            return Err(to_client(
                OAuthError::InvalidTarget,
                "resource must be this server's MCP endpoint",
            ));
        }
        None => {
            return Err(to_client(
                OAuthError::InvalidTarget,
                "resource is required: the MCP endpoint the token is for (RFC 8707)",
            ));
        }
    }
    let Some(scope) = granted_scope(params.scope.as_deref()) else {
        return Err(to_client(OAuthError::InvalidScope, "the only scope is mcp"));
    };
    Ok(Valid {
        client,
        redirect_uri,
        code_challenge: challenge,
        resource: resource(&state.app.public_url),
        scope,
        state: params.state.clone(),
    })
}

fn refuse(state: &AppState, refusal: Refusal) -> Response {
    match refusal {
        Refusal::Page(status, message) => page(status, "Cannot connect this client", &message),
        Refusal::Unavailable => page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Cassis is unavailable",
            "Cassis could not reach its database. Try again in a moment.",
        ),
        Refusal::TooMany(refused) => {
            let seconds = refused.retry_after_secs();
            let mut response = page(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many requests",
                &format!(
                    "Cassis looked up too many client metadata documents for your address. \
                     Try again in {seconds} s."
                ),
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            response
        }
        Refusal::Redirect {
            redirect_uri,
            state: client_state,
            error,
            description,
        } => {
            let mut pairs = vec![
                ("error", error.as_str().to_owned()),
                ("error_description", description),
            ];
            if let Some(client_state) = client_state {
                pairs.push(("state", client_state));
            }
            pairs.push(("iss", issuer(&state.app.public_url)));
            Redirect::to(&with_query(&redirect_uri, &pairs)).into_response()
        }
    }
}

async fn signed_in(state: &AppState, headers: &HeaderMap) -> Option<User> {
    match signed_in_user(state, headers).await {
        Ok(user) => user,
        Err(error) => {
            tracing::error!(%error, "checking the session failed");
            None
        }
    }
}

/// Bound to the browser session: a page on another site can neither read
/// nor guess it.
fn csrf_token(session_token: &str) -> String {
    hash_key(&format!("oauth-consent:{session_token}"))
}

fn with_query(uri: &str, pairs: &[(&str, String)]) -> String {
    match url::Url::parse(uri) {
        Ok(mut url) => {
            url.query_pairs_mut()
                .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
            url.to_string()
        }
        Err(_) => uri.to_owned(),
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn document(title: &str, body: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en" class="h-full bg-slate-50">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Cassis</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
<link rel="stylesheet" href="/pkg/cassis.css">
</head>
<body class="h-full text-slate-900 antialiased">
<main class="flex min-h-full items-center justify-center px-4 py-12">
<div class="w-full max-w-md">
<div class="mb-6 text-center">
<span class="inline-block h-10 w-10 rounded-full bg-gradient-to-br from-fuchsia-500 to-purple-800"></span>
</div>
<div class="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
{body}
</div>
</div>
</main>
</body>
</html>"#,
        title = escape(title),
    )
}

fn page(status: StatusCode, title: &str, message: &str) -> Response {
    let body = format!(
        r#"<h1 class="text-lg font-semibold">{}</h1><p class="mt-2 text-sm text-slate-600">{}</p>"#,
        escape(title),
        escape(message)
    );
    (status, Html(document(title, &body))).into_response()
}

fn consent_page(valid: &Valid, user: &User, params: &AuthorizeParams, csrf: &str) -> String {
    let destination = url::Url::parse(&valid.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| valid.redirect_uri.clone());
    let hidden = [
        ("response_type", params.response_type.as_deref()),
        ("client_id", params.client_id.as_deref()),
        ("redirect_uri", params.redirect_uri.as_deref()),
        ("code_challenge", params.code_challenge.as_deref()),
        (
            "code_challenge_method",
            params.code_challenge_method.as_deref(),
        ),
        ("state", params.state.as_deref()),
        ("resource", params.resource.as_deref()),
        ("scope", params.scope.as_deref()),
        ("csrf", Some(csrf)),
    ]
    .iter()
    .filter_map(|(name, value)| {
        value.map(|v| {
            format!(
                r#"<input type="hidden" name="{name}" value="{}">"#,
                escape(v)
            )
        })
    })
    .collect::<Vec<_>>()
    .join("\n");
    let body = format!(
        r#"<h1 class="text-lg font-semibold">Connect {client} to Cassis?</h1>
<p class="mt-2 text-sm text-slate-600">Signed in as <strong>{email}</strong>.</p>
<p class="mt-4 text-sm text-slate-700"><strong>{client}</strong> will be able to, as you:</p>
<ul class="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700">
<li>list the projects your account can reach</li>
<li>ask questions about their data and read the answers, SQL and results</li>
</ul>
<p class="mt-4 text-xs text-slate-500">After you approve, you return to {destination}. You can disconnect the client at any time.</p>
<form method="post" action="/oauth/authorize" class="mt-6 flex gap-3">
{hidden}
<button type="submit" name="decision" value="approve" class="flex-1 rounded-md bg-purple-700 px-3 py-2 text-sm font-semibold text-white shadow-sm hover:bg-purple-800">Approve</button>
<button type="submit" name="decision" value="deny" class="flex-1 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-slate-700 shadow-sm hover:bg-slate-50">Deny</button>
</form>"#,
        client = escape(&valid.client.name),
        email = escape(user.email.as_str()),
        destination = escape(&destination),
    );
    document(&format!("Connect {}", valid.client.name), &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_consent_form_may_end_at_the_redirect_uri_only() {
        let policy = consent_policy("http://127.0.0.1:45454/callback?x=1");
        assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(
            policy.contains("form-action 'self' http://127.0.0.1:45454;"),
            "{policy}"
        );
        assert_eq!(
            form_target("https://client.example/cb").as_deref(),
            Some("https://client.example:443")
        );
        assert_eq!(
            form_target("com.example.app:/callback").as_deref(),
            Some("com.example.app:")
        );
        assert_eq!(
            form_target("http://[::1]:8080/cb").as_deref(),
            Some("http:")
        );
    }

    #[test]
    fn the_query_is_appended_to_the_redirect_uri() {
        assert_eq!(
            with_query(
                "http://127.0.0.1:5000/cb?x=1",
                &[("code", "a b".to_owned()), ("state", "s".to_owned())]
            ),
            "http://127.0.0.1:5000/cb?x=1&code=a+b&state=s"
        );
    }
}

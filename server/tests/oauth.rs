//! OAuth 2.1 for MCP clients: the Python SDK's OAuthClientProvider, the
//! conformance suite and the oauth2 crate run the whole flow against
//! `cassis serve` over real HTTP, and each attack the MCP authorization
//! specification guards against is tried, on the router in-process, and
//! must fail.

mod common;

use cassis_core::auth::oauth::{AccessClaims, SealingKey, SigningKey, challenge_of, is_sealed};
use common::app::{Reach, Response, TestApp};
use common::session::client as http;
use common::{ADMIN_EMAIL, ADMIN_PASSWORD, Server, cassis, stderr};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, ORIGIN, SET_COOKIE, WWW_AUTHENTICATE};
use serde_json::{Value, json};
use std::time::{SystemTime, UNIX_EPOCH};

const REDIRECT: &str = "http://127.0.0.1:45454/callback";
const VERIFIER: &str = "a-verifier-that-is-long-enough-for-rfc-7636-0123456789";

/// The router in-process, with the demo project.
async fn start_app() -> (tempfile::TempDir, TestApp) {
    let dir = tempfile::tempdir().unwrap();
    let server = TestApp::start(&dir.path().join("data"), &[]).await;
    (dir, server)
}

/// The real process, for the clients that need one.
fn start() -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("data"), |_| {});
    (dir, server)
}

async fn register(server: &impl Reach, name: &str) -> String {
    let response = server
        .post(format!("{}/oauth/register", server.url()))
        .json(&json!({
            "client_name": name,
            "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none"
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["token_endpoint_auth_method"], "none");
    body["client_id"].as_str().unwrap().to_owned()
}

/// Signs in on the login page's server function; the session cookie pair.
async fn sign_in(server: &impl Reach) -> String {
    let cookie = server
        .sign_in(ADMIN_EMAIL, ADMIN_PASSWORD)
        .await
        .1
        .expect("signing in sets the session cookie");
    common::session::cookie_pair(&cookie).to_owned()
}

fn authorize_params(client_id: &str) -> Vec<(&'static str, String)> {
    vec![
        ("response_type", "code".into()),
        ("client_id", client_id.into()),
        ("redirect_uri", REDIRECT.into()),
        ("code_challenge", challenge_of(VERIFIER)),
        ("code_challenge_method", "S256".into()),
        ("state", "opaque-state".into()),
        ("scope", "mcp".into()),
    ]
}

fn with_resource(
    server: &impl Reach,
    mut params: Vec<(&'static str, String)>,
) -> Vec<(&'static str, String)> {
    params.push(("resource", format!("{}/mcp/", server.url())));
    params
}

async fn get_authorize(
    server: &impl Reach,
    cookie: Option<&str>,
    params: &[(&str, String)],
) -> Response {
    let mut request = server
        .get(format!("{}/oauth/authorize", server.url()))
        .query(params);
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    request.send().await.unwrap()
}

/// The hidden fields of the consent page.
fn consent_fields(page: &str) -> Vec<(String, String)> {
    page.split("<input type=\"hidden\" ")
        .skip(1)
        .map(|rest| {
            let name = rest
                .split("name=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let value = rest
                .split("value=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            (
                name.to_owned(),
                value.replace("&amp;", "&").replace("&quot;", "\""),
            )
        })
        .collect()
}

async fn decide(
    server: &impl Reach,
    cookie: &str,
    fields: &[(String, String)],
    origin: &str,
) -> Response {
    server
        .post(format!("{}/oauth/authorize", server.url()))
        .header(COOKIE, cookie)
        .header(ORIGIN, origin)
        .form(fields)
        .send()
        .await
        .unwrap()
}

fn query_of(location: &str) -> Vec<(String, String)> {
    url::Url::parse(location)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn param(location: &str, name: &str) -> Option<String> {
    query_of(location)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

fn location(response: &Response) -> String {
    response.headers()[LOCATION].to_str().unwrap().to_owned()
}

/// Sign-in and approval as the user; the code the client receives.
async fn approve(server: &impl Reach, cookie: &str, client_id: &str) -> String {
    let page = get_authorize(
        server,
        Some(cookie),
        &with_resource(server, authorize_params(client_id)),
    )
    .await;
    assert_eq!(page.status(), StatusCode::OK);
    let mut fields = consent_fields(&page.text().await.unwrap());
    fields.push(("decision".into(), "approve".into()));
    let redirect = decide(server, cookie, &fields, server.url()).await;
    assert_eq!(redirect.status(), StatusCode::SEE_OTHER);
    let location = location(&redirect);
    assert!(location.starts_with(REDIRECT), "{location}");
    assert_eq!(param(&location, "state").as_deref(), Some("opaque-state"));
    assert_eq!(param(&location, "iss").as_deref(), Some(server.url()));
    param(&location, "code").unwrap()
}

async fn token(server: &impl Reach, form: &[(&str, &str)]) -> (StatusCode, Value) {
    let response = server
        .post(format!("{}/oauth/token", server.url()))
        .form(form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["cache-control"], "no-store");
    (response.status(), response.json().await.unwrap())
}

async fn exchange(
    server: &impl Reach,
    client_id: &str,
    code: &str,
    verifier: &str,
) -> (StatusCode, Value) {
    token(
        server,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", client_id),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", verifier),
            ("resource", &format!("{}/mcp/", server.url())),
        ],
    )
    .await
}

async fn refresh(server: &impl Reach, client_id: &str, refresh_token: &str) -> (StatusCode, Value) {
    token(
        server,
        &[
            ("grant_type", "refresh_token"),
            ("client_id", client_id),
            ("refresh_token", refresh_token),
        ],
    )
    .await
}

/// A `ping` tool call with `token`: the status and the WWW-Authenticate header.
async fn mcp_ping(server: &impl Reach, token: &str) -> (StatusCode, Option<String>) {
    let response = server.mcp_tool(token, "ping", json!({})).await;
    let challenge = response
        .headers()
        .get(WWW_AUTHENTICATE)
        .map(|v| v.to_str().unwrap().to_owned());
    (response.status(), challenge)
}

/// A full authorization: client registered, user approved, code exchanged.
async fn connected(server: &impl Reach) -> (String, Value) {
    let client_id = register(server, "Attack test").await;
    let cookie = sign_in(server).await;
    let code = approve(server, &cookie, &client_id).await;
    let (status, tokens) = exchange(server, &client_id, &code, VERIFIER).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    (client_id, tokens)
}

#[test]
fn the_python_sdk_connects_through_oauth_refreshes_and_is_cut_off_after_a_replay() {
    let Some(python) = common::mcp::python() else {
        return;
    };
    let (_dir, server) = start();
    let report = common::mcp::run_client(
        &python,
        &server,
        "oauth_client.py",
        &[ADMIN_EMAIL, ADMIN_PASSWORD],
    );

    // Not signed in: the authorize page sends the browser to the login page,
    // which brings it back; the consent page names the client and the user.
    let browser = &report["browser"];
    assert_eq!(browser[0]["status"], 303);
    assert!(
        browser[0]["location"]
            .as_str()
            .unwrap()
            .starts_with("/login?next=%2Foauth%2Fauthorize")
    );
    assert_eq!(browser[1]["has_next_field"], true);
    assert!(
        browser[2]["location"]
            .as_str()
            .unwrap()
            .starts_with("/oauth/authorize?")
    );
    assert_eq!(
        report["consent_page"],
        json!({"status": 200, "names_client": true, "names_user": true})
    );
    assert_eq!(browser[3]["redirect_starts"], true);
    assert_eq!(report["redirect_iss"], server.url);

    // Tools through the token.
    assert_eq!(
        report["first"]["ping"],
        json!({"status": "ok", "server": "cassis"})
    );
    assert_eq!(report["first"]["projects"], json!(["Wholesale"]));
    assert_eq!(report["token_type"], "Bearer");
    assert_eq!(report["access_token_is_jwt"], true);
    assert_eq!(report["has_refresh_token"], true);

    // Expiry: refreshed without the user (no new browser steps), rotated.
    assert_eq!(report["after_expiry"]["ping"]["status"], "ok");
    assert_eq!(report["refreshed"], true);
    assert_eq!(report["refresh_rotated"], true);
    assert_eq!(report["browser_steps_after_expiry"], 4);

    // Replaying the retired refresh token revokes the grant: the current
    // access token stops working at once.
    assert_eq!(
        report["replayed_refresh"],
        json!({"status": 400, "error": "invalid_grant"})
    );
    assert_eq!(report["after_replay"]["status"], 401);
    assert_eq!(
        report["after_replay"]["www_authenticate"],
        format!(
            "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp/\"",
            server.url
        )
    );
    assert!(
        !server.log_text().contains("refresh_token="),
        "no token in the log"
    );
}

#[tokio::test]
async fn discovery_documents_agree_on_the_issuer_and_resource() {
    let (_dir, server) = start_app().await;
    let server = &server;
    let get = |path: &str| {
        let url = format!("{}{path}", server.url);
        async move {
            let response = server.get(url).send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            response.json::<Value>().await.unwrap()
        }
    };
    let resource = get("/.well-known/oauth-protected-resource/mcp/").await;
    assert_eq!(resource["resource"], format!("{}/mcp/", server.url));
    assert_eq!(resource["authorization_servers"], json!([server.url]));
    assert_eq!(get("/.well-known/oauth-protected-resource").await, resource);

    let metadata = get("/.well-known/oauth-authorization-server").await;
    assert_eq!(
        metadata["issuer"], resource["authorization_servers"][0],
        "byte-identical issuers"
    );
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(
        metadata["authorization_response_iss_parameter_supported"],
        true
    );
    assert_eq!(metadata["client_id_metadata_document_supported"], true);
    assert_eq!(
        metadata["token_endpoint"],
        format!("{}/oauth/token", server.url)
    );
    assert_eq!(get("/.well-known/openid-configuration").await, metadata);

    let jwks = get("/oauth/jwks.json").await;
    assert_eq!(jwks["keys"][0]["kty"], "OKP");
    assert_eq!(jwks["keys"][0]["alg"], "EdDSA");
    assert!(
        jwks["keys"][0].get("d").is_none(),
        "no private part is published"
    );

    // Registration refuses what it cannot honour, with RFC 7591 errors.
    let refused = server
        .post(format!("{}/oauth/register", server.url))
        .json(&json!({"client_name": "x", "redirect_uris": ["http://evil.example.com/cb"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        refused.json::<Value>().await.unwrap()["error"],
        "invalid_redirect_uri"
    );
}

#[tokio::test]
async fn authorization_requests_without_pkce_or_for_another_place_fail() {
    let (_dir, server) = start_app().await;
    let client_id = register(&server, "Attack test").await;
    let cookie = sign_in(&server).await;
    let refused_with = |params: Vec<(&'static str, String)>, error: &'static str| {
        let server = &server;
        let cookie = cookie.clone();
        async move {
            let response = get_authorize(server, Some(&cookie), &params).await;
            assert_eq!(response.status(), StatusCode::SEE_OTHER, "{params:?}");
            let location = location(&response);
            assert!(location.starts_with(REDIRECT), "{location}");
            assert_eq!(
                param(&location, "error").as_deref(),
                Some(error),
                "{params:?}"
            );
            assert_eq!(param(&location, "state").as_deref(), Some("opaque-state"));
            assert_eq!(
                param(&location, "iss").as_deref(),
                Some(server.url.as_str())
            );
        }
    };
    let base = with_resource(&server, authorize_params(&client_id));
    let without = |name: &str| {
        base.iter()
            .filter(|(k, _)| *k != name)
            .cloned()
            .collect::<Vec<_>>()
    };
    let replaced = |name: &str, value: &str| {
        base.iter()
            .map(|(k, v)| {
                (
                    *k,
                    if *k == name {
                        value.to_owned()
                    } else {
                        v.clone()
                    },
                )
            })
            .collect::<Vec<_>>()
    };
    refused_with(without("code_challenge"), "invalid_request").await;
    refused_with(
        replaced("code_challenge_method", "plain"),
        "invalid_request",
    )
    .await;
    refused_with(without("code_challenge_method"), "invalid_request").await;
    refused_with(without("resource"), "invalid_target").await;
    refused_with(
        replaced("resource", "https://evil.example.com/mcp/"),
        "invalid_target",
    )
    .await;
    refused_with(replaced("scope", "admin"), "invalid_scope").await;

    // A redirect URI the client did not register: shown, never followed.
    let response = get_authorize(
        &server,
        Some(&cookie),
        &replaced("redirect_uri", "http://127.0.0.1:45455/callback"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(response.headers().get(LOCATION).is_none());
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("not one that Attack test registered")
    );
    let unknown = get_authorize(
        &server,
        Some(&cookie),
        &replaced("client_id", "cassis-unknown"),
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    assert!(unknown.headers().get(LOCATION).is_none());

    // Denying sends the client an access_denied.
    let page = get_authorize(&server, Some(&cookie), &base).await;
    let mut fields = consent_fields(&page.text().await.unwrap());
    fields.push(("decision".into(), "deny".into()));
    let denied = decide(&server, &cookie, &fields, &server.url).await;
    assert_eq!(
        param(&location(&denied), "error").as_deref(),
        Some("access_denied")
    );
}

#[tokio::test]
async fn the_consent_form_cannot_be_forged() {
    let (_dir, server) = start_app().await;
    let client_id = register(&server, "Attack test").await;
    let cookie = sign_in(&server).await;
    let page = get_authorize(
        &server,
        Some(&cookie),
        &with_resource(&server, authorize_params(&client_id)),
    )
    .await;
    let fields = consent_fields(&page.text().await.unwrap());
    let approve_with = |fields: &[(String, String)]| {
        let mut fields = fields.to_vec();
        fields.push(("decision".into(), "approve".into()));
        fields
    };

    // Without the token, with another session's token, from another site.
    let without_csrf: Vec<_> = fields
        .iter()
        .filter(|(k, _)| k != "csrf")
        .cloned()
        .collect();
    let refused = decide(&server, &cookie, &approve_with(&without_csrf), &server.url).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let other_session = sign_in(&server).await;
    let refused = decide(&server, &other_session, &approve_with(&fields), &server.url).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let refused = decide(
        &server,
        &cookie,
        &approve_with(&fields),
        "https://evil.example.com",
    )
    .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    // Signed out, the form does nothing either.
    let refused = server
        .post(format!("{}/oauth/authorize", server.url))
        .header(ORIGIN, &server.url)
        .form(&approve_with(&fields))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);

    // The genuine form works.
    let approved = decide(&server, &cookie, &approve_with(&fields), &server.url).await;
    assert!(param(&location(&approved), "code").is_some());
}

#[tokio::test]
async fn codes_are_single_use_bound_to_client_and_verifier() {
    let (_dir, server) = start_app().await;
    let client_id = register(&server, "Attack test").await;
    let other_client = register(&server, "Other client").await;
    let cookie = sign_in(&server).await;

    // Wrong verifier, then another client's exchange: both refused (the
    // first attempt consumed the code).
    let code = approve(&server, &cookie, &client_id).await;
    let (status, body) = exchange(
        &server,
        &client_id,
        &code,
        "the-wrong-verifier-which-is-long-enough-for-rfc-7636-0123",
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let code = approve(&server, &cookie, &client_id).await;
    let (status, body) = exchange(&server, &other_client, &code, VERIFIER).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let (status, body) = exchange(&server, "cassis-unknown", &code, VERIFIER).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_client"))
    );

    // A code for another resource.
    let code = approve(&server, &cookie, &client_id).await;
    let (status, body) = token(
        &server,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
            ("resource", "https://evil.example.com/mcp/"),
        ],
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );

    // Reuse: the second exchange fails and ends what the first started.
    let code = approve(&server, &cookie, &client_id).await;
    let (status, tokens) = exchange(&server, &client_id, &code, VERIFIER).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["scope"], "mcp");
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_ping(&server, access).await.0, StatusCode::OK);
    let (status, body) = exchange(&server, &client_id, &code, VERIFIER).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    assert_eq!(mcp_ping(&server, access).await.0, StatusCode::UNAUTHORIZED);
    let (status, _) = refresh(
        &server,
        &client_id,
        tokens["refresh_token"].as_str().unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn refresh_tokens_rotate_and_a_replay_revokes_the_grant() {
    let (_dir, server) = start_app().await;
    let (client_id, first) = connected(&server).await;
    let first_refresh = first["refresh_token"].as_str().unwrap();

    let (status, second) = refresh(&server, &client_id, first_refresh).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let second_refresh = second["refresh_token"].as_str().unwrap();
    assert_ne!(second_refresh, first_refresh);
    let second_access = second["access_token"].as_str().unwrap();
    assert_eq!(mcp_ping(&server, second_access).await.0, StatusCode::OK);

    // Another client cannot use it.
    let other = register(&server, "Other client").await;
    let (status, body) = refresh(&server, &other, second_refresh).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );

    // Replaying the first one ends the grant: the current refresh and access
    // tokens stop working too.
    let (status, body) = refresh(&server, &client_id, first_refresh).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let (status, _) = refresh(&server, &client_id, second_refresh).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        mcp_ping(&server, second_access).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn revocation_ends_access_at_once() {
    let (_dir, server) = start_app().await;
    let (client_id, tokens) = connected(&server).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_ping(&server, access).await.0, StatusCode::OK);
    let revoked = server
        .post(format!("{}/oauth/revoke", server.url))
        .form(&[("token", access), ("client_id", &client_id)])
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::OK);
    assert_eq!(mcp_ping(&server, access).await.0, StatusCode::UNAUTHORIZED);
    let (status, _) = refresh(
        &server,
        &client_id,
        tokens["refresh_token"].as_str().unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Unknown tokens are not an error (RFC 7009).
    let unknown = server
        .post(format!("{}/oauth/revoke", server.url))
        .form(&[("token", "nonsense")])
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::OK);
}

#[tokio::test]
async fn forged_expired_tampered_and_misdirected_tokens_are_refused() {
    let (dir, server) = start_app().await;
    let (_client_id, tokens) = connected(&server).await;
    let genuine = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_ping(&server, genuine).await.0, StatusCode::OK);

    // The server's own key, read from its database: tokens it signs differ
    // from the genuine one in one claim only.
    let database = format!(
        "sqlite://{}",
        dir.path().join("data/cassis.sqlite").display()
    );
    let pool = sqlx::SqlitePool::connect(&database).await.unwrap();
    let stored: String = sqlx::query_scalar("SELECT private_key FROM oauth_signing_keys")
        .fetch_one(&pool)
        .await
        .unwrap();
    // The database alone holds no usable key: it is sealed, and only the
    // secret file beside it opens it.
    assert!(SigningKey::from_stored(&stored).is_none(), "{stored}");
    let secret = std::fs::read_to_string(dir.path().join("data/signing-key.secret")).unwrap();
    let sealing = SealingKey::from_secret(&secret).unwrap();
    let key = SigningKey::from_sealed(&stored, &sealing).unwrap();
    let payload = genuine.split('.').nth(1).unwrap();
    use base64::Engine;
    let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    let claims: AccessClaims = serde_json::from_slice(&decoded).unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let signed = |change: &dyn Fn(&mut AccessClaims)| {
        let mut claims = claims.clone();
        change(&mut claims);
        key.sign(&claims)
    };
    assert_eq!(
        mcp_ping(&server, &signed(&|_| {})).await.0,
        StatusCode::OK,
        "re-signing alone changes nothing"
    );

    let unauthorized = |(status, challenge): (StatusCode, Option<String>)| {
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(challenge.unwrap().contains("resource_metadata="));
    };
    unauthorized(mcp_ping(&server, &signed(&|c| c.exp = now - 120)).await);
    unauthorized(
        mcp_ping(
            &server,
            &signed(&|c| c.aud = "https://evil.example.com/mcp/".into()),
        )
        .await,
    );
    unauthorized(
        mcp_ping(
            &server,
            &signed(&|c| c.iss = "https://evil.example.com".into()),
        )
        .await,
    );
    unauthorized(
        mcp_ping(
            &server,
            &signed(&|c| c.gid = uuid::Uuid::new_v4().to_string()),
        )
        .await,
    );

    // Tampered payload under the genuine signature; `alg: none`; a stranger's key.
    let parts: Vec<&str> = genuine.split('.').collect();
    let mut forged = claims.clone();
    forged.scope = "mcp admin".into();
    let forged_payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(serde_json::to_vec(&forged).unwrap());
    unauthorized(
        mcp_ping(
            &server,
            &format!("{}.{forged_payload}.{}", parts[0], parts[2]),
        )
        .await,
    );
    let none_header = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!(
        r#"{{"alg":"none","typ":"JWT","kid":"{}"}}"#,
        key.id
    ));
    unauthorized(mcp_ping(&server, &format!("{none_header}.{payload}.")).await);
    unauthorized(mcp_ping(&server, &SigningKey::generate().sign(&claims)).await);

    // A valid token without the MCP scope is a 403 naming the scope.
    let (status, challenge) = mcp_ping(&server, &signed(&|c| c.scope = "profile".into())).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let challenge = challenge.unwrap();
    assert!(
        challenge.contains("error=\"insufficient_scope\"") && challenge.contains("scope=\"mcp\""),
        "{challenge}"
    );
}

/// The official conformance suite's authorization-server scenarios (metadata
/// and the authorization-code grant), with the login and consent a person
/// would do in the browser scripted here.
#[tokio::test]
async fn the_conformance_suite_authorization_scenarios_pass() {
    use std::io::{BufRead, BufReader};
    let Some(bin) = common::mcp::conformance_bin() else {
        return;
    };
    let (_dir, server) = start();
    let callback_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let redirect = format!("http://127.0.0.1:{callback_port}/callback");
    let registered = http()
        .post(format!("{}/oauth/register", server.url))
        .json(&json!({"client_name": "Conformance suite", "redirect_uris": [redirect]}))
        .send()
        .await
        .unwrap();
    let client_id = registered.json::<Value>().await.unwrap()["client_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = std::process::Command::new(bin.join("conformance"))
        .env("PATH", &path)
        .args([
            "authorization",
            "--url",
            &server.url,
            "--client-id",
            &client_id,
        ])
        .args(["--resource", &format!("{}/mcp/", server.url)])
        .args(["--port", &callback_port.to_string()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();

    // The suite prints the authorize URL and waits for the browser.
    let (lines_tx, lines_rx) = std::sync::mpsc::channel::<String>();
    let stdout_pipe = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout_pipe).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let prefix = format!("{}/oauth/authorize?", server.url);
    let mut transcript = String::new();
    let authorize_url = loop {
        let line = lines_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the suite printed no authorize URL:\n{transcript}"));
        transcript.push_str(&line);
        transcript.push('\n');
        if line.starts_with(&prefix) {
            break line;
        }
    };
    let cookie = sign_in(&server).await;
    let page = http()
        .get(&authorize_url)
        .header(COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let mut fields = consent_fields(&page.text().await.unwrap());
    fields.push(("decision".into(), "approve".into()));
    let approved = decide(&server, &cookie, &fields, &server.url).await;
    let callback = location(&approved);
    assert!(callback.starts_with(&redirect), "{callback}");
    // The browser follows the redirect to the suite's callback server.
    assert_eq!(
        http().get(&callback).send().await.unwrap().status(),
        StatusCode::OK
    );

    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    while let Ok(line) = lines_rx.recv_timeout(std::time::Duration::from_secs(1)) {
        transcript.push_str(&line);
        transcript.push('\n');
    }
    assert!(
        status.success(),
        "the authorization scenarios failed:\n{transcript}"
    );
    assert!(
        transcript.contains("✓ authorization-server-metadata-endpoint"),
        "{transcript}"
    );
    assert!(
        transcript.contains("✓ authorization-code-grant"),
        "{transcript}"
    );
    assert!(transcript.contains(" 0 failed"), "{transcript}");
}

/// The Rust `oauth2` crate as a second, independent client: code with PKCE,
/// refresh, revocation.
#[tokio::test]
async fn the_oauth2_crate_authorizes_refreshes_and_revokes() {
    use oauth2::basic::BasicClient;
    use oauth2::{
        AuthUrl, AuthorizationCode, ClientId, CsrfToken, PkceCodeChallenge, RedirectUrl,
        RevocationUrl, Scope, StandardRevocableToken, TokenResponse, TokenUrl,
    };
    let (_dir, server) = start();
    let client_id = register(&server, "oauth2 crate").await;
    let client = BasicClient::new(ClientId::new(client_id))
        .set_auth_uri(AuthUrl::new(format!("{}/oauth/authorize", server.url)).unwrap())
        .set_token_uri(TokenUrl::new(format!("{}/oauth/token", server.url)).unwrap())
        .set_redirect_uri(RedirectUrl::new(REDIRECT.to_owned()).unwrap())
        .set_revocation_url(RevocationUrl::new(format!("{}/oauth/revoke", server.url)).unwrap());
    let resource = format!("{}/mcp/", server.url);
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (authorize_url, csrf) = client
        .authorize_url(CsrfToken::new_random)
        .add_scope(Scope::new("mcp".to_owned()))
        .add_extra_param("resource", &resource)
        .set_pkce_challenge(challenge)
        .url();

    let cookie = sign_in(&server).await;
    let page = http()
        .get(authorize_url.as_str())
        .header(COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    let mut fields = consent_fields(&page.text().await.unwrap());
    fields.push(("decision".into(), "approve".into()));
    let redirect = location(&decide(&server, &cookie, &fields, &server.url).await);
    assert_eq!(
        param(&redirect, "state").as_deref(),
        Some(csrf.secret().as_str())
    );
    let code = param(&redirect, "code").unwrap();

    let transport = http();
    let tokens = client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", &resource)
        .request_async(&transport)
        .await
        .unwrap();
    assert_eq!(
        mcp_ping(&server, tokens.access_token().secret()).await.0,
        StatusCode::OK
    );
    let refreshed = client
        .exchange_refresh_token(tokens.refresh_token().unwrap())
        .request_async(&transport)
        .await
        .unwrap();
    assert_ne!(
        refreshed.refresh_token().unwrap().secret(),
        tokens.refresh_token().unwrap().secret()
    );
    let access = refreshed.access_token().secret().clone();
    assert_eq!(mcp_ping(&server, &access).await.0, StatusCode::OK);

    // The crate builds revocation requests only for https endpoints (RFC 7009
    // requires TLS), so the same form goes out by hand on this http test server.
    assert!(matches!(
        client.revoke_token(StandardRevocableToken::RefreshToken(
            refreshed.refresh_token().unwrap().clone(),
        )),
        Err(oauth2::ConfigurationError::InsecureUrl("revocation"))
    ));
    let revoked = http()
        .post(client.revocation_url().as_str())
        .form(&[
            (
                "token",
                refreshed.refresh_token().unwrap().secret().as_str(),
            ),
            ("token_type_hint", "refresh_token"),
            ("client_id", client.client_id().as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::OK);
    assert_eq!(mcp_ping(&server, &access).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn connected_clients_are_listed_and_disconnected_by_their_user_or_an_admin() {
    let (dir, server) = start_app().await;
    let (_client_id, tokens) = connected(&server).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(mcp_ping(&server, access).await.0, StatusCode::OK);
    let admin = sign_in(&server).await;

    let (status, body) = server
        .server_fn(&admin, "list_connected_clients", &[])
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let listed: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(listed[0]["client_name"], "Attack test");
    assert_eq!(listed[0]["user_email"], ADMIN_EMAIL);
    assert_eq!(listed[0]["active"], true);
    assert!(
        listed[0]["last_used_at"]
            .as_str()
            .unwrap()
            .ends_with(" UTC")
    );
    let grant_id = listed[0]["grant_id"].as_str().unwrap().to_owned();

    // Another user sees none of it and cannot disconnect it.
    common::create_user(
        cassis(&dir.path().join("data")),
        "viewer@example.com",
        "viewer",
        "viewer password",
    );
    let viewer = {
        let response = server
            .post(format!("{}/api/login", server.url))
            .header(ORIGIN, &server.url)
            .form(&[
                ("email", "viewer@example.com"),
                ("password", "viewer password"),
            ])
            .send()
            .await
            .unwrap();
        response.headers()[SET_COOKIE]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned()
    };
    let (status, body) = server
        .server_fn(&viewer, "list_connected_clients", &[])
        .await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "[]"));
    let (status, _) = server
        .server_fn(&viewer, "disconnect_client", &[("grant_id", &grant_id)])
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(mcp_ping(&server, access).await.0, StatusCode::OK);

    // The admin disconnects it: within the credential cache's few seconds
    // the token stops working, and the list says so.
    let (status, body) = server
        .server_fn(&admin, "disconnect_client", &[("grant_id", &grant_id)])
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while mcp_ping(&server, access).await.0 == StatusCode::OK {
        assert!(
            std::time::Instant::now() < deadline,
            "the token still works"
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    let (_, body) = server
        .server_fn(&admin, "list_connected_clients", &[])
        .await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()[0]["active"],
        false
    );
}

/// The real process without the demo project, for a test that reads its log.
fn process_without_demo() -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("data"), |c| {
        c.arg("--no-demo");
    });
    (dir, server)
}

/// The router in-process without the demo project.
async fn start_without_demo(args: &[&str]) -> (tempfile::TempDir, TestApp) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["--no-demo"];
    all.extend(args);
    let server = TestApp::start(&dir.path().join("data"), &all).await;
    (dir, server)
}

/// What a client id makes `/oauth/authorize` answer before anyone signs in.
async fn authorize_answer(server: &impl Reach, client_id: &str) -> (StatusCode, String) {
    let response = get_authorize(
        server,
        None,
        &with_resource(server, authorize_params(client_id)),
    )
    .await;
    (response.status(), response.text().await.unwrap())
}

/// A client id that is a metadata document URL makes Cassis fetch it before
/// anyone signs in. Pointed at the network Cassis runs in, the fetch must
/// connect nowhere, and every failure must read the same, or the answers
/// would tell which internal ports are open.
#[tokio::test]
async fn metadata_document_urls_cannot_reach_or_probe_the_internal_network() {
    let (_dir, server) = process_without_demo();
    // An internal service that must never see a connection from Cassis.
    let internal = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let open = internal.local_addr().unwrap().port();
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client_ids = [
        format!("https://127.0.0.1:{open}/client.json"),
        format!("https://127.0.0.1:{closed}/client.json"),
        format!("https://localhost:{open}/client.json"),
        format!("https://[::ffff:127.0.0.1]:{open}/client.json"),
        "https://169.254.169.254/latest/meta-data/client.json".to_owned(),
        "https://cassis-test.invalid/client.json".to_owned(),
    ];
    let mut answers = Vec::new();
    for client_id in &client_ids {
        let (status, body) = authorize_answer(&server, client_id).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{client_id}: {body}");
        answers.push((client_id, body));
    }
    internal.set_nonblocking(true).unwrap();
    assert!(
        matches!(internal.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "Cassis connected to a loopback port named in a client id"
    );
    for (client_id, body) in &answers[1..] {
        assert_eq!(
            body, &answers[0].1,
            "{client_id} is answered differently from {}",
            answers[0].0
        );
    }
    assert!(
        answers[0]
            .1
            .contains("its client metadata document could not be fetched or used"),
        "{}",
        answers[0].1
    );

    // The token endpoint fetches unknown metadata documents too.
    let mut descriptions = Vec::new();
    for port in [open, closed] {
        let (status, body) = token(
            &server,
            &[
                ("grant_type", "authorization_code"),
                ("client_id", &format!("https://127.0.0.1:{port}/other.json")),
                ("code", "x"),
                ("redirect_uri", REDIRECT),
                ("code_verifier", VERIFIER),
            ],
        )
        .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
        assert_eq!(body["error"], "invalid_client");
        descriptions.push(body["error_description"].clone());
    }
    assert_eq!(descriptions[0], descriptions[1]);

    // The reasons are in the log, for the operator.
    assert!(
        server.log_text().contains("not a public address"),
        "{}",
        server.log_text()
    );
}

/// A failed document is not fetched again for a while, however often it is
/// asked for; new URLs from one address are fetched only so often.
#[tokio::test]
async fn metadata_document_fetches_are_remembered_and_limited_per_address() {
    let (_dir, server) = start_without_demo(&[]).await;
    let same = "https://127.0.0.1:1/client.json";
    for _ in 0..30 {
        let (status, body) = authorize_answer(&server, same).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    }
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for i in 0..30 {
        let response = get_authorize(
            &server,
            None,
            &with_resource(
                &server,
                authorize_params(&format!("https://127.0.0.1:1/client-{i}.json")),
            ),
        )
        .await;
        statuses.push(response.status());
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            retry_after = response
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
            break;
        }
    }
    // The same URL thirty times counted once; then a burst of new ones.
    assert!(
        statuses[..5].iter().all(|s| *s == StatusCode::BAD_REQUEST),
        "{statuses:?}"
    );
    assert_eq!(
        statuses.last(),
        Some(&StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
    assert!(retry_after.is_some_and(|s| s >= 1), "{retry_after:?}");
    // The remembered failure is still answered, without a fetch.
    assert_eq!(
        authorize_answer(&server, same).await.0,
        StatusCode::BAD_REQUEST
    );
}

async fn register_raw(server: &impl Reach, name: &str) -> Response {
    server
        .post(format!("{}/oauth/register", server.url()))
        .json(&json!({"client_name": name, "redirect_uris": [REDIRECT]}))
        .send()
        .await
        .unwrap()
}

/// One address may register only so often, and is told when to retry.
#[tokio::test]
async fn registration_is_limited_per_address() {
    let (_dir, server) = start_without_demo(&[]).await;
    let mut statuses = Vec::new();
    for i in 0..40 {
        let response = register_raw(&server, &format!("Flood {i}")).await;
        let status = response.status();
        statuses.push(status);
        if status == StatusCode::TOO_MANY_REQUESTS {
            let retry_after: u64 = response.headers()["retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(retry_after >= 1);
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"], "temporarily_unavailable");
            break;
        }
    }
    assert!(
        statuses[..5].iter().all(|s| *s == StatusCode::CREATED),
        "{statuses:?}"
    );
    assert_eq!(
        statuses.last(),
        Some(&StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
}

/// Registrations nobody ever used are capped; a client that was used (an
/// authorization code was issued to it) no longer counts.
#[tokio::test]
async fn registered_clients_that_were_never_used_are_capped() {
    let (_dir, server) = start_without_demo(&["--oauth-max-unused-clients", "2"]).await;
    let first = register(&server, "First").await;
    register(&server, "Second").await;
    let refused = register_raw(&server, "Third").await;
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "temporarily_unavailable");
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .contains("never used"),
        "{body}"
    );

    let cookie = sign_in(&server).await;
    approve(&server, &cookie, &first).await;
    register(&server, "Third").await;
    assert_eq!(
        register_raw(&server, "Fourth").await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
}

/// The consent page cannot be framed by another site (clickjacking the
/// Approve button), while its form may still end at the client.
#[tokio::test]
async fn the_consent_page_cannot_be_framed() {
    let (_dir, server) = start_without_demo(&[]).await;
    let client_id = register(&server, "Framed").await;
    let cookie = sign_in(&server).await;
    let page = get_authorize(
        &server,
        Some(&cookie),
        &with_resource(&server, authorize_params(&client_id)),
    )
    .await;
    assert_eq!(page.status(), StatusCode::OK);
    page.assert_page_headers("form-action 'self' http://127.0.0.1:45454");
}

/// The signing keys as the database and its backups hold them: sealed under
/// a secret kept apart (a 0600 file in the data directory here), keys from
/// before sealing are sealed at the next start, and a server given another
/// secret refuses to start rather than sign with keys it cannot open.
#[tokio::test]
async fn signing_keys_are_sealed_at_rest_and_open_only_with_their_secret() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    let secret_file = data.join("signing-key.secret");
    let mode = std::fs::metadata(&secret_file)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    server.terminate();

    // A key stored as an older Cassis stored it, unsealed, and newest.
    let database = format!("sqlite://{}", data.join("cassis.sqlite").display());
    let legacy = SigningKey::generate();
    {
        let pool = sqlx::SqlitePool::connect(&database).await.unwrap();
        sqlx::query(
            "INSERT INTO oauth_signing_keys (id, private_key, public_key, created_at) \
             VALUES ($1, $2, $3, 9999999999999)",
        )
        .bind(&legacy.id)
        .bind(legacy.stored_private_key())
        .bind(legacy.stored_public_key())
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
    }
    let mut server = Server::start(&data, |c| {
        c.arg("--no-demo");
    });
    let backup = dir.path().join("backup.sqlite");
    let output = cassis(&data).arg("backup").arg(&backup).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let sealing = SealingKey::from_secret(&std::fs::read_to_string(&secret_file).unwrap()).unwrap();
    for copy in [data.join("cassis.sqlite"), backup] {
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", copy.display()))
            .await
            .unwrap();
        let stored: Vec<(String, String)> =
            sqlx::query_as("SELECT id, private_key FROM oauth_signing_keys")
                .fetch_all(&pool)
                .await
                .unwrap();
        pool.close().await;
        assert_eq!(stored.len(), 2, "{}", copy.display());
        for (id, private_key) in stored {
            assert!(is_sealed(&private_key), "{id} in {}", copy.display());
            assert!(SigningKey::from_stored(&private_key).is_none());
            assert_eq!(
                SigningKey::from_sealed(&private_key, &sealing).unwrap().id,
                id
            );
        }
    }
    // The legacy key, newest, still signs what the server issues.
    let jwks: Value = http()
        .get(format!("{}/oauth/jwks.json", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(jwks.to_string().contains(&legacy.id), "{jwks}");
    server.terminate();

    // Another secret opens none of them: the server stops at start.
    let refused = cassis(&data)
        .args(["serve", "--addr", "127.0.0.1:0", "--no-demo"])
        .env("CASSIS_SIGNING_KEY_SECRET", SealingKey::generate_secret())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let message = stderr(&refused);
    assert!(message.contains("sealed under another secret"), "{message}");
}

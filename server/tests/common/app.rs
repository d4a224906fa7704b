//! The server in-process: the router `cassis serve` runs, on the state it
//! prepares, driven with `oneshot` over a temporary SQLite store. Requests
//! are built with reqwest, as a client would send them, and answered
//! without a socket or a process. What needs the process (signals, the CLI,
//! the MCP SDK and conformance clients, the browser) uses [`super::Server`].

use super::{ADMIN_EMAIL, ADMIN_PASSWORD};
use axum::body::Body;
use axum::extract::ConnectInfo;
use cassis::cli::Cli;
use cassis::commands::serve;
use cassis::config::Settings;
use cassis::startup::FirstAdmin;
use clap::Parser;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_LENGTH, COOKIE, HOST, HeaderMap, ORIGIN, SET_COOKIE};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use tower::ServiceExt;

/// The address requests come from, as a client on the same machine.
const PEER: ([u8; 4], u16) = ([127, 0, 0, 1], 50_000);

/// The router of a server on `data_dir`, with its first admin signed up.
pub struct TestApp {
    /// The public URL; requests name it as they would name a real server.
    pub url: String,
    router: axum::Router,
    /// Writes the MCP audit log while the app lives.
    _audit: cassis::mcp::AuditWriter,
}

impl TestApp {
    /// Prepares what `cassis serve` prepares with these settings (given as
    /// its flags) and the demo project at the smallest scale, unless
    /// `--no-demo` is among them.
    pub async fn start(data_dir: &Path, args: &[&str]) -> TestApp {
        let data = data_dir.to_str().expect("a UTF-8 path");
        let cli = Cli::try_parse_from(
            ["cassis", "--data-dir", data, "--demo-scale-factor", "0.01"]
                .iter()
                .chain(args),
        )
        .expect("valid settings");
        let settings = Settings::resolve(&cli.settings).expect("valid settings");
        let store = cassis::commands::open_store(&settings)
            .await
            .expect("the metadata database opens");
        let admin = FirstAdmin {
            email: Some(ADMIN_EMAIL.to_owned()),
            password: Some(ADMIN_PASSWORD.to_owned()),
        };
        let (state, audit) = serve::prepare(&settings, store, admin, None)
            .await
            .expect("the server prepares");
        TestApp {
            url: settings.public_url.clone(),
            router: cassis::router::app(state),
            _audit: audit,
        }
    }
}

impl Reach for TestApp {
    fn url(&self) -> &str {
        &self.url
    }

    fn in_process(&self) -> Option<&TestApp> {
        Some(self)
    }
}

impl Reach for super::Server {
    fn url(&self) -> &str {
        &self.url
    }

    fn in_process(&self) -> Option<&TestApp> {
        None
    }
}

/// A server tests speak HTTP to, in-process ([`TestApp`]) or the real
/// process ([`super::Server`]), with the one copy of what every test does:
/// sign in, call a server function, call an MCP tool.
#[allow(async_fn_in_trait)]
pub trait Reach {
    /// The public URL; requests name it as they would name a real server.
    fn url(&self) -> &str;

    /// The app that answers in-process; `None` to send over the network.
    fn in_process(&self) -> Option<&TestApp>;

    /// A request to `url`, on this server, built as reqwest builds it;
    /// redirects are not followed.
    fn request(&self, method: reqwest::Method, url: impl AsRef<str>) -> Request<'_> {
        let url = url.as_ref();
        assert!(
            url.starts_with(self.url()),
            "{url} is not on {}",
            self.url()
        );
        Request {
            app: self.in_process(),
            builder: super::session::client().request(method, url),
        }
    }

    fn get(&self, url: impl AsRef<str>) -> Request<'_> {
        self.request(reqwest::Method::GET, url)
    }

    fn post(&self, url: impl AsRef<str>) -> Request<'_> {
        self.request(reqwest::Method::POST, url)
    }

    /// Signs in through the login server function, as the login form does;
    /// the status and the session cookie.
    async fn sign_in(&self, email: &str, password: &str) -> (StatusCode, Option<String>) {
        let response = self.login(email, password).await;
        let cookie = response
            .headers()
            .get_all(SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .find(|c| c.starts_with("cassis_session=") && !c.starts_with("cassis_session=;"));
        (response.status(), cookie)
    }

    /// A login attempt as the login form sends it.
    async fn login(&self, email: &str, password: &str) -> Response {
        self.post(format!("{}/api/login", self.url()))
            .header(ORIGIN, self.url())
            .form(&[("email", email), ("password", password)])
            .send()
            .await
            .unwrap()
    }

    /// Calls a server function with form fields, as the signed-in browser
    /// of `set_cookie` would (an `ActionForm` posts them so); the status and
    /// the body.
    async fn server_fn(
        &self,
        set_cookie: &str,
        function: &str,
        form: &[(&str, &str)],
    ) -> (StatusCode, String) {
        let response = self
            .post(format!("{}/api/{function}", self.url()))
            .header(COOKIE, super::session::cookie_pair(set_cookie))
            .header(ORIGIN, self.url())
            .form(form)
            .send()
            .await
            .unwrap();
        (response.status(), response.text().await.unwrap())
    }

    /// Posts an MCP `tools/call` of `tool` with `arguments`, authorized by
    /// `token` (an API key or an OAuth access token).
    async fn mcp_tool(&self, token: &str, tool: &str, arguments: serde_json::Value) -> Response {
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        });
        self.post(format!("{}/mcp/", self.url()))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
    }

    /// Calls `tool` and returns its structured result.
    async fn call_tool(
        &self,
        token: &str,
        tool: &str,
        arguments: serde_json::Value,
    ) -> serde_json::Value {
        let response = self.mcp_tool(token, tool, arguments).await;
        assert_eq!(response.status(), StatusCode::OK);
        let reply: serde_json::Value = response.json().await.unwrap();
        reply["result"]["structuredContent"].clone()
    }
}

/// A request being built with reqwest's builder.
pub struct Request<'a> {
    /// `None`: sent over the network.
    app: Option<&'a TestApp>,
    builder: reqwest::RequestBuilder,
}

impl Request<'_> {
    pub fn header<K, V>(mut self, key: K, value: V) -> Self
    where
        reqwest::header::HeaderName: TryFrom<K>,
        <reqwest::header::HeaderName as TryFrom<K>>::Error: Into<http::Error>,
        reqwest::header::HeaderValue: TryFrom<V>,
        <reqwest::header::HeaderValue as TryFrom<V>>::Error: Into<http::Error>,
    {
        self.builder = self.builder.header(key, value);
        self
    }

    pub fn query<T: serde::Serialize + ?Sized>(mut self, query: &T) -> Self {
        self.builder = self.builder.query(query);
        self
    }

    pub fn form<T: serde::Serialize + ?Sized>(mut self, form: &T) -> Self {
        self.builder = self.builder.form(form);
        self
    }

    pub fn json<T: serde::Serialize + ?Sized>(mut self, json: &T) -> Self {
        self.builder = self.builder.json(json);
        self
    }

    pub fn bearer_auth(mut self, token: impl std::fmt::Display) -> Self {
        self.builder = self.builder.bearer_auth(token);
        self
    }

    pub fn body(mut self, body: impl Into<reqwest::Body>) -> Self {
        self.builder = self.builder.body(body);
        self
    }

    /// Sends the request and reads the answer whole. Never fails but by
    /// panicking: the `Result` is there so that calls read as with reqwest.
    pub async fn send(self) -> Result<Response, Infallible> {
        let Some(app) = self.app else {
            let response = self.builder.send().await.expect("the server answers");
            return Ok(Response {
                status: response.status(),
                headers: response.headers().clone(),
                body: response.bytes().await.expect("the body is read").to_vec(),
            });
        };
        let request = self.builder.build().expect("a well-formed request");
        let request = http::Request::try_from(request).expect("a request http can carry");
        let (mut parts, body) = request.into_parts();
        let body = body.as_bytes().unwrap_or_default().to_vec();
        // What the connection would add: the host, the body's length, the peer.
        let authority = parts.uri.authority().expect("an absolute URL").to_string();
        if !parts.headers.contains_key(HOST) {
            parts.headers.insert(HOST, authority.parse().unwrap());
        }
        if !body.is_empty() {
            parts.headers.insert(CONTENT_LENGTH, body.len().into());
        }
        parts.uri = parts
            .uri
            .path_and_query()
            .expect("a path")
            .as_str()
            .parse()
            .unwrap();
        parts.extensions.insert(ConnectInfo(SocketAddr::from(PEER)));
        let request = http::Request::from_parts(parts, Body::from(body));
        let response = app.router.clone().oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX)
            .await
            .expect("the body is read");
        Ok(Response {
            status: parts.status,
            headers: parts.headers,
            body: body.to_vec(),
        })
    }
}

/// An answer, read whole; its methods are reqwest's.
#[derive(Debug)]
pub struct Response {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Response {
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// Asserts the headers every page carries: it cannot be framed, carry
    /// a foreign `<base>` or plugin, leak its URL to other sites or be
    /// sniffed into another type, and posts forms only as `form_action`
    /// (the policy's directive) allows.
    pub fn assert_page_headers(&self, form_action: &str) {
        let header = |name: &str| {
            self.headers()
                .get(name)
                .unwrap_or_else(|| panic!("no {name} header"))
                .to_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(header("x-frame-options"), "DENY");
        assert_eq!(header("x-content-type-options"), "nosniff");
        assert_eq!(header("referrer-policy"), "same-origin");
        let policy = header("content-security-policy");
        for directive in [
            "frame-ancestors 'none'",
            "base-uri 'self'",
            "object-src 'none'",
            form_action,
        ] {
            assert!(policy.contains(directive), "{policy}");
        }
    }

    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    pub async fn text(self) -> Result<String, Infallible> {
        Ok(String::from_utf8_lossy(&self.body).into_owned())
    }

    pub async fn json<T: serde::de::DeserializeOwned>(self) -> serde_json::Result<T> {
        serde_json::from_slice(&self.body)
    }
}

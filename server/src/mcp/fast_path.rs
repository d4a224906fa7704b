//! A direct answer for the hottest MCP request: a plain `tools/call` of a
//! tool without arguments (`ping`, `list_projects`) on a 2025 protocol
//! version. For it the stateless transport would build a one-shot service,
//! spawn it and pass the message through channels, several times the cost of
//! the call itself; answering here keeps agents' health checks and project
//! lookups cheap under load. Anything not recognised exactly (other methods
//! and tools, arguments, `_meta`, the 2026 headers, sessions) goes on to rmcp
//! unchanged, and the answer is the bytes rmcp would send (tested side by
//! side), so clients cannot tell the paths apart.

use super::tools::{CassisTools, Pong};
use super::{Caller, MAX_MCP_BODY_BYTES};
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::header::{ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use rmcp::ErrorData;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::OnceLock;

/// Protocol versions whose `tools/call` needs no per-request metadata.
const PLAIN_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The one request shape answered here; unknown fields send it to rmcp.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainCall {
    jsonrpc: String,
    id: Value,
    method: String,
    params: CallParams,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<serde_json::Map<String, Value>>,
}

/// A JSON-RPC response, fields in rmcp's order.
#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    jsonrpc: &'static str,
    id: &'a Value,
    #[serde(flatten)]
    outcome: T,
}

#[derive(Serialize)]
struct Success {
    result: Cow<'static, RawValue>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult {
    content: [TextContent; 1],
    structured_content: Value,
    is_error: bool,
}

#[derive(Serialize)]
struct TextContent {
    r#type: &'static str,
    text: String,
}

#[derive(Serialize)]
struct Failure {
    error: ErrorData,
}

/// The MCP endpoint behind the credential check: the direct answer where it
/// applies, rmcp's transport for everything else.
pub struct McpEndpoint {
    tools: CassisTools,
    rmcp: StreamableHttpService<CassisTools, NeverSessionManager>,
    /// The hosts rmcp accepts; the direct answer checks the same.
    allowed_hosts: Vec<Authority>,
}

impl McpEndpoint {
    pub fn new(
        tools: CassisTools,
        rmcp: StreamableHttpService<CassisTools, NeverSessionManager>,
        allowed_hosts: Vec<String>,
    ) -> Self {
        Self {
            tools,
            rmcp,
            allowed_hosts: parse_hosts(&allowed_hosts),
        }
    }

    pub async fn serve(&self, request: Request) -> Response {
        if !is_plain_post(request.method(), request.headers())
            || !host_allowed(request.headers(), &self.allowed_hosts)
        {
            return self.with_rmcp(request).await;
        }
        let (parts, body) = request.into_parts();
        let bytes = match axum::body::to_bytes(body, MAX_MCP_BODY_BYTES).await {
            Ok(bytes) => bytes,
            Err(_) => return StatusCode::PAYLOAD_TOO_LARGE.into_response(),
        };
        let call = match serde_json::from_slice::<PlainCall>(&bytes) {
            Ok(call) if is_answerable(&call) => call,
            _ => {
                return self
                    .with_rmcp(Request::from_parts(parts, Body::from(bytes)))
                    .await;
            }
        };
        let Some(caller) = parts.extensions.get::<Caller>() else {
            // The credential layer runs first; without it, let rmcp refuse.
            return self
                .with_rmcp(Request::from_parts(parts, Body::from(bytes)))
                .await;
        };
        answer(&self.tools, caller, &call).await
    }

    async fn with_rmcp(&self, request: Request) -> Response {
        // Boxed, so the direct answer's future stays small: rmcp's is large.
        Box::pin(self.rmcp.handle(request)).await.map(Body::new)
    }
}

async fn answer(tools: &CassisTools, caller: &Caller, call: &PlainCall) -> Response {
    let result = match call.params.name.as_str() {
        // Recorded like every call; its result never changes.
        "ping" => tools
            .pong(caller)
            .await
            .map(|_| Cow::Borrowed(pong_result())),
        _ => Box::pin(tools.projects(caller))
            .await
            .and_then(|projects| tool_result(&projects))
            .map(Cow::Owned),
    };
    let mut body = Vec::with_capacity(256);
    let written = match result {
        Ok(result) => serde_json::to_writer(
            &mut body,
            &Envelope {
                jsonrpc: "2.0",
                id: &call.id,
                outcome: Success { result },
            },
        ),
        Err(error) => serde_json::to_writer(
            &mut body,
            &Envelope {
                jsonrpc: "2.0",
                id: &call.id,
                outcome: Failure { error },
            },
        ),
    };
    match written {
        Ok(()) => (
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            Bytes::from(body),
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// `ping`'s `CallToolResult`, serialised once.
fn pong_result() -> &'static RawValue {
    static RESULT: OnceLock<Box<RawValue>> = OnceLock::new();
    RESULT.get_or_init(|| tool_result(&Pong::OK).expect("a constant serialises"))
}

/// A tool's result as rmcp writes it: the structured content and its text,
/// both from a `Value`, whose keys serde_json sorts, so the bytes match.
fn tool_result<T: Serialize>(output: &T) -> Result<Box<RawValue>, ErrorData> {
    let internal = |e: serde_json::Error| ErrorData::internal_error(e.to_string(), None);
    let structured_content = serde_json::to_value(output).map_err(internal)?;
    serde_json::value::to_raw_value(&CallToolResult {
        content: [TextContent {
            r#type: "text",
            text: structured_content.to_string(),
        }],
        structured_content,
        is_error: false,
    })
    .map_err(internal)
}

/// The Host check rmcp makes against DNS rebinding (a listed host, with its
/// port when the entry names one). Anything unusual goes to rmcp to refuse.
fn host_allowed(headers: &HeaderMap, allowed: &[Authority]) -> bool {
    let Some(host) = headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| Authority::try_from(v).ok())
    else {
        return false;
    };
    allowed.iter().any(|entry| {
        entry.host().eq_ignore_ascii_case(host.host())
            && entry
                .port_u16()
                .is_none_or(|port| host.port_u16() == Some(port))
    })
}

/// The allowed hosts, parsed once; an entry that does not parse matches nothing.
fn parse_hosts(hosts: &[String]) -> Vec<Authority> {
    hosts
        .iter()
        .filter_map(|host| Authority::try_from(host.as_str()).ok())
        .collect()
}

/// A POST rmcp would accept on the stateless path with JSON back: JSON in,
/// both media types accepted, a 2025 version, no session or 2026 headers,
/// no Origin (a browser's request goes to rmcp's Origin check).
fn is_plain_post(method: &Method, headers: &HeaderMap) -> bool {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let json_body = header(CONTENT_TYPE.as_str()).is_some_and(|value| {
        let essence = value.split(';').next().unwrap_or_default().trim();
        essence.eq_ignore_ascii_case("application/json")
    });
    let accepts = header(ACCEPT.as_str()).is_some_and(|value| {
        let (mut json, mut stream) = (false, false);
        for media_type in value.split(',') {
            let essence = media_type.split(';').next().unwrap_or_default().trim();
            json |= essence.eq_ignore_ascii_case("application/json");
            stream |= essence.eq_ignore_ascii_case("text/event-stream");
        }
        json && stream
    });
    method == Method::POST
        && json_body
        && accepts
        && header("mcp-protocol-version").is_some_and(|v| PLAIN_VERSIONS.contains(&v))
        && header("mcp-session-id").is_none()
        && header("mcp-method").is_none()
        && header("mcp-name").is_none()
        && header(ORIGIN.as_str()).is_none()
}

fn is_answerable(call: &PlainCall) -> bool {
    call.jsonrpc == "2.0"
        && call.method == "tools/call"
        && (call.id.is_string() || call.id.is_i64() || call.id.is_u64())
        && matches!(call.params.name.as_str(), "ping" | "list_projects")
        && call.params.arguments.as_ref().is_none_or(|a| a.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    const PLAIN: [(&str, &str); 3] = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
    ];

    #[test]
    fn only_plain_2025_posts_are_answered_here() {
        assert!(is_plain_post(&Method::POST, &headers(&PLAIN)));
        assert!(!is_plain_post(&Method::GET, &headers(&PLAIN)));
        let mut later = PLAIN;
        later[2] = ("mcp-protocol-version", "2026-07-28");
        assert!(!is_plain_post(&Method::POST, &headers(&later)));
        let mut json_only = PLAIN;
        json_only[1] = ("accept", "application/json");
        assert!(!is_plain_post(&Method::POST, &headers(&json_only)));
        let mut with_session = PLAIN.to_vec();
        with_session.push(("mcp-session-id", "abc"));
        assert!(!is_plain_post(&Method::POST, &headers(&with_session)));
    }

    #[test]
    fn the_host_must_be_one_rmcp_allows() {
        let allowed = parse_hosts(&["127.0.0.1".to_owned(), "cassis.example.com:8443".to_owned()]);
        assert!(host_allowed(
            &headers(&[("host", "127.0.0.1:3000")]),
            &allowed
        ));
        assert!(host_allowed(
            &headers(&[("host", "cassis.example.com:8443")]),
            &allowed
        ));
        assert!(!host_allowed(
            &headers(&[("host", "cassis.example.com:9000")]),
            &allowed
        ));
        assert!(!host_allowed(
            &headers(&[("host", "evil.example.com")]),
            &allowed
        ));
        assert!(!host_allowed(&HeaderMap::new(), &allowed));
    }

    #[test]
    fn only_argument_free_calls_of_the_two_tools_are_answered_here() {
        let parse = |text: &str| {
            serde_json::from_str::<PlainCall>(text)
                .ok()
                .filter(is_answerable)
        };
        assert!(parse(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#).is_some());
        assert!(parse(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"list_projects"}}"#).is_some());
        for other in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_question","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{"x":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"ping"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping"}}]"#,
        ] {
            assert!(parse(other).is_none(), "{other}");
        }
    }
}

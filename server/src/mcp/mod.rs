//! The MCP endpoint at `/mcp/`: Streamable HTTP without sessions, so any
//! instance can serve any request, behind a bearer-credential check that runs
//! before any MCP processing.

mod audit;
mod credential;
mod fast_path;
mod tools;

pub use audit::{AuditLog, AuditWriter};

pub use credential::{Caller, KeyCache};

use crate::page_guard;
use crate::router::AppState;
use axum::Router;
use axum::middleware;
use axum::routing::any;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;

/// Tool calls carry a question and a few ids; anything near this is abuse.
const MAX_MCP_BODY_BYTES: usize = 1024 * 1024;

pub const MCP_PATH: &str = "/mcp/";

pub fn router(state: &AppState) -> Router<AppState> {
    let hosts = allowed_hosts(&state.app.public_url);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(page_guard::public_origin(&state.app.public_url))
        .with_max_request_body_bytes(MAX_MCP_BODY_BYTES);
    // Built once: a tool router holds every tool's JSON Schemas.
    let tools = tools::CassisTools::new(state.app.clone(), state.audit.clone());
    let rmcp = StreamableHttpService::new(
        {
            let tools = tools.clone();
            move || Ok(tools.clone())
        },
        Arc::new(NeverSessionManager::default()),
        config,
    );
    // One shared endpoint: a request costs a reference count, not a copy of
    // the transport's configuration.
    let endpoint = Arc::new(fast_path::McpEndpoint::new(tools, rmcp, hosts));
    let serve = move |request: axum::extract::Request| {
        let endpoint = endpoint.clone();
        async move { endpoint.serve(request).await }
    };
    Router::new()
        .route("/mcp", any(serve.clone()))
        .route(MCP_PATH, any(serve))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            credential::require_credential,
        ))
}

/// The public URL's host, with and without its port, and the loopback names,
/// so a local client reaches a server whose public URL names another host.
/// Every other `Host` is refused, which defeats DNS rebinding.
fn allowed_hosts(public_url: &str) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).into();
    if let Ok(url) = url::Url::parse(public_url)
        && let Some(host) = url.host_str()
    {
        hosts.push(host.to_owned());
        if let Some(port) = url.port() {
            hosts.push(format!("{host}:{port}"));
        }
    }
    hosts
}

#[cfg(test)]
mod tests {
    use super::allowed_hosts;
    use crate::page_guard::public_origin;

    #[test]
    fn the_public_host_and_loopback_are_allowed() {
        let hosts = allowed_hosts("https://cassis.example.com:8443/base");
        assert!(hosts.contains(&"cassis.example.com".to_owned()));
        assert!(hosts.contains(&"cassis.example.com:8443".to_owned()));
        assert!(hosts.contains(&"127.0.0.1".to_owned()));
        assert!(!hosts.iter().any(|h| h.contains("evil")));
    }

    #[test]
    fn the_origin_drops_the_path() {
        assert_eq!(
            public_origin("https://cassis.example.com/base").unwrap(),
            "https://cassis.example.com"
        );
        assert_eq!(
            public_origin("http://127.0.0.1:3000").unwrap(),
            "http://127.0.0.1:3000"
        );
    }
}

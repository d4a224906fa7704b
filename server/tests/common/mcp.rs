//! MCP as an agent speaks it: one JSON-RPC request per POST with an API key.

use super::Server;
use reqwest::StatusCode;

/// Posts a `tools/call` of `tool` with `arguments`, authorized by `token`
/// (an API key or an OAuth access token).
pub async fn post_tool_call(
    server: &Server,
    token: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> reqwest::Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    reqwest::Client::new()
        .post(format!("{}/mcp/", server.url))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// Calls `tool` with `arguments` and returns its structured result.
pub async fn call_tool(
    server: &Server,
    key: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let response = post_tool_call(server, key, tool, arguments).await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: serde_json::Value = response.json().await.unwrap();
    reply["result"]["structuredContent"].clone()
}

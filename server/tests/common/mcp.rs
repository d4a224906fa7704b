//! MCP as an agent speaks it: one JSON-RPC request per POST with an API key.

use super::Server;
use reqwest::StatusCode;

/// Calls `tool` with `arguments` and returns its structured result.
pub async fn call_tool(
    server: &Server,
    key: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    let response = reqwest::Client::new()
        .post(format!("{}/mcp/", server.url))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let reply: serde_json::Value = response.json().await.unwrap();
    reply["result"]["structuredContent"].clone()
}

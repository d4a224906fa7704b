//! The ceiling for scripts/bench-mcp: a bare axum handler that answers a
//! `tools/call` of `ping` with the same JSON as Cassis, without MCP or auth.
//!
//!   cargo run --release -p cassis --example bare_ping -- 127.0.0.1:39301
//!
//! It uses the server's allocator, so the ratio measures Cassis, not malloc.

use axum::Router;
use axum::routing::post;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PONG: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"server\":\"cassis\",\"status\":\"ok\"}"}],"structuredContent":{"server":"cassis","status":"ok"},"isError":false}}"#;

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:39301".to_owned());
    let app = Router::new().route(
        "/mcp/",
        post(|| async { ([("content-type", "application/json")], PONG) }),
    );
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .expect("the address is free");
    axum::serve(listener, app).await.expect("serves");
}

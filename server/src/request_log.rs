//! One log line per request: method, path, status, latency.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

/// Logs the path without its query string, which may carry secrets such as
/// OAuth codes.
pub async fn log_request(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    // A `Uri` shares its bytes: cloning it does not copy the path, which
    // matters at tens of thousands of MCP calls a second.
    let uri = request.uri().clone();
    let path = uri.path();
    let started = Instant::now();
    let response = next.run(request).await;
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    let status = response.status().as_u16();
    if response.status().is_server_error() {
        tracing::error!(%method, %path, status, latency_ms, "request");
    } else {
        tracing::info!(%method, %path, status, latency_ms, "request");
    }
    response
}

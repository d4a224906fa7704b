//! One log line per request: method, path, status, latency; the same
//! request counted in the metrics by its route, and as in flight for a
//! graceful restart.

use crate::lifecycle::Lifecycle;
use crate::metrics_endpoint;
use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

/// Logs the path without its query string, which may carry secrets such as
/// OAuth codes.
pub async fn log_request(
    State(lifecycle): State<Lifecycle>,
    request: Request,
    next: Next,
) -> Response {
    let method = request.method().clone();
    // A `Uri` shares its bytes: cloning it does not copy the path, which
    // matters at tens of thousands of MCP calls a second.
    let uri = request.uri().clone();
    let path = uri.path();
    let _in_flight = lifecycle.request(matches!(path, "/readyz" | "/healthz"));
    let started = Instant::now();
    let response = next.run(request).await;
    let elapsed = started.elapsed().as_secs_f64();
    let latency_ms = elapsed * 1000.0;
    let status = response.status().as_u16();
    metrics_endpoint::count_request(
        response.extensions().get::<MatchedPath>(),
        response.status(),
        elapsed,
    );
    if response.status().is_server_error() {
        tracing::error!(%method, %path, status, latency_ms, "request");
    } else {
        tracing::info!(%method, %path, status, latency_ms, "request");
    }
    response
}

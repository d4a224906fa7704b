//! How large a request body may be: 2 MiB, except for the server functions
//! that carry a whole ontology's YAML, whose bodies follow
//! `--max-ontology-bytes`. Larger bodies are refused with 413 before any
//! handler reads them.

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tower::{ServiceBuilder, ServiceExt};
use tower_http::limit::RequestBodyLimitLayer;

/// Every body but an ontology's.
pub const MAX_REQUEST_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The server functions whose arguments hold an ontology's YAML (the
/// editor's check and save: `app/src/api/ontology.rs`; its import of other
/// semantic layers: `app/src/api/imports.rs`).
const ONTOLOGY_ROUTES: [&str; 3] = ["/api/check_draft", "/api/save_draft", "/api/convert_import"];

/// Room in an ontology's form for its other fields (project id, revision).
const FORM_FIELDS_BYTES: usize = 64 * 1024;

/// The caps of one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyLimits {
    ordinary: usize,
    ontology: usize,
}

impl BodyLimits {
    /// Any ontology of at most `max_ontology_bytes` can be posted: URL
    /// encoding writes a byte as at most three (`%0A`), and the form holds a
    /// few other fields. Never less than other routes get.
    pub fn new(max_ontology_bytes: usize) -> Self {
        let ontology = max_ontology_bytes
            .saturating_mul(3)
            .saturating_add(FORM_FIELDS_BYTES);
        Self {
            ordinary: MAX_REQUEST_BODY_BYTES,
            ontology: ontology.max(MAX_REQUEST_BODY_BYTES),
        }
    }

    fn for_path(&self, path: &str) -> usize {
        if ONTOLOGY_ROUTES.contains(&path) {
            self.ontology
        } else {
            self.ordinary
        }
    }
}

/// Caps the request's body at its route's limit: a `Content-Length` beyond
/// it is answered 413 at once, a longer body without one when it gets there.
pub async fn limit_body(
    State(limits): State<BodyLimits>,
    request: Request,
    next: Next,
) -> Response {
    let limit = limits.for_path(request.uri().path());
    let capped = ServiceBuilder::new()
        .layer(RequestBodyLimitLayer::new(limit))
        // Handlers that read the body through axum (server functions do)
        // stop at axum's own default of 2 MiB unless told this route's cap.
        .layer(DefaultBodyLimit::max(limit))
        .map_request(|request: Request<_>| request.map(Body::new))
        .service(next);
    match capped.oneshot(request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_ontology_routes_follow_the_largest_ontology() {
        let limits = BodyLimits::new(4 * 1024 * 1024);
        assert_eq!(
            limits.for_path("/api/save_draft"),
            12 * 1024 * 1024 + FORM_FIELDS_BYTES
        );
        assert_eq!(
            limits.for_path("/api/check_draft"),
            limits.for_path("/api/save_draft")
        );
        for path in ["/api/add_metric", "/api/save_draft/", "/mcp/", "/api/login"] {
            assert_eq!(limits.for_path(path), MAX_REQUEST_BODY_BYTES, "{path}");
        }
        // A small largest ontology does not shrink the cap below others'.
        assert_eq!(
            BodyLimits::new(64 * 1024).for_path("/api/save_draft"),
            MAX_REQUEST_BODY_BYTES
        );
    }
}

//! The one axum router: health checks, the admin app and its server
//! functions, wrapped in request logging and a body size cap.

use crate::{health, mcp, oauth, ontology_export, page_guard, request_log};
use axum::Router;
use axum::extract::FromRef;
use axum::middleware;
use axum::routing::get;
use cassis_app::ssr::AppContext;
use cassis_app::{App, shell};
use cassis_core::store::Store;
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use std::sync::Arc;
use tower_http::limit::RequestBodyLimitLayer;

/// Larger bodies are refused with 413 before any handler reads them.
const MAX_REQUEST_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Cloned for every request that passes a stateful middleware, so every
/// part is cheap to clone.
#[derive(Clone, Debug)]
pub struct AppState {
    pub leptos_options: Arc<LeptosOptions>,
    pub app: AppContext,
    /// MCP requests act as the first admin without a credential: only for
    /// protocol conformance tests, and only on a loopback address.
    pub mcp_without_auth: bool,
    /// API keys verified in the last seconds.
    pub key_cache: crate::mcp::KeyCache,
    /// Where MCP tool calls are recorded.
    pub audit: crate::mcp::AuditLog,
    /// Signing keys and the client metadata fetcher of the OAuth server.
    pub oauth: crate::oauth::OAuthState,
}

impl AppState {
    pub fn store(&self) -> &Store {
        &self.app.store
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        LeptosOptions::clone(&state.leptos_options)
    }
}

pub fn app(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let context = state.app.clone();
    let pages = Router::new()
        .leptos_routes_with_context(&state, routes, move || provide_context(context.clone()), {
            let options = LeptosOptions::clone(&state.leptos_options);
            move || shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            page_guard::require_session,
        ));

    Router::new()
        .route("/healthz", get(health::live))
        .route("/readyz", get(health::ready))
        .route(
            "/projects/{id}/ontology.yaml",
            get(ontology_export::download),
        )
        .merge(mcp::router(&state))
        .merge(oauth::router())
        .merge(pages)
        .layer(RequestBodyLimitLayer::new(MAX_REQUEST_BODY_BYTES))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            page_guard::same_origin_writes,
        ))
        .layer(middleware::from_fn(request_log::log_request))
        .with_state(state)
}

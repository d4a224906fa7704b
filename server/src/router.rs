//! The one axum router: health checks, the admin app and its server
//! functions, wrapped in request logging and body size caps.

use crate::body_limit::{self, BodyLimits};
use crate::metrics_endpoint::{self, MetricsEndpoint, RouteLabelLayer};
use crate::{forwarded, health, lifecycle, mcp, oauth, ontology_export, page_guard, request_log};
use axum::Router;
use axum::extract::FromRef;
use axum::http::{HeaderValue, header};
use axum::middleware;
use axum::routing::get;
use cassis_app::ssr::AppContext;
use cassis_app::{App, shell};
use cassis_core::store::Store;
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use std::sync::Arc;
use tower::ServiceBuilder;
use tower_http::set_header::SetResponseHeaderLayer;

/// No page may be framed (the consent page and the admin buttons would be a
/// clickjacking target), carry a `<base>` or plugin, or post a form off-site.
/// There is no `script-src`: the hydration script is inline and loads the
/// WebAssembly bundle, and a script policy needs a browser test proving it
/// keeps hydration working. The consent page sets its own policy, whose
/// `form-action` also names the client's redirect URI (see `oauth`).
pub const CONTENT_SECURITY_POLICY: &str =
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'";

/// What every handler and middleware shares. Middlewares with state clone it
/// per request, so it is one reference count: [`SharedState`] behind an `Arc`.
#[derive(Clone, Debug)]
pub struct AppState(Arc<SharedState>);

#[derive(Debug)]
pub struct SharedState {
    pub leptos_options: Arc<LeptosOptions>,
    pub app: AppContext,
    /// MCP requests act as the first admin without a credential: only for
    /// protocol conformance tests, and only on a loopback address.
    pub mcp_without_auth: bool,
    /// API keys verified in the last seconds.
    pub key_cache: crate::mcp::KeyCache,
    /// Whether the metadata database can be reached.
    pub availability: crate::availability::Availability,
    /// Where MCP tool calls are recorded.
    pub audit: crate::mcp::AuditLog,
    /// Signing keys and the client metadata fetcher of the OAuth server.
    pub oauth: crate::oauth::OAuthState,
    /// `/metrics`: the recorder and who may read it.
    pub metrics: MetricsEndpoint,
    /// Requests in flight and whether the server is draining.
    pub lifecycle: lifecycle::Lifecycle,
    /// MCP calls per credential per minute; `None` for no limit.
    pub mcp_limit: Option<cassis_core::auth::CredentialLimit>,
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Arc<[ipnet::IpNet]>,
}

impl AppState {
    pub fn new(shared: SharedState) -> Self {
        Self(Arc::new(shared))
    }

    pub fn store(&self) -> &Store {
        &self.0.app.store
    }
}

impl std::ops::Deref for AppState {
    type Target = SharedState;

    fn deref(&self) -> &SharedState {
        &self.0
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        LeptosOptions::clone(&state.leptos_options)
    }
}

/// The whole server: routes, then the middleware every request passes.
pub fn app(state: AppState) -> Router {
    let page_routes = generate_route_list(App);
    let context = state.app.clone();
    let pages = Router::new()
        .leptos_routes_with_context(
            &state,
            page_routes,
            move || provide_context(context.clone()),
            {
                let options = LeptosOptions::clone(&state.leptos_options);
                move || shell(options.clone())
            },
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            page_guard::require_session,
        ));

    let routes = Router::new()
        .route("/healthz", get(health::live))
        .route("/readyz", get(health::ready))
        .route("/metrics", get(metrics_endpoint::scrape))
        .route(
            "/projects/{id}/ontology.yaml",
            get(ontology_export::download),
        )
        .merge(mcp::router(&state))
        .merge(oauth::router())
        .merge(pages)
        // Last, so it wraps every route above and the fallback.
        .layer(RouteLabelLayer)
        .with_state(state.clone());

    // Wrapped around the router once rather than added with `Router::layer`,
    // which would wrap every route in its own boxed copy of the stack, and
    // each request would clone that nest box by box: a tenth of a busy MCP
    // endpoint's time went to it.
    let body_limits = BodyLimits::new(state.app.max_ontology_bytes);
    let every_request = ServiceBuilder::new()
        // First, so the log and every limit see the client, not its proxy.
        .layer(middleware::from_fn_with_state(
            state.trusted_proxies.clone(),
            forwarded::client_behind_proxy,
        ))
        .layer(middleware::from_fn_with_state(
            state.lifecycle.clone(),
            request_log::log_request,
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
        // Not `no-referrer`: with it, browsers send `Origin: null` on
        // same-origin form posts, which `same_origin_writes` refuses.
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(middleware::from_fn_with_state(
            state,
            page_guard::same_origin_writes,
        ))
        .layer(middleware::from_fn_with_state(
            body_limits,
            body_limit::limit_body,
        ))
        .service(routes);
    Router::new().fallback_service(every_request)
}

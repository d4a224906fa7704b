//! `/healthz`: the process answers. `/readyz`: and it can reach its database
//! and is not draining for a shutdown.

use crate::router::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

pub async fn live() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

pub async fn ready(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    // Checked first: a draining server is going away whatever its database.
    if state.lifecycle.is_draining() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "status": "draining", "reason": "the server is shutting down" })),
        );
    }
    // Known to be away: said at once, rather than after the pool's wait.
    if state.availability.is_down() {
        return unavailable();
    }
    match state.store().ping().await {
        Ok(()) => (StatusCode::OK, Json(json!({ "status": "ready" }))),
        Err(error) => {
            tracing::warn!(%error, "readiness check failed");
            state.availability.report(&error);
            unavailable()
        }
    }
}

fn unavailable() -> (StatusCode, Json<Value>) {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({ "status": "unavailable", "reason": "the metadata database is unreachable" })),
    )
}

#[cfg(test)]
mod tests {
    use crate::router::{AppState, SharedState, app};
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use cassis_app::ssr::AppContext;
    use cassis_core::store::Store;
    use leptos::config::LeptosOptions;
    use std::sync::Arc;
    use tower::ServiceExt;

    async fn get(router: axum::Router, path: &str) -> (StatusCode, String) {
        let response = router
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn readiness_follows_the_database_while_liveness_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::connect(&format!(
            "sqlite://{}",
            dir.path().join("m.sqlite").display()
        ))
        .await
        .unwrap();
        store.migrate().await.unwrap();
        let state = AppState::new(SharedState {
            leptos_options: LeptosOptions::builder()
                .output_name("cassis")
                .build()
                .into(),
            app: AppContext {
                engine: cassis_core::engine::Engine::new(store.clone(), Default::default()),
                store: store.clone(),
                public_url: "http://127.0.0.1:3000".into(),
                max_ontology_bytes: cassis_core::ontology::DEFAULT_MAX_YAML_BYTES,
                warehouse_dir: dir.path().into(),
                sign_in_throttle: Default::default(),
            },
            mcp_without_auth: false,
            key_cache: Default::default(),
            availability: Default::default(),
            audit: crate::mcp::AuditLog::start(store.clone()).0,
            oauth: Default::default(),
            metrics: Default::default(),
            lifecycle: Default::default(),
            mcp_limit: None,
            trusted_proxies: Arc::from([]),
        });
        let lifecycle = state.lifecycle.clone();
        let router = app(state);
        assert_eq!(get(router.clone(), "/readyz").await.0, StatusCode::OK);

        store.close().await;
        let (status, body) = get(router.clone(), "/readyz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            body.contains("the metadata database is unreachable"),
            "{body}"
        );
        assert_eq!(
            get(router.clone(), "/healthz").await,
            (StatusCode::OK, r#"{"status":"ok"}"#.to_owned())
        );

        lifecycle.start_draining();
        let (status, body) = get(router, "/readyz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(body.contains("draining"), "{body}");
    }
}

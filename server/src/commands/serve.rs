use super::open_store;
use crate::clock;
use crate::config::Settings;
use crate::router::{self, AppState, SharedState};
use crate::startup::{self, FirstAdmin};
use anyhow::Context;
use cassis_app::ssr::AppContext;
use cassis_core::engine::Engine;
use cassis_core::store::Store;
use std::time::Duration;
use tokio::net::TcpListener;

/// How often ended sessions are swept from the database.
const SESSION_SWEEP_INTERVAL: Duration = Duration::from_secs(60 * 60);

pub async fn run(settings: Settings) -> anyhow::Result<()> {
    let store = open_store(&settings).await?;
    let org = startup::organization(&store).await?;
    startup::first_admin(&store, &org, FirstAdmin::from_env()).await?;
    std::fs::create_dir_all(&settings.warehouse_dir).with_context(|| {
        format!(
            "creating the warehouse folder {}",
            settings.warehouse_dir.display()
        )
    })?;
    if let Some(scale_factor) = settings.demo_scale_factor {
        startup::demo_project(&store, &org, &settings.warehouse_dir, scale_factor).await?;
    }

    let mut leptos_options = leptos::config::get_configuration(None)?.leptos_options;
    leptos_options.site_root = settings.site_root.to_string_lossy().as_ref().into();
    leptos_options.site_addr = settings.addr;
    let bundle = settings.site_root.join("pkg").join("cassis.js");
    if !bundle.exists() {
        tracing::warn!(
            path = %bundle.display(),
            "the built web assets are missing, so pages will not be styled or interactive: \
             run `cargo leptos build` or pass --site-root"
        );
    }

    if settings.insecure_mcp_without_auth {
        tracing::warn!(
            "MCP requests need no credential and act as the first admin \
             (--insecure-mcp-without-auth): for protocol conformance tests only"
        );
    }
    let (audit, audit_writer) = crate::mcp::AuditLog::start(store.clone());
    let state = AppState::new(SharedState {
        mcp_without_auth: settings.insecure_mcp_without_auth,
        key_cache: Default::default(),
        audit,
        oauth: crate::oauth::OAuthState::new(settings.oauth_max_unused_clients),
        leptos_options: leptos_options.into(),
        app: AppContext {
            engine: Engine::new(store.clone(), settings.engine()?),
            store: store.clone(),
            public_url: settings.public_url.as_str().into(),
            max_ontology_bytes: settings.max_ontology_bytes,
            warehouse_dir: settings.warehouse_dir.as_path().into(),
            sign_in_throttle: Default::default(),
        },
    });
    let listener = TcpListener::bind(settings.addr)
        .await
        .with_context(|| format!("listening on {}", settings.addr))?;
    match &settings.model {
        Some(model) => {
            tracing::info!(planner = ?settings.planner, url = %model.url, model = %model.model, "questions are planned by a model")
        }
        None => tracing::info!("questions are planned by the built-in planner"),
    }
    tracing::info!(addr = %settings.addr, public_url = %settings.public_url, "Cassis is listening");
    let sweeper = tokio::spawn(sweep_sessions(store.clone()));

    axum::serve(
        listener,
        router::app(state).into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await?;

    sweeper.abort();
    // The router, and with it every handle on the audit log, is gone: the
    // writer stores what is queued and ends.
    if let Err(error) = audit_writer.await {
        tracing::error!(%error, "the audit writer failed");
    }
    store.close().await;
    tracing::info!("stopped");
    Ok(())
}

async fn sweep_sessions(store: Store) {
    let mut interval = tokio::time::interval(SESSION_SWEEP_INTERVAL);
    loop {
        interval.tick().await;
        match store.delete_expired_sessions(clock::now()).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(sessions = n, "removed ended sessions"),
            Err(error) => tracing::warn!(%error, "removing ended sessions failed"),
        }
    }
}

/// Resolves on SIGTERM or Ctrl-C; axum then stops accepting connections and
/// lets in-flight requests finish.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutdown requested: finishing in-flight requests");
}

use super::open_store;
use crate::clock;
use crate::config::Settings;
use crate::lifecycle::Lifecycle;
use crate::mcp::AuditWriter;
use crate::metrics_endpoint::{MetricsAccess, MetricsEndpoint};
use crate::router::{self, AppState, SharedState};
use crate::startup::{self, FirstAdmin};
use anyhow::Context;
use cassis_app::ssr::AppContext;
use cassis_core::auth::CredentialLimit;
use cassis_core::engine::Engine;
use cassis_core::store::Store;
use metrics_exporter_prometheus::PrometheusHandle;
use std::future::IntoFuture;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// No new request for this long during a drain: the load balancer has
/// stopped sending any, and the listener may close.
const DRAIN_QUIET: Duration = Duration::from_millis(250);

/// How long the metadata pool may take to close once requests are done.
const STORE_CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// How often ended sessions are swept from the database.
const SESSION_SWEEP_INTERVAL: Duration = Duration::from_secs(60 * 60);

pub async fn run(settings: Settings) -> anyhow::Result<()> {
    // Held while serving, so `cassis restore` cannot replace the file.
    let _serve_lock = cassis_core::store::backup::ServeLock::take(&settings.database_url)?;
    let store = open_store(&settings).await?;
    if let Some(name) = cassis_core::warehouse::ambient_postgres_setting() {
        tracing::warn!(
            variable = name,
            "the environment sets {name}, which would apply to every PostgreSQL data source: \
             PostgreSQL sources are refused until it is unset (the metadata database can take \
             the setting in --database-url)"
        );
    }
    if settings.insecure_mcp_without_auth {
        tracing::warn!(
            "MCP requests need no credential and act as the first admin \
             (--insecure-mcp-without-auth): for protocol conformance tests only"
        );
    }
    let metrics = crate::metrics_endpoint::install();
    let (state, audit_writer) = prepare(
        &settings,
        store.clone(),
        FirstAdmin::from_env(),
        Some(metrics.clone()),
    )
    .await?;
    let lifecycle = state.lifecycle.clone();
    let availability = state.availability.clone();
    // Listening starts before the first request is served, so no change
    // committed from now on goes unheard.
    let changes = store
        .changes()
        .await
        .context("listening for other instances' changes")?;
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
    let probe = tokio::spawn(availability.probe(store.clone()));
    let follower = changes.map(|feed| tokio::spawn(crate::changes::follow(feed, state.clone())));
    let upkeep = tokio::spawn(crate::metrics_endpoint::upkeep(metrics));

    // The drain: on the signal `/readyz` turns 503 while everything is still
    // served; once the requests in flight at the signal have ended and no new
    // one has come for DRAIN_QUIET (a load balancer has taken the instance
    // out), the listener closes and the rest finish, all within the drain
    // timeout. Closing while a balancer still sends would reset connections
    // it has just opened.
    let drain_timeout = Duration::from_secs(settings.drain_timeout);
    let (drain_started_tx, drain_started) = tokio::sync::oneshot::channel::<Instant>();
    let stop_accepting = {
        let lifecycle = lifecycle.clone();
        async move {
            shutdown_signal().await;
            let started = Instant::now();
            lifecycle.start_draining();
            let _ = drain_started_tx.send(started);
            tracing::info!(
                in_flight = lifecycle.in_flight(),
                drain_timeout_secs = drain_timeout.as_secs(),
                "shutdown requested: not ready any more, finishing in-flight requests"
            );
            let drained = async {
                lifecycle.earlier_requests_done().await;
                lifecycle.quiet_for(DRAIN_QUIET).await;
            };
            let _ = tokio::time::timeout(drain_timeout, drained).await;
            tracing::info!(
                in_flight = lifecycle.in_flight(),
                "no longer accepting connections"
            );
        }
    };
    let serve = axum::serve(
        listener,
        router::app(state).into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(stop_accepting)
    .into_future();
    tokio::pin!(serve);
    let served = tokio::select! {
        // Biased: a serve loop that has ended is never polled again below.
        biased;
        served = &mut serve => served,
        started = drain_started => {
            // Signalled: the serve loop gets what is left of the timeout.
            let deadline = started.unwrap_or_else(|_| Instant::now()) + drain_timeout;
            match tokio::time::timeout_at(deadline.into(), &mut serve).await {
                Ok(served) => served,
                Err(_) => {
                    tracing::warn!(
                        in_flight = lifecycle.in_flight(),
                        "the drain timeout passed: stopping with requests still in flight"
                    );
                    Ok(())
                }
            }
        }
    };
    served?;

    sweeper.abort();
    upkeep.abort();
    probe.abort();
    if let Some(follower) = follower {
        follower.abort();
    }
    // Requests cut off by the timeout may still hold the audit log: the
    // writer is told to store what is queued and end.
    audit_writer.finish().await;
    // A request cut off mid-query holds a connection that closing would wait
    // for; the database ends its session anyway when the process exits.
    if tokio::time::timeout(STORE_CLOSE_TIMEOUT, store.close())
        .await
        .is_err()
    {
        tracing::warn!("closing the metadata database timed out");
    }
    tracing::info!("stopped");
    Ok(())
}

/// What the server's requests share, made as `serve` makes it before it
/// listens: the organization, the first admin, the warehouse folder, the
/// OAuth signing keys (opened now, so a wrong secret stops the start rather
/// than every sign-in) and the demo project. Tests run the router
/// in-process on it. `metrics` is the recorder's handle, without which
/// `/metrics` does not exist; the writer of the MCP audit log is returned
/// to be finished on shutdown.
pub async fn prepare(
    settings: &Settings,
    store: Store,
    admin: FirstAdmin,
    metrics: Option<PrometheusHandle>,
) -> anyhow::Result<(AppState, AuditWriter)> {
    let org = startup::organization(&store).await?;
    startup::first_admin(&store, &org, admin).await?;
    std::fs::create_dir_all(&settings.warehouse_dir).with_context(|| {
        format!(
            "creating the warehouse folder {}",
            settings.warehouse_dir.display()
        )
    })?;
    let sealing = startup::sealing_key(&settings.data_dir)?;
    store
        .oauth_signing_keys(&sealing, clock::now())
        .await
        .context("opening the OAuth signing keys")?;
    if let Some(scale_factor) = settings.demo_scale_factor {
        // Boxed: the generator's future is deep enough that crates calling
        // `prepare` would overflow the compiler's layout recursion limit.
        Box::pin(startup::demo_project(
            &store,
            &org,
            &settings.warehouse_dir,
            scale_factor,
        ))
        .await?;
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

    let (audit, audit_writer) = crate::mcp::AuditLog::start(store.clone());
    let state = AppState::new(SharedState {
        metrics: MetricsEndpoint {
            handle: metrics,
            access: MetricsAccess {
                allow: settings.metrics_allow.clone(),
                token: settings.metrics_token.clone(),
            },
        },
        lifecycle: Lifecycle::default(),
        mcp_limit: NonZeroU32::new(settings.mcp_calls_per_minute).map(CredentialLimit::per_minute),
        mcp_without_auth: settings.insecure_mcp_without_auth,
        trusted_proxies: settings.trusted_proxies.as_slice().into(),
        key_cache: Default::default(),
        availability: Default::default(),
        audit,
        oauth: crate::oauth::OAuthState::new(settings.oauth_max_unused_clients, sealing),
        leptos_options: leptos_options.into(),
        app: AppContext {
            engine: Engine::new(store.clone(), settings.engine()?),
            store,
            public_url: settings.public_url.as_str().into(),
            max_ontology_bytes: settings.max_ontology_bytes,
            warehouse_dir: settings.warehouse_dir.as_path().into(),
            sign_in_throttle: Default::default(),
        },
    });
    Ok((state, audit_writer))
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

/// Resolves on SIGTERM or Ctrl-C.
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
}

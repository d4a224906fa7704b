//! Whether the metadata database can be reached. While it cannot (a
//! PostgreSQL restart, a broken network), MCP requests are answered 503 with
//! `Retry-After` at once instead of each waiting out the pool's acquire
//! timeout, and a probe finds the database again as soon as it is back; the
//! server recovers without a restart of its own.

use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use cassis_core::store::{Store, StoreError};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How often the probe asks while the database is away; with the probe's
/// own timeout, what bounds the recovery once it is back.
const PROBE_EVERY: Duration = Duration::from_millis(200);
/// A probe that takes longer than this failed.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// What a refused client is told to wait.
const RETRY_AFTER_SECS: u32 = 1;

/// Shared by every request and the probe; cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Availability(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    down: AtomicBool,
    /// Wakes the probe: something suggests the database is away.
    suspect: Notify,
}

impl Availability {
    pub fn is_down(&self) -> bool {
        self.0.down.load(Ordering::Acquire)
    }

    /// A request could not reach the database: later ones are refused at
    /// once until the probe reaches it.
    pub fn report(&self, error: &StoreError) {
        if error.is_unreachable() {
            self.report_down();
        }
    }

    pub fn report_down(&self) {
        if !self.0.down.swap(true, Ordering::AcqRel) {
            tracing::warn!("the metadata database is unreachable: answering 503 until it is back");
        }
        self.0.suspect.notify_one();
    }

    /// Something (the change feed's lost connection) suggests the database
    /// may be away: the probe checks now, without refusing anything yet.
    pub fn suspect(&self) {
        self.0.suspect.notify_one();
    }

    /// Runs for the life of the server: waits for a suspicion, then probes
    /// until the database answers.
    pub async fn probe(self, store: Store) {
        loop {
            self.0.suspect.notified().await;
            let mut away_since = None;
            loop {
                let answered = matches!(
                    tokio::time::timeout(PROBE_TIMEOUT, store.ping()).await,
                    Ok(Ok(()))
                );
                if answered {
                    if self.0.down.swap(false, Ordering::AcqRel) {
                        let away = away_since.map(|since: Instant| since.elapsed());
                        tracing::info!(?away, "the metadata database is reachable again");
                    }
                    break;
                }
                if !self.0.down.swap(true, Ordering::AcqRel) {
                    tracing::warn!(
                        "the metadata database is unreachable: answering 503 until it is back"
                    );
                }
                away_since.get_or_insert_with(Instant::now);
                tokio::time::sleep(PROBE_EVERY).await;
            }
        }
    }
}

/// The answer to a request that needs the unreachable database.
pub fn unavailable() -> Response {
    let mut response = (
        StatusCode::SERVICE_UNAVAILABLE,
        "the metadata database is unavailable; try again in a moment",
    )
        .into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    response
}

/// Set by a tool whose request could not reach the database, so the request
/// is answered [`unavailable`] whatever the tool's own reply: nothing it did
/// was acknowledged, and the client may safely ask again.
#[derive(Clone, Debug, Default)]
pub struct Unreachable(Arc<AtomicBool>);

impl Unreachable {
    pub fn set(&self) {
        self.0.store(true, Ordering::Release);
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

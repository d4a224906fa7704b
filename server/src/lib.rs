//! The server behind the `cassis` binary: its command line and settings, the
//! one axum router and what it serves, and the subcommands. A library so
//! that tests can run the router in-process on the state `serve` prepares.

pub mod availability;
pub mod body_limit;
pub mod changes;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod error;
pub mod forwarded;
pub mod health;
pub mod lifecycle;
pub mod mcp;
pub mod metrics_endpoint;
pub mod oauth;
pub mod ontology_export;
pub mod page_guard;
pub mod request_log;
pub mod router;
pub mod startup;
pub mod telemetry;

/// Returns memory freed a moment ago to the system now. mimalloc hands back
/// freed memory a second later, and only when it next allocates or frees;
/// a server idle after a burst (the demo's generation) would keep it.
pub fn return_freed_memory() {
    // SAFETY: mi_collect takes no pointers; it is safe to call at any time.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

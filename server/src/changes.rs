//! What this instance keeps of the metadata database in memory, and how it
//! learns that another instance (or the CLI, or an operator) changed it.
//!
//! On PostgreSQL, triggers announce changes and [`follow`] applies them:
//!
//! - verified API keys and access tokens ([`crate::mcp::KeyCache`]): dropped
//!   when any key, grant or user changes, so a revoked key or a disabled user
//!   is refused by every instance within the notification's delay (measured
//!   by the two-instance test), not only after the cache's TTL;
//! - OAuth signing keys ([`crate::oauth::KeyRing`]): read again when one is
//!   added, so a token another instance signs with a new key is accepted;
//! - warehouse connection pools (the engine's): closed when the project's
//!   data source changes or the project is deleted.
//!
//! While the listening connection is lost, no credential is served from the
//! cache, and everything is dropped again once it is back, since what
//! changed in between went unheard.
//!
//! Safe without a notice, each for its own reason:
//!
//! - the engine's groundings (ontology, lexicon, known values) are kept per
//!   published version, which never changes; the latest version number is
//!   read from the database for every new chat, so a publish on one instance
//!   is the latest on all of them with the next question;
//! - chats, turns, sessions, drafts and projects are read from the database
//!   on every request;
//! - rate limits (MCP calls per credential, sign-in failures per address,
//!   client registrations per address), question admission slots and the
//!   record of failed client-metadata fetches are per instance by design:
//!   they count this instance's own traffic, not database state.
//!
//! SQLite serves a single instance, which updates its caches where it makes
//! the change; it has no feed.

use crate::router::AppState;
use cassis_core::store::{Change, ChangeFeed};

/// Applies changes as they are heard, for the life of the server.
pub async fn follow(mut feed: ChangeFeed, state: AppState) {
    loop {
        match feed.next().await {
            Change::Credentials => state.key_cache.clear(),
            Change::SigningKeys => state.oauth.keys.forget(),
            Change::Project(project) => {
                // Closing waits for the pool's queries under way; the next
                // notices (a revoked key) must not wait behind them.
                let engine = state.app.engine.clone();
                tokio::spawn(async move { engine.forget_project(project).await });
            }
            Change::Lost => {
                state.key_cache.set_heard(false);
                state.oauth.keys.forget();
                // Most often the database itself went away.
                state.availability.suspect();
            }
            Change::Resumed => {
                state.key_cache.set_heard(true);
                state.oauth.keys.forget();
            }
        }
    }
}

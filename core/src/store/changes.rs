//! What other instances changed in a shared PostgreSQL metadata database,
//! as far as an instance keeps it in memory. The triggers of migration
//! `0009_change_notifications` announce each change on [`CHANNEL`] when its
//! transaction commits; [`ChangeFeed`] listens (sqlx's `PgListener`) and
//! reads the payloads. SQLite serves a single instance, which hears of its
//! own changes where it makes them, so it has no feed.

use super::{Backend, Store, StoreError};
use sqlx::postgres::{PgListener, PgPoolOptions};
use std::time::Duration;
use uuid::Uuid;

/// The channel the triggers notify.
pub const CHANNEL: &str = "cassis_changes";

/// A lost listening connection is tried again this often: a reconnect
/// that waits no longer than this is what bounds how soon an instance hears
/// changes again once the database is back.
const RECONNECT_EVERY: Duration = Duration::from_millis(250);

/// A change an instance may hold an older copy of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// An API key, an OAuth grant or a user changed (revoked, expired,
    /// disabled, another role, deleted): verified credentials are stale.
    Credentials,
    /// A signing key was added or removed.
    SigningKeys,
    /// A project's data source changed, or the project was deleted.
    Project(Uuid),
    /// The feed stopped listening (the database went away, or the
    /// connection broke): until [`Change::Resumed`], changes go unheard.
    Lost,
    /// Listening again; what changed since [`Change::Lost`] was not heard.
    Resumed,
}

impl Change {
    /// Reads a trigger's payload, `TABLE` or `TABLE:ID`; `None` for one
    /// this version does not know (a newer instance's migration).
    pub fn parse(payload: &str) -> Option<Change> {
        let (table, id) = match payload.split_once(':') {
            Some((table, id)) => (table, Some(id)),
            None => (payload, None),
        };
        match table {
            "api_keys" | "oauth_grants" | "users" => Some(Change::Credentials),
            "oauth_signing_keys" => Some(Change::SigningKeys),
            "data_sources" => Uuid::parse_str(id?).ok().map(Change::Project),
            _ => None,
        }
    }
}

/// Changes as they are committed. Never fails: a lost connection is
/// reported as [`Change::Lost`] and re-established by [`ChangeFeed::next`].
pub struct ChangeFeed {
    url: String,
    listener: Option<PgListener>,
    /// Whether the caller has been told of the last loss.
    loss_reported: bool,
}

impl std::fmt::Debug for ChangeFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeFeed")
            .field("listening", &self.listener.is_some())
            .finish()
    }
}

impl Store {
    /// The feed of other instances' changes; `None` on SQLite. It starts
    /// listening before it returns, so nothing committed afterwards is missed.
    pub async fn changes(&self) -> Result<Option<ChangeFeed>, StoreError> {
        let (Backend::Postgres, Some(url)) = (self.backend, self.url.as_deref()) else {
            return Ok(None);
        };
        let mut feed = ChangeFeed {
            url: url.to_owned(),
            listener: None,
            loss_reported: true,
        };
        feed.listener = Some(feed.listen().await.map_err(StoreError::Connect)?);
        Ok(Some(feed))
    }
}

impl ChangeFeed {
    async fn listen(&self) -> Result<PgListener, sqlx::Error> {
        // A pool of one for the listener alone, failing fast while the
        // database is down (the feed retries on its own schedule) instead of
        // sqlx's default wait with a backoff that grows to seconds.
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(2))
            .max_lifetime(None)
            .idle_timeout(None)
            .connect_lazy(&self.url)?;
        let mut listener = PgListener::connect_with(&pool).await?;
        // A lost connection ends `try_recv` at once, so the gap is reported
        // before the reconnect, which may take as long as the outage.
        listener.eager_reconnect(false);
        listener.listen(CHANNEL).await?;
        Ok(listener)
    }

    /// The next change: after a loss, [`Change::Lost`] at once, then
    /// [`Change::Resumed`] when listening again.
    pub async fn next(&mut self) -> Change {
        loop {
            let Some(listener) = self.listener.as_mut() else {
                if !self.loss_reported {
                    self.loss_reported = true;
                    return Change::Lost;
                }
                match self.listen().await {
                    Ok(listener) => {
                        tracing::info!("listening for other instances' changes again");
                        self.listener = Some(listener);
                        return Change::Resumed;
                    }
                    Err(error) => {
                        tracing::debug!(%error, "cannot listen for changes yet");
                        tokio::time::sleep(RECONNECT_EVERY).await;
                        continue;
                    }
                }
            };
            match listener.try_recv().await {
                Ok(Some(notification)) => {
                    if let Some(change) = Change::parse(notification.payload()) {
                        return change;
                    }
                }
                Ok(None) | Err(_) => {
                    tracing::warn!(
                        "lost the connection that listens for other instances' changes; \
                         cached credentials are dropped until it is back"
                    );
                    self.listener = None;
                    self.loss_reported = false;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Change;
    use uuid::Uuid;

    #[test]
    fn payloads_name_what_changed() {
        assert_eq!(Change::parse("api_keys"), Some(Change::Credentials));
        assert_eq!(Change::parse("users"), Some(Change::Credentials));
        assert_eq!(Change::parse("oauth_grants"), Some(Change::Credentials));
        assert_eq!(
            Change::parse("oauth_signing_keys"),
            Some(Change::SigningKeys)
        );
        let id = Uuid::new_v4();
        assert_eq!(
            Change::parse(&format!("data_sources:{id}")),
            Some(Change::Project(id))
        );
        assert_eq!(Change::parse("data_sources:not-a-uuid"), None);
        assert_eq!(Change::parse("data_sources"), None);
        assert_eq!(Change::parse("a_newer_table:1"), None);
    }
}

//! The signing keys, read from the database once and again only when a
//! token names a key this instance has not seen (another instance made it).

use cassis_core::auth::oauth::{SealingKey, SigningKey, VerifyingKeys};
use cassis_core::store::{Store, StoreError};
use cassis_core::time::Timestamp;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Unknown key ids trigger a reload at most this often.
const RELOAD_INTERVAL: Duration = Duration::from_secs(5);

/// The keys as last read, and the key they are sealed with in the database.
#[derive(Clone, Debug)]
pub struct KeyRing {
    loaded: Arc<Mutex<Option<Arc<Loaded>>>>,
    sealing: Arc<SealingKey>,
}

#[derive(Debug)]
pub struct Loaded {
    /// The newest key, which signs.
    pub signing: SigningKey,
    pub all: Vec<SigningKey>,
    pub verifying: VerifyingKeys,
    loaded_at: Instant,
}

impl KeyRing {
    pub fn new(sealing: SealingKey) -> Self {
        Self {
            loaded: Arc::default(),
            sealing: Arc::new(sealing),
        }
    }

    pub async fn get(&self, store: &Store, now: Timestamp) -> Result<Arc<Loaded>, StoreError> {
        if let Some(loaded) = self.loaded.lock().expect("not poisoned").clone() {
            return Ok(loaded);
        }
        self.reload(store, now).await
    }

    /// Keys that can check `token`, reloading once if it names an unknown key.
    pub async fn for_token(
        &self,
        store: &Store,
        token: &str,
        now: Timestamp,
    ) -> Result<Arc<Loaded>, StoreError> {
        let loaded = self.get(store, now).await?;
        if loaded.verifying.knows(token) || loaded.loaded_at.elapsed() < RELOAD_INTERVAL {
            return Ok(loaded);
        }
        self.reload(store, now).await
    }

    /// Forgets the keys read: another instance added or removed one. The
    /// next token signed or checked reads them again.
    pub fn forget(&self) {
        *self.loaded.lock().expect("not poisoned") = None;
    }

    async fn reload(&self, store: &Store, now: Timestamp) -> Result<Arc<Loaded>, StoreError> {
        let keys = store.oauth_signing_keys(&self.sealing, now).await?;
        let loaded = Arc::new(Loaded {
            signing: keys[0].clone(),
            verifying: VerifyingKeys::new(&keys),
            all: keys,
            loaded_at: Instant::now(),
        });
        *self.loaded.lock().expect("not poisoned") = Some(loaded.clone());
        Ok(loaded)
    }
}

//! The use cases: what the admin app's server functions, the command line
//! and the OAuth handlers call, so that each rule (the regression gate before
//! a publish, for one) is written once. Callers extract their input, call one
//! function here and map its error; this layer reads no clock and knows no
//! HTTP (in the role of kanidm's actors, between its handlers and its domain).

pub mod credentials;
pub mod drafts;
pub mod imports;
pub mod oauth_grants;
pub mod projects;
pub mod publishing;

use crate::engine::Engine;
use crate::store::Store;

/// The metadata store and the question engine the use cases work with.
/// Cheap to clone: clones share the store's pool and the engine's caches.
#[derive(Clone, Debug)]
pub struct Services {
    pub store: Store,
    pub engine: Engine,
}

impl Services {
    pub fn new(store: Store, engine: Engine) -> Self {
        Self { store, engine }
    }
}

//! The Cassis domain, free of HTTP.
//!
//! Without the `ssr` feature this crate is plain types that the hydrated
//! browser app shares with the server. With `ssr` it adds the metadata store,
//! credential handling, the demo warehouse generator, and `service`: the use
//! cases the admin app, the command line and the OAuth handlers call.

pub mod account;
pub mod chat;
pub mod engine;
pub mod ontology;
pub mod project;
pub mod sql;
pub mod time;

#[cfg(feature = "ssr")]
pub mod auth;
#[cfg(feature = "ssr")]
pub mod demo;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
/// The connectors to the engines Cassis answers from, with `ssr`; the
/// catalog of what a warehouse holds is plain types, in the browser too.
#[cfg(feature = "ssr")]
pub mod warehouse;
#[cfg(not(feature = "ssr"))]
pub mod warehouse {
    pub mod catalog;
}

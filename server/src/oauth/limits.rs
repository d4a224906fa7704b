//! Who is asking, for the per-address limits on what anyone may make the
//! authorization server do before signing in (`cassis_core::auth::AddressLimit`).

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

pub use cassis_core::auth::{AddressLimit, TooMany};

/// The address a request came from, or `None` when the server was not
/// started with connection info (routers driven in-process by tests).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddress(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(ClientAddress(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|info| info.0.ip()),
        ))
    }
}

//! The client's address behind a reverse proxy.
//!
//! Sign-in, registration and metadata fetching are limited per client
//! address, and `/metrics` is open to some networks. Behind a proxy every
//! request comes from the proxy, so every client would share one bucket and
//! one attacker would slow sign-in for everyone. With `--trusted-proxies`,
//! a request from a listed proxy counts as the address its
//! `X-Forwarded-For` names; from anyone else the header is ignored, since
//! any client can send it.

use axum::extract::{ConnectInfo, Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Replaces the connection's address with the client's when the peer is a
/// trusted proxy, so everything that reads the address (the limits, the
/// metrics access, the request log) sees the client.
pub async fn client_behind_proxy(
    State(trusted): State<Arc<[IpNet]>>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>()
        && let Some(client) = client_address(peer.ip(), request.headers(), &trusted)
    {
        let client = SocketAddr::new(client, peer.port());
        request.extensions_mut().insert(ConnectInfo(client));
    }
    next.run(request).await
}

fn is_trusted(address: IpAddr, trusted: &[IpNet]) -> bool {
    let address = address.to_canonical();
    trusted.iter().any(|net| net.contains(&address))
}

/// The client's address when `peer` is a trusted proxy and the request says
/// who it forwards: walking `X-Forwarded-For` from the right (each proxy
/// appends the address it was reached from), the first address that is not
/// a trusted proxy. Entries further left were written by the client itself
/// and prove nothing. An entry that is not an address ends the walk at the
/// last trusted hop before it; `None` when the peer is not trusted or the
/// header names nobody.
fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> Option<IpAddr> {
    if !is_trusted(peer, trusted) {
        return None;
    }
    let mut hops: Vec<&str> = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        hops.extend(value.to_str().ok()?.split(','));
    }
    let mut nearest = None;
    for hop in hops.iter().rev() {
        let Ok(address) = hop.trim().parse::<IpAddr>() else {
            break;
        };
        let address = address.to_canonical();
        nearest = Some(address);
        if !is_trusted(address, trusted) {
            break;
        }
    }
    nearest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("x-forwarded-for", value.parse().unwrap());
        }
        headers
    }

    fn proxies() -> Vec<IpNet> {
        vec!["10.0.0.0/8".parse().unwrap(), "::1/128".parse().unwrap()]
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        let headers = forwarded(&["203.0.113.7"]);
        assert_eq!(
            client_address(ip("10.1.2.3"), &headers, &proxies()),
            Some(ip("203.0.113.7"))
        );
        // IPv4 clients of an IPv6 listener look the same.
        assert_eq!(
            client_address(
                ip("::ffff:10.1.2.3"),
                &forwarded(&["::ffff:203.0.113.7"]),
                &proxies()
            ),
            Some(ip("203.0.113.7"))
        );
    }

    #[test]
    fn anyone_else_cannot_choose_their_address() {
        let headers = forwarded(&["203.0.113.7"]);
        assert_eq!(client_address(ip("198.51.100.1"), &headers, &[]), None);
        assert_eq!(
            client_address(ip("198.51.100.1"), &headers, &proxies()),
            None
        );
    }

    #[test]
    fn what_the_client_wrote_before_the_proxies_is_ignored() {
        // The client sent "1.1.1.1, 10.9.9.9"; the proxy appended its peer.
        let headers = forwarded(&["1.1.1.1, 10.9.9.9, 203.0.113.7"]);
        assert_eq!(
            client_address(ip("10.0.0.1"), &headers, &proxies()),
            Some(ip("203.0.113.7"))
        );
        // Two proxies, each appending: the first untrusted from the right.
        let headers = forwarded(&["1.1.1.1", "203.0.113.7, 10.0.0.2"]);
        assert_eq!(
            client_address(ip("10.0.0.1"), &headers, &proxies()),
            Some(ip("203.0.113.7"))
        );
    }

    #[test]
    fn garbage_stops_at_the_last_trusted_hop() {
        let headers = forwarded(&["203.0.113.7, unknown, 10.0.0.2"]);
        assert_eq!(
            client_address(ip("10.0.0.1"), &headers, &proxies()),
            Some(ip("10.0.0.2"))
        );
        assert_eq!(
            client_address(ip("10.0.0.1"), &forwarded(&["nonsense"]), &proxies()),
            None
        );
        assert_eq!(
            client_address(ip("10.0.0.1"), &HeaderMap::new(), &proxies()),
            None
        );
    }
}

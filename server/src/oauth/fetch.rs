//! Fetches client metadata documents. The URL comes from whoever starts a
//! flow, before anyone signs in, so the fetch must not become a way to reach
//! or probe the network Cassis runs in: only publicly routable addresses are
//! connected to (the addresses checked are the ones connected to, so a name
//! cannot resolve to a public address for the check and a private one for
//! the connection), every failure looks the same to the caller, failures are
//! remembered for a while, and each client address may start only so many
//! fetches.

use super::limits::{AddressLimit, TooMany};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A metadata document is small; anything bigger is refused unread.
const MAX_DOCUMENT_BYTES: usize = 64 * 1024;
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// A URL that could not be used is not fetched again for this long, however
/// often it is asked for.
const FAILURE_TTL: Duration = Duration::from_secs(5 * 60);
/// Failed URLs remembered at most; beyond it the expired ones are dropped,
/// then the rest.
const MAX_REMEMBERED_FAILURES: usize = 10_000;
/// Fetches one client address may start: ten at once, then one every ten
/// seconds. A real client needs one an hour.
const FETCH_BURST: u32 = 10;
const FETCH_PERIOD: Duration = Duration::from_secs(10);

/// Why a document could not be fetched: for the log only, since telling the
/// caller would say what listens where inside the network.
#[derive(Debug, thiserror::Error)]
pub enum FetchFailure {
    #[error("it is not an https URL with a host")]
    NotHttps,
    #[error("its host is {0}, which is not a public address")]
    NotPublic(IpAddr),
    #[error("the request failed: {0}")]
    Request(String),
    #[error("it answered HTTP {0}")]
    Status(u16),
    #[error("it is larger than {MAX_DOCUMENT_BYTES} bytes")]
    TooLarge,
}

/// A name that resolved to an address that is not public.
#[derive(Debug, thiserror::Error)]
#[error("{name} resolves to {address}, which is not a public address")]
struct NotPublicName {
    name: String,
    address: IpAddr,
}

/// https only, no redirects, no proxy (a proxy would resolve and connect on
/// its own), a size cap, a short timeout, and names resolved by
/// [`PublicOnly`].
pub struct MetadataFetcher {
    client: reqwest::Client,
    fetches: AddressLimit,
    failures: Mutex<HashMap<String, Instant>>,
}

impl std::fmt::Debug for MetadataFetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetadataFetcher").finish_non_exhaustive()
    }
}

impl Default for MetadataFetcher {
    fn default() -> Self {
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .https_only(true)
            .no_proxy()
            .dns_resolver(Arc::new(PublicOnly))
            .user_agent(concat!("cassis/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the TLS backend initialises");
        Self {
            client,
            fetches: AddressLimit::new(FETCH_BURST, FETCH_PERIOD),
            failures: Mutex::new(HashMap::new()),
        }
    }
}

impl MetadataFetcher {
    /// Whether `url` failed less than [`FAILURE_TTL`] ago.
    pub fn failed_recently(&self, url: &str) -> bool {
        self.failures()
            .get(url)
            .is_some_and(|at| at.elapsed() < FAILURE_TTL)
    }

    /// Remembers that `url` could not be used, so it is not fetched again
    /// soon.
    pub fn remember_failure(&self, url: &str) {
        let mut failures = self.failures();
        if failures.len() >= MAX_REMEMBERED_FAILURES {
            failures.retain(|_, at| at.elapsed() < FAILURE_TTL);
            if failures.len() >= MAX_REMEMBERED_FAILURES {
                failures.clear();
            }
        }
        failures.insert(url.to_owned(), Instant::now());
    }

    /// Counts a fetch started by `address`, or says how long to wait.
    pub fn admit(&self, address: Option<IpAddr>) -> Result<(), TooMany> {
        self.fetches.check(address)
    }

    pub async fn fetch(&self, url: &str) -> Result<Vec<u8>, FetchFailure> {
        let parsed = reqwest::Url::parse(url).map_err(|_| FetchFailure::NotHttps)?;
        if parsed.scheme() != "https" {
            return Err(FetchFailure::NotHttps);
        }
        // An address written in the URL is connected to without asking the
        // resolver, so it is checked here.
        match parsed.host() {
            Some(url::Host::Ipv4(ip)) if !is_public(IpAddr::V4(ip)) => {
                return Err(FetchFailure::NotPublic(IpAddr::V4(ip)));
            }
            Some(url::Host::Ipv6(ip)) if !is_public(IpAddr::V6(ip)) => {
                return Err(FetchFailure::NotPublic(IpAddr::V6(ip)));
            }
            Some(_) => {}
            None => return Err(FetchFailure::NotHttps),
        }
        let mut response = self
            .client
            .get(parsed)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| FetchFailure::Request(with_sources(&e)))?;
        if !response.status().is_success() {
            return Err(FetchFailure::Status(response.status().as_u16()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| FetchFailure::Request(with_sources(&e)))?
        {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_DOCUMENT_BYTES {
                return Err(FetchFailure::TooLarge);
            }
        }
        Ok(body)
    }

    fn failures(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.failures.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// reqwest's messages leave out the cause ("error sending request"): the log
/// needs it.
fn with_sources(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Resolves names as the system does, and refuses a name if any of its
/// addresses is not public: the connection then goes to an address from this
/// very answer, never to one from a second lookup.
struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let name = name.as_str().to_owned();
        Box::pin(async move {
            let addresses: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            if let Some(private) = addresses.iter().find(|a| !is_public(a.ip())) {
                return Err(Box::new(NotPublicName {
                    name,
                    address: private.ip(),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

/// Whether an address is reachable on the public internet: not loopback,
/// private, shared (CGNAT), link-local, unique-local, unspecified,
/// multicast, broadcast, reserved or documentation, and not one of those
/// written as IPv6 (mapped or NAT64).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => public_v4(v4),
            None => public_v6(v6),
        },
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let special = a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 192 && b == 168)
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || a >= 224; // multicast, reserved and broadcast
    !special
}

/// The IPv4 address an IPv6 address stands for: mapped (`::ffff:a.b.c.d`)
/// or NAT64 (`64:ff9b::a.b.c.d`). The deprecated compatible form
/// (`::a.b.c.d`, also `::` and `::1`) is outside 2000::/3, so never public.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::from((u32::from(s[6]) << 16) | u32::from(s[7]));
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(low),
        _ => None,
    }
}

/// Only global unicast (2000::/3) is routed on the internet; within it the
/// IETF protocol assignments (Teredo and others), 6to4 (which carries an
/// IPv4 address that may be private) and the documentation ranges are not
/// hosts to fetch from.
fn public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    (s[0] & 0xe000) == 0x2000
        && !(s[0] == 0x2001 && s[1] < 0x0200)
        && !(s[0] == 0x2001 && s[1] == 0x0db8)
        && s[0] != 0x2002
        && (s[0] & 0xfff0) != 0x3ff0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_fetched_from() {
        for private in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.1.2.3",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::8.8.8.8",
            "64:ff9b::10.0.0.1",
            "64:ff9b:1::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "100::1",
            "2001::1",
            "2001:db8::1",
            "2002:7f00:1::1",
            "3fff::1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.0.1",
            "172.32.0.1",
            "192.0.3.1",
            "223.255.255.255",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2606:4700:4700::1111",
            "2a00:1450:4001::200e",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[tokio::test]
    async fn names_of_private_addresses_are_refused_and_never_connected_to() {
        let failure = MetadataFetcher::default()
            .fetch("https://localhost:1/client.json")
            .await
            .unwrap_err();
        let FetchFailure::Request(reason) = failure else {
            panic!("{failure:?}");
        };
        assert!(reason.contains("not a public address"), "{reason}");
    }

    #[tokio::test]
    async fn private_addresses_in_the_url_are_refused_before_any_request() {
        for url in [
            "https://127.0.0.1:1/client.json",
            "https://[::1]:1/client.json",
            "https://[::ffff:7f00:1]/client.json",
            "https://169.254.169.254/latest/meta-data",
        ] {
            let failure = MetadataFetcher::default().fetch(url).await.unwrap_err();
            assert!(
                matches!(failure, FetchFailure::NotPublic(_)),
                "{url}: {failure:?}"
            );
        }
    }

    #[test]
    fn failures_are_remembered() {
        let fetcher = MetadataFetcher::default();
        assert!(!fetcher.failed_recently("https://a.example/c.json"));
        fetcher.remember_failure("https://a.example/c.json");
        assert!(fetcher.failed_recently("https://a.example/c.json"));
        assert!(!fetcher.failed_recently("https://b.example/c.json"));
    }
}

//! What the warehouses reached over HTTPS (Snowflake, BigQuery) read alike
//! from their URLs: percent-decoded names, query parameters, and the API's
//! base URL, which `host=`, `port=` and `protocol=` point at another server
//! (a fake or an emulator in tests).

use url::Url;

/// `protocol=` names neither https nor http.
#[derive(Debug, thiserror::Error)]
#[error("protocol must be http or https, not `{0}`")]
pub struct UnknownProtocol(pub String);

/// A URL component, percent-decoded (bytes that are no UTF-8 replaced).
pub fn decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// The URL's host, percent-decoded, unless empty: the warehouse's account
/// or project.
pub fn host(url: &Url) -> Option<String> {
    url.host_str().map(decoded).filter(|h| !h.is_empty())
}

/// The value of the query parameter `name` (in any case), unless empty.
pub fn parameter(url: &Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.into_owned())
        .filter(|v| !v.is_empty())
}

/// The API's base URL: `protocol://host[:port]`, https and `default_host`
/// unless the URL's parameters say otherwise.
pub fn endpoint(url: &Url, default_host: &str) -> Result<String, UnknownProtocol> {
    let protocol = parameter(url, "protocol").unwrap_or_else(|| "https".into());
    if protocol != "https" && protocol != "http" {
        return Err(UnknownProtocol(protocol));
    }
    let host = parameter(url, "host").unwrap_or_else(|| default_host.to_owned());
    Ok(match parameter(url, "port") {
        Some(port) => format!("{protocol}://{host}:{port}"),
        None => format!("{protocol}://{host}"),
    })
}

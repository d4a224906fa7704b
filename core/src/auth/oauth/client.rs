//! OAuth clients: registered dynamically (RFC 7591) or identified by the
//! https URL of their metadata document, and the redirect URIs each may use.

use crate::time::Timestamp;
use serde::Deserialize;

/// More than this many redirect URIs, or longer ones, is not a real client.
const MAX_REDIRECT_URIS: usize = 10;
const MAX_URI_CHARS: usize = 2_000;
const MAX_NAME_CHARS: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    Registered,
    MetadataDocument,
}

impl ClientKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientKind::Registered => "registered",
            ClientKind::MetadataDocument => "metadata_document",
        }
    }

    pub fn parse(text: &str) -> Self {
        match text {
            "metadata_document" => ClientKind::MetadataDocument,
            _ => ClientKind::Registered,
        }
    }
}

/// A public client (no secret: PKCE protects its codes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthClient {
    pub id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub kind: ClientKind,
    pub created_at: Timestamp,
}

impl OAuthClient {
    /// Exact string comparison, as OAuth 2.1 requires.
    pub fn allows_redirect(&self, uri: &str) -> bool {
        self.redirect_uris.iter().any(|allowed| allowed == uri)
    }
}

/// Why client metadata was refused: the RFC 7591 error code and a description.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidClient {
    #[error("{0}")]
    RedirectUri(String),
    #[error("{0}")]
    Metadata(String),
}

impl InvalidClient {
    pub fn error_code(&self) -> super::OAuthError {
        match self {
            InvalidClient::RedirectUri(_) => super::OAuthError::InvalidRedirectUri,
            InvalidClient::Metadata(_) => super::OAuthError::InvalidClientMetadata,
        }
    }
}

/// A registration request (RFC 7591) or a client metadata document: the
/// fields Cassis uses; the rest are ignored.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ClientRegistration {
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    #[serde(default)]
    pub client_name: Option<String>,
    #[serde(default)]
    pub grant_types: Option<Vec<String>>,
    #[serde(default)]
    pub response_types: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_method: Option<String>,
}

impl ClientRegistration {
    /// The client this request describes, under `id`.
    pub fn into_client(
        self,
        id: String,
        kind: ClientKind,
        now: Timestamp,
    ) -> Result<OAuthClient, InvalidClient> {
        if self.redirect_uris.is_empty() {
            return Err(InvalidClient::RedirectUri(
                "redirect_uris must list at least one URI".to_owned(),
            ));
        }
        if self.redirect_uris.len() > MAX_REDIRECT_URIS {
            return Err(InvalidClient::RedirectUri(format!(
                "at most {MAX_REDIRECT_URIS} redirect URIs"
            )));
        }
        for uri in &self.redirect_uris {
            check_redirect_uri(uri)?;
        }
        if let Some(grants) = &self.grant_types
            && let Some(other) = grants
                .iter()
                .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
        {
            return Err(InvalidClient::Metadata(format!(
                "the grant type `{other}` is not supported; use authorization_code and refresh_token"
            )));
        }
        if let Some(types) = &self.response_types
            && types.iter().any(|t| t != "code")
        {
            return Err(InvalidClient::Metadata(
                "only the `code` response type is supported".to_owned(),
            ));
        }
        if let Some(method) = &self.token_endpoint_auth_method
            && method != "none"
        {
            return Err(InvalidClient::Metadata(format!(
                "token_endpoint_auth_method `{method}` is not supported: Cassis registers public clients (`none`) that prove themselves with PKCE"
            )));
        }
        let name = self
            .client_name
            .map(|n| n.trim().chars().take(MAX_NAME_CHARS).collect::<String>())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "Unnamed MCP client".to_owned());
        Ok(OAuthClient {
            id,
            name,
            redirect_uris: self.redirect_uris,
            kind,
            created_at: now,
        })
    }
}

/// https anywhere; http only to this machine (RFC 8252 loopback); a
/// private-use scheme of a native app (`com.example.app:/callback`); never a
/// fragment.
fn check_redirect_uri(uri: &str) -> Result<(), InvalidClient> {
    let refuse = |why: &str| InvalidClient::RedirectUri(format!("`{uri}` {why}"));
    if uri.len() > MAX_URI_CHARS {
        return Err(InvalidClient::RedirectUri(format!(
            "redirect URIs are at most {MAX_URI_CHARS} characters"
        )));
    }
    let parsed = url::Url::parse(uri).map_err(|_| refuse("is not an absolute URI"))?;
    if parsed.fragment().is_some() {
        return Err(refuse("must not have a fragment"));
    }
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&parsed) => Ok(()),
        "http" => Err(refuse(
            "must use https unless it points to this machine (127.0.0.1, [::1] or localhost)",
        )),
        "javascript" | "data" | "file" | "vbscript" | "blob" | "about" => {
            Err(refuse("uses a scheme that cannot be a redirect"))
        }
        scheme if scheme.contains('.') => Ok(()),
        _ => Err(refuse(
            "must be https, http on loopback, or a reverse-domain private-use scheme",
        )),
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// A client id that names a metadata document: an https URL with a path.
pub fn is_client_metadata_url(client_id: &str) -> bool {
    url::Url::parse(client_id)
        .is_ok_and(|url| url.scheme() == "https" && url.path() != "/" && url.fragment().is_none())
}

/// A fetched client metadata document: its `client_id` must be the URL it
/// was fetched from.
pub fn parse_metadata_document(
    url: &str,
    body: &[u8],
    now: Timestamp,
) -> Result<OAuthClient, InvalidClient> {
    let document: ClientRegistration = serde_json::from_slice(body).map_err(|e| {
        InvalidClient::Metadata(format!(
            "the client metadata document is not valid JSON: {e}"
        ))
    })?;
    if document.client_id.as_deref() != Some(url) {
        return Err(InvalidClient::Metadata(
            "the client metadata document's client_id is not the URL it was fetched from"
                .to_owned(),
        ));
    }
    document.into_client(url.to_owned(), ClientKind::MetadataDocument, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn register(uris: &[&str]) -> Result<OAuthClient, InvalidClient> {
        ClientRegistration {
            redirect_uris: uris.iter().map(|u| u.to_string()).collect(),
            client_name: Some("Claude Code".into()),
            ..Default::default()
        }
        .into_client(
            "c1".into(),
            ClientKind::Registered,
            Timestamp::from_millis(0),
        )
    }

    #[test]
    fn loopback_https_and_native_schemes_are_redirects() {
        for uri in [
            "http://127.0.0.1:33418/callback",
            "http://localhost:6274/oauth/callback",
            "http://[::1]:8080/cb",
            "https://claude.ai/api/mcp/auth_callback",
            "cursor.anysphere:/oauth/callback",
        ] {
            assert!(register(&[uri]).is_ok(), "{uri}");
        }
    }

    #[test]
    fn remote_http_fragments_and_script_schemes_are_not() {
        for uri in [
            "http://evil.example.com/cb",
            "https://claude.ai/cb#frag",
            "javascript:alert(1)",
            "not a uri",
        ] {
            assert!(
                matches!(register(&[uri]), Err(InvalidClient::RedirectUri(_))),
                "{uri}"
            );
        }
        assert!(register(&[]).is_err());
    }

    #[test]
    fn a_metadata_document_must_name_its_own_url() {
        let url = "https://client.example.com/oauth/metadata.json";
        let body = format!(
            r#"{{"client_id":"{url}","client_name":"Example","redirect_uris":["http://127.0.0.1:3000/callback"]}}"#
        );
        let client =
            parse_metadata_document(url, body.as_bytes(), Timestamp::from_millis(0)).unwrap();
        assert_eq!(client.name, "Example");
        assert!(client.allows_redirect("http://127.0.0.1:3000/callback"));
        assert!(!client.allows_redirect("http://127.0.0.1:3001/callback"));
        assert!(
            parse_metadata_document(
                "https://other.example.com/m.json",
                body.as_bytes(),
                Timestamp::from_millis(0)
            )
            .is_err()
        );
        assert!(is_client_metadata_url(url));
        assert!(!is_client_metadata_url("http://client.example.com/m.json"));
        assert!(!is_client_metadata_url("abc123"));
    }
}

//! Cassis as an OAuth 2.1 authorization server for MCP clients: the rules of
//! clients, authorization codes, grants with rotating refresh tokens, PKCE
//! and the JWT access tokens. HTTP lives in the server crate; this is what it
//! decides with.

mod access_token;
mod client;
mod pkce;
mod sealing;

pub use access_token::{
    AccessClaims, AccessTokenRejected, SigningKey, VerifyingKeys, looks_like_jwt,
};
pub use client::{
    ClientKind, ClientRegistration, InvalidClient, OAuthClient, is_client_metadata_url,
    parse_metadata_document,
};
pub use pkce::{challenge_of, is_valid_verifier};
pub use sealing::{MIN_SECRET_LEN, SealingKey, SecretTooShort, is_sealed};

use crate::time::Timestamp;
use std::fmt;
use std::time::Duration;
use uuid::Uuid;

/// Access tokens are short-lived: revocation and role changes take effect
/// through the grant check, and a leaked token soon stops working.
pub const ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// Codes are exchanged by the client right after the redirect.
pub const CODE_LIFETIME: Duration = Duration::from_secs(60);
/// A client unused this long must sign in again.
pub const REFRESH_TOKEN_LIFETIME: Duration = Duration::from_secs(30 * 24 * 60 * 60);
/// The one scope: calling the MCP tools.
pub const MCP_SCOPE: &str = "mcp";

/// The error codes OAuth responses carry (RFC 6749 §4.1.2.1 and §5.2,
/// RFC 7591 §3.2.2, RFC 8707 §2); `Display` prints the wire string. The
/// status each is answered with is the server's (`server/src/error.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OAuthError {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    UnsupportedResponseType,
    InvalidScope,
    AccessDenied,
    ServerError,
    TemporarilyUnavailable,
    InvalidTarget,
    InvalidRedirectUri,
    InvalidClientMetadata,
}

impl OAuthError {
    pub fn as_str(self) -> &'static str {
        match self {
            OAuthError::InvalidRequest => "invalid_request",
            OAuthError::InvalidClient => "invalid_client",
            OAuthError::InvalidGrant => "invalid_grant",
            OAuthError::UnauthorizedClient => "unauthorized_client",
            OAuthError::UnsupportedGrantType => "unsupported_grant_type",
            OAuthError::UnsupportedResponseType => "unsupported_response_type",
            OAuthError::InvalidScope => "invalid_scope",
            OAuthError::AccessDenied => "access_denied",
            OAuthError::ServerError => "server_error",
            OAuthError::TemporarilyUnavailable => "temporarily_unavailable",
            OAuthError::InvalidTarget => "invalid_target",
            OAuthError::InvalidRedirectUri => "invalid_redirect_uri",
            OAuthError::InvalidClientMetadata => "invalid_client_metadata",
        }
    }
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A random secret handed to a client once (a code or a refresh token);
/// only its hash is stored.
pub struct OAuthSecret(String);

impl OAuthSecret {
    pub fn generate() -> Self {
        Self(crate::auth::random_secret())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn hash(&self) -> String {
        crate::auth::hash_key(&self.0)
    }
}

impl fmt::Debug for OAuthSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OAuthSecret(***)")
    }
}

/// What a user approved, waiting for the client to exchange it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorizationCode {
    pub client_id: String,
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub redirect_uri: String,
    /// The S256 challenge the verifier must match.
    pub code_challenge: String,
    pub resource: String,
    pub scope: String,
    pub expires_at: Timestamp,
}

/// Why an approved code cannot be redeemed by this token request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodeRejected {
    #[error("the authorization code was issued to another client")]
    OtherClient,
    #[error("the authorization code has expired")]
    Expired,
    #[error("redirect_uri does not match the authorization request")]
    OtherRedirect,
    #[error("the PKCE code_verifier does not match the challenge")]
    WrongVerifier,
}

impl AuthorizationCode {
    /// Whether this code may be exchanged by `client_id` with the request's
    /// redirect URI and PKCE verifier (compared in constant time) at `now`.
    pub fn check_redemption(
        &self,
        client_id: &str,
        redirect_uri: &str,
        verifier: &str,
        now: Timestamp,
    ) -> Result<(), CodeRejected> {
        use subtle::ConstantTimeEq;
        if self.client_id != client_id {
            return Err(CodeRejected::OtherClient);
        }
        if self.expires_at <= now {
            return Err(CodeRejected::Expired);
        }
        if self.redirect_uri != redirect_uri {
            return Err(CodeRejected::OtherRedirect);
        }
        let matches = is_valid_verifier(verifier)
            && bool::from(
                challenge_of(verifier)
                    .as_bytes()
                    .ct_eq(self.code_challenge.as_bytes()),
            );
        if !matches {
            return Err(CodeRejected::WrongVerifier);
        }
        Ok(())
    }
}

/// One client's standing permission to act for one user: started by a code
/// exchange, kept alive by refresh tokens, ended by revocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub id: Uuid,
    pub client_id: String,
    pub client_name: String,
    pub organization_id: Uuid,
    pub user_id: Uuid,
    pub resource: String,
    pub scope: String,
    pub created_at: Timestamp,
    pub last_used_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

/// What presenting a refresh token did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rotation {
    /// The token was current: it is retired and the new one stored.
    Rotated(Grant),
    /// The token was already retired: someone replayed it, so the whole
    /// grant is now revoked.
    Replayed,
    /// Unknown, expired, or its grant was revoked.
    Invalid,
}

/// Whether `requested` (space-separated) is a scope Cassis grants; an empty
/// request means the MCP scope.
pub fn granted_scope(requested: Option<&str>) -> Option<String> {
    let requested = requested.map(str::trim).unwrap_or_default();
    if requested.is_empty() {
        return Some(MCP_SCOPE.to_owned());
    }
    requested
        .split_whitespace()
        .all(|scope| scope == MCP_SCOPE)
        .then(|| MCP_SCOPE.to_owned())
}

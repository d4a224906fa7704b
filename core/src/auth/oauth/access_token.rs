//! Access tokens: JWTs (RFC 9068) signed with an Ed25519 key the server keeps
//! in its database and publishes as a JWKS, bound to the MCP resource by
//! `aud`, short-lived, naming the user, organization, client and grant.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;

/// Seconds of clock difference tolerated between instances.
const LEEWAY_SECS: u64 = 5;

/// What an access token says. Times are seconds since the epoch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessClaims {
    pub iss: String,
    /// The user's id.
    pub sub: String,
    /// The MCP resource, `<public-url>/mcp/`.
    pub aud: String,
    pub exp: u64,
    pub iat: u64,
    pub jti: String,
    /// The user's organization.
    pub org: String,
    pub client_id: String,
    pub scope: String,
    /// The grant the token was issued under; a revoked grant ends it early.
    pub gid: String,
}

/// Why an access token was refused. For logs: the client only sees 401.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AccessTokenRejected {
    #[error("the token is not a JWT Cassis signed: {0}")]
    Malformed(String),
    #[error("the token names a signing key Cassis does not have")]
    UnknownKey,
    #[error("the token failed verification: {0}")]
    Invalid(String),
}

/// An Ed25519 signing key. The private half never leaves the server.
#[derive(Clone)]
pub struct SigningKey {
    pub id: String,
    /// PKCS#8 DER.
    private_key: Vec<u8>,
    public_key: Vec<u8>,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey").field("id", &self.id).finish()
    }
}

impl SigningKey {
    pub fn generate() -> Self {
        let random = ring::rand::SystemRandom::new();
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&random)
            .expect("the operating system's random source is available");
        Self::from_pkcs8(pkcs8.as_ref().to_vec()).expect("a freshly generated key parses")
    }

    fn from_pkcs8(private_key: Vec<u8>) -> Option<Self> {
        let pair = Ed25519KeyPair::from_pkcs8(&private_key).ok()?;
        let public_key = pair.public_key().as_ref().to_vec();
        // The key id is derived from the public key, so it never collides.
        let id = URL_SAFE_NO_PAD.encode(&Sha256::digest(&public_key)[..12]);
        Some(Self {
            id,
            private_key,
            public_key,
        })
    }

    /// Reads a key kept as it is, in base64: how Cassis stored keys before
    /// it sealed them.
    pub fn from_stored(private_key: &str) -> Option<Self> {
        Self::from_pkcs8(STANDARD.decode(private_key).ok()?)
    }

    pub fn stored_private_key(&self) -> String {
        STANDARD.encode(&self.private_key)
    }

    /// Reads a key as the store keeps it, sealed under `sealing`.
    pub fn from_sealed(private_key: &str, sealing: &super::SealingKey) -> Option<Self> {
        Self::from_pkcs8(sealing.open(private_key)?)
    }

    /// The private key sealed under `sealing`, as the store keeps it.
    pub fn sealed_private_key(&self, sealing: &super::SealingKey) -> String {
        sealing.seal(&self.private_key)
    }

    pub fn stored_public_key(&self) -> String {
        URL_SAFE_NO_PAD.encode(&self.public_key)
    }

    pub fn sign(&self, claims: &AccessClaims) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.id.clone());
        header.typ = Some("at+jwt".to_owned());
        jsonwebtoken::encode(
            &header,
            claims,
            &EncodingKey::from_ed_der(&self.private_key),
        )
        .expect("claims serialize and an Ed25519 key signs")
    }

    /// The public key as a JWK, for the JWKS endpoint.
    pub fn jwk(&self) -> serde_json::Value {
        serde_json::json!({
            "kty": "OKP",
            "crv": "Ed25519",
            "x": self.stored_public_key(),
            "kid": self.id,
            "alg": "EdDSA",
            "use": "sig",
        })
    }
}

/// The public keys tokens are checked against, by key id.
#[derive(Clone, Default)]
pub struct VerifyingKeys(HashMap<String, DecodingKey>);

impl fmt::Debug for VerifyingKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl VerifyingKeys {
    pub fn new(keys: &[SigningKey]) -> Self {
        Self(
            keys.iter()
                .map(|key| (key.id.clone(), DecodingKey::from_ed_der(&key.public_key)))
                .collect(),
        )
    }

    pub fn knows(&self, token: &str) -> bool {
        jsonwebtoken::decode_header(token)
            .ok()
            .and_then(|header| header.kid)
            .is_some_and(|kid| self.0.contains_key(&kid))
    }

    /// Checks the signature (EdDSA only, so `alg: none` and algorithm
    /// confusion fail), issuer, audience and expiry.
    pub fn verify(
        &self,
        token: &str,
        issuer: &str,
        audience: &str,
    ) -> Result<AccessClaims, AccessTokenRejected> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| AccessTokenRejected::Malformed(e.to_string()))?;
        let kid = header
            .kid
            .ok_or_else(|| AccessTokenRejected::Malformed("no key id".to_owned()))?;
        let key = self.0.get(&kid).ok_or(AccessTokenRejected::UnknownKey)?;
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_issuer(&[issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = LEEWAY_SECS;
        jsonwebtoken::decode::<AccessClaims>(token, key, &validation)
            .map(|data| data.claims)
            .map_err(|e| AccessTokenRejected::Invalid(e.to_string()))
    }
}

/// Three base64url segments: worth verifying as a JWT.
pub fn looks_like_jwt(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() == 3
        && parts[..2].iter().all(|p| !p.is_empty())
        && parts.iter().all(|p| {
            p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{SystemTime, UNIX_EPOCH};

    const ISSUER: &str = "https://cassis.example.com";
    const RESOURCE: &str = "https://cassis.example.com/mcp/";

    fn claims(exp_offset: i64) -> AccessClaims {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        AccessClaims {
            iss: ISSUER.into(),
            sub: "user".into(),
            aud: RESOURCE.into(),
            exp: (now + exp_offset) as u64,
            iat: now as u64,
            jti: "j".into(),
            org: "org".into(),
            client_id: "client".into(),
            scope: "mcp".into(),
            gid: "grant".into(),
        }
    }

    #[test]
    fn a_signed_token_verifies_and_a_stored_key_signs_alike() {
        let key = SigningKey::generate();
        // One set of claims: built twice, a second boundary between the
        // two would change their times.
        let signed = claims(60);
        let token = key.sign(&signed);
        assert!(looks_like_jwt(&token));
        let stored = SigningKey::from_stored(&key.stored_private_key()).unwrap();
        assert_eq!(stored.id, key.id);
        let keys = VerifyingKeys::new(&[stored]);
        assert_eq!(keys.verify(&token, ISSUER, RESOURCE).unwrap(), signed);
    }

    #[test]
    fn wrong_audience_issuer_expiry_key_or_tampering_fail() {
        let key = SigningKey::generate();
        let keys = VerifyingKeys::new(std::slice::from_ref(&key));
        let token = key.sign(&claims(60));
        assert!(
            keys.verify(&token, ISSUER, "https://other.example.com/mcp/")
                .is_err()
        );
        assert!(
            keys.verify(&token, "https://other.example.com", RESOURCE)
                .is_err()
        );
        assert!(
            keys.verify(&key.sign(&claims(-60)), ISSUER, RESOURCE)
                .is_err()
        );
        let stranger = SigningKey::generate();
        assert_eq!(
            VerifyingKeys::new(&[stranger]).verify(&token, ISSUER, RESOURCE),
            Err(AccessTokenRejected::UnknownKey)
        );
        // Another payload under the same signature.
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let mut forged = claims(60);
        forged.sub = "admin".into();
        parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged).unwrap());
        assert!(keys.verify(&parts.join("."), ISSUER, RESOURCE).is_err());
        // `alg: none` with no signature.
        let none_header = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"none","kid":"{}"}}"#, key.id));
        let unsigned = format!("{none_header}.{}.", parts[1]);
        assert!(keys.verify(&unsigned, ISSUER, RESOURCE).is_err());
    }
}

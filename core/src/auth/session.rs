//! Browser session tokens: random, shown to the browser once, stored hashed.

use sha2::{Digest, Sha256};
use std::fmt;
use std::time::Duration;

/// How long a sign-in lasts before the user must sign in again.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The secret the browser holds in its session cookie.
pub struct SessionToken(String);

/// What the store keeps instead of the token: a leaked database row cannot be
/// replayed as a cookie. SHA-256 suffices because the token has 256 random bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionTokenHash(pub String);

impl SessionToken {
    pub fn generate() -> Self {
        Self(super::random_secret())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn hash(&self) -> SessionTokenHash {
        Self::hash_of(&self.0)
    }

    pub fn hash_of(token: &str) -> SessionTokenHash {
        let digest = Sha256::digest(token.as_bytes());
        SessionTokenHash(digest.iter().map(|b| format!("{b:02x}")).collect())
    }
}

impl fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionToken(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_cookie_safe() {
        let a = SessionToken::generate();
        let b = SessionToken::generate();
        assert_ne!(a.expose(), b.expose());
        assert_eq!(a.expose().len(), 43);
        assert!(
            a.expose()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }

    #[test]
    fn the_hash_is_stable_and_not_the_token() {
        let token = SessionToken::generate();
        assert_eq!(token.hash(), SessionToken::hash_of(token.expose()));
        assert_ne!(token.hash().0, token.expose());
        assert_eq!(token.hash().0.len(), 64);
    }
}

//! `sk-k6-` API keys: shown once, stored as a hash, acting for their creator.

use sha2::{Digest, Sha256};
use std::fmt;
use std::time::Duration;

pub const API_KEY_PREFIX: &str = "sk-k6-";
/// 32 random bytes in base64url without padding.
const SECRET_CHARS: usize = 43;
/// How much of a key lists show: the prefix and four secret characters.
const DISPLAY_CHARS: usize = API_KEY_PREFIX.len() + 4;

/// A full API key. It exists in memory only while it is shown to its owner.
pub struct ApiKeySecret(String);

impl ApiKeySecret {
    pub fn generate() -> Self {
        Self(format!("{API_KEY_PREFIX}{}", super::random_secret()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What the store keeps: SHA-256 suffices for 256 random bits.
    pub fn hash(&self) -> String {
        hash_key(&self.0)
    }

    pub fn display_prefix(&self) -> String {
        self.0[..DISPLAY_CHARS].to_owned()
    }
}

impl fmt::Debug for ApiKeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKeySecret(***)")
    }
}

/// The SHA-256 of a credential: what caches of verified credentials are keyed by.
pub fn key_digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Lowercase hex of the SHA-256, as the database stores it; one allocation.
pub fn hash_key(key: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for byte in key_digest(key) {
        hex.push(HEX[usize::from(byte >> 4)] as char);
        hex.push(HEX[usize::from(byte & 0x0f)] as char);
    }
    hex
}

/// Whether `candidate` has the shape of a Cassis API key, checked before any lookup.
pub fn is_well_formed(candidate: &str) -> bool {
    candidate
        .strip_prefix(API_KEY_PREFIX)
        .is_some_and(|secret| {
            secret.len() == SECRET_CHARS
                && secret
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a lifetime: use a number and a unit, such as 90d, 12h or 30m")]
pub struct InvalidLifetime(pub String);

/// Parses `90d`, `12h` or `30m`.
pub fn parse_lifetime(text: &str) -> Result<Duration, InvalidLifetime> {
    let invalid = || InvalidLifetime(text.to_owned());
    let text = text.trim();
    let unit = text.chars().last().ok_or_else(invalid)?;
    let number: u64 = text[..text.len() - unit.len_utf8()]
        .parse()
        .map_err(|_| invalid())?;
    let seconds = match unit {
        'd' => 24 * 60 * 60,
        'h' => 60 * 60,
        'm' => 60,
        _ => return Err(invalid()),
    };
    if number == 0 {
        return Err(invalid());
    }
    number
        .checked_mul(seconds)
        .map(Duration::from_secs)
        .ok_or_else(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_prefixed_random_and_well_formed() {
        let a = ApiKeySecret::generate();
        let b = ApiKeySecret::generate();
        assert_ne!(a.expose(), b.expose());
        assert!(a.expose().starts_with("sk-k6-"));
        assert_eq!(a.expose().len(), 6 + 43);
        assert!(is_well_formed(a.expose()));
        assert_eq!(a.display_prefix(), a.expose()[..10]);
        assert_eq!(a.hash(), hash_key(a.expose()));
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(format!("{a:?}"), "ApiKeySecret(***)");
    }

    #[test]
    fn malformed_keys_are_told_apart_before_any_lookup() {
        for bad in [
            "",
            "sk-k6-",
            "sk-k6-short",
            "Bearer sk-k6-x",
            &format!("sk-k5-{}", "a".repeat(43)),
            &format!("sk-k6-{}!", "a".repeat(42)),
        ] {
            assert!(!is_well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn lifetimes_read_like_people_write_them() {
        assert_eq!(parse_lifetime("90d"), Ok(Duration::from_secs(90 * 86_400)));
        assert_eq!(parse_lifetime("12h"), Ok(Duration::from_secs(12 * 3_600)));
        assert_eq!(parse_lifetime("30m"), Ok(Duration::from_secs(1_800)));
        for bad in ["", "d", "90", "0d", "-1d", "1y", "99999999999999999d"] {
            assert!(parse_lifetime(bad).is_err(), "{bad}");
        }
    }
}

/// An API key as stored and listed: never the key itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiKey {
    pub id: uuid::Uuid,
    pub organization_id: uuid::Uuid,
    /// The creator, whom the key acts for.
    pub user_id: uuid::Uuid,
    pub user_email: String,
    pub name: String,
    pub display_prefix: String,
    pub created_at: crate::time::Timestamp,
    pub expires_at: Option<crate::time::Timestamp>,
    pub last_used_at: Option<crate::time::Timestamp>,
    pub revoked_at: Option<crate::time::Timestamp>,
}

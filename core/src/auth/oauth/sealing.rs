//! The OAuth signing keys at rest: sealed with AES-256-GCM under a secret
//! kept outside the metadata database (`CASSIS_SIGNING_KEY_SECRET`, or a key
//! file in the data directory), so a copy of the database or a backup holds
//! no key that signs access tokens.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};
use std::fmt;

/// Marks a sealed value, and the scheme it was sealed with.
const SEALED_PREFIX: &str = "sealed-v1:";

/// Binds a sealed value to what it is, so it cannot pass for another secret
/// sealed under the same key.
const PURPOSE: &[u8] = b"cassis oauth signing key";

/// Secrets shorter than this are refused: the key is derived from the
/// secret alone, so it must be as hard to guess as a key.
pub const MIN_SECRET_LEN: usize = 32;

/// The key signing keys are sealed with.
pub struct SealingKey(LessSafeKey);

impl fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealingKey(***)")
    }
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("the signing key secret has {0} characters; it needs at least {MIN_SECRET_LEN}")]
pub struct SecretTooShort(pub usize);

impl SealingKey {
    /// The key derived from `secret`: at least [`MIN_SECRET_LEN`] characters,
    /// such as the 44 of a generated key file.
    pub fn from_secret(secret: &str) -> Result<Self, SecretTooShort> {
        let secret = secret.trim();
        if secret.len() < MIN_SECRET_LEN {
            return Err(SecretTooShort(secret.len()));
        }
        let mut digest = Sha256::new();
        digest.update(b"cassis signing key secret v1\0");
        digest.update(secret.as_bytes());
        let key = UnboundKey::new(&AES_256_GCM, &digest.finalize())
            .expect("a SHA-256 digest is an AES-256 key");
        Ok(Self(LessSafeKey::new(key)))
    }

    /// A new random secret, as a key file holds it: 32 bytes in base64.
    pub fn generate_secret() -> String {
        let mut bytes = [0u8; 32];
        SystemRandom::new()
            .fill(&mut bytes)
            .expect("the operating system's random source is available");
        STANDARD.encode(bytes)
    }

    /// `plaintext` sealed under a fresh random nonce, as text for a column.
    pub fn seal(&self, plaintext: &[u8]) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .expect("the operating system's random source is available");
        let mut sealed = plaintext.to_vec();
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(PURPOSE),
                &mut sealed,
            )
            .expect("a signing key is far below AES-GCM's message limit");
        let mut stored = nonce.to_vec();
        stored.extend_from_slice(&sealed);
        format!("{SEALED_PREFIX}{}", STANDARD.encode(stored))
    }

    /// What `stored` holds, if it was sealed under this key and not altered.
    pub fn open(&self, stored: &str) -> Option<Vec<u8>> {
        let bytes = STANDARD.decode(stored.strip_prefix(SEALED_PREFIX)?).ok()?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut sealed = sealed.to_vec();
        let opened = self
            .0
            .open_in_place(nonce, Aad::from(PURPOSE), &mut sealed)
            .ok()?;
        Some(opened.to_vec())
    }
}

/// Whether a stored value is sealed, rather than kept as it is (as Cassis
/// did before it sealed keys).
pub fn is_sealed(stored: &str) -> bool {
    stored.starts_with(SEALED_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_secret_opens_what_it_sealed() {
        let secret = SealingKey::generate_secret();
        let key = SealingKey::from_secret(&secret).unwrap();
        let sealed = key.seal(b"a private key");
        assert!(is_sealed(&sealed));
        assert!(!sealed.contains("a private key"));
        assert_ne!(
            sealed,
            key.seal(b"a private key"),
            "a fresh nonce each time"
        );
        assert_eq!(key.open(&sealed).as_deref(), Some(&b"a private key"[..]));
        // The same secret read again, with a trailing newline from its file.
        let again = SealingKey::from_secret(&format!("{secret}\n")).unwrap();
        assert!(again.open(&sealed).is_some());

        let other = SealingKey::from_secret(&SealingKey::generate_secret()).unwrap();
        assert_eq!(other.open(&sealed), None);
        // One changed character anywhere and it does not open.
        let mut tampered = sealed.clone().into_bytes();
        let last = tampered.len() - 3;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(key.open(&String::from_utf8(tampered).unwrap()), None);
        assert_eq!(key.open("not sealed"), None);
        assert_eq!(
            SealingKey::from_secret("short").unwrap_err(),
            SecretTooShort(5)
        );
    }
}

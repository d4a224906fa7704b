//! Argon2id password hashes in PHC string format.

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use std::fmt;

/// A password that meets the policy, ready to hash.
pub struct Password(String);

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    #[error("a password needs at least {min} characters")]
    TooShort { min: usize },
    #[error("a password has at most {max} characters")]
    TooLong { max: usize },
    #[error("the stored password hash is not a valid PHC string")]
    CorruptHash,
    #[error("hashing the password failed: {0}")]
    Hashing(String),
}

impl Password {
    pub const MIN_CHARS: usize = 8;
    /// Long enough for any passphrase, short enough that hashing stays cheap.
    pub const MAX_CHARS: usize = 1024;

    pub fn new(password: &str) -> Result<Self, PasswordError> {
        let chars = password.chars().count();
        if chars < Self::MIN_CHARS {
            return Err(PasswordError::TooShort {
                min: Self::MIN_CHARS,
            });
        }
        if chars > Self::MAX_CHARS {
            return Err(PasswordError::TooLong {
                max: Self::MAX_CHARS,
            });
        }
        Ok(Self(password.to_owned()))
    }

    pub fn hash(&self) -> Result<PasswordHash, PasswordError> {
        let hash = Argon2::default()
            .hash_password(self.0.as_bytes())
            .map_err(|e| PasswordError::Hashing(e.to_string()))?;
        Ok(PasswordHash(hash.to_string()))
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

/// A stored Argon2 hash (PHC string). Never the password itself.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(String);

impl PasswordHash {
    /// Wraps a PHC string read from storage, checking that it parses.
    pub fn from_phc(phc: String) -> Result<Self, PasswordError> {
        argon2::PasswordHash::new(&phc).map_err(|_| PasswordError::CorruptHash)?;
        Ok(Self(phc))
    }

    pub fn as_phc(&self) -> &str {
        &self.0
    }

    /// Argon2 compares in constant time; a hash that fails to parse never matches.
    pub fn verify(&self, password: &str) -> bool {
        match argon2::PasswordHash::new(&self.0) {
            Ok(hash) => Argon2::default()
                .verify_password(password.as_bytes(), &hash)
                .is_ok(),
            Err(_) => false,
        }
    }

    /// Spends as long as verifying a real password, so that a sign-in for an
    /// unknown email takes as long as one with a wrong password.
    pub fn spend_verification_time(password: &str) {
        static DUMMY: std::sync::OnceLock<Option<PasswordHash>> = std::sync::OnceLock::new();
        let dummy = DUMMY.get_or_init(|| Password::new("not-a-real-password").ok()?.hash().ok());
        if let Some(dummy) = dummy {
            let _ = dummy.verify(password);
        }
    }
}

impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordHash(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_and_nothing_else() {
        let hash = Password::new("correct horse battery")
            .unwrap()
            .hash()
            .unwrap();
        assert!(hash.as_phc().starts_with("$argon2id$"));
        assert!(hash.verify("correct horse battery"));
        assert!(!hash.verify("correct horse battery "));
        assert!(!hash.verify(""));
    }

    #[test]
    fn equal_passwords_get_different_salts() {
        let a = Password::new("same password").unwrap().hash().unwrap();
        let b = Password::new("same password").unwrap().hash().unwrap();
        assert_ne!(a.as_phc(), b.as_phc());
    }

    #[test]
    fn the_policy_bounds_length() {
        assert_eq!(
            Password::new("short").err(),
            Some(PasswordError::TooShort { min: 8 })
        );
        assert!(Password::new(&"x".repeat(1025)).is_err());
        assert!(Password::new("eight ch").is_ok());
    }

    #[test]
    fn corrupt_hashes_are_rejected_when_read() {
        assert_eq!(
            PasswordHash::from_phc("plaintext".into()).err(),
            Some(PasswordError::CorruptHash)
        );
        assert!(!PasswordHash("plaintext".into()).verify("plaintext"));
    }

    #[test]
    fn debug_output_hides_secrets() {
        let password = Password::new("hunter2hunter2").unwrap();
        let hash = password.hash().unwrap();
        assert_eq!(
            format!("{password:?} {hash:?}"),
            "Password(***) PasswordHash(***)"
        );
    }
}
